"""The static-graph side of the seeds: the same plain Python compiled ahead of running.

Run with `make demo` (after seed_graphs.py) or `python examples/compiler_tour.py`.
"""

import numpy as np

from adlite.compiler import grad, jit, show
from adlite.runtime import tensor


def counter():
    a = 0
    b = 10
    while a < b:
        a += 2
        b += 1
    return a, b


def growth(x):
    y = 0.0
    while x < 10.0:
        x = x * 1.5
        y = y + np.sin(x)
    return y


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def main() -> None:
    print("== C1: the counter loop is one loop node ==")
    print(show(counter, "optimize"), end="")
    print("result:", jit(counter)(), "(plain Python:", counter(), ")")

    print("\n== C5: reverse mode through a while loop with a data-dependent trip count ==")
    print(show(growth, "lower", grad=True, backend="python"), end="")
    x = tensor(1.0, requires_grad=True)
    growth(x).backward()
    print(f"compiled d/dx = {grad(growth)(1.0):.15f}   eager tape = {x.grad.item():.15f}")

    print("\n== arrays: one fused loop for the primal and one for the gradient ==")
    v = np.linspace(-1.0, 1.0, 8)
    print("f(x) =", jit(rosenbrock)(v))
    print("grad =", np.array2string(grad(rosenbrock)(v), precision=3))


if __name__ == "__main__":
    main()
