"""On-disk cache of compiled object code.

Contract: `load(key)` returns the object code stored under `key` or None; `store(key, code)`
writes it atomically (temporary file + rename). Entries carry a magic header and a SHA-256
of their payload: a truncated, corrupted or foreign file is ignored (and overwritten by the
next store), never loaded. The directory is `ADLITE_CACHE_DIR`, default
`~/.cache/adlite`; set `ADLITE_CACHE_DIR=off` to disable. Deleting it is always safe.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

MAGIC = b"adlite-object-v1\n"


def directory() -> Path | None:
    value = os.environ.get("ADLITE_CACHE_DIR", str(Path.home() / ".cache" / "adlite"))
    return None if value in ("", "off") else Path(value)


def key_for(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def load(key: str) -> bytes | None:
    folder = directory()
    if folder is None:
        return None
    try:
        data = (folder / f"{key}.o").read_bytes()
    except OSError:
        return None
    header = len(MAGIC) + 64 + 1
    if not data.startswith(MAGIC) or len(data) < header:
        return None
    digest, payload = data[len(MAGIC):header - 1], data[header:]
    if hashlib.sha256(payload).hexdigest().encode() != digest:
        return None
    return payload


def store(key: str, code: bytes) -> None:
    folder = directory()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        blob = MAGIC + hashlib.sha256(code).hexdigest().encode() + b"\n" + code
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".o")
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, folder / f"{key}.o")
    except OSError:
        pass  # a read-only or full disk only costs a recompilation next time
