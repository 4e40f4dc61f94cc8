"""The vectorisable exp, expm1, log, log1p and tanh of array loops (compiler/backends/llvm/
vector_math.py): the loops computing them are SIMD code with no call to the C library (and
are not with the module switched off), float64 results are within the stated ulps of the exact
value over dense sweeps of each domain (80-bit long double as the reference, its error about
2^-11 ulp), float32 results within an ulp of the correctly rounded float, special values (and
some points) the correctly rounded ones, sums of them keep their in-order bits, gradients use them,
and scalar code still calls the C library (Python's bits)."""

import math
import re

import llvmlite.binding as llvm
import numpy as np
import pytest

from adlite import compiler
from adlite.compiler.backends.llvm import vector_math
from adlite.compiler.backends.llvm.jit import host_target_machine
from adlite.compiler.ir.core import Type

N = 1_000_000
L = np.longdouble


def exp(x):
    return np.exp(x)


def expm1(x):
    return np.expm1(x)


def log(x):
    return np.log(x)


def log1p(x):
    return np.log1p(x)


def tanh(x):
    return np.tanh(x)


def sum_tanh(x):
    return np.sum(np.tanh(x))


def exp_times(x, y):
    return np.exp(x) * y


def mlp_like(x, y):
    return np.sum(np.log1p(np.exp(x)) - np.expm1(y) * np.log(np.abs(y) + 1.0))


def scalar_tanh(x):
    return math.tanh(x) + math.exp(x)


def _code(fn, dtype: str, n_args: int) -> tuple[str, str]:
    text = compiler.show(fn, "lower", types=[Type(dtype, (1000,))] * n_args)
    with host_target_machine(jit=False) as tm:
        return text, tm.emit_assembly(llvm.parse_assembly(text))


LIBM = r"@(?:llvm\.)?(?:exp|expm1|log|log1p|tanh)f?(?:\.[\w.]+)?\("


def _vectorised(text: str, asm: str, dtype: str) -> bool:
    """SIMD arithmetic on `dtype` in the IR, and no transcendental call in IR or assembly."""
    element = "double" if dtype == "f64" else "float"
    simd = re.search(rf"(fmul|fadd|fma\.v\d+f\d+)[^\n]*<\d+ x {element}>", text)
    calls = re.search(LIBM, text) or re.search(r"call\w*\s+\*?(exp|log|tanh|expm1|log1p)f?\b",
                                               asm)
    return bool(simd) and not calls


@pytest.mark.parametrize("dtype", ["f64", "f32"])
@pytest.mark.parametrize(("fn", "n_args"), [(sum_tanh, 1), (exp_times, 2), (mlp_like, 2)],
                         ids=["sum_tanh", "exp_times", "mlp_like"])
def test_array_loops_are_simd_without_libm_calls(fn, n_args, dtype, monkeypatch):
    text, asm = _code(fn, dtype, n_args)
    assert _vectorised(text, asm, dtype), text
    monkeypatch.setattr(vector_math, "ENABLED", False)  # the C library's: scalar calls
    text, asm = _code(fn, dtype, n_args)
    assert not _vectorised(text, asm, dtype)


def test_scalar_code_keeps_the_c_library():
    text = compiler.show(scalar_tanh, "lower")
    assert re.search(r"call double @tanh\(", text) and "@llvm.exp.f64" in text
    xs = np.random.default_rng(0).uniform(-30.0, 30.0, 200)
    f = compiler.jit(scalar_tanh)
    assert all(f(float(x)) == math.tanh(x) + math.exp(x) for x in xs)


def _ulps(got, ref, dtype=np.float64):
    """|got - ref| in units of the spacing of float `dtype` at the reference (subnormal
    spacing below the normal range); finite references only."""
    spacing = np.spacing(np.abs(ref).astype(dtype)).astype(L)
    return np.abs(got.astype(L) - ref) / spacing


