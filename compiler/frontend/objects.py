"""Objects of user-defined classes made inside compiled code: `P(x, 2.0)`, dataclasses.

Contract: calling a user class (`is_user_class`: a Python class of the program whose
instances Python makes with `object.__new__`; not a tuple, exception or library class) in
compiled code makes an `Instance`, a compile-time value standing for the new object, and
runs its `__init__` inlined with the instance as `self` (a dataclass's generated `__init__`
binds its fields as Python does: defaults, keywords; `__post_init__` is inlined after it;
`default_factory` fields are refused). Each attribute lives in a variable of its own,
`Instance.variable(name)`, which every converter handling the object binds under the same
name: reads (`p.a`), writes (`p.a = v`, `p.a += v`: in place on an array attribute, as
numpy) and arrays' aliasing are those of variables, so `if`s and loops join and carry the
attributes a block changes as they do variables (`closures.operands` passes them to the
block), and an inlined call receives the attributes of the objects it can reach (`passed`)
and hands back those it changed or made (`returned`). Methods (`p.f(x)`, bound through the
class: functions, staticmethods, classmethods, properties and `__call__`) are inlined with
the instance as `self` (`super().f(...)` and `Base.f(self, ...)` too); class attributes that
are numbers or arrays are read as externals (read at every call). An `Instance` is
identified by the Python object itself, so it crosses an `if` or a loop unchanged;
`isinstance` sees its class. A frozen dataclass's attributes cannot be assigned (Python's
FrozenInstanceError, when compiling). An attribute first set inside an `if` arm or a loop
body is not seen after it (refused where it is read: set it before). Objects are not
returned by compiled functions (their numbers and arrays are).
"""

from __future__ import annotations

import dataclasses
import inspect
import types

import gast

from .. import gast_adapter as g
from . import closures, externals
from .aliasing import LIVE, Ref
from .conversion_context import ConversionContext
from .instances import Instance, attribute_variables

_LIBRARIES = ("numpy", "scipy", "builtins", "adlite")


def is_user_class(value) -> bool:
    """A class of the user's program whose objects compiled code can make (see the module
    doc)."""
    return isinstance(value, type) and value.__new__ is object.__new__ and \
        not issubclass(value, BaseException) and \
        (value.__module__ or "").split(".")[0] not in _LIBRARIES


def construct(conv: ConversionContext, cls: type, pairs: list, kwpairs: dict, node):
    """`cls(*pairs, **kwpairs)`: a new Instance, initialised by its `__init__` (inlined)."""
    instance = Instance(cls)
    init = cls.__init__
    if dataclasses.is_dataclass(cls) and _generated(init):
        _dataclass_init(conv, instance, pairs, kwpairs, node)
        post = getattr(cls, "__post_init__", None)
        if post is not None:
            conv.call_value(types.MethodType(post, instance), [], {}, node)
    elif init is object.__init__:
        if pairs or kwpairs:
            raise conv.source.error(node, f"TypeError: {cls.__name__}() takes no arguments")
    else:
        result, _ = conv.call_value(types.MethodType(init, instance), pairs, kwpairs, node)
        if result is not None:
            raise conv.source.error(node, "TypeError: __init__() should return None")
    return instance


def _generated(init) -> bool:
    """Is `init` a dataclass's generated `__init__` (it has no source file)?"""
    code = getattr(init, "__code__", None)
    return code is not None and not code.co_filename.endswith(".py")


def _dataclass_init(conv: ConversionContext, instance: Instance, pairs, kwpairs, node) -> None:
    fields = dataclasses.fields(instance.cls)
    for f in fields:
        if f.default_factory is not dataclasses.MISSING:
            raise conv.source.error(node, f"{instance.cls.__name__}: the field {f.name!r} has "
                                          "a default_factory, which compiled code does not "
                                          "call", f"pass {f.name} explicitly, or give it a "
                                                  "default value")
    bound = closures.bind(conv, instance.cls.__init__, [(instance, None)] + pairs, kwpairs,
                          node)
    for f in fields:
        if f.name in bound:
            value, ref = bound[f.name]
        elif f.default is not dataclasses.MISSING:
            value, ref = closures.constant(f.default), None
        else:
            continue
        setattr_(conv, instance, f.name, value, ref, node)


def setattr_(conv: ConversionContext, instance: Instance, name: str, value, ref, node) -> None:
    """`instance.name = value` (value's object `ref`)."""
    if instance.frozen:
        raise conv.source.error(node, f"dataclasses.FrozenInstanceError: cannot assign to "
                                      f"field {name!r} of a frozen dataclass")
    if name not in instance.names:
        instance.names.append(name)
    var = instance.variable(name)
    if isinstance(value, Instance | tuple) or value is None or isinstance(value, str):
        ref = ref if isinstance(ref, tuple) else None
    conv.bind(var, value, ref)
    conv.scope.define(var)


