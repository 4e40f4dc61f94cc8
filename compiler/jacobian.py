"""Jacobians of functions with array results: `jacrev`, `jacfwd`, `jacobian` and `hessian`.

Contract:
- `jacrev(f, wrt=0)` (reverse mode: one backward sweep per output element), `jacfwd(f,
  wrt=0)` (forward mode: one tangent sweep per input element) and `jacobian(f, wrt=0)`
  (`jacfwd` when the differentiated arguments have fewer elements in all than the float
  results, else `jacrev`; chosen per signature, from the shapes) compile one graph per
  signature computing the whole Jacobian in one native call: the loop over the basis vectors
  runs inside it (`ad/jacobian.py`; jacrev runs the primal once when the function has no
  loop). Calls, arguments, caching, pickling and `wrt` (ints, parameter names, a tuple of
  them) are those of `grad` (api.py); integer numbers differentiated are taken as floats,
  int arrays and compile-time values raise `TypeError` naming the argument.
- Results: the function's float results (a number, an array, or a structure of them) have
  the structure of the result; each leaf `out` becomes the Jacobian w.r.t. the argument,
  an array of shape `out.shape + x.shape` for an argument array `x` (a float when both are
  scalars; a structured argument gives its structure of such blocks); with a tuple `wrt`,
  a tuple of them, one per argument (JAX's layout). float64 unless both `out` and `x` are
  float32. A result that is not a float (an int, a bool) raises `TypeError`.
- `hessian(f, wrt=0)`: the Jacobian by forward mode of `grad(f, wrt)` (forward over
  reverse): an (n, n)-like block of shape `x.shape + x.shape` per argument; with a tuple
  `wrt` a tuple of tuples, `H[i][j]` the block of arguments `wrt[i]`, `wrt[j]` (JAX's).
- `shapes="dynamic"` compiles one version for all sizes, as `jit`'s (`jacobian` then
  chooses its mode when the element counts decide it, else compiles per shape).
- They work as scipy's callbacks: `least_squares(r, x0, jac=jacobian(r))`,
  `minimize(f, x0, jac=grad(f), hess=hessian(f))`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .api import Call, Transformed, grad, output_and_aux, split_aux, wrt_or_argnums
from .arguments import Node, leaf_types, unflatten
from .transformation import transformer


class Jacobian(Transformed):
    """`jacrev`, `jacfwd`, `jacobian` (kind) or `hessian` of `fn` (then `fn` is its `grad`):
    the transformation `Transformed` compiles through the `ad` stage's Jacobian modes."""

    def entry(self, call: Call) -> Callable:
        run, result = self.compiled(call.trees, call.groups)
        result, aux_tree = output_and_aux(result, self.has_aux)
        arguments = [tree for _, tree in call.groups]
        if self.kind == "hessian":  # the result of grad: the arguments' structure
            result = Node("tuple", tuple(arguments)) if self.multi else arguments[0]
        n_out = len(leaf_types(result))

        def blocks_by_argument(blocks) -> Any:
            per_argument = tuple(unflatten(tree, blocks) for tree in arguments)
            return per_argument if self.multi else per_argument[0]

        def shaped(*leaves: Any) -> Any:
            values, aux = split_aux(run(*leaves), aux_tree)
            blocks = iter(_numbers(values))
            jac = unflatten(result, [blocks_by_argument(blocks) for _ in range(n_out)])
            return (jac, aux) if self.has_aux else jac

        return shaped

    def native_entry(self, call: Call) -> None:
        """Results are always reshaped in Python (see `entry`)."""
        return None


def _numbers(values: tuple) -> list:
    """Scalar blocks as Python floats."""
    return [float(v) if getattr(v, "ndim", 0) == 0 and not isinstance(v, float) else v
            for v in values]


