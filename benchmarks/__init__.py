"""Benchmarks of adlite against peers installed in the same environment (`python -m benchmarks`)."""
