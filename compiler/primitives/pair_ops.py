"""Complex values as pairs of real IR values, for the rules that run after `complex_pairs`.

Contract: `Pair(re, im)` is a complex value as its real and imaginary parts (two atoms of
the same real type and shape; the pass `passes/complex_pairs.py` rewrites every complex
value into one). `PairOps(o)` is the derivative vocabulary (`adlite.derivatives.Ops`) on
values that are `Pair`s or real atoms, over the real vocabulary `o` (`BuilderOps`): the
arithmetic, `matmul`, `inv` / `solve` (of one matrix, through its real embedding
`embedded`), `eigh` / `svd` / `eig` (the packed decompositions),
the shape words and `reduce_sum` of complex numbers, `conj`, `real`, `is_complex`; the
other words take real values only and are `o`'s. So the shared formulas of
the complex decompositions (`adlite.derivatives.decompositions`, written with conjugate
transposes) run on the real IR.

The packed decompositions of a complex matrix (`eigh`, `eigvalsh`, `svd`, `svdvals` with
`complex=True`; `eig` and `eigvals` with or without, their results being complex) take the matrix
interleaved, `(m, n, 2)` (real, imaginary: LAPACK's layout), and pack their complex parts
interleaved too (`adlite.derivatives.decompositions.COMPLEX_PARTS` says which parts are
complex): `interleaved(o, z)` and
`deinterleaved(o, x)` convert a matrix, `packed_pair(o, packed, name, shape, params)` reads
such a packed result as one `Pair` of flat arrays laid out as a real result (eigenvalues and
singular values with a zero imaginary part), and `packed_interleaved(o, pair, ...)` is its
inverse (imaginary parts of the real parts dropped).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from adlite.derivatives.decompositions import COMPLEX_PARTS, layout

from ..ir.core import Atom


@dataclass(frozen=True)
class Pair:
    """A complex value as its real and imaginary parts."""
    re: Atom
    im: Atom


def _parts(x: Any) -> tuple[Any, Any]:
    return (x.re, x.im) if isinstance(x, Pair) else (x, None)


class PairOps:
    """See the module docstring."""

    def __init__(self, o: Any) -> None:
        self.o = o

    def __getattr__(self, word: str) -> Any:
        real_word = getattr(self.o, word)

        def apply(*args: Any, **params: Any) -> Any:
            if any(isinstance(a, Pair) for a in args):
                raise TypeError(f"{word} of a complex value has no rule here")
            return real_word(*args, **params)

        return apply

    def _each(self, word: str, x: Any, *args: Any) -> Any:
        """`word` applied to each part of `x` (a real `x`: to `x`)."""
        fn = getattr(self.o, word)
        if isinstance(x, Pair):
            return Pair(fn(x.re, *args), fn(x.im, *args))
        return fn(x, *args)

    def _sum(self, word: str, x: Any, y: Any) -> Any:
        """`add` / `sub` with a missing imaginary part standing for zero."""
        o = self.o
        (xr, xi), (yr, yi) = _parts(x), _parts(y)
        re = getattr(o, word)(xr, yr)
        if xi is None and yi is None:
            return re
        if yi is None:
            return Pair(re, xi)
        if xi is None:
            return Pair(re, yi if word == "add" else o.neg(yi))
        return Pair(re, getattr(o, word)(xi, yi))

    def add(self, x: Any, y: Any) -> Any:
        return self._sum("add", x, y)

    def sub(self, x: Any, y: Any) -> Any:
        return self._sum("sub", x, y)

    def _product(self, word: str, x: Any, y: Any) -> Any:
        """`mul` / `matmul`: (a + ib)(c + id) = (ac - bd) + i(ad + bc)."""
        f = getattr(self.o, word)
        (xr, xi), (yr, yi) = _parts(x), _parts(y)
        if xi is None and yi is None:
            return f(xr, yr)
        if yi is None:
            return Pair(f(xr, yr), f(xi, yr))
        if xi is None:
            return Pair(f(xr, yr), f(xr, yi))
        o = self.o
        return Pair(o.sub(f(xr, yr), f(xi, yi)), o.add(f(xr, yi), f(xi, yr)))

    def mul(self, x: Any, y: Any) -> Any:
        return self._product("mul", x, y)

    def matmul(self, x: Any, y: Any) -> Any:
        return self._product("matmul", x, y)

    def div(self, x: Any, y: Any) -> Any:
        """`x / y` for a real `y`."""
        if isinstance(y, Pair):
            raise TypeError("div by a complex value has no rule here")
        return self._each("div", x, y)

    def neg(self, x: Any) -> Any:
        return self._each("neg", x)

    def conj(self, x: Any) -> Any:
        return Pair(x.re, self.o.neg(x.im)) if isinstance(x, Pair) else x

    def real(self, x: Any) -> Any:
        return x.re if isinstance(x, Pair) else x

    def is_complex(self, x: Any) -> bool:
        return isinstance(x, Pair)

    def reshape(self, x: Any, shape: tuple[int, ...]) -> Any:
        return self._each("reshape", x, shape)

    def transpose(self, x: Any, axes: tuple[int, ...]) -> Any:
        return self._each("transpose", x, axes)

    def slice_along(self, x: Any, axis: int, start: int, stop: int,
                    step: int | None = None) -> Any:
        return self._each("slice_along", x, axis, start, stop, step)

    def reduce_sum(self, x: Any, axis: tuple[int, ...] | None, keepdims: bool) -> Any:
        return self._each("reduce_sum", x, axis, keepdims)

    def select(self, cond: Any, x: Any, y: Any) -> Any:
        if not (isinstance(x, Pair) or isinstance(y, Pair)):
            return self.o.select(cond, x, y)
        (xr, xi), (yr, yi) = _parts(self.as_pair(x)), _parts(self.as_pair(y))
        return Pair(self.o.select(cond, xr, yr), self.o.select(cond, xi, yi))

    def concatenate(self, xs: list[Any], axis: int) -> Any:
        if not any(isinstance(x, Pair) for x in xs):
            return self.o.concatenate(xs, axis)
        pairs = [self.as_pair(x) for x in xs]
        return Pair(self.o.concatenate([p.re for p in pairs], axis),
                    self.o.concatenate([p.im for p in pairs], axis))

    def inv(self, x: Any) -> Any:
        """The inverse of a complex matrix `a + ib` from that of the real matrix
        `[[a, -b], [b, a]]` (`embedded`), which is `[[c, -d], [d, c]]` for the inverse
        `c + id`."""
        if not isinstance(x, Pair):
            return self.o.inv(x)
        o, n = self.o, x.re.type.shape[-1]
        left = o.slice_along(o.inv(embedded(o, x)), 1, 0, n)
        return Pair(o.slice_along(left, 0, 0, n), o.slice_along(left, 0, n, 2 * n))

    def solve(self, a: Any, b: Any) -> Any:
        """`solve(a, b)` of complex operands: the real system `embedded(a) [x.re; x.im] =
        [b.re; b.im]`."""
        if not (isinstance(a, Pair) or isinstance(b, Pair)):
            return self.o.solve(a, b)
        o, a, b = self.o, self.as_pair(a), self.as_pair(b)
        n = a.re.type.shape[-1]
        x = o.solve(embedded(o, a), o.concatenate([b.re, b.im], 0))
        return Pair(o.slice_along(x, 0, 0, n), o.slice_along(x, 0, n, 2 * n))

    def _decomposed(self, name: str, a: Any, params: dict) -> Any:
        """The packed decomposition `name` of `a` (a complex one, or `eig`'s, read back as a
        pair)."""
        complex_operand = isinstance(a, Pair)
        if not (complex_operand or name == "eig"):
            return getattr(self.o, name)(a)
        operand = interleaved(self.o, a) if complex_operand else a
        packed = self.o.emit(name, [operand], **params, complex=complex_operand,
                             pairs=True)[0]
        return packed_pair(self.o, packed, name, operand.type.shape[:2], params)

    def eig(self, a: Any) -> Any:
        return self._decomposed("eig", a, {})

    def eigh(self, a: Any) -> Any:
        return self._decomposed("eigh", a, {"uplo": "L"})

    def svd(self, a: Any) -> Any:
        return self._decomposed("svd", a, {"full": False})

    def as_pair(self, x: Any) -> Pair:
        """`x` as a complex value (a real one with a zero imaginary part)."""
        return x if isinstance(x, Pair) else Pair(x, self.o.zeros(x.type))


def embedded(o: Any, z: Pair) -> Atom:
    """The real matrix `[[re, -im], [im, re]]` of a complex matrix `z` (it maps `[x; y]` as
    `z` maps `x + iy`): a complex linear system as a real one of twice its size, exactly."""
    top = o.concatenate([z.re, o.neg(z.im)], 1)
    return o.concatenate([top, o.concatenate([z.im, z.re], 1)], 0)


def interleaved(o: Any, z: Pair) -> Atom:
    """A complex array `z` of shape S as the real array S + (2,)."""
    shape = z.re.type.shape
    return o.concatenate([o.reshape(z.re, (*shape, 1)), o.reshape(z.im, (*shape, 1))],
                         len(shape))


def deinterleaved(o: Any, x: Atom) -> Pair:
    """The inverse of `interleaved`."""
    *shape, _ = x.type.shape
    last = len(shape)
    return Pair(*(o.reshape(o.slice_along(x, last, i, i + 1), tuple(shape)) for i in (0, 1)))


def packed_pair(o: Any, packed: Atom, name: str, shape: tuple[int, ...], params: dict) -> Pair:
    """The packed decomposition `name` of a complex matrix of `shape` (complex parts
    interleaved) as a `Pair` of flat arrays packed as a real result."""
    ops, start = PairOps(o), 0
    pieces = []
    for part, is_complex in zip(layout(name, [shape], params), COMPLEX_PARTS[name],
                                strict=True):
        size = math.prod(part)
        stop = start + size * (2 if is_complex else 1)
        piece = o.slice_along(packed, 0, start, stop)
        pieces.append(deinterleaved(o, o.reshape(piece, (size, 2))) if is_complex else piece)
        start = stop
    return ops.concatenate(pieces, 0)


def packed_interleaved(o: Any, pair: Any, name: str, shape: tuple[int, ...],
                       params: dict) -> Atom:
    """The inverse of `packed_pair` (the imaginary parts of the real parts dropped)."""
    pair = PairOps(o).as_pair(pair)
    start, pieces = 0, []
    for part, is_complex in zip(layout(name, [shape], params), COMPLEX_PARTS[name],
                                strict=True):
        size = math.prod(part)
        re, im = (o.slice_along(x, 0, start, start + size) for x in (pair.re, pair.im))
        pieces.append(o.reshape(interleaved(o, Pair(re, im)), (2 * size,)) if is_complex
                      else re)
        start += size
    return o.concatenate(pieces, 0)
