"""The tables, the causes and the JSON of a conformance run.

`tally(rows)` counts results per (file, mode) and per mode; `pass %` is over the results
that are neither `skip` nor `n/a` ("-" where every result is one). `causes(rows)` groups the
`refused` and `crash` results by the first line of their message with paths, numbers and
generated names normalised (`normalise`).
Every table is sorted (files by name, modes in `MODES` order, causes by count then text).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from .modes import MODES, STATUSES

Row = tuple[str, str, str, str]  # (file, mode, status, message)

_PATH = re.compile(r"""(?:[A-Za-z]:)?[^\s'"(),:]*/[^\s'"(),:]+\.py""")
_NUMBER = re.compile(r"(?<![A-Za-z_])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def normalise(message: str) -> str:
    """A message's first line with paths -> <file>, numbers -> N, the harness's generated
    names (case_00042, x0, u1) -> their stem."""
    line = (message.strip().splitlines() or [""])[0]
    line = _PATH.sub("<file>", line)
    line = re.sub(r"\bcase_\d+\b", "case", line)
    line = re.sub(r"\b([xu])\d+\b", r"\1", line)
    line = _NUMBER.sub("N", line)
    return line[:160]


def pass_percent(counts: Counter) -> float | None:
    """100 * pass / (the results that are neither `skip` nor `n/a`); None when there are
    none."""
    judged = sum(counts[s] for s in STATUSES if s not in ("skip", "n/a"))
    return 100.0 * counts["pass"] / judged if judged else None


def _percent(counts: Counter | None, digits: int) -> str:
    share = None if counts is None else pass_percent(counts)
    return "-" if share is None else f"{share:.{digits}f}"


def tally(rows: Iterable[Row]) -> tuple[dict[tuple[str, str], Counter], dict[str, Counter]]:
    per_file: dict[tuple[str, str], Counter] = {}
    per_mode: dict[str, Counter] = {m: Counter() for m in MODES}
    for file, mode, status, _ in rows:
        per_file.setdefault((file, mode), Counter())[status] += 1
        per_mode[mode][status] += 1
    return per_file, per_mode


def causes(rows: Iterable[Row]) -> list[tuple[int, str, str, str]]:
    """(results, status, modes, normalised message) of the refusals and crashes, most first."""
    counts: Counter = Counter()
    modes: dict[tuple[str, str], set[str]] = {}
    for _, mode, status, message in rows:
        if status in ("refused", "crash"):
            key = (status, normalise(message))
            counts[key] += 1
            modes.setdefault(key, set()).add(mode)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(n, status, ",".join(m for m in MODES if m in modes[(status, text)]), text)
            for (status, text), n in ordered]


def _counts_row(label: str, counts: Counter) -> list[str]:
    return [label, *(str(counts[s]) for s in STATUSES), _percent(counts, 1)]


def _table(header: list[str], rows: list[list[str]], text: int = 1) -> list[str]:
    """Columns padded to their widths: the first `text` columns and the last one, when
    `text` > 1, to the left (words), the others to the right (numbers)."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    words = set(range(text)) | ({len(widths) - 1} if text > 1 else set())
    fmt = "  ".join(f"{{:{'<' if i in words else '>'}{w}}}" for i, w in enumerate(widths))
    return [fmt.format(*header).rstrip(), *(fmt.format(*r).rstrip() for r in rows)]


def tables(rows: list[Row], top: int = 15) -> str:
    """The text the run prints: per file and mode, pass % per file, totals, top causes."""
    per_file, per_mode = tally(rows)
    files = sorted({f for f, _ in per_file})
    lines = ["Per file and mode:"]
    lines += _table(["file / mode", *STATUSES, "pass %"],
                    [_counts_row(f"{f} {m}", per_file[(f, m)]) for f in files for m in MODES
                     if (f, m) in per_file])
    lines += ["", "Pass % per file (results: case x mode, skips and n/a excluded):"]
    lines += _table(["file", "cases", *MODES],
                    [[f, str(sum(per_file.get((f, "jit"), Counter()).values())),
                      *(_percent(per_file.get((f, m)), 0) for m in MODES)] for f in files])
    lines += ["", "Totals per mode:"]
    lines += _table(["mode", *STATUSES, "pass %"],
                    [_counts_row(m, per_mode[m]) for m in MODES])
    lines += ["", f"Top {top} refusal/crash causes (results):"]
    lines += _table(["status", "modes", "results", "cause"],
                    [[s, m, str(n), text] for n, s, m, text in causes(rows)[:top]], text=2)
    return "\n".join(lines)


def summary(rows: list[Row]) -> dict[str, Any]:
    """The totals for the JSON: per mode and per file and mode, counts and pass %."""
    per_file, per_mode = tally(rows)
    return {
        "per_mode": {m: {**{s: per_mode[m][s] for s in STATUSES},
                         "pass_percent": pass_percent(per_mode[m])} for m in MODES},
        "per_file": {f"{f} {m}": {s: c[s] for s in STATUSES}
                     for (f, m), c in sorted(per_file.items())},
        "causes": [{"results": n, "status": s, "modes": m, "cause": t}
                   for n, s, m, t in causes(rows)],
    }
