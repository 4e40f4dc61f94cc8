"""Ahead-of-time compilation: a shared library, a C header and a ctypes loader.

Contract: `compile_aot(fn, out_dir, types, grad_wrt=None, portable=False)` writes

    lib<name>.so     the native code (position independent; needs only libm and libc, and
                     numpy's OpenBLAS, by its absolute path, for a kernel with matrix products)
    <name>.h         the C prototype: int32_t adlite_<name>(inputs..., outputs...)
    <name>_loader.py a loader using only ctypes (no llvmlite, no adlite; numpy for arrays)
                     defining <name>()

where <name> is the function's name (`<name>_grad` for a gradient), and returns the paths.
The exported symbol carries the `adlite_` prefix so that a kernel named like a C library
function (`exp`, `free`) neither calls itself nor replaces the C library's in the program
that links it. Arguments: a scalar input by value, a scalar output by pointer; an array,
input or output, as a pointer to its elements (row-major, contiguous; the caller allocates
the outputs) followed by its length `int64_t <name>_len`: the number of elements of the
shape it was compiled for (`types`, e.g. `f64[3,4]`; the header states each shape). A shape
may name run-time sizes (`f64[n,3]`, `ir.dims` symbols): the kernel then takes each size
first, as `int64_t n` (in the order of `dims.symbols_of`), at least MIN_SIZE and different
from the other sizes (else SIZE_ARGUMENT), and checks the lengths against the shapes they
give. A NULL array or a length other than that returns ARRAY_LENGTH before anything runs,
a NULL scalar output or an output array overlapping another array argument
OUTPUT_ARGUMENT; the kernel's
scratch memory is allocated (malloc) and freed by each call, so calls from several threads
are safe. Float64 arrays are `double`, float32 `float`, int64 `int64_t` and bool `uint8_t`
elements. Complex types (`c128[3]`, `c64`) are C's `double _Complex` / `float _Complex`
(C99; not C++): numbers by value, outputs by pointer, arrays interleaved (copied into the
kernel's real and imaginary arrays, and back for outputs on success); the gradient w.r.t.
a complex argument is JAX's, `dL/dx - i dL/dy` (as `grad`'s).
Module-level and closed-over floats the function reads (see `frontend/externals.py`) are
baked in with their values at build time (the header lists them: a C caller has no Python
globals); a kernel reading an array from outside its arguments is refused (`AotError`).
The status codes are those of the JIT (`status.py`, listed in the header; the
loader raises the matching Python exception); outputs are written only on success (array
outputs may be partly written when the status is not 0). `portable=True` targets the
baseline x86-64 CPU instead of the host's. The checks the compiler adds for out-of-bounds
indices and zero divisors, and math's domain and range errors, return their statuses
(INDEX, ZERO_DIVISION, MATH_DOMAIN, MATH_RANGE). Kernels cannot print
or raise (`print`, `assert` and `raise` call back into Python), write into their argument
arrays (C has no Python arrays to write back), call LAPACK (its failures are numpy's
exceptions) or call scipy.special's C functions (`iv`, `gammainc`, `erf` of complex numbers,
...: they live in scipy's Python extension, `backends/llvm/scipy_capi.py`): those are refused
(`AotError`).
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

from llvmlite import ir

from . import status
from .api import Transformed
from .arguments import part_kinds, returns_selection, type_tree
from .backends.llvm import ABI, blas_for, c_identifier, compile_object, function
from .backends.llvm.context import extent, size_admissible
from .backends.llvm.fft import SYMBOL_PREFIX as FFT_PREFIX
from .backends.llvm.scipy_capi import SYMBOL_PREFIX as SCIPY_PREFIX
from .frontend.to_ir import Layout
from .ir import dtypes
from .ir.builder import Builder
from .ir.core import Const, Graph, Type, Var, walk_eqns
from .ir.dims import MIN_SIZE, is_symbolic, symbol_name, symbols_of
from .ir.transform import clone, externals_last, inline
from .passes.custom_calls import expand
from .primitives.effects import EFFECTS

C_TYPES = {dtypes.F64: "double", dtypes.F32: "float", dtypes.I64: "int64_t",
           dtypes.BOOL: "int64_t", dtypes.C128: "double _Complex", dtypes.C64: "float _Complex"}
C_ELEMENTS = {**C_TYPES, dtypes.BOOL: "uint8_t"}  # array elements (numpy's bool: one byte)
CTYPES = {dtypes.F64: "ctypes.c_double", dtypes.F32: "ctypes.c_float",
          dtypes.I64: "ctypes.c_int64", dtypes.BOOL: "ctypes.c_int64"}
I32, I64, PTR = ir.IntType(32), ir.IntType(64), ir.PointerType()
BLAS = {"scipy_cblas_dgemm64_", "scipy_cblas_sgemm64_"}  # numpy's OpenBLAS: matrix products


class AotError(RuntimeError):
    """The shared library could not be built: what a kernel without Python cannot do.

    Raised by `compile_aot` for a kernel that prints, asserts or raises, writes into its
    argument arrays, reads an array from outside its arguments or calls LAPACK, and when no
    C compiler is found or linking fails.

    Examples:
        >>> import tempfile
        >>> from adlite.compiler.aot import AotError, compile_aot
        >>> from adlite.compiler.ir.core import Type
        >>> def checked(x):
        ...     assert x > 0.0
        ...     return x
        >>> try:
        ...     compile_aot(checked, tempfile.mkdtemp(), [Type("f64")])
        ... except AotError as error:
        ...     print(str(error)[:43])
        ahead-of-time kernels cannot print, assert
    """


def _names(graph: Graph) -> tuple[list[str], list[str]]:
    ins = [v.hint or f"arg{i}" for i, v in enumerate(graph.inputs)]
    outs = []
    for i, a in enumerate(graph.outputs):
        hint = getattr(a, "hint", "")
        outs.append(hint if hint and hint not in ins and hint not in outs else f"out{i}")
    return ins, outs


def exported_symbol(name: str) -> str:
    """The C symbol of kernel `name` in its library and header."""
    return f"adlite_{c_identifier(name)}"


def _kernel_statuses() -> dict[int, tuple[type, str]]:
    """The statuses an ahead-of-time kernel can return (it is never interrupted)."""
    return {code: e for code, e in status.ERRORS.items() if code != status.INTERRUPTED}


def _status_lines() -> str:
    return "".join(f"   {code}: {error.__name__}: {message}\n"
                   for code, (error, message) in _kernel_statuses().items())


def _loader_errors() -> str:
    return "{" + ", ".join(f"{code}: ({error.__name__}, {message!r})"
                           for code, (error, message) in _kernel_statuses().items()) + "}"


Parts = tuple[tuple, tuple]  # `arguments.part_kinds` of the graph's inputs and outputs


def _parameters(graph: Graph, parts: Parts = ((), ())) -> list[tuple[str, Type, bool]]:
    """(name, type, is output) of the kernel's C arguments, in order: one per graph input
    and output, but one complex argument for the real and imaginary parts of a complex
    value (`parts`: which graph inputs and outputs are those parts)."""
    ins, outs = _names(graph)
    params = []
    for atoms, names, kinds, is_output in ((graph.inputs, ins, parts[0], False),
                                           (graph.outputs, outs, parts[1], True)):
        kinds = list(kinds) or [None] * len(atoms)
        for a, n, kind in zip(atoms, names, kinds, strict=True):
            if kind == "re":
                params.append((n, Type(a.type.dtype.complex_dtype, a.type.shape), is_output))
            elif kind is None:
                params.append((n, a.type, is_output))
    return params


def _length_name(name: str, taken: set[str]) -> str:
    length = f"{name}_len"
    while length in taken:
        length += "_"
    return length


def _sizes(graph: Graph, parts: Parts = ((), ())) -> list[str]:
    """The run-time sizes of the kernel's input shapes (`ir.dims`), its first parameters; a
    size named like a parameter is refused."""
    names = symbols_of(v.type.shape for v in graph.inputs)
    clash = set(names) & {n for n, _, _ in _parameters(graph, parts)}
    if clash:
        raise AotError(f"the size {sorted(clash)[0]!r} is named like a parameter: name "
                       "run-time sizes in --types otherwise (f64[n,3] with n no parameter)")
    return names


def _c_parameters(graph: Graph, parts: Parts) -> list[str]:
    params = _parameters(graph, parts)
    taken = {n for n, _, _ in params}
    out = [f"int64_t {size}" for size in _sizes(graph, parts)]
    for n, t, is_output in params:
        if t.is_array:
            const = "" if is_output else "const "
            out += [f"{const}{C_ELEMENTS[t.dtype]} *{n}", f"int64_t {_length_name(n, taken)}"]
        else:
            out.append(f"{C_TYPES[t.dtype]} {'*' if is_output else ''}{n}")
    return out


def _shape_lines(graph: Graph, parts: Parts) -> str:
    arrays = [(n, t, o) for n, t, o in _parameters(graph, parts) if t.is_array]
    if not arrays:
        return ""
    lines = "".join(f"   {n}: {'output' if o else 'input'}, {C_ELEMENTS[t.dtype]}"
                    f"[{']['.join(map(str, t.shape))}] row-major, {math.prod(t.shape)} "
                    "elements\n" for n, t, o in arrays)
    sizes = _sizes(graph, parts)
    note = (f"   Sizes ({', '.join(sizes)}): each at least {MIN_SIZE}, all different (else "
            f"status {status.SIZE_ARGUMENT}).\n") if sizes else ""
    return f"/* Arrays (pointer, then its length in elements):\n{lines}{note}   */\n"


def header_text(graph: Graph, name: str, what: str, parts: Parts = ((), ())) -> str:
    params = _c_parameters(graph, parts)
    guard = f"ADLITE_{c_identifier(name).upper()}_H"
    return (f"/* Generated by adlite: {what}. */\n"
            f"#ifndef {guard}\n#define {guard}\n\n#include <stdint.h>\n\n"
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
            f"{_shape_lines(graph, parts)}"
            f"/* Returns 0 on success, else a status; outputs are written only on success\n"
            "   (array outputs may be partly written when the status is not 0).\n"
            f"{_status_lines()}   */\n"
            f"int32_t {exported_symbol(name)}({', '.join(params) or 'void'});\n\n"
            "#ifdef __cplusplus\n}\n#endif\n\n"
            f"#endif /* {guard} */\n")


def _loader_argument(n: str, t: Type) -> tuple[str, str, str, list[str]]:
    """(argtypes, the conversion line, the shape check, the values passed) of input `n`
    (the shape check may name run-time sizes, bound between the two: `_size_lines`)."""
    if not t.is_array and t.is_complex:  # its two parts, as the C ABI passes it
        part = CTYPES[t.dtype.real_dtype]
        return f"{part}, {part}", f"    {n} = complex({n})\n", "", [f"{n}.real", f"{n}.imag"]
    if not t.is_array:
        return CTYPES[t.dtype], "", "", [n]
    convert = f"    {n} = np.ascontiguousarray({n}, dtype=np.{t.dtype.numpy.__name__})\n"
    shape = f"({', '.join(map(str, t.shape))}{',' if len(t.shape) == 1 else ''})"
    check = (f"    if {n}.shape != {shape}:\n"
             f"        raise TypeError(f\"expected an array of shape {shape}, got "
             f"{{{n}.shape}}\")\n")
    return "ctypes.c_void_p, ctypes.c_int64", convert, check, [f"{n}.ctypes.data", f"{n}.size"]


def _size_lines(ins: list[tuple[str, Type]], sizes: list[str]) -> str:
    """The loader's lines binding each run-time size to the first dimension that has it."""
    lines = ""
    for size in sizes:
        n, axis = next((n, k) for n, t in ins for k, d in enumerate(t.shape or ())
                       if symbol_name(d) == size)
        lines += f"    {size} = {n}.shape[{axis}] if {n}.ndim > {axis} else -1\n"
    return lines


