"""Test configuration: the IR verifier runs after every optimisation pass, code is optimised
before its first call (`ADLITE_OPT=full`, unless the environment says otherwise: the tiers
compute the same bits, which tests/backends/test_tiers.py checks with tiered compilation on,
and most tests call a function once, so the optimised tier would be built in vain), and
compiled code
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
os.environ.setdefault("ADLITE_OPT", "full")
_CACHE_DIR = os.environ["ADLITE_CACHE_DIR"] = tempfile.mkdtemp(prefix="adlite-test-cache-")
_OWNER = os.getpid()


@atexit.register
def _remove_cache_dir() -> None:
    if os.getpid() == _OWNER:
        shutil.rmtree(_CACHE_DIR, ignore_errors=True)
