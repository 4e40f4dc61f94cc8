"""Values compiled code reads from outside its arguments (module-level and closed-over
numbers and arrays, attributes of Python objects) are read at every call: never stale.

Expected values come from running the plain Python function, gradients from central finite
differences computed here with numpy.
"""

import shutil

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, hessian, jit, jvp, value_and_grad, vjp
from adlite.compiler.aot import AotError, compile_aot
from adlite.compiler.ir.core import F64

from ..support import externals_module
from ..support.gradients import fd_grad, fd_hessian

BACKENDS = ["llvm", "python"]


# ---- module-level arrays and numbers ----------------------------------------------------

W = np.array([1.0, -2.0, 0.5])
GAIN = 2.0
N = 3


def weighted(x):
    return np.sum(np.sin(W * x)) * GAIN


def sized(x):
    return np.sum(np.ones(N) * x) + np.arange(N)[:N].sum()


@pytest.mark.parametrize("backend", BACKENDS)
def test_global_array_changed_between_calls(backend):
    global W, GAIN
    saved = W.copy(), GAIN
    try:
        f, df = jit(weighted, backend=backend), grad(weighted, backend=backend)
        x = np.array([0.3, 0.1, -0.4])
        for change in (lambda: W.__setitem__(0, 5.0),  # in place
                       lambda: globals().update(W=np.array([0.5, 0.25, 4.0])),  # rebound
                       lambda: globals().update(GAIN=-1.5)):  # a float
            change()
            assert f(x) == pytest.approx(weighted(x), rel=1e-12)
            np.testing.assert_allclose(df(x), fd_grad(weighted, x), rtol=1e-6)
    finally:
        W, GAIN = saved


@pytest.mark.parametrize("backend", BACKENDS)
def test_global_array_shape_change_recompiles(backend):
    global W
    saved = W
    try:
        f = value_and_grad(weighted, backend=backend)
        x = np.array([0.3, 0.1, -0.4])
        f(x)
        W = np.array([2.0])  # broadcasts against x: a new specialisation
        value, g = f(x)
        assert value == pytest.approx(weighted(x), rel=1e-12)
        np.testing.assert_allclose(g, fd_grad(weighted, x), rtol=1e-6)
        W = np.array([1.0, 2.0, 3.0], dtype=np.float32)
        assert f(x)[0] == pytest.approx(weighted(x), rel=1e-6)
        W = saved  # back to the first specialisation
        assert f(x)[0] == pytest.approx(weighted(x), rel=1e-12)
    finally:
        W = saved


def test_global_int_sizing_an_array():
    global N
    try:
        f = jit(sized)
        for n in (3, 5, 1):
            N = n
            assert f(2.0) == sized(2.0)
    finally:
        N = 3


def test_callee_in_another_module_reads_its_own_globals():
    def uses_helper(x):
        return np.sum(externals_module.scaled(x) ** 2)

    saved = externals_module.SCALE, externals_module.OFFSET
    try:
        f, df = jit(uses_helper), grad(uses_helper)
        x = np.array([0.5, -1.0, 2.0])
        assert f(x) == pytest.approx(uses_helper(x))
        externals_module.SCALE = np.array([3.0, 0.0, -1.0])
        externals_module.OFFSET = 2.0
        assert f(x) == pytest.approx(uses_helper(x))
        np.testing.assert_allclose(df(x), fd_grad(uses_helper, x), rtol=1e-6)
    finally:
        externals_module.SCALE, externals_module.OFFSET = saved


LIMIT = 0.5


def in_loop_and_branch(x):
    total = 0.0
    i = 0
    while i < 3:
        if x > LIMIT:
            total = total + W[i] * x * GAIN
        else:
            total = total - W[i] * x
        i += 1
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_externals_read_inside_loops_and_branches(backend):
    global LIMIT
    try:
        f, df = jit(in_loop_and_branch, backend=backend), grad(in_loop_and_branch,
                                                                backend=backend)
        for limit in (0.5, 5.0):
            LIMIT = limit
            assert f(2.0) == pytest.approx(in_loop_and_branch(2.0))
            assert df(2.0) == pytest.approx(fd_grad(in_loop_and_branch, 2.0), rel=1e-6)
    finally:
        LIMIT = 0.5


def square(v):
    return v * v


def cube(v):
    return v * v * v


POWER = square


def calls_global_function(x):
    return POWER(x) + 1.0


def test_rebound_global_function_recompiles():
    global POWER
    try:
        f = jit(calls_global_function)
        assert f(2.0) == 5.0
        POWER = cube
        assert f(2.0) == 9.0
    finally:
        POWER = square


