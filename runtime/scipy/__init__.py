"""adlite.runtime.scipy: scipy's API for programs on the eager tape (what `autograd.scipy` is
to autograd, `torch.special` / `torch.distributions` to PyTorch).

Contract: the modules `special`, `stats`, `signal` and `linalg` mirror scipy's of the same
names. scipy's functions that are not ufuncs convert their arguments with `np.asarray`, so no
tape can record them (`foreign`); these modules give the same calls, with scipy's arguments
and values, built of the tape's functions, so that they record: `special.logsumexp`,
`multigammaln`, `polygamma`; `stats.norm`, `t`, `chi2`, `gamma`, `beta`, `poisson`,
`dirichlet`, `multivariate_normal` with the methods `foreign.ON_THE_TAPE` lists;
`signal.convolve`; `linalg.solve_triangular`, `cholesky`, `cho_factor`, `cho_solve`.
Everything else is scipy's own, re-exported (`module.__getattr__`): scipy.special's ufuncs
dispatch to the tape through `__array_ufunc__` (`special_ufuncs`), and scipy's other
functions raise `foreign.ConversionError` naming themselves when given a Tensor that requires
grad. A method of a distribution the tape does not have raises `NotOnTapeError` (an
AttributeError) naming it. Importing this package imports scipy (`adlite[scipy]`); the rest
of `adlite.runtime` never does.
"""

from . import linalg, signal, special, stats

__all__ = ["linalg", "signal", "special", "stats"]
