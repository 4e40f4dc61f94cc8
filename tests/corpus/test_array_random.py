"""Property-based differential testing of array code: random numpy programs over a (3,) and a
(2, 3) array (broadcasting, reductions with axes, slices, matmul, where, row and element
updates in loops, an array carried by a data-dependent while loop), compiled (LLVM, with
fusion) vs plain numpy for values and vs the eager tape for gradients."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adlite.compiler import grad, jit
from adlite.runtime import Tensor

from ..support.generated_source import load_function
from ..support.random_programs import examples

LEAVES = {"v": "x", "m": "y"}  # kind -> variable: v is (3,), m is (2, 3)


@st.composite
def expr(draw, kind, depth=0):
    """An expression of shape kind "v" (3,) or "m" (2, 3)."""
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        leaf = draw(st.sampled_from([LEAVES[kind], "const"]))
        if leaf == "const":
            return f"({draw(st.sampled_from(['0.5', '-1.5', '2.0']))} + 0.0 * {LEAVES[kind]})"
        return leaf
    choice = draw(st.sampled_from(["bin", "bin", "fn", "where", "reduce", "mix"]))
    sub = lambda k=kind: draw(expr(k, depth + 1))  # noqa: E731
    if choice == "bin":
        op = draw(st.sampled_from(["+", "-", "*"]))
        other = draw(st.sampled_from([kind, "v"]))  # (2,3) op (3,) broadcasts
        return f"({sub()} {op} {sub(other)})"
    if choice == "fn":
        fn = draw(st.sampled_from(["np.sin", "np.tanh", "np.cos", "np.arctan"]))
        return f"{fn}({sub()})"
    if choice == "where":
        return f"np.where({sub()} > {sub()}, {sub()}, {sub()})"
    if choice == "reduce" and kind == "v":
        how = draw(st.sampled_from(["np.sum({}, axis=0)", "np.max({}, axis=0)",
                                    "np.mean({}, axis=0)", "{}[1]", "(y @ ({}))[0] * ({})"]))
        inner = sub("m") if "axis" in how or how == "{}[1]" else sub("v")
        return how.format(inner, inner)
    if choice == "mix" and kind == "m":
        return f"({sub('v')}.reshape(1, 3) * np.sum({sub()}, axis=1, keepdims=True))"
    if kind == "v":
        return f"({sub()}[::-1] * 0.5)"
    return f"({sub()}[:, ::-1] * 0.5)"


@st.composite
def programs(draw):
    lines = ["import numpy as np", "", "", "def f(x, y):",
             # `1.0 * (...)`: never an alias of an argument, which numpy would then mutate
             f"    a = 1.0 * ({draw(expr('m'))})", f"    b = 1.0 * ({draw(expr('v'))})"]
    if draw(st.booleans()):  # row updates of an array inside a loop
        lines += ["    for i in range(2):",
                  f"        a[i] = a[i] * 0.5 + {draw(expr('v'))}"]
    if draw(st.booleans()):  # element updates with a data-dependent branch
        lines += ["    for j in range(3):",
                  "        if b[j] > 0.0:",
                  "            b[j] += a[1, j] * b[j]",
                  "        else:",
                  "            b[j] = np.sin(b[j])"]
    if draw(st.booleans()):  # an array carried by a while loop with a data-dependent end
        lines += ["    k = 0", "    while np.sum(b * b) < 6.0 and k < 4:",
                  "        b = b * 1.3 + 0.1", "        k += 1"]
    lines.append("    return np.sum(np.sin(a)) + np.sum(b * b)")
    return "\n".join(lines) + "\n"


@settings(max_examples=examples(40), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=programs(), seed=st.integers(0, 1000))
def test_random_array_programs(source, seed, tmp_path):
    f = load_function(source, tmp_path)
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal(3), rng.standard_normal((2, 3))
    np.testing.assert_allclose(jit(f)(x, y), f(x, y), rtol=1e-11, atol=1e-12, err_msg=source)
    gx, gy = grad(f, wrt=(0, 1))(x, y)
    tx, ty = Tensor(x, requires_grad=True), Tensor(y, requires_grad=True)
    f(tx, ty).backward()
    for got, t in ((gx, tx), (gy, ty)):
        want = np.zeros_like(got) if t.grad is None else t.grad.numpy()
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-11, err_msg=source)
