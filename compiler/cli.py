"""Command line of adlite.

    adlite show FILE.py:FUNC --stage frontend|optimize|ad|lower [--grad] [--backend python]
                [--dot] [--types ...]
    adlite compile FILE.py:FUNC [--grad [--wrt 0,1]] [--types ...] [--portable] -o DIR
    adlite cache info|clear

`show` prints the code after one stage of the compilation pipeline (`pipeline.py`; the
older names ir, optimized, adjoint, python[-grad], llvm[-grad], dot[-grad] still work, see
`api.ALIASES`); `compile` writes a shared library, a C header
and a ctypes loader (see `aot.py`). `--types` lists the argument types (f64, f32, i64, bool,
arrays as `f64[3,4]`: a kernel is compiled for those shapes and takes each array as a pointer
and its length; a named size, `f64[n,3]`, is an argument of the kernel), default every
argument f64. `cache info` prints the disk cache's directory, its
entries, their total size and the cap; `cache clear` removes adlite's entries (never other
files in the directory) and prints what it removed (see `backends/llvm/cache.py`).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import re
import sys
from pathlib import Path

from .aot import AotError, compile_aot
from .api import ALIASES, BACKENDS, STAGES, show
from .backends.llvm import cache
from .errors import AdliteError
from .ir.core import TYPES, Type
from .ir.dims import symbol


def load_function(target: str):
    """`path/to/file.py:name` -> the function object."""
    path, _, name = target.rpartition(":")
    if not path or not name:
        raise SystemExit(f"adlite: expected FILE.py:FUNCTION, got {target!r}")
    file = Path(path)
    if not file.is_file():
        raise SystemExit(f"adlite: no such file: {path}")
    for folder in (str(file.resolve().parent), os.getcwd()):  # as `python FILE.py` would
        if folder not in sys.path:
            sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(file.stem, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[file.stem] = module
    spec.loader.exec_module(module)
    if not hasattr(module, name):
        raise SystemExit(f"adlite: {path} defines no function {name!r}")
    return getattr(module, name)


def main(argv: list[str] | None = None) -> int:
    """The `adlite` command: `show`, `compile` or `cache` (see the module's docstring).

    Args:
        argv: The arguments after the program's name; default `sys.argv[1:]`.

    Returns:
        The exit status: 0 on success, 1 when the function cannot be compiled or built
        (the error is printed on stderr).

    Raises:
        SystemExit: For arguments it cannot read (argparse's usage message), a target
            file or function that does not exist, or unknown types.

    Examples:
        >>> import pathlib, tempfile
        >>> from adlite.compiler.cli import main
        >>> source = pathlib.Path(tempfile.mkdtemp()) / "cli_example.py"
        >>> _ = source.write_text("def f(x, y): return x * y")
        >>> main(["show", f"{source}:f", "--stage", "lower", "--grad", "--backend", "python"])
        import numpy as np
        <BLANKLINE>
        <BLANKLINE>
        def f_grad(x, y):
            return y,
        0
    """
    parser = argparse.ArgumentParser(prog="adlite", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_show = sub.add_parser("show", help="print a compilation stage of a function")
    p_show.add_argument("target", help="FILE.py:FUNCTION")
    p_show.add_argument("--stage", choices=STAGES + tuple(ALIASES), default="frontend")
    p_show.add_argument("--grad", action="store_true", help="the gradient's pipeline")
    p_show.add_argument("--backend", choices=BACKENDS, default="llvm",
                        help="the code `lower` makes")
    p_show.add_argument("--dot", action="store_true", help="the IR as Graphviz")
    p_show.add_argument("--types", default=None, help="argument types, e.g. f64,i64")
    p_compile = sub.add_parser("compile", help="build a shared library, C header and loader")
    p_compile.add_argument("target", help="FILE.py:FUNCTION")
    p_compile.add_argument("-o", "--output", required=True, help="output directory")
    p_compile.add_argument("--grad", action="store_true", help="compile the gradient")
    p_compile.add_argument("--wrt", default=None, help="differentiated arguments, e.g. 0,1")
    p_compile.add_argument("--types", default=None, help="argument types, e.g. f64,i64")
    p_compile.add_argument("--portable", action="store_true",
                           help="target the baseline x86-64 CPU instead of this host's")
    p_cache = sub.add_parser("cache", help="the disk cache of compiled code")
    p_cache.add_argument("action", choices=("info", "clear"),
                         help="info: directory, entries, size, cap; clear: remove the entries")
    args = parser.parse_args(argv)
    if args.command == "cache":
        try:
            return _cache(args.action)
        except ValueError as e:  # an ADLITE_CACHE_MAX_BYTES it cannot read
            print(f"adlite: {e}", file=sys.stderr)
            return 1
    fn = load_function(args.target)
    types = _parse_types(args.types) if args.types else \
        [TYPES["f64"]] * len(inspect.signature(fn).parameters)
    try:
        if args.command == "show":
            print(show(fn, args.stage, types, grad=args.grad, backend=args.backend,
                       dot=args.dot), end="")
            return 0
        wrt = None
        if args.grad:
            wrt = tuple(int(i) for i in args.wrt.split(",")) if args.wrt else \
                tuple(i for i, t in enumerate(types) if t.name == "f64")
        paths = compile_aot(fn, args.output, types, wrt, args.portable)
    except (AdliteError, AotError, TypeError) as e:
        print(f"adlite: {e}", file=sys.stderr)
        return 1
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    return 0


def _cache(action: str) -> int:
    """`adlite cache info` / `adlite cache clear`."""
    folder = cache.directory()
    if folder is None:
        print("disk cache: off (ADLITE_CACHE_DIR=off)")
        return 0
    if action == "clear":
        cleared = cache.clear()
        print(f"removed {_entries(cleared.entries)} ({_size(cleared.bytes)}) and "
              f"{cleared.temporary} temporary file{'s' * (cleared.temporary != 1)} from {folder}")
        return 0
    usage = cache.usage()
    print(f"directory: {folder}")
    print(f"entries: {usage.entries}")
    print(f"size: {_size(usage.bytes)}")
    print(f"cap: {_size(usage.cap)}, set by ADLITE_CACHE_MAX_BYTES")
    return 0


def _entries(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def _size(n: int) -> str:
    """`1.2 MiB = 1,234,567 bytes`, or `512 bytes`."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit} = {n:,} bytes"
    return f"{n:,} bytes"


def _parse_types(text: str):
    """`f64,i64` or with array shapes `f64[3,4],f32[10],i64`; a size may be a name, a size
    known when the kernel runs (`f64[n,3],f64[n]`: `ir.dims`)."""
    spec = re.fullmatch(r"\s*(\w+(\[[\w,\s]*\])?)(\s*,\s*\w+(\[[\w,\s]*\])?)*\s*", text)
    if spec is None:
        raise SystemExit(f"adlite: cannot read --types {text!r}; write e.g. f64,i64,f64[3,4]")
    types = []
    for name, shape in re.findall(r"(\w+)(?:\[([\w,\s]*)\])?", text):
        if name not in TYPES:
            raise SystemExit(f"adlite: unknown type {name!r}; use f64, f32, i64 or bool")
        dims = tuple(int(n) if n.strip().isdigit() else symbol(n.strip())
                     for n in shape.split(",") if n.strip()) if shape else None
        types.append(Type(name, dims))
    return types


if __name__ == "__main__":
    sys.exit(main())
