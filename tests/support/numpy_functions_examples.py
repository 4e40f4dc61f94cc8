"""Programs using the numpy functions of `compiler/frontend/numpy_functions.py` (compiled in
tests/library/test_numpy_functions.py, compared with numpy running them as plain Python)."""

import numpy as np


def eye_times(x):
    return np.eye(x.shape[0]) @ x + np.identity(x.shape[0]) * 2.0 @ x


def eye_offset(x):
    return np.eye(3, 4, 1) * x + np.eye(3, 4, k=-2)


def diag_of_vector(v):
    return np.diag(v) + 1.0


def diag_offsets(v):
    return np.sum(np.diag(v, 1) * 2.0) + np.diag(v, -2)


def diag_of_matrix(a):
    return np.diag(a) * 3.0 + np.diag(a, 1)[0] + np.diag(a, k=-1)[-1]


def traces(a):
    return np.trace(a) + 2.0 * np.trace(a, 1) + np.sum(np.diagonal(a, -1))


def diffs(x):
    return np.diff(x) * np.diff(x)[::-1]


def diffs_2d(a):
    return np.sum(np.diff(a, axis=0) ** 2) + np.diff(a, n=2)


def rolls(x):
    return np.roll(x, 2) * x + np.roll(x, -1)


def rolls_2d(a):
    return np.roll(a, 1) + np.roll(a, -1, axis=1) * np.roll(a, (1, 2), axis=(0, 1))


def spaced(a, b):
    return np.linspace(a, b, 7) ** 2 + np.linspace(0.0, 1.0, 7)


def spaced_open(a, b):
    return np.linspace(a, b, 5, endpoint=False) + np.linspace(-1, 2, num=5, endpoint=False)


def spaced_flat(a):
    return np.linspace(a, a, 4) + np.linspace(1.0, 1.0, 3)[0]


def ranges(x):
    return np.arange(2, 14, 3) * x[0] + np.arange(1.0, 2.0, 0.25) * x[1] + \
        np.arange(0.0, 1.0, 0.125)[:4] * x[2]


def same_object(x):
    y = np.asarray(x)
    y[0] = 5.0
    z = np.array(x)
    z[1] = -7.0
    return x * 2.0 + z


def angles(x):
    return np.sin(np.radians(x)) + np.degrees(x) * 0.01 + np.deg2rad(x) * np.rad2deg(0.5)


def crosses(a, b):
    return np.cross(a, b) * 2.0 + np.cross(b, a)


def cumulative(x):
    return np.cumsum(x) + np.cumprod(x * 0.5)


def cumulative_2d(a):
    return np.cumsum(a, axis=1) * np.cumprod(a, axis=0) + np.cumsum(a)[:a.shape[1]]


def long_scan(x):
    return np.cumsum(x) * 0.01


def tiles(x):
    return np.tile(x, 2) * 2.0 + np.repeat(x, 2)


def tiles_2d(a):
    return np.sum(np.tile(a, (2, 1, 3)) ** 2) + np.repeat(a, 3, axis=1)


def einsum_pair(a, b):
    return np.einsum("ij,jk->ik", a, b) + np.einsum("ij,kj->ik", a, a) @ (a @ b)


def einsum_reductions(a):
    return np.einsum("ij,ij->", a, a) + np.einsum("ij->i", a) @ np.einsum("ij->j", a.T) + \
        np.einsum("ii->", a[:, :3]) + np.einsum("ii", a[:, :3])


def einsum_vectors(x, y):
    return np.sum(np.einsum("i,j->ij", x, y) ** 2) + np.einsum("i,i->", x, y) + \
        np.einsum("ij,j->i", np.einsum("i,j", x, y), y)


def einsum_batched(q, k):
    kt = k[1].transpose(0, 2, 1)
    return np.einsum("bhqd,bhkd->bhqk", q, k) + np.einsum("bij,bjk->bik", q[0], kt)[None]


def einsum_transpose(a):
    return np.einsum("ij->ji", a) * 2.0 + np.einsum("ji", a)


def chained(x):
    a = x * 1.0
    a[0] = a[-1] = 0.0
    s = t = 2.0
    b = c = x * 3.0
    b[1] = 10.0
    return a * s + t * c


def unpacked(x):
    a, b, c = x
    return a * b + c


def unpacked_rows(m):
    top, bottom = m
    top[0] = 4.0
    return m * bottom


def unpack_wrong(x):
    a, b = x
    return a * b


def unsupported_library(x):
    return np.linalg.matrix_power(x, 2)[0]


def einsum_no_subscripts(x):
    return np.einsum(x, x)


def jacobi_swaps(f, n):
    u = np.zeros_like(f)
    u_new = u.copy()
    for _ in range(n):
        center = u_new[1:-1]
        center[:] = 0.5 * (u[2:] + u[:-2]) + f[1:-1] * u[1:-1]
        u, u_new = u_new, u
    return u * 2.0 + u_new


def rotations(f):
    a = f * 1.0
    b = f * 2.0
    c = np.ones_like(f)
    for _ in range(4):
        a[1:] = a[1:] + b[:-1] * c[1:]
        c[0] = c[0] * 0.5 + a[-1]
        a, b, c = b, c, a
    return a + 2.0 * b + 3.0 * c


def swap_seen_by_another_name(f):
    u = np.zeros_like(f)
    kept = u
    u_new = u.copy()
    for _ in range(3):  # a counted loop: unrolled, each trip writes the array u_new holds then
        u_new[1:-1] = u[2:] + f[1:-1]
        u, u_new = u_new, u
    return u + kept


def swap_seen_by_another_name_while(f):
    u = np.zeros_like(f)
    kept = u
    u_new = u.copy()
    k = 0
    while k < 3:
        u_new[1:-1] = u[2:] + f[1:-1]
        u, u_new = u_new, u
        k += 1
    return u + kept

