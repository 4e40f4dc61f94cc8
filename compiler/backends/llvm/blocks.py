"""Very long basic blocks: measuring them before optimisation, splitting them after it.

Contract: `longest_block(ir_text)` is the instruction count of the longest basic block of a
module's text; `jit.parse_and_optimize` leaves the SLP vectoriser out of the O3 pipeline
when it exceeds SLP_LIMIT (the vectoriser's time grows superlinearly with the block's length,
about K^1.5 on the straight-line gradient of K statements, 90% of the O3 time there, for a
gain that is small on such code; vectorisation never changes a value, so neither does
leaving it out). `split_long_blocks(ir_text, limit)` returns None when no basic block has more than
`limit` instructions, and otherwise the text of the same module with every longer block cut
into pieces of `limit` instructions joined by unconditional branches (`br label
%adlite.split.N`; the `phi` nodes of the successors name the last piece, which holds the
terminator; labels are local to their function, so only that function's `phi` nodes are
renamed). The computation, its order and so its values are unchanged: only block boundaries
are added. Code generation (register allocation, the post-RA scheduler and the
spill-slot colouring) takes time superlinear in the length of a block, so the straight-line
function of K statements, one block after O3, compiled in time ~K^2.4; in pieces of bounded
length it compiles in time close to linear. A block's `alloca`s stay in it (a cut is only
made after the last one), and cuts are made only before value-defining instructions other
than `phi` and `landingpad`, so terminators, multi-line instructions and the instruction
after a `musttail` call never move.
"""

from __future__ import annotations

import re

LIMIT = 1000  # instructions per block: far above the blocks of ordinary programs
SLP_LIMIT = 8000  # about the gradient of 700 scalar statements

_LABEL = re.compile(r'^("(?:[^"\\]|\\.)*"|[-\w.$]+):')
_CUTTABLE = re.compile(r"^  %\S+ = (?!phi |landingpad )")


def split_long_blocks(ir_text: str, limit: int = LIMIT) -> str | None:
    """`ir_text` with blocks longer than `limit` instructions cut, or None when there is none
    (see the module doc)."""
    lines = ir_text.split("\n")
    blocks = _blocks(lines)
    if not any(count > limit for *_, count in blocks):
        return None
    out, serial, previous = [], 0, 0
    renamed: dict[int, dict[str, str]] = {}  # per function: a label is local to its function
    spans: dict[int, list[int]] = {}  # per function: its lines in `out`
    for function, label, start, end, count in blocks:
        out.extend(lines[previous:start])
        spans.setdefault(function, [len(out), 0])
        previous = end
        if count <= limit or label is None:  # an unnamed entry block is never this long
            out.extend(lines[start:end])
            spans[function][1] = len(out)
            continue
        body = lines[start:end]
        last_alloca = max((i for i, ln in enumerate(body) if " = alloca " in ln), default=-1)
        since, piece = 0, None
        for i, line in enumerate(body):
            if line.startswith("  ") and not line.startswith("  ;"):
                since += 1
            if since > limit and i > last_alloca and _CUTTABLE.match(line):
                serial += 1
                piece = f"adlite.split.{serial}"
                out += [f"  br label %{piece}", f"{piece}:"]
                since = 1
            out.append(line)
        if piece is not None:
            renamed.setdefault(function, {})[label] = piece
        spans[function][1] = len(out)
    out.extend(lines[previous:])
    for function, names in renamed.items():
        first, stop = spans[function]
        out[first:stop] = _rename_phi_predecessors(out[first:stop], names)
    return "\n".join(out)


def longest_block(ir_text: str) -> int:
    """The largest instruction count of a basic block of `ir_text` (0 without functions)."""
    return max((count for *_, count in _blocks(ir_text.split("\n"))), default=0)


def _blocks(lines: list[str]) -> list[tuple[int, str | None, int, int, int]]:
    """(function's `define` line, label as referenced after `%`, first line, end line,
    instruction count) of every basic block; the first block of a function whose label is not
    printed has label None."""
    blocks, current, in_function, function = [], None, False, -1
    for i, line in enumerate(lines):
        if line.startswith("define "):
            in_function, function, current = True, i, [i, None, i + 1, i + 1, 0]
        elif in_function and line.startswith("}"):
            blocks.append(tuple(current))
            in_function = False
        elif in_function and (m := _LABEL.match(line)):
            if current[4] or current[1] is not None:
                blocks.append(tuple(current))
            current = [function, m.group(1), i, i + 1, 0]
        elif in_function:
            current[3] = i + 1
            if line.startswith("  ") and not line.startswith("  ;"):
                current[4] += 1
    return [b for b in blocks if b[4]]


def _rename_phi_predecessors(lines: list[str], renamed: dict[str, str]) -> list[str]:
    """`phi` incoming blocks `%old` -> `%new` in one function's `lines`, for its split blocks
    (their terminators moved)."""

    def fix(line: str) -> str:
        if " = phi " not in line:
            return line
        for old, new in renamed.items():
            line = line.replace(f", %{old} ]", f", %{new} ]")
        return line

    return [fix(line) for line in lines]
