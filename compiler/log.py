"""Logging of compilations: what compiles, for which signature, why, and how long it takes.

Contract (Python's `logging`; adlite adds no handler, so nothing is printed unless the
application configures logging, but for WARNINGs, which Python's last-resort handler prints
to stderr):
- `adlite.compile`, INFO: one record per compilation (a run of the pipeline through
  `lower`): the function's qualified name and file:line, the transformation, the signature
  it was specialised for (each parameter's type and shape, or its compile-time value), why
  it compiled (the function's first signature; what differs from the closest signature it
  compiled before; the values it reads from outside changed; or the same signature again,
  for a new transformed object), the disk cache (hit, miss, off, or unused: Python
  backend) and the seconds spent per stage, in the order first entered: frontend, optimize,
  ad, lower (IR to LLVM IR), cache (the key and the disk), llvm-opt (LLVM's O3 passes;
  absent for the quick tier), codegen (object code), load (linking it), other (the rest,
  when at least 0.5 ms). A stage's time excludes the stages nested in it; they add up to
  the compilation's. `record.compilation` is the same as a `Compiled`.
- `adlite.compile`, INFO: the optimised tier of a function is swapped in (`optimised`), with
  its llvm-opt and codegen seconds on the background thread; ERROR with the traceback when
  building it failed (`optimiser_failed`: the quick code stays).
- `adlite.compile`, INFO: a parameter becomes a compile-time value because the function
  needs its value when compiling (`specialised`, called by the API), naming where.
- `adlite.compile`, INFO: code compiled with `shapes="dynamic"` could not be made for every
  size of a signature (`sizes_specialised`, called by the API): why (what needed a size's
  value, or what failed), and that the signature compiles per shape instead.
- `adlite.compile`, WARNING: one Python function, under one transformation (whichever
  transformed objects compiled it, in this process), has compiled more than
  `recompile_limit()` distinct signatures: `RECOMPILE_LIMIT` when set, else
  `ADLITE_RECOMPILE_WARNING` (a count, or `off`), else 8 (a function usually sees a few
  shapes: training and test batches, a last partial batch; 9 signatures mean something
  changes from call to call). Again at twice, four times ... that many. It names the
  arguments that differ among the signatures, how, why a number is a compile-time value
  (where the function needs it), and what compiles less.
- `adlite.progress`, INFO (with `ADLITE_PROGRESS=1`: written to stderr instead): a
  compilation has run for `PROGRESS_AFTER` seconds (2; then for twice, four times ...
  that), naming the stage it is in; and when such a compilation ends.
- `compilation(c, rebuilt)` is the context of one compilation (`pipeline.Compilation` `c`;
  `rebuilt`: compiled again because values it reads from outside changed); `stage(name)`
  times stage `name` of the current compilation of this thread (nothing outside one);
  `disk_cache(status)` records the disk cache's answer.
- Cost: none on calls of compiled code (they never come here). Per compilation: two clock
  reads per stage and a summary of the signature (kept per function, for the warning; it
  holds no argument object); messages are built only when a handler takes them. `logging`
  itself is imported by the first compilation (importing it registers a fork hook).
"""

from __future__ import annotations

import inspect
import os
import sys
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .arguments import Known, Node, Static
from .ir.core import Type

INFO = 20  # logging.INFO
RECOMPILE_LIMIT: int | None = None  # the setting; None: ADLITE_RECOMPILE_WARNING, else 8
DEFAULT_RECOMPILE_LIMIT = 8
PROGRESS_AFTER = 2.0  # seconds


def _logger(name: str) -> Any:
    """The logger `adlite.<name>` (`logging` imported on first use)."""
    import logging

    return logging.getLogger(f"adlite.{name}")


def recompile_limit() -> int | None:
    """How many signatures one function may compile before the warning (None: never warn):
    `RECOMPILE_LIMIT` when set, else `ADLITE_RECOMPILE_WARNING` (a count, or `off`), else 8."""
    if RECOMPILE_LIMIT is not None:
        return RECOMPILE_LIMIT
    text = os.environ.get("ADLITE_RECOMPILE_WARNING", "").strip()
    if text.lower() in ("off", "0"):
        return None
    if not text:
        return DEFAULT_RECOMPILE_LIMIT
    if not text.isdigit():
        raise ValueError(f"ADLITE_RECOMPILE_WARNING={text!r}: expected a number of "
                         "signatures, or off")
    return int(text)


