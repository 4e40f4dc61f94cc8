"""The wheel holds every module of the source tree, under the names the code imports, and
the `py.typed` markers."""

import importlib.util
import sys
import zipfile

from ..support.paths import ROOT

SOURCES = ("compiler", "derivatives", "runtime")


def _installed_script():
    """.ci/installed.py, which builds the wheel the smoke run installs."""
    spec = importlib.util.spec_from_file_location("installed", ROOT / ".ci" / "installed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_wheel_holds_every_module_of_the_tree(tmp_path):
    wheel = _installed_script().build_wheel(sys.executable, tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
        entry_points = archive.read(next(n for n in names
                                         if n.endswith(".dist-info/entry_points.txt")))
    shipped = sorted(n for n in names if n.endswith(".py"))
    tree = sorted(f"adlite/{path.relative_to(ROOT).as_posix()}" for root in SOURCES
                  for path in (ROOT / root).rglob("*.py") if "__pycache__" not in path.parts)
    assert shipped == tree
    # PEP 561: each package is typed (setuptools ships py.typed as package data by default)
    assert {f"adlite/{root}/py.typed" for root in SOURCES} <= set(names)
    assert b"License-Expression: MIT" in metadata
    assert b"adlite = adlite.compiler.cli:main" in entry_points
