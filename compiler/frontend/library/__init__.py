"""numpy's, scipy's, math's and Python's builtin functions in compiled code: their rules.

Contract: importing the package registers every rule into the one table of `registry`
(`registry.lookup(obj)` finds them); each module registers the functions of one subject:
`elementwise` (ufuncs and math's functions), `python_builtins`, `reductions`, `arrays`
(array creation, shapes, methods and attributes), `building` (arrays built and rearranged),
`rearranging` (rot90, rollaxis, the named splits, append, fftshift, inner, nan_to_num),
`complex_parts` (np.real, np.imag, np.angle, ...), `fft` (`np.fft`'s transforms and
frequencies), `convolution` (`np.convolve`, and `scipy.signal.convolve` once the program
imported it),
`finite_differences` (`np.gradient`),
`linalg` and `decompositions` (`np.linalg`), `sorting`, `selections`, `nonzero` (index
selections), `operator_module` (Python's `operator` functions), and, lazily, once the
user's program imported scipy, `scipy_special_stats` and `scipy_linalg`. A rule receives the
converter as a `CallContext` (`frontend/context.py`) and uses nothing else of it.
"""

from . import (  # noqa: F401  (each registers its rules)
    arrays,
    building,
    complex_parts,
    convolution,
    decompositions,
    elementwise,
    fft,
    finite_differences,
    linalg,
    nonzero,
    operator_module,
    python_builtins,
    rearranging,
    reductions,
    registry,
    scipy_special_stats,
    selections,
    sorting,
)
