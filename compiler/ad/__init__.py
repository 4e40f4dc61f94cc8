"""Automatic differentiation over the IR: reverse mode (`reverse`) and forward mode (`forward`).

Per-primitive rules live in the primitive table (`ir.primitive`); the structural rules of
control flow and the tapes live in `control` (those of user-defined derivatives in `custom`),
which attach them to the table when this package is imported.
"""

from . import control, custom, lists  # noqa: F401  (attach the structural rules to the primitive table)
from .forward import jvp_graph
from .reverse import Linearized, linearize, vjp_graph

__all__ = ["Linearized", "jvp_graph", "linearize", "vjp_graph"]