COMBINE = np.add
PICK = max


def calls_global_ufunc_and_builtin(x, y):
    return COMBINE(x, y) + PICK(x, y)


def test_rebound_global_ufunc_or_builtin_recompiles():
    """A builtin or a ufunc held by a global is checked by identity (was silently kept)."""
    global COMBINE, PICK
    try:
        f = jit(calls_global_ufunc_and_builtin)
        assert f(2.0, 3.0) == 8.0
        COMBINE = np.multiply
        assert f(2.0, 3.0) == 9.0
        PICK = min
        assert f(2.0, 3.0) == 8.0 == calls_global_ufunc_and_builtin(2.0, 3.0)
    finally:
        COMBINE, PICK = np.add, max


@jit
def jitted_reader(x):
    return np.sum(W * x)


def calls_jitted(x):
    return jitted_reader(x) * 2.0


def test_compiled_callee_reading_globals():
    global W
    saved = W
    try:
        x = np.array([1.0, 2.0, 3.0])
        f = grad(calls_jitted)
        np.testing.assert_allclose(f(x), 2 * W)
        W = np.array([4.0, 5.0, 6.0])
        np.testing.assert_allclose(f(x), 2 * W)
    finally:
        W = saved


# ---- closures --------------------------------------------------------------------------


def make_closure():
    A = np.array([1.0, 2.0])
    c = 3.0

    def energy(x):
        return np.sum(A * x * x) * c

    def set_c(v):
        nonlocal c
        c = v

    return energy, A, set_c


@pytest.mark.parametrize("backend", BACKENDS)
def test_closure_array_and_cell_changed(backend):
    energy, A, set_c = make_closure()
    f, df = jit(energy, backend=backend), grad(energy, backend=backend)
    x = np.array([0.5, -1.5])
    assert f(x) == pytest.approx(energy(x))
    A[1] = 10.0
    set_c(-2.0)
    assert f(x) == pytest.approx(energy(x))
    np.testing.assert_allclose(df(x), fd_grad(energy, x), rtol=1e-6)


# ---- derivatives of all kinds ----------------------------------------------------------

M = np.array([[1.0, 0.5], [-0.3, 2.0]])


def quartic(x):
    y = np.tanh(M @ x)
    return np.sum(y ** 2) * GAIN + x[0] ** 4


def scalar_power(t):
    return M[0, 1] * t ** 3 + GAIN * t


def test_jvp_vjp_hessian_and_grad_of_grad_see_changed_globals():
    global M
    saved = M
    try:
        x = np.array([0.3, -0.7])
        for m in (saved, np.array([[2.0, -1.0], [0.25, 0.5]])):
            M = m
            value, tangent = jvp(quartic, (x,), (np.array([1.0, -2.0]),))
            assert value == pytest.approx(quartic(x))
            assert tangent == pytest.approx(fd_grad(quartic, x) @ np.array([1.0, -2.0]),
                                            rel=1e-6)
            out, pullback = vjp(quartic, x)
            np.testing.assert_allclose(pullback(2.0)[0], 2 * fd_grad(quartic, x), rtol=1e-6)
            np.testing.assert_allclose(hessian(quartic)(x), fd_hessian(quartic, x), rtol=1e-4,
                                       atol=1e-6)
            d2 = grad(grad(scalar_power))(1.5)
            assert d2 == pytest.approx(fd_grad(lambda t: fd_grad(scalar_power, t, 1e-5), 1.5,
                                               1e-4), rel=1e-5)
    finally:
        M = saved


# ---- attributes of Python objects --------------------------------------------------------


class Layer:
    def __init__(self, n):
        self.W = np.eye(n) * 2.0
        self.b = np.full(n, 0.1)

    def apply(self, x):
        return np.tanh(self.W @ x + self.b)


class Model:
    scale = 0.5

    def __init__(self):
        self.layer = Layer(2)
        self.lr = 0.1

    def forward(self, x):
        return self.layer.apply(x)

    def loss(self, x):
        return np.sum(self.forward(x) ** 2) * self.lr * Model.scale + self.penalty(x)

    @staticmethod
    def square(v):
        return v * v

    @classmethod
    def weight(cls):
        return cls.scale

    def penalty(self, x):
        return self.square(x[0]) * self.weight()


model = Model()