# ---- signatures ------------------------------------------------------------------------------

class Leaf(NamedTuple):
    """One node of a signature: `kind` "type" (a runtime number or array), "value" (a
    compile-time value compared by value), "object" (compared by identity) or "node" (a
    container); `what` how it prints; `key` what compares."""
    kind: str
    what: str
    key: Hashable
    python: str = ""  # the Python type of a compile-time value


Summary = tuple[tuple[str, Leaf], ...]  # (path, leaf) of every node, parents first


def summary(names: tuple[str, ...], trees: tuple) -> Summary:
    """The signature `trees` (one per parameter `names`), node by node. It holds no object of
    the call (compile-time objects go by id and type)."""
    out: list[tuple[str, Leaf]] = []
    for name, tree in zip(names, trees, strict=True):
        _walk(name, tree, out)
    return tuple(out)


def _walk(path: str, tree: Any, out: list) -> None:
    if isinstance(tree, Known):  # a runtime number the code is specialised on
        python, text = type(tree.value).__name__, repr(tree.value)
        out.append((path, Leaf("value", f"{tree.plain} {text}", (python, text), python)))
    elif isinstance(tree, Type):
        out.append((path, Leaf("type", str(tree), str(tree))))
    elif isinstance(tree, Static):
        value = tree.value
        python = type(value).__name__
        if value is None or isinstance(value, bool | int | float | str | bytes):
            text = repr(value)  # compared by value (bools: two singletons)
            out.append((path, Leaf("value", text if len(text) <= 40 else text[:37] + "...",
                                   (python, text), python)))
        else:
            out.append((path, Leaf("object", python, (python, id(value)), python)))
    else:
        assert isinstance(tree, Node)
        size = f"{tree.kind} of {len(tree.children)}"
        what = f"{tree.named.__name__} of {len(tree.children)}" if tree.named else \
            f"dict with keys {', '.join(tree.keys)}" if tree.kind == "dict" else size
        out.append((path, Leaf("node", what, (tree.kind, tree.keys, len(tree.children),
                                              tree.named))))
        fields = getattr(tree.named, "_fields", ())
        for i, child in enumerate(tree.children):
            sub = f"{path}.{fields[i]}" if i < len(fields) else \
                f"{path}[{tree.keys[i]!r}]" if tree.kind == "dict" else f"{path}[{i}]"
            _walk(sub, child, out)


def _identity(s: Summary) -> tuple:
    return tuple((path, leaf.key) for path, leaf in s)


def render(s: Summary) -> str:
    """`x: f64[3], fill=2.0, cfg['lr']: f64, self=Model object`: the leaves (containers show
    through their leaves' paths)."""
    parts = []
    for path, leaf in s:
        if leaf.kind == "node":
            continue
        parts.append(f"{path}: {leaf.what}" if leaf.kind == "type" else
                     f"{path}={leaf.what}" if leaf.kind == "value" else
                     f"{path}={leaf.what} object")
    return ", ".join(parts)


def differences(signatures: list[Summary]) -> list[tuple[str, list[Leaf | None]]]:
    """(path, its distinct leaves in first-seen order; None where it is missing) of each
    node that differs among `signatures`, outermost first (not those inside a container
    whose structure differs)."""
    paths: dict[str, list[Leaf | None]] = {}
    for s in signatures:
        for path, _ in s:
            paths.setdefault(path, [])
    for s in signatures:
        leaves = dict(s)
        for path, seen in paths.items():
            leaf = leaves.get(path)
            if all(_key(leaf) != _key(other) for other in seen):
                seen.append(leaf)
    changing, covered = [], []
    for path, seen in paths.items():
        if len(seen) > 1 and not any(path.startswith((c + "[", c + ".")) for c in covered):
            changing.append((path, seen))
            covered.append(path)
    return changing


