"""Values, gradients (first and second order) and error types against PyTorch, when installed."""

import numpy as np
import pytest

from adlite import runtime as rt

torch = pytest.importorskip("torch")

METHOD_CASES = {
    "arith": lambda x, y: (x * y + x / (y * y + 1.0) - 3.0 * x) ** 2,
    "exp-log": lambda x, y: (x.exp() + (y * y + 1.0).log()).sum(),
    "trig": lambda x, y: x.sin() * y.cos() + (0.3 * x).tan(),
    "tanh-sigmoid": lambda x, y: x.tanh() * y.sigmoid(),
    "sqrt-abs": lambda x, y: (x * x + 1.0).sqrt() + y.abs(),
    "reductions": lambda x, y: x.sum(dim=0) * y.mean() + x.max() - y.min(),
    "keepdim": lambda x, y: (x - x.mean(dim=1, keepdim=True)) * y,
    "matmul": lambda x, y: (x @ y.t()).tanh(),
    "indexing": lambda x, y: x[0] * y[1] + x[:, 1:].sum(),
    "clamp": lambda x, y: x.clamp(-0.5, 0.5) * y,
    "relu": lambda x, y: (x * y).relu(),
    "reshape": lambda x, y: x.reshape(3, 2) @ y.reshape(2, 3),
    "pow-tensor": lambda x, y: (x * x + 0.5) ** y,
    "broadcast": lambda x, y: x * y[0] + y[:, :1],
    "prod": lambda x, y: x.prod(dim=1) * y.prod(),
}


def _run(fn, lib, x, y, second):
    if lib is torch:
        tx = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        ty = torch.tensor(y, dtype=torch.float64, requires_grad=True)
        grad = torch.autograd.grad
    else:
        tx, ty = rt.tensor(x, requires_grad=True), rt.tensor(y, requires_grad=True)
        grad = rt.autograd.grad
    out = fn(tx, ty)
    v = np.linspace(-1.0, 1.0, int(np.prod(out.shape)) or 1).reshape(tuple(out.shape))
    v = torch.tensor(v) if lib is torch else rt.tensor(v)
    gx, gy = grad(out, (tx, ty), grad_outputs=v, create_graph=True)
    results = [out, gx, gy]
    if second:
        results += grad((gx * gx).sum() + gy.sum(), (tx, ty), allow_unused=True)
    options = {"force": True} if lib is torch else {}  # torch returns lazy zero tensors
    return [None if r is None else np.asarray(r.detach().numpy(**options)) for r in results]


@pytest.mark.parametrize("name", sorted(METHOD_CASES))
def test_matches_torch(name):
    rng = np.random.default_rng(7)
    x, y = rng.uniform(0.2, 1.5, (2, 3)), rng.uniform(0.2, 1.5, (2, 3))
    ours = _run(METHOD_CASES[name], rt, x, y, second=True)
    theirs = _run(METHOD_CASES[name], torch, x, y, second=True)
    for a, b in zip(ours, theirs, strict=True):
        if a is None or b is None:
            assert a is None or np.all(a == 0)
            continue
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _error_type(lib, program):
    try:
        program(lib)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)
    return None


ERROR_PROGRAMS = {
    "nonscalar-backward": lambda lib: (lib.ones(2, dtype=lib.float64, requires_grad=True)
                                       * 2).backward(),
    "int-requires-grad": lambda lib: lib.tensor([1, 2], requires_grad=True),
    "leaf-inplace": lambda lib: lib.ones(2, dtype=lib.float64, requires_grad=True).add_(1),
    "no-grad-backward": lambda lib: lib.ones(2, dtype=lib.float64).sum().backward(),
    "shape-mismatch": lambda lib: (lib.ones(2, dtype=lib.float64, requires_grad=True)
                                   * 2).backward(lib.ones(3, dtype=lib.float64)),
}


@pytest.mark.parametrize("name", sorted(ERROR_PROGRAMS))
def test_error_types_match_torch(name, monkeypatch):
    monkeypatch.setattr(rt, "float64", np.float64, raising=False)  # the programs use lib.float64
    assert _error_type(rt, ERROR_PROGRAMS[name]) is _error_type(torch, ERROR_PROGRAMS[name])
    assert _error_type(rt, ERROR_PROGRAMS[name]) is RuntimeError
