"""Test suite of adlite (run with `make test`)."""
