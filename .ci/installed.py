"""What a user installs, tested as a user gets it (`make test` runs this after the suite).

    python .ci/installed.py [--python PYTHON]

Builds the wheel of this checkout, installs it (not editable, with the `dask` and `scipy`
extras) into a fresh venv in a temporary directory outside the checkout, and runs there,
from a directory holding only copies of README.md and examples/:
- every `python` code block of README.md, each as a script of its own; a fenced block whose
  info string holds the word `output` is what the block before it prints, compared exactly
  but for trailing newlines (so the README cannot go stale);
- every example script (examples/*.py);
- `adlite --help`, and `adlite compile examples/oscillator.py:oscillator --grad -o build`, whose
  library `examples/aot_oscillator.c` then links and runs (where a C compiler exists).
Also checks that `adlite` is imported from the venv, not from the checkout. Exits non-zero at
the first failure, printing what ran and what it printed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(.*)$")


DISTRIBUTED = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "compiler", "derivatives",
               "runtime")


def build_wheel(python: str, into: Path) -> Path:
    """The wheel of the checkout as it is, built from a clean copy of what the sdist holds
    (setuptools would reuse what an earlier build left in the checkout's build/)."""
    source = into / "source"
    for name in DISTRIBUTED:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name,
                            ignore=shutil.ignore_patterns("__pycache__"))
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / name, source)
    subprocess.run([python, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(into),
                    str(source)], check=True, timeout=900, cwd=into)
    shutil.rmtree(source)
    return next(into.glob("adlite-*.whl"))


def readme_blocks(text: str) -> list[tuple[int, str, str | None]]:
    """(line, code, expected output or None) for each `python` block of a markdown text."""
    blocks: list[tuple[int, str, str]] = []  # (line, info, body)
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        opened = FENCE.match(lines[i].rstrip("\n"))
        if not opened:
            i += 1
            continue
        info, start, body = opened.group(1).strip(), i + 1, []
        i += 1
        while i < len(lines) and lines[i].rstrip("\n") != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise SystemExit(f"README.md:{start}: a code block is never closed")
        blocks.append((start, info, "".join(body)))
        i += 1
    runs: list[tuple[int, str, str | None]] = []
    for start, info, body in blocks:
        words = info.split()
        if "output" in words:
            if not runs or runs[-1][2] is not None:
                raise SystemExit(f"README.md:{start}: an output block follows no python block")
            runs[-1] = (runs[-1][0], runs[-1][1], body)
        elif words[:1] == ["python"]:
            runs.append((start, body, None))
    return runs


class Smoke:
    def __init__(self, python: str) -> None:
        self.python = python
        self.tmp = Path(tempfile.mkdtemp(prefix="adlite-installed-"))
        self.work = self.tmp / "work"
        self.venv = self.tmp / "venv"
        # compiled code is not taken from the user's disk cache: every first call compiles
        self.env = {**os.environ, "ADLITE_CACHE_DIR": str(self.tmp / "cache")}

    def run(self, what: str, argv: list[str], expected: str | None = None,
            cwd: Path | None = None, timeout: int = 900) -> str:
        start = time.perf_counter()
        out = subprocess.run(argv, capture_output=True, text=True, cwd=cwd or self.work,
                             timeout=timeout, env=self.env)
        took = time.perf_counter() - start
        differs = expected is not None and out.stdout.rstrip("\n") != expected.rstrip("\n")
        if out.returncode != 0 or differs:
            print(f"FAILED: {what} ({' '.join(map(str, argv))}), exit {out.returncode}")
            print("--- stdout\n" + out.stdout[-6000:] + "--- stderr\n" + out.stderr[-6000:])
            if differs:
                print("--- expected stdout\n" + expected)
            raise SystemExit(1)
        print(f"ok  {what} ({took:.1f} s)", flush=True)
        return out.stdout

    def install(self) -> None:
        dist = self.tmp / "dist"
        dist.mkdir()
        wheel = build_wheel(self.python, dist)
        print(f"ok  built {wheel.name}", flush=True)
        self.run("create a fresh venv", [self.python, "-m", "venv", str(self.venv)], cwd=self.tmp)
        pip = [str(self.venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
        self.run("install the wheel with its extras",
                 pip + [f"adlite[dask,scipy] @ {wheel.as_uri()}"], cwd=self.tmp)
        self.work.mkdir()
        shutil.copy(ROOT / "README.md", self.work)
        shutil.copytree(ROOT / "examples", self.work / "examples")

    def check(self) -> None:
        py = str(self.venv / "bin" / "python")
        where = self.run("import adlite from the venv", [py, "-c", (
            "import adlite.compiler, adlite.runtime, adlite.derivatives; "
            "print(adlite.compiler.__file__)")])
        if not where.startswith(str(self.venv)):
            raise SystemExit(f"FAILED: adlite was imported from {where.strip()}, not the venv")
        for line, code, expected in readme_blocks((ROOT / "README.md").read_text()):
            script = self.work / f"readme_line_{line}.py"
            script.write_text(code)
            self.run(f"README.md block at line {line}", [py, script.name], expected)
        for example in sorted((ROOT / "examples").glob("*.py")):
            self.run(f"examples/{example.name}", [py, f"examples/{example.name}"])
        adlite = str(self.venv / "bin" / "adlite")
        helped = self.run("adlite --help", [adlite, "--help"])
        assert "compile" in helped and "show" in helped, helped
        self.run("adlite compile of an example", [adlite, "compile",
                                                  "examples/oscillator.py:oscillator", "--grad",
                                                  "-o", "build"])
        compiler = shutil.which("cc") or shutil.which("gcc")
        if compiler is None:
            print("skip: no C compiler to link examples/aot_oscillator.c")
            return
        self.run("link examples/aot_oscillator.c", [
            compiler, "-O2", "-o", "build/aot_oscillator", "examples/aot_oscillator.c",
            "-Ibuild", "-Lbuild", "-loscillator_grad", "-Wl,-rpath,$ORIGIN"])
        self.run("run the C program", ["build/aot_oscillator"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable,
                        help="the Python that builds the wheel and makes the venv")
    args = parser.parse_args()
    smoke = Smoke(args.python)
    try:
        smoke.install()
        smoke.check()
    finally:
        shutil.rmtree(smoke.tmp, ignore_errors=True)
    print("the installed wheel passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
