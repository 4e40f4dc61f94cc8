"""Converting a Tensor that requires grad to a numpy array (runtime/foreign.py): numpy has no
hook by which `np.array` / `np.asarray` (of a tensor, or of nested lists holding tensors and
numbers), `np.r_` / `np.c_` or a write into a numpy array could record, and scipy's
functions that are not ufuncs convert their arguments with `np.asarray`. The tape raises
PyTorch's RuntimeError there, naming who converts (as the caller wrote it:
`scipy.stats.norm.cdf`, `np.r_[...] / np.c_[...]`), the caller's file and line, and what
records instead (for scipy's functions, the same call in `adlite.runtime.scipy`);
`scipy.integrate.odeint` raises a TypeError naming it. The recorded
alternatives the messages name run (test_tape_runs_compiled.py checks their values and
gradients); tensors that do not require grad convert as before.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.integrate
import scipy.signal
import scipy.special
import scipy.stats

from adlite.runtime import no_grad, tensor

T = tensor([0.5, 1.5, 2.5], requires_grad=True)
S = tensor(0.75, requires_grad=True)


def array_of_tensors():
    return np.array([T, T])


def array_of_numbers_and_scalars():
    return np.array([[S, 1.0], [2.0, S]])


def asarray():
    return np.asarray(T)


def r_():
    return np.r_[T, 1.0]


def c_():
    return np.c_[T, np.ones(3)]


def write_into_numpy_array():
    out = np.zeros(3)
    out[:] = T


def logsumexp():
    return scipy.special.logsumexp(T, axis=0, keepdims=True)


def logsumexp_b():
    return scipy.special.logsumexp(T, b=np.ones(3))


def norm_pdf():
    return scipy.stats.norm.pdf(T)


def norm_logpdf():
    return scipy.stats.norm.logpdf(T, loc=1.0)


def norm_cdf():
    return scipy.stats.norm.cdf(T, 0.0, 2.0)


def frozen_norm_logpdf():
    return scipy.stats.norm(0.0, 1.0).logpdf(T)


def t_logpdf():
    return scipy.stats.t.logpdf(T, 3.0)


def gamma_logpdf():
    return scipy.stats.gamma.logpdf(T, 2.0)


def beta_logpdf():
    return scipy.stats.beta.logpdf(T / 3.0, 2.0, 3.0)


def poisson_logpmf():
    return scipy.stats.poisson.logpmf(2, T)


def dirichlet_logpdf():
    return scipy.stats.dirichlet.logpdf(T / 4.5, [1.0, 2.0, 3.0])


def weibull_logpdf():
    return scipy.stats.weibull_min.logpdf(T, 1.5)


def signal_convolve():
    return scipy.signal.convolve(T, [1.0, 2.0], mode="same")


def signal_convolve_2d():
    return scipy.signal.convolve(np.ones((2, 2)), T[:2, None] * T[None, :2])


NUMPY = "np.array / np.asarray (of it or of a list holding it) or a write into a numpy array"
STACK = "np.stack / np.concatenate / np.hstack / np.vstack"
ASARRAY = "np.asarray before computing"
CASES = {  # the function -> (who converts, what the message offers instead)
    array_of_tensors: (NUMPY, STACK),
    array_of_numbers_and_scalars: (NUMPY, STACK),
    asarray: (NUMPY, STACK),
    write_into_numpy_array: (NUMPY, "writes into a tensor"),
    r_: ("np.r_[...] / np.c_[...]", "np.concatenate"),
    c_: ("np.r_[...] / np.c_[...]", "np.column_stack"),
    logsumexp: ("scipy.special.logsumexp", "adlite.runtime.scipy.special.logsumexp"),
    logsumexp_b: ("scipy.special.logsumexp", "adlite.runtime.scipy.special.logsumexp"),
    norm_pdf: ("scipy.stats.norm.pdf", "adlite.runtime.scipy.stats.norm.pdf (scipy's"),
    norm_logpdf: ("scipy.stats.norm.logpdf", "adlite.runtime.scipy.stats.norm.logpdf"),
    norm_cdf: ("scipy.stats.norm.cdf", "adlite.runtime.scipy.stats.norm.cdf"),
    frozen_norm_logpdf: ("scipy.stats.norm.logpdf", "adlite.runtime.scipy.stats.norm.logpdf"),
    t_logpdf: ("scipy.stats.t.logpdf", "adlite.runtime.scipy.stats.t.logpdf"),
    gamma_logpdf: ("scipy.stats.gamma.logpdf", "adlite.runtime.scipy.stats.gamma.logpdf"),
    beta_logpdf: ("scipy.stats.beta.logpdf", "adlite.runtime.scipy.stats.beta.logpdf"),
    poisson_logpmf: ("scipy.stats.poisson.logpmf", "adlite.runtime.scipy.stats.poisson.logpmf"),
    dirichlet_logpdf: ("scipy.stats.dirichlet.logpdf",
                       "adlite.runtime.scipy.stats.dirichlet.logpdf"),
    weibull_logpdf: ("scipy.stats.weibull_min.logpdf", "numpy functions and operators"),
    signal_convolve: ("scipy.signal.convolve", "adlite.runtime.scipy.signal.convolve"),
    signal_convolve_2d: ("scipy.signal.convolve", "from adlite.runtime.scipy import signal"),
}


def _line_converting(fn) -> int:
    """The line of `fn` that converts (its last)."""
    lines, first = inspect.getsourcelines(fn)
    return first + len(lines) - 1


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_conversion_names_who_converts_where_and_what_records(fn):
    who, instead = CASES[fn]
    with pytest.raises(RuntimeError) as caught:
        fn()
    message = str(caught.value)
    assert message.startswith("Can't call numpy() on Tensor that requires grad: ")
    assert f"{who} at {__file__}:{_line_converting(fn)} converts it" in message
    assert instead in message and "detach().numpy()" in message


@pytest.mark.parametrize("fn", [array_of_tensors, r_, c_, logsumexp, norm_cdf],
                         ids=lambda fn: fn.__name__)
def test_under_no_grad_too(fn):
    with no_grad(), pytest.raises(RuntimeError, match="requires grad: "):
        fn()


def test_tensors_without_grad_convert():
    plain = tensor([0.5, 1.5])
    np.testing.assert_array_equal(np.array([plain, plain]), [[0.5, 1.5], [0.5, 1.5]])
    np.testing.assert_array_equal(np.r_[plain, 1.0], [0.5, 1.5, 1.0])
    assert scipy.special.logsumexp(plain) == scipy.special.logsumexp([0.5, 1.5])


def test_odeint_names_itself_and_the_remedy():
    with pytest.raises(TypeError, match=r"scipy.integrate.odeint cannot take adlite Tensors.*"
                                        r"loop of steps"):
        scipy.integrate.odeint(lambda y, t: -S * y, [1.0, 2.0], [0.0, 1.0])
