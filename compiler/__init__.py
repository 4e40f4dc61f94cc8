"""adlite.compiler: plain Python source -> static IR -> adjoint IR -> compiled code.

    from adlite.compiler import grad

    @grad
    def f(x):
        y = 0.0
        while x < 10.0:       # data-dependent trip count: a loop node in the IR
            x = x * 1.5
            y = y + x
        return y

    f(1.0)                     # dy/dx, computed by the adjoint loop running backwards

Importing this package fills the primitive table (`ir.primitive`) first: `primitives`
registers the primitives, `ad` attaches the structural AD rules. Python runs this file before
any submodule, so the table is complete whichever module a program imports.
"""

from . import ad, primitives  # noqa: F401  (fill the primitive table before anything else)
from .api import grad, jit, jvp, show, value_and_grad, vjp
from .backends.llvm.tiers import wait as wait_optimised
from .batching import vmap
from .custom import custom_jvp, custom_vjp, stop_gradient
from .errors import (
    AdliteAxisError,
    AdliteError,
    AdliteIndexError,
    AdliteSourceError,
    AdliteSyntaxError,
    AdliteTypeError,
    AdliteValueError,
)
from .jacobian import hessian, jacfwd, jacobian, jacrev

__all__ = ["AdliteAxisError", "AdliteError", "AdliteIndexError", "AdliteSourceError",
           "AdliteSyntaxError", "AdliteTypeError", "AdliteValueError", "custom_jvp",
           "custom_vjp", "grad", "hessian", "jacfwd", "jacobian", "jacrev", "jit", "jvp", "show",
           "stop_gradient", "value_and_grad", "vjp", "vmap", "wait_optimised"]
