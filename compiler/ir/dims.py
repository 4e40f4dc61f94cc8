"""Symbolic array dimensions: sizes known only at run time (`jit(f, shapes="dynamic")`).

Contract: a `Dim` is a polynomial with integer coefficients in size symbols (`d0`, `d1`,
...: one per distinct run-time dimension of a call's arguments, see
`arguments.dynamic_trees`), each standing for a size of at least MIN_SIZE (8). Smaller
sizes stay compile-time integers, and argument dimensions equal in a call share one symbol
while different symbols are different sizes (the signature of the compilation records both,
as PyTorch's dynamic shapes specialise on 0/1 and on equal sizes): that is what decides
broadcasting and shape checks when compiling.

- Arithmetic (`+`, `-`, `*` with ints and Dims; `//` by a size dividing it exactly as a
  polynomial; `%` by an int dividing every coefficient; `int % Dim` where the bounds
  decide it) gives a Dim, or an int where the symbols cancel (`dim(...)` normalises).
- Comparisons decide what the symbols' bounds decide (`d0 == 1` and `d0 == d1` are False,
  `d0 + 1 > d0` is True, `d0 * d1 >= 4` is True); anything else raises `DimUndecided`, and
  so does every conversion to a Python number (`int`, `__index__`, hence `range`, numpy,
  `math.prod` of Dims is a Dim): the compilation asking cannot be made for every size, and
  the API compiles for the call's sizes instead (the reason is logged).
- `reshaped(shape, new)` is numpy's reshape of `shape` into `new` (one -1 inferred),
  ValueError with numpy's message where the sizes differ.
- `bind_sizes(shapes, actual)` matches the shapes of a signature with a call's array shapes:
  the symbols' values (a dict name -> int), or None when the call is not of the signature
  (another rank or size, a symbol's size below MIN_SIZE, or two symbols of one size).
- `slice_indices(start, stop, step, n)` is Python's `slice.indices` for a run-time size `n`
  (the bounds' clamping decided by the comparisons above), and `slice_length` the number of
  positions it selects.
- `symbol_name(d)` is the name of a size that is one symbol (`d0`), else None;
  `evaluate(d, values)` is the size for symbol values (a dict name -> int);
  `symbols_of(shape)` the symbols a shape uses, sorted; `str(d)` prints it (`d0*d1 - 1`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Union

import numpy as np

MIN_SIZE = 8  # every symbol stands for a size of at least this (smaller sizes: specialised)

Monomial = tuple[str, ...]  # sorted symbol names, repeated for powers; () is the constant


class DimUndecided(TypeError):
    """A question about a run-time size that only its value answers."""


class Dim:
    """A run-time size: sum of coefficient * product of symbols (see the module docstring)."""

    __slots__ = ("terms", "_hash")

    def __init__(self, terms: Mapping[Monomial, int]) -> None:
        self.terms = dict(sorted((m, c) for m, c in terms.items() if c))
        self._hash = hash(tuple(self.terms.items()))

    # ---- arithmetic ---------------------------------------------------------------------------

    def __add__(self, other: DimLike) -> DimLike:
        if not _is_size(other):
            return NotImplemented
        terms = dict(self.terms)
        for m, c in _terms(other).items():
            terms[m] = terms.get(m, 0) + c
        return dim(terms)

    __radd__ = __add__

    def __abs__(self) -> DimLike:
        signs = _signs(self)
        if signs is None or len(signs - {0}) > 1:
            raise DimUndecided(f"abs({self})")
        return -self if -1 in signs else self

    def __neg__(self) -> DimLike:
        return dim({m: -c for m, c in self.terms.items()})

    def __sub__(self, other: DimLike) -> DimLike:
        if not _is_size(other):
            return NotImplemented
        return self + (-_as_dim(other))

    def __rsub__(self, other: DimLike) -> DimLike:
        if not _is_size(other):
            return NotImplemented
        return -self + other

    def __mul__(self, other: DimLike) -> DimLike:
        if not _is_size(other):
            return NotImplemented
        terms: dict[Monomial, int] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in _terms(other).items():
                m = tuple(sorted(m1 + m2))
                terms[m] = terms.get(m, 0) + c1 * c2
        return dim(terms)

    __rmul__ = __mul__

    def __floordiv__(self, other: DimLike) -> DimLike:
        """Exact division by a positive size (`(d0*d0 + d0) // (d0 + 1)` is `d0`: polynomial
        long division leaving no remainder); anything else is undecided."""
        if _is_size(other) and other > 0:
            quotient = _exact_quotient(self, _as_dim(other))
            if quotient is not None:
                return quotient
        raise DimUndecided(f"({self}) // ({other})")

    def __rmod__(self, other: int) -> DimLike:
        """Python's `other % self` where the bounds decide it (`-1 % n` is `n - 1`)."""
        if _is_size(other) and 0 <= other < self:
            return other
        if _is_size(other) and -self <= other < 0:
            return other + self
        raise DimUndecided(f"{other} % {self}")

    def __rfloordiv__(self, other: int) -> DimLike:
        raise DimUndecided(f"{other} // {self}")

    def __mod__(self, other: int) -> int:
        if isinstance(other, int) and other > 0 and all(c % other == 0
                                                        for c in self.terms.values()):
            return 0
        raise DimUndecided(f"{self} % {other}")

    # ---- comparisons --------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not _is_size(other):
            if isinstance(other, float | np.number):
                raise DimUndecided(f"whether {self} == {other!r}")
            return NotImplemented
        diff = self - other
        signs = _signs(diff)
        if signs == {0}:
            return True
        if signs is not None and 0 not in signs or _distinct_symbols(diff):
            return False
        raise DimUndecided(f"whether {self} == {other}")

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return self._hash

    def _compare(self, other: DimLike, op: str) -> bool:
        if isinstance(other, float) and math.isinf(other):  # a size is finite
            return (op in ("<", "<=")) == (other > 0)
        if not _is_size(other):
            raise DimUndecided(f"whether {self} {op} {other!r}")
        test = {"<": lambda v: v < 0, "<=": lambda v: v <= 0, ">": lambda v: v > 0,
                ">=": lambda v: v >= 0}[op]
        answers = {test(sign) for sign in _signs(self - other) or (-1, 0, 1)}
        if len(answers) != 1:
            raise DimUndecided(f"whether {self} {op} {other}")
        return answers.pop()

    def __lt__(self, other: DimLike) -> bool:
        return self._compare(other, "<")

    def __le__(self, other: DimLike) -> bool:
        return self._compare(other, "<=")

    def __gt__(self, other: DimLike) -> bool:
        return self._compare(other, ">")

    def __ge__(self, other: DimLike) -> bool:
        return self._compare(other, ">=")

    def __bool__(self) -> bool:
        return self != 0

    # ---- no conversions -----------------------------------------------------------------------

    def __index__(self) -> int:
        raise DimUndecided(f"the value of the run-time size {self}")

    __int__ = __index__

    def __float__(self) -> float:
        raise DimUndecided(f"the value of the run-time size {self}")

    def __str__(self) -> str:
        parts = []
        for m, c in sorted(self.terms.items(), key=lambda mc: (-len(mc[0]), mc[0])):
            body = "*".join(m)
            if not body:
                parts.append(str(abs(c)))
            else:
                parts.append(body if abs(c) == 1 else f"{abs(c)}*{body}")
            parts[-1] = ("-" if c < 0 else "+", parts[-1])
        text = " ".join(f"{s} {p}" for s, p in parts).removeprefix("+ ")
        return text.replace("- ", "-", 1) if text.startswith("- ") else text

    __repr__ = __str__


