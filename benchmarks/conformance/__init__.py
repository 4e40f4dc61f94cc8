"""`python -m benchmarks.conformance` (`make conformance`): HIPS/autograd's own test suite run
through adlite, with autograd as the reference and central differences as a cross-check.

Nothing of autograd is kept in this repository: `sdist` downloads the pinned sdist from the
package index and extracts its `tests/` into build/conformance/ at run time. `collect` imports
each test module with autograd's `check_grads`, `combo_check` and `grad` replaced by
recording shims, so that every call becomes one `Case` (the function, its arguments, the
modes and order autograd asked for). `rewrite` gives each function a copy of its globals in
which autograd's numpy/scipy modules and functions are the real numpy/scipy ones (that is
what the user means by `autograd.numpy as np`) and writes the entry adlite compiles. `modes`
runs one case through adlite (jit, grad, jvp, hessian where autograd tests second order, the
eager tape) and classifies each result; `pool` runs every case in its own forked process
with a time limit; `report` prints the tables and writes the JSON.
"""

AUTOGRAD_VERSION = "1.7.0"
