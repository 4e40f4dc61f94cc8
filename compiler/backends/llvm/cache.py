"""On-disk cache of compiled object code.

Contract: `load(key)` returns the object code stored under `key` or None; `store(key, code)`
writes it atomically (temporary file + rename) and never leaves its temporary file behind,
whatever fails (a directory in place of the entry, a full disk). An entry is a file
`<key>.o` (`key`: 64 hex digits) holding

    MAGIC, SHA-256 of (key, payload) in hex, "\\n", key, "\\n", payload

so it names the key it was built for: a truncated or corrupted file, or a valid entry copied
under another key, is ignored (and overwritten by the next store), never loaded. Only regular
files are read: a FIFO, device or directory in place of an entry is skipped without being
opened for reading. Deleting the directory, or any entry, is always safe.

Where (`directory()`): `ADLITE_CACHE_DIR` when set (`off` or empty: no disk cache), else
`$XDG_CACHE_HOME/adlite` (when XDG_CACHE_HOME is an absolute path, as the XDG base directory
specification asks), else `~/.cache/adlite`. adlite creates it accessible to its owner only
(entries are code adlite runs: no other user may plant one).

Size: at most `max_bytes()` (`ADLITE_CACHE_MAX_BYTES`, bytes or a size such as "500MB" or
"2GiB"; a value it cannot read raises ValueError naming it, at the store), least recently
used entries evicted first. The default, 1 GiB, keeps thousands of signatures (an entry
takes a few KB to a few hundred KB) in a small part of any disk. "Used" is stored or loaded:
`load` touches the entry's modification time. After a store, `evict` lists the directory and
removes the oldest entries (never the one just stored) until the total is within the cap. To
keep stores cheap with many entries, a process lists the directory on its first store there
and again once it has stored a sixteenth of the cap since, so while several processes write,
the total may pass the cap by a sixteenth of it per process until one lists again. Several
processes may share the directory: an entry another process removed between the listing and
its use is skipped, never an error, and no store fails for eviction. `clear()` (`adlite cache
clear`) removes only adlite's files: entries (named as above and starting with the magic
prefix) and temporary files `.tmp-*.o` (a killed process may leave one; a store running at
that moment then stores nothing); never other files in the directory. `usage()` is what
`adlite cache info` shows.

On by default, unlike JAX's persistent cache (opt-in), because first-call latency matters: a
fresh process otherwise compiles every signature again (tens of milliseconds to seconds
each), and process pools and Dask workers pay that per worker. The risks that argue for
opt-in are bounded: entries are keyed by everything that determines the code (the printed
IR, the host CPU and its features, a hash of the compiler's source, numpy's, llvmlite's and
LLVM's versions, the BLAS library), checksummed and refused under another key, so stale or
damaged code never runs; a read-only or full disk only costs a compilation; the cap bounds
the disk it takes (entries of earlier adlite versions are never used again and age out).
What remains is that compiled code of the user's functions is written under their home
directory without asking: `ADLITE_CACHE_DIR=off` turns that off.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import NamedTuple

from ...ad.checkpoint_policy import parse_bytes

MAGIC = b"adlite-object-v2\n"
PREFIX = b"adlite-object-"  # of every version's entries
DIGEST_CHARS = 64
DEFAULT_MAX_BYTES = 2**30
ENTRY = re.compile(r"[0-9a-f]{64}\.o")
TEMPORARY = re.compile(r"\.tmp-[A-Za-z0-9_]+\.o")
_stored: dict[Path, int] = {}  # bytes this process stored per directory since listing it


def directory() -> Path | None:
    """The cache directory, or None when the disk cache is off."""
    value = os.environ.get("ADLITE_CACHE_DIR")
    if value is not None:
        return None if value in ("", "off") else Path(value)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "adlite"


def max_bytes() -> int:
    """The cap on the directory's entries, in bytes (`ADLITE_CACHE_MAX_BYTES`, default 1 GiB;
    ValueError naming the variable for a value it cannot read)."""
    text = os.environ.get("ADLITE_CACHE_MAX_BYTES", "").strip()
    return parse_bytes(text, "ADLITE_CACHE_MAX_BYTES") if text else DEFAULT_MAX_BYTES


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


def _read_regular(path: Path, size: int = -1) -> bytes | None:
    """The content of `path` (its first `size` bytes if given) if it is a regular file; never
    opens anything else for reading (O_NONBLOCK and a second check on the open descriptor
    cover a swap in between)."""
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
            return fh.read(size)
    except OSError:
        return None
    finally:
        os.close(fd)


def load(key: str) -> bytes | None:
    """The code stored under `key`, its entry marked as used; None if there is none."""
    folder = directory()
    if folder is None:
        return None
    path = folder / f"{key}.o"
    data = _read_regular(path)
    code = None if data is None else decode(key, data)
    if code is not None:
        try:
            os.utime(path)
        except OSError:
            pass  # another process removed it, or a read-only directory: only LRU order
    return code


def store(key: str, code: bytes, folder: Path | None | str = "") -> None:
    """Store `code` under `key` in `folder` (by default `directory()`; None: nowhere), then
    evict least recently used entries past the cap."""
    folder = directory() if folder == "" else folder
    if folder is None:
        return
    cap = max_bytes()
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
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
    else:
        if _listing_due(folder, written, cap):
            evict(folder, cap, keep=f"{key}.o")


def _listing_due(folder: Path, size: int, cap: int) -> bool:
    """Whether a store of `size` bytes lists `folder` to evict: the process's first store
    there, or a sixteenth of the cap stored since it last listed it."""
    since = _stored.get(folder)
    if since is not None and since + size < cap // 16:
        _stored[folder] = since + size
        return False
    _stored[folder] = 0
    return True


class Entry(NamedTuple):
    """A file of the cache: when it was last used, its name and size."""
    mtime_ns: int
    name: str
    size: int


def entries(folder: Path) -> list[Entry]:
    """The entries in `folder`, least recently used first (ties by name): regular files
    named like entries. Files removed while listing are left out."""
    found = []
    try:
        with os.scandir(folder) as listing:
            for item in listing:
                if not ENTRY.fullmatch(item.name):
                    continue
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:
                    continue  # removed by another process meanwhile
                if stat.S_ISREG(info.st_mode):
                    found.append(Entry(info.st_mtime_ns, item.name, info.st_size))
    except OSError:
        return []
    return sorted(found)


def evict(folder: Path, cap: int, keep: str = "") -> None:
    """Remove the least recently used entries of `folder` but `keep` until their total is at
    most `cap` bytes (files named like entries that are not adlite's do not count)."""
    listed = entries(folder)
    total = sum(e.size for e in listed)
    for entry in listed:
        if total <= cap:
            break
        if entry.name != keep and _remove(folder / entry.name) != "kept":
            total -= entry.size


def _remove(path: Path, prefix: bytes = PREFIX) -> str:
    """Remove `path` if it is one of adlite's files (it starts with `prefix`): "removed" (also
    when another process removed it first), "foreign" (not adlite's: left alone) or "kept"
    (it could not be removed)."""
    head = _read_regular(path, len(prefix))
    if head is None:
        return "kept" if os.path.lexists(path) else "removed"
    if head != prefix:
        return "foreign"
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError:
        return "kept"
    return "removed"


class Usage(NamedTuple):
    """What `adlite cache info` shows."""
    directory: Path | None
    entries: int
    bytes: int
    cap: int


def usage() -> Usage:
    """The directory (None: off), its number of entries (adlite's: named and starting as
    entries do), their total size and the cap."""
    folder = directory()
    listed = [] if folder is None else [
        e for e in entries(folder) if _read_regular(folder / e.name, len(PREFIX)) == PREFIX]
    return Usage(folder, len(listed), sum(e.size for e in listed), max_bytes())


class Cleared(NamedTuple):
    """What `clear` removed: entries, their bytes, and temporary files."""
    entries: int
    bytes: int
    temporary: int  # temporary files of interrupted stores


def clear() -> Cleared:
    """Remove every entry of the directory, and the temporary files stores left; nothing
    else."""
    folder = directory()
    if folder is None:
        return Cleared(0, 0, 0)
    removed = [e for e in entries(folder) if _remove(folder / e.name) == "removed"]
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        names = []
    temporary = sum(_remove(folder / name, b"") == "removed" for name in names
                    if TEMPORARY.fullmatch(name))
    return Cleared(len(removed), sum(e.size for e in removed), temporary)
