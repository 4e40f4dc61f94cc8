"""Foreign functions: library code that converts Tensors to plain arrays itself (through
`Tensor.__array__`, from compiled code) instead of dispatching through numpy's protocols, so
a Tensor that requires grad cannot flow through it and its gradient would be lost.

Contract: `refuse_conversion(frame)` raises a TypeError naming the function and what to do
instead when `frame` (the Python frame converting the Tensor) is a known foreign function's;
otherwise it returns and the conversion goes on as `Tensor.__array__` has it (PyTorch's
RuntimeError for a Tensor that requires grad). Known: `scipy.integrate.odeint`, whose
integrator converts `y0`, `t` and every value `func` returns (a Tensor among `args` reaches
it through `func`).
"""

from __future__ import annotations

from types import FrameType

# (module, function) of the frame that converts -> the public name
FOREIGN = {("scipy.integrate._odepack_py", "odeint"): "scipy.integrate.odeint"}


def refuse_conversion(frame: FrameType | None) -> None:
    name = None if frame is None else \
        FOREIGN.get((frame.f_globals.get("__name__"), frame.f_code.co_name))
    if name is not None:
        raise TypeError(f"{name} cannot take adlite Tensors that require grad: it integrates "
                        "plain arrays in compiled code, so no gradient can flow through it "
                        "(y0, t, the values func returns and Tensors in args included). "
                        "Write the integration as a loop of steps (Euler, Runge-Kutta) and "
                        "differentiate it with adlite's compiled `grad` (or on the tape), or "
                        "pass plain arrays (`x.detach().numpy()`) where no gradient is needed")
