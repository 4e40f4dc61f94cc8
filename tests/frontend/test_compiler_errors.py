"""Unsupported code and bad arguments give clear errors, never crashes or wrong answers."""

import inspect
import subprocess
import sys

import pytest

from adlite.compiler import AdliteSourceError, AdliteSyntaxError, grad, jit

from ..support import compiler_examples as ex


def _line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, ln in enumerate(lines) if text in ln)


def test_list_comprehension_points_at_file_line_column_with_hint():
    with pytest.raises(AdliteSyntaxError) as info:
        jit(ex.uses_list_comprehension)(1.0)
    err = info.value
    assert err.filename.endswith("compiler_examples.py")
    assert err.line == _line_of(ex.uses_list_comprehension, "[x * 2")
    text = str(err)
    assert "list comprehension" in text and "hint:" in text
    source_line, caret = text.splitlines()[1:3]
    assert caret.index("^") == source_line.index("[x * 2")


@pytest.mark.parametrize("fn,fragment", [
    (ex.uses_try, "try/except"),
    (ex.recursive, "recursive call"),
    (ex.maybe_undefined, "may be undefined"),
    (ex.no_return_on_some_path, "does not return a value on every path"),
    (ex.loop_forever, "never ends"),
    (ex.unknown_function, r"np\.histogram\(\) is not supported"),
    (ex.string_constant, "expected a number or an array here, got a string"),
], ids=["uses_try", "recursive", "maybe_undefined", "no_return_on_some_path", "loop_forever",
        "unknown_function", "string_constant"])
def test_unsupported_constructs(fn, fragment):
    with pytest.raises(AdliteSyntaxError, match=fragment):
        grad(fn)(1.0) if fn is not ex.recursive else grad(fn)(1.0, 3)


def test_function_without_source():
    namespace = {}
    exec("def f(x):\n    return x * 2.0\n", namespace)  # noqa: S102
    with pytest.raises(AdliteSourceError, match="cannot read the source"):
        grad(namespace["f"])(1.0)


def test_bad_arguments_are_type_errors():
    g = grad(ex.second_order_target, wrt=(0, 1))
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'y'"):
        g(1.0)  # Python's own message
    with pytest.raises(TypeError, match="argument 1 has type str"):
        g(1.0, "2")
    with pytest.raises(TypeError, match="argument 0 has type set"):
        g({1.0}, 2.0)  # (lists, tuples and dicts of floats are structured arguments)
    with pytest.raises(TypeError, match="wrt=5"):
        grad(ex.second_order_target, wrt=5)(1.0, 2.0)


def test_grad_of_tuple_output_is_rejected():
    with pytest.raises(TypeError, match="must return one float"):
        grad(ex.returns_tuple)(1.0, 2.0)


def test_int_arguments_are_promoted_when_differentiated():
    assert grad(ex.second_order_target)(2, 3.0) == grad(ex.second_order_target)(2.0, 3.0)


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend"):
        grad(ex.second_order_target, backend="cuda")


def test_lines_that_do_not_define_the_function_are_not_compiled(tmp_path):
    # Python 3.13 keeps the -c command's text under "<string>", the file name exec() gives
    # too: those lines are not the exec'd function's
    script = ("import sys; from adlite.compiler import grad; namespace = {}\n"
              "exec('def f(x):\\n    return x * 2.0\\n', namespace)\n"
              "try:\n    grad(namespace['f'])(1.0)\nexcept Exception as e:\n"
              "    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=tmp_path).stdout
    assert out.startswith("AdliteSourceError cannot read the source code of 'f'"), out