def loader_text(graph: Graph, name: str, library: str, parts: Parts = ((), ())) -> str:
    params = _parameters(graph, parts)
    ins = [(n, t) for n, t, o in params if not o]
    outs = [(n, t) for n, t, o in params if o]
    sizes = _sizes(graph, parts)
    argtypes, converts, passed = ["ctypes.c_int64"] * len(sizes), "", list(sizes)
    conversions = [_loader_argument(n, t) for n, t in ins]
    converts = "".join(c for _, c, _, _ in conversions) + _size_lines(ins, sizes) + \
        "".join(check for _, _, check, _ in conversions)
    for types, _, _, values in conversions:
        argtypes.append(types)
        passed += values
    made = []
    for k, (_, t) in enumerate(outs):
        if t.is_array:
            argtypes.append("ctypes.c_void_p, ctypes.c_int64")
            made.append(f"np.empty(({', '.join(map(str, t.shape))},), "
                        f"dtype=np.{t.dtype.numpy.__name__})")
            passed += [f"outs[{k}].ctypes.data", f"outs[{k}].size"]
        elif t.is_complex:  # its two parts
            argtypes.append("ctypes.c_void_p")
            made.append(f"({CTYPES[t.dtype.real_dtype]} * 2)()")
            passed.append(f"ctypes.addressof(outs[{k}])")
        else:
            argtypes.append(f"ctypes.POINTER({CTYPES[t.dtype]})")
            made.append(f"{CTYPES[t.dtype]}()")
            passed.append(f"ctypes.byref(outs[{k}])")
    reads = ", ".join(f"outs[{k}]" if t.is_array else f"complex(*outs[{k}])" if t.is_complex
                      else f"outs[{k}].value" for k, (_, t) in enumerate(outs))
    numpy = "\nimport numpy as np\n" if any(t.is_array for _, t, _ in params) else ""
    return f'''"""ctypes loader for {library}, generated by adlite (needs no llvmlite)."""

import ctypes
import os
{numpy}
_lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "{library}"))
_fn = _lib.{exported_symbol(name)}
_fn.restype = ctypes.c_int32
_fn.argtypes = [{", ".join(argtypes)}]
_ERRORS = {_loader_errors()}


def {name}({", ".join(n for n, _ in ins)}):
{converts}    outs = [{", ".join(made)}]
    status = _fn({", ".join(passed)})
    if status:
        error, message = _ERRORS[status]
        raise error(message)
    values = ({reads}{"," if len(outs) == 1 else ""})
    return values if len(values) > 1 else values[0]
'''


