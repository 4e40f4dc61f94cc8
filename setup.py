"""Which packages the distribution holds: every package under the three source roots.

pyproject.toml holds the metadata; this file only maps the roots (`compiler/` ->
`adlite.compiler`, ...) and finds their subpackages, so a new subpackage ships without editing
a list. Setuptools' declarative `packages.find` cannot add the `adlite.` prefix to what it
finds, and hatchling cannot install such a prefix mapping editable (`make test` needs that).
"""

from setuptools import find_namespace_packages, setup

ROOTS = ("compiler", "derivatives", "runtime")


def _packages(root: str) -> list[str]:
    found = find_namespace_packages(root, exclude=["*__pycache__*"])
    return [f"adlite.{root}"] + [f"adlite.{root}.{name}" for name in found]


setup(
    package_dir={f"adlite.{root}": root for root in ROOTS},
    packages=[name for root in ROOTS for name in _packages(root)],
)