def model_loss(x):
    return model.loss(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_object_attributes_nested_and_methods(backend):
    global model
    saved = model
    model = Model()  # changed below
    try:
        f, df = jit(model_loss, backend=backend), grad(model_loss, backend=backend)
        x = np.array([0.3, -0.2])
        assert f(x) == pytest.approx(model_loss(x))
        model.layer.b = np.array([0.5, -0.5])  # a nested attribute rebound
        model.layer.W[0, 1] = 1.0  # written in place
        model.lr = 0.3
        Model.scale = 2.0  # a class attribute
        assert f(x) == pytest.approx(model_loss(x))
        np.testing.assert_allclose(df(x), fd_grad(model_loss, x), rtol=1e-6)
        model = Model()  # another object
        model.layer = Layer(2)
        model.layer.b = np.array([1.0, 2.0])
        assert f(x) == pytest.approx(model_loss(x))
    finally:
        model = saved
        Model.scale = 0.5


# ---- refusals --------------------------------------------------------------------------


def writes_global(x):
    W[0] = x
    return x


def sets_attribute(x):
    model.lr = x
    return x


IDX = np.array([0, 1], dtype=np.int32)


def reads_int_array(x):
    return x * IDX[0]


@pytest.mark.parametrize("fn,fragment", [
    (writes_global, "write into 'W', an array from outside the function"),
    (sets_attribute, "assignment to the attribute 'model.lr'"),
    (reads_int_array, "'IDX' is an array of int32"),
], ids=["writes_global", "sets_attribute", "reads_int_array"])
def test_refusals_name_the_line(fn, fragment):
    with pytest.raises(AdliteSyntaxError, match=fragment) as info:
        jit(fn)(1.0)
    assert info.value.filename.endswith("test_externals.py")
    assert "hint:" in str(info.value)


# ---- ahead of time ---------------------------------------------------------------------

def falls(t):
    return 0.5 * GAIN * t * t


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_aot_bakes_floats_in_and_refuses_arrays(tmp_path):
    paths = compile_aot(falls, tmp_path, [F64])
    assert f"GAIN = {GAIN!r}" in paths["header"].read_text()
    with pytest.raises(AotError, match="reads the array"):
        compile_aot(weighted, tmp_path, [F64])


def filled(x):
    return np.sum(np.full(N, GAIN) * x)




class Fresh:
    @property
    def part(self):
        return Layer(2)  # a new object at every read


fresh = Fresh()


def reads_fresh_object(x):
    return np.sum(fresh.part.apply(x))


def test_value_changing_at_every_read_is_refused_at_the_call():
    f = jit(reads_fresh_object)
    x = np.array([0.1, 0.2])
    with pytest.raises(RuntimeError, match="part changed while compiling, or changes at "
                                           "every read"):
        f(x)


SHAPE = (2, 3)
LAYERS = [np.array([1.0, 2.0]), np.array([0.5, -1.0])]


def uses_sequences(x):
    first, last = LAYERS[0], LAYERS[-1]
    return np.sum(np.ones(SHAPE)) * x + np.sum(np.tanh(first * x)) * len(LAYERS) + \
        np.sum(last * x * x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_global_tuples_and_lists(backend):
    global SHAPE
    saved = list(LAYERS)
    try:
        f, df = jit(uses_sequences, backend=backend), grad(uses_sequences, backend=backend)
        assert f(0.5) == pytest.approx(uses_sequences(0.5))
        LAYERS[0] = np.array([3.0, -2.0, 1.0])  # an item rebound
        SHAPE = (4,)
        assert f(0.5) == pytest.approx(uses_sequences(0.5))
        LAYERS.append(np.array([2.0]))  # one more item
        assert f(0.5) == pytest.approx(uses_sequences(0.5))
        assert df(0.5) == pytest.approx(fd_grad(uses_sequences, 0.5), rel=1e-6)
    finally:
        LAYERS[:] = saved
        SHAPE = (2, 3)


def writes_argument(out):
    out[0] = 7.0
    return np.sum(W)


def test_written_argument_sharing_an_outside_array_is_refused():
    x = np.zeros(3)
    assert jit(writes_argument)(x) == writes_argument(np.zeros(3)) and x[0] == 7.0
    with pytest.raises(ValueError, match="argument 0 shares memory with W"):
        jit(writes_argument)(W)


def writes_through_alias(x):
    a = W
    a[0] = x
    return x


def writes_through_view(x):
    v = model.layer.b[0:1]
    v[0] = x
    return x


def passes_outside_array_to_writer(x):
    fill_first(LAYERS[0], x)
    return x


def fill_first(a, x):
    a[0] = x
    return x


@pytest.mark.parametrize("fn,fragment", [
    (writes_through_alias, "write into 'a', which is the array W from outside the function"),
    (writes_through_view, "write into 'v', which is the array model.layer.b from outside"),
    (passes_outside_array_to_writer, "write into 'a', which is the array LAYERS\\[0\\]"),
], ids=["writes_through_alias", "writes_through_view", "passes_outside_array_to_writer"])
def test_writes_into_outside_arrays_through_aliases_are_refused(fn, fragment):
    with pytest.raises(AdliteSyntaxError, match=fragment):
        jit(fn)(1.0)


def reads_module_attributes(x):
    return np.sum(externals_module.SCALE * x) + externals_module.OFFSET


def test_attributes_of_another_module_are_read_at_every_call():
    saved = externals_module.SCALE, externals_module.OFFSET
    try:
        f = jit(reads_module_attributes)
        x = np.array([1.0, 2.0, 3.0])
        assert f(x) == reads_module_attributes(x)
        externals_module.SCALE = np.array([-1.0, 0.5, 2.0])
        externals_module.OFFSET = 4.0
        assert f(x) == reads_module_attributes(x)
    finally:
        externals_module.SCALE, externals_module.OFFSET = saved


def nested_loops(x):
    total = 0.0
    i = 0
    while i < 2:
        if x > 0.0:
            j = 0
            while j < 3:
                total = total + W[j] * x ** (i + 1) * GAIN
                j += 1
        i += 1
    return total


@pytest.mark.parametrize("backend", BACKENDS)
def test_externals_read_in_a_loop_inside_a_branch_inside_a_loop(backend):
    global GAIN
    try:
        f, df = jit(nested_loops, backend=backend), grad(nested_loops, backend=backend)
        for gain in (2.0, -0.5):
            GAIN = gain
            assert f(1.5) == pytest.approx(nested_loops(1.5))
            assert df(1.5) == pytest.approx(fd_grad(nested_loops, 1.5), rel=1e-6)
            assert hessian(nested_loops)(1.5) == pytest.approx(
                fd_grad(lambda t: fd_grad(nested_loops, t, 1e-5), 1.5, 1e-4), rel=1e-5)
    finally:
        GAIN = 2.0


THRESHOLD = 1.0


def branch_on_float_flag(x):
    if THRESHOLD > 0.0:
        y = np.ones(2) * x  # an array on one path, a float on the other: the test folds
    else:
        y = x * THRESHOLD
    return np.sum(y)


@pytest.mark.parametrize("fn, name, new", [
    (filled, "GAIN", -4.0),  # np.full(N, GAIN): a float used when compiling
    (branch_on_float_flag, "THRESHOLD", -2.0),  # compared with a constant: folded
])
def test_outside_floats_used_when_compiling_recompile_when_changed(fn, name, new, monkeypatch):
    f = jit(fn)
    assert f(1.5) == fn(1.5)
    monkeypatch.setitem(globals(), name, new)
    assert f(1.5) == fn(1.5)


STEP = 0


def uses_step(x):
    return x * STEP


def test_many_recompilations_warn_naming_the_value():
    global STEP
    f = jit(uses_step)
    try:
        with pytest.warns(RuntimeWarning, match="compiled 16 times because STEP read from outside"):
            for step in range(20):
                STEP = step
                assert f(1.5) == uses_step(1.5)
    finally:
        STEP = 0


CUBE_GAIN = 2.0


def cubes_with_a_size(x, n=3):
    padding = np.zeros(n)  # n sizes an array: specialised, so the call has a static argument
    return np.sum(CUBE_GAIN * x ** 3) + np.sum(padding)


def cubes_of_a_dict(p, y):
    return np.sum(CUBE_GAIN * p["a"] ** 3 * y)


def test_forward_and_second_order_with_outside_values_and_structured_arguments():
    """The derivative's inputs are the arguments' leaves then the outside values: counted in
    leaves, not parameters (a static or a dict argument used to shift them)."""
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(hessian(cubes_with_a_size)(x), np.diag(6.0 * CUBE_GAIN * x))
    value, tangent = jvp(cubes_of_a_dict, ({"a": x}, 2.0), (np.ones(2), 0.5))
    assert value == pytest.approx(np.sum(CUBE_GAIN * x ** 3 * 2.0))
    assert tangent == pytest.approx(np.sum(3 * CUBE_GAIN * x ** 2 * 2.0)
                                    + 0.5 * np.sum(CUBE_GAIN * x ** 3))
