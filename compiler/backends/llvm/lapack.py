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

from .arrays import alloc, loop_nest
from .context import LoweringContext
from .declarations import function
from .emit import when
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
        self.cx.b.store(ir.Constant(typ, value) if isinstance(value, int) else value, slot)
        return slot

    def column_major(self, ptr, rows: int, cols: int, elem, to=None):
        b = self.cx.b
        to = to or elem
        out = alloc(self.cx, (cols, rows), to)
        widen = isinstance(elem, ir.FloatType) and not isinstance(to, ir.FloatType)

        def move(co):
            tile_i, tile_j, di, dj = co
            i = b.add(b.mul(tile_i, ir.Constant(I64, TILE)), di)
            j = b.add(b.mul(tile_j, ir.Constant(I64, TILE)), dj)
            inside = b.and_(b.icmp_signed("<", i, ir.Constant(I64, rows)),
                            b.icmp_signed("<", j, ir.Constant(I64, cols)))
            when(self.cx, inside, lambda: copy(i, j))

        def copy(i, j):
            src = b.gep(ptr, [b.add(b.mul(i, ir.Constant(I64, cols)), j)], source_etype=elem)
            dst = b.gep(out, [b.add(b.mul(j, ir.Constant(I64, rows)), i)], source_etype=to)
            value = b.load(src, typ=elem)
            if to != elem:
                value = b.fpext(value, to) if widen else b.fptrunc(value, to)
            b.store(value, dst)

        loop_nest(self.cx, (-(-rows // TILE), -(-cols // TILE), TILE, TILE), move)
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
