"""Calls of the LAPACK in numpy's OpenBLAS from generated code: the Fortran routines numpy and
scipy call (`?gesv`, `?getrf`, `?potrf`, `?trtrs`; 64-bit ints: `scipy_dgesv_64_`, ...),
given operands laid out as numpy and scipy lay them out, so results are theirs to the bit.

Contract: `Lapack(cx)` (the lowering context, `context.py`: its `b`, `entry` and `module`)
emits
- `column_major(ptr, rows, cols, elem, to=None)`: a new buffer with the rows x cols
  row-major matrix of `elem`s at `ptr` in column-major order (its transpose row-major;
XX
  algebra computes float32 in float64);
- `call(routine, elem, ints_and_pointers, chars) -> info`: a call of routine `routine` for
  element type `elem` (`s` float32, `d` float64): an int operand (a Python int or an i64
  value) is passed by reference, a pointer as it is, the `chars` (Fortran character
  arguments such as 'L') by reference first with their lengths (1) as the trailing hidden
  arguments of gfortran's convention; returns the routine's `info` (an i64 value).
The library is loaded by `arrays.blas()`, which callers check first.
"""

from __future__ import annotations

from llvmlite import ir

from ...ir.dims import is_symbolic
from .arrays import alloc, loop_nest
from .context import LoweringContext, extent
from .declarations import function
from .emit import counted
from .ops import I64

PTR = ir.PointerType()
I8 = ir.IntType(8)
TILE = 32  # the transposing copy goes by TILE x TILE tiles (cache lines reused)


def symbol(routine: str, elem) -> str:
    return f"scipy_{'s' if isinstance(elem, ir.FloatType) else 'd'}{routine}_64_"


class Lapack:
    def __init__(self, cx: LoweringContext) -> None:
        self.cx = cx

    def _by_reference(self, value, typ=I64):
        slot = self.cx.entry.alloca(typ)
        self.cx.b.store(value if isinstance(value, ir.Value) else
                        extent(self.cx, value) if typ == I64 else ir.Constant(typ, value), slot)
        return slot

    def column_major(self, ptr, rows: int, cols: int, elem, to=None):
        b = self.cx.b
        to = to or elem
        out = alloc(self.cx, (cols, rows), to)
        widen = isinstance(elem, ir.FloatType) and not isinstance(to, ir.FloatType)

        smin = self.cx.declare("llvm.smin.i64", ir.FunctionType(I64, [I64, I64]))

        def span(tile, n):  # [first, stop) of a tile of TILE positions of n
            first = b.mul(tile, ir.Constant(I64, TILE))
            return first, b.call(smin, [b.add(first, ir.Constant(I64, TILE)),
                                        extent(self.cx, n)])

        def copy(i, j):
            src = b.gep(ptr, [b.add(b.mul(i, extent(self.cx, cols)), j)], source_etype=elem)
            dst = b.gep(out, [b.add(b.mul(j, extent(self.cx, rows)), i)], source_etype=to)
            value = b.load(src, typ=elem)
            if to != elem:
                value = b.fpext(value, to) if widen else b.fptrunc(value, to)
            b.store(value, dst)
            return []

        def tile(co):  # the output's rows j of the tile, each written contiguously
            (i0, i1), (j0, j1) = span(co[0], rows), span(co[1], cols)

            def output_row(j, _):
                counted(self.cx, i0, i1, 1, [], lambda i, _: copy(i, j))
                return []

            counted(self.cx, j0, j1, 1, [], output_row)

        if is_symbolic(rows) or is_symbolic(cols):  # run-time sizes: no tile count known
            loop_nest(self.cx, (cols, rows), lambda co: copy(co[1], co[0]))
        else:
            loop_nest(self.cx, (-(-rows // TILE), -(-cols // TILE)), tile)
        return out

    def call(self, routine: str, elem, operands, chars: str = ""):
        info = self._by_reference(0)
        args = [self._by_reference(ord(c), I8) for c in chars]
        args += [v if isinstance(v, ir.Value) and v.type == PTR else self._by_reference(v)
                 for v in operands]
        args += [info] + [ir.Constant(I64, 1)] * len(chars)
        fn = function(self.cx.module, symbol(routine, elem), ir.VoidType(),
                      [PTR] * (len(args) - len(chars)) + [I64] * len(chars))
        self.cx.b.call(fn, args)
        return self.cx.b.load(info, typ=I64)
