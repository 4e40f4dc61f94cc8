"""Frontend: Python function -> (gast) -> normalized gast -> IR graph."""
