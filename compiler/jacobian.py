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
- They work as scipy's callbacks: `least_squares(r, x0, jac=jacobian(r))`,
  `minimize(f, x0, jac=grad(f), hess=hessian(f))`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .api import Call, Transformed, grad, output_and_aux, split_aux, wrt_or_argnums
from .arguments import Node, leaf_types, unflatten


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


def jacrev(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None, has_aux: bool = False,
        backend: str = "llvm") -> Jacobian:
    """The Jacobian of `fn` w.r.t. argument(s) `wrt` by reverse mode (one backward sweep per
    output element). `argnums` is JAX's name for
    `wrt`; with `has_aux`, `fn` returns `(output, aux)` and the call `(jacobian, aux)`."""
    return Jacobian(fn, "jacrev", wrt_or_argnums(wrt, argnums), backend, has_aux=has_aux)


def jacfwd(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None, has_aux: bool = False,
        backend: str = "llvm") -> Jacobian:
    """The Jacobian of `fn` w.r.t. argument(s) `wrt` by forward mode (one tangent sweep per
    input element). `argnums` is JAX's name for
    `wrt`; with `has_aux`, `fn` returns `(output, aux)` and the call `(jacobian, aux)`."""
    return Jacobian(fn, "jacfwd", wrt_or_argnums(wrt, argnums), backend, has_aux=has_aux)


def jacobian(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None, has_aux: bool = False,
        backend: str = "llvm") -> Jacobian:
    """The Jacobian of `fn` w.r.t. argument(s) `wrt`: forward mode when the arguments have
    fewer elements than the results, else reverse mode. `argnums` is JAX's name for
    `wrt`; with `has_aux`, `fn` returns `(output, aux)` and the call `(jacobian, aux)`."""
    return Jacobian(fn, "jacobian", wrt_or_argnums(wrt, argnums), backend, has_aux=has_aux)


def hessian(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None,
            backend: str = "llvm", checkpoint: object = None) -> Jacobian:
    """The Hessian of a float-valued `fn` w.r.t. argument(s) `wrt` (`argnums`: JAX's name):
    forward mode over the compiled gradient (`grad(fn, wrt)`), loops included; `checkpoint`
    as for `grad`."""
    wrt = wrt_or_argnums(wrt, argnums)
    return Jacobian(grad(fn, wrt, backend=backend, checkpoint=checkpoint), "hessian", wrt,
                    backend)


__all__ = ["Jacobian", "hessian", "jacfwd", "jacobian", "jacrev"]
