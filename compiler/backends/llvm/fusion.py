"""Elementwise fusion planning: which array results of a graph level are never materialised.

Contract: `plan_fusion(graph)` returns the ids of the results of `graph`'s own equations
(not those of nested graphs) that the LLVM lowering does not compute into buffers: their
consumers' loop nests compute them per element (`elements.element`), with numpy broadcasting
applied to every node of the fused tree, and the environment holds a `Lazy` for them. So
`np.sum(100 * (x[1:] - x[:-1]**2)**2 + ...)` is one loop with no temporaries. A `fusible`
equation (an elementwise primitive, a view `broadcast_to`, `full`, `arange` or
constant-slice `index` (`static_view`), a gather `take` (its index checked per element of
the consumer's loop: `tanh(W[idx]) * v` reads the rows of W in place), or a scatter with
constant slices into an array, the adjoint of a slice) with one array result is fused when
all its uses are by fusible equations or reductions of the same graph level, except as the
array a `take` gathers from (read once per index, repeats included: it is computed once into
a buffer); an `index_update` may also fill its buffer with a fused `full`: one use, or up to
MAX_SHARED_USES for cheap ones (`_cheap`). A fused node reaches at most MAX_SHARED_USES
consumer loops (each computes it once, memoised per position), and fused trees are at most
MAX_FUSED_DEPTH deep (a node deeper is materialised), so the code stays linear in the
program's size; a constant-slice view of a variable is one load per element and is fused
into any number of consumers. A transpose of a float matrix used only by matrix products or
as the matrix of `solve` (`product_operand`: `x.T @ g` in the gradient of `x @ w`,
`solve(A.T, g)` in that of `solve(A, b)`) is never materialised either: the BLAS or LAPACK
call reads its source with the trans flag. Planning reads the graph only: it emits no code.
"""

from __future__ import annotations

from ...ir.core import Var
from ...ir.index import has_runtime_index
from ...ir.primitive import PRIMITIVES

VIEWS = {"broadcast_to", "full", "arange"}


def _cheap(eqn) -> bool:
    """Cheap to compute again for each of a few users: the table's `cost`, and the views that
    only repeat a value (broadcast_to, full)."""
    return PRIMITIVES[eqn.prim].cost != 0 or eqn.prim in ("broadcast_to", "full")
MAX_SHARED_USES = 3
MAX_FUSED_DEPTH = 32


class Lazy:
    """A fused array: computed per element by its consumer."""

    def __init__(self, eqn) -> None:
        self.eqn = eqn


def fusible(eqn) -> bool:
    """An elementwise primitive, a view, a gather or a scatter with constant slices (see the
    module doc), with one array result."""
    return (PRIMITIVES[eqn.prim].elementwise or eqn.prim in VIEWS or static_view(eqn) or
            eqn.prim == "take" or _static_scatter(eqn)) and len(eqn.outputs) == 1 and \
        eqn.outputs[0].type.is_array


def static_view(eqn) -> bool:
    """`x[a:b, ::c, None]`: an index with constant slices only reads its source in place."""
    return eqn.prim == "index" and not has_runtime_index(eqn.params["spec"])


def _static_scatter(eqn) -> bool:
    """`index_update(full(c), v, [constant slices])`: c outside the region, c (+) v inside, so
    each element is known without a buffer (the adjoint of a slice)."""
    return eqn.prim == "index_update" and len(eqn.inputs) == 2 and \
        not has_runtime_index(eqn.params["spec"])


def _per_element_use(user, eqn) -> bool:
    """`user` computes `eqn`'s result per element of its own loop: a fusible equation other
    than a gather from it (whose elements are read once per index, repeats included, so an
    array gathered from is computed once into a buffer), a reduction, or an update filling
    its buffer (`_fills_base`)."""
    if user is None:
        return False
    if user.prim == "take" and user.inputs[0] is eqn.outputs[0]:
        return False
    return fusible(user) or PRIMITIVES[user.prim].reduction or _fills_base(user, eqn)


def _fills_base(user, eqn) -> bool:
    """`index_update(full(c), ...)`: the update fills its new buffer with c directly."""
    return user.prim == "index_update" and eqn.prim == "full" and \
        user.inputs[0] is eqn.outputs[0]


def _load_view(eqn) -> bool:
    """A constant-slice view of a variable: one load per element when the variable is a
    buffer, so it is fused into any number of consumers rather than copied (the variable,
    reaching all of them through it, is then fused only if that stays within the bound)."""
    return static_view(eqn) and isinstance(eqn.inputs[0], Var)


def product_operand(eqn, uses: dict) -> bool:
    """`x.T` of a float matrix whose every use is an operand of a matrix product, or the
    matrix of `solve`: BLAS and LAPACK read `x` transposed (their trans flags), so the
    transpose is never copied."""
    if eqn.prim != "transpose" or eqn.params["axes"] != (1, 0) or \
            not eqn.outputs[0].type.is_float:
        return False
    t = eqn.outputs[0]
    users = uses.get(id(t), [])
    return bool(users) and all(
        u is not None and (u.prim == "matmul" or u.prim == "solve" and u.inputs[0] is t and
                           u.inputs[1] is not t) for u in users)


def plan_fusion(graph) -> set[int]:
    """Ids of the fusible results computed per element by their consumers (see the module
    doc). A fused node is computed once in the loop of each materialised consumer it
    reaches through fused nodes (memoised within one loop): it is fused only when those
    loops are at most MAX_SHARED_USES, so recomputation never multiplies along a chain of
    shared nodes, and no fused tree is deeper than MAX_FUSED_DEPTH (a node deeper is
    materialised)."""
    uses: dict[int, list] = {}  # var -> the equations using it, each once (`mul t t` too:
    for eqn in graph.eqns:      # its loop computes t once per position)
        for a in eqn.inputs:
            users = uses.setdefault(id(a), []) if isinstance(a, Var) else None
            if users is not None and (not users or users[-1] is not eqn):
                users.append(eqn)
    for a in graph.outputs:
        if isinstance(a, Var):
            uses.setdefault(id(a), []).append(None)
    loops: dict[int, frozenset] = {}  # fused node -> its materialised consumers
    for eqn in reversed(graph.eqns):
        if product_operand(eqn, uses):
            loops[id(eqn.outputs[0])] = frozenset(id(u) for u in uses[id(eqn.outputs[0])])
            continue
        if not fusible(eqn):
            continue
        users = uses.get(id(eqn.outputs[0]), [])
        per_element = all(_per_element_use(u, eqn) for u in users)
        shared_ok = len(users) == 1 or _load_view(eqn) or \
            (_cheap(eqn) and len(users) <= MAX_SHARED_USES)
        if not (users and per_element and shared_ok):
            continue
        reached = frozenset().union(*(loops.get(id(u.outputs[0]), {id(u)}) if u.outputs
                                      else {id(u)} for u in users))
        if len(reached) <= MAX_SHARED_USES or _load_view(eqn):
            loops[id(eqn.outputs[0])] = reached
    depth: dict[int, int] = {}  # fused node -> levels of fused nodes below it, itself too
    for eqn in graph.eqns:
        out = id(eqn.outputs[0]) if eqn.outputs else None
        if out in loops:
            depth[out] = 1 + max((depth.get(id(a), 0) for a in eqn.inputs), default=0)
            if depth[out] > MAX_FUSED_DEPTH:
                del loops[out], depth[out]
    return set(loops)
