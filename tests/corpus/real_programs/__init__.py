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

# Why no eager tape can run these as written (PyTorch raises the same RuntimeError, "Can't
# call numpy() on Tensor that requires grad"; adlite's names who converts and the line): a
# numpy array cannot hold a Tensor or its gradient, and building one (np.array, np.asarray, a
# write into it) or a library function that converts its arguments with np.asarray has no
# dispatch hook (numpy consults __array_function__ for np.array/np.asarray only with `like=`).
_NP_ARRAY = ("np.array([...]) of Tensors builds a numpy array, which cannot hold a gradient; "
             "np.array has no dispatch hook (np.stack would record)")
_NUMPY_WRITE = "Tensors written into a numpy array, which cannot hold a gradient"
_SCIPY = ("converts its Tensor argument with np.asarray before computing (scipy dispatches "
          "only its ufuncs through numpy's protocols)")
TAPE_LIMITATIONS: dict[str, str] = {
    "gmm": f"{_NUMPY_WRITE} (main_term = np.zeros((n, k)); main_term[:, ik] = ...)",
    "black_scholes": f"scipy.stats.norm.cdf {_SCIPY}",
    "rk4_ode": f"{_NP_ARRAY} (the right-hand side returns np.array([v, ...]))",
    "lotka_volterra": f"{_NP_ARRAY} (the right-hand side, and np.array(trajectory))",
    "particles": f"{_NP_ARRAY} (np.mean(np.array(history)))",
    "cubic_spline": f"{_NUMPY_WRITE} (rhs = np.zeros(n + 1); rhs[i] = ...)",
    "rosenbrock": ("np.asarray(x) of the Tensor gives a numpy array, which cannot hold a "
                   "gradient; np.asarray has no dispatch hook"),
    "sir_model": f"{_NP_ARRAY} (the right-hand side returns np.array([dS, dI, dR]))",
    "van_der_pol": f"{_NP_ARRAY} (the right-hand side returns np.array([y[1], ...]))",
    "hmm_forward": f"scipy.special.logsumexp {_SCIPY}",
    "lstm": f"{_NUMPY_WRITE} (s2 = s.copy() of the numpy state; s2[i] = ...)",
    "crank_nicolson": f"{_NUMPY_WRITE} (cp = np.empty(n); cp[0] = c[0] / b[0])",
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
