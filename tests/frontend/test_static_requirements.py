"""What compiled code must know when compiling (issue 25, item 4): for each key of
`static_requirements.REQUIREMENTS`, a program as a user writes it whose value is known only at
run time is refused with a message naming the file and line, quoting the code, naming what is
run-time about it, ending with the key, and with a hint leading to code that compiles."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from adlite.compiler import AdliteSyntaxError, grad, jit


def trajectory(T, dt=0.1):
    t = np.arange(0.0, T, dt)
    return np.sum(np.sin(t))


def cumulative_along_larger(x):
    axis = 0 if x[0, 0] > 0.0 else 1
    return np.sum(np.cumsum(x, axis=axis))


def pick_model(x, scores):
    i = int(np.argmax(scores))
    models = (x, 2.0 * x, np.array([x, x]))  # items of different shapes: not stacked
    return models[i]


def head_row_sums(m):
    n = int(np.argmax(m[:, 0]))
    return np.sum(m[:n, 0])


def sorted_positives(x):
    return np.sum(np.sort(x[x > 0.0])[:2])


def positives_count(x):
    k = int(np.sum(x > 0.0))
    return np.sum(np.zeros(k) + x[0])


def powers(x, counts):
    terms = []
    for i in range(counts[0]):
        terms = terms + [x ** i]
    return sum(terms)


def halvings(x, tol):
    errors = [[x, 0]]
    err = x
    while err > tol:
        err = err / 2.0
        errors.append([err, len(errors)])
    return len(errors) * x


def halving_table(x, tol):
    errors = [x]
    err = x
    while err > tol:
        err = err / 2.0
        errors.append(err)
    return np.array(errors) * x


def activation(x):
    if x > 0.0:
        f = np.tanh
    else:
        f = np.sin
    return f(x)


def sum_along_flagged(m):
    axis = int(m[0, 0] > 0.0)
    return np.sum(np.sum(m, axis))


def _line(fn, fragment: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, text in enumerate(lines) if fragment in text)


M = np.array([[1.0, 2.0], [3.0, 4.0]])
V = np.array([0.5, -1.0, 2.0])

CASES = [  # key, transformation, function, arguments, line fragment, quoted, run-time, hint
    ("shape", jit, positives_count, (V,), "np.zeros", "`np.zeros(k)`",
     "must be known when compiling, but it is computed from values known only at run time",
     "x.shape, len(x)"),
    ("option", jit, cumulative_along_larger, (M,), "np.cumsum", "`np.cumsum(x, axis=axis)`",
     "its `axis` must be known when compiling", "write the option as a constant"),
    ("sequence", jit, pick_model, (1.0, V), "models[i]", "`models[i]`",
     "a tuple indexed with a value known only at run time", "index tuples with integer"),
    ("slice", jit, head_row_sums, (M,), "m[:n, 0]", "`:n`", "its length depends on values known "
     "only at run time, and it comes with other index items", "slice alone"),
    ("mask", jit, sorted_positives, (V,), "np.sort", "`np.sort(x[x > 0.0])`",
     "has a length known only at run time", "np.where(mask, x, fill)"),
    ("unroll", jit, powers, (2.0, np.array([3])), "for i in range", "`for i in range(counts[0])",
     "its trip count is only known at run time", "preallocate arrays"),
    ("list-change", jit, halvings, (1.0, 0.1), "errors.append([err", "`errors.append([err, ",
     "'errors' holds a Python list, which cannot change", "preallocate an array"),
    ("run-time-list", jit, halving_table, (1.0, 0.1), "np.array(errors)",
     "`np.array(errors) * x`", "of a list whose length is known only at run time",
     "sum, index or iterate over it"),
    ("object", grad, activation, (0.5,), "f = np.sin", "`f = np.sin`",
     "'f' is a compile-time value bound differently", "choose with numbers"),
    ("value", jit, sum_along_flagged, (M,), "np.sum(m, axis", "`np.sum(m, axis)`",
     "must be known when compiling, but it is computed from values known only at run time",
     "use a constant, x.shape, len(x)"),
]


@pytest.mark.parametrize("key, transform, fn, args, fragment, quoted, runtime, hint", [
    pytest.param(*case) for case in CASES], ids=[c[0] for c in CASES])
def test_a_refusal_names_the_line_the_code_what_is_run_time_and_a_hint(
        key, transform, fn, args, fragment, quoted, runtime, hint):
    with pytest.raises(AdliteSyntaxError) as info:
        transform(fn)(*args)
    error = info.value
    assert str(error).startswith(f"{__file__}:{_line(fn, fragment)}:"), str(error)
    assert quoted in error.message and runtime in error.message, str(error)
    assert error.message.endswith(f"[{key}])"), str(error)
    assert hint in error.hint, str(error)


def test_every_key_has_a_program():
    from adlite.compiler.frontend.static_requirements import REQUIREMENTS

    assert sorted(REQUIREMENTS) == sorted(case[0] for case in CASES)
