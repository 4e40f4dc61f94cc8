"""A corpus of numeric Python programs written as people write them (issue 10, "Measure").

Each module `tests/real_programs/<name>.py` is one program, written in the idioms of public
numeric code (defaults, keywords, lists, loops over zip/enumerate, closures, lambdas, classes,
globals, print, assert, np.linalg, scipy.special, fancy indexing), never simplified to suit
adlite. It defines its functions as written and `CASE`, how a user calls it: `CASE.entry`
(a function or a bound method) is called as `entry(*CASE.args, **CASE.kwargs)` and returns a
float; `grad(entry, wrt=CASE.wrt)` differentiates it w.r.t. the positional argument(s)
`CASE.wrt` (floats, float arrays, or lists/tuples/dicts of them).

`NOT_COMPILING` names the programs adlite does not compile as written, with the construct and
adlite's error; `TAPE_LIMITATIONS` the programs the eager tape (`adlite.runtime`) cannot run
as written, with the reason. tests/test_real_programs.py checks both marks strictly (a marked
program that starts working fails until it is unmarked); `python -m tests.real_programs`
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

NOT_COMPILING: dict[str, str] = {
    "gmm": ('keyword arguments in the call of the entry point: TypeError: Transformed.__call__() '
        "got an unexpected keyword argument 'wishart_gamma'"),
    "black_scholes": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'option'"),
    "binomial_tree": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'steps'"),
    "heat_equation": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 't_end'"),
    "rk4_ode": ('default argument value of the entry point (t_end=5.0): TypeError: '
        'final_amplitude() takes 3 positional arguments but 2 were given'),
    "lotka_volterra": ('default argument value of the entry point (y0=OBSERVED[0]): TypeError: '
        'loss() takes 2 positional arguments but 1 were given'),
    "kalman_filter": ('default argument value of the entry point (dt=0.1): TypeError: '
        'negative_log_likelihood() takes 4 positional arguments but 3 were given'),
    "pendulum_class": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'dt'"),
    "newton_kepler": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'a'"),
    "mlp_dict": ('default argument value of the entry point (weight_decay=1e-4): TypeError: '
        'mse_loss() takes 4 positional arguments but 3 were given'),
    "network_layers": ('a list of (W, b) tuples as the differentiated argument: TypeError: '
        'argument 0 has type list; compiled functions take Python or numpy scalars (float, int, '
        'bool) and float64 or float32 numpy arrays'),
    "logistic_regression": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'l2'"),
    "softmax_xent": ('default argument value of the entry point (reg=1e-3): TypeError: '
        'softmax_cross_entropy() takes 5 positional arguments but 4 were given'),
    "particles": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'dt'"),
    "stencil_alias": ('default argument value of the entry point (n=12): TypeError: compliance() '
        'takes 2 positional arguments but 1 were given'),
    "cubic_spline": ("np.linalg.solve: AdliteSyntaxError: cubic_spline.py:18:9: "
                     "np.linalg.solve() is not supported"),
    "gp_loglik": ("keyword arguments in the call of a Python function (rbf_kernel(X, X, "
                  "lengthscale=...)): AdliteSyntaxError: gp_loglik.py:15:9: keyword arguments in "
                  "calls to Python functions"),
    "portfolio": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'risk_aversion'"),
    "spring_chain": ('default argument value of the entry point (g=9.81): TypeError: '
        'chain_energy() takes 3 positional arguments but 2 were given'),
    "rosenbrock": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'b'"),
    "burgers": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'nu'"),
    "sir_model": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'days'"),
    "van_der_pol": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'x0'"),
    "hmm_forward": ('an int array argument (observations): TypeError: argument 3 is an array of '
        'int64; compiled functions take float64 or float32 arrays'),
    "bundle_adjustment": ('an int array argument (observation indices): TypeError: argument 3 is '
        'an array of int64; compiled functions take float64 or float32 arrays'),
    "lstm": ('a list appended in a loop (all_states.append): AdliteSyntaxError: lstm.py:37:5: '
        "'all_states' holds a tuple, which cannot cross an if or a loop"),
    "ridge_hyper": ("np.linalg.solve: AdliteSyntaxError: ridge_hyper.py:9:12: "
                    "np.linalg.solve() is not supported"),
    "wave_equation": ('default argument value of a called function (wave(u0, c=1.0, ...)): '
        'AdliteSyntaxError: wave_equation.py:23:1: unsupported signature: default argument '
        'values'),
    "lennard_jones": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'sigma'"),
    "monte_carlo_option": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'K'"),
    "projectile": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'drag'"),
    "simpson": ('default argument values of the entry point (lo=-10.0, hi=10.0): TypeError: '
        'second_moment() takes 4 positional arguments but 2 were given'),
    "curve_fit": ('module-level arrays (T_DATA, Y_DATA): AdliteSyntaxError: curve_fit.py:18:18: '
        "global array 'T_DATA' used in compiled code"),
    "black_box_svi": ('an array closed over by the entry closure (eps): AdliteSyntaxError: '
        "black_box_svi.py:26:19: global array 'eps' used in compiled code"),
    "heat2d_solver": ('keyword arguments in the call of the entry point: TypeError: '
        "Transformed.__call__() got an unexpected keyword argument 'steps'"),
    "crank_nicolson": ("keyword arguments in the call of the entry point: TypeError: "
                       "Transformed.__call__() got an unexpected keyword argument 'nsteps'"),
    "attention": ("keyword arguments in the call of the entry point: TypeError: "
                  "Transformed.__call__() got an unexpected keyword argument 'temperature'"),
    "bayes_linreg": ("assert (in a bound method as entry point): AdliteSyntaxError: "
                     "bayes_linreg.py:29:9: unsupported construct: assert"),
    "unrolled_sgd": ("keyword arguments in the call of the entry point: TypeError: "
                     "Transformed.__call__() got an unexpected keyword argument 'steps'"),
}

TAPE_LIMITATIONS: dict[str, str] = {
    "gmm": ("a Tensor written into a numpy array (main_term[:, ik] = ...: RuntimeError: Can't "
            "call numpy() on Tensor that requires grad)"),
    "black_scholes": ('scipy.stats.norm.cdf converts the Tensor to a numpy array (RuntimeError: '
        "Can't call numpy() on Tensor that requires grad)"),
    "heat_equation": 'Tensor has no .copy() (AttributeError)',
    "rk4_ode": ("np.array([...]) of Tensors (RuntimeError: Can't call numpy() on Tensor that "
        'requires grad)'),
    "lotka_volterra": ("np.array([...]) of Tensors (RuntimeError: Can't call numpy() on Tensor "
        'that requires grad)'),
    "softmax_xent": ('`logits -= logits.max(axis=1, keepdims=True)` modifies in place a tensor '
        'that max saved for backward (RuntimeError: ... modified by an inplace operation)'),
    "particles": ("np.array(list of Tensors) (RuntimeError: Can't call numpy() on Tensor that "
        'requires grad)'),
    "stencil_alias": 'Tensor has no .copy(); np.zeros_like then slice-views written in place',
    "cubic_spline": ('np.zeros(n) written with Tensor values (ValueError: setting an array '
        'element with a sequence)'),
    "gp_loglik": 'np.linalg.cholesky is not supported on Tensors',
    "portfolio": ('f-string format spec on a Tensor (TypeError: unsupported format string passed '
        'to Tensor.__format__)'),
    "spring_chain": "np.linalg.norm(..., axis=1) on Tensors (TypeError: unexpected keyword 'axis')",
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
    "bayes_linreg": "np.linalg.solve is not supported on Tensors",
}


def load(name: str) -> ModuleType:
    """The module of program `name`."""
    return importlib.import_module(f"{__name__}.{name}")
