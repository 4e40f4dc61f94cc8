"""Python's and numpy's semantics kept in compiled code: ints, float32 numbers, aliasing, extrema
and NaN, selections, tracebacks of errors."""
