"""Property-based differential testing: random programs, compiled vs eager tape."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adlite.compiler import grad, jit

from ..support.generated_source import load_function
from ..support.gradients import eager_gradient
from ..support.random_programs import examples

VARS = ["x", "y"]


@st.composite
def expressions(draw, names, depth=0):
    leaves = st.sampled_from(names) | st.sampled_from(["0.5", "1.5", "-0.25", "2"])
    if depth >= 3 or draw(st.booleans()):
        return draw(leaves)
    kind = draw(st.sampled_from(["bin", "bin", "fn", "neg"]))
    if kind == "neg":
        return f"(-{draw(expressions(names, depth + 1))})"
    if kind == "fn":
        fn = draw(st.sampled_from(["np.sin", "np.cos", "np.tanh", "np.arctan"]))
        return f"{fn}({draw(expressions(names, depth + 1))})"
    op = draw(st.sampled_from(["+", "-", "*"]))
    return f"({draw(expressions(names, depth + 1))} {op} {draw(expressions(names, depth + 1))})"


@st.composite
def statements(draw, names, indent, depth=0, in_loop=False):
    kinds = ["assign", "assign", "if", "for", "while"] if depth < 2 else ["assign"]
    if in_loop:
        kinds = kinds + ["break", "continue"]
    kind = draw(st.sampled_from(kinds))
    pad = "    " * indent
    target = draw(st.sampled_from(names))
    if kind == "assign":
        return [f"{pad}{target} = np.tanh({draw(expressions(names))})"]
    if kind in ("break", "continue"):
        return [f"{pad}if {draw(expressions(names))} > 0.3:", f"{pad}    {kind}"]
    loop = kind in ("for", "while")
    body = [line for _ in range(draw(st.integers(1, 2)))
            for line in draw(statements(names, indent + 1, depth + 1, in_loop or loop))]
    if kind == "if":
        other = [line for line in draw(statements(names, indent + 1, depth + 1, in_loop))]
        test = f"{draw(expressions(names))} > {draw(expressions(names))}"
        return [f"{pad}if {test}:"] + body + [f"{pad}else:"] + other
    if kind == "for":
        return [f"{pad}for _ in range({draw(st.integers(0, 3))}):"] + body
    counter = f"k{depth}"
    # the counter moves first, so `continue` cannot make the loop endless
    return ([f"{pad}{counter} = 0", f"{pad}while {counter} < {draw(st.integers(1, 3))} and "
             f"{draw(expressions(names))} < 5.0:", f"{pad}    {counter} += 1"] + body)


@st.composite
def programs(draw):
    lines = ["import numpy as np", "", "", "def f(x, y):"]
    for _ in range(draw(st.integers(1, 4))):
        lines += draw(statements(VARS, 1))
    if draw(st.booleans()):  # an early return on some paths
        lines += [f"    if {draw(expressions(VARS))} > 0.5:",
                  f"        return 2.0 * {draw(expressions(VARS))}"]
    lines.append(f"    return 1.0 * {draw(expressions(VARS))}")
    return "\n".join(lines) + "\n"


@settings(max_examples=examples(100), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(source=programs(), x=st.floats(-2, 2), y=st.floats(-2, 2))
def test_random_programs_compiled_vs_eager(source, x, y, tmp_path):
    f = load_function(source, tmp_path)
    value = f(np.float64(x), np.float64(y))
    np.testing.assert_allclose(jit(f)(x, y), value, rtol=1e-12, atol=1e-12, err_msg=source)
    got = grad(f, wrt=(0, 1))(x, y)
    want = eager_gradient(f, [x, y], (0, 1))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=source)
