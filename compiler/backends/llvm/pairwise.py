"""Full float sums in numpy's pairwise order: the same bits as `np.sum` of a contiguous array.

Contract: `pairwise_sum(cx, env, x)` emits, at the current position, the sum of every element
of the float array `x` (fused or a buffer) in row-major order, grouped as numpy's
`pairwise_sum` groups a contiguous array: `0.0 + pw(0, n)`, where `pw(s, l)` for `l` above
LEAF (128) is `pw(s, h) + pw(s + h, l - h)` with `h = l // 2` rounded down to a multiple
of 8, and a leaf is summed in LANES (8) accumulators, element `s + i` into lane `i % 8`
while `i < l - l % 8`, the lanes combined as `((r0 + r1) + (r2 + r3)) + ((r4 + r5) +
(r6 + r7))`, then the last `l % 8` elements added in order. The order is fixed by `n` alone
(never by the thread count or the tier), and the eight lanes (one vector) are independent
chains, so the loop is not bound by the latency of one add (an in-order sum of 1,000
elements is 1,000 dependent adds). A chunk of eight elements inside one row of an N-D
operand reads the row's consecutive elements (vector loads of a fused expression's
operands). A tree deeper than one leaf over a known `n` takes its leaves from a table
made at compile time (a byte of length and one of pending combines per leaf); over a
run-time `n` an internal function (`__adlite_pairwise_next`) walks the tree on a stack in
the caller's frame. Either way one loop runs the leaves and `__adlite_pairwise_push_<type>`
adds each leaf's sum to the pending left sums: a sum's code does not grow with `n`.
(The signs of zero partials may differ from numpy's, which starts a leaf of under 8 elements
at +0.0: no sum of nonzero terms depends on them, and the final `0.0 +` makes a zero +0.0.)
"""

from __future__ import annotations

from types import SimpleNamespace

from llvmlite import ir

from ...ir.dims import is_symbolic
from .arrays import PTR, element_type, extent, itemsize, n_elements, row_major_strides
from .elements import element
from .emit import counted
from .ops import I64

LEAF = 128  # numpy's PW_BLOCKSIZE
LANES = 8
DEPTH = 64  # stack entries: a tree over 2**63 elements is under 58 levels deep
MAX_TABLED = 1024 * LEAF  # known sizes up to this take their leaves from a table (< 5 KB)


def pairwise_sum(cx, env, x) -> ir.Value:
    elem = element_type(x.type)
    n = n_elements(x.type.shape)
    if is_symbolic(n):  # a run-time size (of at least 8): the tree, walked from n
        total = _tree(cx, env, x, n, elem)
    elif n < LANES:
        total = _short(cx, env, x, n, elem)
    elif n <= LEAF:  # one leaf, its bounds known
        total = _leaf(cx, env, x, ir.Constant(I64, 0), ir.Constant(I64, n), elem, n % LANES)
    else:
        total = _tree(cx, env, x, n, elem)
    return cx.b.fadd(ir.Constant(elem, 0.0), total)


def _coords(cx, shape, flat) -> list:
    """The coordinates of row-major position `flat` in `shape`."""
    b, coords = cx.b, []
    for d, (size, stride) in enumerate(zip(shape, row_major_strides(shape), strict=True)):
        c = b.udiv(flat, extent(cx, stride)) if is_symbolic(stride) or stride != 1 else flat
        coords.append(b.urem(c, extent(cx, size)) if d else c)
    return coords


def _at(cx, env, x, flat):
    """The element of `x` at row-major position `flat`."""
    return _element(cx, env, x, _coords(cx, x.type.shape, flat))


def _element(cx, env, x, coords):
    """The element of `x` at `coords`."""
    cx.memo = {}  # positions of one loop body: values of this block only
    value = element(cx, env, x, coords)
    cx.memo = {}
    return value


