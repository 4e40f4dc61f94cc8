"""complex_pairs: every complex value of a graph becomes its real and imaginary parts.

Contract: `complex_pairs(graph)` returns a graph computing the same values without any
complex (c128 / c64) value: each complex value is a `Pair` of two values of its real type
(f64 / f32), each equation on complex values the real arithmetic numpy does on the parts
(numpy's algorithms where they are known: Smith's division as numpy's loops, integer
powers by repeated squaring as `npy_cpow`, `expm1` and `log1p` as numpy's `nc_` functions;
the magnitude `hypot` scaled so that it does not overflow). Loops and branches carry two
values per complex one. The graph's own inputs and outputs must be real (the frontend
splits complex arguments and results, see `arguments.complex_parts`), so its calling
convention is unchanged. Derivatives then follow from the real arithmetic: the AD, the
passes and both backends never see a complex value.

An equation on complex values that has no rule here raises `ComplexRefused` (the frontend
reports it at the user's line, `loc`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..ir.builder import Builder
from ..ir.core import F64, Atom, Const, Eqn, Graph, Type, Var, walk_eqns
from ..ir.loops import While
from ..primitives.pair_ops import Pair, PairOps, interleaved, packed_pair
from ..primitives.vocabulary import BuilderOps

# the primitives that exist only before this pass (`primitives/complex_numbers.py`): no
# derivative or lowering rules, as the custom-call primitives `custom_calls.EXPANDED`
LOWERED = ("complex", "real", "imag", "conj")


class ComplexRefused(TypeError):
    """An operation on complex values with no rule here (`loc`: the user's line)."""

    def __init__(self, message: str, loc: int | None) -> None:
        super().__init__(message)
        self.loc = loc


Value = Atom | Pair


def complex_pairs(graph: Graph) -> Graph:
    """See the module docstring (the graph itself when it has no complex value)."""
    if not _has_complex(graph):
        return graph
    lowering = _Lowering(Builder())
    outputs = lowering.block(graph.eqns, graph.outputs)
    if any(isinstance(v, Pair) for v in outputs):
        raise ComplexRefused("a complex value reached the graph's outputs", None)
    return Graph(graph.inputs, lowering.b.eqns, outputs, graph.name, graph.externals)


def _has_complex(graph: Graph) -> bool:
    return any(v.type.is_complex for v in graph.inputs) or any(
        a.type.is_complex for e in walk_eqns(graph) for a in [*e.inputs, *e.outputs])


def _real(t: Type) -> Type:
    return Type(t.dtype.real_dtype, t.shape)


class _Lowering:
    """The values of one graph's equations, rewritten into `b`."""

    def __init__(self, b: Builder, env: dict | None = None) -> None:
        self.b = b
        self.env: dict[int, Value] = env or {}

    def block(self, eqns: list[Eqn], outputs: list[Atom]) -> list[Atom | Pair]:
        for eqn in eqns:
            self.b.loc = eqn.loc
            self.equation(eqn)
        return [self.value(a) for a in outputs]

    def value(self, a: Atom) -> Value:
        if isinstance(a, Const):
            if a.type.is_complex:
                t = _real(a.type)
                return Pair(Const(a.value.real, t), Const(a.value.imag, t))
            return a
        return self.env.get(id(a), a)

    def pair(self, a: Atom | Pair, like: Type) -> Pair:
        """`a` as a complex value of the real type `like` (a real value: its imaginary part
        zero)."""
        if isinstance(a, Pair):
            return a
        t = Type(like.dtype.real_dtype, a.type.shape)
        if a.type.name != t.name:
            a = Const(a.value, t) if isinstance(a, Const) else self.b.convert(a, to=t.scalar)
        return Pair(a, self.b.zeros(t))

    def const(self, value: float, like: Atom) -> Const:
        return Const(value, like.type.scalar)

    def equation(self, eqn: Eqn) -> None:
        ins = [self.value(a) for a in eqn.inputs]
        involved = any(isinstance(v, Pair) for v in ins) or any(
            v.type.is_complex for v in eqn.outputs)
        if eqn.subgraphs():
            outs = self.structured(eqn, ins)
        elif not involved:
            self.b.eqns.append(Eqn(eqn.prim, ins, eqn.outputs, eqn.params, eqn.loc))
            return
        else:
            rule = RULES.get(eqn.prim)
            if rule is None:
                raise ComplexRefused(_refusal(eqn.prim), eqn.loc)
            outs = rule(self, eqn, ins)
        for var, out in zip(eqn.outputs, outs, strict=True):
            self.env[id(var)] = out

    # ---- loops and branches ----------------------------------------------------------------

    def structured(self, eqn: Eqn, ins: list[Value]) -> list[Value]:
        """A `while` or `cond` whose operands, results or subgraphs hold complex values: two
        operands, inputs and results per complex value."""
        if eqn.prim == "while":
            loop = While(eqn)
            consts = _flat(ins[:loop.n_consts])
            params = While.params(split_graph(loop.cond), split_graph(loop.body), len(consts))
            outs = self.b.emit("while", consts + _flat(ins[loop.n_consts:]), **params)
        elif eqn.prim == "cond":
            branches = tuple(split_graph(arm) for arm in eqn.params["branches"])
            outs = self.b.emit("cond", [ins[0], *_flat(ins[1:])],
                               **{**eqn.params, "branches": branches})
        else:
            if any(isinstance(v, Pair) for v in ins) or _has_complex_eqn(eqn):
                raise ComplexRefused(_refusal(eqn.prim), eqn.loc)
            self.b.eqns.append(Eqn(eqn.prim, ins, eqn.outputs, eqn.params, eqn.loc))
            return list(eqn.outputs)
        return _regroup(eqn.outputs, outs)

    # ---- arithmetic on pairs ----------------------------------------------------------------

    def add(self, x: Pair, y: Pair) -> Pair:
        return Pair(self.b.add(x.re, y.re), self.b.add(x.im, y.im))

    def sub(self, x: Pair, y: Pair) -> Pair:
        return Pair(self.b.sub(x.re, y.re), self.b.sub(x.im, y.im))

    def mul(self, x: Pair, y: Pair) -> Pair:
        b = self.b
        return Pair(b.sub(b.mul(x.re, y.re), b.mul(x.im, y.im)),
                    b.add(b.mul(x.re, y.im), b.mul(x.im, y.re)))

    def scale(self, x: Pair, k: Atom) -> Pair:
        return Pair(self.b.mul(x.re, k), self.b.mul(x.im, k))

    def div(self, x: Pair, y: Pair) -> Pair:
        """numpy's complex division (Smith's algorithm; a zero divisor gives inf/NaN)."""
        b = self.b
        a_re, a_im = b.abs(y.re), b.abs(y.im)
        real_larger = b.ge(a_re, a_im)
        zero = b.and_(b.eq(a_re, self.const(0.0, a_re)), b.eq(a_im, self.const(0.0, a_im)))
        one = self.const(1.0, a_re)
        # |re| >= |im| (re != 0): rat = im/re, scl = 1/(re + im*rat)
        safe_re = b.select(zero, one, y.re)
        rat1 = b.div(y.im, safe_re)
        scl1 = b.div(one, b.add(y.re, b.mul(y.im, rat1)))
        re1 = b.mul(b.add(x.re, b.mul(x.im, rat1)), scl1)
        im1 = b.mul(b.sub(x.im, b.mul(x.re, rat1)), scl1)
        # |re| < |im|: rat = re/im, scl = 1/(im + re*rat)
        safe_im = b.select(real_larger, one, y.im)
        rat2 = b.div(y.re, safe_im)
        scl2 = b.div(one, b.add(safe_im, b.mul(y.re, rat2)))
        re2 = b.mul(b.add(b.mul(x.re, rat2), x.im), scl2)
        im2 = b.mul(b.sub(b.mul(x.im, rat2), x.re), scl2)
        # a zero divisor: the parts divided by |re| (= 0)
        by_zero = Pair(b.div(x.re, a_re), b.div(x.im, a_re))
        return self.choose(zero, by_zero, self.choose(real_larger, Pair(re1, im1),
                                                      Pair(re2, im2)))

    def hypot(self, x: Pair) -> Atom:
        """|x| without overflow or underflow: |m| sqrt(1 + (s/m)^2), m the larger part. The
        parts enter signed (only the comparisons read their magnitudes), so that the
        derivatives hold where a part is exactly zero (|s| would give its second derivative
        0 there, sign(0) being 0)."""
        b = self.b
        p, q = b.abs(x.re), b.abs(x.im)
        larger = b.ge(p, q)
        m, s = b.select(larger, x.re, x.im), b.select(larger, x.im, x.re)
        zero = b.eq(b.select(larger, p, q), self.const(0.0, m))
        infinite = b.or_(b.eq(p, self.const(math.inf, p)), b.eq(q, self.const(math.inf, q)))
        safe = b.select(zero, self.const(1.0, m), m)
        r = b.div(s, safe)
        value = b.mul(b.abs(safe), b.sqrt(b.add(self.const(1.0, r), b.mul(r, r))))
        value = b.select(zero, self.const(0.0, m), value)
        return b.select(infinite, self.const(math.inf, m), value)

    def exp(self, x: Pair) -> Pair:
        e = self.b.exp(x.re)
        return Pair(self.b.mul(e, self.b.cos(x.im)), self.b.mul(e, self.b.sin(x.im)))

    def log(self, x: Pair) -> Pair:
        """(log |x|, angle x); near |x| = 1, log |x| as log1p(|x|^2 - 1) / 2 with
        |x|^2 - 1 = (re - 1)(re + 1) + im^2 (the digits log(hypot) would lose)."""
        b = self.b
        m = self.hypot(x)
        one = self.const(1.0, m)
        near = b.and_(b.gt(m, self.const(0.7, m)), b.lt(m, self.const(1.5, m)))
        excess = b.add(b.mul(b.sub(x.re, one), b.add(x.re, one)), b.mul(x.im, x.im))
        safe = b.select(near, excess, self.const(0.0, m))
        re = b.select(near, b.mul(self.const(0.5, m), b.log1p(safe)), b.log(m))
        return Pair(re, b.arctan2(x.im, x.re))

    def sqrt(self, x: Pair) -> Pair:
        """The principal square root (C99 csqrt): t = sqrt((|x| + |re|) / 2), then
        (t, im / 2t) for re >= 0, else (|im| / 2t, t with im's sign); 0 at 0."""
        b = self.b
        half = self.const(0.5, x.re)
        nonneg = b.ge(x.re, self.const(0.0, x.re))
        # |re| as a select of signs: its derivative at re = 0 is the side re >= 0's
        magnitude = b.select(nonneg, x.re, b.neg(x.re))
        t = b.sqrt(b.mul(b.add(self.hypot(x), magnitude), half))
        zero = b.eq(t, self.const(0.0, t))
        safe = b.select(zero, self.const(1.0, t), t)
        other = b.div(b.mul(half, x.im), safe)  # im / 2t
        # the sign of im, -0.0 included (1 / -0.0 is -inf): the side of the branch cut
        negative_im = b.lt(b.div(self.const(1.0, x.im), x.im), self.const(0.0, x.im))
        re = b.select(nonneg, t, b.abs(other))
        im = b.select(nonneg, other, b.select(negative_im, b.neg(t), t))
        return Pair(b.select(zero, self.const(0.0, t), re), b.select(zero, x.im, im))

    def power(self, x: Pair, y: Pair, exponent: Const | None) -> Pair:
        """numpy's `npy_cpow`: a small integer exponent known when compiling by repeated
        squaring (a negative one: 1 over it), any other exp(y log x) (0 at x = 0 for a
        positive real exponent, NaN otherwise)."""
        if exponent is not None and exponent.value.imag == 0 and \
                float(exponent.value.real).is_integer() and abs(exponent.value.real) < 100:
            n = int(exponent.value.real)
            if n == 0:
                return Pair(self.const(1.0, x.re) if not x.re.type.is_array else
                            self.b.full(self.const(1.0, x.re), shape=x.re.type.shape,
                                        dtype=x.re.type.scalar), self.b.zeros(x.re.type))
            result, p, k = None, x, abs(n)
            while True:
                if k & 1:
                    result = p if result is None else self.mul(result, p)
                k >>= 1
                if not k:
                    break
                p = self.mul(p, p)
            if n < 0:
                result = self.div(self.one_like(x), result)
            return result
        b = self.b
        zero = b.and_(b.eq(x.re, self.const(0.0, x.re)), b.eq(x.im, self.const(0.0, x.im)))
        safe = Pair(b.select(zero, self.const(1.0, x.re), x.re), x.im)
        general = self.exp(self.mul(y, self.log(safe)))
        positive = b.and_(b.gt(y.re, self.const(0.0, y.re)), b.eq(y.im, self.const(0.0, y.im)))
        at_zero = b.select(positive, self.const(0.0, x.re), self.const(math.nan, x.re))
        return self.choose(zero, Pair(at_zero, at_zero), general)

    def sinh_cosh(self, x: Pair) -> tuple[Pair, Pair]:
        b = self.b
        sh, ch = b.sinh(x.re), b.cosh(x.re)
        s, c = b.sin(x.im), b.cos(x.im)
        return Pair(b.mul(sh, c), b.mul(ch, s)), Pair(b.mul(ch, c), b.mul(sh, s))

    def tanh(self, x: Pair) -> Pair:
        """tanh(a + ib) = (sinh 2a + i sin 2b) / (cosh 2a + cos 2b); for |a| > 20, where
        that overflows, (sign a, 4 sin b cos b e^(-2|a|))."""
        b = self.b
        two = self.const(2.0, x.re)
        a2, b2 = b.mul(two, x.re), b.mul(two, x.im)
        large = b.gt(b.abs(x.re), self.const(20.0, x.re))
        safe = b.select(large, self.const(0.0, x.re), a2)
        d = b.add(b.cosh(safe), b.cos(b2))
        re = b.div(b.sinh(safe), d)
        im = b.div(b.sin(b2), d)
        sign = b.select(b.lt(x.re, self.const(0.0, x.re)), self.const(-1.0, x.re),
                        self.const(1.0, x.re))
        tail = b.mul(b.mul(self.const(4.0, x.re), b.mul(b.sin(x.im), b.cos(x.im))),
                     b.exp(b.mul(self.const(-2.0, x.re), b.abs(x.re))))
        return Pair(b.select(large, sign, re), b.select(large, tail, im))

    def shifted(self, x: Pair, c: float, sign: float = 1.0) -> Pair:
        """c + sign x for a real c: the imaginary part only (negated), so that the sign of
        a zero imaginary part, which picks the side of a branch cut, is kept (C99)."""
        b = self.b
        re = b.add(self.const(c, x.re), x.re) if sign > 0 else b.sub(self.const(c, x.re), x.re)
        return Pair(re, x.im if sign > 0 else b.neg(x.im))

    def series(self, x: Pair, exact: Pair, cube: float, limit: float) -> Pair:
        """`exact` where |x| >= limit, else x + cube x^3 (the formulas' leading terms, where
        `exact` loses the digits of a small x to cancellation)."""
        b = self.b
        small = b.lt(self.hypot(x), self.const(limit, x.re))
        tail = self.add(x, self.scale(self.mul(x, self.mul(x, x)), self.const(cube, x.re)))
        return self.choose(small, tail, exact)

    def choose(self, test: Atom, yes: Pair, no: Pair) -> Pair:
        """`yes` where `test` holds, else `no` (a select of each part)."""
        return Pair(self.b.select(test, yes.re, no.re), self.b.select(test, yes.im, no.im))

    def negated(self, x: Pair) -> Pair:
        return Pair(self.b.neg(x.re), self.b.neg(x.im))

    def times_i(self, x: Pair) -> Pair:
        return Pair(self.b.neg(x.im), x.re)

    def times_minus_i(self, x: Pair) -> Pair:
        return Pair(x.im, self.b.neg(x.re))

    def one_like(self, x: Pair) -> Pair:
        return Pair(self.const(1.0, x.re), self.const(0.0, x.re))


def _refusal(prim: str) -> str:
    return (f"complex numbers: `{prim}` of complex values is not supported yet (adlite "
            "compiles complex arithmetic, exp/log/sqrt/powers, trig and hyperbolic functions, "
            "abs/angle/real/imag/conj, sums, products of matrices, indexing and np.fft)")


def _flat(values: list[Value]) -> list[Atom]:
    return [a for v in values for a in ((v.re, v.im) if isinstance(v, Pair) else (v,))]


def _regroup(like: list[Var], flat: list[Atom]) -> list[Value]:
    """`flat` grouped as the values `like` (two per complex value)."""
    flat, out = iter(flat), []
    for v in like:
        out.append(Pair(next(flat), next(flat)) if v.type.is_complex else next(flat))
    return out


def _has_complex_eqn(eqn: Eqn) -> bool:
    return any(_has_complex(g) for g in eqn.subgraphs())


def split_graph(graph: Graph) -> Graph:
    """A subgraph with two inputs and two outputs per complex one."""
    inputs, env = [], {}
    for v in graph.inputs:
        if v.type.is_complex:
            pair = Pair(Var(_real(v.type), v.hint), Var(_real(v.type), v.hint))
            inputs += [pair.re, pair.im]
            env[id(v)] = pair
        else:
            inputs.append(v)
    lowering = _Lowering(Builder(), env)
    outputs = lowering.block(graph.eqns, graph.outputs)
    return Graph(inputs, lowering.b.eqns, _flat(outputs), graph.name)


# ---- the rules: (lowering, eqn, operands) -> results --------------------------------------

Rule = Callable[[_Lowering, Eqn, list[Value]], list[Value]]


def _part_type(eqn: Eqn, ins: list[Value]) -> Type:
    """The type of the parts of the complex operands of `eqn` (of its result without one)."""
    return next((v.re.type for v in ins if isinstance(v, Pair)), _real(eqn.outputs[0].type))


def _pairs(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Pair]:
    """The float operands as pairs (numpy converts real operands of a complex operation)."""
    like = _part_type(eqn, ins)
    return [lw.pair(v, like) for v in ins]


def _componentwise(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Value]:
    """A primitive linear in its float operands, applied to the real parts and to the
    imaginary parts (int and bool operands, indices and masks, shared); complex type params
    (`full`'s dtype, `convert`'s target) become their real types."""
    floats = [isinstance(v, Pair) or v.type.is_float for v in ins]
    like = _part_type(eqn, ins)
    params = {k: _real(p) if isinstance(p, Type) else p for k, p in eqn.params.items()}
    parts = []
    for part in ("re", "im"):
        operands = [getattr(lw.pair(v, like), part) if f else v
                    for v, f in zip(ins, floats, strict=True)]
        parts.append(lw.b.emit(eqn.prim, operands, **params))
    return [Pair(re, im) if out.type.is_complex else re
            for out, re, im in zip(eqn.outputs, *parts, strict=True)]


def _made(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Value]:
    return [Pair(ins[0], ins[1])]


def _convert(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Value]:
    (x,), to = ins, eqn.params["to"]
    if to.is_complex:
        if isinstance(x, Pair):
            return _componentwise(lw, eqn, ins)
        return [lw.pair(x, to)]
    if to.name == "bool":  # truth of a complex number: either part non-zero
        zero = lw.const(0.0, x.re)
        return [lw.b.or_(lw.b.ne(x.re, zero), lw.b.ne(x.im, zero))]
    return [lw.b.convert(x.re, to=to)]  # numpy keeps the real part (ComplexWarning)


def _binary(method: str) -> Rule:
    return lambda lw, eqn, ins: [getattr(lw, method)(*_pairs(lw, eqn, ins))]


def _unary(fn: Callable[[_Lowering, Pair], Value]) -> Rule:
    return lambda lw, eqn, ins: [fn(lw, _pairs(lw, eqn, ins)[0])]


def _power(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Value]:
    x, y = _pairs(lw, eqn, ins)
    exponent = eqn.inputs[1] if isinstance(eqn.inputs[1], Const) else None
    if exponent is not None and not isinstance(exponent.value, complex):
        exponent = Const(complex(exponent.value), Type("c128"))
    return [lw.power(x, y, exponent)]


def _compare(prim: str) -> Rule:
    def rule(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Value]:
        x, y = _pairs(lw, eqn, ins)
        re, im = lw.b.op(prim, x.re, y.re), lw.b.op(prim, x.im, y.im)
        return [lw.b.and_(re, im) if prim == "eq" else lw.b.or_(re, im)]
    return rule


def _scaled_log(factor: float) -> Callable[[_Lowering, Pair], Pair]:
    def fn(lw: _Lowering, x: Pair) -> Pair:
        return lw.scale(lw.log(x), lw.const(factor, x.re))
    return fn


def _log1p(lw: _Lowering, x: Pair) -> Pair:
    """(log |1 + x|, angle(1 + x)); for |x| < 1/2, log |1 + x| = log1p(re (2 + re) + im^2) / 2,
    which keeps the digits of a small x that 1 + x rounds away."""
    b = lw.b
    whole = lw.log(lw.shifted(x, 1.0))
    small = b.lt(lw.hypot(x), lw.const(0.5, x.re))
    excess = b.add(b.mul(x.re, b.add(lw.const(2.0, x.re), x.re)), b.mul(x.im, x.im))
    near = b.mul(lw.const(0.5, x.re), b.log1p(b.select(small, excess, lw.const(0.0, x.re))))
    return Pair(b.select(small, near, whole.re), whole.im)


def _expm1(lw: _Lowering, x: Pair) -> Pair:
    """numpy's nc_expm1: (expm1(a) cos b - 2 sin^2(b/2), e^a sin b)."""
    b = lw.b
    s = b.sin(b.mul(x.im, lw.const(0.5, x.im)))
    re = b.sub(b.mul(b.expm1(x.re), b.cos(x.im)), b.mul(lw.const(2.0, s), b.mul(s, s)))
    return Pair(re, b.mul(b.exp(x.re), b.sin(x.im)))


def _tan(lw: _Lowering, x: Pair) -> Pair:
    """tan x = -i tanh(i x)."""
    return lw.times_minus_i(lw.tanh(lw.times_i(x)))


def _sin(lw: _Lowering, x: Pair) -> Pair:
    """sin x = -i sinh(i x)."""
    return lw.times_minus_i(lw.sinh_cosh(lw.times_i(x))[0])


def _cos(lw: _Lowering, x: Pair) -> Pair:
    """cos x = cosh(i x)."""
    return lw.sinh_cosh(lw.times_i(x))[1]


_SMALL = 1e-5  # |x| below which the inverse functions take their series (error < 1e-20)
_LARGE = 1e100  # |x| above which arcsinh takes log(2 x) (x^2 would overflow)


def _large(lw: _Lowering, x: Pair, exact: Pair) -> Pair:
    """`exact` where |x| <= _LARGE, else log 2 + log x (of -x, negated, where re x < 0:
    arcsinh is odd)."""
    b = lw.b
    negative = b.lt(x.re, lw.const(0.0, x.re))
    log_x = lw.log(lw.choose(negative, lw.negated(x), x))
    log2x = Pair(b.add(log_x.re, lw.const(math.log(2.0), x.re)), log_x.im)
    large = b.gt(lw.hypot(x), lw.const(_LARGE, x.re))
    return lw.choose(large, lw.choose(negative, lw.negated(log2x), log2x), exact)


def _arcsinh(lw: _Lowering, x: Pair) -> Pair:
    """log(x + sqrt(x^2 + 1)); x - x^3/6 for a small x, log 2x for a large one."""
    exact = lw.log(lw.add(x, lw.sqrt(lw.shifted(lw.mul(x, x), 1.0))))
    return _large(lw, x, lw.series(x, exact, -1 / 6, _SMALL))


def _arccosh(lw: _Lowering, x: Pair) -> Pair:
    """Kahan's principal value: with s = sqrt(x - 1), t = sqrt(x + 1) (x + 1 and x - 1 keep
    the sign of a zero imaginary part), (arcsinh(s.re t.re + s.im t.im), 2 atan2(s.im, t.re)):
    no cancellation near 1, no overflow for a large x."""
    b = lw.b
    s, t = lw.sqrt(lw.shifted(x, -1.0)), lw.sqrt(lw.shifted(x, 1.0))
    re = b.arcsinh(b.add(b.mul(s.re, t.re), b.mul(s.im, t.im)))
    return Pair(re, b.mul(lw.const(2.0, x.re), b.arctan2(s.im, t.re)))


def _arctanh(lw: _Lowering, x: Pair) -> Pair:
    """(log(1 + x) - log(1 - x)) / 2; x + x^3/3 for a small x."""
    d = lw.sub(lw.log(lw.shifted(x, 1.0)), lw.log(lw.shifted(x, 1.0, -1.0)))
    return lw.series(x, lw.scale(d, lw.const(0.5, x.re)), 1 / 3, _SMALL)


def _arcsin(lw: _Lowering, x: Pair) -> Pair:
    """-i arcsinh(i x) (C99's casin)."""
    return lw.times_minus_i(_arcsinh(lw, lw.times_i(x)))


def _arccos(lw: _Lowering, x: Pair) -> Pair:
    """Kahan's: with s = sqrt(1 - x), t = sqrt(1 + x), (2 atan2(s.re, t.re),
    arcsinh(t.re s.im - t.im s.re)): no cancellation near 1."""
    b = lw.b
    s, t = lw.sqrt(lw.shifted(x, 1.0, -1.0)), lw.sqrt(lw.shifted(x, 1.0))
    re = b.mul(lw.const(2.0, x.re), b.arctan2(s.re, t.re))
    return Pair(re, b.arcsinh(b.sub(b.mul(t.re, s.im), b.mul(t.im, s.re))))


def _arctan(lw: _Lowering, x: Pair) -> Pair:
    """-i arctanh(i x) (C99's catan)."""
    return lw.times_minus_i(_arctanh(lw, lw.times_i(x)))


def _matmul(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Value]:
    x, y = _pairs(lw, eqn, ins)
    b = lw.b
    return [Pair(b.sub(b.matmul(x.re, y.re), b.matmul(x.im, y.im)),
                 b.add(b.matmul(x.re, y.im), b.matmul(x.im, y.re)))]


def _decomposition(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Value]:
    """`eigh` / `eigvalsh` / `svd` / `svdvals` of a complex matrix, `eig`: the primitive on
    the interleaved matrix (`complex=True`; `eig` of a real matrix on it as it is), its
    packed result (`pairs`) read back as a pair (`pair_ops`)."""
    o, a = BuilderOps(lw.b), ins[0]
    operand = interleaved(o, a) if isinstance(a, Pair) else a
    packed = lw.b.emit(eqn.prim, [operand], **eqn.params, complex=isinstance(a, Pair),
                       pairs=True)[0]
    return [packed_pair(o, packed, eqn.prim, operand.type.shape[:2], eqn.params)]


def _linear_system(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Value]:
    """`solve` / `inv` of complex operands: the real system of twice the size
    (`pair_ops.embedded`), solved and differentiated as real code."""
    like = _part_type(eqn, ins)
    operands = [lw.pair(v, like) for v in ins]
    return [getattr(PairOps(BuilderOps(lw.b)), eqn.prim)(*operands)]


def _determinant(lw: _Lowering, eqn: Eqn, ins: list[Value]) -> list[Value]:
    """`det` / `slogdet` / `det_sign` of a complex matrix, from `complex_slogdet`'s
    `[sign.real, sign.imag, logabsdet]` (det = sign exp(logabsdet), numpy's formula)."""
    o, b = BuilderOps(lw.b), lw.b
    a = lw.pair(ins[0], eqn.outputs[0].type)
    part = a.re.type.scalar
    wide = Pair(*(b.convert(x, to=F64) if part != F64 else x for x in (a.re, a.im)))
    packed = b.emit("complex_slogdet", [interleaved(o, wide)])[0]
    re, im, logabsdet = (o.reshape(o.slice_along(packed, 0, k, k + 1), ()) for k in range(3))
    if part != F64:  # complex64: computed in double precision, rounded
        re, im, logabsdet = (b.convert(x, to=part) for x in (re, im, logabsdet))
    if eqn.prim == "slogdet":
        return [logabsdet]
    if eqn.prim == "det_sign":
        return [Pair(re, im)]
    return [lw.scale(Pair(re, im), lw.b.exp(logabsdet))]


RULES: dict[str, Rule] = {
    "complex": _made,
    "real": lambda lw, eqn, ins: [ins[0].re],
    "imag": lambda lw, eqn, ins: [ins[0].im],
    "conj": lambda lw, eqn, ins: [Pair(ins[0].re, lw.b.neg(ins[0].im))],
    "convert": _convert,
    "abs": lambda lw, eqn, ins: [lw.hypot(ins[0])],
    "mul": _binary("mul"),
    "div": _binary("div"),
    "pow": _power,
    "matmul": _matmul,
    "eigh": _decomposition,
    "svd": _decomposition,
    "eig": _decomposition,
    "eigvals": _decomposition,
    "eigvalsh": _decomposition,
    "solve": _linear_system,
    "det": _determinant,
    "slogdet": _determinant,
    "det_sign": _determinant,
    "inv": _linear_system,
    "svdvals": _decomposition,
    "eq": _compare("eq"),
    "ne": _compare("ne"),
    "exp": _unary(_Lowering.exp),
    "log": _unary(_Lowering.log),
    "sqrt": _unary(_Lowering.sqrt),
    "log2": _unary(_scaled_log(1 / math.log(2))),
    "log10": _unary(_scaled_log(1 / math.log(10))),
    "log1p": _unary(_log1p),
    "expm1": _unary(_expm1),
    "sin": _unary(_sin),
    "cos": _unary(_cos),
    "tan": _unary(_tan),
    "sinh": _unary(lambda lw, x: lw.sinh_cosh(x)[0]),
    "cosh": _unary(lambda lw, x: lw.sinh_cosh(x)[1]),
    "tanh": _unary(_Lowering.tanh),
    "arcsin": _unary(_arcsin),
    "arccos": _unary(_arccos),
    "arctan": _unary(_arctan),
    "arcsinh": _unary(_arcsinh),
    "arccosh": _unary(_arccosh),
    "arctanh": _unary(_arctanh),
    **{prim: _componentwise for prim in (
        "add", "sub", "neg", "select", "sum", "sum_to", "reshape", "transpose",
        "broadcast_to", "index", "index_update", "concatenate", "full", "pack", "take",
        "take_add", "put", "triangle", "no_derivative")},
}
