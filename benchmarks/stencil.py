"""Slice-stencil time loops (issue 12 item 4): the gradient/primal time ratio of vectorised
slice updates inside time loops, 1-D and 2-D, with np.roll and with swapped buffers; the
gradient is w.r.t. the initial field (so a linear stencil stores nothing on the tape) and,
for 1-D and 2-D convection, also w.r.t. the Courant number (its residuals stored per step);
and a 32x32 lid-driven cavity flow (the "12 steps to Navier-Stokes" program: velocity updates
by slices, a pressure Poisson loop nested in the time loop). Target: gradient <= 4x primal.
`python -m benchmarks.stencil` prints this table alone."""

from __future__ import annotations

import numpy as np


def convection_1d(u0, c):
    """1-D linear convection, nx = 1000, 500 steps."""
    u = u0.copy()
    for _ in range(500):
        un = u.copy()
        u[1:] = un[1:] - c * (un[1:] - un[:-1])
    return np.sum(u ** 2)


def convection_2d(u0, c, steps=100):
    """2-D linear convection (81x81 in the table), `steps` steps, boundaries held at 1."""
    u = u0.copy()
    for _ in range(steps):
        un = u.copy()
        u[1:, 1:] = (un[1:, 1:] - c * (un[1:, 1:] - un[1:, :-1])
                     - c * (un[1:, 1:] - un[:-1, 1:]))
        u[0, :] = 1.0
        u[-1, :] = 1.0
        u[:, 0] = 1.0
        u[:, -1] = 1.0
    return np.sum(u ** 2)


def diffusion_2d(u0, nu, steps=100):
    """2-D diffusion (81x81 in the table), `steps` steps, `u[1:-1, 1:-1] = ...`."""
    u = u0.copy()
    for _ in range(steps):
        un = u.copy()
        u[1:-1, 1:-1] = un[1:-1, 1:-1] + nu * (un[2:, 1:-1] + un[:-2, 1:-1] + un[1:-1, 2:]
                                               + un[1:-1, :-2] - 4 * un[1:-1, 1:-1])
    return np.sum(u ** 2)


def roll_convection(u0, c):
    """1-D periodic convection with np.roll, nx = 1000, 500 steps."""
    u = u0
    for _ in range(500):
        u = u - c * (u - np.roll(u, 1))
    return np.sum(u ** 2)


def swapped_diffusion(u0, nu, steps=500):
    """1-D diffusion into a second buffer, then `u, un = un, u` (nx = 1000 in the table),
    `steps` steps."""
    u = u0.copy()
    un = u0.copy()
    for _ in range(steps):
        un[1:-1] = u[1:-1] + nu * (u[2:] - 2 * u[1:-1] + u[:-2])
        u, un = un, u
    return np.sum(u ** 2)


def build_up_b(rho, dt, u, v, dx, dy):
    """The source term of the pressure Poisson equation."""
    b = np.zeros_like(u)
    b[1:-1, 1:-1] = (rho * (1 / dt * ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)
                                      + (v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy))
                            - ((u[1:-1, 2:] - u[1:-1, 0:-2]) / (2 * dx)) ** 2
                            - 2 * ((u[2:, 1:-1] - u[0:-2, 1:-1]) / (2 * dy)
                                   * (v[1:-1, 2:] - v[1:-1, 0:-2]) / (2 * dx))
                            - ((v[2:, 1:-1] - v[0:-2, 1:-1]) / (2 * dy)) ** 2))
    return b


def pressure_poisson(p, dx, dy, b, nit):
    """`nit` Jacobi sweeps of the pressure Poisson equation with its boundary conditions."""
    for _ in range(nit):
        pn = p.copy()
        p[1:-1, 1:-1] = (((pn[1:-1, 2:] + pn[1:-1, 0:-2]) * dy ** 2
                          + (pn[2:, 1:-1] + pn[0:-2, 1:-1]) * dx ** 2)
                         / (2 * (dx ** 2 + dy ** 2))
                         - dx ** 2 * dy ** 2 / (2 * (dx ** 2 + dy ** 2)) * b[1:-1, 1:-1])
        p[:, -1] = p[:, -2]  # dp/dx = 0 at x = 2
        p[0, :] = p[1, :]  # dp/dy = 0 at y = 0
        p[:, 0] = p[:, 1]  # dp/dx = 0 at x = 0
        p[-1, :] = 0.0  # p = 0 at y = 2
    return p


