"""One set of derivative formulas (`adlite.derivatives`) serves the compiler and the eager tape.

Mostly structure, not values: the primitives of both tables that have a shared formula take their
rules from the very same `Formula` object, the tape saves exactly what the formula declares it
reads, and every formula reads nothing it does not declare. Then the issue's measure: `cbrt`,
added as one formula, is differentiated by both.
"""

import math

import numpy as np
import pytest

from adlite import compiler, derivatives
from adlite.compiler.ir.primitive import PRIMITIVES as COMPILER
from adlite.runtime import autograd, tensor
from adlite.runtime.primitives import PRIMITIVES as TAPE

# the tape's names where they differ (its `where` keeps the condition as a parameter)
TAPE_NAME = {"select": "where", "convert": "astype"}
TAPE_BY_FORMULA = {TAPE_NAME.get(n, n): n for n in derivatives.FORMULAS}
SHARED = sorted(n for n in derivatives.FORMULAS if n in COMPILER and TAPE_NAME.get(n, n) in TAPE)


def test_the_arithmetic_and_math_primitives_are_shared():
    assert set(SHARED) >= {"neg", "exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh",
                           "cosh", "arcsin", "arccos", "arctan", "log1p", "expm1", "abs",
                           "add", "sub", "mul", "div", "pow", "maximum", "minimum", "clip",
                           "sum", "max", "min", "select", "reshape", "transpose",
                           "broadcast_to", "concatenate", "convert"}


@pytest.mark.parametrize("name", SHARED)
def test_both_tables_take_the_same_formula(name):
    formula = derivatives.FORMULAS[name]
    assert COMPILER[name].formula is formula
    assert TAPE[TAPE_NAME.get(name, name)].formula is formula


@pytest.mark.parametrize("name", sorted(derivatives.FORMULAS))
def test_every_formula_is_used_by_a_table(name):
    users = [table[n] for table, n in ((COMPILER, name), (TAPE, TAPE_NAME.get(name, name)))
             if n in table]
    assert users and all(p.formula is derivatives.FORMULAS[name] for p in users)


@pytest.mark.parametrize("name", sorted(set(TAPE_BY_FORMULA) & set(TAPE)))
def test_the_tape_saves_what_the_formula_reads(name):
    formula = derivatives.FORMULAS[TAPE_BY_FORMULA[name]]
    assert (TAPE[name].saves_inputs, TAPE[name].saves_output) == (
        formula.reads_inputs, formula.reads_output)


_UNREAD = object()  # stands for a value a formula declares it does not read


class _Trace:
    """An `Ops` whose values are opaque tokens; applying a word to `_UNREAD` fails, and so
    does a word outside the vocabulary."""

    def __getattr__(self, word):
        if word not in derivatives.Ops.__dict__:
            raise AttributeError(f"{word!r} is not in the derivative vocabulary")

        def apply(*args):
            assert all(a is not _UNREAD for a in args), f"{word} applied to an unread value"
            return object()

        return apply


@pytest.mark.parametrize("name", sorted(derivatives.FORMULAS))
def test_a_formula_reads_only_what_it_declares(name):
    formula = derivatives.FORMULAS[name]
    value = object() if formula.reads_inputs else _UNREAD
    output = object() if formula.reads_output else _UNREAD
    if isinstance(formula, derivatives.Cast):  # sees only the value and the two dtypes
        formula.across(_Trace(), object(), object(), object())
        return
    if isinstance(formula, derivatives.Linear):  # sees only the cotangent, shapes and params
        params = {"transpose": {"axes": (1, 0)}, "concatenate": {"axis": 0}}.get(
            name, {"shape": (3, 2)})
        formula.adjoint(_Trace(), object(), [(2, 3), (1, 3)], **params)
        return
    if isinstance(formula, derivatives.Reduction):
        for axis in (None, (1,)):
            formula.weights(_Trace(), value, output, (2, 3), axis)
        return
    arity = formula.partials.__code__.co_argcount - 2  # minus the ops and the output
    conditions = [object()] * formula.conditions
    partials = formula.partials(_Trace(), *conditions, *[value] * (arity - len(conditions)),
                                output)
    assert len(partials) == arity


