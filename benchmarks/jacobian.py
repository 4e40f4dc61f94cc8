"""Jacobians and Hessians (issue 13 item 3): one native call computing the whole Jacobian
(`jacrev`, `jacfwd`, `jacobian`, `hessian`) against a Python loop calling the compiled
`vjp` pullback once per row, and against numpy central differences (2n evaluations of the
primal). `python -m benchmarks.jacobian` prints this table alone; nothing asserts a timing."""

from __future__ import annotations

import numpy as np

N = 100
W = np.random.default_rng(0).standard_normal((N, N)) / np.sqrt(N)
TIMES = np.linspace(0.0, 3.0, 1000)


def layer(x):
    """tanh(W @ x) * x, 100 -> 100."""
    return np.tanh(W @ x) * x


def residuals(p):
    """curve-fit residuals, 3 parameters -> 1000 residuals."""
    return p[0] * np.exp(-p[1] * TIMES) + p[2] - np.cos(TIMES)


def rosenbrock(x):
    """Rosenbrock, n = 100."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rows_by_pullback(fn, x):
    """The Jacobian by the compiled vjp, one Python call of the pullback per row."""
    from adlite.compiler import vjp

    out, pullback = vjp(fn, x)
    seeds = np.eye(out.size)
    return np.stack([pullback(seeds[k])[0] for k in range(out.size)])


def differences(fn, x, eps=1e-6):
    steps = np.eye(x.size) * eps
    return np.stack([(fn(x + s) - fn(x - s)) / (2 * eps) for s in steps], axis=-1)


def jacobian_table(best_time, fmt) -> None:
    """Print the table; `best_time(fn, args)` and `fmt(seconds)` as in `benchmarks`."""
    from adlite.compiler import grad, hessian, jacfwd, jacobian, jacrev

    print("## Jacobians: one native call vs a Python loop of pullbacks (us)\n")
    print("| function | jacrev | jacfwd | jacobian | loop of vjp pullbacks "
          "| numpy central differences |")
    print("|---|---:|---:|---:|---:|---:|")
    for fn, x in ((layer, np.linspace(-1.0, 1.0, N)), (residuals, np.array([1.0, 0.5, 0.1]))):
        times = [best_time(t(fn), (x,)) for t in (jacrev, jacfwd, jacobian)]
        times += [best_time(rows_by_pullback, (fn, x)), best_time(differences, (fn, x))]
        print(f"| {fn.__doc__.rstrip('.')} | " + " | ".join(fmt(t) for t in times) + " |")
    x = np.linspace(-1.0, 1.0, N)
    th, tg = best_time(hessian(rosenbrock), (x,)), best_time(grad(rosenbrock), (x,))
    print(f"\nhessian of {rosenbrock.__doc__.rstrip('.')}: {fmt(th)} us, its gradient "
          f"{fmt(tg)} us (ratio {th / tg:.0f}: one tangent sweep per component)\n")


if __name__ == "__main__":
    from .__main__ import best_time, fmt

    jacobian_table(best_time, fmt)