@transformer
def jacrev(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None, has_aux: bool = False,
        backend: str = "llvm", shapes: str = "static") -> Jacobian:
    """Compile the Jacobian of `fn` by reverse mode: one backward sweep per output element.

    The best choice when the results have fewer elements than the differentiated
    arguments. The whole Jacobian is computed in one native call (the loop over the basis
    vectors of the outputs runs inside the compiled code), compiled once per call signature
    and cached, as [`jit`][adlite.compiler.jit] is; calls, `wrt` and the treatment of
    arguments are [`grad`][adlite.compiler.grad]'s. The result works as a scipy callback
    (`least_squares(r, x0, jac=jacrev(r))`).

    Args:
        fn: The function: its float results (a number, an array, or a structure of them) are
            differentiated.
        wrt: The argument(s) to differentiate, as for [`grad`][adlite.compiler.grad]: a
            position, a parameter name, or a tuple of them.
        argnums: JAX's name for `wrt` (give one of them).
        has_aux: `fn` returns `(output, aux)`; the call returns `(jacobian, aux)`.
        backend: `"llvm"` or `"python"`, as for [`jit`][adlite.compiler.jit].
        shapes: `"static"` or `"dynamic"` (one compilation for all sizes), as for
            [`jit`][adlite.compiler.jit].

    Returns:
        A [`Transformed`][adlite.compiler.api.Transformed] whose calls return the Jacobian:
        per float result leaf `out` and argument `x`, an array of shape
        `out.shape + x.shape` (a float when both are numbers), in the structure of the
        result (and of a structured argument); a tuple of them for a tuple `wrt`, as JAX
        lays them out. float64 unless both `out` and `x` are float32.

    Raises:
        TypeError: At a call, for a result that is not a float (an int, a bool), or a
            differentiated int or bool array or compile-time value (naming it).

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import jacrev
        >>> def f(x):
        ...     return np.array([x[0] * x[1], np.sum(x ** 2)])
        >>> jacrev(f)(np.array([1.0, 2.0, 3.0]))
        array([[2., 1., 0.],
               [2., 4., 6.]])
        >>> def polar(r, theta):
        ...     return np.array([r * np.cos(theta), r * np.sin(theta)])
        >>> jacrev(polar, wrt=(0, 1))(2.0, 0.0)
        (array([1., 0.]), array([0., 2.]))
    """
    return Jacobian(fn, "jacrev", wrt_or_argnums(wrt, argnums), backend, has_aux=has_aux,
                    shapes=shapes)


@transformer
def jacfwd(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None, has_aux: bool = False,
        backend: str = "llvm", shapes: str = "static") -> Jacobian:
    """Compile the Jacobian of `fn` by forward mode: one tangent sweep per input element.

    The best choice when the differentiated arguments have fewer elements than the
    results. The whole Jacobian is computed in one native call (the loop over the basis
    vectors of the inputs runs inside the compiled code), compiled once per call signature
    and cached, as [`jit`][adlite.compiler.jit] is; calls, `wrt` and the treatment of
    arguments are [`grad`][adlite.compiler.grad]'s.

    Args:
        fn: The function: its float results (a number, an array, or a structure of them) are
            differentiated.
        wrt: The argument(s) to differentiate, as for [`grad`][adlite.compiler.grad]: a
            position, a parameter name, or a tuple of them.
        argnums: JAX's name for `wrt` (give one of them).
        has_aux: `fn` returns `(output, aux)`; the call returns `(jacobian, aux)`.
        backend: `"llvm"` or `"python"`, as for [`jit`][adlite.compiler.jit].
        shapes: `"static"` or `"dynamic"` (one compilation for all sizes), as for
            [`jit`][adlite.compiler.jit].

    Returns:
        A [`Transformed`][adlite.compiler.api.Transformed] whose calls return the Jacobian:
        per float result leaf `out` and argument `x`, an array of shape
        `out.shape + x.shape` (a float when both are numbers), in the structure of the
        result (and of a structured argument); a tuple of them for a tuple `wrt`, as JAX
        lays them out. float64 unless both `out` and `x` are float32.

    Raises:
        TypeError: At a call, for a result that is not a float (an int, a bool), or a
            differentiated int or bool array or compile-time value (naming it).

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import jacfwd
        >>> def curve(t):
        ...     return np.array([t, t ** 2, t ** 3])
        >>> jacfwd(curve)(2.0)
        array([ 1.,  4., 12.])
        >>> def scale(x, k):
        ...     return k * x, np.sum(x)
        >>> jacfwd(scale, wrt="k", has_aux=True)(np.array([1.0, 2.0]), 3.0)
        (array([1., 2.]), 3.0)
    """
    return Jacobian(fn, "jacfwd", wrt_or_argnums(wrt, argnums), backend, has_aux=has_aux,
                    shapes=shapes)