def _key(leaf: Leaf | None) -> tuple | None:
    return None if leaf is None else (leaf.kind, leaf.key)


# ---- what one compilation records -------------------------------------------------------------

@dataclass
class Compiled:
    """What a compilation did (`record.compilation` of its INFO record)."""
    function: str  # qualified name
    location: str  # file:line
    transformation: str  # jit, grad, value_and_grad, vjp, jvp, jacrev, ...
    signature: str
    reason: str
    disk_cache: str = "unused"  # hit, miss, off, unused
    stages: dict[str, float] = field(default_factory=dict)  # seconds, exclusive
    seconds: float = 0.0

    def __str__(self) -> str:
        times = ", ".join(f"{name} {t:.3f} s" for name, t in self.stages.items())
        return (f"compiled {self.function} ({self.transformation}) at {self.location} for "
                f"({self.signature}) in {self.seconds:.3f} s: {self.reason}; disk cache "
                f"{self.disk_cache}; {times}")


class _Record:
    """The clock of a compilation in progress: the current stage and when it was entered."""

    def __init__(self, compiled: Compiled) -> None:
        self.compiled = compiled
        self.stage = "other"
        self.start = self.since = time.perf_counter()

    def switch(self, name: str) -> str:
        """Enter stage `name`; returns the stage left."""
        now = time.perf_counter()
        stages = self.compiled.stages
        stages[self.stage] = stages.get(self.stage, 0.0) + now - self.since
        previous, self.stage, self.since = self.stage, name, now
        return previous


_local = threading.local()  # .records: the compilations in progress on this thread


def _records() -> list[_Record]:
    try:
        return _local.records
    except AttributeError:
        _local.records = []
        return _local.records


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Time stage `name` of the current compilation (nothing outside one)."""
    records = _records()
    if not records:
        yield
        return
    record = records[-1]
    previous = record.switch(name)
    try:
        yield
    finally:
        record.switch(previous)


def disk_cache(status: str) -> None:
    """Record the disk cache's answer for the current compilation: hit, miss or off."""
    records = _records()
    if records:
        records[-1].compiled.disk_cache = status


def optimised(symbol: str, optimising: float, generating: float) -> None:
    """The optimised tier of native function `symbol` is in use (backends/llvm/tiers.py),
    after `optimising` seconds in LLVM's O3 passes and `generating` in code generation."""
    logger = _logger("compile")
    if logger.isEnabledFor(INFO):
        logger.info("optimised code of %s swapped in: llvm-opt %.3f s, codegen %.3f s "
                    "(on the background thread)", symbol, optimising, generating)


def optimiser_failed() -> None:
    """The background thread could not build an optimised tier: the quick code stays."""
    _logger("compile").exception("optimising on the background thread failed; the first "
                                 "tier's code (the same results) stays in use")


# ---- the functions compiled -------------------------------------------------------------------

_seen: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # fn -> {(mode, backend):
# {identity: Summary}}, the distinct signatures it compiled
_static_reasons: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # fn -> {name: str}


def specialised(fn: Callable, names: set[str], error: Exception,
                differentiated: set[str] = frozenset()) -> None:
    """The API made parameters `names` of `fn` compile-time values because compiling needs
    their values (`error`: what compiling them as run-time values raised); those
    `differentiated` stay run-time inputs too (`arguments.Known`)."""
    where = _where(error)
    _of(_static_reasons, fn).update(dict.fromkeys(names, where))
    logger = _logger("compile")
    if logger.isEnabledFor(INFO):
        kept = f" ({', '.join(sorted(differentiated))}: still differentiated, with derivative " \
            "0 through the value used when compiling)" if differentiated else ""
        logger.info("%s: %s made compile-time%s: the function needs %s when compiling (%s); "
                    "it compiles once per value", _name(fn), ", ".join(sorted(names)), kept,
                    "its value" if len(names) == 1 else "their values", where)


