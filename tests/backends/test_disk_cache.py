"""The on-disk cache of object code: entries name their key, only regular files are read, and
no temporary file outlives a failed store."""

import errno
import os
import resource
import signal
import threading

import numpy as np
import pytest

from adlite.compiler import jit, wait_optimised
from adlite.compiler.backends.llvm import cache

from ..support import lifecycle_array_helpers as arrays
from ..support import lifecycle_helpers as helpers


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_DIR", str(tmp_path))
    return tmp_path


def _entries(folder):
    wait_optimised()  # the optimised tier is what is stored
    return sorted(folder.glob("*.o"))


def test_an_entry_copied_under_another_key_is_refused(folder):
    cache.store("a" * 64, b"object code of a")
    (folder / ("b" * 64 + ".o")).write_bytes((folder / ("a" * 64 + ".o")).read_bytes())
    assert cache.load("a" * 64) == b"object code of a"
    assert cache.load("b" * 64) is None


def test_a_foreign_entry_is_never_run(folder):
    x = np.array([0.5, 1.5, 2.0])
    assert jit(helpers.free)(2.0) == 5.0
    (first,) = _entries(folder)
    assert jit(arrays.free)(x) == 6.5
    (second,) = set(_entries(folder)) - {first}
    first.write_bytes(second.read_bytes())     # a checksum-valid entry of another function
    assert jit(helpers.free)(2.0) == 5.0       # refused and rebuilt
    assert jit(helpers.free)(3.0) == 10.0


def test_a_foreign_entry_of_another_shape_is_never_run(folder):
    small, large = np.ones(3), np.ones(100_000)
    assert jit(arrays.exp)(small) == pytest.approx(arrays.exp(small), rel=1e-14)
    (entry_small,) = _entries(folder)
    assert jit(arrays.exp)(large) == pytest.approx(arrays.exp(large), rel=1e-9)
    (entry_large,) = set(_entries(folder)) - {entry_small}
    entry_small.write_bytes(entry_large.read_bytes())
    assert jit(arrays.exp)(small) == pytest.approx(arrays.exp(small), rel=1e-14)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_in_place_of_an_entry_is_skipped_unopened(folder):
    key = "c" * 64
    os.mkfifo(folder / f"{key}.o")
    result = []
    reader = threading.Thread(target=lambda: result.append(cache.load(key)), daemon=True)
    reader.start()
    reader.join(10)   # opening a FIFO for reading blocks until a writer comes
    assert not reader.is_alive() and result == [None]


def test_a_directory_in_place_of_an_entry_leaves_no_temporary_file(folder):
    key = "d" * 64
    (folder / f"{key}.o").mkdir()
    cache.store(key, b"code")
    assert cache.load(key) is None
    assert not list(folder.glob(".tmp-*"))


def test_a_full_disk_leaves_no_temporary_file(folder, monkeypatch):
    def no_space(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", no_space)
        cache.store("e" * 64, b"code" * 1000)
    assert not list(folder.iterdir())


@pytest.mark.skipif(not hasattr(signal, "SIGXFSZ"), reason="no file size limits")
def test_a_write_that_fails_leaves_no_temporary_file(folder):
    # the file size limit makes write() fail (EFBIG) as a full disk (ENOSPC) would
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, hard))
    try:
        cache.store("f" * 64, b"code" * 1000)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert not list(folder.iterdir())
    cache.store("f" * 64, b"code" * 1000)
    assert cache.load("f" * 64) == b"code" * 1000
