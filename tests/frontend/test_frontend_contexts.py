"""The frontend's narrow contexts hold, checked from the source with `ast`.

- A frontend module that types its converter parameter `conv` with a protocol of
  `conversion_context` or `context` uses nothing of `conv` that the protocol does not list.
- A mixin of the converter uses nothing of the rest of it (`self`'s attributes it does not
  define) that the protocol its docstring names does not list.
- The converter (`to_ir.FunctionConverter`) provides every member of those protocols.
- Only `scope.py` touches a `Scope`'s tables (`_values`, `_objects`, `_undefined`,
  `_poisoned`): the rest of the frontend goes through its named operations.
"""

from __future__ import annotations

import ast
import inspect
import typing

import pytest

from adlite.compiler.frontend import context, conversion_context
from adlite.compiler.frontend.to_ir import FunctionConverter

from ..support.paths import ROOT

FRONTEND = ROOT / "compiler" / "frontend"
PROTOCOLS = {"CallContext": context.CallContext,
             "ExpressionContext": conversion_context.ExpressionContext,
             "ConversionContext": conversion_context.ConversionContext,
             "StatementContext": conversion_context.StatementContext}
MIXINS = {"operators": "Operators", "subscripts": "Subscripts", "calls": "Calls",
          "control_flow": "ControlFlow"}
SCOPE_TABLES = {"_values", "_objects", "_undefined", "_poisoned"}


def _members(protocol) -> set[str]:
    """The attributes and methods a protocol (with its bases) declares."""
    names = set()
    for cls in protocol.__mro__:
        if cls is typing.Protocol or cls is typing.Generic or cls is object:
            continue
        names |= set(getattr(cls, "__annotations__", {}))
        names |= {n for n, v in vars(cls).items()
                  if inspect.isfunction(v) and not n.startswith("__")}
    return names


def _typed_uses(tree: ast.Module):
    """(function, protocol name, attribute) for every `conv.attribute` in a function whose
    parameter `conv` is annotated with one of PROTOCOLS."""
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        params = {a.arg: a.annotation for a in fn.args.args + fn.args.kwonlyargs}
        annotation = params.get("conv")
        if not isinstance(annotation, ast.Name) or annotation.id not in PROTOCOLS:
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                    node.value.id == "conv":
                yield fn.name, annotation.id, node.attr


MODULES = sorted(p for p in FRONTEND.glob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_typed_modules_use_only_their_context(path):
    tree = ast.parse(path.read_text())
    outside = sorted({f"{fn}: conv.{attr} ({proto})" for fn, proto, attr in _typed_uses(tree)
                      if attr not in _members(PROTOCOLS[proto])})
    assert not outside, f"{path.name} uses what its context does not declare: {outside}"


def test_structural_modules_are_typed():
    typed = {p.stem for p in MODULES if any(_typed_uses(ast.parse(p.read_text())))}
    assert {"sequences", "closures", "statements", "fancy", "masks", "dynamic_slices",
            "operators"} <= typed


@pytest.mark.parametrize("name", sorted(PROTOCOLS))
def test_converter_provides_the_protocols(name):
    missing = {m for m in _members(PROTOCOLS[name]) if not hasattr(FunctionConverter, m)}
    instance_attributes = {"b", "source", "scope", "globals", "stack", "params",
                           "array_like"}  # set in __init__
    assert missing <= instance_attributes
    init = inspect.getsource(FunctionConverter.__init__)
    assert all(f"self.{a}" in init for a in missing)


@pytest.mark.parametrize("module", sorted(MIXINS))
def test_mixins_use_only_their_context(module):
    tree = ast.parse((FRONTEND / f"{module}.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == MIXINS[module])
    named = [p for p in PROTOCOLS if f"`conversion_context.{p}`" in ast.get_docstring(cls)]
    assert len(named) == 1, f"{cls.name}'s docstring names the protocol it uses"
    own = {f.name for f in cls.body if isinstance(f, ast.FunctionDef)}
    used = {n.attr for n in ast.walk(cls) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == "self"} - own
    assert used <= _members(PROTOCOLS[named[0]]), sorted(used - _members(PROTOCOLS[named[0]]))


def test_only_scope_touches_its_tables():
    touching = sorted(f"{p.name}:{node.lineno} .{node.attr}" for p in MODULES if p.stem != "scope"
                      for node in ast.walk(ast.parse(p.read_text()))
                      if isinstance(node, ast.Attribute) and node.attr in SCOPE_TABLES)
    assert not touching
