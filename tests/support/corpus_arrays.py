"""Corpus of array functions (numpy style), each with its argument specs.

Specs: a shape tuple for a normal float64 array, ("p", shape) positive, ("z", shape) away
from zero, "f" a float, ("i", lo, hi) an int. Functions create arrays with np.zeros_like /
np.ones_like (not np.zeros(n)) so that the same source also runs on the eager tape.
"""

import numpy as np

ARRAY_CORPUS = []


def sample(spec, rng):
    """An argument of this spec."""
    if spec == "f":
        return float(rng.uniform(-1.5, 1.5))
    if spec[0] == "i":
        return int(rng.integers(spec[1], spec[2] + 1))
    if spec[0] == "p":
        return rng.uniform(0.5, 2.0, spec[1])
    return rng.standard_normal(spec)


def differentiable(specs):
    """The positions of the float arguments."""
    return tuple(i for i, s in enumerate(specs) if not (isinstance(s, tuple) and s[0] == "i"))


def case(*specs):
    def register(fn):
        ARRAY_CORPUS.append((fn.__name__, fn, specs))
        return fn

    return register


def softplus(x):
    return np.log(1.0 + np.exp(x))


@case((7,))
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


@case((5,))
def sum_of_squares(x):
    return np.sum(x * x)


@case((4, 3))
def frobenius(a):
    return np.sqrt(np.sum(a * a))


@case((3, 4), (4,))
def matvec_norm(a, x):
    y = a @ x
    return np.dot(y, y)


@case((3, 4), (4, 2))
def matmul_trace_like(a, b):
    c = a @ b
    return np.sum(c * c) + np.sum(np.tanh(c))


@case((4,), (4,))
def dot_product(x, y):
    return np.dot(x, y) + x @ y


@case((6,))
def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


@case((3, 5))
def logsumexp_rows(x):
    m = np.max(x, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))
    return np.sum(lse)


@case((2, 4))
def softmax_cross_entropy(logits):
    m = np.max(logits, axis=1, keepdims=True)
    z = logits - m
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(logp[:, 1])


@case((5, 3), (3, 4), (4,), (4, 2))
def mlp_loss(x, w1, b1, w2):
    h = np.tanh(x @ w1 + b1)
    out = h @ w2
    return np.mean(out * out)


@case((6,))
def normalize(x):
    mu = np.mean(x)
    var = np.mean((x - mu) ** 2)
    return np.sum(((x - mu) / np.sqrt(var + 1e-3)) ** 3)


@case((4,), (4,))
def weighted_mean(w, x):
    p = np.exp(w) / np.sum(np.exp(w))
    return np.sum(p * x)


@case((3, 4))
def column_means(a):
    return np.sum(np.mean(a, axis=0) ** 2)


@case((3, 4))
def row_max(a):
    return np.sum(np.max(a, axis=1) * np.arange(3))


@case((3, 4))
def transpose_product(a):
    return np.sum(a.T @ a)


@case((6,))
def reshape_then_reduce(x):
    m = x.reshape(2, 3)
    return np.sum(m.sum(axis=0) ** 2) + m.max()


@case((3,), (4,))
def outer_product(x, y):
    o = x.reshape(3, 1) * y.reshape(1, 4)
    return np.sum(np.sin(o))


@case((5,))
def pairwise_distances(x):
    d = x.reshape(5, 1) - x.reshape(1, 5)
    return np.sum(d * d * np.exp(-0.1 * d * d))


@case((5,))
def clipped(x):
    return np.sum(np.clip(x, -0.5, 0.5) * x)


@case((6,))
def where_piecewise(x):
    return np.sum(np.where(x > 0.0, x * x, -x))


@case((5,))
def running_sum_in_place(x):
    y = np.zeros_like(x)
    acc = 0.0
    for i in range(len(x)):
        acc = acc + x[i] * x[i]
        y[i] = acc
    return np.sum(np.sqrt(y + 1.0))


