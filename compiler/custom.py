"""User-defined derivatives and stop-gradient, with JAX's API: `custom_vjp`, `custom_jvp`,
`stop_gradient`.

    @custom_vjp
    def f(x, y): ...
    def f_fwd(x, y): return f(x, y), residuals        # any tuple of numbers and arrays
    def f_bwd(residuals, g): return (dx, dy)          # one per argument (None: zero)
    f.defvjp(f_fwd, f_bwd)

    @custom_jvp
    def h(x): ...
    @h.defjvp
    def h_jvp(primals, tangents): return h(x), tangent_out   # linear in the tangents

Contract:
- The decorated object is called like the function. Compiled code (`jit`, `grad`, ... of a
  function calling it, or of the object itself) compiles it to one equation whose
  derivatives are the user's rules (`frontend/custom_calls.py`, `primitives/custom.py`,
  `ad/custom.py`): reverse mode of a `custom_vjp` runs `fwd` in the forward sweep and `bwd`
  in the backward one; forward mode of a `custom_jvp` runs the rule, and its reverse mode
  transposes the rule (it is linear in the tangents). Higher orders differentiate the rules'
  code (grad of grad, hessian); forward mode of a `custom_vjp` is refused, as in JAX.
- On the eager tape (`adlite.runtime`: an argument is a Tensor) the call records one node
  whose backward runs the rule (`runtime/custom.py`); with `create_graph` the rule's own
  computation is recorded, so the tape differentiates it again too.
- Called on plain numbers and arrays, it is the function (the rules are not run).
- `nondiff_argnums` (JAX's): arguments that are passed to the rules first
  (`bwd(*nondiff, residuals, g)`, `jvp(*nondiff, primals, tangents)`) and get no derivative.
- It pickles by name, as a function does (defined at module level), and so do its
  transformations (`grad(f)`).
- A call before `defvjp` / `defjvp` raises (compiled code: `AdliteSyntaxError` at the call).
- `stop_gradient(x)`: `x` (numbers, arrays, tuples, lists and dicts of them, Tensors:
  `detach()`), through which no derivative flows, in every mode and order; an array is a
  copy, as compiled code makes one.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from adlite.runtime import custom as tape

from .arguments import Static, Tree
from .frontend import custom_calls as lowering
from .frontend import externals
from .frontend.library import registry
from .frontend.sequences import as_tuples
from .ir.builder import Builder, const
from .ir.core import Const, Graph, Type, Var

__all__ = ["custom_jvp", "custom_vjp", "stop_gradient"]


class _Custom:
    """What `custom_vjp` and `custom_jvp` return (see the module's contract)."""

    kind = ""

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        functools.update_wrapper(self, fun)

    def __reduce__(self) -> str:
        """Pickled by name, as functions are (it must be reachable as `module.qualname`)."""
        return self.__qualname__

    @property
    def fn(self) -> Callable:
        """The function whose source is compiled (as a transformation's `fn`)."""
        return self.fun

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            bound = inspect.signature(self.fun).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = tuple(bound.arguments.values()), {}
        if tape.inside_rules(self) or not tape.records(args):
            return self.fun(*args)
        self._check_rules()
        return tape.call_vjp(self, args) if self.kind == "vjp" else tape.call_jvp(self, args)

    def _check_rules(self) -> None:
        rules = (self.fwd, self.bwd) if self.kind == "vjp" else (self.jvp_rule,)
        if any(rule is None for rule in rules):
            how = "defvjp(fwd, bwd)" if self.kind == "vjp" else "defjvp(rule)"
            raise AttributeError(f"No {self.kind.upper()} defined for custom_{self.kind} "
                                 f"function {self.__name__} using {how}.")

    def ir_for(self, types: Sequence) -> tuple[Graph, Tree]:
        """The graph of a call with parameter trees `types` (when the object itself is
        transformed: `grad(f)`); inputs and outputs are flat, as `api.Transformed.ir_for`'s."""
        with externals.recording():
            b = Builder()
            inputs: list[Var] = []
            values = [_parameter(tree, inputs, name) for tree, name in
                      zip(types, inspect.signature(self.fun).parameters, strict=False)]
            outs, tree = lowering.lower_call(
                self, b, values, {},
                lambda message, hint: lowering.definition_error(self.fun, message, hint))
            graph = externals.finish(Graph(inputs, b.eqns, list(outs), self.__name__))
        return graph, tree


def _parameter(tree, inputs: list[Var], name: str):
    """The frontend value of a parameter of tree `tree` (runtime leaves become `inputs`)."""
    if isinstance(tree, Type):
        inputs.append(Var(tree, name))
        return inputs[-1]
    if isinstance(tree, Static):
        v = tree.value
        return const(v) if isinstance(v, bool | int | float) else v
    values = [_parameter(t, inputs, name) for t in tree.children]
    return dict(zip(tree.keys, values, strict=True)) if tree.kind == "dict" else tuple(values)


class custom_vjp(_Custom):  # noqa: N801 - JAX's name
    """A function with a user-defined reverse-mode derivative, with JAX's API.

    Decorate the function, then give its rules with `defvjp(fwd, bwd)`: `fwd(*args)`
    returns `(output, residuals)` (residuals: any tuple of numbers and arrays the backward
    rule needs) and `bwd(*nondiff, residuals, g)` returns the cotangents of the arguments,
    a tuple with one entry per differentiable argument (None for a zero). The object is
    called like the function:

    - in compiled code (`jit`, `grad`, `vmap`, ... of a function calling it, or of the
      object itself) a call is one IR equation: reverse mode runs `fwd` in the forward
      sweep (its residuals stored like any value, on the tape inside loops) and `bwd` in
      the backward sweep; higher orders differentiate the rules' code. Forward mode
      (`jvp`, `jacfwd`, `hessian`) is refused, as in JAX: use `custom_jvp` for it;
    - on the eager tape (an argument is a `Tensor` that requires grad) the call records one
      node, `<name>Backward`, whose backward runs `bwd`;
    - on plain numbers and arrays outside compiled code it is the function (the rules are
      not run).

    It pickles by name, as a module-level function does, and so do its transformations.

    Args:
        fun: The function.
        nondiff_argnums: Positions of arguments that get no derivative and are passed to
            `bwd` first (`bwd(*nondiff, residuals, g)`), as JAX's.

    Raises:
        AdliteSyntaxError: In compiled code, at a call before `defvjp`, for rules whose
            results have the wrong count or shapes, or under forward mode.
        AttributeError: On the eager tape, at a call before `defvjp`.

    Examples:
        A numerically stable gradient for `log(1 + exp(x))`:

        >>> import numpy as np
        >>> from adlite.compiler import custom_vjp, grad
        >>> @custom_vjp
        ... def log1pexp(x):
        ...     return np.log1p(np.exp(x))
        >>> def log1pexp_fwd(x):
        ...     return log1pexp(x), (x,)
        >>> def log1pexp_bwd(residuals, g):
        ...     x, = residuals
        ...     return (g * (1.0 - 1.0 / (1.0 + np.exp(x))),)
        >>> log1pexp.defvjp(log1pexp_fwd, log1pexp_bwd)
        >>> grad(log1pexp)(800.0)  # the plain formula's gradient is nan
        1.0

        The same object on the eager tape:

        >>> from adlite.runtime import tensor
        >>> x = tensor(0.0, requires_grad=True)
        >>> y = log1pexp(x)
        >>> y.backward()
        >>> x.grad, y.grad_fn.name()
        (tensor(0.5), 'log1pexpBackward')
    """

    kind = "vjp"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        """Set the rules: `fwd(*args) -> (output, residuals)`;
        `bwd(*nondiff, residuals, g) -> cotangents`, a tuple with one entry per
        differentiable argument (None: zero)."""
        self.fwd, self.bwd = fwd, bwd


class custom_jvp(_Custom):  # noqa: N801 - JAX's name
    """A function with a user-defined forward-mode derivative, with JAX's API.

    Decorate the function, then give its rule with `defjvp` (usable as a decorator):
    `rule(*nondiff, primals, tangents)` returns `(output, output_tangent)` and must be
    linear in the tangents. The object is called like the function:

    - in compiled code a call is one IR equation: forward mode (`jvp`, `jacfwd`) runs the
      rule, and reverse mode (`grad`, `vjp`, `jacrev`) transposes it (it is linear in the
      tangents); higher orders (`hessian`) differentiate the rule's code;
    - on the eager tape (an argument is a `Tensor` that requires grad) the call records one
      node, `<name>Backward`;
    - on plain numbers and arrays outside compiled code it is the function.

    It pickles by name, as a module-level function does, and so do its transformations.

    Args:
        fun: The function.
        nondiff_argnums: Positions of arguments that get no derivative and are passed to
            the rule first (`rule(*nondiff, primals, tangents)`), as JAX's.

    Raises:
        AdliteSyntaxError: In compiled code, at a call before `defjvp`, or for a rule whose
            results have the wrong count or shapes.
        AttributeError: On the eager tape, at a call before `defjvp`.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import custom_jvp, grad, hessian, jvp
        >>> @custom_jvp
        ... def softplus(x):
        ...     return np.log1p(np.exp(x))
        >>> @softplus.defjvp
        ... def softplus_jvp(primals, tangents):
        ...     x, = primals
        ...     t, = tangents
        ...     return softplus(x), t / (1.0 + np.exp(-x))
        >>> jvp(softplus, (0.0,), (2.0,))
        (0.6931471805599453, 1.0)
        >>> grad(softplus)(0.0), hessian(softplus)(0.0)
        (0.5, 0.25)
    """

    kind = "jvp"

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        super().__init__(fun, nondiff_argnums)
        self.jvp_rule: Callable | None = None

    def defjvp(self, rule: Callable) -> Callable:
        """Set the rule: `rule(*nondiff, primals, tangents) -> (output, output tangent)`,
        linear in the tangents; usable as a decorator (returns `rule`)."""
        self.jvp_rule = rule
        return rule


def stop_gradient(x: Any) -> Any:
    """Return `x`, through which no derivative flows, in every mode and order.

    As JAX's `stop_gradient`: in compiled code the value is a constant for every
    derivative (`grad`, `jvp`, `hessian`, ...). Works on numbers, arrays, tuples, lists and
    dicts of them (a copy of each array, as compiled code makes one) and on the eager tape's
    Tensors (`detach()`).

    Args:
        x: A number, an array, a `Tensor`, or tuples, lists and dicts of them.

    Returns:
        The value, with the structure of `x`.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import grad, stop_gradient
        >>> def f(x):
        ...     return x * stop_gradient(x)
        >>> grad(f)(3.0)  # d/dx of x * c, c = 3
        3.0
        >>> stop_gradient({"w": np.ones(2), "b": 0.5})
        {'w': array([1., 1.]), 'b': 0.5}
    """
    if isinstance(x, tuple | list):
        return type(x)(stop_gradient(v) for v in x)
    if isinstance(x, dict):
        return {k: stop_gradient(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return x.copy()
    return tape.stop_gradient(x)


def _lower_stop_gradient(conv, args, kwargs, node):
    registry.refuse_keywords(conv, kwargs, node)
    return _stopped(conv, conv.one(args, node))


def _stopped(conv, x):
    if isinstance(x, tuple):
        return tuple(_stopped(conv, v) for v in x)
    if isinstance(x, dict):
        return {k: _stopped(conv, v) for k, v in x.items()}
    if isinstance(x, Var | Const) and x.type.is_float:
        return conv.b.op("stop_gradient", x)
    return x


def _lower_custom(spec: _Custom):
    def lower(conv, args, kwargs, node):
        kwargs = {k: as_tuples(v) for k, v in kwargs.items()}
        outs, tree = lowering.lower_call(spec, conv.b, list(args), kwargs,
                                         lambda message, hint: conv.source.error(node, message,
                                                                                 hint))
        return lowering.rebuild(tree, iter(outs))

    return lower


registry.register([stop_gradient], _lower_stop_gradient)
registry.add_resolver(lambda obj: _lower_custom(obj) if isinstance(obj, _Custom) else None)
