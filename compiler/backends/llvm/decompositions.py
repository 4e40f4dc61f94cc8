"""LLVM lowering of the matrix decompositions (`primitives/decompositions.py`): calls to the
LAPACK routines numpy's own linalg calls (row-major LAPACKE with 64-bit ints, in the OpenBLAS
numpy ships, loaded by `arrays.blas()`), so the values are numpy's.

Contract (rules registered with `registry.lowers`; they use `b`, `alloc`, `copy_array`,
`check`, `loop_nest`, `declare` and `module` of the lowering `cx`):
- `eigh` / `eigvalsh`: `dsyevd` (jobz 'V' / 'N', the primitive's `uplo`) on a copy of the
  operand, the eigenvectors written in place into the packed result; with `complex`
  (`pair_ops`: the matrix and the eigenvectors interleaved, as LAPACK's complex numbers)
  `zheevd`;
- `svd` / `svdvals`: `dgesdd` (jobz 'A' with `full`, else 'S'; 'N' for the values), `zgesdd`
  with `complex` (U and Vt interleaved);
- `complex_slogdet`: `zgetrf`, then numpy's sign and log-determinant from the factors;
- `eig` / `eigvals`: `dgeev` (jobvl 'N', jobvr 'V' / 'N') of a real matrix, its results
  made complex and interleaved (`_complex_eigenpairs`), `zgeev` of a complex one
  (`complex`) written in place;
- `qr`: `dgeqrf`, then R is the upper triangle of the first p rows and Q comes from `dorgqr`
  on the first p columns (p = min(m, n), or m with `complete`), as numpy computes them;
- `lstsq`: `dgelsd` (the primitive's `rcond`); the residuals are the sums of squares of the
  rows n.. of the solution LAPACK leaves, per column, in order (NaN where numpy's are empty),
  and `full_rank_residuals` leaves with `status.LSTSQ_RANK_DEFICIENT` when the rank is not n;
- `no_derivative` copies its operand.
A routine reporting failure (`info` != 0: no convergence) leaves with
`status.EIGENVALUES_DID_NOT_CONVERGE`, `status.SVD_DID_NOT_CONVERGE` or
`status.LSTSQ_DID_NOT_CONVERGE` (numpy's LinAlgError
and message, raised by `jit.raise_for_status`). Without numpy's OpenBLAS the lowering refuses with
NotImplementedError naming the Python backend.
"""

from __future__ import annotations

from llvmlite import ir

from ... import status
from .arrays import alloc, blas, copy_array, loop_nest
from .ops import F64, I64
from .registry import lowers

PTR = ir.PointerType()
I8 = ir.IntType(8)
I32 = ir.IntType(32)
ROW_MAJOR = ir.Constant(I32, 101)
PREFIX = "scipy_LAPACKE_"
SIGNATURES = {  # LAPACKE_<name>(int layout, ...) -> lapack_int
    "dsyevd64_": [I8, I8, I64, PTR, I64, PTR],
    "zheevd64_": [I8, I8, I64, PTR, I64, PTR],
    "dgeev64_": [I8, I8, I64, PTR, I64, PTR, PTR, PTR, I64, PTR, I64],
    "zgeev64_": [I8, I8, I64, PTR, I64, PTR, PTR, I64, PTR, I64],
    "zgetrf64_": [I64, I64, PTR, I64, PTR],
    "dgesdd64_": [I8, I64, I64, PTR, I64, PTR, PTR, I64, PTR, I64],
    "zgesdd64_": [I8, I64, I64, PTR, I64, PTR, PTR, I64, PTR, I64],
    "dgeqrf64_": [I64, I64, PTR, I64, PTR],
    "dorgqr64_": [I64, I64, I64, PTR, I64, PTR],
    "dgelsd64_": [I64, I64, I64, PTR, I64, PTR, I64, PTR, F64, PTR],
}


def _char(c: str) -> ir.Constant:
    return ir.Constant(I8, ord(c))


def _i64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def _lapack(cx, name: str, prim: str, args: list) -> ir.Value:
    if not blas():
        raise NotImplementedError(
            f"np.linalg.{prim} in native code calls LAPACK in the OpenBLAS that numpy "
            "ships (libscipy_openblas64_), which was not found: use backend='python'")
    fn = cx.declare(PREFIX + name, ir.FunctionType(I64, [I32] + SIGNATURES[name]))
    return cx.b.call(fn, [ROW_MAJOR] + args)


def _succeeds(cx, info, code: int) -> None:
    cx.check(cx.b.icmp_signed("==", info, _i64(0)), code)


