"""The vocabulary derivative formulas are written in, and the two linear maps built from them.

Contract:
- `Ops` is the protocol a formula may use: arithmetic, the math functions that appear in
  derivatives, comparisons and logic (giving booleans), `select(cond, x, y)` (numpy's `where`)
  and `constant(value, like)` (a scalar of `like`'s float type), the reductions `reduce_sum`,
  `reduce_max` and `reduce_prod` (numpy's, over `axis`, keeping dims or not; only the tape,
  which alone has `prod`, answers `reduce_prod`), the shape words (`reshape`, `transpose`,
  `sum_to`, `slice_along` with an optional step, `concatenate` of a list along an axis,
  `expand`). Python floats may stand for operands next to a value of the vocabulary (they
  take its type).
- A `Formula` gives, for an elementwise primitive with inputs `x...` and output `out`, one
  partial derivative per input: `partials(ops, *inputs, out)`. A partial is `None` (zero),
  `ONE`, `MINUS_ONE`, a `Mask(cond)` (the derivative is 1 where `cond`, else exactly 0: the
  tangent or cotangent is selected, so an inf/NaN elsewhere does not leak; `Mask(cond, False)`
  is 1 where `cond` does not hold; `Mask(cond, scale=s)` is `s` instead of 1), or a value.
  `selects` says that some partial is a `Mask` (the primitive selects among its operands:
  `select`, `clip`, `maximum`, `fmax`, ...); for those, `supports(formula, ops, inputs, out)`
  is, per input, its `Mask` partial or None: where the mask is off, that input was not
  selected, and the drivers keep the inf/NaN partials of what computed it from meeting the
  zero cotangent there (`compiler/ad/reverse.py`, `runtime/primitives.py`). `reads_inputs` /
  `reads_output` say which of them the partials use (the tape saves only those); the first
  `conditions` inputs are boolean operands, always at hand (the tape keeps them as
  parameters) and never differentiated.
- `vjp(formula, ops, g, inputs, out)` is the list of input cotangents (None = zero) and
  `jvp(formula, ops, tangents, inputs, out)` the output tangent (None when every tangent is);
  both are in the broadcast shape of the output: summing back to an input's shape is the
  driver's job.
- A `Reduction` gives, for a reduction of `x` (of shape `shape`) over `axis` (a sorted tuple,
  or None for all axes) to `out`, the derivative of the result with respect to each element of
  `x`: `weights(ops, x, out, shape, axis)`, a partial as above (a Python float is a constant).
  `reduction_vjp(...)` is `[expand(g) * weights]`, `reduction_jvp(...)` is
  `reduce_sum(t * weights)`; `expand(value, shape, axis)` broadcasts a reduced value (kept
  axes or not) back to `shape`.
- A `Linear` primitive (a shape change) is its own derivative: its tangent is the primitive
  applied to the tangents (zeros standing for absent ones), and
  `adjoint(ops, g, operand_shapes, **params)` is the list of its operands' cotangents given the
  output cotangent `g`. The indexing words read an opaque `key` (each side's own
  representation of a basic index): `take(x, key)` is `x[key]`, `scatter_add(shape, x, key)`
  adds `x` into zeros of `shape` at `key`, `zero_at(x, key)` is `x` with zeros at `key`.
- A `Cast` (a dtype conversion) carries a derivative across only between float dtypes:
  `across(ops, value, from_dtype, to_dtype)` is the value (cotangent or tangent) of dtype
  `from_dtype` in dtype `to_dtype`, or None (zero) when either is not a float dtype; the VJP
  goes from the result's dtype to the operand's, the JVP the other way.
- A `Bilinear` primitive (`matmul`) is linear in each operand: its tangent is the sum of
  `product(ops, tx, y)` and `product(ops, x, ty)` (`bilinear_jvp`), and
  `adjoint(ops, g, x, y, x_shape, y_shape)` is the pair of operand cotangents (it reads the
  operands, never the output).
- A `Matrix` primitive (`solve`, `inv`, `det`, `slogdet`, `cholesky`, in `linalg`) gives its
  whole `vjp` and `jvp` (with the primitive's parameters as keywords, where it has some),
  written with the words `solve`, `inv`, `solve_triangular`, `tril_halfdiag` (the lower
  triangle with the diagonal halved) and `triangle` besides the others.
- `conj`, `real` and `is_complex(x)` (whether `x` holds complex numbers: the
  decompositions' rules hold for complex matrices with conjugate transposes; real values
  pass `conj` and `real` unchanged).
- `eigh`, `svd` and `eig` (the packed `eigh` of a symmetric matrix, reduced `svd` and `eig`,
  `decompositions`) are words.
- `digamma` and `trigamma` (the derivatives of `gammaln` and `digamma`, `special`) are words.
- `FORMULAS` holds every formula by primitive name (filled by `elementwise`, `reductions`,
  `shapes`, `indexing`, `products`, `linalg`, `special`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class Ops(Protocol):
    def add(self, x: Any, y: Any) -> Any: ...
    def sub(self, x: Any, y: Any) -> Any: ...
    def mul(self, x: Any, y: Any) -> Any: ...
    def div(self, x: Any, y: Any) -> Any: ...
    def neg(self, x: Any) -> Any: ...
    def pow(self, x: Any, y: Any) -> Any: ...
    def floordiv(self, x: Any, y: Any) -> Any: ...
    def exp(self, x: Any) -> Any: ...
    def log(self, x: Any) -> Any: ...
    def log1p(self, x: Any) -> Any: ...
    def sqrt(self, x: Any) -> Any: ...
    def sin(self, x: Any) -> Any: ...
    def cos(self, x: Any) -> Any: ...
    def sinh(self, x: Any) -> Any: ...
    def cosh(self, x: Any) -> Any: ...
    def sign(self, x: Any) -> Any: ...
    def lt(self, x: Any, y: Any) -> Any: ...
    def le(self, x: Any, y: Any) -> Any: ...
    def gt(self, x: Any, y: Any) -> Any: ...
    def ge(self, x: Any, y: Any) -> Any: ...
    def eq(self, x: Any, y: Any) -> Any: ...
    def ne(self, x: Any, y: Any) -> Any: ...
    def and_(self, x: Any, y: Any) -> Any: ...
    def or_(self, x: Any, y: Any) -> Any: ...
    def select(self, cond: Any, x: Any, y: Any) -> Any: ...
    def constant(self, value: float, like: Any) -> Any: ...
    def expand(self, x: Any, shape: tuple[int, ...], axis: tuple[int, ...] | None) -> Any: ...
    def reduce_sum(self, x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any: ...
    def reduce_max(self, x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any: ...
    def reduce_prod(self, x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any: ...
    def matmul(self, x: Any, y: Any) -> Any: ...
    def reshape(self, x: Any, shape: tuple[int, ...]) -> Any: ...
    def transpose(self, x: Any, axes: tuple[int, ...]) -> Any: ...
    def sum_to(self, x: Any, shape: tuple[int, ...]) -> Any: ...
    def slice_along(self, x: Any, axis: int, start: int, stop: int,
                    step: int | None = None) -> Any: ...
    def concatenate(self, xs: Sequence[Any], axis: int) -> Any: ...
    def take(self, x: Any, key: Any) -> Any: ...
    def scatter_add(self, shape: tuple[int, ...], x: Any, key: Any) -> Any: ...
    def zero_at(self, x: Any, key: Any) -> Any: ...
    def is_float(self, dtype: Any) -> bool: ...
    def cast(self, x: Any, dtype: Any) -> Any: ...
    def conj(self, x: Any) -> Any: ...
    def real(self, x: Any) -> Any: ...
    def is_complex(self, x: Any) -> bool: ...
    def solve(self, a: Any, b: Any) -> Any: ...
    def inv(self, a: Any) -> Any: ...
    def tril_halfdiag(self, x: Any) -> Any: ...
    def triangle(self, x: Any, *, lower: bool, diagonal: float) -> Any: ...
    def solve_triangular(self, a: Any, b: Any, *, trans: int, lower: bool,
                         unit_diagonal: bool) -> Any: ...
    def eigh(self, a: Any) -> Any: ...
    def svd(self, a: Any) -> Any: ...
    def eig(self, a: Any) -> Any: ...
    def digamma(self, x: Any) -> Any: ...
    def erf(self, x: Any) -> Any: ...
    def erfc(self, x: Any) -> Any: ...
    def erfcinv(self, x: Any) -> Any: ...
    def cholesky(self, a: Any) -> Any: ...
    def slogdet(self, a: Any) -> Any: ...
    def abs(self, x: Any) -> Any: ...
    def trigamma(self, x: Any) -> Any: ...
    def gammaln(self, x: Any) -> Any: ...
    def floor(self, x: Any) -> Any: ...
    # scipy.special's functions whose derivatives are made of each other (`special_functions`)
    def beta(self, a: Any, b: Any) -> Any: ...
    def i0(self, x: Any) -> Any: ...
    def i1(self, x: Any) -> Any: ...
    def iv(self, v: Any, x: Any) -> Any: ...
    def ive(self, v: Any, x: Any) -> Any: ...
    def j0(self, x: Any) -> Any: ...
    def j1(self, x: Any) -> Any: ...
    def jv(self, v: Any, x: Any) -> Any: ...
    def y0(self, x: Any) -> Any: ...
    def y1(self, x: Any) -> Any: ...
    def yn(self, n: Any, x: Any) -> Any: ...


class _Unit:
    """A partial derivative known to be +1 or -1 (no multiplication is emitted)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


