"""Programs of complex numbers for tests/transformations/test_complex_numbers.py (functions
adlite compiles from their source, so they live in a file)."""

import cmath

import numpy as np

UNARY = ("exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin",
         "arccos", "arctan", "arcsinh",
         "arccosh", "arctanh", "log1p", "expm1", "log2", "log10", "conj", "negative",
         "absolute", "angle", "real", "imag")


def f_exp(z):
    return np.exp(z)

def f_log(z):
    return np.log(z)

def f_sqrt(z):
    return np.sqrt(z)

def f_sin(z):
    return np.sin(z)

def f_cos(z):
    return np.cos(z)

def f_tan(z):
    return np.tan(z)

def f_sinh(z):
    return np.sinh(z)

def f_cosh(z):
    return np.cosh(z)

def f_tanh(z):
    return np.tanh(z)

def f_arcsin(z):
    return np.arcsin(z)


def f_arccos(z):
    return np.arccos(z)


def f_arctan(z):
    return np.arctan(z)


def f_arcsinh(z):
    return np.arcsinh(z)

def f_arccosh(z):
    return np.arccosh(z)

def f_arctanh(z):
    return np.arctanh(z)

def f_log1p(z):
    return np.log1p(z)

def f_expm1(z):
    return np.expm1(z)

def f_log2(z):
    return np.log2(z)

def f_log10(z):
    return np.log10(z)

def f_conj(z):
    return np.conj(z)

def f_negative(z):
    return np.negative(z)

def f_absolute(z):
    return np.absolute(z)

def f_angle(z):
    return np.angle(z)

def f_real(z):
    return np.real(z)

def f_imag(z):
    return np.imag(z)


UNARY_FUNCTIONS = {name: globals()[f"f_{name}"] for name in UNARY}


def arithmetic(z, w):
    return z * w - z / w + (z + 1.5) ** 2 - 2j * w ** 3 + z ** 0.5


def divide(z, w):
    return z / w


def mixed(x, z):
    """A float array with complex ones and literals: numpy's promotion."""
    return x * z + 1j * x - x / z


def powers(z):
    return z ** 2, z ** -3, z ** 7, z ** 0, 2.0 ** z


def loss(z, w):
    """A real function of complex arrays (what `grad` takes)."""
    u = np.exp(1j * z) * w + np.sqrt(z * z + 1.0)
    return np.sum(np.abs(u) ** 2) + np.real(np.sum(np.conj(z) * w)) + np.sum(np.angle(w))


def norm_squared(z):
    return np.sum(np.abs(z) ** 2)


def loop_loss(c, n):
    """A Mandelbrot-like loop carrying a complex number."""
    z = 0j
    for _ in range(n):
        z = z * z + c
    return abs(z)


def branch_loss(z):
    if np.abs(z) > 1.0:
        w = z * 1j
    else:
        w = z * z
    return np.real(w) + np.imag(w) ** 2


def holomorphic(z):
    return z ** 3 * np.exp(z) - np.sin(z) / (z + 2.0)


def products(a, b):
    return a @ b, np.dot(a[0], b[:, 1]), np.vdot(a, b), np.einsum("ij,jk->ik", a, b)


def reductions(z):
    return (np.sum(z, axis=0), np.mean(z), np.var(z, axis=1), np.std(z), np.max(z, axis=1),
            np.min(z), np.prod(z, axis=0))


def builders(x):
    z = np.zeros(x.shape, dtype=complex)
    for k in range(x.shape[0]):
        z[k] = x[k] * np.exp(1j * k)
    y = np.array([1j, 2.0, x[0] + 1j * x[1]])
    return z + x.astype(np.complex128), y, complex(x[0], x[1]), np.iscomplexobj(z)


def python_numbers(a, b):
    z = complex(a, b)
    return (cmath.exp(z), cmath.sqrt(z), cmath.log(z, 2.0), cmath.phase(z), abs(z),
            z.conjugate(), z.real, z.imag, cmath.rect(a, b))


def cmath_domain(x):
    return cmath.log(x)


def selections(z, w):
    return np.where(np.abs(z) > 1.0, z, w), z == w, z != w, np.isreal(z), np.iscomplex(w)


def real_if_close(z):
    return np.real_if_close(z)


def writes_argument(z):
    z[0] = 1j
    return z


def unsupported(z):
    return np.cbrt(z)


OUTSIDE = np.array([[1 + 1j, 2 - 0.5j], [0.3j, 1.0]])


def reads_outside(x):
    return OUTSIDE @ x + 2j


def transforms(z):
    return (np.fft.fft(z), np.fft.ifft(z), np.fft.fft(z, n=7, axis=0),
            np.fft.ifft(z, n=2, norm="ortho"), np.fft.fftn(z), np.fft.ifft2(z, s=(3, 4)),
            np.fft.fftn(z, axes=(0,), norm="forward"))


def real_transforms(x):
    return (np.fft.rfft(x), np.fft.rfft(x, n=5, axis=0, norm="ortho"), np.fft.rfftn(x),
            np.fft.irfft(np.fft.rfft(x)), np.fft.irfft(x, n=9),
            np.fft.irfftn(x, s=(4, 6), axes=(0, 1)), np.fft.irfft2(x, norm="forward"),
            np.fft.fftfreq(6, 0.5), np.fft.rfftfreq(7))


