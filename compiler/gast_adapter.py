"""The only module that builds gast nodes: constructors with every field filled in.

gast changes node fields between versions (and Python releases); keeping construction here
means an upgrade touches one file. Every constructor copies the source position of `at`
when given, so errors and comments keep pointing at the user's line.
"""

from __future__ import annotations

import gast


def _at(node, at):
    if at is not None:
        gast.copy_location(node, at)
    return node


def name(id_: str, store: bool = False, at=None) -> gast.Name:
    ctx = gast.Store() if store else gast.Load()
    return _at(gast.Name(id=id_, ctx=ctx, annotation=None, type_comment=None), at)


def const(value, at=None) -> gast.Constant:
    return _at(gast.Constant(value=value, kind=None), at)


def assign(target: str, value, at=None) -> gast.Assign:
    return _at(gast.Assign(targets=[name(target, store=True, at=at)], value=value,
                           type_comment=None), at)


def call(function: str, args, at=None) -> gast.Call:
    """`function(*args)` for a function known by name."""
    return _at(gast.Call(func=name(function, at=at), args=list(args), keywords=[]), at)


def call_value(function, args, at=None) -> gast.Call:
    """`function(*args)` for a function given as an expression (`dec(f)` of a decorator)."""
    return _at(gast.Call(func=function, args=list(args), keywords=[]), at)


def param(id_: str, at=None) -> gast.Name:
    """A parameter of a function definition."""
    return _at(gast.Name(id=id_, ctx=gast.Param(), annotation=None, type_comment=None), at)


def binop(left, op, right, at=None) -> gast.BinOp:
    return _at(gast.BinOp(left=left, op=op, right=right), at)


def compare(left, op, right, at=None) -> gast.Compare:
    return _at(gast.Compare(left=left, ops=[op], comparators=[right]), at)


def and_(*values, at=None):
    values = [v for v in values if v is not None]
    if len(values) == 1:
        return values[0]
    return _at(gast.BoolOp(op=gast.And(), values=values), at)


def or_(*values, at=None):
    return _at(gast.BoolOp(op=gast.Or(), values=list(values)), at)


def not_(value, at=None):
    return unary(gast.Not(), value, at=at)


def unary(op, operand, at=None) -> gast.UnaryOp:
    return _at(gast.UnaryOp(op=op, operand=operand), at)


def if_(test, body, orelse=(), at=None) -> gast.If:
    return _at(gast.If(test=test, body=list(body) or [gast.Pass()], orelse=list(orelse)), at)


def while_(test, body, at=None) -> gast.While:
    return _at(gast.While(test=test, body=list(body) or [gast.Pass()], orelse=[]), at)


def return_(value, at=None) -> gast.Return:
    return _at(gast.Return(value=value), at)


def tuple_(elts, at=None) -> gast.Tuple:
    return _at(gast.Tuple(elts=list(elts), ctx=gast.Load()), at)


def function_def(name_: str, args: gast.arguments, body, at=None) -> gast.FunctionDef:
    return _at(gast.FunctionDef(name=name_, args=args, body=list(body), decorator_list=[],
                                returns=None, type_comment=None, type_params=[]), at)


def assign_to(target, value, at=None) -> gast.Assign:
    """`target = value` for any target node (a name, a tuple of names, a subscript)."""
    return _at(gast.Assign(targets=[target], value=value, type_comment=None), at)


def subscript(value, index, at=None) -> gast.Subscript:
    return _at(gast.Subscript(value=value, slice=index, ctx=gast.Load()), at)


def slice_(lower, upper, step, at=None) -> gast.Slice:
    return _at(gast.Slice(lower=lower, upper=upper, step=step), at)


def method_call(obj: str, method: str, args, at=None) -> gast.Expr:
    """The statement `obj.method(*args)`."""
    func = _at(gast.Attribute(value=name(obj, at=at), attr=method, ctx=gast.Load()), at)
    return _at(gast.Expr(value=_at(gast.Call(func=func, args=list(args), keywords=[]), at)), at)


def for_(target, iter_, body, at=None) -> gast.For:
    return _at(gast.For(target=target, iter=iter_, body=list(body), orelse=[],
                        type_comment=None), at)


def dict_(keys, values, at=None) -> gast.Dict:
    return _at(gast.Dict(keys=list(keys), values=list(values)), at)


def list_(elts, at=None) -> gast.List:
    return _at(gast.List(elts=list(elts), ctx=gast.Load()), at)