@transformer
def jacobian(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None, has_aux: bool = False,
        backend: str = "llvm", shapes: str = "static") -> Jacobian:
    """Compile the Jacobian of `fn`, choosing forward or reverse mode per signature.

    [`jacfwd`][adlite.compiler.jacfwd] when the differentiated arguments have fewer
    elements in all than the float results, else [`jacrev`][adlite.compiler.jacrev]: the
    choice is made from the shapes at the first call of each signature. Otherwise as those.
    The result works as a scipy callback (`least_squares(r, x0, jac=jacobian(r))`).

    Args:
        fn: The function: its float results (a number, an array, or a structure of them) are
            differentiated.
        wrt: The argument(s) to differentiate, as for [`grad`][adlite.compiler.grad]: a
            position, a parameter name, or a tuple of them.
        argnums: JAX's name for `wrt` (give one of them).
        has_aux: `fn` returns `(output, aux)`; the call returns `(jacobian, aux)`.
        backend: `"llvm"` or `"python"`, as for [`jit`][adlite.compiler.jit].
        shapes: `"static"` or `"dynamic"` (one compilation for all sizes), as for
            [`jit`][adlite.compiler.jit].

    Returns:
        A [`Transformed`][adlite.compiler.api.Transformed] whose calls return the Jacobian:
        per float result leaf `out` and argument `x`, an array of shape
        `out.shape + x.shape` (a float when both are numbers), in the structure of the
        result (and of a structured argument); a tuple of them for a tuple `wrt`, as JAX
        lays them out. float64 unless both `out` and `x` are float32.

    Raises:
        TypeError: At a call, for a result that is not a float (an int, a bool), or a
            differentiated int or bool array or compile-time value (naming it).

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import jacobian
        >>> def residuals(p, t, y):
        ...     return p[0] * np.exp(p[1] * t) - y
        >>> t, y = np.array([0.0, 1.0]), np.array([1.0, 2.0])
        >>> jacobian(residuals)(np.array([1.0, 0.0]), t, y)
        array([[1., 0.],
               [1., 1.]])
    """
    return Jacobian(fn, "jacobian", wrt_or_argnums(wrt, argnums), backend, has_aux=has_aux,
                    shapes=shapes)


@transformer
def hessian(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None,
            backend: str = "llvm", checkpoint: object = None, shapes: str = "static"
            ) -> Jacobian:
    """Compile the Hessian of a function with one float result (forward over reverse).

    The Jacobian, by forward mode, of the compiled gradient `grad(fn, wrt)`: loops
    included, in one native call per evaluation, compiled once per call signature and
    cached. For an argument `x` the Hessian is an array of shape `x.shape + x.shape` (a
    float for a number); with a tuple `wrt`, a tuple of tuples whose `H[i][j]` is the block
    of arguments `wrt[i]` and `wrt[j]`, as JAX's. It works as scipy's callback
    (`minimize(f, x0, jac=grad(f), hess=hessian(f), method="trust-exact")`). For
    Hessian-vector products without the whole matrix use
    `jvp(grad(f), (x,), (v,))` (see [`jvp`][adlite.compiler.jvp]).

    Args:
        fn: The function, returning one float.
        wrt: The argument(s) to differentiate, as for [`grad`][adlite.compiler.grad].
        argnums: JAX's name for `wrt` (give one of them).
        backend: `"llvm"` or `"python"`, as for [`jit`][adlite.compiler.jit].
        shapes: `"static"` or `"dynamic"` (one compilation for all sizes), as for
            [`jit`][adlite.compiler.jit].
        checkpoint: How the gradient's loops keep their tape, as for
            [`grad`][adlite.compiler.grad].

    Returns:
        A [`Transformed`][adlite.compiler.api.Transformed] whose calls return the Hessian.

    Raises:
        ValueError: When made, for a `checkpoint` it cannot take.
        TypeError: At a call, as for [`grad`][adlite.compiler.grad].

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import hessian
        >>> def f(x):
        ...     return np.sum(x ** 3) + x[0] * x[1]
        >>> hessian(f)(np.array([1.0, 2.0]))
        array([[ 6.,  1.],
               [ 1., 12.]])
        >>> def g(a, b):
        ...     return a * a * b
        >>> hessian(g, wrt=(0, 1))(2.0, 3.0)
        ((6.0, 4.0), (4.0, 0.0))
    """
    wrt = wrt_or_argnums(wrt, argnums)
    return Jacobian(grad(fn, wrt, backend=backend, checkpoint=checkpoint, shapes=shapes),
                    "hessian", wrt, backend, shapes=shapes)


__all__ = ["Jacobian", "hessian", "jacfwd", "jacobian", "jacrev"]