DimLike = Union[int, Dim]  # noqa: UP007 - a runtime alias used in isinstance-free hints


def symbol(name: str) -> Dim:
    """The size symbol `name`."""
    return Dim({(name,): 1})


def dim(terms: Mapping[Monomial, int]) -> DimLike:
    """The Dim of `terms`, or its int when it has no symbols."""
    d = Dim(terms)
    if not any(d.terms):
        return d.terms.get((), 0)
    return d


def is_symbolic(n: object) -> bool:
    return isinstance(n, Dim)


def symbol_name(n: DimLike) -> str | None:
    """The name of a size that is one symbol (`d0`, not `2*d0` nor `d0 - 1`), else None."""
    if isinstance(n, Dim) and len(n.terms) == 1:
        ((monomial, coefficient),) = n.terms.items()
        if coefficient == 1 and len(monomial) == 1:
            return monomial[0]
    return None


def is_one(n: DimLike) -> bool:
    """Whether a dimension is the int 1 (a broadcast dimension). Native loops ask this of
    values whose shapes the type rules already checked: a run-time size that turns out to be
    1 there is looped over like any other (one position), so it is not 1 here."""
    return not isinstance(n, Dim) and n == 1


def evaluate(n: DimLike, values: Mapping[str, int]) -> int:
    """The size `n` stands for when its symbols have `values`."""
    if isinstance(n, int):
        return n
    total = 0
    for m, c in n.terms.items():
        term = c
        for name in m:
            term *= values[name]
        total += term
    return total


def bind_sizes(shapes: Iterable[tuple], actual: Iterable[tuple]) -> dict[str, int] | None:
    """The symbols' values making `shapes` the `actual` shapes, or None (module docstring)."""
    values: dict[str, int] = {}
    composite = []
    for shape, got in zip(shapes, actual, strict=True):
        if len(shape) != len(got):
            return None
        for n, size in zip(shape, got, strict=True):
            name = symbol_name(n)
            if isinstance(n, int):
                if n != size:
                    return None
            elif name is not None:
                if values.setdefault(name, size) != size or size < MIN_SIZE:
                    return None
            else:
                composite.append((n, size))
    if len(set(values.values())) != len(values):
        return None
    if any(evaluate(n, values) != size for n, size in composite):
        return None
    return values


