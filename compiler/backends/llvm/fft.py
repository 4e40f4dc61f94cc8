"""The LLVM lowering of the FFT primitives (`primitives/fft.py`): numpy's pocketfft, called
through the inner loops of the gufuncs `np.fft` calls, so compiled code gives numpy's bits.

Contract: `fft`, `rfft` and `irfft` copy their operand into a buffer laid out as the gufunc
loop reads it (the transform axis last; complex numbers interleaved), call the loop once for
every line (numpy's calling convention: `loop(args, dimensions, steps, data)`, dimensions
(lines, n in, n out), steps (line strides, 0 for the scale `fct`, element strides)), and
copy the result back to the packed layout. The data pointer of the complex loop is a bool
of the call's own (true: forward, as pocketfft's `FORWARD`); the real loops ignore theirs;
rfft's loop is chosen by the parity of n (`rfft_n_even` / `rfft_n_odd`), at run time for a
run-time size. A transform with `double` runs the double-precision loop on float32 data
(numpy's resolution of its gufuncs), the result rounded to float32. The IR holds symbol
names, never addresses: `bind(object_code)` (called with
`scipy_capi.bind` before an object is linked, disk-cache objects included) gives each
symbol the address of numpy's loop in this process, read from the gufunc objects
(`PyUFuncObject.functions`, numpy's C API struct: checked against the gufunc's name, nin,
nout and ntypes before use). The loops run without the GIL; pocketfft caches its plans
under its own lock. On an allocation failure inside pocketfft the loop sets a Python
MemoryError (taking the GIL) that compiled code does not see: the result is then garbage,
as it would be in numpy's loop until numpy checks. Ahead-of-time kernels cannot link numpy's
extension: `aot` refuses the symbols starting with SYMBOL_PREFIX.
"""

from __future__ import annotations

import ctypes
import functools

from llvmlite import binding as llvm
from llvmlite import ir

from ...ir.dims import is_symbolic
from .array_rules import operand_buffer
from .arrays import alloc, element_type, load, loop_nest, n_elements, offset, store
from .context import LoweringContext, extent
from .ops import F64, I64
from .registry import lowers

SYMBOL_PREFIX = "__adlite_pocketfft_"
PTR, I8 = ir.PointerType(), ir.IntType(8)
LOOP = ir.FunctionType(ir.VoidType(), [PTR, PTR, PTR, PTR])
# symbol kind -> (the gufunc's name in numpy.fft._pocketfft_umath); the loops are numpy's
# types order: 0 double, 1 float
GUFUNCS = {"c2c": "fft", "r2c_even": "rfft_n_even", "r2c_odd": "rfft_n_odd", "c2r": "irfft"}


def _symbol(kind: str, elem: ir.Type) -> str:
    return f"{SYMBOL_PREFIX}{kind}_{'f32' if isinstance(elem, ir.FloatType) else 'f64'}"


def _loop_address(name: str, index: int) -> int:
    """The address of inner loop `index` of gufunc `name`, read from its PyUFuncObject
    (numpy's C API: PyObject_HEAD; int nin, nout, nargs, identity; functions; data; int
    ntypes, reserved1; const char *name), checked before it is trusted."""
    from numpy.fft import _pocketfft_umath as pocketfft

    ufunc = getattr(pocketfft, name)
    base = id(ufunc) + object.__basicsize__
    ints = (ctypes.c_int * 4).from_address(base)
    ntypes = ctypes.c_int.from_address(base + 32).value
    named = ctypes.c_char_p.from_address(base + 40).value
    if (ints[0], ints[1], ntypes, named) != (ufunc.nin, ufunc.nout, ufunc.ntypes,
                                             name.encode()):
        raise TypeError(f"np.fft: numpy's gufunc {name!r} has a layout adlite does not know "
                        f"(numpy {__import__('numpy').__version__}); use the Python backend")
    functions = ctypes.c_void_p.from_address(base + 16).value
    return ctypes.c_void_p.from_address(functions + ctypes.sizeof(ctypes.c_void_p) *
                                        index).value


@functools.cache
def _bound(symbol: str) -> bool:
    """Binds `symbol` once per process."""
    kind, precision = symbol[len(SYMBOL_PREFIX):].rsplit("_", 1)
    llvm.add_symbol(symbol, _loop_address(GUFUNCS[kind], 1 if precision == "f32" else 0))
    return True


def bind(object_code: bytes) -> None:
    """Make the pocketfft symbols `object_code` refers to resolvable."""
    if SYMBOL_PREFIX.encode() not in object_code:
        return
    for kind in GUFUNCS:
        for precision in ("f64", "f32"):
            symbol = f"{SYMBOL_PREFIX}{kind}_{precision}"
            if symbol.encode() in object_code:
                _bound(symbol)


def _loop(cx: LoweringContext, kind: str, elem: ir.Type) -> ir.Function:
    _loop_address(GUFUNCS[kind], 0)  # refuse an unknown numpy when compiling, not later
    return cx.declare(_symbol(kind, elem), LOOP)


def _array(cx: LoweringContext, typ: ir.Type, values: list) -> ir.Value:
    """A stack array of `values` (i64 or pointers), in the function's entry block."""
    slot = cx.entry.alloca(typ, size=len(values))
    for k, v in enumerate(values):
        cx.b.store(v, cx.b.gep(slot, [ir.Constant(I64, k)], source_etype=typ))
    return slot