def _at(cx, ptr, offset: int):
    return cx.b.gep(ptr, [_i64(offset)], inbounds=True, source_etype=F64)


def _copy_into(cx, dst, src, count: int) -> None:
    memcpy = cx.declare("memcpy", ir.FunctionType(PTR, [PTR, PTR, I64]))
    cx.b.call(memcpy, [dst, src, _i64(count * 8)])


def _eigen(cx, eqn, env, vectors: bool):
    a = eqn.inputs[0]
    n = a.type.shape[0]
    width = 2 if eqn.params.get("complex", False) else 1  # doubles per element
    out = alloc(cx, eqn.outputs[0].type.shape, F64)
    work = _at(cx, out, n) if vectors else alloc(cx, (n, n * width), F64)
    _copy_into(cx, work, env[id(a)], n * n * width)
    routine = "zheevd64_" if width == 2 else "dsyevd64_"
    info = _lapack(cx, routine, eqn.prim, [_char("V" if vectors else "N"),
                                               _char(eqn.params.get("uplo", "L")),
                                               _i64(n), work, _i64(n), out])
    _succeeds(cx, info, status.EIGENVALUES_DID_NOT_CONVERGE)
    return [out]


def _geev(cx, eqn, env, vectors: bool):
    a = eqn.inputs[0]
    n = a.type.shape[0]
    out = alloc(cx, eqn.outputs[0].type.shape, F64)
    work = copy_array(cx, env[id(a)], a.type)
    none, job = ir.Constant(PTR, None), _char("V" if vectors else "N")
    if eqn.params.get("complex", False):
        vr = _at(cx, out, 2 * n) if vectors else none
        info = _lapack(cx, "zgeev64_", eqn.prim, [_char("N"), job, _i64(n), work, _i64(n),
                                                   out, none, _i64(1), vr, _i64(n)])
    else:
        wr, wi = alloc(cx, (n,), F64), alloc(cx, (n,), F64)
        vr = alloc(cx, (n, n), F64) if vectors else none
        info = _lapack(cx, "dgeev64_", eqn.prim, [_char("N"), job, _i64(n), work, _i64(n),
                                                   wr, wi, none, _i64(1), vr, _i64(n)])
        _complex_eigenpairs(cx, out, wr, wi, vr if vectors else None, n)
    _succeeds(cx, info, status.EIGENVALUES_DID_NOT_CONVERGE)
    return [out]


# (with and without the vectors) the eigen decompositions: symmetric / Hermitian, general
for _prim, _lowering, _vectors in (("eigh", _eigen, True), ("eigvalsh", _eigen, False),
                                   ("eig", _geev, True), ("eigvals", _geev, False)):
    lowers(_prim)(lambda cx, eqn, env, _lowering=_lowering, _vectors=_vectors:
                  _lowering(cx, eqn, env, _vectors))


@lowers("complex_slogdet")
def lower_complex_slogdet(cx, eqn, env):
    """numpy's slogdet of a complex matrix: `zgetrf`, then the sign (-1 per row swap) times
    `u_ii / |u_ii|` in order (numpy's complex product) and the sum of `log |u_ii|`, |u| by
    libm's hypot as `npy_cabs`; (0, 0, -inf) where a pivot is zero."""
    a = eqn.inputs[0]
    n = a.type.shape[0]
    b = cx.b
    lu = copy_array(cx, env[id(a)], a.type)
    piv = alloc(cx, (n,), I64)
    info = _lapack(cx, "zgetrf64_", "det", [_i64(n), _i64(n), lu, _i64(n), piv])
    hypot = cx.declare("hypot", ir.FunctionType(F64, [F64, F64]))
    log = cx.declare("llvm.log.f64", ir.FunctionType(F64, [F64]))
    zero, one = ir.Constant(F64, 0.0), ir.Constant(F64, 1.0)
    sign_re, sign_im, logdet = (cx.entry.alloca(F64) for _ in range(3))
    b.store(zero, sign_im)
    b.store(zero, logdet)
    swaps = cx.entry.alloca(I64)
    b.store(_i64(0), swaps)

    def count(co):
        (i,) = co
        pivot = b.load(b.gep(piv, [i], source_etype=I64), typ=I64)
        moved = b.zext(b.icmp_signed("!=", pivot, b.add(i, _i64(1))), I64)
        b.store(b.add(b.load(swaps, typ=I64), moved), swaps)

    loop_nest(cx, (n,), count)
    odd = b.trunc(b.load(swaps, typ=I64), ir.IntType(1))
    b.store(b.select(odd, ir.Constant(F64, -1.0), one), sign_re)

    def diagonal(co):
        (i,) = co
        at = b.mul(b.mul(i, _i64(n + 1)), _i64(2))
        re = b.load(b.gep(lu, [at], source_etype=F64), typ=F64)
        im = b.load(b.gep(lu, [b.add(at, _i64(1))], source_etype=F64), typ=F64)
        size = b.call(hypot, [re, im])
        u_re, u_im = b.fdiv(re, size), b.fdiv(im, size)
        s_re, s_im = b.load(sign_re, typ=F64), b.load(sign_im, typ=F64)
        b.store(b.fsub(b.fmul(s_re, u_re), b.fmul(s_im, u_im)), sign_re)
        b.store(b.fadd(b.fmul(s_re, u_im), b.fmul(s_im, u_re)), sign_im)
        b.store(b.fadd(b.load(logdet, typ=F64), b.call(log, [size])), logdet)

    loop_nest(cx, (n,), diagonal)
    regular = b.icmp_signed("==", info, _i64(0))
    out = alloc(cx, (3,), F64)
    values = [b.select(regular, b.load(sign_re, typ=F64), zero),
              b.select(regular, b.load(sign_im, typ=F64), zero),
              b.select(regular, b.load(logdet, typ=F64), ir.Constant(F64, float("-inf")))]
    for k, value in enumerate(values):
        b.store(value, _at(cx, out, k))
    return [out]


