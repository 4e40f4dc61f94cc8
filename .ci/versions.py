"""The dependency floors and the Python versions we claim, tested (`make test` runs this).

    python .ci/versions.py [--env NAME ...]

Each environment is a fresh venv outside the checkout, with this checkout's wheel installed
(not editable) and the core suite (`CORE`, every layer of the compiler and the tape) run
against it from the checkout's tests:
- `lowest`: the oldest Python we support and the lowest version that pyproject.toml allows
  of every runtime dependency and of the `scipy` and `dask` extras (read from pyproject.toml,
  so a floor cannot be raised or lowered without this run checking it), cloudpickle 3.1.2;
- `py3.12`, `py3.13`: the newest releases on each newer supported Python (the main suite
  already runs the newest releases on the default Python).
Warnings that adlite's own modules cause are errors in every run (pyproject.toml's pytest
`filterwarnings`). A Python the machine lacks is reported and skipped; anything else that
fails stops the run with a non-zero exit.
"""

from __future__ import annotations

import argparse
import glob
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from installed import build_wheel  # .ci/installed.py, beside this script

ROOT = Path(__file__).resolve().parent.parent
TEST_TOOLS = ["pytest", "pytest-xdist", "hypothesis"]
CORE = [f"tests/{folder}/test_{name}.py" for folder, names in {
    "ad": ("gradients_over_shapes", "stencil_gradients", "tape_storage"),
    "backends": ("aot", "aot_arrays", "dask", "disk_cache", "functions_by_value",
                 "llvm_backend", "loop_codegen", "native_calls", "native_lifecycle", "processes",
                 "threads_determinism"),
    "compiler": ("import_layers", "optimisations_structure", "pipeline"),
    "corpus": ("array_corpus", "compiler_corpus", "compiler_seeds", "outside_audit_regressions"),
    "frontend": ("builtins_on_arrays", "calls_closures", "compiler_errors",
                 "containers_cross_blocks", "effects", "masks_slices", "sequences_loops"),
    "library": ("decompositions", "linalg", "numpy_functions", "scipy_linalg", "special_inverse"),
    "project": ("examples",),
    "runtime": ("ops_gradcheck", "seeds_eager", "tape_number_conversion", "tape_semantics"),
    "semantics": ("aliasing", "float32_numbers", "int_semantics"),
    "transformations": ("checkpointing", "complex_numbers", "custom_derivatives",
                        "entry_arguments", "fft", "jacobian", "pytrees",
                        "specialised_entry_values", "vmap"),
}.items() for name in names]
# cloudpickle is not ours to pin, but the release before 3.1.3 (which rewrites the file
# names of the code it pickles) is the one functions by value must also work with
LOWEST_EXTRA = ["cloudpickle==3.1.2"]


def floors() -> list[str]:
    """`name==floor` for every runtime dependency and every extra but the tools' (test,
    bench, docs, conformance)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    wanted = project["dependencies"] + [d for name, deps in extras.items()
                                        if name not in ("test", "bench", "docs", "conformance")
                                        for d in deps]
    pins = {}
    for requirement in wanted:
        found = re.fullmatch(r"([A-Za-z0-9_.\-]+(?:\[[^\]]+\])?)>=([0-9.]+)", requirement)
        if found is None:
            raise SystemExit(f"pyproject.toml: {requirement!r} has no `>=` floor")
        pins[found.group(1)] = found.group(2)
    return [f"{name}=={version}" for name, version in sorted(pins.items())]


def python(version: str) -> str | None:
    """An interpreter of `version` ("3.12") on this machine, or None."""
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(glob.glob(str(Path.home() / f".pyenv/versions/{version}.*/bin/python3")))
    for candidate in filter(None, candidates):
        out = subprocess.run([candidate, "-c", "import sys; print(sys.version_info[:2])"],
                             capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip() == str(tuple(map(int,
                                                                      version.split(".")))):
            return candidate
    return None


def environments() -> dict[str, tuple[str, list[str]]]:
    """name -> (Python version, what pip installs besides adlite and the test tools)."""
    oldest = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "requires-python"].removeprefix(">=")
    return {"lowest": (oldest, floors() + LOWEST_EXTRA),
            "py3.12": ("3.12", ["adlite[dask,scipy]"]),
            "py3.13": ("3.13", ["adlite[dask,scipy]"])}


def step(what: str, argv: list[str], cwd: Path) -> None:
    start = time.perf_counter()
    print(f"... {what}", flush=True)
    out = subprocess.run(argv, cwd=cwd)
    if out.returncode != 0:
        raise SystemExit(f"FAILED: {what} (exit {out.returncode})")
    print(f"ok  {what} ({time.perf_counter() - start:.0f} s)", flush=True)


def run(name: str, version: str, requirements: list[str], wheel: Path, tmp: Path) -> bool:
    interpreter = python(version)
    if interpreter is None:
        print(f"skip {name}: no Python {version} on this machine")
        return False
    venv = tmp / name
    step(f"{name}: venv with {interpreter}", [interpreter, "-m", "venv", str(venv)], tmp)
    py = str(venv / "bin" / "python")
    wanted = [f"{r} @ {wheel.as_uri()}" if r.startswith("adlite[") else r
              for r in requirements]
    if not any(r.startswith("adlite") for r in wanted):
        wanted.append(str(wheel))
    step(f"{name}: install {' '.join(requirements)}",
         [py, "-m", "pip", "install", "--quiet", *wanted, *TEST_TOOLS], tmp)
    subprocess.run([py, "-m", "pip", "list", "--format=freeze"], cwd=tmp)
    step(f"{name}: core suite", [py, "-m", "pytest", "-n", "auto", "-p", "no:cacheprovider",
                                 *CORE], ROOT)
    return True


def main() -> int:
    chosen = environments()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", action="append", choices=sorted(chosen),
                        help="run only these environments (default: all)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="adlite-versions-"))
    try:
        wheel = build_wheel(sys.executable, tmp)
        ran = [name for name, (version, requirements) in chosen.items()
               if name in (args.env or chosen) and run(name, version, requirements, wheel, tmp)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"versions passed: {', '.join(ran)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