def add_entry(module: ir.Module, graph: Graph, kernel: str, exported: str,
              parts: Parts = ((), ())) -> None:
    """Define `exported`, the C entry point of the kernel `kernel` (made internal): it checks
    every array's pointer and length (ARRAY_LENGTH), allocates the scratch buffer of array
    code (NO_MEMORY), calls the kernel and frees the buffer. A complex argument (`parts`)
    is a C `double _Complex` (`float _Complex`): a number by value (the two parts, as the C
    ABIs of x86-64 and AArch64 pass it), a number output by pointer (the parts' two
    pointers), an array as interleaved elements, copied into the kernel's separate real and
    imaginary arrays (inputs) or from them on success (outputs)."""
    kernel_fn = module.get_global(kernel)
    kernel_fn.linkage = "internal"
    scratch_fn = module.globals.get(f"{kernel}_scratch")
    if scratch_fn is not None:
        scratch_fn.linkage = "internal"
    params_c = _parameters(graph, parts)
    names = _sizes(graph, parts)
    params = [I64] * len(names)
    for _, t, is_output in params_c:
        scalar = [ABI[t.dtype.real_dtype]] * 2 if t.is_complex else [ABI[t.dtype]]
        params += [PTR, I64] if t.is_array else [PTR] if is_output else scalar
    fn = ir.Function(module, ir.FunctionType(I32, params), exported)
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    bad = fn.append_basic_block("bad_length")
    bad_output = fn.append_basic_block("bad_output")
    bad_size = fn.append_basic_block("bad_size")
    no_memory = fn.append_basic_block("no_memory")
    args = iter(fn.args)
    sizes = SimpleNamespace(b=b, sizes={n: next(args) for n in names})  # for `extent`
    ok = ir.Constant(ir.IntType(1), True)
    values = list(sizes.sizes.values())
    for k, size in enumerate(values):
        ok = b.and_(ok, size_admissible(b, size, values[:k]))
    checked = fn.append_basic_block("sizes_checked")
    b.cbranch(ok, checked, bad_size)
    b.position_at_end(checked)
    pointers = []  # the C arguments' pointers (scalar inputs: their values), for the checks
    for _, t, is_output in params_c:
        pointer = next(args)
        pointers.append(pointer)
        if t.is_complex and not t.is_array and not is_output:
            next(args)  # the imaginary part
        if t.is_array:
            size = math.prod(t.shape)
            ok = b.icmp_signed("==", next(args), extent(sizes, size))
            if is_symbolic(size) or size:
                ok = b.and_(ok, b.icmp_unsigned("!=", pointer, ir.Constant(PTR, None)))
            checked = fn.append_basic_block("checked")
            b.cbranch(ok, checked, bad)
            b.position_at_end(checked)
    separate = _outputs_separate(sizes, graph, pointers, parts)
    checked = fn.append_basic_block("outputs_checked")
    b.cbranch(separate, checked, bad_output)
    b.position_at_end(checked)
    malloc = function(module, "malloc", PTR, [I64])
    free = function(module, "free", ir.VoidType(), [PTR])
    passed, owned, copies_out = list(sizes.sizes.values()), [], []
    args = iter(fn.args[len(names):])
    for _, t, is_output in params_c:
        if not t.is_complex:
            passed.append(next(args))
            if t.is_array:
                next(args)
            continue
        element = ABI[t.dtype.real_dtype]
        if not t.is_array:
            first = next(args)
            second = next(args) if not is_output else \
                b.gep(first, [ir.Constant(I64, 1)], source_etype=element)
            passed += [first, second]
            continue
        interleaved, _ = next(args), next(args)
        n = extent(sizes, math.prod(t.shape))
        nbytes = b.mul(b.add(n, ir.Constant(I64, 1)), ir.Constant(I64, t.dtype.itemsize // 2))
        halves = [b.call(malloc, [nbytes]) for _ in range(2)]
        for half in halves:
            owned.append(half)
            with b.if_then(b.icmp_unsigned("==", half, ir.Constant(PTR, None)), likely=False):
                _free_all(b, free, owned)
                b.branch(no_memory)
        passed += halves
        if is_output:
            copies_out.append((interleaved, halves, n, element))
        else:
            for k, half in enumerate(halves):
                _strided_copy(b, fn, element, interleaved, 2, k, half, 1, 0, n)
    if scratch_fn is None:
        result = b.call(kernel_fn, passed)
    else:
        size = b.call(scratch_fn, [])
        size = b.select(b.icmp_signed("<", size, ir.Constant(I64, 64)), ir.Constant(I64, 64),
                        size)
        scratch = b.call(malloc, [size])
        with b.if_then(b.icmp_unsigned("==", scratch, ir.Constant(PTR, None)), likely=False):
            _free_all(b, free, owned)
            b.branch(no_memory)
        result = b.call(kernel_fn, passed + [scratch])
        b.call(free, [scratch])
    if copies_out:
        with b.if_then(b.icmp_signed("==", result, ir.Constant(I32, 0))):
            for interleaved, halves, n, element in copies_out:
                for k, half in enumerate(halves):
                    _strided_copy(b, fn, element, half, 1, 0, interleaved, 2, k, n)
    _free_all(b, free, owned)
    b.ret(result)
    ir.IRBuilder(bad).ret(ir.Constant(I32, status.ARRAY_LENGTH))
    ir.IRBuilder(bad_output).ret(ir.Constant(I32, status.OUTPUT_ARGUMENT))
    ir.IRBuilder(bad_size).ret(ir.Constant(I32, status.SIZE_ARGUMENT))
    ir.IRBuilder(no_memory).ret(ir.Constant(I32, status.NO_MEMORY))


def _free_all(b: ir.IRBuilder, free: ir.Function, pointers: list) -> None:
    for pointer in pointers:
        b.call(free, [pointer])


def _strided_copy(b: ir.IRBuilder, fn: ir.Function, element: ir.Type, source: ir.Value,
                  source_stride: int, source_start: int, target: ir.Value, target_stride: int,
                  target_start: int, n: ir.Value) -> None:
    """target[target_stride i + target_start] = source[source_stride i + source_start] for
    i < n (elements of type `element`): the parts of interleaved complex numbers."""
    head, body, done = (fn.append_basic_block(name) for name in ("copy", "copy_body",
                                                                  "copied"))
    start = b.block
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    i.add_incoming(ir.Constant(I64, 0), start)
    b.cbranch(b.icmp_signed("<", i, n), body, done)
    b.position_at_end(body)

    def at(pointer, stride, offset):
        index = b.add(b.mul(i, ir.Constant(I64, stride)), ir.Constant(I64, offset))
        return b.gep(pointer, [index], source_etype=element)

    b.store(b.load(at(source, source_stride, source_start), typ=element),
            at(target, target_stride, target_start))
    i.add_incoming(b.add(i, ir.Constant(I64, 1)), b.block)
    b.branch(head)
    b.position_at_end(done)


def _outputs_separate(sizes: SimpleNamespace, graph: Graph, pointers: list,
                      parts: Parts = ((), ())) -> ir.Value:
    """Whether no output pointer is NULL and no output array overlaps another array argument
    (the kernel reads its inputs after writing outputs: an alias would change the result).
    `sizes`: the builder `b` and the run-time sizes' values, as `extent` reads them."""
    b = sizes.b
    params = _parameters(graph, parts)
    spans = []  # (start, end, is output) of the arrays, as integers
    ok = ir.Constant(ir.IntType(1), True)
    for (_, t, is_output), pointer in zip(params, pointers, strict=True):
        if is_output and not t.is_array:
            ok = b.and_(ok, b.icmp_unsigned("!=", pointer, ir.Constant(PTR, None)))
        nbytes = math.prod(t.shape) * t.dtype.itemsize if t.is_array else 0
        if is_symbolic(nbytes) or nbytes:
            start = b.ptrtoint(pointer, I64)
            spans.append((start, b.add(start, extent(sizes, nbytes)), is_output))
    for k, (start, end, is_output) in enumerate(spans):
        for other_start, other_end, other_output in spans[k + 1:]:
            if is_output or other_output:  # disjoint: one ends before the other starts
                apart = b.or_(b.icmp_unsigned("<=", end, other_start),
                              b.icmp_unsigned("<=", other_end, start))
                ok = b.and_(ok, apart)
    return ok


def _conjugated(graph: Graph, parts: Parts) -> tuple[Graph, Parts]:
    """`graph` whose gradients of complex arguments are complex values in JAX's convention
    (real - i imaginary: their imaginary parts negated, "-im" in `parts`)."""
    if "-im" not in parts[1]:
        return graph, parts
    b = Builder()
    b.eqns.extend(graph.eqns)
    outputs = [b.neg(a) if kind == "-im" else a
               for a, kind in zip(graph.outputs, parts[1], strict=True)]
    kinds = tuple("im" if kind == "-im" else kind for kind in parts[1])
    return Graph(graph.inputs, b.eqns, outputs, graph.name, graph.externals), (parts[0], kinds)


def _bake_externals(graph: Graph) -> tuple[Graph, str]:
    """`graph` with the floats it reads from outside its arguments replaced by their current
    values, and a note listing them."""
    hidden = [e for e in graph.externals.reads if e.type is not None]
    if not hidden:
        return graph, ""
    arrays = [e.place.title for e in hidden if e.type.is_array]
    if arrays:
        raise AotError(f"{graph.name} reads the array(s) {', '.join(arrays)} from outside its "
                       "arguments (module-level, closed over or an object's attribute); an "
                       "ahead-of-time kernel has no Python values to read: pass them as "
                       "arguments")
    b = Builder()
    inputs = [Var(v.type, v.hint) for v in graph.arguments]
    outputs = inline(b, externals_last(graph),
                     inputs + [Const(float(e.value), e.type) for e in hidden])
    note = ", ".join(f"{e.place.title} = {float(e.value)!r}" for e in hidden)
    return Graph(inputs, b.eqns, outputs, graph.name), note


# the checks the compiler inserts whose exception a kernel's status names (the header's
# message stands for the one Python would format, as "index 7 is out of bounds ...")
KERNEL_CHECKS = {"IndexError": status.INDEX, "ZeroDivisionError": status.ZERO_DIVISION}
# and those whose message is fixed (math's errors), by (exception, message)
KERNEL_MESSAGES = {(status.ERRORS[code][0].__name__, status.ERRORS[code][1]): code
                   for code in (status.MATH_DOMAIN, status.MATH_RANGE)}


def _kernel_status(eqn) -> int | None:
    """The status a kernel returns for the `check` equation `eqn`, if it has one."""
    if eqn.prim != "check":
        return None
    error = eqn.params["error"]
    args = eqn.params.get("args", ())
    message = args[0][1][0] if len(args) == 1 and args[0][0] == "str" else None
    return KERNEL_CHECKS.get(error, KERNEL_MESSAGES.get((error, message)))


def _checks_as_statuses(graph: Graph) -> Graph:
    """`graph` (a copy when it changes) with each `check` raising an exception of
    KERNEL_CHECKS / KERNEL_MESSAGES returning that status instead of calling back into
    Python."""
    if not any(_kernel_status(e) is not None for e in walk_eqns(graph)):
        return graph
    graph = clone(graph)
    for e in walk_eqns(graph):
        code = _kernel_status(e)
        if code is not None:
            e.params = {**e.params, "status": code}
    return graph


def _refuse(transformed: Transformed, graph: Graph, types: list[Type]) -> None:
    """Raise `AotError` for what a kernel without Python cannot do."""
    if any(e.prim in EFFECTS and "status" not in e.params for e in walk_eqns(graph)):
        raise AotError("ahead-of-time kernels cannot print, assert or raise (print, assert and "
                       "raise call back into Python; index, division and math's domain checks "
                       "return statuses); remove them from the kernel, or compile it with jit/grad")
    if transformed.kind == "jit" and any(t.is_array for t in types):
        layout = transformed.graphs(types)[2]
        if isinstance(layout, Layout) and layout.written:
            raise AotError(f"{graph.name} writes into its argument array(s) "
                           f"{', '.join(str(i) for i in layout.written)}; an ahead-of-time "
                           "kernel returns new arrays and never writes its inputs: return the "
                           "array instead")


def _link(out: Path, name: str, obj: Path, declared: set[str], graph: Graph) -> Path:
    """lib<name>.so from the object file (with numpy's OpenBLAS for matrix products)."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        raise AotError("no C compiler (cc, gcc or clang) found to link the shared library")
    if any(s.startswith(SCIPY_PREFIX) for s in declared):
        raise AotError(f"{name} calls scipy.special's C functions (Bessel, gamma, beta, "
                       "incomplete gamma/beta, error functions of complex numbers), which "
                       "live in scipy's Python extension; ahead-of-time kernels cannot link "
                       "it: compile it with jit/grad")
    if any(s.startswith(FFT_PREFIX) for s in declared):
        raise AotError(f"{name} calls numpy's FFT (pocketfft), which lives in numpy's Python "
                       "extension; ahead-of-time kernels cannot link it: compile it with "
                       "jit/grad")
    calls = {s for s in declared if s.startswith("scipy_")}
    if calls - BLAS:
        raise AotError(f"{name} calls LAPACK (a decomposition or a solve), whose failures are "
                       "numpy's exceptions; ahead-of-time kernels do not call it yet: compile "
                       "it with jit/grad")
    libraries = []
    if calls:
        blas = Path(blas_for(graph))
        libraries = [f"-L{blas.parent}", f"-l:{blas.name}", f"-Wl,-rpath,{blas.parent}"]
    library = out / f"lib{name}.so"
    result = subprocess.run([compiler, "-shared", "-o", str(library), str(obj), *libraries,
                             "-lm"], capture_output=True, text=True)
    if result.returncode != 0:
        raise AotError(f"linking {library} failed:\n{result.stderr}")
    return library


def compile_aot(fn, out_dir: str | Path, types: list[Type], grad_wrt: tuple[int, ...] | None
                = None, portable: bool = False) -> dict[str, Path]:
    """Build a shared library, a C header and a ctypes loader of `fn` or of its gradient.

    Writes `lib<name>.so` (position-independent native code needing only libc and libm,
    and numpy's OpenBLAS for matrix products), `<name>.h` (the C prototype
    `int32_t adlite_<name>(inputs..., outputs...)`, the shapes of the arrays and the status
    codes) and `<name>_loader.py` (a loader using ctypes and numpy only, defining
    `<name>()`), where `<name>` is the function's name (`<name>_grad` for a gradient).
    Scalars are passed by value and scalar outputs by pointer; an array is a pointer to
    its elements (row-major, contiguous; the caller allocates the outputs) followed by its
    length, checked against the shape it was compiled for. The kernel returns 0 on success
    or a status code (the JIT's, listed in the header). Module-level and closed-over
    floats the function reads are baked in with their values at build time. The same as
    `adlite compile FILE.py:FUNC -o DIR` from the shell.

    Args:
        fn: The function.
        out_dir: The directory to write into (made if missing).
        types: One type per parameter (`adlite.compiler.ir.core.Type`: `Type("f64")`,
            `Type("f32")`, `Type("i64")`, `Type("bool")`, or with a shape for an array,
            `Type("f64", (3, 4))`).
        grad_wrt: Build the gradient w.r.t. these argument positions instead of `fn`.
        portable: Target the baseline x86-64 CPU instead of this host's.

    Returns:
        The paths written: `{"library": ..., "header": ..., "loader": ...}`.

    Raises:
        AotError: For a kernel that prints, asserts or raises, writes into its argument
            arrays, reads an array from outside its arguments or calls LAPACK; or when no C
            compiler is found or linking fails.
        AdliteSyntaxError: For code adlite cannot compile.

    Examples:
        >>> import importlib.util, tempfile
        >>> from adlite.compiler.aot import compile_aot
        >>> from adlite.compiler.ir.core import Type
        >>> def scaled_square(x, k):
        ...     return k * x * x
        >>> paths = compile_aot(scaled_square, tempfile.mkdtemp(), [Type("f64"), Type("f64")],
        ...                     grad_wrt=(0,))
        >>> sorted(path.name for path in paths.values())
        ['libscaled_square_grad.so', 'scaled_square_grad.h', 'scaled_square_grad_loader.py']
        >>> print(paths["header"].read_text())
        /* Generated by adlite: gradient of scaled_square w.r.t. arguments 0. */
        ...
        int32_t adlite_scaled_square_grad(double x, double k, double *out0);
        ...
        >>> spec = importlib.util.spec_from_file_location("loader", paths["loader"])
        >>> loader = importlib.util.module_from_spec(spec)
        >>> spec.loader.exec_module(loader)
        >>> loader.scaled_square_grad(3.0, 2.0)
        12.0
    """
    kind = "jit" if grad_wrt is None else "grad"
    transformed = Transformed(fn, kind, grad_wrt if grad_wrt is not None else 0)
    trees = tuple(type_tree(t) for t in types)
    graph, tree = transformed.ir_for(trees)
    parts = (tuple(k for t in trees for k in part_kinds(t)), tuple(part_kinds(tree)))
    graph, parts = _conjugated(graph, parts)
    if returns_selection(tree):
        raise AotError(f"{fn.__name__} returns a boolean selection (`x[mask]`, np.nonzero, "
                       "...) or a list, whose length is known only at run time: an "
                       "ahead-of-time kernel returns arrays of the shapes given when building; "
                       "return np.where(mask, x, fill) and the mask, or a preallocated array "
                       "and a count, instead")
    graph, baked = _bake_externals(expand(graph))
    graph = _checks_as_statuses(graph)
    _refuse(transformed, graph, list(types))
    name = graph.name
    what = (f"{fn.__name__}" if kind == "jit" else
            f"gradient of {fn.__name__} w.r.t. arguments {', '.join(map(str, grad_wrt))}")
    if baked:
        what += f"; values read from Python, baked in at build time: {baked}"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    kernel = f"{exported_symbol(name)}_kernel"
    code, declared = compile_object(
        graph, kernel,
        lambda module: add_entry(module, graph, kernel, exported_symbol(name), parts), portable)
    obj = out / f"{name}.o"
    obj.write_bytes(code)
    library = _link(out, name, obj, declared, graph)
    obj.unlink()
    header = out / f"{name}.h"
    header.write_text(header_text(graph, name, what, parts))
    loader = out / f"{name}_loader.py"
    loader.write_text(loader_text(graph, name, library.name, parts))
    return {"library": library, "header": header, "loader": loader}
