"""What the user wrote compiles, or the refusal names it and leads somewhere (issue 22, item 3):
each misleading message the issue lists is a case here. Expected values are Python's own."""

from __future__ import annotations

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, jit

INTERNAL = ("zip_strict_length", "iteration_length", "range_len", "__rv")


def pairs_product(x):
    t = ((x, 1.0), (2.0, x))
    s = 0.0
    for p, q in zip(*t):  # noqa: B905 - the user's code, as written
        s = s + p * q
    return s


def zipped_value(x):
    rows = list(zip((x, 2.0), (3.0, x)))  # noqa: B905 - as written
    return rows[1][0] * rows[0][1] + len(rows)


def enumerated_value(x):
    total = 0.0
    for i, v in list(enumerate((x, x * 2.0), start=1)):
        total = total + i * v
    return total


def upper_length(x):
    name = "abc"
    return x * len(name.upper()) + name.find("c")


def array_with_dtype(x):
    xs = [x, x * 2.0]
    return np.sum(np.array(xs, float))


def empty_array(x):
    return np.array([]).shape[0] + np.array([[], []]).shape[0] + x


@pytest.mark.parametrize("fn", [pairs_product, zipped_value, enumerated_value, upper_length,
                                array_with_dtype, empty_array],
                         ids=lambda f: f.__name__)
def test_python_that_was_refused_compiles_and_agrees(fn):
    assert jit(fn)(1.5) == fn(1.5)


def test_zip_strict_of_different_lengths_is_pythons_error():
    def strict(x):
        return list(zip((x, x), (x,), strict=True))

    with pytest.raises(AdliteSyntaxError, match=r"ValueError: zip\(\) argument 2 is shorter"):
        jit(strict)(1.0)


def _message(fn, *args) -> str:
    with pytest.raises(AdliteSyntaxError) as info:
        jit(fn)(*args)
    return str(info.value)


def frobnicate(x):  # not compiled: a library stand-in that has no lowering
    return x


class Scaler:
    def __call__(self, x):
        return 2.0 * x


SCALER = Scaler()


def test_an_unsupported_function_lists_nothing_internal_and_suggests():
    def calls_object(x):
        return SCALER(x)  # a callable object from outside: not a function adlite compiles

    message = _message(calls_object, 1.0)
    assert "unsupported function 'Scaler'" in message
    assert not any(name in message for name in INTERNAL)
    assert "Python functions defined with def compile" in message
    assert len(message) < 600  # no list of every supported name

    def near_name(x):
        return np.nanmax(x)  # numpy's, without a lowering

    message = _message(near_name, np.ones(3))
    assert "np.nanmax() is not supported" in message and "did you mean 'amax'" in message


def test_a_missing_library_name_suggests_the_near_ones():
    def misspelt(x):
        return np.linalg.nrm(x)

    message = _message(misspelt, np.ones(2))
    assert "module 'numpy.linalg' has no attribute 'nrm'" in message
    assert "did you mean 'norm'?" in message


def test_an_undefined_name_suggests_the_near_ones():
    def typo(x):
        total = x * 2.0  # noqa: F841 - the name the typo misses
        return totl + 1.0  # noqa: F821 - the user's typo

    message = _message(typo, 1.0)
    assert "name 'totl' is not defined" in message and "did you mean 'total'?" in message


def test_a_string_attribute_is_named_as_pythons_and_numbers_are_told_apart():
    def no_such_method(x):
        return len("abc".uppercase()) * x

    assert "'str' object has no attribute 'uppercase'" in _message(no_such_method, 1.0)

    def number_attribute(x):
        return x.real_part

    assert "numbers have no attributes" in _message(number_attribute, 1.0)


def test_a_string_method_of_a_run_time_value_says_why():
    def runtime_format(x):
        return len("{}".format(x))  # noqa: UP032 - a str method, as written

    message = _message(runtime_format, 1.0)
    assert "str.format() of a value known only at run time" in message


def test_stack_of_nothing_is_numpys_error():
    def empty_stack(x):
        return np.stack([]) + x

    assert "ValueError: need at least one array to stack" in _message(empty_stack, 1.0)
