"""On-disk cache of compiled object code.

Contract: `load(key)` returns the object code stored under `key` or None; `store(key, code)`
writes it atomically (temporary file + rename) and never leaves its temporary file behind,
whatever fails (a directory in place of the entry, a full disk). An entry is

    MAGIC, SHA-256 of (key, payload) in hex, "\\n", key, "\\n", payload

so it names the key it was built for: a truncated or corrupted file, or a valid entry copied
under another key, is ignored (and overwritten by the next store), never loaded. Only regular
files are read: a FIFO, device or directory in place of an entry is skipped without being
opened for reading. The directory is `ADLITE_CACHE_DIR`, default `~/.cache/adlite`; set
`ADLITE_CACHE_DIR=off` to disable. Deleting it is always safe.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

MAGIC = b"adlite-object-v2\n"
DIGEST_CHARS = 64


def directory() -> Path | None:
    value = os.environ.get("ADLITE_CACHE_DIR", str(Path.home() / ".cache" / "adlite"))
    return None if value in ("", "off") else Path(value)


def key_for(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def _digest(key: bytes, payload: bytes) -> bytes:
    return hashlib.sha256(key + b"\n" + payload).hexdigest().encode()


def encode(key: str, code: bytes) -> bytes:
    """The bytes of the entry holding `code` for `key`."""
    k = key.encode()
    return MAGIC + _digest(k, code) + b"\n" + k + b"\n" + code


def decode(key: str, data: bytes) -> bytes | None:
    """The payload of entry `data` if it is intact and was built for `key`, else None."""
    k = key.encode()
    head = len(MAGIC) + DIGEST_CHARS + 1
    if not data.startswith(MAGIC) or data[head - 1:head] != b"\n":
        return None
    digest, rest = data[len(MAGIC):head - 1], data[head:]
    if not rest.startswith(k + b"\n"):
        return None  # built for another key
    payload = rest[len(k) + 1:]
    return payload if _digest(k, payload) == digest else None


def _read_regular(path: Path) -> bytes | None:
    """The content of `path` if it is a regular file; never opens anything else for reading
    (O_NONBLOCK and a second check on the open descriptor cover a swap in between)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            return fh.read()
    except OSError:
        return None
    finally:
        os.close(fd)


def load(key: str) -> bytes | None:
    folder = directory()
    if folder is None:
        return None
    data = _read_regular(folder / f"{key}.o")
    return None if data is None else decode(key, data)


def store(key: str, code: bytes) -> None:
    folder = directory()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".o")
    except OSError:
        return  # a read-only or missing directory only costs a recompilation next time
    try:
        with memoryview(encode(key, code)) as blob:
            written = 0
            while written < len(blob):
                written += os.write(fd, blob[written:])
        closing, fd = fd, -1
        os.close(closing)
        os.replace(tmp, folder / f"{key}.o")
    except BaseException as error:  # a full disk, a directory in place of the entry, ...
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)  # ... leave nothing behind
        except OSError:
            pass
        if not isinstance(error, OSError):
            raise
