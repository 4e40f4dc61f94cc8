"""Table of tape operations with input generators, shared by the gradient tests.

Each case is (id, fn, input makers); a maker takes a numpy Generator and returns a float64
array (inputs are kept inside the op's smooth domain: away from 0 for abs/div, positive for
log/sqrt, distinct values for max/min).
"""

import numpy as np
import scipy.special as sc

SHAPES = [(), (3,), (2, 3)]
BROADCAST_PAIRS = [((2, 3), (3,)), ((1, 3), (2, 1)), ((2, 3), ()), ((3, 1), (1, 3))]


def normal(shape):
    return lambda rng: rng.standard_normal(shape)


def positive(shape):
    return lambda rng: rng.uniform(0.5, 2.0, shape)


def away_from_zero(shape):
    return lambda rng: rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2.0, shape)


def distinct(shape):
    """Well-separated values so that max/min/clip are differentiable at the sample."""
    def make(rng):
        n = int(np.prod(shape))
        return (rng.permutation(n) * 0.7 - n * 0.3 + rng.uniform(-0.1, 0.1, n)).reshape(shape)
    return make


UNARY = {
    "neg": (lambda x: -x, normal),
    "exp": (np.exp, normal),
    "log": (np.log, positive),
    "sqrt": (np.sqrt, positive),
    "sin": (np.sin, normal),
    "cos": (np.cos, normal),
    "tan": (lambda x: np.tan(x * 0.3), normal),
    "tanh": (np.tanh, normal),
    "sigmoid": (lambda x: x.sigmoid(), normal),
    "abs": (np.abs, away_from_zero),
    "square": (np.square, normal),
    "log1p": (np.log1p, positive),
    "expm1": (np.expm1, normal),
    "cbrt": (np.cbrt, away_from_zero),
    "sinh": (np.sinh, normal),
    "cosh": (np.cosh, normal),
    "arcsin": (lambda x: np.arcsin(x * 0.4), normal),
    "arccos": (lambda x: np.arccos(x * 0.4), normal),
    "arctan": (np.arctan, normal),
    "exp2": (np.exp2, normal),
    "reciprocal": (np.reciprocal, away_from_zero),
    "sinc": (np.sinc, normal),
    "log2": (np.log2, positive),
    "log10": (np.log10, positive),
    "pow_const": (lambda x: x ** 3, normal),
    "rpow": (lambda x: 2.0 ** x, normal),
    "relu": (lambda x: x.relu(), away_from_zero),
    "clip": (lambda x: np.clip(x, -1.0, 1.0), distinct),
    "sum": (np.sum, normal),
    "mean": (np.mean, normal),
    "max": (np.max, distinct),
    "min": (np.min, distinct),
    "prod": (np.prod, away_from_zero),
    "logsumexp": (lambda x: __import__("adlite.runtime").runtime.logsumexp(x), normal),
    "erf": (sc.erf, normal),
    "erfc": (sc.erfc, normal),
    "ndtr": (lambda x: sc.ndtr(x * 2.0), normal),
    "log_ndtr": (lambda x: sc.log_ndtr(x * 12.0), normal),
    "expit": (sc.expit, normal),
    "logit": (lambda x: sc.logit(sc.expit(x)), normal),
    "gammaln": (sc.gammaln, positive),
    "norm_logpdf": (lambda x: _special().norm_logpdf(x, 0.5, 1.5), normal),
    "norm_cdf": (lambda x: _special().norm_cdf(x, -0.2, 0.7), normal),
}


def _special():
    from adlite.runtime import special

    return special


BINARY = {
    "add": (lambda x, y: x + y, normal, normal),
    "sub": (lambda x, y: x - y, normal, normal),
    "mul": (lambda x, y: x * y, normal, normal),
    "div": (lambda x, y: x / y, normal, away_from_zero),
    "pow": (lambda x, y: x ** y, positive, normal),
    "maximum": (np.maximum, distinct, lambda s: lambda rng: distinct(s)(rng) + 0.35),
    "minimum": (np.minimum, distinct, lambda s: lambda rng: distinct(s)(rng) + 0.35),
    "where": (lambda x, y: np.where(x > 0, x, y), away_from_zero, normal),
    "hypot": (np.hypot, away_from_zero, normal),
    "arctan2": (np.arctan2, normal, away_from_zero),
    "fmod": (lambda x, y: np.fmod(x * 3.1, y), normal, away_from_zero),
    "logaddexp": (np.logaddexp, normal, normal),
    "heaviside": (lambda x, y: np.heaviside(x, y) * y, away_from_zero, normal),
    "remainder": (lambda x, y: np.remainder(x * 3.1, y), normal, away_from_zero),
    "xlogy": (sc.xlogy, normal, positive),
    "norm_pdf": (lambda x, y: _special().norm_pdf(x, y, y * y + 0.5), normal, normal),
}


def well_conditioned(shape):
    """A matrix with a dominant diagonal (and an SPD one for Cholesky, built by the case)."""
    return lambda rng: rng.standard_normal(shape) * 0.5 + 3.0 * np.eye(shape[0])