def _leaf(cx, env, x, start, length, elem, rest: int | ir.Value) -> ir.Value:
    """numpy's sum of the `length` (8 to LEAF) elements from `start`; `length % 8` is 0 or
    `rest` (only the last leaf of the tree, whose length is `n`'s modulo 8, has a tail; a
    run-time value for a run-time `n`). Each chunk of eight elements is emitted into `chunk`
    by a loop of LANES positions (O3 unrolls it and vectorises the element's computation),
    then added to the lanes as one `<8 x elem>` vector: lane j accumulates position j of
    every chunk, the order of numpy's eight accumulators. The partial chunk, moved back to
    end at the leaf's end (so it reads inside it), is not added: its last `rest` elements are
    added in order after the lanes are combined.

    A leaf of a tree runs a plain loop over its full chunks (no per-chunk clamp or select),
    the partial chunk (the last leaf's) emitted again after it, behind a branch the other
    leaves skip. A lone leaf (`n` at most LEAF, known) emits the element once: the partial
    chunk is the loop's last trip, clamped and not added (sums of a few elements are many and
    short, so their code size counts more than a select per chunk)."""
    b, entry = cx.b, cx.entry
    vector = ir.VectorType(elem, LANES)
    lanes, chunk = (entry.alloca(elem, size=ir.Constant(I64, LANES)) for _ in range(2))
    lone = isinstance(length, ir.Constant)
    if lone:
        full, chunks, last_base = (ir.Constant(I64, v) for v in (
            length.constant // LANES, -(-length.constant // LANES), length.constant - LANES))
    else:
        full = b.lshr(length, ir.Constant(I64, 3))
        chunks = b.lshr(b.add(length, ir.Constant(I64, LANES - 1)), ir.Constant(I64, 3))
        last_base = b.sub(length, ir.Constant(I64, LANES))
    zeros = ir.Constant(vector, [ir.Constant(elem, -0.0)] * LANES)
    elem_bytes = itemsize(x.type)

    def chunk_at(offset):
        _chunk(cx, env, x, b.add(start, offset), chunk, elem)
        return b.load(b.bitcast(chunk, vector.as_pointer()), typ=vector, align=elem_bytes)

    def add_full(c, acc):
        return [b.fadd(acc[0], chunk_at(b.shl(c, ir.Constant(I64, 3))))]

    def add_clamped(c, acc):
        smin = cx.declare("llvm.smin.i64", ir.FunctionType(I64, [I64, I64]))
        values = chunk_at(b.call(smin, [b.shl(c, ir.Constant(I64, 3)), last_base]))
        return [b.fadd(acc[0], b.select(b.icmp_signed("<", c, full), values, zeros))]

    total = counted(cx, ir.Constant(I64, 0), chunks if lone else full, 1, [zeros],
                    add_clamped if lone else add_full)[0]
    b.store(total, b.bitcast(lanes, vector.as_pointer()), align=elem_bytes)
    combined = b.call(_lanes_total(cx.module, elem), [lanes])
    if isinstance(rest, int) and rest == 0:
        return combined

    def in_order(res):
        if not lone:
            chunk_at(last_base)
        for j in range(LANES):
            item = b.load(_slot(b, chunk, ir.Constant(I64, j), elem), typ=elem)
            if isinstance(rest, int):
                res = b.fadd(res, item) if j >= LANES - rest else res
            else:  # element j is among the last `rest`: j >= LANES - rest
                res = b.select(b.icmp_signed(">=", b.add(ir.Constant(I64, j), rest),
                                             ir.Constant(I64, LANES)), b.fadd(res, item), res)
        return res

    if lone:
        return in_order(combined)
    before = b.block
    with b.if_then(b.icmp_signed("<", full, chunks)):
        with_tail, tail_block = in_order(combined), b.block
    out = b.phi(elem)
    out.add_incoming(combined, before)
    out.add_incoming(with_tail, tail_block)
    return out


def _chunk(cx, env, x, base, chunk, elem) -> None:
    """Store the LANES elements of `x` from row-major position `base` into `chunk`. For an
    operand of two or more dimensions, the position's coordinates are computed once per
    chunk; a chunk inside one row (of the last dimension) reads the row's consecutive
    elements (the vectoriser's loads), one that crosses rows steps the coordinates from
    element to element (a carry per dimension, no division). Rows a multiple of 8 long hold
    whole chunks (chunks start at multiples of 8 then: `n % 8` is 0, no chunk is moved back).
    """
    b, shape = cx.b, x.type.shape

    def each(j, _):
        b.store(_at(cx, env, x, b.add(base, j)), _slot(b, chunk, j, elem))
        return []

    eight = ir.Constant(I64, LANES)
    if len(shape) < 2:
        counted(cx, ir.Constant(I64, 0), eight, 1, [], each)
        return
    coords = _coords(cx, shape, base)

    def along(j, _):
        b.store(_element(cx, env, x, coords[:-1] + [b.add(coords[-1], j)]),
                _slot(b, chunk, j, elem))
        return []

    if not is_symbolic(shape[-1]) and shape[-1] % LANES == 0:
        counted(cx, ir.Constant(I64, 0), eight, 1, [], along)
        return

    def stepping(j, at):
        b.store(_element(cx, env, x, at), _slot(b, chunk, j, elem))
        carry, following = ir.Constant(ir.IntType(1), 1), []
        for c, size in reversed(list(zip(at, shape, strict=True))):
            c = b.add(c, b.zext(carry, I64))
            carry = b.icmp_signed(">=", c, extent(cx, size))
            following.append(b.select(carry, ir.Constant(I64, 0), c))
        return following[::-1]

    within = b.icmp_signed("<=", b.add(coords[-1], eight), extent(cx, shape[-1]))
    with b.if_else(within) as (row, rows):
        with row:
            counted(cx, ir.Constant(I64, 0), eight, 1, [], along)
        with rows:
            counted(cx, ir.Constant(I64, 0), eight, 1, coords, stepping)


def _lanes_total(module: ir.Module, elem: ir.Type) -> ir.Function:
    """`<type> __adlite_pairwise_lanes_<type>(lanes)`: the eight lanes combined as numpy
    combines its accumulators (defined once per module; O3 inlines it)."""
    name = f"__adlite_pairwise_lanes_{elem}"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(elem, [PTR]), name)
    fn.linkage = "internal"
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    r = [b.load(_slot(b, fn.args[0], ir.Constant(I64, j), elem), typ=elem) for j in range(LANES)]
    pairs = [b.fadd(r[j], r[j + 1]) for j in range(0, LANES, 2)]
    b.ret(b.fadd(b.fadd(pairs[0], pairs[1]), b.fadd(pairs[2], pairs[3])))
    return fn


def _short(cx, env, x, n, elem) -> ir.Value:
    """numpy's sum of fewer than 8 elements: in order (from -0.0: see the module doc)."""
    return counted(cx, ir.Constant(I64, 0), ir.Constant(I64, n), 1, [ir.Constant(elem, -0.0)],
                   lambda k, acc: [cx.b.fadd(acc[0], _at(cx, env, x, k))])[0]


def _slot(b, array, i, typ):
    return b.gep(array, [i], inbounds=True, source_etype=typ)


def _tree(cx, env, x, n, elem) -> ir.Value:
    """numpy's pairwise recursion over `n` elements: the leaves, in order, from a table
    (`_tabled`, a known `n`) or the module's walker (`_walker`); each leaf's sum goes to
    `_combiner`, which adds it to the pending left sums; the last one leaves the total in
    `sums[0]`."""
    b, entry = cx.b, cx.entry
    state = entry.alloca(I64, size=ir.Constant(I64, STATE))
    sums = entry.alloca(elem, size=ir.Constant(I64, DEPTH))
    b.store(ir.Constant(I64, 0), _slot(b, state, ir.Constant(I64, VP), I64))
    if not is_symbolic(n) and n <= MAX_TABLED:
        _tabled(cx, env, x, n, elem, state, sums)
        return b.load(sums, typ=elem)
    leaf_range = entry.alloca(I64, size=ir.Constant(I64, 2))
    for k, v in ((SP, 1), (STARTS, 0), (LENGTHS, n), (COMBINES, 0)):
        b.store(extent(cx, v), _slot(b, state, ir.Constant(I64, k), I64))
    walk, leaf, done = (cx.fn.append_basic_block(f"pairwise.{name}")
                        for name in ("walk", "leaf", "done"))
    b.branch(walk)
    b.position_at_end(walk)
    b.cbranch(b.call(_walker(cx.module), [state, leaf_range]), leaf, done)
    b.position_at_end(leaf)
    start, length = (b.load(_slot(b, leaf_range, ir.Constant(I64, k), I64), typ=I64)
                     for k in (0, 1))
    rest = b.and_(extent(cx, n), ir.Constant(I64, LANES - 1)) if is_symbolic(n) else \
        n % LANES
    value = _leaf(cx, env, x, start, length, elem, rest)
    b.call(_combiner(cx.module, elem), [state, sums, value])
    b.branch(walk)
    b.position_at_end(done)
    return b.load(sums, typ=elem)


def _leaves(n: int) -> list[tuple[int, int]]:
    """numpy's leaves of a sum of `n` (> LEAF) elements, in order: (length, pending combines),
    as the walker (`_walker`) hands them out at run time."""
    out, stack = [], [(n, 0)]
    while stack:
        length, combines = stack.pop()
        if length <= LEAF:
            out.append((length, combines))
            continue
        half = length // 2
        half -= half % LANES
        stack.append((length - half, combines + 1))
        stack.append((half, 0))
    return out


def _tabled(cx, env, x, n, elem, state, sums) -> None:
    """The tree over a known `n`: its leaves from two constant byte tables made here (length
    minus one, pending combines), one loop over them, no walker (whose branches on the stack
    cost a 1-D stencil's parameter gradient 6 %)."""
    b = cx.b
    table = _leaves(n)
    i8x = ir.ArrayType(ir.IntType(8), len(table))
    tables = []
    for name, column in (("lengths", [length - 1 for length, _ in table]),
                         ("combines", [c for _, c in table])):
        g = ir.GlobalVariable(cx.module, i8x, cx.module.get_unique_name(f"pairwise.{name}"))
        g.global_constant, g.linkage = True, "internal"
        g.initializer = ir.Constant(i8x, column)
        tables.append(g)

    def run_leaf(q, carried):
        start = carried[0]
        length, combines = (b.zext(b.load(b.gep(g, [ir.Constant(I64, 0), q], inbounds=True,
                                                source_etype=i8x), typ=ir.IntType(8)), I64)
                            for g in tables)
        length = b.add(length, ir.Constant(I64, 1))
        b.store(combines, _slot(b, state, ir.Constant(I64, PENDING), I64))
        value = _leaf(cx, env, x, start, length, elem, n % LANES)
        b.call(_combiner(cx.module, elem), [state, sums, value])
        return [b.add(start, length)]

    counted(cx, ir.Constant(I64, 0), ir.Constant(I64, len(table)), 1, [ir.Constant(I64, 0)],
            run_leaf)


# the walker's state, an i64 array: stack pointers, the pending combines of the leaf handed
# out, then the stack's starts, lengths and pending combines
SP, VP, PENDING, STARTS = 0, 1, 2, 3
LENGTHS, COMBINES = STARTS + DEPTH, STARTS + 2 * DEPTH
STATE = STARTS + 3 * DEPTH


def _walker(module: ir.Module) -> ir.Function:
    """`i1 __adlite_pairwise_next(state, leaf)`: pops ranges, pushing the right then the left
    half of one longer than LEAF (the right one with one more pending combine), until a leaf:
    its (start, length) in `leaf`, its pending combines in the state; false when done."""
    name = "__adlite_pairwise_next"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(ir.IntType(1), [PTR, PTR]), name)
    fn.linkage = "internal"
    state, leaf = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    head, pop, split, found, done = (fn.append_basic_block(n) for n in
                                     ("head", "pop", "split", "found", "done"))

    def at(k, i=None):
        index = ir.Constant(I64, k) if i is None else b.add(ir.Constant(I64, k), i)
        return _slot(b, state, index, I64)

    b.branch(head)
    b.position_at_end(head)
    sp = b.load(at(SP), typ=I64)
    b.cbranch(b.icmp_signed(">", sp, ir.Constant(I64, 0)), pop, done)
    b.position_at_end(pop)
    top = b.sub(sp, ir.Constant(I64, 1))
    start, length, combines = (b.load(at(k, top), typ=I64) for k in (STARTS, LENGTHS, COMBINES))
    b.cbranch(b.icmp_signed(">", length, ir.Constant(I64, LEAF)), split, found)
    b.position_at_end(split)
    half = b.lshr(length, ir.Constant(I64, 1))
    half = b.sub(half, b.and_(half, ir.Constant(I64, LANES - 1)))
    below = b.add(top, ir.Constant(I64, 1))
    for k, right, left in ((STARTS, b.add(start, half), start),
                           (LENGTHS, b.sub(length, half), half),
                           (COMBINES, b.add(combines, ir.Constant(I64, 1)), ir.Constant(I64, 0))):
        b.store(right, at(k, top))
        b.store(left, at(k, below))
    b.store(b.add(top, ir.Constant(I64, 2)), at(SP))
    b.branch(head)
    b.position_at_end(found)
    b.store(top, at(SP))
    b.store(combines, at(PENDING))
    b.store(start, _slot(b, leaf, ir.Constant(I64, 0), I64))
    b.store(length, _slot(b, leaf, ir.Constant(I64, 1), I64))
    b.ret(ir.Constant(ir.IntType(1), 1))
    b.position_at_end(done)
    b.ret(ir.Constant(ir.IntType(1), 0))
    return fn


def _combiner(module: ir.Module, elem: ir.Type) -> ir.Function:
    """`void __adlite_pairwise_push_<type>(state, sums, value)`: `value` added to the pending
    left sums (`left + value`, the last one first), then pushed on `sums`."""
    name = f"__adlite_pairwise_push_{elem}"
    if name in module.globals:
        return module.globals[name]
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [PTR, PTR, elem]), name)
    fn.linkage = "internal"
    state, sums, value = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    builder = SimpleNamespace(fn=fn, b=b)
    vp_slot = _slot(b, state, ir.Constant(I64, VP), I64)
    pending = b.load(_slot(b, state, ir.Constant(I64, PENDING), I64), typ=I64)
    vp = b.load(vp_slot, typ=I64)
    vp, value = counted(builder, ir.Constant(I64, 0), pending, 1, [vp, value], lambda _, c: [
        b.sub(c[0], ir.Constant(I64, 1)),
        b.fadd(b.load(_slot(b, sums, b.sub(c[0], ir.Constant(I64, 1)), elem), typ=elem), c[1])])
    b.store(value, _slot(b, sums, vp, elem))
    b.store(b.add(vp, ir.Constant(I64, 1)), vp_slot)
    b.ret_void()
    return fn