def sizes_specialised(fn: Callable, error: Exception) -> None:
    """Code of `fn` compiled with `shapes="dynamic"` compiles per shape for a signature:
    compiling it for every size raised `error`."""
    logger = _logger("compile")
    if logger.isEnabledFor(INFO):
        logger.info("%s: compiled per shape, not for every size (shapes=\"dynamic\"): %s",
                    _name(fn), _where(error))


def _where(error: Exception) -> str:
    """`file:line: source line` of a compiler error, or its first line."""
    line = getattr(error, "source_line", "")
    if getattr(error, "line", 0):
        return f"{error.filename}:{error.line}: {line.strip()}" if line else \
            f"{error.filename}:{error.line}"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _name(fn: Callable) -> str:
    user = inspect.unwrap(fn)  # a transformed function's Python function
    return getattr(user, "__qualname__", type(user).__name__)


def _location(fn: Callable) -> str:
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code else "<unknown>"


def _transformation(mode: str, fn: Callable) -> str:
    """`grad`, or `jit of grad of vmap` when `fn` is itself transformed."""
    layers = [mode]
    while hasattr(fn, "__wrapped__") and not inspect.ismethod(fn):
        layers.append("vmap" if hasattr(fn, "in_axes") else
                      fn.kind if hasattr(fn, "wrt") else type(fn).__name__)
        fn = fn.__wrapped__
    return " of ".join(layers)


def _parameter_names(fn: Callable, n: int) -> tuple[str, ...]:
    try:
        names = tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = ()
    return names if len(names) == n else tuple(map(str, range(n)))


@contextmanager
def compilation(c: Any, rebuilt: bool = False) -> Iterator[None]:
    """The context of compiling `c` (a `pipeline.Compilation`): its record, its progress
    lines, its INFO record and the recompile warning when it succeeds."""
    mode = c.derivative.mode if c.derivative is not None else "jit"
    sig = summary(_parameter_names(c.fn, len(c.types)), tuple(c.types))
    before = _of(_seen, c.fn).setdefault((mode, c.backend), {})  # identity -> Summary
    record = _Record(Compiled(_name(c.fn), _location(c.fn), _transformation(mode, c.fn),
                              render(sig), _reason(sig, before, rebuilt)))
    records = _records()
    records.append(record)
    watch = _Progress(record) if not records[:-1] and _progress_wanted() else None
    try:
        yield
    finally:
        records.pop()
        record.switch("other")
        if watch is not None:
            watch.stop()
    compiled = record.compiled
    compiled.seconds = record.since - record.start  # when the last stage ended
    if compiled.stages.get("other", 1.0) < 5e-4:
        del compiled.stages["other"]
    logger = _logger("compile")
    if logger.isEnabledFor(INFO):
        logger.info("%s", compiled, extra={"compilation": compiled})
    if _identity(sig) not in before:
        before[_identity(sig)] = sig
        _warn_if_many(c.fn, mode, list(before.values()))


def _of(table: weakref.WeakKeyDictionary, fn: Callable) -> dict:
    """`table[fn]` (an empty dict at first); a dict of its own for an object that cannot be
    weakly referenced (not tracked)."""
    try:
        return table.setdefault(fn, {})
    except TypeError:
        return {}


def _reason(sig: Summary, before: dict[tuple, Summary], rebuilt: bool) -> str:
    if rebuilt:
        return "values it reads from outside changed"
    if not before:
        return "first signature"
    if _identity(sig) in before:
        return "signature compiled before, by another transformed object (reuse one " \
            "jit/grad object to keep its compilations)"
    recent = list(before.values())[-64:]
    closest = min(reversed(recent), key=lambda s: len(differences([s, sig])))
    return "new signature: " + "; ".join(
        f"{path}: {_show(new)} (before: {_show(old)})"
        for path, (old, new) in differences([closest, sig]))


def _show(leaf: Leaf | None) -> str:
    if leaf is None:
        return "absent"
    return f"{leaf.what} object" if leaf.kind == "object" else leaf.what


