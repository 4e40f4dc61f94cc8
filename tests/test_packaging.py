"""The wheel holds every module of the source tree, under the names the code imports."""

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("compiler", "derivatives", "runtime")


def test_the_wheel_holds_every_module_of_the_tree(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w",
                    str(tmp_path), str(ROOT)], check=True, timeout=600, cwd=tmp_path)
    wheel = next(tmp_path.glob("adlite-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
        entry_points = archive.read(next(n for n in names
                                         if n.endswith(".dist-info/entry_points.txt")))
    shipped = sorted(n for n in names if n.endswith(".py"))
    tree = sorted(f"adlite/{path.relative_to(ROOT).as_posix()}" for root in SOURCES
                  for path in (ROOT / root).rglob("*.py") if "__pycache__" not in path.parts)
    assert shipped == tree
    assert b"License-Expression: MIT" in metadata
    assert b"adlite = adlite.compiler.cli:main" in entry_points
