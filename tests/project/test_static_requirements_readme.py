"""What compiled code must know when compiling is one table (issue 25, item 4): the README's
section lists every key of `static_requirements.REQUIREMENTS` (written by hand, so a key added
without its reason fails here), and no refusal of a value known only at run time is raised
by the compiler without going through the table (`refusal` / `message`)."""

from __future__ import annotations

import ast
import re

import pytest

from adlite.compiler.frontend.static_requirements import REQUIREMENTS

from ..support.paths import ROOT

SECTION = "## What compiled code must know when compiling"
# words of a message (not a hint) refusing something because it is known only at run time
PHRASES = ("when compiling", "at run time", "run-time value", "runtime value",
           "run-time bounds")
# messages with those words that refuse something else than a value needed when compiling
OTHER = ("a numpy view (reshape",)  # a write through a view compiled code cannot follow


def _section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index(SECTION)
    return text[start:text.index("\n## ", start + 1)]


def test_the_readme_lists_every_key_with_its_reason():
    listed = re.findall(r"^- `([a-z-]+)`: \S", _section(), flags=re.MULTILINE)
    assert sorted(listed) == sorted(REQUIREMENTS)


def _message_strings(call: ast.Call) -> str:
    """The string constants of the message argument of `source.error(node, message, ...)`
    or `AdliteSyntaxError(message, ...)`; "" for other calls."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "error" and len(call.args) >= 2:
        message = call.args[1]
    elif isinstance(func, ast.Name) and func.id.startswith("Adlite") and call.args:
        message = call.args[0]
    else:
        return ""
    return " ".join(n.value for n in ast.walk(message)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str))


def _modules() -> list[str]:
    return [str(p.relative_to(ROOT)) for p in sorted((ROOT / "compiler").rglob("*.py"))]


@pytest.mark.parametrize("module", _modules())
def test_refusals_of_run_time_values_go_through_the_table(module):
    tree = ast.parse((ROOT / module).read_text())
    raw = [f"{module}:{n.lineno}" for n in ast.walk(tree) if isinstance(n, ast.Call)
           and any(p in _message_strings(n) for p in PHRASES)
           and not any(o in _message_strings(n) for o in OTHER)]
    assert not raw, "build these messages with static_requirements.refusal: " + ", ".join(raw)
