"""The seed tutorials' examples on the eager tape, printing the graph facts they teach.

Run with `make demo` (or `python examples/seed_graphs.py`).
"""

import numpy as np

from adlite.runtime import autograd, no_grad, ones, tensor, to_dot


def section(title: str) -> None:
    print(f"\n== {title} ==")


def leaf_and_grad_fn() -> None:
    section("S1-S4: y = (w + x) * (w + 1), w = 1, x = 2")
    w = tensor([1.0], requires_grad=True)
    x = tensor([2.0], requires_grad=True)
    a = w + x
    b = w + 1
    y = a * b
    a.retain_grad()
    print("is_leaf       w, x, a, b, y:", [t.is_leaf for t in (w, x, a, b, y)])
    print("grad_fn       y:", y.grad_fn.name(), "a:", a.grad_fn.name(), "w:", w.grad_fn)
    print("next_functions of y.grad_fn:", [n.name() for n, _ in y.grad_fn.next_functions])
    y.backward()
    print("dy/dw =", w.grad.tolist(), " dy/dx =", x.grad.tolist(),
          " retained dy/da =", a.grad.tolist())
    print("graph (Graphviz DOT):")
    print(to_dot(y, params={"w": w, "x": x}), end="")


def mean_of_squares() -> None:
    section("S7: out = mean((x + 2)^2), x = ones(2, 2)")
    x = ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2)).mean()
    out.backward()
    print("x.grad =", x.grad.tolist())


def vector_jacobian() -> None:
    section("S8-S10: non-scalar outputs, retain_graph, zero_()")
    x = tensor([[1.0, 2.0]], requires_grad=True)
    loss = x @ tensor([[3.0, 4.0], [5.0, 6.0]])
    try:
        loss.backward()
    except RuntimeError as e:
        print("loss.backward():", e)
    loss.backward(tensor([[1.0, 0.0]]), retain_graph=True)
    print("d loss[0,0]/dx =", x.grad.tolist())
    x.grad.zero_()
    loss.backward(tensor([[0.0, 1.0]]))
    print("d loss[0,1]/dx =", x.grad.tolist())
    try:
        loss.backward(tensor([[0.0, 1.0]]))
    except RuntimeError as e:
        print("third backward:", str(e)[:60], "...")


def control_flow() -> None:
    section("dynamic graph: plain Python while loop, recorded as it runs")
    x = tensor(1.5, requires_grad=True)
    y, steps = x, 0
    while y.item() < 100.0:
        y = y * y + np.sin(y)
        steps += 1
    y.backward()
    print(f"{steps} iterations recorded; y = {y.item():.6f}, dy/dx = {x.grad.item():.6f}")
    (g,) = autograd.grad(x ** 3, x, create_graph=True)
    (h,) = autograd.grad(g, x)
    print(f"d/dx x^3 = {g.item()}, d2/dx2 x^3 = {h.item()} at x = 1.5")
    with no_grad():
        z = x * 2
    print("under no_grad: requires_grad =", z.requires_grad, ", grad_fn =", z.grad_fn)


if __name__ == "__main__":
    leaf_and_grad_fn()
    mean_of_squares()
    vector_jacobian()
    control_flow()
