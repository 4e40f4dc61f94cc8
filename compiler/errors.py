"""Errors raised by the compiler for the user's code.

`AdliteSyntaxError` points at the user's file, line and column, shows the source line with a
caret under the construct, and suggests a fix:

    path/to/file.py:12:8: unsupported construct: list comprehension
        ys = [y * 2 for y in xs]
             ^
    hint: write the loop out with `for`, or use numpy operations on arrays

Where numpy would raise for the arguments of a call, and the compiler sees it from their
types and shapes, `AdliteTypeError` / `AdliteValueError` report it the same way and are also
numpy's exception type (`except TypeError` catches them as it catches numpy's).
"""

from __future__ import annotations


class AdliteError(Exception):
    """Base class of adlite compiler errors."""


class AdliteSourceError(AdliteError):
    """The function's source code cannot be found (REPL, exec, builtins)."""


class AdliteSyntaxError(AdliteError):
    """The function uses something the compiler does not support, or is malformed."""

    def __init__(self, message: str, filename: str = "<unknown>", line: int = 0,
                 col: int = 0, source_line: str = "", hint: str = "") -> None:
        self.message, self.filename, self.line, self.col = message, filename, line, col
        self.source_line, self.hint = source_line, hint
        text = f"{filename}:{line}:{col + 1}: {message}"
        if source_line:
            text += f"\n    {source_line}\n    {' ' * col}^"
        if hint:
            text += f"\nhint: {hint}"
        super().__init__(text)


class AdliteTypeError(AdliteSyntaxError, TypeError):
    """numpy's TypeError for the arguments of a call, found while compiling."""


class AdliteValueError(AdliteSyntaxError, ValueError):
    """numpy's ValueError for the arguments of a call, found while compiling."""