ONE = _Unit("ONE")
MINUS_ONE = _Unit("MINUS_ONE")


@dataclass(frozen=True)
class Mask:
    """A partial derivative that is 1 (or `scale`) where `cond` is `where` and exactly 0
    elsewhere."""

    cond: Any
    where: bool = True
    scale: Any = None


@dataclass(frozen=True)
class Formula:
    name: str
    partials: Callable[..., Sequence[Any]]
    reads_inputs: bool = False
    reads_output: bool = False
    conditions: int = 0
    selects: bool = False


@dataclass(frozen=True)
class Reduction:
    name: str
    weights: Callable[..., Any]
    reads_inputs: bool = False
    reads_output: bool = False


@dataclass(frozen=True)
class _ReadsNothing:
    """A formula reading neither the operands nor the result (the tape saves nothing)."""

    name: str
    reads_inputs = False
    reads_output = False


@dataclass(frozen=True)
class Linear(_ReadsNothing):
    adjoint: Callable[..., Any]


@dataclass(frozen=True)
class Cast(_ReadsNothing):
    across: Callable[..., Any]


@dataclass(frozen=True)
class Bilinear:
    name: str
    product: Callable[..., Any]
    adjoint: Callable[..., Sequence[Any]]
    reads_inputs = True
    reads_output = False