def _complex_eigenpairs(cx, out, wr, wi, vr, n: int) -> None:
    """dgeev's real layout as complex numbers, interleaved into `out` (w, then V): a pair of
    conjugate eigenvalues (positive imaginary part first) has its eigenvectors in columns
    j, j+1 as `vr[:, j] +- i vr[:, j+1]`."""
    b = cx.b
    zero = ir.Constant(F64, 0.0)

    def load(ptr, index):
        return b.load(b.gep(ptr, [index], inbounds=True, source_etype=F64), typ=F64)

    def store(value, index):
        b.store(value, b.gep(out, [index], inbounds=True, source_etype=F64))

    def value(co):
        (j,) = co
        store(load(wr, j), b.mul(j, _i64(2)))
        store(load(wi, j), b.add(b.mul(j, _i64(2)), _i64(1)))

    def vector(co):
        i, j = co
        imaginary = load(wi, j)
        real = b.fcmp_ordered("==", imaginary, zero)
        first = b.fcmp_ordered(">", imaginary, zero)
        row = b.mul(i, _i64(n))
        left = b.select(b.icmp_signed(">", j, _i64(0)), b.sub(j, _i64(1)), j)
        right = b.select(b.icmp_signed("<", j, _i64(n - 1)), b.add(j, _i64(1)), j)
        here = load(vr, b.add(row, j))
        re = b.select(b.or_(real, first), here, load(vr, b.add(row, left)))
        im = b.select(real, zero, b.select(first, load(vr, b.add(row, right)), b.fneg(here)))
        at = b.add(_i64(2 * n), b.mul(b.add(row, j), _i64(2)))
        store(re, at)
        store(im, b.add(at, _i64(1)))

    loop_nest(cx, (n,), value)
    if vr is not None:
        loop_nest(cx, (n, n), vector)


def _gesdd(cx, eqn, env, job: str, p: int, q: int):
    a = eqn.inputs[0]
    m, n = a.type.shape[:2]
    k = min(m, n)
    width = 2 if eqn.params.get("complex", False) else 1  # doubles per element
    out = alloc(cx, eqn.outputs[0].type.shape, F64)
    work = copy_array(cx, env[id(a)], a.type)
    u, s = (out, _at(cx, out, m * p * width)) if job != "N" else \
        (ir.Constant(PTR, None), out)
    vt = _at(cx, out, m * p * width + k) if job != "N" else ir.Constant(PTR, None)
    routine = "zgesdd64_" if width == 2 else "dgesdd64_"
    info = _lapack(cx, routine, "svd", [_char(job), _i64(m), _i64(n), work, _i64(n),
                                            s, u, _i64(max(p, 1)), vt, _i64(max(n, 1))])
    _succeeds(cx, info, status.SVD_DID_NOT_CONVERGE)
    return [out]


@lowers("svd")
def lower_svd(cx, eqn, env):
    m, n = eqn.inputs[0].type.shape[:2]
    k = min(m, n)
    full = eqn.params.get("full", False)
    return _gesdd(cx, eqn, env, "A" if full else "S", m if full else k,
                  n if full else k)


