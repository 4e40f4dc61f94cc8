"""Every public object of adlite documents itself with examples that run (issue 22, item 4).

The public API: the functions and classes that `adlite.compiler.__all__` and
`adlite.runtime.__all__` name (so a new public name is checked as soon as it is exported),
the names API lists for the other public modules (whose own `__all__`, where they have one,
also holds internals), and the key members of `Tensor`. Each has a docstring whose first
line is its summary and which has an `Examples:` section of doctests; every example runs and
prints what its docstring says, with numpy's default print options (whatever another test
set) and in a namespace of its own named `__main__`, as a script's (so a function an example
defines is pickled by value, as a user's would be). The HTML reference (`make docs`) renders
the same docstrings: every public object is on one of its pages (docs/api/*.md), under its
public name.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import io
import tempfile

import numpy as np
import pytest

from ..support.paths import ROOT

# modules whose `__all__` is the public API (the submodules it names are in API)
EXPORTING = ("adlite.compiler", "adlite.runtime")
API = {
    "adlite.compiler.api": ("Transformed",),
    "adlite.compiler.aot": ("AotError", "compile_aot"),
    "adlite.compiler.cli": ("main",),
    "adlite.compiler.distributed": ("WorkerSetupError", "TaskError", "ShardLostError",
                                    "serial_grad", "scatter_shards", "data_parallel_grad",
                                    "compilations"),
    "adlite.runtime.autograd": ("backward", "grad"),
    "adlite.runtime.optim": ("SGD",),
}
MEMBERS = {
    "adlite.runtime.Tensor": ("backward", "detach", "grad", "is_leaf", "item", "numpy",
                              "requires_grad", "requires_grad_", "retain_grad"),
}
# Objects whose files another change of issue 22 is rewriting: their docstrings come with
# it. Strict: one that gains its examples fails here until it is taken off this list.
PENDING: dict[str, tuple[str, ...]] = {}
# numpy's defaults, so that the printed arrays are those a user sees
PRINT_OPTIONS = {"precision": 8, "threshold": 1000, "edgeitems": 3, "linewidth": 75,
                 "suppress": False, "nanstr": "nan", "infstr": "inf", "sign": "-",
                 "floatmode": "maxprec", "legacy": False}
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
PAGES = ROOT / "docs" / "api"


def _public() -> dict[str, object]:
    """{dotted name: object} of the public API, in a stable order."""
    found = {}
    for module_name in EXPORTING:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isroutine(obj):  # not submodules, not data
                found[f"{module_name}.{name}"] = obj
    for module_name, names in API.items():
        module = importlib.import_module(module_name)
        for name in names:
            found[f"{module_name}.{name}"] = getattr(module, name)
    for owner_name, names in MEMBERS.items():
        owner = found[owner_name]
        for name in names:
            found[f"{owner_name}.{name}"] = inspect.getattr_static(owner, name)
    return found


PUBLIC = _public()
PENDING_NAMES = {name for names in PENDING.values() for name in names}


def _documented(name: str):
    """The parameter of one public object, pending ones marked."""
    if name not in PENDING_NAMES:
        return name
    file = next(f for f, names in PENDING.items() if name in names)
    return pytest.param(name, marks=pytest.mark.xfail(
        strict=True, reason=f"{file}: its docstring comes with another change"))


def _examples(obj: object, name: str) -> doctest.DocTest:
    """The doctests of `obj`'s own docstring (not of its members), with where they are."""
    source = inspect.unwrap(obj.fget if isinstance(obj, property) else obj)
    return doctest.DocTestParser().get_doctest(obj.__doc__ or "", {"__name__": "__main__"},
                                               name, inspect.getsourcefile(source),
                                               inspect.getsourcelines(source)[1])


def _resolve(identifier: str) -> object:
    """What `identifier` names: its longest prefix that is a module, then attributes."""
    parts = identifier.split(".")
    for n in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:n]))
        except ModuleNotFoundError:
            continue
        for part in parts[n:]:
            obj = getattr(obj, part)
        return obj
    raise AssertionError(f"{identifier} names nothing")


def _rendered(page: str) -> dict[str, str]:
    """{name shown: identifier} of the `::: identifier` blocks of a reference page. The
    `heading:` option names an object whose identifier is the path of its defining module
    (griffe takes `adlite.runtime.dot` for the module runtime/dot.py, not for the function
    `dot` the package exports)."""
    shown, identifier = {}, None
    for line in page.splitlines():
        if line.startswith("::: "):
            identifier = line[4:].strip()
            shown[identifier] = identifier
        elif identifier and line.strip().startswith("heading:"):
            del shown[identifier]
            shown[line.split(":", 1)[1].strip()] = identifier
        elif not line.startswith(" "):
            identifier = None
    return shown


def test_the_reference_renders_every_public_object():
    shown = {}  # name shown -> the object rendered
    for page in sorted(PAGES.glob("*.md")):
        for name, identifier in _rendered(page.read_text()).items():
            shown[name] = _resolve(identifier)
    top_level = {name: obj for name, obj in PUBLIC.items()
                 if not any(name.startswith(f"{owner}.") for owner in MEMBERS)}
    missing = sorted(set(top_level) - set(shown))
    assert not missing, f"public objects on no page of {PAGES}: {missing}"
    wrong = sorted(name for name, obj in top_level.items() if shown[name] is not obj)
    assert not wrong, f"pages render other objects under these names: {wrong}"


def test_pending_names_are_public():
    assert PENDING_NAMES <= set(PUBLIC), sorted(PENDING_NAMES - set(PUBLIC))


@pytest.mark.parametrize("name", [_documented(name) for name in PUBLIC])
def test_public_object_has_a_summary_and_examples(name):
    doc = inspect.getdoc(PUBLIC[name]) or ""
    summary = doc.split("\n\n")[0]
    assert summary and "\n" not in summary, f"{name}: the summary is not one line: {summary!r}"
    assert "\nExamples:\n" in doc, f"{name}: no `Examples:` section"
    examples = doc.split("\nExamples:\n", 1)[1]
    assert ">>> " in examples, f"{name}: its `Examples:` section has no doctest"


@pytest.mark.parametrize("name", list(PUBLIC))
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # what examples write goes here
    test = _examples(PUBLIC[name], name)
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with np.printoptions(**PRINT_OPTIONS):
        result = runner.run(test, out=report.write)
    assert result.failed == 0, report.getvalue()
