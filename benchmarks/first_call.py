"""First-call latency of the corpus programs: adlite's first `grad` call against JAX's first
`jit(grad)` call of the same program, each in a fresh process with no compiled-code cache.

For every program of `tests/corpus/real_programs` (written by people, not for adlite), a child
process imports adlite, calls `grad(entry, wrt=...)` once with the program's arguments and
reports the seconds of that call, the seconds per stage of the compilations it ran (the
`adlite.compile` log records: frontend, optimize, ad, lower, cache, llvm-opt, codegen, load)
and how long after it the optimised tier was in use (`wait_optimised`). The same with
`ADLITE_OPT=full` gives the time before tiered compilation. JAX runs the program's module
with `np` bound to `jax.numpy` (float64 on) under `jax.jit(jax.grad(entry, argnums=wrt))`;
a program JAX cannot trace as written (in-place writes, Python control flow on values,
scipy) is listed with the exception's type, one that runs over 120 s as such. Imports are
excluded from every time. `python -m benchmarks.first_call [program ...]` prints the table;
`table()` is the `make bench` section.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_ADLITE = r"""
import contextlib, copy, io, json, logging, sys, time
sys.path.insert(0, sys.argv[2])
from tests.corpus.real_programs import load
case = load(sys.argv[1]).CASE
import adlite.compiler as ac
records = []
class Keep(logging.Handler):
    def emit(self, record):
        if hasattr(record, "compilation"):
            records.append(record.compilation)
logger = logging.getLogger("adlite.compile")
logger.addHandler(Keep())
logger.setLevel(logging.INFO)
logger.propagate = False
args, kwargs = copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
with contextlib.redirect_stdout(io.StringIO()):
    start = time.perf_counter()
    ac.grad(case.entry, wrt=case.wrt)(*args, **kwargs)
    first = time.perf_counter() - start
    ac.wait_optimised()
    optimised = time.perf_counter() - start
stages = {}
for r in records:
    for name, seconds in r.stages.items():
        stages[name] = stages.get(name, 0.0) + seconds
print(json.dumps({"first": first, "optimised": optimised, "stages": stages}))
"""

_JAX = r"""
import copy, json, sys, time
sys.path.insert(0, sys.argv[2])
import jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
from tests.corpus.real_programs import load
module = load(sys.argv[1])
module.np = jnp
case = module.CASE
args, kwargs = copy.deepcopy(case.args), copy.deepcopy(case.kwargs)
try:
    start = time.perf_counter()
    jax.block_until_ready(jax.jit(jax.grad(case.entry, argnums=case.wrt))(*args, **kwargs))
    print(json.dumps({"first": time.perf_counter() - start}))
except Exception as e:
    print(json.dumps({"error": type(e).__name__}))
"""

STAGES = ("frontend", "optimize", "ad", "lower", "llvm-opt", "codegen")


def _child(script: str, name: str, env: dict, limit: float = 120.0) -> dict:
    try:
        out = subprocess.run([sys.executable, "-c", script, name, str(ROOT)], cwd=ROOT,
                             env={**os.environ, "ADLITE_CACHE_DIR": "off", **env},
                             capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"error": f"over {limit:.0f} s"}
    if out.returncode:
        return {"error": (out.stderr.strip().splitlines() or ["crashed"])[-1][:60]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def jax_installed() -> bool:
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return True


def table(names: tuple[str, ...] | None = None) -> None:
    """Print the table (see the module doc)."""
    sys.path.insert(0, str(ROOT))
    from tests.corpus.real_programs import PROGRAMS

    with_jax = jax_installed()
    print("## First gradient call of the corpus programs (fresh process, disk cache off)\n")
    print("| program | adlite tiered (s) | optimised in use after (s) | adlite full O3 (s) | "
          "JAX jit(grad) (s) | adlite / JAX | " + " | ".join(STAGES) + " |")
    print("|---|" + "---:|" * (5 + len(STAGES)))
    ratios = []
    for name in names or PROGRAMS:
        tiered = _child(_ADLITE, name, {"ADLITE_OPT": "tiered"})
        full = _child(_ADLITE, name, {"ADLITE_OPT": "full"})
        peer = _child(_JAX, name, {}) if with_jax else {"error": "not installed"}
        if "error" in tiered:
            print(f"| {name} | {tiered['error']} |" + " |" * (4 + len(STAGES)))
            continue
        jax_cell = f"{peer['first']:.2f}" if "first" in peer else f"cannot ({peer['error']})"
        ratio = ""
        if "first" in peer:
            ratios.append(tiered["first"] / peer["first"])
            ratio = f"{ratios[-1]:.2f}"
        full_cell = f"{full['first']:.2f}" if "first" in full else full["error"]
        stages = " | ".join(f"{tiered['stages'].get(s, 0.0):.3f}" for s in STAGES)
        print(f"| {name} | {tiered['first']:.2f} | {tiered['optimised']:.2f} | {full_cell} | "
              f"{jax_cell} | {ratio} | {stages} |")
    if ratios:
        ratios.sort()
        print(f"\nadlite / JAX on the {len(ratios)} programs JAX runs: median "
              f"{ratios[len(ratios) // 2]:.2f}, worst {ratios[-1]:.2f}")
    print()


if __name__ == "__main__":
    table(tuple(sys.argv[1:]) or None)
