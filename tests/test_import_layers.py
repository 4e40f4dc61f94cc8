"""The import structure of `compiler/`, checked from the source with `ast`.

Every import counts: at module level and inside functions, relative (`from ..ir import core`)
and absolute (`adlite.compiler.ir.core`). `from pkg import name` is an edge to the module
`pkg.name` when that is a module, else to `pkg` (its `__init__`). Parent packages are not
counted as imported: `adlite.compiler/__init__` imports the whole API, and counting it would
make every module a cycle with it.

Two properties:
- the module import graph has no cycle (the failure prints the cycles);
- nothing imports a module of a higher layer. Layers, lowest first:
    0  errors, status, compile_once, gast_adapter   leaves: import nothing of the compiler
    1  ir            graphs, and what a primitive is: the table (`ir.primitive`), which the
                     IR's builder, verifier and evaluator look names up in
    2  primitives    every primitive's own rules, registered in that table
       arguments, log   call signatures, and the logging of compilations (which reads them)
    3  ad, passes    transformations consuming the table (`ad` also attaches the structural
                     AD rules of control flow to it; reverse mode runs `passes.dce`)
    4  backends      lowering graphs to Python source and to LLVM
    5  frontend      Python source -> IR
    6  pipeline      the named stages frontend -> optimize -> ad -> optimize -> lower
    7  api, aot, cli, custom, jacobian, __init__   the user-facing entry points (they choose
       stages)
       batching      `vmap`: batches the graphs the pipeline makes, compiled through `api`
       pickling, distributed   ship them to other processes
  Within one layer imports are free but acyclic; `ad` and `passes` share layer 3.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "compiler"
PACKAGE = "adlite.compiler"

LAYERS = {
    "errors": 0, "status": 0, "compile_once": 0, "gast_adapter": 0, "tracebacks": 0,
    "ir": 1,
    "primitives": 2, "arguments": 2, "log": 2,
    "ad": 3, "passes": 3, "structured_calls": 3,
    "backends": 4,
    "frontend": 5,
    "pipeline": 6,
    "api": 7, "aot": 7, "cli": 7, "custom": 7, "__init__": 7,
    "jacobian": 7, "batching": 7, "pickling": 7, "distributed": 7,
}


def _modules() -> dict[str, Path]:
    """Dotted names relative to the package (`ir.core`, `primitives` for its `__init__`)."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _resolve(base: str) -> str | None:
    """`adlite.compiler.x.y` -> `x.y`; None outside the compiler."""
    if base == PACKAGE:
        return ""
    if base.startswith(PACKAGE + "."):
        return base[len(PACKAGE) + 1:]
    return None


def _target(name: str) -> str | None:
    """The module a dotted name refers to (the longest prefix that is one of ours)."""
    parts = name.split(".") if name else []
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return "" if "" in MODULES else None


def imports_of(name: str) -> list[tuple[str, int]]:
    """(imported module, line) for every import statement in module `name`."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imports_in(name, package, path.read_text())


def imports_in(name: str, package: str, source: str) -> list[tuple[str, int]]:
    """(imported module, line) for every import statement in `source`, the text of module
    `name` of package `package`."""
    tree = ast.parse(source, name)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bases = [_resolve(alias.name) for alias in node.names]
            found += [(b, node.lineno) for b in bases if b is not None]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = _resolve(node.module or "")
                if base is None:
                    continue
            for alias in node.names:
                sub = f"{base}.{alias.name}" if base else alias.name
                found.append((sub if sub in MODULES else base, node.lineno))
    out = []
    for target, line in found:
        module = _target(target)
        if module is not None and module != name:
            out.append((module, line))
    return out


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported module: first line importing it}."""
    graph: dict[str, dict[str, int]] = {}
    for name in MODULES:
        edges: dict[str, int] = {}
        for target, line in imports_of(name):
            edges.setdefault(target, line)
        graph[name] = edges
    return graph


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


def _layer(name: str) -> int:
    return LAYERS[name.split(".")[0] or "__init__"]


def test_every_module_has_a_layer():
    assert {n.split(".")[0] or "__init__" for n in MODULES} <= set(LAYERS)


def test_no_import_cycles():
    graph = import_graph()
    cycles = find_cycles(graph)
    assert not cycles, "\n".join(_describe(graph, c) for c in cycles)


def test_imports_go_down_the_layers():
    graph = import_graph()
    upward = [f"{v or '__init__'} (layer {_layer(v)}) imports {w or '__init__'} "
              f"(layer {_layer(w)}) at line {line}"
              for v in sorted(graph) for w, line in sorted(graph[v].items())
              if _layer(w) > _layer(v)]
    assert not upward, "\n".join(upward)


def test_the_checker_sees_function_level_relative_and_absolute_imports():
    """The parser is what the other tests rest on: an import inside a function, a relative
    `from . import x` and an absolute `adlite.compiler` import are all edges."""
    inside = "def f():\n    pass\n    from ..primitives import PRIMITIVES\n"
    assert imports_in("ir.x", "ir", inside) == [("primitives", 3)]
    assert imports_in("ir.x", "ir", "from . import core\n") == [("ir.core", 1)]
    absolute = "import adlite.compiler.ir.core\nfrom adlite.compiler.passes import dce\n"
    assert imports_in("api", "", absolute) == [("ir.core", 1), ("passes.dce", 2)]


def test_the_table_is_complete_whichever_module_is_imported_first():
    """The IR layer never imports the rules, yet its table is full as soon as any compiler
    module is imported (`adlite.compiler/__init__` fills it): the rules of the primitives, the
    structural AD rules attached by `ad`, the LLVM lowerings attached by the backend (one for
    every primitive but those expanded before any backend sees the graph)."""
    script = (
        "import adlite.compiler.ir.builder\n"
        "from adlite.compiler.ir.primitive import PRIMITIVES as P\n"
        "structural = sorted(n for n, p in P.items() if p.structural)\n"
        "print(structural == ['cond', 'pop', 'push', 'while'], len(P) > 40,\n"
        "      all(P[n].jvp is not None for n in structural),\n"
        "      P['while'].ad_forward is not None and P['cond'].vjp is not None)\n"
        "from adlite.compiler.passes.custom_calls import EXPANDED\n"
        "print(sorted(n for n, p in P.items() if p.llvm is None) == sorted(EXPANDED))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split() == ["True"] * 5
