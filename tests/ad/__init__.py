"""Reverse mode on the IR: per-op gradient tables, what loops store on the tape, stencil
gradients, untaken branches, one set of derivative formulas."""
