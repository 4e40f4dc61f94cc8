"""Test configuration: the IR verifier runs after every optimisation pass, and compiled code
is cached in a fresh directory per test session (never in the user's cache)."""

import os
import tempfile

os.environ.setdefault("ADLITE_VERIFY", "1")
os.environ["ADLITE_CACHE_DIR"] = tempfile.mkdtemp(prefix="adlite-test-cache-")
