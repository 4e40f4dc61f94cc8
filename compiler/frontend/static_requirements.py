"""What compiled code must know when compiling: one table of those decisions, and their errors.

Contract: `REQUIREMENTS` lists each kind of value or construct that the frontend needs known
when compiling, once: a stable key (the README's section "What compiled code must know when
compiling" lists every key, tests/project/test_static_requirements_readme.py checks it), a
one-line reason (why compiled code needs it today) and a hint leading to code that compiles.
Every refusal of a program because something is known only at run time is built by
`refusal` (or `message`): `file:line:col: `<the user's code>`: <the value or construct and what is
run-time about it> (<reason> [<key>])`, with the site's hint or else the table's.
`runtime_origin` says what is run-time about an IR value (the entry's arguments it is
computed from, as `entry_scalars` finds them).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import AdliteSyntaxError
from .source import Source


@dataclass(frozen=True)
class Requirement:
    key: str
    reason: str  # why compiled code needs it when compiling
    hint: str  # how to write code that compiles


REQUIREMENTS: dict[str, Requirement] = {r.key: r for r in (
    Requirement("shape", "array shapes are fixed when compiling: memory and loops are "
                         "generated for them",
                "compute sizes from x.shape, len(x) or constants, or pass the size as an int "
                "argument that is not differentiated (compiled once per value)"),
    Requirement("option", "axes, dtypes, modes and flags choose the code generated and the "
                          "result's shape or type",
                "write the option as a constant (axis=0, upper=True), or pass it as a static "
                "argument (static_argnames)"),
    Requirement("sequence", "tuples, lists and ranges are unrolled when compiling: which item "
                            "is read and how many there are is fixed in the code",
                "index tuples and lists with constants or loop variables of range(n), n known "
                "when compiling; or hold the items in an array and index it"),
    Requirement("slice", "an array slice has a shape, which is fixed when compiling (a slice "
                         "x[i:j] alone, of run-time length, is a boolean selection)",
                "write x[i:i + k] with k known when compiling, or slice alone: x[i:j]"),
    Requirement("mask", "the number of True values of a mask, the length of what it selects, "
                        "is known only at run time: compiled code keeps the whole array and "
                        "the mask, which elementwise operations and reductions can use",
                "use np.where(mask, x, 0), or reduce: np.sum(x[mask] ** 2), np.mean(x[mask])"),
    Requirement("unroll", "a loop that builds Python lists or rebinds tuples is unrolled: "
                          "each trip is generated, so the trip count is fixed",
                "loop over range(n) with n known when compiling (a bounded trip count), or "
                "preallocate arrays instead of lists (`xs = np.zeros(n)`, then `xs[i] = v`)"),
    Requirement("list-change", "a list of lists or items of mixed types has a length fixed "
                               "when compiling, and a tuple its items: they cannot change on a "
                               "path chosen at run time (a list of numbers of one type, arrays "
                               "of one shape or tuples of those can)",
                "preallocate an array (`xs = np.zeros(n)`, then `xs[i] = v`), or loop over "
                "range(n) with n known when compiling (the loop is unrolled)"),
    Requirement("run-time-list", "a list of numbers or arrays that changes at run time lives in a "
                                 "buffer of compiled code: it can be appended to, popped, indexed, "
                                 "iterated, summed, measured with len() and returned, but an "
                                 "array made of it would have a shape known only at run time",
                "sum, index or iterate over it; or preallocate an array (`xs = np.zeros(n)`, "
                "then `xs[i] = v`)"),
    Requirement("object", "strings, None, functions and other Python objects exist only when "
                          "compiling: compiled code holds numbers and arrays",
                "choose between objects with conditions known when compiling, or build "
                "strings outside the compiled function"),
    Requirement("value", "the compiler computes this value as Python while compiling",
                "use a constant, x.shape, len(x), or an int argument that is not "
                "differentiated (compiled once per value)"),
)}


def refusal(source: Source, node, key: str, problem: str, hint: str = "",
            kind: type[AdliteSyntaxError] = AdliteSyntaxError) -> AdliteSyntaxError:
    """The error at `node` (the user's code, quoted) for requirement `key`: `problem` names
    the value or construct ("its shape must be known when compiling, but ...") and what is
    run-time about it; `hint` replaces the table's where the site knows a closer fix."""
    return source.error(node, message(key, source.segment(node), problem),
                        hint or REQUIREMENTS[key].hint, kind)


def message(key: str, code: str, problem: str) -> str:
    """The text of a refusal of requirement `key` about the user's `code` (see `refusal`),
    for an error pointing elsewhere than a node (the `def` of a function)."""
    return f"`{code}`: {problem} ({REQUIREMENTS[key].reason} [{key}])"


def runtime_origin(arguments: frozenset[str]) -> str:
    """What is run-time about a value: the entry's `arguments` it is computed from, if any."""
    names = sorted(arguments)
    if not names:
        return "it is computed from values known only at run time"
    shown = ", ".join(f"`{n}`" for n in names)
    return f"it is computed from the argument{'s' if len(names) > 1 else ''} {shown}, " \
           "known only at run time"