def cavity_flow(u0, nu, nt=50, nit=20):
    """Lid-driven cavity flow, 32x32, 50 steps of 20 pressure sweeps each."""
    ny, nx = u0.shape
    dx, dy = 2.0 / (nx - 1), 2.0 / (ny - 1)
    rho, dt = 1.0, 0.001
    u = u0.copy()
    v = np.zeros_like(u0)
    p = np.zeros_like(u0)
    for _ in range(nt):
        un = u.copy()
        vn = v.copy()
        b = build_up_b(rho, dt, u, v, dx, dy)
        p = pressure_poisson(p, dx, dy, b, nit)
        u[1:-1, 1:-1] = (un[1:-1, 1:-1]
                         - un[1:-1, 1:-1] * dt / dx * (un[1:-1, 1:-1] - un[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (un[1:-1, 1:-1] - un[0:-2, 1:-1])
                         - dt / (2 * rho * dx) * (p[1:-1, 2:] - p[1:-1, 0:-2])
                         + nu * (dt / dx ** 2 * (un[1:-1, 2:] - 2 * un[1:-1, 1:-1]
                                                 + un[1:-1, 0:-2])
                                 + dt / dy ** 2 * (un[2:, 1:-1] - 2 * un[1:-1, 1:-1]
                                                   + un[0:-2, 1:-1])))
        v[1:-1, 1:-1] = (vn[1:-1, 1:-1]
                         - un[1:-1, 1:-1] * dt / dx * (vn[1:-1, 1:-1] - vn[1:-1, 0:-2])
                         - vn[1:-1, 1:-1] * dt / dy * (vn[1:-1, 1:-1] - vn[0:-2, 1:-1])
                         - dt / (2 * rho * dy) * (p[2:, 1:-1] - p[0:-2, 1:-1])
                         + nu * (dt / dx ** 2 * (vn[1:-1, 2:] - 2 * vn[1:-1, 1:-1]
                                                 + vn[1:-1, 0:-2])
                                 + dt / dy ** 2 * (vn[2:, 1:-1] - 2 * vn[1:-1, 1:-1]
                                                   + vn[0:-2, 1:-1])))
        u[0, :] = 0.0
        u[:, 0] = 0.0
        u[:, -1] = 0.0
        u[-1, :] = 1.0  # the lid moves
        v[0, :] = 0.0
        v[-1, :] = 0.0
        v[:, 0] = 0.0
        v[:, -1] = 0.0
    return np.sum(u ** 2) + np.sum(v ** 2) + np.sum(p ** 2)


_LINE = np.linspace(0.0, 1.0, 1000) ** 2 + 1.0
_FIELD = 1.0 + np.outer(np.linspace(0.0, 1.0, 81), np.linspace(0.0, 1.0, 81))
_LID = np.zeros((32, 32))
_LID[-1, :] = 1.0
_LID += 0.01 * np.outer(np.linspace(0.0, 1.0, 32), np.linspace(0.0, 1.0, 32))
CASES = [  # (function, arguments, wrt)
    (convection_1d, (_LINE, 0.3), (0,)),
    (convection_1d, (_LINE, 0.3), (0, 1)),
    (convection_2d, (_FIELD, 0.2), (0,)),
    (convection_2d, (_FIELD, 0.2), (0, 1)),
    (diffusion_2d, (_FIELD, 0.2), (0,)),
    (roll_convection, (_LINE, 0.3), (0,)),
    (swapped_diffusion, (_LINE, 0.25), (0,)),
    (cavity_flow, (_LID, 0.1), (0,)),
]


def stencil_table(best_time, fmt) -> None:
    """Print the table; `best_time(fn, args)` and `fmt(seconds)` as in `benchmarks`."""
    from adlite.compiler import grad, jit

    print("## Slice-stencil gradients (target: gradient <= 4x primal)\n")
    print("| program | wrt | primal (us) | gradient (us) | gradient/primal |")
    print("|---|---|---:|---:|---:|")
    for fn, args, wrt in CASES:
        tp, tg = best_time(jit(fn), args), best_time(grad(fn, wrt=wrt), args)
        tp = min(tp, best_time(jit(fn), args))  # the primal again, after the gradient
        print(f"| {fn.__doc__.split(',')[0]} ({fn.__name__}) | {wrt} | {fmt(tp)} | {fmt(tg)} "
              f"| {tg / tp:.2f} |")
    print()


if __name__ == "__main__":
    from .__main__ import best_time, fmt

    stencil_table(best_time, fmt)