def spectral_loss(u, k):
    du = np.fft.irfft(1j * k * np.fft.rfft(u), n=u.shape[0])
    return np.sum(du ** 2 * np.sin(u))


def convolution_loss(x, h):
    y = np.fft.ifft(np.fft.fft(x) * np.fft.fft(h, norm="ortho"))
    return np.sum(np.abs(y - 0.5) ** 2)


def two_dimensional_loss(z):
    return np.sum(np.abs(np.fft.fftshift(np.fft.fft2(z, s=(4, 3)))) ** 2 * np.arange(3))


def repeated_axis(z):
    return np.fft.fftn(z, axes=(0, 0))


def no_points(z):
    return np.fft.fft(z, n=0)


def one_axis(z):
    x = np.real(z)
    return (np.fft.fft(z), np.fft.ifft(z, norm="ortho"), np.fft.rfft(x),
            np.fft.irfft(z, n=2 * z.shape[1] - 1), np.fft.fft(z, axis=0))


def no_frequencies(d):
    return np.fft.fftfreq(0, d)


# ---- complex decompositions (test_complex_linalg) --------------------------------------------

def eigh_parts(a):
    return np.linalg.eigh(a)


def eigh_upper_parts(a):
    return np.linalg.eigh(a, "U")


def eigvalsh_values(a):
    return np.linalg.eigvalsh(a)


def svd_parts(a):
    return np.linalg.svd(a, full_matrices=False)


def svd_full_parts(a):
    return np.linalg.svd(a)


def singular_values(a):
    return np.linalg.svd(a, compute_uv=False)


def eig_parts(a):
    return np.linalg.eig(a)


WEIGHTS = np.linspace(0.5, 2.0, 36).reshape(6, 6)


def eigh_loss(a):
    w, v = np.linalg.eigh(a)
    n = w.shape[0]
    return np.sum(w ** 3 * WEIGHTS[0, :n]) + np.sum(np.abs(v) ** 3 * WEIGHTS[:n, :n])


def eigh_upper_loss(a):
    w, v = np.linalg.eigh(a, "U")
    return np.sum(np.abs(v * np.conj(v[0:1, :])) * WEIGHTS[:w.shape[0], :w.shape[0]])


def svd_loss(a):
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    m, n = a.shape
    return np.sum(np.abs(u) ** 3 * WEIGHTS[:m, :s.shape[0]]) + np.sum(s ** 3) + \
        np.sum(np.abs(vt) ** 3 * WEIGHTS[:s.shape[0], :n])


def singular_values_loss(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 3)


def eig_loss(a):
    w, v = np.linalg.eig(a)
    n = w.shape[0]
    return np.sum(np.abs(w) ** 2 * WEIGHTS[0, :n]) + np.sum(np.real(w) * np.imag(w)) + \
        np.sum(np.abs(v) ** 3 * WEIGHTS[:n, :n])


def eig_of_parts_loss(x, y):
    w, v = np.linalg.eig(x + 1j * y)
    return np.sum(np.abs(v[:, 0] * np.conj(v[:, 1])) ** 2) + np.sum(np.abs(w))


def eigh_of_parts_loss(x, y):
    w, v = np.linalg.eigh(x + 1j * y)
    return np.sum(np.abs(v[:, 0]) ** 2 * WEIGHTS[0, :5]) + np.sum(w[:2] ** 2)


def sqrt_real_part(x, y):
    return np.real(np.sqrt(x + 1j * y))


def magnitude(x, y):
    return np.abs(x + 1j * y)


def log_magnitude(x, y):
    return np.real(np.log(x + 1j * y))


def svd_rank_one_loss(a):
    """The leading rank-one term u_0 vt_0: invariant under the common phase of a pair of
    singular vectors, so its gradient needs the SVD's phase term."""
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    term = np.outer(u[:, 0], vt[0, :])
    return np.sum(np.real(term) * WEIGHTS[:a.shape[0], :a.shape[1]]) + \
        np.sum(np.imag(term) ** 2)


def solve_and_inverse(a, b):
    return np.linalg.solve(a, b), np.linalg.inv(a)


def solve_loss(a, b):
    return np.sum(np.abs(np.linalg.solve(a, b)) ** 2 * WEIGHTS[0, :a.shape[0]]) + \
        np.sum(np.real(np.linalg.inv(a)) * WEIGHTS[:a.shape[0], :a.shape[0]])


def determinants(a):
    sign, logabsdet = np.linalg.slogdet(a)
    return np.linalg.det(a), sign, logabsdet


def determinant_loss(a):
    return np.abs(np.linalg.det(a)) + 2 * np.real(np.linalg.slogdet(a)[0]) + \
        np.imag(np.linalg.det(a)) + np.linalg.slogdet(a)[1] ** 2


def eigenvalues(a):
    return np.linalg.eigvals(a)


def eigenvalues_loss(a):
    w = np.linalg.eigvals(a)
    return np.sum(np.abs(w) ** 2 * WEIGHTS[0, :a.shape[0]]) + np.sum(np.imag(w) ** 3)