def reshaped(shape: tuple, new: tuple) -> tuple:
    """numpy's result shape of reshaping an array of `shape` to `new` (sizes may be Dims)."""
    total = math.prod(shape)
    if not any(is_symbolic(n) for n in (*shape, *new)):
        return np.empty(shape, dtype=np.bool_).reshape(new).shape
    unknown = [i for i, n in enumerate(new) if isinstance(n, int) and n == -1]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = math.prod(n for i, n in enumerate(new) if i not in unknown)
    if unknown:
        new = tuple(total // known if i in unknown else n for i, n in enumerate(new))
    elif total != known:
        raise ValueError(f"cannot reshape array of size {total} into shape {new}")
    return tuple(new)


def slice_indices(start: DimLike | None, stop: DimLike | None, step: DimLike | None,
                  n: DimLike) -> tuple[DimLike, DimLike, DimLike]:
    """`slice(start, stop, step).indices(n)` for a size `n` that may be a Dim."""
    step = 1 if step is None else step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    low, high = (0, n) if step > 0 else (-1, n - 1)

    def clamp(bound: int | None, default: DimLike) -> DimLike:
        if bound is None:
            return default
        if bound < 0:
            bound = bound + n
            return low if bound < low else bound
        return high if bound >= high else bound

    return clamp(start, low if step > 0 else high), clamp(stop, high if step > 0 else low), step


def slice_length(start: DimLike, stop: DimLike, step: DimLike) -> DimLike:
    """How many positions `range(start, stop, step)` holds (sizes may be Dims)."""
    span = stop - start if step > 0 else start - stop
    if span <= 0:
        return 0
    return (span + abs(step) - 1) // abs(step)


def symbols_of(shapes: Iterable) -> list[str]:
    """The symbols of the dimensions of `shapes` (None for scalars skipped), sorted by
    number (d2 before d10)."""
    names = {name for shape in shapes if shape for n in shape if isinstance(n, Dim)
             for m in n.terms for name in m}
    return sorted(names, key=lambda s: (len(s), s))


def _exact_quotient(p: Dim, q: Dim) -> DimLike | None:
    """p / q when q divides p exactly as polynomials, else None: long division by leading
    terms in graded order (degree, then names)."""
    def leading(terms):
        return max(terms, key=lambda m: (len(m), m))

    remainder: DimLike = p
    quotient: DimLike = 0
    top = leading(q.terms)
    while isinstance(remainder, Dim) or remainder != 0:
        terms = _terms(remainder)
        m = leading(terms)
        if not _contains(m, top) or terms[m] % q.terms[top]:
            return None
        step = dim({_without(m, top): terms[m] // q.terms[top]})
        quotient = quotient + step
        remainder = remainder - step * q
    return quotient


def _contains(m: Monomial, part: Monomial) -> bool:
    rest = list(m)
    for name in part:
        if name not in rest:
            return False
        rest.remove(name)
    return True


def _without(m: Monomial, part: Monomial) -> Monomial:
    rest = list(m)
    for name in part:
        rest.remove(name)
    return tuple(rest)


def _is_size(n: object) -> bool:
    """An int (not a bool) or a Dim: what sizes compute with (a float or a numpy number is
    not: arithmetic with one raises TypeError, and compiling falls back)."""
    return isinstance(n, int | Dim) and not isinstance(n, bool)


def _terms(n: DimLike) -> dict[Monomial, int]:
    return n.terms if isinstance(n, Dim) else {(): n}


def _as_dim(n: DimLike) -> Dim:
    return n if isinstance(n, Dim) else Dim({(): n})


def _signs(p: DimLike) -> frozenset[int] | None:
    """The signs (-1, 0, +1) `p` can take when every size is >= MIN_SIZE, or None when any
    can. Each symbol s is MIN_SIZE + t with t >= 0: when the polynomial in the t's has all
    its coefficients of one sign, so has the polynomial everywhere (with MIN_SIZE 8,
    d0*d1 - d0 is 56 + 7*t0 + 8*t1 + t0*t1: positive; d0 - 8 is t0: 0 or positive)."""
    shifted: DimLike = 0
    for m, c in _terms(p).items():
        term: DimLike = c
        for name in m:
            term = term * (symbol(name) + MIN_SIZE)
        shifted = shifted + term
    terms = _terms(shifted)
    constant = terms.get((), 0)
    varies = any(c for m, c in terms.items() if m)
    for sign in (1, -1):
        if all(c * sign >= 0 for c in terms.values()):
            if not varies:
                return frozenset({(constant > 0) - (constant < 0)})
            return frozenset({sign}) if constant * sign > 0 else frozenset({0, sign})
    return None


def _distinct_symbols(p: Dim) -> bool:
    """`p` is `a - b` for two different symbols (different sizes, see the signature)."""
    return sorted(p.terms.values()) == [-1, 1] and all(len(m) == 1 for m in p.terms)