@dataclass(frozen=True)
class Matrix:
    """A linear-algebra primitive (`linalg`): `vjp(ops, cts, inputs, outputs, shapes)` gives
    the operands' cotangents from the outputs' (None = zero), `jvp(ops, tangents, inputs,
    outputs, shapes)` the outputs' tangents; `shapes` are the operands' shapes."""

    name: str
    vjp: Callable[..., list[Any]]
    jvp: Callable[..., list[Any]]
    reads_inputs: bool = False
    reads_output: bool = False


AnyFormula = Formula | Reduction | Linear | Cast | Bilinear | Matrix
FORMULAS: dict[str, AnyFormula] = {}


def define(formula: AnyFormula) -> None:
    if formula.name in FORMULAS:
        raise ValueError(f"formula {formula.name!r} is defined twice")
    FORMULAS[formula.name] = formula


def _times(ops: Ops, t: Any, partial: Any) -> Any:
    """`t` times the partial derivative (None when either is zero)."""
    if t is None or partial is None:
        return None
    if partial is ONE:
        return t
    if partial is MINUS_ONE:
        return ops.neg(t)
    if isinstance(partial, Mask):
        t = t if partial.scale is None else ops.mul(t, partial.scale)
        return ops.select(partial.cond, t, 0.0) if partial.where else \
            ops.select(partial.cond, 0.0, t)
    return ops.mul(t, partial)


def supports(formula: Formula, ops: Ops, inputs: Sequence[Any], out: Any) -> list[Mask | None]:
    """Per input of `formula`'s primitive, its `Mask` partial (None where it has another)."""
    return [p if isinstance(p, Mask) else None for p in formula.partials(ops, *inputs, out)]


def vjp(formula: Formula, ops: Ops, g: Any, inputs: Sequence[Any], out: Any) -> list[Any]:
    return [_times(ops, g, p) for p in formula.partials(ops, *inputs, out)]


def jvp(formula: Formula, ops: Ops, tangents: Sequence[Any], inputs: Sequence[Any],
        out: Any) -> Any:
    if all(t is None for t in tangents):
        return None
    total = None
    for t, p in zip(tangents, formula.partials(ops, *inputs, out), strict=True):
        term = _times(ops, t, p)
        total = term if total is None else total if term is None else ops.add(total, term)
    return total


def reduction_vjp(formula: Reduction, ops: Ops, g: Any, x: Any, out: Any,
                  shape: tuple[int, ...], axis: tuple[int, ...] | None) -> list[Any]:
    weights = formula.weights(ops, x, out, shape, axis)
    return [_times(ops, ops.expand(g, shape, axis), weights)]


def reduction_jvp(formula: Reduction, ops: Ops, t: Any, x: Any, out: Any,
                  shape: tuple[int, ...], axis: tuple[int, ...] | None, keepdims: bool) -> Any:
    if t is None:
        return None
    weights = formula.weights(ops, x, out, shape, axis)
    return ops.reduce_sum(_times(ops, t, weights), axis, keepdims)


def bilinear_jvp(formula: Bilinear, ops: Ops, tangents: Sequence[Any], x: Any, y: Any) -> Any:
    tx, ty = tangents
    parts = [formula.product(ops, tx, y) if tx is not None else None,
             formula.product(ops, x, ty) if ty is not None else None]
    parts = [p for p in parts if p is not None]
    return None if not parts else parts[0] if len(parts) == 1 else ops.add(*parts)
