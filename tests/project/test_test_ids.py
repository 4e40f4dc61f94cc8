"""Test ids are the same in every interpreter and readable: two collections of the suite in
fresh interpreters with different hash seeds list the same ids, and no id shows a memory
address, a numpy array's repr, a newline or a long run of data. pytest-xdist relies on the
first (every worker must collect the same tests); people reading reports, `-k` and
`--deselect` on the second. Only collection runs in the subprocesses, never the tests."""

import os
import subprocess
import sys
from pathlib import Path

from ..support.paths import ROOT

SEEDS = ("0", "12345")
MAX_ID = 200  # a whole node id: path, test name and parameters
MAX_PARAMETERS = 64  # the part in brackets: names of cases, not their data or messages
UNREADABLE = (
    " at 0x",  # default repr of a function or object: changes from run to run
    "array(",  # numpy's repr of an array
    "\\n",  # a newline (pytest escapes it), e.g. from str() of a 2-D array
    "<lambda>",
    "<class '",
)


def _collect(folder: Path) -> dict[str, list[str]]:
    """The ids collected with each seed (the collections run at the same time)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_") and k != "PYTHONHASHSEED"}
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=",
               "-p", "no:cacheprovider", str(ROOT / "tests")]
    processes = {}
    try:
        for seed in SEEDS:
            with open(folder / f"seed_{seed}.txt", "w") as out:
                processes[seed] = subprocess.Popen(
                    command, cwd=ROOT, env={**env, "PYTHONHASHSEED": seed}, stdout=out,
                    stderr=subprocess.STDOUT)
        for process in processes.values():
            process.wait(timeout=600)
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.kill()
                process.wait()
    ids = {}
    for seed, process in processes.items():
        out = (folder / f"seed_{seed}.txt").read_text()
        assert process.returncode == 0, f"collection failed:\n{out[-4000:]}"
        ids[seed] = [line for line in out.splitlines() if "::" in line]
        assert ids[seed], out[-4000:]
    return ids


def test_ids_are_the_same_in_every_interpreter_and_readable(tmp_path):
    first, second = _collect(tmp_path).values()
    differ = sorted(set(first).symmetric_difference(second))
    assert not differ, (f"{len(differ)} ids differ between PYTHONHASHSEED={SEEDS[0]} and "
                        f"{SEEDS[1]}:\n" + "\n".join(differ[:20]))
    assert first == second, "the same ids were collected in a different order"
    unreadable = [i for i in first if any(text in i for text in UNREADABLE)]
    assert not unreadable, "ids that show data or addresses:\n" + "\n".join(unreadable[:20])
    too_long = [i for i in first if len(i) > MAX_ID or
                ("[" in i and len(i) - i.index("[") > MAX_PARAMETERS)]
    assert not too_long, "ids that are too long:\n" + "\n".join(too_long[:20])
