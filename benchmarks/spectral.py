"""The FFT rows of `make bench`: losses through np.fft, for numpy (value only), adlite and
JAX (jit) when installed, measured in this run.

- spectral derivative: `u' = irfft(1j k rfft(u))` of a periodic signal of n = 4,096 points,
  the loss `sum((u' - target)^2)`, d/du;
- convolution: a circular convolution by FFT, `ifft(fft(x) * fft(h))`, of complex signals
  of n = 1,024, the loss `sum(|y - target|^2)`, d/(x, h) (complex gradients, JAX's
  convention on both sides).
Nothing here asserts a timing.
"""

from __future__ import annotations

import numpy as np

N_SPECTRAL, N_CONVOLUTION = 4096, 1024


def spectral_loss(u, k, target):
    du = np.fft.irfft(1j * k * np.fft.rfft(u), n=u.shape[0])
    return np.sum((du - target) ** 2)


def convolution_loss(x, h, target):
    y = np.fft.ifft(np.fft.fft(x) * np.fft.fft(h))
    return np.sum(np.abs(y - target) ** 2)


def _arguments() -> dict:
    rng = np.random.default_rng(0)
    n, m = N_SPECTRAL, N_CONVOLUTION
    grid = 2 * np.pi * np.arange(n) / n
    u = np.sin(3 * grid) + 0.1 * rng.standard_normal(n)
    k = np.fft.rfftfreq(n, 1.0 / n)

    def signal():
        return rng.standard_normal(m) + 1j * rng.standard_normal(m)

    return {"spectral derivative": (u, k, 3 * np.cos(3 * grid)),
            "convolution": (signal(), signal(), signal())}


FUNCTIONS = {"spectral derivative": (spectral_loss, 0),
             "convolution": (convolution_loss, (0, 1))}


def _jax() -> dict | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)

    def spectral(u, k, target):
        du = jnp.fft.irfft(1j * k * jnp.fft.rfft(u), n=u.shape[0])
        return jnp.sum((du - target) ** 2)

    def convolution(x, h, target):
        y = jnp.fft.ifft(jnp.fft.fft(x) * jnp.fft.fft(h))
        return jnp.sum(jnp.abs(y - target) ** 2)

    def block(f):
        return lambda *a: jax.block_until_ready(f(*a))

    return {"spectral derivative": (block(jax.jit(spectral)), block(jax.jit(jax.grad(spectral)))),
            "convolution": (block(jax.jit(convolution)),
                            block(jax.jit(jax.grad(convolution, (0, 1)))))}


def spectral_table(best_time, fmt) -> None:
    from adlite.compiler import grad, jit

    jax_fns = _jax()
    print("## FFT losses: spectral derivative and circular convolution\n")
    print(f"Times in us; spectral derivative: irfft(1j k rfft(u)), n = {N_SPECTRAL:,}, d/du; "
          f"convolution: ifft(fft(x) fft(h)) of complex signals, n = {N_CONVOLUTION:,}, "
          "d/(x, h).\n")
    print("| workload | numpy | adlite | JAX jit | adlite gradient | JAX jit gradient |")
    print("|---|---:|---:|---:|---:|---:|")
    arguments = _arguments()
    for name, (fn, wrt) in FUNCTIONS.items():
        args = arguments[name]
        cells = [best_time(fn, args), best_time(jit(fn), args), None,
                 best_time(grad(fn, wrt=wrt), args), None]
        if jax_fns is not None:
            cells[2], cells[4] = (best_time(f, args) for f in jax_fns[name])
        print(f"| {name} | " + " | ".join(
            fmt(t) if t is not None else "not installed" for t in cells) + " |")
    print()
