"""Command line: `adlite show path/to/file.py:func --stage ir|optimized|adjoint|python|python-grad`.

Prints one stage of the compilation of `func` for the signature given by `--types`
(comma-separated f64/i64/bool, default every argument f64).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from .api import STAGES, show
from .errors import AdliteError
from .ir.core import TYPES


def load_function(target: str):
    """`path/to/file.py:name` -> the function object."""
    path, _, name = target.rpartition(":")
    if not path or not name:
        raise SystemExit(f"adlite: expected FILE.py:FUNCTION, got {target!r}")
    file = Path(path)
    if not file.is_file():
        raise SystemExit(f"adlite: no such file: {path}")
    spec = importlib.util.spec_from_file_location(file.stem, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[file.stem] = module
    spec.loader.exec_module(module)
    if not hasattr(module, name):
        raise SystemExit(f"adlite: {path} defines no function {name!r}")
    return getattr(module, name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="adlite", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_show = sub.add_parser("show", help="print a compilation stage of a function")
    p_show.add_argument("target", help="FILE.py:FUNCTION")
    p_show.add_argument("--stage", choices=STAGES, default="ir")
    p_show.add_argument("--types", default=None, help="argument types, e.g. f64,i64")
    args = parser.parse_args(argv)
    fn = load_function(args.target)
    types = None
    if args.types:
        try:
            types = [TYPES[t.strip()] for t in args.types.split(",")]
        except KeyError as e:
            raise SystemExit(f"adlite: unknown type {e}; use f64, i64 or bool") from None
    try:
        print(show(fn, args.stage, types), end="")
    except (AdliteError, TypeError) as e:
        print(f"adlite: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
