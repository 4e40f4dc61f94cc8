"""Test configuration: the IR verifier runs after every optimisation pass."""

import os

os.environ.setdefault("ADLITE_VERIFY", "1")
