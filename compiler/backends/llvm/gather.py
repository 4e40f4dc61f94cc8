"""LLVM lowering of integer-array indexing (`primitives/gather.py`).

Contract (mixed into `FunctionLowering` as `GatherLowering`, next to `ArrayLowering`):
`take` loops over its result, reading `x` at the position whose `axis` coordinate is the
index array's element (checked in `[0, n)`, else status INDEX: never a read outside `x`);
`take_add` zeroes its result, then loops over `g` adding each element at the position the
index gives (so repeated indices accumulate, as `np.add.at`); `put` copies `x`, then loops
over `v` storing each element at the position the index gives (the last write wins).
"""

from __future__ import annotations

from llvmlite import ir

from ... import status
from .arrays import element_type
from .ops import I64
from .registry import lowers


class GatherLowering:
    def _gathered(self, env, idx, coords, axis, n):
        """(coords of the indexed array) for the coords of the taken array, index checked."""
        b = self.b
        k = len(idx.type.shape)
        i = self.element(env, idx, coords[axis:axis + k])
        ok = b.and_(b.icmp_signed(">=", i, ir.Constant(I64, 0)),
                    b.icmp_signed("<", i, ir.Constant(I64, n)))
        self.check(ok, status.INDEX)
        return coords[:axis] + [i] + coords[axis + k:]

    @lowers("take")
    def lower_take(self, eqn, env):
        x, idx = eqn.inputs
        out = eqn.outputs[0]
        axis = eqn.params["axis"]
        n = x.type.shape[axis]
        if not out.type.is_array:
            return [self.element(env, x, self._gathered(env, idx, [], axis, n))]
        ptr = self.alloc(out.type.shape, element_type(out.type))
        self.loop_nest(out.type.shape, lambda co: self.store(
            ptr, out.type, self.offset(out.type.shape, co),
            self.element(env, x, self._gathered(env, idx, list(co), axis, n))))
        return [ptr]

    @lowers("take_add")
    def lower_take_add(self, eqn, env):
        g, idx = eqn.inputs
        out = eqn.outputs[0]
        axis, shape = eqn.params["axis"], eqn.params["shape"]
        elem, floats = element_type(out.type), out.type.is_float
        ptr = self.alloc(shape, elem)
        self.loop_nest(shape, lambda co: self.store(
            ptr, out.type, self.offset(shape, co), ir.Constant(elem, 0.0 if floats else 0)))
        plus = self.b.fadd if floats else self.b.add  # int64 sums: np.add.at of int arrays

        def add(co):
            off = self.offset(shape, self._gathered(env, idx, list(co), axis, shape[axis]))
            value = plus(self.load(ptr, out.type, off), self.element(env, g, co))
            self.store(ptr, out.type, off, value)

        self.loop_nest(g.type.shape, add)
        return [ptr]

    @lowers("put")
    def lower_put(self, eqn, env):
        x, v, idx = eqn.inputs
        axis = eqn.params["axis"]
        shape = x.type.shape
        ptr = self.copy_array(env[id(x)], x.type)

        def write(co):
            off = self.offset(shape, self._gathered(env, idx, list(co), axis, shape[axis]))
            self.store(ptr, x.type, off, self.element(env, v, co))

        self.loop_nest(v.type.shape, write)
        return [ptr]
