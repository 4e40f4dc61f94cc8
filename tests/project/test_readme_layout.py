"""The README's layout section names every module of the three packages (issue 23, item 6): a
module added without its one-line job there fails here."""

from __future__ import annotations

import pytest

from ..support.paths import ROOT

PACKAGES = ("compiler", "derivatives", "runtime")


def _layout() -> str:
    text = (ROOT / "README.md").read_text()
    return text[text.index("## Layout"):text.index("## Testing what users get")]


def _modules() -> list[str]:
    return [f"{package}/{path.relative_to(ROOT / package)}" for package in PACKAGES
            for path in sorted((ROOT / package).rglob("*.py"))]


@pytest.mark.parametrize("module", _modules())
def test_the_layout_names_the_module_and_its_job(module):
    package, relative = module.split("/", 1)
    layout = _layout()
    block = layout[layout.index(f"{package}/ (adlite.{package})"):]
    line = next((ln for ln in block.splitlines() if ln.split()[:1] == [relative]), None)
    assert line is not None, f"README's layout section does not list {module}"
    assert len(line.split(None, 1)) == 2, f"{module} is listed without its job"