@case((5,))
def recurrence_with_index_updates(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        y[i] = x[i] * x[i] + 1.0
        if i > 0:
            y[i] += y[i - 1] * 0.5
    return y.sum()


@case((6,))
def augmented_index_update(x):
    y = np.ones_like(x)
    for i in range(6):
        y[i] *= np.sin(x[i])
        y[i] += x[(i + 1) % 6]
    return np.sum(y * y)


@case((4,), "f")
def polynomial_horner(c, t):
    acc = 0.0
    for i in range(len(c)):
        acc = acc * t + c[i]
    return acc


@case((4,))
def cumulative_product(x):
    p = 1.0
    total = 0.0
    for i in range(4):
        p = p * (1.0 + 0.1 * x[i])
        total = total + p
    return total


@case((5,))
def loop_over_slices(x):
    total = 0.0
    for i in range(4):
        total = total + np.sum(x[1:3]) * x[i]
    return total


@case(("p", (3,)))
def while_on_array_norm(x):
    k = 0
    while np.sum(x * x) < 50.0 and k < 20:
        x = x * 1.3 + 0.1
        k += 1
    return np.sum(x)


@case((4,))
def branch_on_reduction(x):
    if np.sum(x) > 0.0:
        y = x * 2.0
    else:
        y = np.sin(x)
    return np.sum(y * y)


@case((3, 3))
def gradient_descent_steps(a):
    x = np.ones_like(a[0])
    for _ in range(5):
        r = a @ x - 1.0
        x = x - 0.05 * (a.T @ r)
    return np.sum(x * x)


@case((4,), (4,))
def elementwise_max_min(x, y):
    return np.sum(np.maximum(x, y + 0.37) * np.minimum(x, y - 0.41))


@case((4,))
def scalar_array_mix(x):
    s = np.sum(x)
    return np.sum(x / (1.0 + s * s)) + s


@case((2, 3), (3,))
def broadcast_bias(a, b):
    return np.sum(softplus(a + b))


@case((2, 3), (2, 1))
def broadcast_column(a, b):
    return np.sum(np.tanh(a * b - b))


@case((5,))
def array_from_scalars(x):
    v = np.stack([x[0] * x[1], x[2], np.sin(x[3])])  # np.array cannot build Tensors
    return np.sum(v * v) + x[4]


@case((4,))
def index_negative(x):
    return x[-1] * x[0] + x[-2] ** 2


@case((3, 4))
def index_2d(a):
    total = 0.0
    for i in range(3):
        for j in range(4):
            total = total + a[i, j] * (i + 1) * np.cos(a[i, j])
    return total


@case((3, 4))
def row_and_column_slices(a):
    return np.sum(a[1] * a[:, 2].sum()) + np.sum(a[0:2, 1:3] ** 2)


@case((4,), ("i", 1, 3))
def runtime_index(x, k):
    return x[k] * x[k - 1] + np.sum(x)


@case(("p", (4,)))
def log_barrier(x):
    return -np.sum(np.log(x)) + np.sum(x * np.log(x))


@case((2, 2), (2, 2))
def matrix_power_loop(a, b):
    m = b
    for _ in range(3):
        m = a @ m * 0.5
    return np.sum(m)


@case((5,))
def mean_absolute(x):
    return np.mean(np.abs(x - 0.3))


@case((3,), (3,))
def huber(x, y):
    r = x - y
    small = np.abs(r) < 0.5
    return np.sum(np.where(small, 0.5 * r * r, 0.5 * (np.abs(r) - 0.25)))


@case((3,), (2,))
def concatenate_and_norm(x, y):
    z = np.concatenate([x * 2.0, np.sin(y), x[:1]])
    return np.linalg.norm(z) + np.sum(np.outer(x, y) ** 2)


@case((2, 3), (2, 2))
def concatenate_axis1(a, b):
    c = np.concatenate((np.tanh(a), b * b), axis=1)
    return np.sum(c @ c.T) + np.sum(np.squeeze(np.expand_dims(c, 0)) * c)
