"""The import graph of one package of adlite, read from its source with `ast`, and the checks
the layer tests run on it (`test_import_layers` for `adlite.compiler`, `test_runtime_layers`
for `adlite.runtime`).

Every import counts: at module level and inside functions, relative (`from ..ir import core`)
and absolute (`adlite.compiler.ir.core`), except those under `if TYPE_CHECKING:`, which
never run (annotations only). `from pkg import name` is an edge to the module `pkg.name` when
that is a module, else to `pkg` (its `__init__`). Parent packages are not counted as
imported: a package's `__init__` imports its whole API, and counting it would make every
module a cycle with it.

Layers are given per top-level module or subpackage of the package (`ir` for `ir.core`),
`__init__` for the package's own; a module may import those of its own layer or lower ones,
and the graph has no cycle.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path


class ImportGraph:
    """The modules of the package `package` (dotted, `adlite.compiler`) in folder `root`,
    named relative to it (`ir.core`; `""` for the package's `__init__`, `primitives` for a
    subpackage's)."""

    def __init__(self, root: Path, package: str) -> None:
        self.root = root
        self.package = package
        self.modules = self._modules()

    def _modules(self) -> dict[str, Path]:
        out = {}
        for path in sorted(self.root.rglob("*.py")):
            parts = list(path.relative_to(self.root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
        return out

    def _resolve(self, base: str) -> str | None:
        """`<package>.x.y` -> `x.y`; None outside the package."""
        if base == self.package:
            return ""
        if base.startswith(self.package + "."):
            return base[len(self.package) + 1:]
        return None

    def _target(self, name: str) -> str | None:
        """The module a dotted name refers to (the longest prefix that is one of ours)."""
        parts = name.split(".") if name else []
        while parts:
            candidate = ".".join(parts)
            if candidate in self.modules:
                return candidate
            parts.pop()
        return "" if "" in self.modules else None

    def imports_of(self, name: str) -> list[tuple[str, int]]:
        """(imported module, line) for every import statement in module `name`."""
        path = self.modules[name]
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        return self.imports_in(name, package, path.read_text())

    def imports_in(self, name: str, package: str, source: str) -> list[tuple[str, int]]:
        """(imported module, line) for every import statement in `source`, the text of module
        `name` of package `package`."""
        tree = ast.parse(source, name)
        found = []
        for node in _executed(tree):
            if isinstance(node, ast.Import):
                bases = [self._resolve(alias.name) for alias in node.names]
                found += [(b, node.lineno) for b in bases if b is not None]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".") if package else []
                    parts = parts[:len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                else:
                    base = self._resolve(node.module or "")
                    if base is None:
                        continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}" if base else alias.name
                    found.append((sub if sub in self.modules else base, node.lineno))
        out = []
        for target, line in found:
            module = self._target(target)
            if module is not None and module != name:
                out.append((module, line))
        return out

    def function_level_imports(self, name: str) -> list[int]:
        """The lines of module `name`'s imports of the package made inside functions."""
        tree = ast.parse(self.modules[name].read_text(), name)
        inside = {node.lineno for function in ast.walk(tree)
                  if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
                  for node in _executed(function)
                  if isinstance(node, ast.Import | ast.ImportFrom)}
        return sorted({line for _, line in self.imports_of(name)} & inside)

    def edges(self) -> dict[str, dict[str, int]]:
        """module -> {imported module: first line importing it}."""
        graph: dict[str, dict[str, int]] = {}
        for name in self.modules:
            edges: dict[str, int] = {}
            for target, line in self.imports_of(name):
                edges.setdefault(target, line)
            graph[name] = edges
        return graph

    def unlayered(self, layers: dict[str, int]) -> list[str]:
        """The top-level modules and subpackages missing from `layers`."""
        return sorted({_top(n) for n in self.modules} - set(layers))

    def cycles(self) -> list[str]:
        """Each import cycle, described with its edges and their lines (none: [])."""
        graph = self.edges()
        return [_describe(graph, c) for c in find_cycles(graph)]

    def upward(self, layers: dict[str, int]) -> list[str]:
        """Each import of a module of a higher layer than the importer's."""
        graph = self.edges()

        def layer(name: str) -> int:
            return layers[_top(name)]

        return [f"{v or '__init__'} (layer {layer(v)}) imports {w or '__init__'} "
                f"(layer {layer(w)}) at line {line}"
                for v in sorted(graph) for w, line in sorted(graph[v].items())
                if layer(w) > layer(v)]


def layer_tests(graph: ImportGraph, layers: dict[str, int]) -> tuple:
    """The three checks every layered package runs, as test functions for its test module:
    every module has a layer, the import graph has no cycle, imports go down the layers."""
    def test_every_module_has_a_layer():
        missing = graph.unlayered(layers)
        assert not missing, missing

    def test_no_import_cycles():
        cycles = graph.cycles()
        assert not cycles, "\n".join(cycles)

    def test_imports_go_down_the_layers():
        upward = graph.upward(layers)
        assert not upward, "\n".join(upward)

    return test_every_module_has_a_layer, test_no_import_cycles, test_imports_go_down_the_layers


def _top(name: str) -> str:
    return name.split(".")[0] or "__init__"


def _executed(tree: ast.AST):
    """The nodes of `tree` in `ast.walk`'s order, without the bodies of `if TYPE_CHECKING:`."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))
        yield node


def _is_type_checking(test: ast.expr) -> bool:
    return isinstance(test, ast.Name) and test.id == "TYPE_CHECKING" or \
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def find_cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as one
    cycle through all of it where possible, printed in a stable order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(components)


def _describe(graph: dict[str, dict[str, int]], component: list[str]) -> str:
    members = set(component)
    lines = [f"cycle of {len(component)} modules:"]
    for v in component:
        for w, line in sorted(graph[v].items()):
            if w in members:
                lines.append(f"  {v or '__init__'} -> {w or '__init__'}  (line {line})")
    return "\n".join(lines)