def _warn_if_many(fn: Callable, mode: str, signatures: list[Summary]) -> None:
    limit, n = recompile_limit(), len(signatures)
    if limit is None or n <= limit:
        return
    times, rest = divmod(n - 1, limit)
    if rest or times & (times - 1):
        return  # warn at limit + 1, 2 * limit + 1, 4 * limit + 1, ... signatures
    reasons = _of(_static_reasons, fn)
    causes = [_cause(path, seen, reasons.get(path)) for path, seen in differences(signatures)]
    _logger("compile").warning(
        "adlite: %s (%s) at %s has compiled %d signatures (more than %d, see "
        "ADLITE_RECOMPILE_WARNING): %s", _name(fn), mode, _location(fn), n, limit,
        "; ".join(causes))


def _cause(path: str, seen: list[Leaf | None], reason: str | None) -> str:
    """What changes in argument `path` and how to compile less."""
    k = len(seen)
    shown = ", ".join(_show(leaf) for leaf in seen[:4]) + (", ..." if k > 4 else "")
    kinds = {leaf.kind if leaf else None for leaf in seen}
    head = f"argument {path!r}"
    if kinds == {"value"}:
        python = {leaf.python for leaf in seen}
        what = python.pop() if len(python) == 1 else "compile-time"
        why = f", because the function needs its value when compiling ({reason})" \
            if reason else ""
        text = f"{head} ({what} value) took {k} values ({shown}) and compiles once per " \
            f"value{why}"
        if what == "float":
            return text + "; keep it a run-time value: let the paths it chooses between " \
                "give results of the same shape and type (an array on both sides of an " \
                f"`if` on {path}, e.g. `np.sum(x) * np.ones_like(x)` for a number)"
        if what == "int":
            return text + "; round it up to a few sizes (pad the data), or use it only at " \
                "run time (a loop count, an index)"
        return text + "; pass fewer distinct values"
    if kinds == {"object"}:
        python = sorted({leaf.python for leaf in seen})
        return f"{head} was {k} different {'/'.join(python)} objects, compile-time values " \
            "compared by identity: each new object compiles again; reuse one object, or " \
            "pass its numbers and arrays as arguments"
    if kinds == {"type"}:
        dtypes = {leaf.what.split("[")[0] for leaf in seen}
        if len(dtypes) == 1:
            return f"{head} took {k} shapes ({shown}): each shape compiles once; compile " \
                "with shapes=\"dynamic\" (one compilation for all sizes), or pad or bucket " \
                "the data to a few shapes"
        return f"{head} took {k} types ({shown}): pass one type (float(x), " \
            "x.astype(np.float64))"
    return f"{head} took {k} structures ({shown}): the structure of containers, the types " \
        "and shapes of their leaves are part of the signature"


# ---- progress --------------------------------------------------------------------------------

def _progress_wanted() -> bool:
    return os.environ.get("ADLITE_PROGRESS", "") not in ("", "0") or \
        _logger("progress").isEnabledFor(INFO)


class _Progress:
    """Lines about a long compilation: after PROGRESS_AFTER seconds, then each time its
    duration doubles, and when it ends (if a line was written)."""

    def __init__(self, record: _Record) -> None:
        self.record = record
        self.lock = threading.Lock()
        self.told = self.done = False
        self._arm(PROGRESS_AFTER)

    def _arm(self, delay: float) -> None:
        self.timer = threading.Timer(delay, self._tick)
        self.timer.daemon = True
        self.timer.start()

    def _tick(self) -> None:
        with self.lock:
            if self.done:
                return
            r = self.record
            elapsed = time.perf_counter() - r.start
            _say("adlite: compiling %s (%s) for (%s): %.1f s so far, in stage %s",
                 r.compiled.function, r.compiled.transformation, r.compiled.signature,
                 elapsed, r.stage)
            self.told = True
            self._arm(elapsed)

    def stop(self) -> None:
        with self.lock:
            self.done = True
            self.timer.cancel()
            if self.told:
                _say("adlite: compiled %s (%s) in %.1f s", self.record.compiled.function,
                     self.record.compiled.transformation,
                     time.perf_counter() - self.record.start)


def _say(message: str, *args: Any) -> None:
    if os.environ.get("ADLITE_PROGRESS", "") not in ("", "0"):
        print(message % args, file=sys.stderr, flush=True)
    else:
        _logger("progress").info(message, *args)
