"""Compiling Python as written: calls and closures, containers, loops, indexing, effects,
externals and the errors for code that does not compile."""