def _sweep(rng, pieces):
    return np.concatenate([make(rng, N // len(pieces)) for make in pieces])


def _logspace(lo, hi, sign=1.0):
    return lambda rng, n: sign * np.exp(rng.uniform(lo, hi, n))


def _uniform(lo, hi):
    return lambda rng, n: rng.uniform(lo, hi, n)


# per function: pieces of the sweep (uniform ranges, log-spaced magnitudes; thresholds and
# subnormal results included) and the largest float64 error allowed there, in ulps
SWEEPS = {
    "exp": [([_uniform(-745.2, 709.79), _uniform(-1.0, 1.0), _uniform(709.0, 709.79),
              _logspace(-745.0, 0.0), _logspace(-745.0, 0.0, -1.0)], 0.75),
            ([_uniform(-745.2, -708.3)], 1.0)],  # subnormal results: rounded twice
    "expm1": [([_uniform(-40.0, 709.78), _uniform(-1.0, 1.0), _logspace(-745.0, 0.0),
                _logspace(-745.0, 0.0, -1.0), _uniform(-0.4, 0.4)], 0.75)],
    "log": [([_logspace(-744.4, 709.7), _uniform(0.5, 2.0), _uniform(0.999, 1.001),
              _uniform(0.0, 3e-308), _uniform(1e307, 1.79e308)], 0.75)],
    "log1p": [([_uniform(-1.0, 1.0), _logspace(-745.0, 709.0), _logspace(-745.0, 0.0, -1.0),
                _uniform(-1.0, -0.999), _uniform(-0.3, 0.42)], 0.75)],
    "tanh": [([_uniform(-20.0, 20.0), _uniform(-1.0, 1.0), _uniform(18.0, 19.5),
               _logspace(-745.0, 3.0), _logspace(-745.0, 3.0, -1.0)], 0.75)],
}
FUNCTIONS = {f.__name__: f for f in (exp, expm1, log, log1p, tanh)}


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_float64_within_the_stated_ulps(name):
    fn, compiled = FUNCTIONS[name], compiler.jit(FUNCTIONS[name])
    rng = np.random.default_rng(sorted(SWEEPS).index(name))
    for pieces, bound in SWEEPS[name]:
        x = _sweep(rng, pieces)
        with np.errstate(all="ignore"):
            ref = fn(x.astype(L))
            finite = np.isfinite(ref) & (np.abs(ref) <= np.finfo(np.float64).max)
            got = compiled(x)
        err = _ulps(got[finite], ref[finite])
        worst = int(np.argmax(err))
        assert err[worst] <= bound, (name, x[finite][worst], got[finite][worst])
        assert np.all(np.isinf(got[~finite]) & (np.sign(got[~finite]) == np.sign(ref[~finite])))


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_float32_within_an_ulp_of_the_correctly_rounded_float(name):
    fn, compiled = FUNCTIONS[name], compiler.jit(FUNCTIONS[name])
    rng = np.random.default_rng(10 + sorted(SWEEPS).index(name))
    with np.errstate(all="ignore"):
        x = np.concatenate([_sweep(rng, pieces) for pieces, _ in SWEEPS[name]])
        x = x[np.abs(x) < 3e38].astype(np.float32)
        expected = fn(x.astype(L)).astype(np.float32)  # correctly rounded (ties aside)
        got = compiled(x)
    assert got.dtype == np.float32
    same_class = (np.isnan(got) == np.isnan(expected)) & (np.isinf(got) == np.isinf(expected))
    assert same_class.all()
    ordinal = got.view(np.int32).astype(np.int64), expected.view(np.int32).astype(np.int64)
    finite = np.isfinite(expected)
    assert np.abs(ordinal[0] - ordinal[1])[finite].max() <= 1


TINY = np.finfo(np.float64).tiny
SPECIALS = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-310, -1e-310, TINY, -TINY, 1e-300,
                     -1e-300, 1e-17, -1e-17, np.inf, -np.inf, np.nan, 0.5, 1.0, -1.0, 2.0,
                     -0.5, 709.782712893384, 709.7827128933841, 710.0, -745.1332191019411,
                     -745.1332191019412, -708.4, -740.0, -1e300, 1e300, -37.0, -38.0, -40.0,
                     -50.0, 18.0, 19.5, 20.0, 25.0, 1e-9, -1.0 + 2.0 ** -53, 2.0 ** 53,
                     2.0 ** 54 + 4.0, 1.7976931348623157e308, -1.7976931348623157e308])


@pytest.mark.parametrize("name", sorted(SWEEPS))
def test_special_values_are_correctly_rounded(name):
    fn = FUNCTIONS[name]
    with np.errstate(all="ignore"):
        expected = fn(SPECIALS.astype(L)).astype(np.float64)
        got = compiler.jit(fn)(SPECIALS)
    for x, g, e in zip(SPECIALS, got, expected, strict=True):
        same = np.isnan(g) if np.isnan(e) else g == e and np.signbit(g) == np.signbit(e)
        assert same, (name, x, g, e)


def test_a_sum_of_them_keeps_their_bits():
    """Fused into a sum (numpy's pairwise order, pairwise.py), the values are those of the
    elementwise loop."""
    x = np.random.default_rng(5).uniform(-3.0, 3.0, 10_001)
    assert compiler.jit(sum_tanh)(x) == np.sum(compiler.jit(tanh)(x))


def test_gradients_use_them():
    x = np.random.default_rng(6).uniform(-3.0, 3.0, 1000)
    y = np.random.default_rng(7).uniform(-0.9, 3.0, 1000)
    gx, gy = compiler.grad(mlp_like, wrt=(0, 1))(x, y)
    e = np.exp(x)
    np.testing.assert_allclose(gx, e / (1.0 + e), rtol=1e-14)
    np.testing.assert_allclose(gy, -np.exp(y) * np.log(np.abs(y) + 1.0) -
                               np.expm1(y) * np.sign(y) / (np.abs(y) + 1.0), rtol=1e-13)
    text = compiler.show(sum_tanh, "lower", grad=True, types=[Type("f64", (1000,))])
    assert not re.search(LIBM, text) and re.search(r"<\d+ x double>", text)
