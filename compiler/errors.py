"""Errors raised by the compiler for the user's code.

`AdliteSyntaxError` points at the user's file, line and column, shows the source line with a
caret under the construct, and suggests a fix:

    path/to/file.py:12:8: unsupported construct: list comprehension
        ys = [y * 2 for y in xs]
             ^
    hint: write the loop out with `for`, or use numpy operations on arrays

Where numpy would raise for the arguments of a call, and the compiler sees it from their
types and shapes, `AdliteTypeError` / `AdliteValueError` / `AdliteIndexError` /
`AdliteAxisError` report it the same way and are also numpy's exception type (`except
TypeError` catches them as it catches numpy's; `AdliteAxisError`, like numpy's `AxisError`,
is both a ValueError and an IndexError).
"""

from __future__ import annotations


class AdliteError(Exception):
    """Base class of the errors adlite's compiler raises for the user's code.

    `except AdliteError` catches all of them: a function whose source cannot be read
    ([`AdliteSourceError`][adlite.compiler.AdliteSourceError]) and code the compiler
    cannot compile ([`AdliteSyntaxError`][adlite.compiler.AdliteSyntaxError] and its
    numpy-typed subclasses). They are raised at the first call of a signature, when it is
    compiled, not when the transformation (`jit`, `grad`, ...) is made.

    Examples:
        >>> from adlite.compiler import AdliteError, jit
        >>> try:
        ...     jit(len)([1.0])
        ... except AdliteError as e:
        ...     print(type(e).__name__)
        AdliteSourceError
    """


class AdliteSourceError(AdliteError):
    """The function's source code cannot be read (REPL, exec, builtins).

    adlite compiles a function from its source, which Python keeps only for functions
    defined in a file (lambdas included): one typed at the interactive prompt, made by
    `exec()`, or written in C (builtins, numpy functions) cannot be compiled.

    Examples:
        >>> from adlite.compiler import jit
        >>> namespace = {}
        >>> exec("def double(x): return 2.0 * x", namespace)
        >>> jit(namespace["double"])(1.0)
        Traceback (most recent call last):
            ...
        adlite.compiler.errors.AdliteSourceError: cannot read the source code of 'double' ...
    """


class AdliteSyntaxError(AdliteError):
    """The function uses something the compiler does not support, or is malformed.

    Its text points at the construct in the user's file: `file:line:column: message`, then
    the source line with a caret under the construct and, where there is one, a hint with a
    fix. The parts are attributes too, for tools.

    Args:
        message: What is wrong.
        filename: The file of the code (attribute `filename`).
        line: The line in that file, from 1 (attribute `line`).
        col: The column of the construct, from 0 (attribute `col`; shown from 1).
        source_line: The line of source shown, or "" (attribute `source_line`).
        hint: How to fix it, or "" (attribute `hint`).

    Examples:
        >>> from adlite.compiler import AdliteSyntaxError, jit
        >>> def safe_inverse(x):
        ...     try:
        ...         return 1.0 / x
        ...     except ZeroDivisionError:
        ...         return 0.0
        >>> try:
        ...     jit(safe_inverse)(2.0)
        ... except AdliteSyntaxError as e:
        ...     print(e)
        <doctest ...>:2:5: unsupported construct: try statement (try/except/finally)
            try:
            ^
        hint: compiled code cannot catch exceptions (it raises them by ending the call): ...
    """

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
    """numpy's TypeError for the arguments of a call, found while compiling.

    An [`AdliteSyntaxError`][adlite.compiler.AdliteSyntaxError] (pointing at the call)
    that is also a `TypeError`, with numpy's message, so `except TypeError` catches it
    as it catches numpy's error for the same arguments.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import jit
        >>> def pick(c, x):
        ...     return np.select([c], [x])
        >>> try:
        ...     jit(pick)(np.array([1.0]), np.array([2.0]))  # the condition is not boolean
        ... except TypeError as e:
        ...     print(type(e).__name__, "|", e.message)
        AdliteTypeError | invalid entry 0 in condlist: should be boolean ndarray
    """


class AdliteValueError(AdliteSyntaxError, ValueError):
    """numpy's ValueError for the arguments of a call, found while compiling.

    An [`AdliteSyntaxError`][adlite.compiler.AdliteSyntaxError] (pointing at the call)
    that is also a `ValueError`, with numpy's message, so `except ValueError` catches it
    as it catches numpy's error for the same arguments.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import jit
        >>> def pick(c, x):
        ...     return np.select([c, ~c], [x])
        >>> try:
        ...     jit(pick)(np.array([True]), np.array([2.0]))  # one choice, two conditions
        ... except ValueError as e:
        ...     print(type(e).__name__, "|", e.message)
        AdliteValueError | list of cases must be same length as list of conditions
    """


class AdliteIndexError(AdliteSyntaxError, IndexError):
    """numpy's IndexError for the arguments of a call, found while compiling.

    An [`AdliteSyntaxError`][adlite.compiler.AdliteSyntaxError] (pointing at the call)
    that is also an `IndexError`, with numpy's message.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import jit
        >>> def contract(a, b):
        ...     return np.tensordot(a, b, axes=([3], [0]))
        >>> try:
        ...     jit(contract)(np.ones((2, 3)), np.ones((3, 2)))  # a has no axis 3
        ... except IndexError as e:
        ...     print(type(e).__name__, "|", e.message)
        AdliteIndexError | tuple index out of range
    """


class AdliteAxisError(AdliteValueError, AdliteIndexError):
    """numpy's `AxisError` (an axis out of bounds) for a call's arguments, found while compiling.

    An [`AdliteSyntaxError`][adlite.compiler.AdliteSyntaxError] (pointing at the call)
    that is both a `ValueError` and an `IndexError`, as numpy's `AxisError` is, with
    numpy's message.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import jit
        >>> def normal(a, b):
        ...     return np.cross(a, b, axisa=2)
        >>> try:
        ...     jit(normal)(np.ones((4, 3)), np.ones(3))
        ... except ValueError as e:
        ...     print(type(e).__name__, "|", e.message)
        AdliteAxisError | axisa: axis 2 is out of bounds for array of dimension 2
    """
