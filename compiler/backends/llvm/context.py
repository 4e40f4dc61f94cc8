"""The lowering context: what every LLVM lowering rule receives as `cx`, and the one dispatch.

Contract: one `LoweringContext` lowers one graph into one LLVM function (`lower.py` makes it
and emits the function's prologue and epilogue). A rule (`registry.py`) reads and updates the
members documented on the class: the builder `b` and the function `fn` being filled (the
parallel outliner, `parallel.py`, points them at a block function for a while), declarations
(`declare`, `intrinsic`, `libm`), the error exit (`check`, `leave`),
the values of atoms (`value`), the AD tapes and allocation lists (`tapes`, kept by
`tapes.py`), the lowering of nested graphs (`graph_body`) and the state of the array code
(`arrays.py`, `elements.py`). `lower_eqn` is the one dispatch: an equation that is not fused
is lowered by its primitive's `llvm` rule in the primitive table, `rule(cx, eqn, env)`.
"""

from __future__ import annotations

from llvmlite import ir

from ...ir import dtypes
from ...ir.core import Const, Graph
from ...ir.dims import MIN_SIZE, DimLike, is_symbolic
from ...ir.primitive import PRIMITIVES
from .declarations import function
from .fusion import Lazy, plan_fusion
from .inplace import dying_updates
from .ops import F64, I1, I64

I32 = ir.IntType(32)
PTR = ir.PointerType()
F32 = ir.FloatType()
REGISTER = {dtypes.F64: F64, dtypes.F32: F32, dtypes.I64: I64, dtypes.BOOL: I1}


def extent(cx: LoweringContext, n: DimLike) -> ir.Value:
    """The i64 value of a size: a constant, or a run-time size (`ir.dims`) computed from the
    function's size arguments (`cx.sizes`)."""
    if not is_symbolic(n):
        return ir.Constant(I64, n)
    total = None
    for monomial, coefficient in n.terms.items():
        term = ir.Constant(I64, coefficient)
        for name in monomial:
            term = cx.b.mul(term, cx.sizes[name])
        total = term if total is None else cx.b.add(total, term)
    return total


def size_admissible(b: ir.IRBuilder, size: ir.Value, bound) -> ir.Value:
    """Whether the i64 `size` may be the value of one more size symbol (`ir.dims`): at least
    MIN_SIZE, and different from the values `bound` of the other symbols (different symbols
    are different sizes: the signatures of `arguments.dynamic_trees`)."""
    ok = b.icmp_signed(">=", size, ir.Constant(I64, MIN_SIZE))
    for other in bound:
        ok = b.and_(ok, b.icmp_signed("!=", size, other))
    return ok


def register_type(t) -> ir.Type:
    """The LLVM type of a value of IR type `t` in a register: arrays are pointers."""
    return PTR if t.is_array else REGISTER[t.dtype]