def _axis_cases():
    cases = []
    for name, fn, maker in [("sum", np.sum, normal), ("mean", np.mean, normal),
                            ("max", np.max, distinct), ("min", np.min, distinct),
                            ("prod", np.prod, away_from_zero), ("var", np.var, normal),
                            ("std", np.std, normal)]:
        for axis in (0, 1, -1, (0, 1)):
            for keepdims in (False, True):
                cases.append((f"{name}-axis{axis}-keep{keepdims}",
                              (lambda f, a, k: lambda x: f(x, axis=a, keepdims=k))(
                                  fn, axis, keepdims), [maker((2, 3))]))
    return cases


def _shape_cases():
    from adlite import runtime as rt
    return [
        ("matmul-2x2", lambda x, y: x @ y, [normal((2, 3)), normal((3, 4))]),
        ("matmul-vec-vec", lambda x, y: x @ y, [normal((3,)), normal((3,))]),
        ("matmul-mat-vec", lambda x, y: x @ y, [normal((2, 3)), normal((3,))]),
        ("matmul-vec-mat", lambda x, y: x @ y, [normal((3,)), normal((3, 2))]),
        ("matmul-batched", lambda x, y: x @ y, [normal((2, 2, 3)), normal((3, 4))]),
        ("dot", np.dot, [normal((2, 3)), normal((3, 2))]),
        ("transpose", lambda x: np.transpose(x) * normal((3, 2))(np.random.default_rng(1)),
         [normal((2, 3))]),
        ("T", lambda x: x.T @ x, [normal((2, 3))]),
        ("reshape", lambda x: np.reshape(x, (3, 2)) ** 2, [normal((2, 3))]),
        ("index-int", lambda x: x[1] ** 2, [normal((2, 3))]),
        ("index-slice", lambda x: x[:, 1:] ** 2, [normal((2, 3))]),
        ("index-repeated", lambda x: x[[0, 0, 2]] ** 2, [normal((3,))]),
        ("index-mask", lambda x: x[x.data > 0] ** 2, [away_from_zero((2, 3))]),
        ("index-negative-step", lambda x: x[::-1] * x, [normal((4,))]),
        ("concatenate", lambda x, y: np.concatenate([x, y * y], axis=1),
         [normal((2, 3)), normal((2, 2))]),
        ("stack", lambda x, y: np.stack([x, x * y], axis=0), [normal((3,)), normal((3,))]),
        ("softmax", lambda x: rt.softmax(x, axis=-1) * rt.tensor([1.0, 2.0, 3.0]),
         [normal((2, 3))]),
        ("softmax-axis0", lambda x: rt.softmax(x, axis=0) * rt.tensor([1.0, 2.0, 3.0]),
         [normal((2, 3))]),
        ("logsumexp-axis1-keep", lambda x: rt.logsumexp(x, axis=1, keepdims=True) * x,
         [normal((2, 3))]),
        ("var-ddof1", lambda x: np.var(x, axis=1, ddof=1), [normal((2, 3))]),
        ("std-ddof1-keep", lambda x: np.std(x, axis=0, keepdims=True, ddof=1),
         [normal((2, 3))]),
        ("broadcast_to", lambda x: np.broadcast_to(x, (2, 3)) ** 2, [normal((3,))]),
        ("setitem", _setitem, [normal((3,)), normal(())]),
        ("linalg-solve-vector", lambda a, b: np.linalg.solve(a, b),
         [well_conditioned((3, 3)), normal((3,))]),
        ("linalg-solve-matrix", lambda a, b: np.linalg.solve(a, b),
         [well_conditioned((3, 3)), normal((3, 2))]),
        ("linalg-inv", np.linalg.inv, [well_conditioned((3, 3))]),
        ("linalg-det", np.linalg.det, [well_conditioned((3, 3))]),
        ("linalg-slogdet", lambda a: np.linalg.slogdet(a)[1], [well_conditioned((3, 3))]),
        ("linalg-cholesky", lambda m, k: np.linalg.cholesky(m @ m.T + k @ k.T),
         [normal((3, 3)), well_conditioned((3, 3))]),
        ("iadd", _iadd, [normal((3,)), normal((3,))]),
    ]


def _setitem(x, v):
    y = x * 1.0
    y[1] = v * v
    return y * x


def _iadd(x, y):
    z = x * 2.0
    z += y * x
    z *= y
    return z


def all_cases():
    cases = []
    for name, (fn, maker) in UNARY.items():
        for shape in SHAPES:
            cases.append((f"{name}-{shape}", fn, [maker(shape)]))
    for name, (fn, mx, my) in BINARY.items():
        for shape in SHAPES:
            cases.append((f"{name}-{shape}", fn, [mx(shape), my(shape)]))
        for sx, sy in BROADCAST_PAIRS:
            cases.append((f"{name}-{sx}-{sy}", fn, [mx(sx), my(sy)]))
    return cases + _axis_cases() + _shape_cases()
