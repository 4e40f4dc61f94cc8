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
"""

from .api import grad, hessian, jit, jvp, show, value_and_grad, vjp
from .errors import AdliteError, AdliteSourceError, AdliteSyntaxError

__all__ = ["AdliteError", "AdliteSourceError", "AdliteSyntaxError", "grad", "hessian", "jit",
           "jvp", "show", "value_and_grad", "vjp"]
