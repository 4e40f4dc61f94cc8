"""LLVM lowering of `argsort` (`primitives/sorting.py`): a stable bottom-up merge sort of
positions, one lane at a time, in an internal function emitted once per module and element
type.

Contract (the rule of `argsort`, registered with `registry.lowers`, calls it):
`__adlite_argsort_<t>(x, lanes, n, out, tmp)` writes into the `lanes` x `n` int64 array
`out` the permutation that sorts each row of the row-major `x` (ascending; NaN after every
number; equal elements, and NaNs, in their original order), using `tmp` (n int64) as the
merge buffer: runs of width 1, 2, 4, ... are merged, the left run winning ties, which is
numpy's `kind='stable'` order exactly. O(n log n) comparisons per lane, no allocation.
"""

from __future__ import annotations

import math

from llvmlite import ir

from .arrays import alloc, element_type, extent
from .elements import materialize
from .fusion import Lazy
from .internal_functions import InternalFunction
from .ops import I1, I64
from .registry import lowers

PTR = ir.PointerType()
_SUFFIX = {"double": "f64", "float": "f32", "i64": "i64"}


class _Kernel(InternalFunction):
    """The function under construction: mutable slots and structured loops."""

    def __init__(self, module: ir.Module, name: str, elem) -> None:
        super().__init__(module, name,
                         ir.FunctionType(ir.VoidType(), [PTR, I64, I64, PTR, PTR]))
        self.elem = elem

    def slot(self, value, typ=I64):
        return self.new_slot(typ, value)

    def get(self, slot, typ=I64):
        return self.b.load(slot, typ=typ)

    def set(self, slot, value) -> None:
        self.b.store(value, slot)

    def while_(self, condition, body) -> None:
        """while condition(): body()."""
        b = self.b
        head, inner, done = (self.fn.append_basic_block(n) for n in ("while", "body", "end"))
        b.branch(head)
        b.position_at_end(head)
        b.cbranch(condition(), inner, done)
        b.position_at_end(inner)
        body()
        b.branch(head)
        b.position_at_end(done)

    def at(self, ptr, i, typ=I64):
        return self.b.gep(ptr, [i], inbounds=True, source_etype=typ)

    def read(self, ptr, i, typ=I64):
        return self.b.load(self.at(ptr, i, typ), typ=typ)

    def less(self, a, c):
        """numpy's sort order: a < c, NaN above every number."""
        b = self.b
        if not isinstance(self.elem, ir.DoubleType | ir.FloatType):
            return b.icmp_signed("<", a, c)
        return b.or_(b.fcmp_ordered("<", a, c),
                     b.and_(b.fcmp_unordered("uno", c, c), b.fcmp_ordered("ord", a, a)))


def _build(k: _Kernel) -> None:
    b = k.b
    x, lanes, n, out, tmp = k.fn.args
    zero, one = ir.Constant(I64, 0), ir.Constant(I64, 1)
    lane = k.slot(zero)

    def one_lane():
        base = b.mul(k.get(lane), n)
        row = k.at(out, base)
        xs = k.at(x, base, k.elem)
        i = k.slot(zero)

        def identity():
            b.store(k.get(i), k.at(row, k.get(i)))
            k.set(i, b.add(k.get(i), one))

        k.while_(lambda: b.icmp_signed("<", k.get(i), n), identity)
        src, dst, width = k.slot(row, PTR), k.slot(tmp, PTR), k.slot(one)

        def one_pass():
            lo = k.slot(zero)

            def merge_pair():
                w, start = k.get(width), k.get(lo)
                mid = _min(b, b.add(start, w), n)
                hi = _min(b, b.add(mid, w), n)
                p, q, o = k.slot(start), k.slot(mid), k.slot(start)
                source, target = k.get(src, PTR), k.get(dst, PTR)

                def step():
                    left_done = b.icmp_signed(">=", k.get(p), mid)
                    right_open = b.icmp_signed("<", k.get(q), hi)
                    take_right = k.slot(ir.Constant(I1, 0), I1)
                    with b.if_else(left_done) as (then, otherwise):
                        with then:
                            k.set(take_right, ir.Constant(I1, 1))
                        with otherwise:
                            with b.if_then(right_open):
                                vq = k.read(xs, k.read(source, k.get(q)), k.elem)
                                vp = k.read(xs, k.read(source, k.get(p)), k.elem)
                                k.set(take_right, k.less(vq, vp))
                    with b.if_else(k.get(take_right, I1)) as (then, otherwise):
                        with then:
                            b.store(k.read(source, k.get(q)), k.at(target, k.get(o)))
                            k.set(q, b.add(k.get(q), one))
                        with otherwise:
                            b.store(k.read(source, k.get(p)), k.at(target, k.get(o)))
                            k.set(p, b.add(k.get(p), one))
                    k.set(o, b.add(k.get(o), one))

                k.while_(lambda: b.icmp_signed("<", k.get(o), hi), step)
                k.set(lo, hi)

            k.while_(lambda: b.icmp_signed("<", k.get(lo), n), merge_pair)
            previous = k.get(src, PTR)
            k.set(src, k.get(dst, PTR))
            k.set(dst, previous)
            k.set(width, b.shl(k.get(width), one))

        k.while_(lambda: b.icmp_signed("<", k.get(width), n), one_pass)
        with b.if_then(b.icmp_unsigned("!=", k.get(src, PTR), row)):
            k.set(i, zero)

            def copy_back():
                b.store(k.read(tmp, k.get(i)), k.at(row, k.get(i)))
                k.set(i, b.add(k.get(i), one))

            k.while_(lambda: b.icmp_signed("<", k.get(i), n), copy_back)
        k.set(lane, b.add(k.get(lane), one))

    k.while_(lambda: b.icmp_signed("<", k.get(lane), lanes), one_lane)
    b.ret_void()


def _min(b, a, c):
    return b.select(b.icmp_signed("<", a, c), a, c)


def argsort_function(module: ir.Module, elem) -> ir.Function:
    name = f"__adlite_argsort_{_SUFFIX[str(elem)]}"
    if name not in module.globals:
        _build(_Kernel(module, name, elem))
    return module.globals[name]


@lowers("argsort")
def lower_argsort(cx, eqn, env):
    x = eqn.inputs[0]
    shape = x.type.shape
    n = shape[-1]
    source = env[id(x)]
    if isinstance(source, Lazy):
        source = materialize(cx, env, x)
    out = alloc(cx, shape, I64)
    tmp = alloc(cx, (n,), I64)
    lanes = math.prod(shape[:-1])
    cx.b.call(argsort_function(cx.module, element_type(x.type)),
              [source, extent(cx, lanes), extent(cx, n), out, tmp])
    return [out]
