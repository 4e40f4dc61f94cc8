"""The examples run (`make demo`) and print what they promise."""

import subprocess
import sys

from ..support.paths import ROOT


def run(script: str) -> str:
    return subprocess.run([sys.executable, str(ROOT / "examples" / script)], capture_output=True,
                          text=True, check=True, cwd=ROOT).stdout


def test_seed_graphs_example():
    out = run("seed_graphs.py")
    assert "dy/dw = [5.0]  dy/dx = [2.0]" in out and "digraph adlite" in out


def test_compiler_tour_example():
    out = run("compiler_tour.py")
    assert "result: (20, 20)" in out and "_tape.pop()" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("compiled d/dx"))
    compiled, eager = (float(part.split("=")[1]) for part in line.split("   "))
    assert compiled == eager
