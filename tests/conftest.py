"""Test configuration: the IR verifier runs after every optimisation pass, and compiled code
is cached in a fresh directory per test process (never in the user's cache). Under
pytest-xdist every worker imports this file and gets its own directory; child processes the
tests start inherit their parent's. The process that made the directory removes it when it
exits (forked children, which exit without running atexit handlers or with another pid,
leave it alone)."""

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("ADLITE_VERIFY", "1")
_CACHE_DIR = os.environ["ADLITE_CACHE_DIR"] = tempfile.mkdtemp(prefix="adlite-test-cache-")
_OWNER = os.getpid()


@atexit.register
def _remove_cache_dir() -> None:
    if os.getpid() == _OWNER:
        shutil.rmtree(_CACHE_DIR, ignore_errors=True)
