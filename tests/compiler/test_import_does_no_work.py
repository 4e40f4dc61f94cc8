"""Importing `adlite.compiler` does no work: it neither hashes the compiler's source, nor
initialises LLVM, loads a library for MCJIT (BLAS, libm, libc), registers adlite's symbols or a
fork hook; the first compilation does, and code that calls BLAS then links (also from the disk
cache, in a fresh process).

Checked in fresh interpreters that record every call to those operations made while importing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = r'''
import hashlib, json, os, sys
import llvmlite.binding as llvm

calls = []

def spy(owner, name):
    real = getattr(owner, name)
    def recorded(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)
    setattr(owner, name, recorded)

for name in ("initialize_native_target", "initialize_native_asmprinter",
             "initialize_native_asmparser", "load_library_permanently", "add_symbol"):
    spy(llvm, name)
spy(os, "register_at_fork")
spy(hashlib, "sha256")

import adlite.compiler  # noqa: E402
imported = list(calls)
result = None
if sys.argv[1] == "compile":
    import numpy as np
    from adlite.compiler import grad, wait_optimised

    def f(a, b):
        return np.sum((a @ b) ** 2)

    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    result = grad(f)(a, b).tolist()
    wait_optimised()  # the optimised tier is what the disk cache keeps
print(json.dumps({"import": imported, "compile": calls[len(imported):], "result": result}))
'''


def _probe(mode: str, folder: Path) -> dict:
    script = folder / "probe.py"  # a file: the compiler reads the function's source
    script.write_text(PROBE)
    env = {"ADLITE_CACHE_DIR": str(folder / "cache"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True,
                         env=env, check=True)
    return json.loads(out.stdout)


def test_import_does_no_work(tmp_path):
    assert _probe("import", tmp_path)["import"] == []


def test_first_compilation_does_it_and_cached_blas_code_links(tmp_path):
    import numpy as np

    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    expected = (2 * (a @ b) @ b.T).tolist()
    for _ in range(2):  # compiled, then loaded from the disk cache by a fresh process
        seen = _probe("compile", tmp_path)
        assert seen["import"] == []
        assert "initialize_native_target" in seen["compile"]
        assert "add_symbol" in seen["compile"] and "register_at_fork" in seen["compile"]
        loaded = seen["compile"].count("load_library_permanently")
        assert loaded == 3, seen  # libm, libc and BLAS, before the code is linked
        assert np.allclose(seen["result"], expected, rtol=1e-13)
    assert list((tmp_path / "cache").glob("*.o"))
