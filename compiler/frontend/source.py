"""Finding a function's source and mapping gast positions back to the user's file.

Contract: `get_source(fn)` returns a `Source` holding the dedented text, the file name, the
line/column offsets and the lines of the whole file, or raises `AdliteSourceError` (functions
typed at the REPL or built with `exec` have no source file). The source of a function that
arrived by value from another process is the one it carried (`carry_source`), whatever the
receiving machine has at that path (`source_file(fn)` gives a function's file and its lines,
carried or not, to send it on).
`Source.segment(node)` is the user's text of a node, for messages quoting it;
`Source.error(node, message, hint)` builds an
`AdliteSyntaxError` pointing at `node` in the user's file (`kind=AdliteTypeError` /
`AdliteValueError` where numpy would raise that type for the call's arguments).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import threading
import types
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import gast

from ..errors import AdliteSourceError, AdliteSyntaxError

# code object -> (file name, lines of that file); code objects compare by value, not by
# file name, so a copy whose co_filename a pickler rewrote still finds its entry.
_carried: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_carried_lock = threading.Lock()


@dataclass(frozen=True)
class Source:
    text: str
    filename: str
    first_line: int
    indent: int
    original_lines: tuple[str, ...]
    file_lines: tuple[str, ...] = ()

    def error(self, node, message: str, hint: str = "",
              kind: type[AdliteSyntaxError] = AdliteSyntaxError) -> AdliteSyntaxError:
        """`kind`: `AdliteTypeError` / `AdliteValueError` where numpy would raise that."""
        line = getattr(node, "lineno", 1) or 1
        col = (getattr(node, "col_offset", 0) or 0) + self.indent
        text = self.original_lines[line - 1].rstrip() if line <= len(self.original_lines) else ""
        return kind(message, self.filename, self.first_line + line - 1, col, text, hint)

    def segment(self, node) -> str:
        """The user's text of `node`: its first line (" ..." marks the rest of a statement
        over several lines), else the code gast writes for a node made by the frontend."""
        text = ast.get_source_segment(self.text, node) \
            if getattr(node, "end_lineno", None) is not None else None
        if not text:
            return gast.unparse(node).strip()
        first, *rest = text.splitlines()
        return f"{first.rstrip()} ..." if rest and isinstance(node, gast.stmt) else \
            " ".join(ln.strip() for ln in text.splitlines())

    def line(self, number: int) -> str:
        """The text of line `number` (1-based) of the file, or ""."""
        return self.file_lines[number - 1] if 0 < number <= len(self.file_lines) else ""


def carry_source(code: types.CodeType, filename: str, file_lines: Sequence[str]) -> None:
    """Record that the function of `code` was defined in `filename`, whose lines are
    `file_lines` (a function received by value: its file may not exist here)."""
    with _carried_lock:
        _carried[code] = (filename, tuple(file_lines))


def _carried_file(fn) -> tuple[str, tuple[str, ...]] | None:
    """(file name, lines of the file) that `carry_source` recorded for `fn`, or None."""
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        return None
    with _carried_lock:
        return _carried.get(code)


def source_file(fn) -> tuple[str, tuple[str, ...]] | None:
    """(file name, lines of the file) of the function `fn`: those it carried from another
    process, else the lines Python has for its file; None where there are none."""
    carried = _carried_file(fn)
    if carried is not None:
        return carried
    try:
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except TypeError:
        return None
    lines = tuple(linecache.getlines(filename))
    return (filename, lines) if lines else None


def _carried_source(fn) -> tuple[list[str], int, str, tuple[str, ...]] | None:
    found = _carried_file(fn)
    if found is None:
        return None
    filename, file_lines = found
    first = fn.__code__.co_firstlineno
    if not 0 < first <= len(file_lines):
        return None
    return inspect.getblock(list(file_lines[first - 1:])), first, filename, file_lines


def _parses(text: str) -> bool:
    try:
        gast.parse(textwrap.dedent(text))
    except SyntaxError:
        return False
    return True


def _lambda_statement(lines: list[str], first_line: int,
                      file_lines: Sequence[str]) -> tuple[list[str], int]:
    """The lines of a lambda's source: `inspect`'s (from its line on) where they parse, else
    the whole statement of the file holding that line (a lambda on a continuation line of a
    call or a dict display)."""
    if _parses("".join(lines)) or not file_lines:
        return lines, first_line
    try:
        tree = gast.parse("".join(file_lines))
    except SyntaxError:
        return lines, first_line
    around = [n for n in gast.walk(tree) if isinstance(n, gast.stmt) and
              not isinstance(n, gast.FunctionDef | gast.AsyncFunctionDef | gast.ClassDef |
                             gast.If | gast.For | gast.While | gast.With | gast.Try) and
              n.lineno <= first_line <= n.end_lineno]
    if not around:
        return lines, first_line
    statement = max(around, key=lambda n: n.lineno)
    return list(file_lines[statement.lineno - 1:statement.end_lineno]), statement.lineno


def get_source(fn) -> Source:
    fn = inspect.unwrap(fn) if callable(fn) else fn
    carried = _carried_source(fn)
    if carried is not None:
        lines, first_line, filename, file_lines = carried
    else:
        try:
            lines, first_line = inspect.getsourcelines(fn)
            filename = inspect.getsourcefile(fn) or "<unknown>"
        except (OSError, TypeError) as e:
            raise AdliteSourceError(
                f"cannot read the source code of {getattr(fn, '__qualname__', fn)!r} ({e}). "
                "adlite compiles functions from their source: define the function in a .py "
                "file (not at the interactive prompt, with exec(), or as a lambda assigned at "
                "the prompt)."
            ) from None
        file_lines = tuple(linecache.getlines(filename))
    if getattr(fn, "__name__", "") == "<lambda>":
        lines, first_line = _lambda_statement(lines, first_line, file_lines)
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    first = next((ln for ln in lines if ln.strip()), "")
    indent = len(first) - len(first.lstrip()) if dedented != text else 0
    return Source(dedented, filename, max(first_line, 1), indent, tuple(lines), file_lines)