def _call(cx: LoweringContext, fn, source, target, lines, n_in, n_out, steps, elem, scale,
          data) -> None:
    """`fn(args, dimensions, steps, data)` over `lines` lines (byte strides `steps`)."""
    fct = cx.entry.alloca(elem)
    cx.b.store(ir.Constant(elem, scale), fct)
    args = _array(cx, PTR, [source, fct, target])
    dims = _array(cx, I64, [extent(cx, lines), extent(cx, n_in), extent(cx, n_out)])
    strides = _array(cx, I64, [extent(cx, s) for s in steps])
    cx.b.call(fn, [args, dims, strides, data])


def _lines(shape, axis: int):
    """The number of lines along `axis` (the other dimensions' product)."""
    return n_elements(shape[:axis]) * n_elements(shape[axis + 1:])


def _to_lines(cx, source, t, packed: bool, axis: int, target, elem) -> None:
    """Copy array `source` of type `t` (packed: (2,) + shape, its parts interleaved into
    complex numbers) into `target` of `elem`s, laid out lines of the axis last."""
    shape = t.shape[1:] if packed else t.shape

    def body(co):
        value = _converted(cx, load(cx, source, t, offset(cx, t.shape, co)), elem)
        position = offset(cx, *_line_position(shape, co, packed, axis))
        cx.b.store(value, cx.b.gep(target, [position], inbounds=True, source_etype=elem))

    loop_nest(cx, t.shape, body)


def _from_lines(cx, source, elem, t, packed: bool, axis: int, target) -> None:
    """The inverse copy of `_to_lines`, from `source` of `elem`s into the array `target` of
    type `t`."""
    shape = t.shape[1:] if packed else t.shape

    def body(co):
        position = offset(cx, *_line_position(shape, co, packed, axis))
        value = cx.b.load(cx.b.gep(source, [position], inbounds=True, source_etype=elem),
                          typ=elem)
        store(cx, target, t, offset(cx, t.shape, co), _converted(cx, value, element_type(t)))

    loop_nest(cx, t.shape, body)


def _converted(cx, value, elem):
    """`value` as a float of type `elem` (float32 widened exactly, doubles rounded)."""
    if value.type == elem:
        return value
    return cx.b.fpext(value, elem) if elem == F64 else cx.b.fptrunc(value, elem)


def _precision(t, eqn):
    """The element type the loop computes in (`double`: see primitives/fft.py)."""
    return F64 if eqn.params["double"] else element_type(t)


def _line_position(shape, co: list, packed: bool, axis: int) -> tuple:
    """(shape, coordinates) of the element at `co` in the lines layout: the other
    dimensions, then the axis, then (packed) the part."""
    cs = co[1:] if packed else co
    lines_shape = shape[:axis] + shape[axis + 1:] + (shape[axis],) + ((2,) if packed else ())
    coords = cs[:axis] + cs[axis + 1:] + [cs[axis]] + ([co[0]] if packed else [])
    return lines_shape, coords


@lowers("fft")
def lower_fft(cx, eqn, env):
    n = eqn.inputs[0].type.shape[1 + eqn.params["axis"]]
    forward = cx.entry.alloca(I8)
    cx.b.store(ir.Constant(I8, 0 if eqn.params["inverse"] else 1), forward)
    return _transformed(cx, eqn, env, lambda elem: _loop(cx, "c2c", elem), n, n, True, True,
                        forward)


@lowers("rfft")
def lower_rfft(cx, eqn, env):
    n = eqn.inputs[0].type.shape[eqn.params["axis"]]

    def loop(elem):
        even, odd = _loop(cx, "r2c_even", elem), _loop(cx, "r2c_odd", elem)
        if not is_symbolic(n):
            return even if n % 2 == 0 else odd
        parity = cx.b.and_(extent(cx, n), ir.Constant(I64, 1))
        return cx.b.select(cx.b.icmp_signed("==", parity, ir.Constant(I64, 0)), even, odd)

    m = eqn.outputs[0].type.shape[eqn.params["axis"] + 1]  # n // 2 + 1
    return _transformed(cx, eqn, env, loop, n, m, False, True, ir.Constant(PTR, None))


@lowers("irfft")
def lower_irfft(cx, eqn, env):
    n = eqn.params["n"]
    return _transformed(cx, eqn, env, lambda elem: _loop(cx, "c2r", elem), n // 2 + 1, n,
                        True, False, ir.Constant(PTR, None))


def _transformed(cx, eqn, env, loop, n_in, n_out, complex_in: bool, complex_out: bool,
                 data) -> list:
    """The transform of `eqn`'s operand: copied into lines (`_to_lines`), `loop(elem)` called
    over them (lengths `n_in` -> `n_out`, complex or real elements each side), copied back."""
    (x,), (out,) = eqn.inputs, eqn.outputs
    axis, elem = eqn.params["axis"], _precision(x.type, eqn)
    step_in, step_out = (_bytes(elem) * (2 if c else 1) for c in (complex_in, complex_out))
    source = alloc(cx, (n_elements(x.type.shape),), elem)
    target = alloc(cx, (n_elements(out.type.shape),), elem)
    _to_lines(cx, operand_buffer(cx, env, x), x.type, complex_in, axis, source, elem)
    _call(cx, loop(elem), source, target,
          _lines(x.type.shape[1:] if complex_in else x.type.shape, axis), n_in, n_out,
          [n_in * step_in, 0, n_out * step_out, step_in, step_out], elem,
          eqn.params["scale"], data)
    result = alloc(cx, out.type.shape, element_type(x.type))
    _from_lines(cx, target, elem, out.type, complex_out, axis, result)
    return [result]


def _bytes(elem) -> int:
    return 8 if elem == F64 else 4
