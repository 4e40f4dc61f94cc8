"""How a transformed function travels to another process: the function and the
transformation, never native code, and one transformation per process for each function sent.

Contract:
- `shipped(fn)` is what stands for `fn` in a pickle: `fn` itself when the receiving process can
  import it by name (a module-level function of an importable module, a bound method, a
  callable object: pickle's own rules), else a `ByValue` holding `fn` pickled by value with
  cloudpickle (a lambda, a closure, a function defined in `__main__` or inside another
  function) together with the source of every function it carries by value (itself, and the
  closures, defaults and globals it reaches that go by value too): the lines of their files,
  and which function starts at which line. Unpickling a `ByValue` gives the function; the
  compiler reads the carried source (`frontend.source.carry_source`), never the receiver's
  disk, and does not depend on the file name the pickler leaves in the code (cloudpickle
  3.1.3 writes `<dynamic-code>`). The same payload received again gives the same function
  object. Without cloudpickle (it comes with the `dask` extra) such a function raises
  `pickle.PicklingError` naming it, or, for a function defined in `__main__`, goes by name
  (which works in `multiprocessing` workers, spawned or forked, since they import the main
  script).
- `rebuild(Transformed, fn, kind, wrt, backend)` (the unpickling side) returns one `Transformed`
  per (function, transformation) in a process: a worker that receives the same function with
  every task compiles it once per signature and reuses that code (and, in a fresh process, the
  object code of the disk cache, `backends/llvm/cache.py`). The last `KEPT` transformations
  received are kept; `compilations()` tells how often each compiled ({"grad(f)": n}).
- `by_value_preferred(module)`: whether a `@jit` defined in `module` is better sent by value
  than by name (`__main__` with cloudpickle: a Dask worker's `__main__` is not the script).
"""

from __future__ import annotations

import pickle
import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from .frontend.source import carry_source, source_file

KEPT = 64
_received: OrderedDict = OrderedDict()
_loaded: OrderedDict = OrderedDict()  # payload -> the function it gave
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


def _goes_by_value(fn: types.FunctionType) -> bool:
    return not _importable(fn) or by_value_preferred(fn.__module__)


def _global_names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _global_names(const)


def _functions_by_value(root: Callable) -> Iterator[types.FunctionType]:
    """`root` and the functions it reaches through closures, defaults, globals and adlite's
    own wrappers (transformations, custom derivatives) that go by value, each once."""
    seen: set[int] = set()
    stack: list[Any] = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, types.MethodType):
            stack.append(obj.__func__)
        elif isinstance(obj, types.FunctionType):
            if not _goes_by_value(obj):
                continue
            yield obj
            for cell in obj.__closure__ or ():
                try:
                    stack.append(cell.cell_contents)
                except ValueError:  # an empty cell
                    pass
            stack.extend(obj.__defaults__ or ())
            stack.extend((obj.__kwdefaults__ or {}).values())
            names = obj.__globals__
            stack.extend(names[n] for n in _global_names(obj.__code__) if n in names)
        elif isinstance(obj, tuple | list):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif type(obj).__module__.startswith("adlite.") and hasattr(obj, "__dict__"):
            stack.extend(v for v in vars(obj).values()
                         if callable(v) or isinstance(v, tuple | list))


def _start(fn: types.FunctionType) -> tuple[str, int]:
    """What names a function's source in a `ByValue`: its qualified name and first line (the
    same in the function unpickled, whatever file name the pickler leaves in its code)."""
    return fn.__code__.co_qualname, fn.__code__.co_firstlineno


class ByValue:
    """A function pickled by value, with the sources of the functions it carries: `starts`
    maps (qualified name, first line) of each to its file, `files` a file to its lines."""

    def __init__(self, fn: types.FunctionType, payload: bytes) -> None:
        self.payload = payload
        self.starts: dict[tuple[str, int], str] = {}
        self.files: dict[str, tuple[str, ...]] = {}
        for f in _functions_by_value(fn):
            found = source_file(f)  # what `f` carried, when it came by value itself
            if found is not None:
                filename, lines = found
                self.files.setdefault(filename, lines)
                self.starts[_start(f)] = filename

    def __reduce__(self):
        return load, (self.payload, self.starts, self.files)


def load(payload: bytes, starts: dict, files: dict) -> Callable:
    """The function a `ByValue` carried, its sources recorded for the compiler; the same
    payload gives the same function object."""
    with _lock:
        fn = _loaded.get(payload)
        if fn is not None:
            _loaded.move_to_end(payload)
            return fn
    fn = pickle.loads(payload)
    for f in _functions_by_value(fn):
        filename = starts.get(_start(f))
        if filename is not None:
            carry_source(f.__code__, filename, files[filename])
    with _lock:
        fn = _loaded.setdefault(payload, fn)
        while len(_loaded) > KEPT:
            _loaded.popitem(last=False)
    return fn


def by_value_preferred(module: str) -> bool:
    return module == "__main__" and _cloudpickle() is not None


def shipped(fn: Callable, what: str) -> Callable | ByValue:
    """`fn`, or `fn` by value when another process could not import it by name; `what` names
    the transformation in errors."""
    if not isinstance(fn, types.FunctionType) or not _goes_by_value(fn):
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
    return ByValue(fn, cloudpickle.dumps(fn))


def rebuild(transformed: type, fn: Callable, kind: str, wrt: Any, backend: str,
            checkpoint: Any = None, options: tuple = ()):
    """The transformation `kind` of `fn` in this process (one per function received), made by
    `transformed(fn, kind, wrt, backend, checkpoint, **dict(options))` (`api.Transformed` or
    a subclass, passed to keep imports one-way)."""
    Transformed = transformed  # noqa: N806

    key = (transformed, fn, kind, wrt, backend, checkpoint, options)
    try:
        hash(key)
    except TypeError:  # a bound method of an unhashable object: not kept
        return Transformed(fn, kind, wrt, backend, checkpoint, **dict(options))
    with _lock:
        found = _received.get(key)
        if found is not None:
            _received.move_to_end(key)
            return found
    made = Transformed(fn, kind, wrt, backend, checkpoint, **dict(options))
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
