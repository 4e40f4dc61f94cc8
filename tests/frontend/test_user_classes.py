"""Objects of user classes and dataclasses made inside compiled code, and `nonlocal` in
nested functions: values against Python's, gradients against central differences and the
eager tape, forward mode against directional differences, refusals naming the line."""

from dataclasses import dataclass, field

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, jit
from tests.support.gradients import check_modes

BACKENDS = ["llvm", "python"]


class Affine:
    scale = 3.0  # a class attribute: read at every call

    def __init__(self, a, b):
        self.a = a
        self.b = b
        self.s = 0.0

    def f(self, x):
        return self.a * x + self.b * self.scale

    def add(self, v):
        self.s = self.s + v

    @property
    def total(self):
        return self.a + self.s

    @staticmethod
    def twice(v):
        return 2.0 * v

    @classmethod
    def unit(cls, v):
        return cls(v, 1.0)

    def __call__(self, x):
        return self.f(x) * x


@dataclass
class Quad:
    a: float
    b: float = 2.0

    def g(self, x):
        return self.a * x ** self.b


@dataclass(frozen=True)
class Frozen:
    a: float


@dataclass
class WithFactory:
    xs: list = field(default_factory=list)


@dataclass
class Scaled:
    w: np.ndarray
    k: float = 1.5

    def __post_init__(self):
        self.w2 = self.w * self.k


class Shifted(Affine):
    def __init__(self, a, shift):
        super().__init__(a, 1.0)
        self.shift = shift

    def f(self, x):
        return super().f(x) + self.shift


class Plain:
    def __init__(self, v):
        super().__init__()
        self.v = v


class Accumulator:
    def __init__(self, n):
        self.total = np.zeros(n)
        self.count = 0

    def push(self, v):
        self.total += v  # in place on the array attribute, as numpy
        self.count += 1


def made_and_read(x):
    p = Affine(x, 2.0)
    return p.a * p.b + p.f(x)


def dataclass_fields(x):
    q = Quad(3.0)
    return q.g(x) + Quad(x, b=1.0).g(2.0)


def methods_of_the_class(x):
    p = Affine.unit(x)
    return p(x) + Affine.twice(x) + p.total


def written_by_methods(x):
    p = Affine(x, 1.0)
    for i in range(3):
        p.add(x * i)
    p.s += 1.0
    return p.s + p.total


def written_in_a_run_time_loop(x, n):
    p = Affine(x, 1.0)
    i = 0
    while i < n:
        p.add(x * x)
        i += 1
    if x > 0:
        p.add(10.0 * x)
    return p.s


def array_attributes(x):
    acc = Accumulator(x.shape[0])
    for k in range(3):
        acc.push(x * k)
    s = Scaled(x)
    return np.sum(acc.total ** 2) / acc.count + np.sum(s.w2 * x)


def objects_in_objects(x):
    outer = Affine(Affine(x, 1.0), 2.0)
    outer.a.add(x)
    return outer.a.s * outer.b + outer.a.f(x)


def nonlocal_counter(x):
    s = 0.0

    def add(v):
        nonlocal s
        s = s + v

    add(x)
    add(x * x)
    return s


def nonlocal_in_a_loop(x, n):
    s = 0.0
    k = 0

    def add(v):
        nonlocal s, k
        s = s + v * x
        k += 1

    for i in range(n):
        add(np.sin(x * i))
    return s * k


def subclasses_and_super(x):
    s = Shifted(x, 0.5)
    return s.f(x) + Affine.f(s, 2.0) + Plain(x).v * s.shift


def isinstance_of_an_object(x):
    q = Quad(x)
    return x * 2.0 if isinstance(q, Quad) and not isinstance(q, Affine) else x


SCALAR_CASES = [made_and_read, dataclass_fields, methods_of_the_class, written_by_methods,
                nonlocal_counter, subclasses_and_super, isinstance_of_an_object]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", SCALAR_CASES, ids=[f.__name__ for f in SCALAR_CASES])
def test_scalar_programs(fn, backend):
    for x in (1.5, -0.7, 2.25):
        check_modes(fn, (x,), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_time_loops_carry_attributes_and_nonlocals(backend):
    for x, n in [(1.5, 4), (-0.5, 3), (0.8, 0)]:  # n = 0: Python's result is a float
        check_modes(written_in_a_run_time_loop, (x, n), backend, tape=n > 0)
        check_modes(nonlocal_in_a_loop, (x, n), backend, tape=n > 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_array_attributes_and_nested_objects(backend):
    rng = np.random.default_rng(1)
    for _ in range(3):  # the tape refuses numpy's in-place add of a Tensor into an array
        check_modes(array_attributes, (rng.standard_normal(4),), backend, tape=False, rng=rng)
        check_modes(objects_in_objects, (float(rng.uniform(-2, 2)),), backend)


def test_a_class_attribute_is_read_at_every_call():
    compiled = jit(made_and_read)
    try:
        Affine.scale = 5.0
        assert compiled(1.5) == made_and_read(1.5)
    finally:
        Affine.scale = 3.0
    assert compiled(1.5) == made_and_read(1.5)


def frozen_write(x):
    f = Frozen(x)
    f.a = 2.0
    return f.a


def factory_field(x):
    return WithFactory().xs


def missing_attribute(x):
    return Affine(x, 1.0).c


def attribute_set_on_one_path(x):
    p = Quad(x)
    if x > 0:
        p.c = x
    return p.c


def nonlocal_called_elsewhere(x):
    s = 0.0

    def add(v):
        nonlocal s
        s = s + v

    apply(add, x)
    return s


def apply(f, v):
    f(v)


def returns_an_object(x):
    return Quad(x)


@pytest.mark.parametrize("fn,words", [
    (frozen_write, "FrozenInstanceError"),
    (factory_field, "default_factory"),
    (missing_attribute, "has no attribute 'c'"),
    (attribute_set_on_one_path, "first set inside an if or a loop"),
    (nonlocal_called_elsewhere, "called from another function"),
    (returns_an_object, "must return numbers"),
], ids=lambda v: v if isinstance(v, str) else v.__name__)
def test_refusals_name_the_line(fn, words):
    with pytest.raises(AdliteSyntaxError) as info:
        jit(fn)(1.0)
    assert words in str(info.value)
    assert "test_user_classes.py" in str(info.value)


def test_objects_passed_in_are_still_read_as_externals():
    p = Affine(1.5, 2.0)

    def uses(x, obj):
        return obj.f(x) * obj.a

    assert jit(uses)(0.5, p) == uses(0.5, p)
    assert grad(uses)(0.5, p) == pytest.approx(p.a * p.a)