@lowers("svdvals")
def lower_svdvals(cx, eqn, env):
    return _gesdd(cx, eqn, env, "N", 1, 1)


@lowers("qr")
def lower_qr(cx, eqn, env):
    a = eqn.inputs[0]
    m, n = a.type.shape
    k = min(m, n)
    p = m if eqn.params.get("complete", False) else k
    b = cx.b
    out = alloc(cx, eqn.outputs[0].type.shape, F64)
    work = copy_array(cx, env[id(a)], a.type)
    tau = alloc(cx, (k,), F64)
    _lapack(cx, "dgeqrf64_", "qr", [_i64(m), _i64(n), work, _i64(n), tau])
    zero = ir.Constant(F64, 0.0)

    def element(i, j):
        ptr = b.gep(work, [b.add(b.mul(i, _i64(n)), j)], inbounds=True, source_etype=F64)
        return b.load(ptr, typ=F64)

    def set_at(base, cols, i, j, value):
        b.store(value, b.gep(base, [b.add(b.mul(i, _i64(cols)), j)], inbounds=True,
                             source_etype=F64))

    r = _at(cx, out, m * p)
    loop_nest(cx, (p, n), lambda co: set_at(r, n, co[0], co[1], b.select(
        b.icmp_signed(">=", co[1], co[0]), element(*co), zero)))
    loop_nest(cx, (m, p), lambda co: set_at(out, p, co[0], co[1], b.select(
        b.icmp_signed("<", co[1], _i64(n)),
        element(co[0], b.select(b.icmp_signed("<", co[1], _i64(n)), co[1], _i64(0))),
        zero)))
    _lapack(cx, "dorgqr64_", "qr", [_i64(m), _i64(p), _i64(k), out, _i64(p), tau])
    return [out]


@lowers("no_derivative")
def lower_no_derivative(cx, eqn, env):
    x = eqn.inputs[0]
    return [copy_array(cx, env[id(x)], x.type)]


@lowers("lstsq")
def lower_lstsq(cx, eqn, env):
    a, rhs = eqn.inputs
    m, n = a.type.shape
    r = 1 if len(rhs.type.shape) == 1 else rhs.type.shape[1]
    k = min(m, n)
    b = cx.b
    out = alloc(cx, eqn.outputs[0].type.shape, F64)
    work = copy_array(cx, env[id(a)], a.type)
    x = alloc(cx, (max(m, n), r), F64)
    loop_nest(cx, (max(m, n) * r,), lambda co: b.store(ir.Constant(F64, 0.0), b.gep(
        x, [co[0]], inbounds=True, source_etype=F64)))
    _copy_into(cx, x, env[id(rhs)], m * r)
    rank = alloc(cx, (1,), I64)
    info = _lapack(cx, "dgelsd64_", "lstsq", [
        _i64(m), _i64(n), _i64(r), work, _i64(n), x, _i64(r), _at(cx, out, n * r + r),
        ir.Constant(F64, eqn.params["rcond"]), rank])
    _succeeds(cx, info, status.LSTSQ_DID_NOT_CONVERGE)
    _copy_into(cx, out, x, n * r)
    found = b.load(rank, typ=I64)
    b.store(b.sitofp(found, F64), _at(cx, out, n * r + r + k))
    full = b.and_(ir.Constant(ir.IntType(1), m > n), b.icmp_signed("==", found, _i64(n)))
    total = cx.entry.alloca(F64)

    def column(co):
        (c,) = co
        b.store(ir.Constant(F64, 0.0), total)

        def add(row):
            (i,) = row
            v = b.load(b.gep(x, [b.add(b.mul(b.add(i, _i64(n)), _i64(r)), c)],
                             inbounds=True, source_etype=F64), typ=F64)
            b.store(b.fadd(b.load(total, typ=F64), b.fmul(v, v)), total)

        loop_nest(cx, (max(m - n, 0),), add)
        value = b.select(full, b.load(total, typ=F64), ir.Constant(F64, float("nan")))
        b.store(value, b.gep(out, [b.add(c, _i64(n * r))], inbounds=True, source_etype=F64))

    loop_nest(cx, (r,), column)
    return [out]


@lowers("full_rank_residuals")
def lower_full_rank_residuals(cx, eqn, env):
    residuals, rank = eqn.inputs
    found = cx.b.load(env[id(rank)], typ=F64)
    cx.check(cx.b.fcmp_ordered("==", found, ir.Constant(F64, eqn.params["n"])),
             status.LSTSQ_RANK_DEFICIENT)
    return [copy_array(cx, env[id(residuals)], residuals.type)]