def _cube_root_model(x):
    return np.cbrt(x) * x + math.cbrt(x + 2.0)


@pytest.mark.parametrize("backend", ["llvm", "python"])
@pytest.mark.parametrize("x", [-1.7, 0.4, 8.0])
def test_cbrt_compiled_and_taped_from_its_one_formula(backend, x):
    """The issue's measure: `np.cbrt` was added with one formula; the compiler's reverse and
    forward modes and the tape (first and second order) all run it."""
    expected = np.cbrt(x) + x / (3.0 * np.cbrt(x) ** 2) + 1.0 / (3.0 * np.cbrt(x + 2.0) ** 2)
    assert compiler.grad(_cube_root_model, backend=backend)(x) == pytest.approx(expected)
    _, tangent = compiler.jvp(_cube_root_model, (x,), (1.0,))
    assert tangent == pytest.approx(expected)
    t = tensor(x, requires_grad=True)
    (g,) = autograd.grad(np.cbrt(t) * t + np.cbrt(t + 2.0), [t], create_graph=True)
    assert float(g.data) == pytest.approx(expected)
    (h,) = autograd.grad(g, [t])
    # d/dx (cbrt(x) + x / (3 cbrt(x)^2) + 1 / (3 cbrt(x+2)^2))
    #   = 4 / (9 cbrt(x)^2) - 2 / (9 cbrt(x+2)^5)
    second = 4.0 / (9.0 * np.cbrt(x) ** 2) - 2.0 / (9.0 * np.cbrt(x + 2.0) ** 5)
    assert float(h.data) == pytest.approx(second)


def _squares(x):
    return np.sum(np.square(x))


def _hypots(x):
    return np.sum(np.hypot(x, 2.0 * x))


def _logs(x):
    return np.sum(np.log2(x) + np.log10(x))


def _norm(x):
    return np.linalg.norm(x)


COMPOSITE_CALLS = [("square", _squares), ("hypot", _hypots), ("log_base", _logs),
                   ("norm", _norm)]


@pytest.mark.parametrize("name,fn", COMPOSITE_CALLS, ids=[c[0] for c in COMPOSITE_CALLS])
def test_composites_are_built_by_the_one_definition(monkeypatch, name, fn):
    """The compiler's frontend and the tape both build the composite with the function in
    `adlite.derivatives.composites` (a spy sees one call from each)."""
    calls = []
    original = getattr(derivatives.composites, name)

    def spy(o, *args):
        calls.append(type(o).__name__)
        return original(o, *args)

    monkeypatch.setattr(derivatives.composites, name, spy)
    x = np.array([0.5, 1.5, 2.5])
    compiled = compiler.grad(fn)(x)  # a new `grad` traces afresh
    t = tensor(x, requires_grad=True)
    fn(t).backward()
    assert {"BuilderOps", "TensorOps"} <= set(calls)
    np.testing.assert_allclose(compiled, t.grad.data)


def _through_int(x):
    return x * 3.0 + int(x) * 2.0


def test_a_conversion_to_int_carries_no_derivative_on_either_side():
    """The shared `convert` formula: the tape used to pass the cotangent through float -> int
    `astype` (gradient 5 here) while the compiler cut it (3, PyTorch's: an int tensor carries
    no gradient); both now run the one formula."""
    assert compiler.grad(_through_int)(1.5) == 3.0
    x = tensor(np.array([1.5, 2.5]), requires_grad=True)
    ((x * 3.0).sum() + (x.astype(np.int64) * 2.0).sum()).backward()
    np.testing.assert_array_equal(x.grad.data, [3.0, 3.0])
