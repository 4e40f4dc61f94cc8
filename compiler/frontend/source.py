"""Finding a function's source and mapping gast positions back to the user's file.

Contract: `get_source(fn)` returns a `Source` holding the dedented text, the file name and the
line/column offsets, or raises `AdliteSourceError` (functions typed at the REPL or built with
`exec` have no source file). `Source.error(node, message, hint)` builds an
`AdliteSyntaxError` pointing at `node` in the user's file.
"""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass

from ..errors import AdliteSourceError, AdliteSyntaxError


@dataclass(frozen=True)
class Source:
    text: str
    filename: str
    first_line: int
    indent: int
    original_lines: tuple[str, ...]

    def error(self, node, message: str, hint: str = "") -> AdliteSyntaxError:
        line = getattr(node, "lineno", 1) or 1
        col = (getattr(node, "col_offset", 0) or 0) + self.indent
        text = self.original_lines[line - 1].rstrip() if line <= len(self.original_lines) else ""
        return AdliteSyntaxError(message, self.filename, self.first_line + line - 1, col,
                                 text, hint)


def get_source(fn) -> Source:
    try:
        lines, first_line = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or "<unknown>"
    except (OSError, TypeError) as e:
        raise AdliteSourceError(
            f"cannot read the source code of {getattr(fn, '__qualname__', fn)!r} ({e}). adlite "
            "compiles functions from their source: define the function in a .py file (not at "
            "the interactive prompt, with exec(), or as a lambda assigned at the prompt)."
        ) from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    first = next((ln for ln in lines if ln.strip()), "")
    indent = len(first) - len(first.lstrip()) if dedented != text else 0
    return Source(dedented, filename, max(first_line, 1), indent, tuple(lines))