def getattr_(conv: ConversionContext, instance: Instance, node: gast.Attribute) -> tuple:
    """(value, Ref) of `instance.attr`: its own attribute, else the class's (a method bound
    to the instance, a property's value, a number or array read at every call)."""
    name = node.attr
    var = instance.variable(name)
    if name in instance.names and var in conv.scope:
        if not conv.scope.defined(var):
            raise conv.source.error(node, f"the attribute {name!r} may be unset here: it is "
                                          "assigned only on some paths",
                                    f"assign {name} before the if/loop")
        return conv.expr_ref(g.name(var, at=node))
    if name in instance.names:  # set in a block whose results do not include it
        raise conv.source.error(node, f"the attribute {name!r} is first set inside an if or "
                                      "a loop, and is read after it",
                                f"set {name} before the if or loop (in __init__, say)")
    try:
        found = inspect.getattr_static(instance.cls, name)
    except AttributeError:
        raise conv.source.error(node, f"AttributeError: {instance.cls.__name__!r} object has "
                                      f"no attribute {name!r}") from None
    if isinstance(found, staticmethod):
        return found.__func__, None
    if isinstance(found, classmethod):
        return types.MethodType(found.__func__, instance.cls), None
    if isinstance(found, property):
        return conv.call_value(types.MethodType(found.fget, instance), [], {}, node)
    if isinstance(found, types.FunctionType):
        return types.MethodType(found, instance), None
    return conv.resolve_global(getattr(instance.cls, name), node, externals.Place(
        instance.cls, "attr", name, f"{instance.cls.__name__}.{name}")), None


class Super:
    """`super()` in a method of a class whose instance is made in compiled code: the
    instance, read through the classes after `owner` in its class's method order."""

    def __init__(self, owner: type, instance: Instance) -> None:
        self.owner, self.instance = owner, instance

    def attribute(self, conv: ConversionContext, node: gast.Attribute):
        """`super().name`: the first definition after `owner`, bound to the instance."""
        mro = self.instance.cls.__mro__
        for cls in mro[mro.index(self.owner) + 1:]:
            if node.attr in vars(cls):
                found = vars(cls)[node.attr]
                if isinstance(found, types.FunctionType):
                    return types.MethodType(found, self.instance)
                if isinstance(found, staticmethod):
                    return found.__func__
                if found is object.__init__ or isinstance(found, types.WrapperDescriptorType):
                    return _no_init
        raise conv.source.error(node, f"AttributeError: 'super' object has no attribute "
                                      f"{node.attr!r}")


def _no_init() -> None:
    """`object.__init__` reached through `super()`: nothing to run."""


def make_super(conv: ConversionContext, args, node) -> Super:
    """`super()` (no arguments) in a method: its class is the method's `__class__`, the
    instance its first argument."""
    owner = conv.globals.get("__class__")
    first = conv.scope.get(conv.params[0]) if conv.params and conv.params[0] in conv.scope \
        else None
    if args or not isinstance(owner, type) or not isinstance(first, Instance):
        raise conv.source.error(node, "super() compiles without arguments, in a method of an "
                                      "object made in compiled code",
                                "call the base class's method: Base.method(self, ...)")
    return Super(owner, first)


def passed(conv: ConversionContext, values) -> list[tuple[str, object, object]]:
    """(variable, value, Ref) of the attributes of the instances an inlined call reaches
    through its arguments `values`: bound in the callee like arguments."""
    out = []
    for var in attribute_variables(conv.scope, values):
        value, ref = conv.scope.get(var), conv.scope.ref(var)
        if value is LIVE:
            value = conv.view_value(ref)
        out.append((var, value, ref))
    return out


def returned(conv: ConversionContext, callee, before: dict, values, node) -> None:
    """After an inlined call: the attribute variables the callee changed, of the objects it
    received (`before`: variable -> value at the call) or that its result and those objects
    reach (made in the call), are bound in `conv` to the values the callee left."""
    names = list(before) + [v for v in attribute_variables(callee.scope, values)
                            if v not in before]
    for var in names:
        if var not in callee.scope:
            continue
        value, ref = callee.scope.get(var), callee.scope.ref(var)
        if value is LIVE:
            value, ref = callee.view_value(ref), Ref(ref.obj, frozen=True)
        if var in before and before[var] is value:
            continue
        if var in conv.scope and conv.scope.get(var) is value:
            continue  # an array written in place, already stored back
        if isinstance(ref, Ref) and ref.view:
            ref = Ref(ref.obj, frozen=True)
        conv.bind(var, value, ref)
        if callee.scope.defined(var):
            conv.scope.define(var)
