"""The LLVM IR adlite emits stays as small as it is today: a deterministic proxy of compile time.

The quick tier (tiers.py) generates code from this IR without LLVM's passes, so its size is
what the first call of a new signature pays for, and the optimised tier starts from it. The
bounds are today's instruction counts plus 10 %: a change that duplicates loop bodies, copies
routines into every loop or unrolls in the lowering fails here, not in a timing. Counted on
the module the quick tier parses (the gradient of each program, as its user calls it),
independently of the host CPU: instructions are the indented lines of each function body.
"""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np
import pytest

from adlite.compiler import grad
from adlite.compiler.backends.llvm import jit as native
from benchmarks.compile_time import straight_line

from ..corpus.real_programs import load
from ..support.generated_source import load_function

# program: LLVM instructions of its gradient today (binomial_tree's ~100 full sums of 8 to 41
# elements are numpy's 8-lane leaves since pairwise.py: 15731 before)
CORPUS_BOUNDS = {
    "lstm": 8117, "binomial_tree": 18555, "particles": 22819, "gmm": 12296,
    "sir_model": 31466, "kalman_filter": 6348, "hmm_forward": 3721,
}
STRAIGHT_LINE_BOUNDS = {(100, True): 9464, (1000, False): 11334}  # (statements, array)


def _instructions(text: str) -> int:
    count, inside = 0, False
    for line in text.split("\n"):
        if line.startswith("define "):
            inside = True
        elif line.startswith("}"):
            inside = False
        elif inside and line.startswith("  ") and not line.startswith("  ;"):
            count += 1
    return count


@pytest.fixture
def emitted(monkeypatch) -> list[str]:
    """The module texts the quick tier parses from now on (disk cache off)."""
    monkeypatch.setenv("ADLITE_CACHE_DIR", "off")
    monkeypatch.setenv("ADLITE_OPT", "fast")
    texts, parse = [], native._parse
    monkeypatch.setattr(native, "_parse", lambda text, tm: texts.append(text) or parse(text, tm))
    return texts


@pytest.mark.parametrize("name", sorted(CORPUS_BOUNDS))
def test_the_gradient_of_a_corpus_program_emits_no_more_ir_than_today(name, emitted):
    case = load(name).CASE
    with contextlib.redirect_stdout(io.StringIO()):
        grad(case.entry, wrt=case.wrt)(*copy.deepcopy(case.args), **copy.deepcopy(case.kwargs))
    count = sum(_instructions(t) for t in emitted)
    print(f"{name}: {count} LLVM instructions")
    assert 0 < count <= 1.1 * CORPUS_BOUNDS[name]


@pytest.mark.parametrize(("statements", "array"), sorted(STRAIGHT_LINE_BOUNDS))
def test_straight_line_gradients_emit_a_bounded_ir_per_statement(statements, array, emitted,
                                                                  tmp_path):
    f = load_function(straight_line(statements, array), tmp_path)
    x = np.linspace(0.1, 0.9, 64) if array else 0.3
    grad(f, wrt=(0, 1))(x, 0.7)
    count = sum(_instructions(t) for t in emitted)
    print(f"{statements} statements ({'array' if array else 'scalar'}): {count} instructions, "
          f"{count / statements:.1f} per statement")
    assert 0 < count <= 1.1 * STRAIGHT_LINE_BOUNDS[(statements, array)]
