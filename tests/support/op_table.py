"""The op table: one row per operation (building, indexing, reductions and scans, elementwise,
special functions), as data, for compiled code and the eager tape alike.

A row is (name, fn, inputs) plus what the checks need to know about it:
- `fn` is plain numpy/scipy/math code: numpy runs it for the reference value, adlite compiles
  it, and the eager tape runs it on Tensors;
- `inputs` are argument specs: (kind, shape) for float arrays (kinds below; shape () is a Python
  float), ("int", n, lo, hi) for int64 index arrays, ("bool", shape) for masks, ("const", v)
  for a fixed Python value (an int that compiled code specialises on);
- `smooth`: the result is differentiable at the sample in the float arguments (False for
  bool/int results and piecewise-constant functions, whose checks are values only);
- `ulps64` / `ulps32`: the largest difference from numpy's float64 / float32 result, in units
  in the last place of max(|numpy's value|, 1) (0: bit for bit; more where adlite computes
  the value with another algorithm than numpy's: its own libm-style polynomials, another
  summation order);
- `tape`: False where the eager tape cannot run `fn` by design (math.* functions convert a
  Tensor to a float, np.array/np.asarray of Tensors raise: as with PyTorch's tensors);
  `tape_fn`: the tape's spelling of `fn` where scipy converts its arguments to arrays
  (scipy's logsumexp, softmax, log_softmax and stats.norm: adlite.runtime's);
- `f32`: False where float32 inputs are outside the row's contract (math.* functions take
  Python floats);
- `compiled`: False for a spelling only the tape has (`x.relu()`): no compiled checks;
- `shapes`: the row's function takes operands of any shape (elementwise, with broadcasting, or
  a whole-array reduction): it is also swept over shapes (`sweep`), by the tape's gradcheck
  (tests/runtime/test_ops_gradcheck.py) and by compiled gradients against the tape and
  differences (tests/ad/test_gradients_over_shapes.py), with operands drawn from the kinds of
  `inputs`;
- `xfail`: {check name: reason} for a known bug (a one-line reproducer), marked strict so the
  row starts passing the moment it is fixed.

The other op lists of the tests are views of this one (`ROWS`, `SMOOTH`, `SWEPT`, `sweep`).

Adding a function is adding a row; tests/ad/test_op_table_gradients.py and
tests/backends/test_op_table_values.py run every check over every row.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.special as sc
from scipy.stats import norm

from adlite import runtime as rt
from adlite.runtime import special as rt_special


@dataclass(frozen=True)
class Row:
    name: str
    fn: Callable
    inputs: tuple
    smooth: bool = True
    ulps64: int = 0
    ulps32: int = 0
    tape: bool = True
    tape_fn: Callable | None = None
    f32: bool = True
    compiled: bool = True
    shapes: bool = False
    xfail: dict = field(default_factory=dict, hash=False, compare=False)


def sample(kind: str, shape: tuple, rng: np.random.Generator) -> np.ndarray | float:
    """Float operands of one kind (the domains every op-table test draws from): a Python float
    for shape (), else an array of `shape`."""
    n = int(np.prod(shape))
    if kind == "normal":
        v = rng.standard_normal(n)
    elif kind == "positive":
        v = rng.uniform(0.5, 2.0, n)
    elif kind == "away":  # away from zero: abs, division, sign
        v = rng.choice([-1.0, 1.0], n) * rng.uniform(0.5, 2.0, n)
    elif kind == "unit":  # inside (-1, 1)
        v = rng.uniform(-0.9, 0.9, n)
    elif kind == "prob":  # inside (0, 1)
        v = rng.uniform(0.1, 0.9, n)
    elif kind == "distinct":  # well separated: max/min/sorts are differentiable there
        v = rng.permutation(n) * 0.7 - n * 0.3 + rng.uniform(-0.1, 0.1, n)
    elif kind == "offround":  # away from the points where round/mod jump
        v = rng.integers(-4, 5, n) * 0.5 + 0.13 + rng.uniform(0.0, 0.2, n)
    elif kind == "wide":  # normal times 12: the tails (asymptotic branches) too
        v = rng.standard_normal(n) * 12.0
    elif kind == "conditioned":  # a square matrix with a dominant diagonal
        v = (rng.standard_normal(n).reshape(shape) * 0.5 + 3.0 * np.eye(shape[0])).ravel()
    else:
        raise ValueError(kind)
    return float(v[0]) if shape == () else v.reshape(shape)


def arguments(row: Row) -> tuple:
    """The row's arguments, the same at every call (seeded by the row's name)."""
    rng = np.random.default_rng(zlib.crc32(row.name.encode()))
    args = []
    for spec in row.inputs:
        if spec[0] == "int":
            _, n, lo, hi = spec
            args.append(rng.integers(lo, hi, n).astype(np.int64))
        elif spec[0] == "bool":
            args.append(rng.uniform(size=spec[1]) < 0.5)
        elif spec[0] == "const":
            args.append(spec[1])
        else:
            args.append(sample(spec[0], spec[1], rng))
    return tuple(args)


def float_positions(row: Row) -> tuple[int, ...]:
    return tuple(i for i, s in enumerate(row.inputs) if s[0] not in ("int", "bool", "const"))


def as_float32(args: tuple, row: Row) -> tuple:
    floats = float_positions(row)
    return tuple(np.float32(a) if i in floats and np.ndim(a) == 0 else
                 np.asarray(a, np.float32) if i in floats else a for i, a in enumerate(args))


# The tape's spelling of scipy functions that convert their arguments to arrays.

def tape_logsumexp(x): return rt.logsumexp(x, axis=1)                             # noqa: E704
def tape_logsumexp_all(x): return rt.logsumexp(x)                                 # noqa: E704
def tape_softmax(x): return rt.softmax(x, axis=1)                                 # noqa: E704
def tape_log_softmax(x): return rt.log_softmax(x, axis=0)                         # noqa: E704
def tape_norm_pdf(x, loc, scale): return rt_special.norm_pdf(x, loc, scale)       # noqa: E704
def tape_norm_cdf(x, loc, scale): return rt_special.norm_cdf(x, loc, scale)       # noqa: E704
def tape_norm_logpdf(x, loc): return rt_special.norm_logpdf(x, loc)               # noqa: E704
def tape_norm_logcdf(x): return rt_special.norm_logcdf(x)                         # noqa: E704


# ---- item 1: building and reshaping ------------------------------------------------------

def hstack(x, y): return np.hstack([x, y])                                        # noqa: E704
def vstack(x, y): return np.vstack([x, y])                                        # noqa: E704
def column_stack(x, y): return np.column_stack((x, y))                            # noqa: E704
def dstack(x, y): return np.dstack([x, y])                                        # noqa: E704
def stack1(x, y): return np.stack([x, y], axis=1)                                 # noqa: E704
def concatenate0(x, y): return np.concatenate([x, y])                             # noqa: E704
def concatenate_last(x, y): return np.concatenate((x, y), axis=-1)                # noqa: E704
def array_of_arrays(x, y): return np.array([x, y, x])                             # noqa: E704
def array_nested(a, b): return np.array([[a, b, 1.0], [b * b, 2.0, a]])           # noqa: E704
def asarray(x): return np.asarray(x) * 1.0                                        # noqa: E704
def atleast_1d(a): return np.atleast_1d(a)                                        # noqa: E704
def atleast_2d(x): return np.atleast_2d(x)                                        # noqa: E704
def atleast_3d(x): return np.atleast_3d(x)                                        # noqa: E704
def eye(x): return np.eye(3, 4, 1) * x                                            # noqa: E704
def identity(x): return np.identity(3) @ x                                        # noqa: E704
def diag_build(x): return np.diag(x, 1)                                           # noqa: E704
def diag_take(x): return np.diag(x, -1)                                           # noqa: E704
def diagonal(x): return np.diagonal(x, 1)                                         # noqa: E704
def trace(x): return np.trace(x)                                                  # noqa: E704
def trace_offset(x): return np.trace(x, -1)                                       # noqa: E704
def tril(x): return np.tril(x, -1)                                                # noqa: E704
def triu(x): return np.triu(x, 1)                                                 # noqa: E704
def linspace(a, b): return np.linspace(a, b, 5)                                   # noqa: E704
def linspace_open(a, b): return np.linspace(a, b, 4, endpoint=False)              # noqa: E704
def roll(x): return np.roll(x, 2)                                                 # noqa: E704
def roll_axis(x): return np.roll(x, -1, axis=1)                                   # noqa: E704
def tile(x): return np.tile(x, 2)                                                 # noqa: E704
def tile_2d(x): return np.tile(x, (2, 1))                                         # noqa: E704
def repeat(x): return np.repeat(x, 2)                                             # noqa: E704
def repeat_axis(x): return np.repeat(x, 2, axis=0)                                # noqa: E704
def ravel(x): return np.ravel(x)                                                  # noqa: E704
def flatten(x): return x.flatten()                                                # noqa: E704
def swapaxes(x): return np.swapaxes(x, 0, 2)                                      # noqa: E704
def moveaxis(x): return np.moveaxis(x, 0, -1)                                     # noqa: E704
def broadcast_to(x): return np.broadcast_to(x, (2, 3))                            # noqa: E704
def flip(x): return np.flip(x)                                                    # noqa: E704
def flip_axis(x): return np.flip(x, axis=1)                                       # noqa: E704
def pad(x): return np.pad(x, (1, 2), constant_values=0.5)                         # noqa: E704
def pad_2d(x): return np.pad(x, ((1, 0), (0, 2)))                                 # noqa: E704
def astype(x): return x.astype(np.float64)                                        # noqa: E704
def transpose_3d(x): return x.T                                                   # noqa: E704


def meshgrid(x, y):
    gx, gy = np.meshgrid(x, y)
    return np.stack([gx, gy])


NUMBERS = (("normal", ()), ("normal", ()))
N3, N23, N32, N234, N33 = ("normal", (3,)), ("normal", (2, 3)), ("normal", (3, 2)), \
    ("normal", (2, 3, 4)), ("normal", (3, 3))
N34 = ("normal", (3, 4))

BUILDING = [
    Row("hstack", hstack, (N3, ("normal", (2,)))),
    Row("hstack-2d", hstack, (N23, ("normal", (2, 2)))),
    Row("hstack-numbers", hstack, NUMBERS),
    Row("vstack", vstack, (N3, N3)),
    Row("vstack-numbers", vstack, NUMBERS),
    Row("vstack-2d", vstack, (N23, ("normal", (1, 3)))),
    Row("column_stack", column_stack, (N3, N32)),
    Row("dstack", dstack, (N23, N23)),
    Row("stack-axis1", stack1, (N23, N23)),
    Row("concatenate", concatenate0, (N3, ("normal", (2,)))),
    Row("concatenate-last", concatenate_last, (N23, ("normal", (2, 1)))),
    Row("array-of-arrays", array_of_arrays, (N3, N3), tape=False),
    Row("array-nested-lists", array_nested, NUMBERS, tape=False),
    Row("asarray", asarray, (N23,), tape=False),
    Row("atleast_1d", atleast_1d, (("normal", ()),)),
    Row("atleast_2d", atleast_2d, (N3,)),
    Row("atleast_3d", atleast_3d, (N23,)),
    Row("eye", eye, (N34,)),
    Row("identity", identity, (N32,)),
    Row("diag-build", diag_build, (N3,)),
    Row("diag-take", diag_take, (N34,)),
    Row("diagonal", diagonal, (N34,)),
    Row("trace", trace, (N33,)),
    Row("trace-offset", trace_offset, (N34,)),
    Row("tril", tril, (N34,)),
    Row("triu", triu, (N34,)),
    Row("linspace", linspace, NUMBERS),
    Row("linspace-open", linspace_open, NUMBERS),
    Row("meshgrid", meshgrid, (N3, ("normal", (2,)))),
    Row("roll", roll, (("normal", (5,)),)),
    Row("roll-axis", roll_axis, (N23,)),
    Row("tile", tile, (N3,)),
    Row("tile-2d", tile_2d, (N23,)),
    Row("repeat", repeat, (N3,)),
    Row("repeat-axis", repeat_axis, (N23,)),
    Row("ravel", ravel, (N23,)),
    Row("flatten", flatten, (N23,)),
    Row("swapaxes", swapaxes, (N234,)),
    Row("moveaxis", moveaxis, (N234,)),
    Row("broadcast_to", broadcast_to, (N3,)),
    Row("flip", flip, (N23,)),
    Row("flip-axis", flip_axis, (N23,)),
    Row("pad", pad, (N3,)),
    Row("pad-2d", pad_2d, (N23,)),
    Row("astype", astype, (N23,)),
    Row("T-3d", transpose_3d, (N234,)),
]


# ---- item 2: indexing --------------------------------------------------------------------

def newaxis(x): return x[:, None] * x[np.newaxis, :]                             # noqa: E704
def ellipsis(x): return x[..., 1] + x[None, ..., 0]                               # noqa: E704
def runtime_slice(x, i): return x[i:i + 3]                                        # noqa: E704
def fancy_read(x, idx): return x[idx]                                             # noqa: E704
def fancy_rows(x, idx): return x[idx, :]                                          # noqa: E704
def fancy_columns(x, idx): return x[:, idx]                                       # noqa: E704
def fancy_pairs(x, rows, cols): return x[rows, cols]                              # noqa: E704


def fancy_write(x, v, idx):
    y = x.copy()
    y[idx] = v
    return y


def fancy_iadd(x, v, idx):
    y = x * 1.0
    y[idx] += v
    return y


def add_at(x, v, idx):
    y = x.copy()
    np.add.at(y, idx, v)
    return y


def mask_write(x, v, m):
    y = x.copy()
    y[m] = v
    return y


def mask_imul(x, v, m):
    y = x * 1.0
    y[m] *= v
    return y


def mask_sum(x, m): return np.sum(x[m])                                           # noqa: E704
def mask_mean(x, m, n): return np.mean(x[m | n])                                  # noqa: E704
def mask_ops(x, m, n): return np.where(m & ~n, x, 0.0) + np.where(m | n, 0.0, x)  # noqa: E704


M23 = ("bool", (2, 3))
INDEXING = [
    Row("newaxis", newaxis, (N3,)),
    Row("ellipsis", ellipsis, (N23,)),
    Row("runtime-slice", runtime_slice, (("normal", (6,)), ("const", 2))),
    Row("fancy-read", fancy_read, (("normal", (4,)), ("int", 5, -4, 4))),
    Row("fancy-rows", fancy_rows, (N34, ("int", 4, 0, 3))),
    Row("fancy-columns", fancy_columns, (N34, ("int", 3, -4, 4))),
    Row("fancy-pairs", fancy_pairs, (N34, ("int", 4, 0, 3), ("int", 4, 0, 4))),
    Row("fancy-write", fancy_write, (("normal", (5,)), N3, ("int", 3, 0, 5))),
    Row("fancy-iadd", fancy_iadd, (("normal", (5,)), N3, ("int", 3, 0, 5))),
    # numpy adds the repeats into y one by one: another order of the same additions
    Row("add.at", add_at, (("normal", (4,)), ("normal", (6,)), ("int", 6, 0, 4)),
        ulps64=1, ulps32=1),
    Row("mask-write", mask_write, (N23, ("normal", ()), M23)),
    Row("mask-imul", mask_imul, (N23, ("normal", ()), M23)),
    Row("mask-sum", mask_sum, (N23, M23)),
    Row("mask-mean", mask_mean, (N23, M23, M23)),
    Row("mask-and-or-not", mask_ops, (N23, M23, M23)),
]


# ---- item 3: reductions and scans --------------------------------------------------------

def cumsum(x): return np.cumsum(x)                                                # noqa: E704
def cumsum_axis(x): return np.cumsum(x, axis=1)                                   # noqa: E704
def cumprod_axis(x): return np.cumprod(x, axis=0)                                 # noqa: E704
def prod(x): return np.prod(x)                                                    # noqa: E704
def prod_axis(x): return np.prod(x, axis=1)                                       # noqa: E704
def var_ddof(x): return np.var(x, axis=0, ddof=1)                                 # noqa: E704
def std_keep(x): return np.std(x, axis=1, keepdims=True)                          # noqa: E704
def max_axis(x): return np.max(x, axis=0)                                         # noqa: E704
def min_axis(x): return np.min(x, axis=-1, keepdims=True)                         # noqa: E704
def argmax_axis(x): return np.argmax(x, axis=1)                                   # noqa: E704
def argmin(x): return np.argmin(x)                                                # noqa: E704
def any_axis(x): return np.any(x > 0.5, axis=0)                                   # noqa: E704
def all_axis(x): return np.all(x > -1.0, axis=1)                                  # noqa: E704
def logaddexp(x, y): return np.logaddexp(x, y)                                    # noqa: E704
def logaddexp2(x, y): return np.logaddexp2(x, y)                                  # noqa: E704
def logsumexp(x): return sc.logsumexp(x, axis=1)                                  # noqa: E704
def einsum_matmul(a, b): return np.einsum("ij,jk->ik", a, b)                      # noqa: E704
def einsum_trace(a): return np.einsum("ii->", a)                                  # noqa: E704
def einsum_batched(a, b): return np.einsum("bij,bjk->bik", a, b)                  # noqa: E704
def einsum_outer(x, y): return np.einsum("i,j->ij", x, y)                         # noqa: E704
def einsum_contract(a, b): return np.einsum("ijk,jk->i", a, b)                    # noqa: E704


REDUCTIONS = [
    Row("cumsum", cumsum, (N23,)),
    Row("cumsum-axis", cumsum_axis, (N23,)),
    Row("cumprod-axis", cumprod_axis, (("normal", (3, 2)),)),
    Row("prod", prod, (("away", (2, 3)),), shapes=True),
    Row("prod-axis", prod_axis, (("away", (2, 3)),)),
    Row("var-ddof", var_ddof, (N32,)),
    Row("std-keepdims", std_keep, (N23,)),
    Row("max-axis", max_axis, (("distinct", (2, 3)),)),
    Row("min-axis", min_axis, (("distinct", (2, 3)),)),
    Row("argmax-axis", argmax_axis, (N23,), smooth=False),
    Row("argmin", argmin, (N23,), smooth=False),
    Row("any-axis", any_axis, (N23,), smooth=False),
    Row("all-axis", all_axis, (N23,), smooth=False),
    Row("logaddexp", logaddexp, (N23, N3), ulps64=2, ulps32=2, shapes=True),
    Row("logaddexp2", logaddexp2, (N23, N3), ulps64=2, ulps32=2, shapes=True),
    Row("logsumexp", logsumexp, (N23,), ulps64=2, ulps32=2, tape_fn=tape_logsumexp),
    Row("einsum-matmul", einsum_matmul, (N23, N32), ulps32=1),
    Row("einsum-trace", einsum_trace, (N33,)),
    Row("einsum-batched", einsum_batched, (N234, ("normal", (2, 4, 2)))),
    Row("einsum-outer", einsum_outer, (N3, ("normal", (2,)))),
    Row("einsum-contract", einsum_contract, (N234, N34), ulps64=2, ulps32=2),
]


# ---- item 4: elementwise -----------------------------------------------------------------

def mod(x, y): return np.mod(x, y)                                                # noqa: E704
def fmod(x, y): return np.fmod(x, y)                                              # noqa: E704
def remainder(x, y): return np.remainder(x, y)                                    # noqa: E704
def radians(x): return np.radians(x)                                              # noqa: E704
def degrees(x): return np.degrees(x)                                              # noqa: E704
def isnan(x): return np.isnan(np.log(x))                                          # noqa: E704
def isfinite(x): return np.isfinite(1.0 / (x - x[0]))                             # noqa: E704
def isinf(x): return np.isinf(1.0 / (x - x[0]))                                   # noqa: E704
def sign(x): return np.sign(x)                                                    # noqa: E704
def round_(x): return np.round(x)                                                 # noqa: E704
def exp2(x): return np.exp2(x)                                                    # noqa: E704
def log2(x): return np.log2(x)                                                    # noqa: E704
def cbrt(x): return np.cbrt(x)                                                    # noqa: E704
def square(x): return np.square(x)                                                # noqa: E704
def reciprocal(x): return np.reciprocal(x)                                        # noqa: E704
def arctan2(y, x): return np.arctan2(y, x)                                        # noqa: E704
def sinc(x): return np.sinc(x)                                                    # noqa: E704
def heaviside(x, h): return np.heaviside(x, h)                                    # noqa: E704
def fmax(x, y): return np.fmax(x, y)                                              # noqa: E704
def fmin(x, y): return np.fmin(x, y)                                              # noqa: E704
def multiply(x, y): return np.multiply(x, y)                                      # noqa: E704
def add(x, y): return np.add(x, y)                                                # noqa: E704
def subtract(x, y): return np.subtract(x, y)                                      # noqa: E704
def divide(x, y): return np.divide(x, y)                                          # noqa: E704
def power(x, y): return np.power(x, y)                                            # noqa: E704
def negative(x): return np.negative(x)                                            # noqa: E704
def maximum(x, y): return np.maximum(x, y)                                        # noqa: E704
def minimum(x, y): return np.minimum(x, y)                                        # noqa: E704
def hypot(x, y): return np.hypot(x, y)                                            # noqa: E704


OFF = ("offround", (2, 3))
A3 = ("away", (3,))
D23, D3 = ("distinct", (2, 3)), ("distinct", (3,))
ELEMENTWISE = [
    Row("mod", mod, (OFF, A3)),
    Row("fmod", fmod, (OFF, A3), shapes=True),
    Row("remainder", remainder, (OFF, ("away", ())), shapes=True),
    Row("radians", radians, (N23,)),
    Row("degrees", degrees, (N23,)),
    Row("isnan", isnan, (N23,), smooth=False),
    Row("isfinite", isfinite, (N23,), smooth=False),
    Row("isinf", isinf, (N3,), smooth=False),
    Row("sign", sign, (("away", (2, 3)),)),
    Row("round", round_, (OFF,)),
    Row("exp2", exp2, (N23,), ulps64=1, ulps32=1, shapes=True),
    Row("log2", log2, (("positive", (2, 3)),), ulps64=1, ulps32=1, shapes=True),
    Row("cbrt", cbrt, (("away", (2, 3)),), ulps64=1, ulps32=1, shapes=True),
    Row("square", square, (N23,), shapes=True),
    Row("reciprocal", reciprocal, (("away", (2, 3)),), shapes=True),
    Row("arctan2", arctan2, (N23, A3), ulps64=1, ulps32=1, shapes=True),
    Row("arctan2-outer", arctan2, (("normal", (3, 1)), ("away", (1, 2))), ulps64=1, ulps32=1),
    Row("sinc", sinc, (N23,), ulps64=2, ulps32=2, shapes=True),
    Row("heaviside", heaviside, (("away", (2, 3)), N3), shapes=True),
    Row("fmax", fmax, (D23, D3)),
    Row("fmin", fmin, (D23, ("distinct", ()))),
    Row("multiply", multiply, (N23, N3), shapes=True),
    Row("add", add, (("normal", (3, 1)), N3), shapes=True),
    Row("subtract", subtract, (("normal", ()), N23), shapes=True),
    Row("divide", divide, (N23, A3), shapes=True),
    Row("power", power, (("positive", (2, 3)), N3), ulps64=1, ulps32=1, shapes=True),
    Row("negative", negative, (N23,), shapes=True),
    Row("maximum", maximum, (D23, D3), shapes=True),
    Row("minimum", minimum, (D3, ("distinct", (2, 1))), shapes=True),
    Row("hypot", hypot, (N23, A3), ulps64=1, ulps32=1, shapes=True),
]


# ---- item 6: special functions and distributions -----------------------------------------

def math_erf(a): return math.erf(a)                                               # noqa: E704
def math_erfc(a): return math.erfc(a)                                             # noqa: E704
def math_lgamma(a): return math.lgamma(a)                                         # noqa: E704
def math_gamma(a): return math.gamma(a)                                           # noqa: E704
def erf(x): return sc.erf(x)                                                      # noqa: E704
def erfc(x): return sc.erfc(x)                                                    # noqa: E704
def gammaln(x): return sc.gammaln(x)                                              # noqa: E704
def digamma(x): return sc.digamma(x)                                              # noqa: E704
def expit(x): return sc.expit(x)                                                  # noqa: E704
def logit(p): return sc.logit(p)                                                  # noqa: E704
def xlogy(x, y): return sc.xlogy(x, y)                                            # noqa: E704
def sc_logsumexp(x): return sc.logsumexp(x)                                       # noqa: E704
def softmax(x): return sc.softmax(x, axis=1)                                      # noqa: E704
def log_softmax(x): return sc.log_softmax(x, axis=0)                              # noqa: E704
def norm_pdf(x, loc, scale): return norm.pdf(x, loc, scale)                       # noqa: E704
def norm_cdf(x, loc, scale): return norm.cdf(x, loc=loc, scale=scale)             # noqa: E704
def norm_logpdf(x, loc): return norm.logpdf(x, loc)                               # noqa: E704
def norm_logcdf(x): return norm.logcdf(x)                                         # noqa: E704



SCALAR, POS = ("normal", ()), ("positive", ())
NORM_F32 = {"float32": "scipy.stats.norm standardizes float32 operands in float32, adlite in "
                       "double: norm.pdf(x, loc, scale) of float32 arrays differs from scipy's "
                       "by ~1e-9 relative (float64 results both)"}
P23 = ("positive", (2, 3))
SPECIAL = [
    Row("math.erf", math_erf, (SCALAR,), ulps64=1, f32=False, tape=False),
    Row("math.erfc", math_erfc, (SCALAR,), ulps64=1, f32=False, tape=False),
    Row("math.lgamma", math_lgamma, (POS,), ulps64=2, f32=False, tape=False),
    Row("math.gamma", math_gamma, (POS,), ulps64=2, f32=False, tape=False),
    Row("erf", erf, (N23,), ulps64=1, ulps32=1, shapes=True),
    Row("erfc", erfc, (N23,), ulps64=1, ulps32=1, shapes=True),
    Row("gammaln", gammaln, (P23,), ulps64=2, ulps32=2, shapes=True),
    Row("digamma", digamma, (P23,), ulps64=8, ulps32=2),
    Row("expit", expit, (N23,), ulps64=1, ulps32=1, shapes=True),
    Row("logit", logit, (("prob", (2, 3)),), ulps64=1, ulps32=1, shapes=True),
    Row("xlogy", xlogy, (N23, ("positive", (3,))), ulps64=1, ulps32=1, shapes=True),
    Row("scipy-logsumexp", sc_logsumexp, (N23,), ulps64=2, ulps32=2, tape_fn=tape_logsumexp_all,
        shapes=True),
    Row("softmax", softmax, (N23,), ulps64=2, ulps32=2, tape_fn=tape_softmax),
    Row("log_softmax", log_softmax, (N23,), ulps64=2, ulps32=2, tape_fn=tape_log_softmax),
    Row("norm.pdf", norm_pdf, (N23, N3, ("positive", ())), ulps64=2,
        xfail=NORM_F32, tape_fn=tape_norm_pdf, shapes=True),
    Row("norm.cdf", norm_cdf, (N23, SCALAR, ("positive", (2, 1))), ulps64=2,
        xfail=NORM_F32, tape_fn=tape_norm_cdf, shapes=True),
    Row("norm.logpdf", norm_logpdf, (N23, N3), ulps64=2,
        xfail=NORM_F32, tape_fn=tape_norm_logpdf, shapes=True),
    Row("norm.logcdf", norm_logcdf, (N23,), ulps64=2,
        xfail=NORM_F32, tape_fn=tape_norm_logcdf),
]


# ---- elementwise functions and whole-array reductions of both worlds, swept over shapes ---

def exp(x): return np.exp(x)                                                      # noqa: E704
def log(x): return np.log(x)                                                      # noqa: E704
def sqrt(x): return np.sqrt(x)                                                    # noqa: E704
def sin(x): return np.sin(x)                                                      # noqa: E704
def cos(x): return np.cos(x)                                                      # noqa: E704
def tan(x): return np.tan(x)                                                      # noqa: E704
def tanh(x): return np.tanh(x)                                                    # noqa: E704
def absolute(x): return np.abs(x)                                                 # noqa: E704
def log1p(x): return np.log1p(x)                                                  # noqa: E704
def expm1(x): return np.expm1(x)                                                  # noqa: E704
def sinh(x): return np.sinh(x)                                                    # noqa: E704
def cosh(x): return np.cosh(x)                                                    # noqa: E704
def arcsin(x): return np.arcsin(x)                                                # noqa: E704
def arccos(x): return np.arccos(x)                                                # noqa: E704
def arctan(x): return np.arctan(x)                                                # noqa: E704
def log10(x): return np.log10(x)                                                  # noqa: E704
def pow_const(x): return x ** 3                                                   # noqa: E704
def rpow(x): return 2.0 ** x                                                      # noqa: E704
def clip(x): return np.clip(x, -1.0, 1.0)                                         # noqa: E704
def where(x, y): return np.where(x > 0, x, y)                                     # noqa: E704
def sum_all(x): return np.sum(x)                                                  # noqa: E704
def mean(x): return np.mean(x)                                                    # noqa: E704
def max_all(x): return np.max(x)                                                  # noqa: E704
def min_all(x): return np.min(x)                                                  # noqa: E704
def ndtr(x): return sc.ndtr(x)                                                    # noqa: E704
def log_ndtr(x): return sc.log_ndtr(x)                                            # noqa: E704
def relu(x): return np.maximum(x, 0.0)                                            # noqa: E704
def tape_relu(x): return x.relu()                                                 # noqa: E704
def tape_sigmoid(x): return x.sigmoid()                                           # noqa: E704


Z23, U23 = ("away", (2, 3)), ("unit", (2, 3))
MATH = [
    Row("exp", exp, (N23,), ulps32=1, shapes=True),
    Row("log", log, (P23,), ulps32=1, shapes=True),
    Row("sqrt", sqrt, (P23,), shapes=True),
    Row("sin", sin, (N23,), ulps32=1, shapes=True),
    Row("cos", cos, (N23,), shapes=True),
    Row("tan", tan, (U23,), shapes=True),
    Row("tanh", tanh, (N23,), ulps32=1, shapes=True),
    Row("abs", absolute, (Z23,), shapes=True),
    Row("log1p", log1p, (P23,), ulps32=1, shapes=True),
    Row("expm1", expm1, (N23,), shapes=True),
    Row("sinh", sinh, (N23,), ulps64=1, ulps32=1, shapes=True),
    Row("cosh", cosh, (N23,), ulps64=1, shapes=True),
    Row("arcsin", arcsin, (U23,), shapes=True),
    Row("arccos", arccos, (U23,), ulps32=1, shapes=True),
    Row("arctan", arctan, (N23,), shapes=True),
    Row("log10", log10, (P23,), ulps64=1, ulps32=1, shapes=True),
    Row("pow-const", pow_const, (N23,), shapes=True),
    Row("rpow", rpow, (N23,), ulps32=1, shapes=True),
    Row("clip", clip, (D23,), shapes=True),
    Row("where", where, (Z23, N3), shapes=True),
    Row("sum", sum_all, (N23,), shapes=True),
    Row("mean", mean, (N23,), shapes=True),
    Row("max", max_all, (D23,), shapes=True),
    Row("min", min_all, (D23,), shapes=True),
    Row("ndtr", ndtr, (N23,), ulps64=1, shapes=True),
    Row("log_ndtr", log_ndtr, (("wide", (2, 3)),), ulps64=1, shapes=True),
    # the tape's methods (compiled code has numpy's spellings: np.maximum, expit)
    Row("Tensor.relu", relu, (Z23,), tape_fn=tape_relu, compiled=False, shapes=True),
    Row("Tensor.sigmoid", expit, (N23,), tape_fn=tape_sigmoid, compiled=False, shapes=True),
]

TABLE: list[Row] = BUILDING + INDEXING + REDUCTIONS + ELEMENTWISE + SPECIAL + MATH
ROWS: list[Row] = [r for r in TABLE if r.compiled]  # the checks of compiled code
SMOOTH: list[Row] = [r for r in ROWS if r.smooth]
SWEPT: list[Row] = [r for r in TABLE if r.shapes]  # the sweeps over shapes


def sweep(row: Row, shapes: list[tuple], pairs: list[tuple]) -> list[tuple[str, tuple]]:
    """(id, operand shapes) of the row's sweep: every shape for all operands alike, and for
    two operands the broadcast `pairs` too."""
    cases = [(f"{row.name}-{shape}", (shape,) * len(row.inputs)) for shape in shapes]
    if len(row.inputs) == 2:
        cases += [(f"{row.name}-{a}-{b}", (a, b)) for a, b in pairs]
    return cases


def swept_arguments(row: Row, shapes: tuple, rng: np.random.Generator) -> list:
    """Operands of `shapes`, of the kinds of the row's inputs."""
    return [sample(spec[0], shape, rng) for spec, shape in zip(row.inputs, shapes, strict=True)]


def by_check(rows: list[Row], check: str) -> list[Any]:
    """pytest params of `rows` for `check`, its known bugs marked xfail(strict)."""
    import pytest

    return [pytest.param(r, id=r.name, marks=[pytest.mark.xfail(strict=True, reason=r.xfail[
        check])] if check in r.xfail else []) for r in rows]
