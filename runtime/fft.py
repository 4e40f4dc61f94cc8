"""np.fft on the eager tape: the transforms as four primitives whose values and adjoints are
numpy's own FFTs (pocketfft; no transform is written here).

Contract:
- `FUNCTIONS` maps `np.fft.fft`, `ifft`, `rfft`, `irfft` (`n`, `axis`), `fft2`, `ifft2`,
  `rfft2`, `irfft2`, `fftn`, `ifftn`, `rfftn`, `irfftn` (`s`, `axes`), all with `norm`
  (`out=` refused), and `fftfreq` / `rfftfreq` of a Tensor spacing `d` to tape functions with
  numpy's signatures. Each transform is one of the primitives `fftn`, `ifftn` (complex to
  complex), `rfftn` (real to complex), `irfftn` (complex to real), given the lengths `s` and
  the `axes` as numpy resolves them (the one-axis functions are their one-axis case, whose
  values numpy computes identically); a repeated axis raises NotImplementedError, arguments
  numpy refuses numpy's own error.
- Gradients are PyTorch's (`complex_numbers`): the adjoint (conjugate transpose) of the
  linear map. For `fftn` / `ifftn` with normalisation `norm` it is the inverse transform /
  the transform with the dual normalisation (`backward` <-> `forward`, `ortho` itself),
  truncated or zero-padded back to the input's lengths (the adjoint of numpy's padding or
  truncation to `s`); `rfftn` pads the cotangent's half spectrum with zeros, runs the
  inverse transform and takes the real part; `irfftn`'s is `rfftn` of the cotangent
  (dual normalisation) times 2 for the frequencies the Hermitian spectrum counts twice (1
  for the zero frequency and, for even lengths, the Nyquist one, whose imaginary parts
  irfft ignores). The adjoints are the primitives themselves, so every order is recorded.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from adlite.derivatives import fft as fft_axes

from . import functional as F
from .primitive import PRIMITIVES, Primitive, RuleContext
from .vocabulary import TENSOR_OPS as O

_DUAL = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _resized(t: Any, shape: Sequence[int]) -> Any:
    """`t` truncated or zero-padded at the end of each axis to `shape` (numpy's `n` / `s`)."""
    for axis, (have, want) in enumerate(zip(t.shape, shape, strict=True)):
        if have > want:
            t = O.slice_along(t, axis, 0, want)
        elif have < want:
            pad = t.shape[:axis] + (want - have,) + t.shape[axis + 1:]
            t = F.concatenate([t, np.zeros(pad, t.dtype)], axis)
    return t


def _lengths(shape: tuple[int, ...], axes: tuple[int, ...], lengths: Sequence[int]
             ) -> tuple[int, ...]:
    """`shape` with `lengths` along `axes`."""
    out = list(shape)
    for axis, n in zip(axes, lengths, strict=True):
        out[axis] = n
    return tuple(out)


def _dual(ctx: RuleContext) -> str:
    return _DUAL[ctx.params["norm"]]


def _complex_vjp(inverse: str) -> Callable[[RuleContext, Any], tuple[Any, ...]]:
    """fftn / ifftn: the other transform, dual normalisation, back to the input's lengths."""

    def vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
        axes = ctx.params["axes"]
        back = F.apply(inverse, g, s=tuple(g.shape[a] for a in axes), axes=axes,
                       norm=_dual(ctx))
        return (_resized(back, ctx.shapes[0]),)

    return vjp


def _rfftn_vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
    """Zeros for the dropped half of the spectrum, the inverse transform, its real part."""
    s, axes = ctx.params["s"], ctx.params["axes"]
    full = _resized(g, _lengths(g.shape, axes[-1:], s[-1:]))
    back = F.apply("ifftn", full, s=s, axes=axes, norm=_dual(ctx))
    return (_resized(F.real(back), ctx.shapes[0]),)


def _irfftn_vjp(ctx: RuleContext, g: Any) -> tuple[Any, ...]:
    """The forward real transform, doubled where the Hermitian spectrum counts twice."""
    s, axes = ctx.params["s"], ctx.params["axes"]
    half = F.apply("rfftn", g, s=s, axes=axes, norm=_dual(ctx))
    kept = half.shape[axes[-1]]
    twice = np.full(kept, 2.0, dtype=np.real(np.zeros((), half.dtype)).dtype)
    twice[0] = 1.0
    if s[-1] % 2 == 0:
        twice[-1] = 1.0
    weights = twice.reshape(_lengths((1,) * half.ndim, axes[-1:], (kept,)))
    return (_resized(F.multiply(half, weights), ctx.shapes[0]),)


def _register(name: str, node_name: str, vjp: Callable[[RuleContext, Any], tuple[Any, ...]]
              ) -> None:
    transform = getattr(np.fft, name)

    def impl(x: np.ndarray, *, s: tuple[int, ...], axes: tuple[int, ...], norm: Any
             ) -> np.ndarray:
        return transform(x, s=s, axes=axes, norm=norm)

    PRIMITIVES[name] = Primitive(name, node_name, impl, vjp, takes_complex=True)


_register("fftn", "FftC2CBackward0", _complex_vjp("ifftn"))
_register("ifftn", "FftC2CBackward0", _complex_vjp("fftn"))
_register("rfftn", "FftR2CBackward0", _rfftn_vjp)
_register("irfftn", "FftC2RBackward0", _irfftn_vjp)


def _transform(name: str, primitive: str, a: Any, s: Any, axes: Any, norm: Any,
               out: Any, one_axis: bool) -> Any:
    """The transform `name` of `a` as `primitive`; arguments numpy refuses raise numpy's own
    error (numpy's function is called on the array to raise it)."""
    if out is not None:
        raise TypeError(f"numpy.fft.{name}(..., out=...) is not supported on adlite Tensors: "
                        "assign the result instead")
    a = F.constant(a)
    try:
        lengths, resolved = fft_axes.resolved(name, a.shape, s, axes)
        if one_axis and s is not None and operator.index(s[0]) < 1:  # `n` has no -1
            raise ValueError(f"Invalid number of FFT data points ({s[0]}) specified.")
    except (TypeError, ValueError, IndexError):
        numpy_fn = getattr(np.fft, name)
        if one_axis:
            numpy_fn(a.data, None if s is None else s[0], axes[0], norm)
        else:
            numpy_fn(a.data, s, axes, norm)
        raise
    return F.apply(primitive, a, s=lengths, axes=resolved, norm=norm)


def _one_axis(name: str, primitive: str) -> Callable[..., Any]:
    def call(a: Any, n: Any = None, axis: int = -1, norm: Any = None, out: Any = None) -> Any:
        return _transform(name, primitive, a, None if n is None else (n,), (axis,), norm, out,
                          one_axis=True)

    call.__name__ = call.__qualname__ = name
    return call


def _several_axes(name: str, primitive: str, default: tuple[int, ...] | None
                  ) -> Callable[..., Any]:
    def call(a: Any, s: Any = None, axes: Any = default, norm: Any = None,
             out: Any = None) -> Any:
        return _transform(name, primitive, a, s, axes, norm, out, one_axis=False)

    call.__name__ = call.__qualname__ = name
    return call


def _frequencies(numpy_fn: Callable[..., np.ndarray]) -> Callable[..., Any]:
    """fftfreq / rfftfreq with a Tensor spacing `d`: numpy's integer frequencies times
    `1 / (n * d)`, as numpy computes them."""

    def call(n: int, d: Any = 1.0, device: Any = None) -> Any:
        counts = numpy_fn(n, 1.0 / n, device=device)
        return F.multiply(np.rint(counts).astype(np.int64),
                          F.divide(1.0, F.multiply(float(n), F.constant(d))))

    call.__name__ = call.__qualname__ = numpy_fn.__name__
    return call


FUNCTIONS = {
    np.fft.fft: _one_axis("fft", "fftn"), np.fft.ifft: _one_axis("ifft", "ifftn"),
    np.fft.rfft: _one_axis("rfft", "rfftn"), np.fft.irfft: _one_axis("irfft", "irfftn"),
    np.fft.fft2: _several_axes("fft2", "fftn", (-2, -1)),
    np.fft.ifft2: _several_axes("ifft2", "ifftn", (-2, -1)),
    np.fft.rfft2: _several_axes("rfft2", "rfftn", (-2, -1)),
    np.fft.irfft2: _several_axes("irfft2", "irfftn", (-2, -1)),
    np.fft.fftn: _several_axes("fftn", "fftn", None),
    np.fft.ifftn: _several_axes("ifftn", "ifftn", None),
    np.fft.rfftn: _several_axes("rfftn", "rfftn", None),
    np.fft.irfftn: _several_axes("irfftn", "irfftn", None),
    np.fft.fftfreq: _frequencies(np.fft.fftfreq),
    np.fft.rfftfreq: _frequencies(np.fft.rfftfreq),
}
