"""A corpus of numeric Python programs written as people write them (issue 10, "Measure").

Each module `tests/corpus/real_programs/<name>.py` is one program, written in the idioms of public
numeric code (defaults, keywords, lists, loops over zip/enumerate, closures, lambdas, classes,
globals, print, assert, np.linalg, scipy.special, fancy indexing), never simplified to suit
adlite. It defines its functions as written and `CASE`, how a user calls it: `CASE.entry`
(a function or a bound method) is called as `entry(*CASE.args, **CASE.kwargs)` and returns a
float; `grad(entry, wrt=CASE.wrt)` differentiates it w.r.t. the positional argument(s)
`CASE.wrt` (floats, float arrays, or lists/tuples/dicts of them).

`NOT_COMPILING` names the programs adlite does not compile as written, with the construct and
adlite's error; `TAPE_LIMITATIONS` the programs the eager tape (`adlite.runtime`) cannot run
as written, with the reason. tests/corpus/test_real_programs.py checks both marks strictly (a marked
program that starts working fails until it is unmarked); `python -m tests.corpus.real_programs`
prints the table and the fraction that compiles as written.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class Case:
    """How a user calls a program: `entry(*args, **kwargs)`, differentiated w.r.t. `wrt`."""

    entry: Callable[..., Any]
    args: tuple = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    wrt: int | tuple[int, ...] = 0


PROGRAMS = (
    "gmm", "black_scholes", "binomial_tree", "heat_equation", "rk4_ode", "lotka_volterra",
    "kalman_filter", "pendulum_class", "newton_kepler", "mlp_dict", "network_layers",
    "logistic_regression", "softmax_xent", "particles", "stencil_alias", "cubic_spline",
    "gp_loglik", "portfolio", "spring_chain", "rosenbrock", "burgers", "sir_model",
    "van_der_pol", "hmm_forward", "bundle_adjustment", "lstm", "ridge_hyper",
    "wave_equation", "lennard_jones", "monte_carlo_option", "projectile", "simpson",
    "curve_fit", "black_box_svi", "heat2d_solver", "crank_nicolson", "attention",
    "bayes_linreg", "unrolled_sgd",
)

NOT_COMPILING: dict[str, str] = {}  # every program compiles as written

TAPE_LIMITATIONS: dict[str, str] = {
    "gmm": ("a Tensor written into a numpy array (main_term[:, ik] = ...: RuntimeError: Can't "
            "call numpy() on Tensor that requires grad)"),
    "black_scholes": ('scipy.stats.norm.cdf converts the Tensor to a numpy array (RuntimeError: '
        "Can't call numpy() on Tensor that requires grad)"),
    "rk4_ode": ("np.array([...]) of Tensors (RuntimeError: Can't call numpy() on Tensor that "
        'requires grad)'),
    "lotka_volterra": ("np.array([...]) of Tensors (RuntimeError: Can't call numpy() on Tensor "
        'that requires grad)'),
    "softmax_xent": ('`logits -= logits.max(axis=1, keepdims=True)` modifies in place a tensor '
        'that max saved for backward (RuntimeError: ... modified by an inplace operation)'),
    "particles": ("np.array(list of Tensors) (RuntimeError: Can't call numpy() on Tensor that "
        'requires grad)'),
    "cubic_spline": ('np.zeros(n) written with Tensor values (ValueError: setting an array '
        'element with a sequence)'),
    "rosenbrock": ("np.asarray(tensor) (RuntimeError: Can't call numpy() on Tensor that requires "
        'grad)'),
    "sir_model": ("np.array([...]) of Tensors (RuntimeError: Can't call numpy() on Tensor that "
        'requires grad)'),
    "van_der_pol": ("np.array([...]) of Tensors (RuntimeError: Can't call numpy() on Tensor that "
        'requires grad)'),
    "hmm_forward": 'scipy.special.logsumexp converts the Tensor to a numpy array',
    "lstm": ("rows of a numpy copy written with Tensors (RuntimeError: Can't call numpy() on "
        'Tensor that requires grad)'),
    "wave_equation": 'Tensor has no .copy() (AttributeError)',
    "crank_nicolson": ("np.empty(n) written with Tensor values (ValueError: setting an array "
                       "element with a sequence)"),
}

# Programs the tape runs but gets wrong (defects of the tape, not of the compiler: finite
# differences and the compiled gradient agree); the test fails when the tape becomes right.
TAPE_WRONG: dict[str, str] = {
    "stencil_alias": ("basic indexing of a Tensor copies (PyTorch returns a view), so "
                      "`center = u_new[1:-1, 1:-1]; center[:] = ...` never reaches u_new: the "
                      "tape's gradient is 0"),
}


def load(name: str) -> ModuleType:
    """The module of program `name`."""
    return importlib.import_module(f"{__name__}.{name}")
