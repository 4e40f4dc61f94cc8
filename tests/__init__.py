"""Test suite of adlite (run with `make test`): one folder per subject, helpers in support/ (the
README's layout names each folder)."""
