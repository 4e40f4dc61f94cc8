"""How many random programs the property tests draw: their CI count times the positive
integer in the environment variable ADLITE_RANDOM_SCALE (1 when unset). Issues ask for a run
at 10x before a change lands: `ADLITE_RANDOM_SCALE=10 pytest tests/corpus/test_*random*.py`."""

from __future__ import annotations

import os


def examples(ci_count: int) -> int:
    text = os.environ.get("ADLITE_RANDOM_SCALE", "1").strip()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"ADLITE_RANDOM_SCALE must be a positive integer, got {text!r}")
    return ci_count * int(text)
