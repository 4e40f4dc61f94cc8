"""`python -m benchmarks.conformance [--files test_numpy.py ...] [--limit N] [--workers N]
[--timeout S] [--build DIR]`: downloads autograd's sdist (pinned), collects the cases of its
tests, runs each case in its own process through adlite's modes, prints the tables (per file
and mode, per file, totals, top causes) and writes build/conformance/results.json. Exits 0
whatever the results: it measures, it does not gate. `--tables results.json` prints the
tables of an earlier run again (nothing is run).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.conformance")
    parser.add_argument("--build", type=Path, default=Path("build/conformance"))
    parser.add_argument("--files", nargs="*", default=None, help="test files (default: all)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N cases")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    parser.add_argument("--tables", type=Path, default=None,
                        help="only print the tables of an earlier run's results.json")
    options = parser.parse_args(argv)
    if options.tables is not None:
        from .report import tables
        records = json.loads(options.tables.read_text())["cases"]
        print(tables([(r["case"].split("::")[0], mode, result["status"], result["message"])
                      for r in records for mode, result in r["results"].items()]))
        return 0
    # one thread per case process: the workers share the cores
    os.environ.setdefault("ADLITE_NUM_THREADS", "1")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # every frame kept: modes.classify_error looks for the frame that raised
    os.environ["ADLITE_TRACEBACK"] = "full"

    from importlib.metadata import version

    from . import AUTOGRAD_VERSION
    from .collect import collect
    from .modes import MODES
    from .pool import run_all
    from .report import summary, tables
    from .sdist import tests_folder

    tests = tests_folder(options.build.resolve())
    collection = collect(tests, options.files)
    cases = collection.cases[:options.limit]
    # complex cases after the real ones, which keep their numbers (and random cotangents)
    real = [c for c in cases if not c.is_complex]
    ordered = real + [c for c in cases if c.is_complex]
    started = time.monotonic()

    def progress(done: int, total: int) -> None:
        if done % 100 == 0 or done == total:
            print(f"  {done}/{total} cases, {time.monotonic() - started:.0f} s",
                  file=sys.stderr, flush=True)

    print(f"autograd {version('autograd')} installed (sdist {AUTOGRAD_VERSION}): "
          f"{len(cases)} cases "
          f"from {len({(c.file, c.test) for c in cases})} test functions, "
          f"{len(cases) - len(real)} with complex arguments", file=sys.stderr)
    results = run_all(ordered, tests, options.build.resolve() / "entries",
                      workers=options.workers, timeout=options.timeout, progress=progress)
    by_case = dict(zip((c.name for c in ordered), results, strict=True))
    rows, records = [], []
    for case in cases:
        got = sorted(by_case[case.name], key=lambda r: MODES.index(r.mode))
        rows += [(case.file, r.mode, r.status, r.message) for r in got]
        records.append({"case": case.name, "source": case.source, "argnums": case.argnums,
                        "modes": case.modes, "order": case.order,
                        "results": {r.mode: {"status": r.status, "message": r.message}
                                    for r in got}})
    text = tables(rows)
    print(text)
    today = datetime.date.today().isoformat()
    out = options.build / "results.json"
    out.write_text(json.dumps({
        "autograd": AUTOGRAD_VERSION, "date": today, "machine": platform.platform(),
        "cpus": os.cpu_count(), "workers": options.workers, "timeout_s": options.timeout,
        "seconds": round(time.monotonic() - started), "collection_errors":
            dict(sorted(collection.errors.items())),
        **summary(rows), "cases": records}, indent=1, sort_keys=False) + "\n")
    print(f"\n{len(cases)} cases ({len(real)} real), {len(rows)} results, "
          f"{time.monotonic() - started:.0f} s; wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
