"""Where the disk cache lives, how big it may grow, and `adlite cache info|clear`: XDG_CACHE_HOME
is honoured below ADLITE_CACHE_DIR, least recently used entries (loaded or stored) go first
past the cap, eviction never trips over another process, and clearing removes adlite's files
only."""

import os
import stat

import pytest

from adlite.compiler import cli
from adlite.compiler.backends.llvm import cache

PAYLOAD = b"x" * 1000
ENTRY_SIZE = len(cache.encode("a" * 64, PAYLOAD))


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ADLITE_CACHE_MAX_BYTES", raising=False)
    return tmp_path


def _key(letter: str) -> str:
    return letter * 64


def _used(folder, letter: str, when: int) -> None:
    os.utime(folder / f"{_key(letter)}.o", (when, when))


def _present(folder) -> str:
    return "".join(sorted(p.name[0] for p in folder.glob("*.o")))


def test_xdg_cache_home_below_adlite_cache_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("ADLITE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.directory() == tmp_path / "xdg" / "adlite"
    cache.store(_key("a"), PAYLOAD)
    assert cache.load(_key("a")) == PAYLOAD
    assert (tmp_path / "xdg" / "adlite" / f"{_key('a')}.o").is_file()
    assert stat.S_IMODE((tmp_path / "xdg" / "adlite").stat().st_mode) == 0o700
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.directory() == tmp_path / "home" / ".cache" / "adlite"
    monkeypatch.setenv("ADLITE_CACHE_DIR", str(tmp_path / "mine"))
    assert cache.directory() == tmp_path / "mine"
    monkeypatch.setenv("ADLITE_CACHE_DIR", "off")
    assert cache.directory() is None


def test_least_recently_used_entries_go_first(folder, monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_MAX_BYTES", str(3 * ENTRY_SIZE))
    for letter in "abc":
        cache.store(_key(letter), PAYLOAD)
    assert _present(folder) == "abc"
    for when, letter in enumerate("abc", start=1000):
        _used(folder, letter, when)                # a oldest, then b, then c
    assert cache.load(_key("a")) == PAYLOAD        # loading a makes it the most recent
    cache.store(_key("d"), PAYLOAD)
    assert _present(folder) == "acd"               # b, least recently used, went
    _used(folder, "d", 500)
    cache.store(_key("e"), PAYLOAD)
    assert _present(folder) == "ace"


def test_the_entry_just_stored_stays_even_alone_over_the_cap(folder, monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_MAX_BYTES", "100")
    cache.store(_key("a"), PAYLOAD)
    cache.store(_key("b"), PAYLOAD)
    assert _present(folder) == "b"
    assert cache.load(_key("b")) == PAYLOAD


def test_eviction_leaves_other_files_alone(folder, monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_MAX_BYTES", str(2 * ENTRY_SIZE))
    stray = folder / f"{_key('0')}.o"              # named like an entry, not adlite's
    stray.write_bytes(b"a user's object file" * 100)
    (folder / "notes.txt").write_bytes(b"mine" * 1000)
    os.utime(stray, (1, 1))
    for letter in "abc":
        cache.store(_key(letter), PAYLOAD)
        _used(folder, letter, 1000 + ord(letter))
    assert stray.read_bytes() == b"a user's object file" * 100
    assert (folder / "notes.txt").read_bytes() == b"mine" * 1000
    assert _present(folder) == "0bc"


def test_an_entry_another_process_removed_is_no_error(folder, monkeypatch):
    monkeypatch.setenv("ADLITE_CACHE_MAX_BYTES", str(3 * ENTRY_SIZE))
    for letter in "abc":
        cache.store(_key(letter), PAYLOAD)
        _used(folder, letter, 1000 + ord(letter))
    listing = cache.entries(folder)
    (folder / f"{_key('a')}.o").unlink()           # removed by another process after listing
    with monkeypatch.context() as patch:
        patch.setattr(cache, "entries", lambda _: listing)
        cache.evict(folder, 2 * ENTRY_SIZE)        # a, gone, counts as removed
    assert _present(folder) == "bc"
    real_unlink = os.unlink

    def raced(path, *args, **kwargs):              # gone between the check and the unlink
        real_unlink(path, *args, **kwargs)
        raise FileNotFoundError(path)

    with monkeypatch.context() as patch:
        patch.setattr(os, "unlink", raced)
        cache.evict(folder, ENTRY_SIZE)
    assert _present(folder) == "c"


def test_cache_info_and_clear(folder, capsys):
    for letter in "ab":
        cache.store(_key(letter), PAYLOAD)
    (folder / "notes.txt").write_text("mine")
    (folder / f"{_key('0')}.o").write_text("not adlite's")
    (folder / ".tmp-abcd1234.o").write_bytes(b"adlite-object-v2\npartial")
    assert cli.main(["cache", "info"]) == 0
    total = 2 * ENTRY_SIZE
    assert capsys.readouterr().out.splitlines() == [
        f"directory: {folder}",
        "entries: 2",
        f"size: {total / 1024:.1f} KiB = {total:,} bytes",
        "cap: 1.0 GiB = 1,073,741,824 bytes, set by ADLITE_CACHE_MAX_BYTES"]
    assert cli.main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == (
        f"removed 2 entries ({total / 1024:.1f} KiB = {total:,} bytes) and 1 temporary file "
        f"from {folder}\n")
    assert sorted(p.name for p in folder.iterdir()) == [f"{_key('0')}.o", "notes.txt"]
    assert cli.main(["cache", "clear"]) == 0
    assert capsys.readouterr().out.startswith("removed 0 entries (0 bytes) and 0 temporary")


def test_cache_commands_when_off_or_misconfigured(monkeypatch, capsys):
    monkeypatch.setenv("ADLITE_CACHE_DIR", "off")
    assert cli.main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == "disk cache: off (ADLITE_CACHE_DIR=off)\n"
    monkeypatch.setenv("ADLITE_CACHE_DIR", "/nonexistent/adlite")
    monkeypatch.setenv("ADLITE_CACHE_MAX_BYTES", "lots")
    assert cli.main(["cache", "info"]) == 1
    assert "ADLITE_CACHE_MAX_BYTES" in capsys.readouterr().err
