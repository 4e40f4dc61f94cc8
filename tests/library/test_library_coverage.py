"""The README's counts of numpy and scipy functions that compile are the real ones."""

import re

import pytest

from ..support.library_coverage import numpy_names, scipy_names
from ..support.paths import ROOT

README = (ROOT / "README.md").read_text()


def test_the_readme_counts_the_numpy_functions_that_compile():
    quoted = re.search(r"In all, (\d+) numpy functions compile", README)
    assert quoted and int(quoted.group(1)) == len(numpy_names())


def test_the_readme_counts_the_scipy_functions_that_compile():
    pytest.importorskip("scipy")
    quoted = re.search(r"and (\d+) of `scipy.special` and `scipy.linalg`", README)
    assert quoted and int(quoted.group(1)) == len(scipy_names())


def test_the_count_sees_every_family():
    assert {"np.sort", "np.take_along_axis", "np.linalg.eigh", "np.linalg.solve",
            "np.cumsum", "np.hstack"} <= set(numpy_names())
