"""adlite's own code uses nothing that Python 3.14 removes (we test 3.11 to 3.13 only)."""

import ast

from ..support.paths import ROOT

SOURCES = ("compiler", "derivatives", "runtime")
# "What's New In Python 3.14", Removed: the names code could still reach on 3.13
REMOVED = {
    "ast": {"Num", "Str", "Bytes", "NameConstant", "Ellipsis"},
    "pkgutil": {"find_loader", "get_loader"},
    "asyncio": {"get_child_watcher", "set_child_watcher", "AbstractChildWatcher",
                "FastChildWatcher", "SafeChildWatcher", "ThreadedChildWatcher",
                "MultiLoopChildWatcher", "PidfdChildWatcher"},
    "typing": {"ByteString"},
    "collections.abc": {"ByteString"},
    "importlib.abc": {"ResourceReader", "Traversable", "TraversableResources"},
    "sqlite3": {"version", "version_info"},
    "urllib.request": {"URLopener", "FancyURLopener"},
}


def _uses(tree: ast.AST) -> list[str]:
    """`module.name` of every removed name the module reads or imports."""
    aliases = {}  # local name -> module
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module in REMOVED:
            found += [f"{node.module}.{a.name}" for a in node.names
                      if a.name in REMOVED[node.module]]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = aliases.get(node.value.id)
            if module in REMOVED and node.attr in REMOVED[module]:
                found.append(f"{module}.{node.attr}")
    return found


def test_no_name_that_python_3_14_removes():
    used = {str(path.relative_to(ROOT)): _uses(ast.parse(path.read_text()))
            for root in SOURCES for path in sorted((ROOT / root).rglob("*.py"))}
    assert {path: names for path, names in used.items() if names} == {}


def test_the_check_sees_a_removed_name():
    assert _uses(ast.parse("import ast\nx = ast.Num(1)\nfrom pkgutil import find_loader")) \
        == ["pkgutil.find_loader", "ast.Num"]
