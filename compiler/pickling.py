"""How a transformed function travels to another process: the function and the
transformation, never native code, and one transformation per process for each function sent.

Contract:
- `shipped(fn)` is what stands for `fn` in a pickle: `fn` itself when the receiving process can
  import it by name (a module-level function of an importable module, a bound method, a
  callable object: pickle's own rules), else a `ByValue` holding `fn` pickled by value with
  cloudpickle (a lambda, a closure, a function defined in `__main__` or inside another
  function) and the source lines of its file, which the receiver puts in `linecache` so that
  the compiler finds the source on a machine without that file. Without cloudpickle (it comes
  with the `dask` extra) such a function raises `pickle.PicklingError` naming it, or, for a
  function defined in `__main__`, goes by name (which works in `multiprocessing` workers,
  spawned or forked, since they import the main script).
- `rebuild(Transformed, fn, kind, wrt, backend)` (the unpickling side) returns one `Transformed` per
  (function, transformation) in a process: a worker that receives the same function with every
  task compiles it once per signature and reuses that code (and, in a fresh process, the
  object code of the disk cache, `backends/llvm/cache.py`). The last `KEPT` transformations
  received are kept; `compilations()` tells how often each compiled ({"grad(f)": n}).
- `by_value_preferred(module)`: whether a `@jit` defined in `module` is better sent by value
  than by name (`__main__` with cloudpickle: a Dask worker's `__main__` is not the script).
"""

from __future__ import annotations

import inspect
import linecache
import pickle
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

KEPT = 64
_received: OrderedDict = OrderedDict()
_lock = threading.Lock()


def _cloudpickle():
    try:
        import cloudpickle
    except ImportError:
        return None
    return cloudpickle


def by_name(module: str, qualname: str) -> Any:
    """The object that `module.qualname` names, or None."""
    obj = sys.modules.get(module)
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj


def _importable(fn: types.FunctionType) -> bool:
    return by_name(fn.__module__, fn.__qualname__) is fn


class ByValue:
    """A function pickled by value, with the source lines of the file that defines it."""

    def __init__(self, payload: bytes, filename: str, lines: list[str]) -> None:
        self.payload, self.filename, self.lines = payload, filename, lines

    def load(self) -> Callable:
        if self.lines and self.filename not in linecache.cache:
            linecache.cache[self.filename] = (sum(map(len, self.lines)), None, self.lines,
                                              self.filename)
        return pickle.loads(self.payload)


def by_value_preferred(module: str) -> bool:
    return module == "__main__" and _cloudpickle() is not None


def shipped(fn: Callable, what: str) -> Callable | ByValue:
    """`fn`, or `fn` by value when another process could not import it by name; `what` names
    the transformation in errors."""
    if not isinstance(fn, types.FunctionType):
        return fn
    if _importable(fn) and not by_value_preferred(fn.__module__):
        return fn
    cloudpickle = _cloudpickle()
    if cloudpickle is None:
        if _importable(fn):  # __main__: multiprocessing workers import the main script
            return fn
        raise pickle.PicklingError(
            f"cannot pickle {what}: {fn.__qualname__} (from {fn.__module__}) cannot be imported "
            "by name in another process (a lambda, a closure or a function defined inside "
            "another function); define it at module level, or install cloudpickle (it comes "
            "with `pip install adlite[dask]`) to send it by value")
    filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
    return ByValue(cloudpickle.dumps(fn), filename, linecache.getlines(filename))


def rebuild(transformed: type, fn: Callable | ByValue, kind: str, wrt: Any, backend: str,
            checkpoint: Any = None):
    """The transformation `kind` of `fn` in this process (one per function received), made by
    `transformed(fn, kind, wrt, backend, checkpoint)` (`api.Transformed` or a subclass, passed
    to keep imports one-way)."""
    Transformed = transformed  # noqa: N806

    key = (transformed, fn.payload if isinstance(fn, ByValue) else fn, kind, wrt, backend,
           checkpoint)
    try:
        hash(key)
    except TypeError:  # a bound method of an unhashable object: not kept
        return Transformed(fn, kind, wrt, backend, checkpoint)
    with _lock:
        found = _received.get(key)
        if found is not None:
            _received.move_to_end(key)
            return found
    made = Transformed(fn.load() if isinstance(fn, ByValue) else fn, kind, wrt, backend,
                       checkpoint)
    with _lock:
        made = _received.setdefault(key, made)
        while len(_received) > KEPT:
            _received.popitem(last=False)
    return made


def compilations() -> dict[str, int]:
    """{"kind(function)": signatures compiled} of the transformations this process received."""
    with _lock:
        kept = list(_received.values())
    return {f"{t.kind}({getattr(t.fn, '__qualname__', t.fn)})": t.compile_count for t in kept}
