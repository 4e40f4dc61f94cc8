"""Automatic differentiation over the IR: reverse mode (`reverse`) and forward mode (`forward`).

Structural rules for control flow live in `control`; per-primitive rules in the primitive table.
"""

from .forward import jvp_graph
from .reverse import Linearized, linearize, vjp_graph

__all__ = ["Linearized", "jvp_graph", "linearize", "vjp_graph"]