class LoweringContext:
    """The context of the rules lowering one graph into the LLVM function `fn`.

    Members:
    - `module`, `graph`: the LLVM module being built and the graph lowered (the function's).
    - `fn`, `b`, `entry`, `status`, `fail_block`: the function being filled, the builder at
      the current position, a builder of its entry block (allocas only), the i32 slot of the
      status the error exit returns, and the error exit block (it frees the tapes).
    - `scratch`, `scratch_size`: the caller's scratch buffer argument (None without arrays)
      and the bytes planned in it so far (`arrays.alloc`).
    - `uses_arrays`: whether the graph (nested graphs included) has array values.
    - `loop_depth`: how many `while` loops enclose the current position (0: buffers are
      scratch slices, else malloc'ed and recorded).
    - `tapes`: kind -> (data, size, capacity) slots of a growable stack in the frame
      (`tapes.py`: the AD tapes "f64.<n>" / "i64.<n>", the lists "allocs" and "stored").
    - `in_place`: ids of the `index_update` equations that write their buffer in place.
    - `factors`: (id of an environment, id of a matrix) -> (the environment, the LU factors
      and pivots LAPACK computed for the matrix at that graph level: `linalg._solve`).
    - `sizes`: symbol name -> the i64 argument holding that run-time size (`ir.dims`; code
      compiled with `shapes="dynamic"`), read by `arrays.extent`.
    - `memo`, `ranges`, `out_buffers`: the element values of fused nodes in the current loop
      body, the known ranges of loop coordinates (`arrays.loop_nest`), and id(var) -> the
      caller's output buffer a result is computed into.
    """

    def __init__(self, module: ir.Module, graph: Graph, fn: ir.Function,
                 scratch: ir.Argument | None) -> None:
        self.module = module
        self.graph = graph
        self.fn = fn
        self.entry = ir.IRBuilder(fn.append_basic_block("entry"))
        self.b = ir.IRBuilder(fn.append_basic_block("start"))
        self.status = self.entry.alloca(I32, name="status")
        self.fail_block = fn.append_basic_block("fail")
        self.scratch = scratch
        self.scratch_size = 0
        self.uses_arrays = scratch is not None
        self.loop_depth = 0
        self.tapes: dict[str, list] = {}
        self.in_place: set[int] = set()
        self.sizes: dict[str, ir.Value] = {}
        self.factors: dict[tuple[int, int], tuple] = {}
        self.memo: dict = {}
        self.ranges: dict = {}
        self.out_buffers: dict = {}
        self.buffer_cache: ir.Value | None = None  # buffer_cache.py: this call's descriptor
        self.buffer_cache_global: ir.GlobalVariable | None = None

    # ---- declarations -------------------------------------------------------------------------

    def declare(self, name: str, fn_type: ir.FunctionType) -> ir.Function:
        """Function `name` of the module, declared with `fn_type` on first use."""
        return function(self.module, name, fn_type.return_type, list(fn_type.args))

    def intrinsic(self, base: str, typ: ir.Type = F64) -> ir.Function:
        """`llvm.<op>.f64` or `.f32`, declared for `typ`."""
        n_args = 2 if base in ("llvm.pow", "llvm.copysign") else 1
        suffix = "f32" if isinstance(typ, ir.FloatType) else "f64"
        return self.declare(f"{base}.{suffix}", ir.FunctionType(typ, [typ] * n_args))

    def libm(self, name: str, n_args: int, typ: ir.Type = F64) -> ir.Function:
        """libm's `name` for double, `namef` for float."""
        if isinstance(typ, ir.FloatType):
            name += "f"
        return self.declare(name, ir.FunctionType(typ, [typ] * n_args))

    # ---- the error exit -----------------------------------------------------------------------

    def check(self, ok: ir.Value, status: int | ir.Value) -> None:
        """Continue when `ok`, else leave through the error exit with `status` (a code, or an
        i32 value computed before the check)."""
        cont = self.fn.append_basic_block("ok")
        bad = self.fn.append_basic_block("error")
        self.b.cbranch(ok, cont, bad)
        self.b.position_at_end(bad)
        self.leave(status)
        self.b.position_at_end(cont)

    def leave(self, status: int | ir.Value) -> None:
        """Leave through the error exit with `status` (a code, or an i32 value) from here."""
        self.b.store(ir.Constant(I32, status) if isinstance(status, int) else status,
                     self.status)
        self.b.branch(self.fail_block)

    # ---- values and graphs --------------------------------------------------------------------

    def value(self, env: dict, atom) -> ir.Value:
        """The value of `atom` (a constant, or a variable of `env`, id(var) -> value)."""
        if isinstance(atom, Const):
            if is_symbolic(atom.value):  # a run-time size
                size = extent(self, atom.value)
                return size if atom.type.dtype == dtypes.I64 else self.b.sitofp(size, F64)
            return ir.Constant(REGISTER[atom.type.dtype], atom.value)
        return env[id(atom)]

    def graph_body(self, graph: Graph, args: list) -> list:
        """Lower the equations of `graph` (the function's, or a nested one: a loop's body, a
        branch) at the current position with inputs `args`; returns its output values."""
        env = {id(v): a for v, a in zip(graph.inputs, args, strict=True)}
        lazy = plan_fusion(graph)
        self.in_place |= dying_updates(graph)
        for eqn in graph.eqns:
            if eqn.outputs and id(eqn.outputs[0]) in lazy:
                env[id(eqn.outputs[0])] = Lazy(eqn)
                continue
            outs = self.lower_eqn(eqn, env)
            env.update((id(v), o) for v, o in zip(eqn.outputs, outs, strict=True))
        return [self.value(env, a) for a in graph.outputs]

    def lower_eqn(self, eqn, env: dict) -> list:
        """The output values of a non-fused equation, by its primitive's `llvm` rule."""
        rule = PRIMITIVES[eqn.prim].llvm
        if rule is None:
            raise NotImplementedError(f"LLVM lowering of {eqn.prim}")
        return rule(self, eqn, env)
