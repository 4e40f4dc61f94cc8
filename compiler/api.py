"""User-facing transformations: `jit`, `grad`, `value_and_grad`, `vjp`, `jvp`, `show`.

Contract:
- A transformed function is called like the Python function: positional and keyword
  arguments, default values, keyword-only parameters, `*args` (its arity is part of the
  signature) and `**kwargs`, bound as Python binds them (`arguments.bind`); a wrong call raises
  the `TypeError` Python raises, with Python's message. A bound method (`grad(model.loss)`),
  a `staticmethod` or a `classmethod` is an entry point too: `self`/`cls` is a compile-time
  value (by identity) and is not counted by `wrt`.
- Arguments: floats, ints and bools (runtime values), float64/float32 arrays, int64 and bool
  arrays (data: labels, indices, masks; never differentiated), tuples, lists and dicts with
  string keys of them, nested (the graph takes their leaves). Other objects (strings, None,
  functions, modules, class instances) are compile-time values: part of the signature, by
  value for str/bytes/None and by identity otherwise. An int, bool or float argument the
  function needs when compiling (an array length `np.zeros(n)`, a shape, a slice bound, the
  trip count of a loop that must be unrolled, a flag choosing between shapes) is specialised
  on its value automatically: the first such call compiles again with that parameter
  compile-time (`arguments.NeedStatic`), and later calls compile once per distinct value;
  values used only at run time (loop counts) stay runtime values.
- Each transformation compiles the function once per call signature (the structure of the
  arguments, the types of their numbers and arrays, the shapes, the compile-time values) and
  caches the result; later calls with the same signature run the cached code without tracing
  or compiling (`.compile_count` tells how often it compiled). Threads asking for the same new
  signature at once share one compilation. A positional call with the signature compiled
  last runs native code through its generated entry point directly (`native_entry`: the
  checks of the arguments are native, see backends/llvm/pywrapper.py; the values read from
  outside are fetched and guarded first); any other call takes the general path.
- Results have the structure the Python function returns: a number, an array, or tuples,
  lists (list displays) and dicts (dict displays) of them, nested.
- Transformed functions pickle at any time (before or after their first call) as the function,
  the transformation and its arguments, never as native code: the receiving process compiles
  again or loads the code from the disk cache. A module-level `@jit def f` is pickled by
  name; lambdas, closures and functions of `__main__` go by value with cloudpickle when it is
  installed (`pickling.py`); a process receiving one function many times compiles it once.
  `hessian(f)` results pickle too.
- `grad(f, wrt=0)` differentiates a function with one float result with respect to argument
  `wrt`: an int (a position in the call's positional arguments, then in the parameters) or a
  parameter name, or a tuple of them (then a tuple of gradients is returned). The gradient
  w.r.t. a structured argument has its structure (a dict of arrays gives a dict of gradient
  arrays). Arguments that are differentiated are taken as floats even when given as ints;
  differentiating an int or bool array or a compile-time value raises `TypeError`.
- JAX's names: `argnums` is `wrt`; `has_aux=True` (grad, value_and_grad, vjp, jvp, the
  Jacobians): the function returns `(output, aux)`, the derivative is that of the output
  and `aux` comes back beside it as JAX returns it (`(gradient, aux)`, `((value, aux),
  gradient)`, `(outputs, pullback, aux)`, `(outputs, tangents, aux)`); such a
  transformation is called from Python only. `static_argnums` / `static_argnames` (jit,
  grad, value_and_grad; positions count the parameters) make parameters compile-time values
  (hashable; never differentiated), one compilation per value.
- `vjp` and `jvp` take and give cotangents and tangents flat: one per float leaf of the
  arguments given (defaults are constants), in order; their outputs (and `jvp`'s output
  tangents) have the result's structure. `hessian`, `jacrev`, `jacfwd` and `jacobian` are
  `Transformed`s too (jacobian.py).
- `checkpoint=` (grad, value_and_grad, vjp, hessian) bounds the tapes of loops in reverse
  mode (`ad.checkpoint_policy`): automatic by default (`ADLITE_TAPE_BUDGET`), False for
  never, a budget ("64MB") or an int (steps between snapshots); a value it cannot take
  raises when the transformation is made, a budget too small for a loop when it compiles.
- `backend="python"` runs the readable Python produced by the Python backend (the reference).
- Arrays are shared objects, as in numpy: `jit` of a function that writes into an argument
  array (`out[i] = ...`, `x += v`, through an alias, a basic-slice view, an inlined callee,
  or inside a tuple or list argument) writes the final values back into the caller's array
  (`np.copyto`, any memory layout), and a returned argument is the caller's very array.
  Writes into arrays inside a dict argument are refused when compiling. Arguments that share
  memory with an argument the function writes raise `ValueError` at call time. `grad`,
  `value_and_grad`, `vjp`, `jvp` and `hessian` differentiate with respect to the argument
  values at entry and never modify the caller's arrays.
- Module-level and closed-over numbers and arrays and attributes of Python objects the
  function reads are read at every call, never stale (`frontend/externals.py`): floats and
  arrays are passed to the compiled code, other values (ints sizing arrays, functions,
  objects) are checked, and a change of one of them, or of an array's shape or dtype,
  compiles again (one compilation per state, cached). They are constants for the
  derivatives: `grad`, `jvp`, `vjp` and `hessian` take and return derivatives for the
  arguments only.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import arguments, log, pickling, pipeline
from .ad.checkpoint_policy import policy as checkpoint_policy
from .arguments import (
    NeedStatic,
    Node,
    Static,
    Tree,
    arg_type,  # noqa: F401 - part of this module's interface (tests, tools)
    differentiable,
    flatten,
    has_static,
    leaf_types,
    retyped,
    target_of,
    unflatten,
)
from .backends.llvm.jit import native_of
from .compile_once import once
from .frontend import externals
from .frontend.aliasing import view_key
from .frontend.to_ir import Layout
from .ir.core import BOOL, F64, I64, Graph, Type
from .ir.dot import graph_to_dot
from .ir.printer import print_graph
from .pipeline import DIFFERENTIATE, JIT, Compilation, Derivative
from .structured_calls import builder, structured_entry
from .tracebacks import boundary, hide_frames

BACKENDS = ("llvm", "python")
MAX_STRUCTURES = 8  # structured signatures with a generated entry point, per transformation


class Call(NamedTuple):
    """A call bound to the compiled function's parameters: the signature (`trees`, one per
    parameter after the callable's own bound values, differentiated ones promoted to floats),
    the runtime leaves to pass, and per differentiated argument (first flat position, its
    tree)."""
    trees: tuple
    leaves: list
    groups: tuple[tuple[int, Tree], ...]
    plan: tuple | None  # where each leaf comes from, when every argument is one number or
    # array: ("a", position) or ("k", keyword) of the call, ("c", value) a default's leaf
    given: tuple[bool, ...]  # per leaf: part of an argument of the call (not a default)


class Transformed:
    """A compiled transformation of `fn`, specialised and cached per argument signature."""

    def __init__(self, fn: Callable, kind: str, wrt: int | str | tuple = 0,
                 backend: str = "llvm", checkpoint: object = None, *, has_aux: bool = False,
                 static: Sequence[int | str] = ()) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; choose one of {BACKENDS}")
        if checkpoint is not None:
            checkpoint_policy(checkpoint)  # refuses a value it cannot take, naming it
        self.checkpoint = checkpoint
        self.fn, self.kind, self.backend = fn, kind, backend
        self.wrt = (wrt,) if isinstance(wrt, int | str) else tuple(wrt)
        self.multi = not isinstance(wrt, int | str)
        self.cache: dict[tuple, Any] = {}
        self.dispatch: dict[tuple[type, ...], Callable] = {}
        self.structured: Callable = self._bind_positional  # see `_prepare`
        self.n_structures = 0
        self.static_scalars: set[str] = set()  # int/bool/float parameters specialised per value
        self._fast: Callable = self._positional  # see native_entry
        self.target, bound = target_of(fn)
        self.bound = tuple(Static(v) for v in bound)
        self.signature = inspect.signature(fn)
        self.names = tuple(self.signature.parameters)
        self.has_aux = bool(has_aux)
        self.static = _static_names(static, self.names, getattr(fn, "__name__", "function"))
        self.static_scalars |= set(self.static)
        self.methods: dict[int, tuple[Any, Transformed]] = {}  # see __get__
        self.attribute: str | None = None  # the name of a method defined with @jit
        self.read_from: tuple | None = None  # (instance, attribute) this method was read as
        functools.update_wrapper(self, fn, updated=())  # keep our own __dict__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attribute = name

    def __get__(self, obj: Any, owner: type | None = None):
        """A transformed function defined in a class body is a method, as a `def` is: read
        on an instance, it is the transformation of the bound method, stored in the
        instance's `__dict__` under the attribute's name (as `functools.cached_property`
        does), so that its compilations are reused and live as long as the instance."""
        if obj is None:
            return self
        cached = self.methods.get(id(obj))
        if cached is not None and cached[0] is obj:
            return cached[1]
        wrt = self.wrt if self.multi else self.wrt[0]
        method = type(self)(self.fn.__get__(obj, owner), self.kind, wrt, self.backend,
                            self.checkpoint, **dict(self.options))
        if self.attribute is not None:
            method.read_from = (obj, self.attribute)  # how it pickles
        if self.attribute is not None and hasattr(obj, "__dict__"):
            obj.__dict__[self.attribute] = method
        else:  # no instance dict (__slots__): kept for the life of the transformation
            self.methods[id(obj)] = (obj, method)
        return method

    @property
    def compile_count(self) -> int:
        """How many signatures were compiled to native (or Python backend) code."""
        return sum(1 for key in list(self.cache) if key[:1] != ("ir",))

    def __reduce__(self):
        """Pickle the function and the transformation, never native state: a module-level
        `@jit def f` by name, a method defined with `@jit` read on an instance as that
        attribute of the instance, anything else by rebuilding it from (fn, kind, wrt,
        backend) once per process (`pickling.py`: functions another process cannot import go
        by value)."""
        if self.read_from is not None:  # a method defined with @jit, read on an instance
            return getattr, self.read_from
        if pickling.by_name(self.__module__, self.__qualname__) is self and \
                not pickling.by_value_preferred(self.__module__):
            return self.__qualname__
        wrt = self.wrt if self.multi else self.wrt[0]
        fn = pickling.shipped(self.fn, f"{self.kind}({getattr(self.fn, '__qualname__', '')})")
        return pickling.rebuild, (type(self), fn, self.kind, wrt, self.backend, self.checkpoint,
                                  self.options)

    @property
    def options(self) -> tuple[tuple[str, Any], ...]:
        """The keyword options given when made (`has_aux`, `static`) that differ from their
        defaults, as (name, value) pairs (hashable)."""
        given = (("has_aux", self.has_aux), ("static", self.static))
        return tuple((k, v) for k, v in given if v)

    # ---- binding a call ---------------------------------------------------------------------

    def bind(self, args: Sequence[Any], kwargs: dict) -> Call:
        """Bind a call (Python's TypeError for a wrong one), flatten its arguments and check
        the differentiated ones."""
        binding = arguments.bind(self.fn, tuple(args), kwargs, self.signature)
        where = {p: str(i) for i, (p, vi) in enumerate(binding.positions) if vi is None}
        targets = [] if self.kind == "jit" else [self._target(w, binding, len(args))
                                                 for w in self.wrt]
        differentiated = {p for p, _ in targets}
        trees, leaves, sources, given = [], [], [], []
        for p, (name, value) in enumerate(zip(binding.names, binding.values, strict=True)):
            if p < binding.n_bound:
                continue
            if name in self.static:
                _check_static(name, value, p in differentiated, self.target.__name__)
            static = name in self.static_scalars and p not in differentiated
            if (p, 0) in binding.positions:  # *args: each element named by its position
                start = binding.positions.index((p, 0))
                parts = [(flatten(v, str(start + i), static), ("a", start + i))
                         for i, v in enumerate(value)]
                tree = Node("tuple", tuple(t for (t, _), _ in parts))
            elif name == binding.var_keyword:  # **kwargs: each element a keyword argument
                parts = [(flatten(v, repr(k), static), ("k", k)) for k, v in value.items()]
                tree = Node("dict", tuple(t for (t, _), _ in parts), tuple(value))
            else:
                source = ("a", int(where[p])) if p in where else \
                    ("k", name) if name in kwargs else None
                parts = [(flatten(value, where.get(p, repr(name)), static), source)]
                tree = parts[0][0][0]
            trees.append(tree)
            for (t, flat), source in parts:
                leaves += flat
                given += [source is not None] * len(flat)
                # a leaf is the call's argument itself, or a constant (from a default)
                sources += [source if isinstance(t, Type) else None] if source else \
                    [("c", leaf) for leaf in flat]
        trees = self._promote(trees, targets, binding, where)
        plan = tuple(sources) if None not in sources and \
            len([s for s in sources if s[0] != "c"]) == len(args) + len(kwargs) else None
        return Call(tuple(trees), leaves, self._groups(trees, targets, binding.n_bound), plan,
                    tuple(given))

    def _target(self, w: int | str, binding: arguments.Binding, n_args: int) -> tuple:
        """(parameter index, index in *args or None) of the differentiated argument `w`:
        an int counts the call's positional arguments (then the parameters), a str names a
        parameter."""
        name = self.target.__name__
        user = binding.names[binding.n_bound:]
        if isinstance(w, str):
            if w not in user:
                raise TypeError(f"wrt={w!r} but {name}() has no parameter {w!r} (it has "
                                f"{', '.join(user)})")
            return binding.names.index(w), None
        if -n_args <= w < n_args:
            return binding.positions[w % n_args]
        if n_args <= w < len(user):
            return w + binding.n_bound, None
        raise TypeError(f"wrt={w} but {name} got {n_args} arguments")

    def _promote(self, trees: list, targets: list, binding, where: dict) -> list:
        """Differentiated arguments are floats (ints are taken as floats)."""
        for p, vi in targets:
            k = p - binding.n_bound
            if vi is None:
                trees[k] = differentiable(trees[k], where.get(p, repr(binding.names[p])))
            else:
                children = list(trees[k].children)
                children[vi] = differentiable(children[vi],
                                              str(binding.positions.index((p, vi))))
                trees[k] = Node("tuple", tuple(children))
        return trees

    @staticmethod
    def _groups(trees: list, targets: list, n_bound: int) -> tuple:
        """(first flat input position, tree) of each differentiated argument."""
        starts, k = [], 0
        for tree in trees:
            starts.append(k)
            k += len(leaf_types(tree))
        groups = []
        for p, vi in targets:
            tree, start = trees[p - n_bound], starts[p - n_bound]
            if vi is not None:
                start += sum(len(leaf_types(c)) for c in tree.children[:vi])
                tree = tree.children[vi]
            groups.append((start, tree))
        return tuple(groups)

    def _trees_targets(self, types: Sequence) -> tuple[list, list]:
        """For a signature given as types (one per parameter, the callable's own bound values
        left out): the trees, and the differentiated parameters (ints count parameters)."""
        if len(types) != len(self.names):
            raise TypeError(f"{self.target.__name__}() takes {len(self.names)} arguments but "
                            f"{len(types)} were given")
        n = len(self.bound)
        targets = [] if self.kind == "jit" else [
            (self.names.index(w) + n if isinstance(w, str) else
             self._target(w, _positional(self.names, n), len(types))[0], None)
            for w in self.wrt]
        trees = list(types)
        for p, _ in targets:
            trees[p - n] = differentiable(trees[p - n], str(p - n))
        return trees, targets

    # ---- compiling --------------------------------------------------------------------------

    @property
    def stages(self) -> tuple[str, ...]:
        return JIT if self.kind == "jit" else DIFFERENTIATE

    def compilation(self, trees: tuple, groups: tuple = (), effects: bool = True
                    ) -> Compilation:
        """What to compile for one signature. With `effects`, `jit`'s graph also returns the
        final values of the argument arrays the function writes (its result is a `Layout`
        instead of the result's tree)."""
        wrt = tuple(start + i for start, tree in groups for i in range(len(leaf_types(tree))))
        derivative = None if self.kind == "jit" else \
            Derivative(self.kind, wrt, self.checkpoint, self.has_aux)
        return Compilation(self.target, self.bound + tuple(trees), derivative,
                           effects and self.kind == "jit", self.backend)

    def graphs(self, types: Sequence, effects: bool = True) -> tuple[Graph, Graph, Any]:
        """(primal graph, transformed graph, result tree or `Layout`) for one signature given
        as types (one per parameter): the pipeline up to lowering."""
        trees, targets = self._trees_targets(types)
        c = self.compilation(tuple(trees), self._groups(trees, targets, len(self.bound)),
                             effects)
        c = pipeline.run(c, self.stages[:-1])
        return c.primal, c.graph, c.result

    def ir_for(self, types: Sequence) -> tuple[Graph, Tree]:
        """The optimised graph of this transformation for parameter types `types` (used to
        inline it into other compiled code, or to transform it again: grad of grad), and the
        tree of what it returns (gradients have their arguments' structure). Inputs and
        outputs are flat (the leaves of structured arguments and results)."""
        if self.has_aux:
            raise TypeError(f"{self.kind}({self.target.__name__}, has_aux=True) cannot be "
                            "called from compiled code or transformed again; call it from "
                            "Python, or return the output alone")
        trees, targets = self._trees_targets(types)
        groups = self._groups(trees, targets, len(self.bound))
        key = ("ir",) + tuple(trees) + (groups,)
        graph, tree = once(self.cache, key, lambda: self._graph(tuple(trees), groups))
        if not externals.holds(externals.of(graph)):  # a value it reads has changed
            graph, tree = self.cache[key] = self._graph(tuple(trees), groups)
        return graph, retyped(self._returned(tree, groups, graph), [a.type for a in
                                                                    graph.outputs])

    def _returned(self, tree: Tree, groups: tuple, graph: Graph) -> Tree:
        """The tree of what the transformation returns for a function returning `tree`."""
        if self.kind == "jit":
            return tree
        if self.kind not in ("grad", "value_and_grad"):  # flat outputs
            types = tuple(a.type for a in graph.outputs)
            return types[0] if len(types) == 1 else Node("tuple", types)
        grads = tuple(t for _, t in groups)
        gradient = Node("tuple", grads) if self.multi else grads[0]
        return Node("tuple", (graph.outputs[0].type, gradient)) \
            if self.kind == "value_and_grad" else gradient

    def _graph(self, trees: tuple, groups: tuple):
        c = pipeline.run(self.compilation(trees, groups, effects=False), self.stages[:-1])
        return c.graph, c.result

    def compiled(self, trees: tuple, groups: tuple = ()):
        """(run, result tree or `Layout`) for one signature; `run(*leaves)` returns a tuple."""
        return once(self.cache, (trees, groups), lambda: self._compile(trees, groups))

    def _compile(self, trees: tuple, groups: tuple):
        c = pipeline.run(self.compilation(trees, groups), self.stages)
        return c.code, c.result

    # ---- calling ----------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any):
        try:
            if kwargs:
                return self._call(args, kwargs)
            return self._fast(*args)
        except Exception as error:  # the user's frames only (tracebacks.py)
            hide_frames(error)
            raise

    def _positional(self, *args: Any):
        """A positional call that the generated entry point in `_fast` did not take."""
        fast = self.dispatch.get(_dispatch_key(args))
        if fast is not None:
            return fast(*args)
        return self.structured(*args)

    def _bind_positional(self, *args: Any):
        return self._prepare(args, {})

    def _call(self, args: tuple, kwargs: dict):
        fast = self.dispatch.get(_dispatch_key(args, kwargs))
        if fast is not None:
            return fast(*args, **kwargs)
        return self._prepare(args, kwargs)

    def _prepare(self, args: Sequence[Any], kwargs: dict):
        """Bind and validate a call, compile its signature (again with the int parameters
        the function needs as compile-time values, see `arguments.NeedStatic`) and run it.
        Calls whose arguments are each one number or array cache their entry point by
        argument types (and keywords) for the next ones; positional calls of every
        parameter with tuples, lists and dicts of numbers and arrays, by their structure
        (`structured_calls`: generated checks read their leaves without binding the call;
        up to MAX_STRUCTURES per transformation, the latest tried first)."""
        call, entry = _bound(self, args, kwargs, self.entry)
        if call.plan is not None:
            self.dispatch[_dispatch_key(args, kwargs)] = _planned(entry, call.plan)
            if _positional_plan(call.plan, len(args)) and not kwargs:
                self._fast = self.native_entry(call) or self._fast
        elif not kwargs and len(args) == len(call.trees) == len(self.names) and \
                all(call.given) and not any(has_static(t) for t in call.trees) and \
                self._plain_parameters():
            fast = structured_entry(args, entry, self.structured) \
                if self.n_structures < MAX_STRUCTURES else None
            if fast is not None:
                self.structured = self._fast = fast
                self.n_structures += 1
        return entry(*call.leaves)

    def _plain_parameters(self) -> bool:
        """Every parameter is positional (no *args, **kwargs or keyword-only ones)."""
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return all(p.kind in kinds for p in self.signature.parameters.values())

    def _specialise(self, e: NeedStatic, call: Call) -> None:
        """Make the scalar parameters `e` names compile-time values, or raise its error."""
        names = self.names[:len(call.trees)]
        scalars = {n for n, t in zip(names, call.trees, strict=True)
                if {I64, BOOL, F64} & set(leaf_types(t)) and n not in self.static_scalars}
        differentiated = set() if self.kind == "jit" else {
            w if isinstance(w, str) else names[w] for w in self.wrt
            if isinstance(w, str) or -len(names) <= w < len(names)}
        wanted = (e.names & scalars) - differentiated
        if not wanted:
            raise e.error
        self.static_scalars |= wanted
        log.specialised(self.target, wanted, e.error)

    def native_entry(self, call: Call) -> Callable | None:
        """The generated entry point of the native code compiled for the signature of `call`
        when it is the whole of `entry(call)` (no arrays written back, results as compiled),
        behind the guards of the values the code reads from outside if any: it takes exactly
        the arguments of this signature and calls `_positional` with any others (see
        pywrapper; also when a guard fails). None otherwise."""
        if self.has_aux:  # the auxiliary data is shaped in Python
            return None
        run, result = self.compiled(call.trees, call.groups)
        reads = getattr(run, "reads", ())  # code fetching values read from outside
        native = native_of(run.code if reads else run)
        if native is None:
            return None
        if isinstance(result, Layout):
            plain = not result.written and not any(r is not None for r in result.returned)
            single, flat = _flat_result(result.tree)
            plain = plain and flat
        elif self.kind == "jit":  # of a transformation (vmap): its result's tree
            single, plain = _flat_result(result)
        else:
            single = self.kind == "grad" and not self.multi
            plain = all(isinstance(t, Type) for _, t in call.groups) and not (
                self.kind == "value_and_grad" and self.multi)
        if not plain or single != (len(native.out_types) == 1):
            return None
        if not reads:
            return native.strict_entry(self._positional)
        n = len(call.leaves)
        strict = native.strict_entry(lambda *leaves: self._positional(*leaves[:n]))
        return externals.guarded(strict, reads, lambda args: self._positional(*args))

    def entry(self, call: Call) -> Callable:
        """The entry point for the signature of `call`, taking its runtime leaves and
        returning what the Python function (or the transformation) returns."""
        run, result = self.compiled(call.trees, call.groups)
        if isinstance(result, Layout):
            return _jit_entry(run, result, self.backend)
        if self.kind == "jit":
            return _shaper(run, result)
        shapes = [tree for _, tree in call.groups]
        if all(isinstance(t, Type) for t in shapes) and not self.has_aux:
            if self.kind == "value_and_grad" and self.multi:
                def fast(*a):
                    values = run(*a)
                    return values[0], values[1:]
                return fast
            if self.kind == "value_and_grad":
                return run  # (value, gradient) already
            return run if self.multi else (lambda *a: run(*a)[0])
        first = 1 if self.kind == "value_and_grad" else 0
        aux_tree = result.children[1] if self.has_aux else None
        if not first and not self.multi and not self.has_aux:
            build = builder(shapes[0])
            return lambda *a: build(run(*a))

        def structured(*a):
            values, aux = split_aux(run(*a), aux_tree)
            values = iter(values)
            value = next(values) if first else None
            grads = tuple(unflatten(t, values) for t in shapes)
            grads = grads if self.multi else grads[0]
            if self.has_aux:
                return ((value, aux), grads) if first else (grads, aux)
            return (value, grads) if first else grads

        return structured


def split_aux(values: Sequence, aux_tree: Tree | None) -> tuple[Sequence, Any]:
    """(the derivative's outputs, the auxiliary data shaped as `aux_tree`) of a compiled
    derivative's outputs (the auxiliary data's leaves come last); (values, None) without."""
    if aux_tree is None:
        return values, None
    n = len(values) - len(leaf_types(aux_tree))
    return values[:n], unflatten(aux_tree, values[n:])


def _static_names(static: Sequence[int | str], names: tuple, fn_name: str) -> tuple[str, ...]:
    """The parameter names `static_argnums` / `static_argnames` give (positions count the
    parameters, as JAX's do)."""
    found = []
    for s in (static,) if isinstance(static, int | str) else static:
        if isinstance(s, str):
            if s not in names:
                raise ValueError(f"static argument {s!r}: {fn_name}() has no parameter {s!r} "
                                 f"(it has {', '.join(names)})")
            found.append(s)
        elif -len(names) <= s < len(names):
            found.append(names[s])
        else:
            raise ValueError(f"static_argnums={s}: {fn_name}() takes {len(names)} "
                             "positional arguments")
    return tuple(dict.fromkeys(found))


def _check_static(name: str, value: Any, differentiated: bool, fn_name: str) -> None:
    """A static argument is a compile-time value: hashable, never differentiated."""
    if differentiated:
        raise TypeError(f"{fn_name}(): argument {name!r} is static (static_argnums / "
                        "static_argnames) and cannot be differentiated")
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"{fn_name}(): static argument {name!r} must be hashable (a number, "
                        f"a string, a tuple of them), got {type(value).__name__}; pass arrays "
                        "as ordinary arguments") from None


def wrt_or_argnums(wrt: int | str | tuple, argnums: int | str | Sequence | None
                   ) -> int | str | tuple:
    """`argnums` (JAX's name) or `wrt`: one of them."""
    if argnums is None:
        return wrt
    if wrt != 0:
        raise TypeError("give wrt= or argnums= (JAX's name for it), not both")
    return argnums if isinstance(argnums, int | str) else tuple(argnums)


def _flat_result(tree: Tree) -> tuple[bool, bool]:
    """(one value, returned as compiled code returns it: a value or a plain tuple of them)."""
    single = isinstance(tree, Type)
    return single, single or isinstance(tree, Node) and tree.kind == "tuple" and \
        tree.named is None and all(isinstance(t, Type) for t in tree.children)


def _positional(names: tuple, n_bound: int) -> arguments.Binding:
    """A binding of positional arguments only (for signatures given as types)."""
    return arguments.Binding(None, (None,) * n_bound + names, (), n_bound,
                             tuple((p + n_bound, None) for p in range(len(names))), None)


def _shaper(run: Callable, tree: Tree) -> Callable:
    """`run` returning the result's structure instead of its flat leaves."""
    single, flat = _flat_result(tree)
    if single:
        return lambda *a: run(*a)[0]
    if flat:
        return run
    build = builder(tree)
    return lambda *a: build(run(*a))


def _jit_entry(run: Callable, program: Layout, backend: str) -> Callable:
    """The entry point of `jit`: runs the code, writes the final values of the argument
    arrays the function writes into back into the caller's arrays (np.copyto, any memory
    layout), and returns the caller's very array where the function returns an argument."""
    n, written, returned = program.n_results, program.written, program.returned
    simple = not written and not any(r is not None for r in returned) and backend != "python"
    if simple:
        return _shaper(run, program.tree)
    keys = [None if source is None or source[1] is None else view_key(source[1])
            for source in returned]  # the numpy index of each returned view

    def fast(*args):
        for i in written:
            for j, other in enumerate(args):
                if j != i and isinstance(other, np.ndarray) and \
                        np.may_share_memory(args[i], other) and np.shares_memory(args[i], other):
                    raise ValueError(f"arguments {i} and {j} share memory and "
                                     f"{program.name} writes into argument {i}; "
                                     "compiled code cannot follow that: pass a copy")
        values = run(*args)
        for i, final in zip(written, values[n:], strict=True):
            np.copyto(args[i], final)
        results = []
        for value, source, key in zip(values[:n], returned, keys, strict=True):
            if source is not None:
                value = args[source[0]] if key is None else args[source[0]][key]
            elif isinstance(value, np.ndarray) and any(
                    isinstance(a, np.ndarray) and np.may_share_memory(value, a) for a in args):
                value = value.copy()  # a new array, as in Python (the Python backend may
                # hand back an argument's buffer)
            results.append(value)
        return unflatten(program.tree, results)

    return fast


def _dispatch_key(args: tuple, kwargs: dict | None = None) -> tuple:
    """Argument types, plus shape and dtype for arrays, and keywords (what selects a
    specialisation when every argument is one number or array)."""
    key = tuple((a.shape, a.dtype) if isinstance(a, np.ndarray) else type(a) for a in args)
    if kwargs:
        key += tuple((k, (a.shape, a.dtype) if isinstance(a, np.ndarray) else type(a))
                     for k, a in kwargs.items())
    return key


def _positional_plan(plan: tuple, n_args: int) -> bool:
    """Whether the leaves of `plan` are the call's `n_args` positional arguments, in order."""
    return len(plan) == n_args and all(kind == "a" and value == i
                                       for i, (kind, value) in enumerate(plan))


def _planned(entry: Callable, plan: tuple) -> Callable:
    """`entry` called with the leaves `plan` takes from a call's arguments (the arguments
    themselves when they are all positional and no default is used)."""
    if _positional_plan(plan, len(plan)):
        return entry

    def fast(*args, **kwargs):
        return entry(*[args[v] if kind == "a" else kwargs[v] if kind == "k" else v
                       for kind, v in plan])

    return fast


StaticSpec = Sequence[int | str] | int | str


def jit(fn: Callable | None = None, *, static_argnums: StaticSpec = (),
        static_argnames: StaticSpec = (), backend: str = "llvm"):
    """Compile `fn` (usable as `@jit` or `@jit(backend=...)`). `static_argnums` (positions)
    and `static_argnames` (names) make those parameters compile-time values, as in JAX: one
    compilation per distinct (hashable) value."""
    static = _static_list(static_argnums) + _static_list(static_argnames)
    if fn is None:
        return lambda f: Transformed(f, "jit", backend=backend, static=static)
    return Transformed(fn, "jit", backend=backend, static=static)


def _static_list(static: StaticSpec) -> list:
    return [static] if isinstance(static, int | str) else list(static)


def grad(fn: Callable | None = None, wrt: int | str | tuple = 0, *, argnums=None,
         has_aux: bool = False, static_argnums: StaticSpec = (), static_argnames: StaticSpec = (),
         backend: str = "llvm", checkpoint: object = None):
    """Gradient of a float-valued `fn` w.r.t. argument(s) `wrt` (reverse mode). `argnums` is
    JAX's name for `wrt`. With `has_aux`, `fn` returns `(output, aux)` and the gradient's
    call returns `(gradient, aux)`. `static_argnums` / `static_argnames` as for `jit`.
    `checkpoint` bounds the tapes of loops: None (automatic, `ADLITE_TAPE_BUDGET`), False
    (never), a budget such as "64MB", or an int k (a snapshot every k steps); see
    `ad.checkpoint`."""
    def make(f: Callable) -> Transformed:
        return Transformed(f, "grad", wrt_or_argnums(wrt, argnums), backend, checkpoint,
                           has_aux=has_aux,
                           static=_static_list(static_argnums) + _static_list(static_argnames))
    return make if fn is None else make(fn)


def value_and_grad(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None,
                   has_aux: bool = False, static_argnums: StaticSpec = (),
                   static_argnames: StaticSpec = (), backend: str = "llvm",
                   checkpoint: object = None):
    """Like `grad`, returning `(value, gradient)` (with `has_aux`: `((value, aux),
    gradient)`, as JAX does)."""
    return Transformed(fn, "value_and_grad", wrt_or_argnums(wrt, argnums), backend, checkpoint,
                       has_aux=has_aux,
                       static=_static_list(static_argnums) + _static_list(static_argnames))


_EXTENDED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _compile_extended(fn, types, derivative: Derivative):
    """(primal graph, compiled derivative, result tree), cached per function, argument
    types and derivative like the other transformations."""
    def build():
        c = pipeline.run(Compilation(fn, types, derivative), DIFFERENTIATE)
        return c.primal, c.code, c.result

    per_fn = _EXTENDED.setdefault(fn, {})
    key = (derivative, types)
    return once(per_fn, key, build)


def _bound(t: Transformed, args: Sequence[Any], kwargs: dict, build: Callable):
    """(call, build(call)) for a call of `t`, compiling again with the int parameters the
    function needs as compile-time values (`NeedStatic`)."""
    while True:
        call = t.bind(args, kwargs)
        try:
            return call, build(call)
        except NeedStatic as e:
            t._specialise(e, call)


def _extended(fn: Callable, primals: Sequence[Any], mode: str, checkpoint: object = None,
              has_aux: bool = False):
    """(call, primal graph, run, result tree, float input positions) of vjp/jvp of `fn` at
    `primals`: derivatives w.r.t. the float leaves of the primals given (defaults are
    constants)."""
    t = Transformed(fn, "jit")

    def build(call: Call):
        types = [t for tree in call.trees for t in leaf_types(tree)]
        floats = tuple(i for i, t in enumerate(types) if t.is_float and call.given[i])
        derivative = Derivative(mode, floats if mode == "jvp" else None, checkpoint, has_aux)
        return _compile_extended(t.target, t.bound + call.trees, derivative) + (
            [k for k, i in enumerate(i for i, t in enumerate(types) if t.is_float)
             if i in floats],)

    call, (primal, run, tree, floats) = _bound(t, primals, {}, build)
    return call, primal, run, tree, floats


def _zero_like(t: Type):
    return np.zeros(t.shape, dtype=np.float32 if t.name == "f32" else np.float64) \
        if t.is_array else 0.0


def _outputs(tree: Tree, values: Sequence) -> Any:
    """Output values (or tangents of float outputs, all outputs being floats) shaped like the
    function's result; a flat tuple when some outputs are not floats."""
    if len(values) == len(leaf_types(tree)):
        return unflatten(tree, values)
    return tuple(values)


def output_and_aux(tree: Tree, has_aux: bool) -> tuple[Tree, Tree | None]:
    """(the output's tree, the auxiliary data's tree or None) of a function's result."""
    return tuple(tree.children) if has_aux else (tree, None)


@boundary
def vjp(fn: Callable, *primals: Any, has_aux: bool = False, checkpoint: object = None):
    """`(outputs, pullback)`: `pullback(*cotangents)` takes one cotangent per float output
    leaf and gives the cotangents of the float leaves of `primals` (flat, in argument order;
    defaults are constants). With `has_aux`, `fn` returns `(output, aux)` and `vjp` returns
    `(outputs, pullback, aux)` (JAX's). `checkpoint` as for `grad`."""
    if checkpoint is not None:
        checkpoint_policy(checkpoint)
    call, primal, run, tree, floats = _extended(fn, primals, "vjp", checkpoint, has_aux)
    tree, aux_tree = output_and_aux(tree, has_aux)
    n_out = len(leaf_types(tree))
    float_outs = [a.type for a in primal.outputs[:n_out] if a.type.is_float]
    values, aux = split_aux(run(*call.leaves, *(_zero_like(t) for t in float_outs)), aux_tree)

    @boundary
    def pullback(*cotangents: Any):
        if len(cotangents) != len(float_outs):
            raise TypeError(f"pullback takes {len(float_outs)} cotangent(s), got "
                            f"{len(cotangents)}")
        bars = split_aux(run(*call.leaves, *cotangents), aux_tree)[0][n_out:]
        return tuple(bars[k] for k in floats)

    outputs = _outputs(tree, values[:n_out])
    return (outputs, pullback, aux) if has_aux else (outputs, pullback)


@boundary
def jvp(fn: Callable, primals: Sequence[Any], tangents: Sequence[Any], *,
        has_aux: bool = False):
    """`(outputs, output tangents)` of `fn` at `primals` along `tangents` (forward mode): one
    tangent per float leaf of `primals` (flat, in argument order; defaults are constants);
    outputs and their tangents are shaped like the function's result. With `has_aux`, `fn`
    returns `(output, aux)` and `jvp` returns `(outputs, output tangents, aux)` (JAX's)."""
    call, primal, run, tree, floats = _extended(fn, primals, "jvp", has_aux=has_aux)
    if len(tangents) != len(floats):
        raise TypeError(f"jvp needs one tangent per float argument ({len(floats)}), got "
                        f"{len(tangents)}")
    tree, aux_tree = output_and_aux(tree, has_aux)
    values, aux = split_aux(run(*call.leaves, *tangents), aux_tree)
    n_out = len(leaf_types(tree))
    outputs = _outputs(tree, values[:n_out]), _outputs(tree, values[n_out:])
    return (*outputs, aux) if has_aux else outputs


STAGES = tuple(pipeline.STAGES)
ALIASES = {  # the names `show` had before the pipeline: (stage, grad, render)
    "ir": ("frontend", False, "ir"), "optimized": ("optimize", False, "ir"),
    "adjoint": ("optimize", True, "ir"), "python": ("lower", False, "python"),
    "python-grad": ("lower", True, "python"), "llvm": ("lower", False, "llvm"),
    "llvm-grad": ("lower", True, "llvm"), "dot": ("optimize", False, "dot"),
    "dot-grad": ("optimize", True, "dot")}


def show(fn: Callable, stage: str = "frontend", types: Sequence[Type] | None = None, *,
         grad: bool = False, backend: str = "llvm", dot: bool = False,
         checkpoint: Any = None) -> str:
    """The code of `fn` after pipeline stage `stage` (the last one of that name) of `jit`, or
    of `grad` (w.r.t. argument 0, with `grad`'s `checkpoint` option) with `grad=True` or
    `stage="ad"`: the IR (as Graphviz with `dot`), and after `lower` the code for `backend`
    (LLVM IR, or Python source). The default signature is every argument f64. The names of
    ALIASES are accepted too."""
    if stage in ALIASES:
        stage, grad, render = ALIASES[stage]
        backend = render if render in ("llvm", "python") else backend
        dot = render == "dot"
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; choose one of "
                         f"{', '.join(STAGES + tuple(ALIASES))}")
    if types is None:
        types = [F64] * len(inspect.signature(fn).parameters)
    transformed = Transformed(fn, "grad" if grad or stage == "ad" else "jit", backend=backend,
                              checkpoint=checkpoint)
    trees, targets = transformed._trees_targets(types)
    c = transformed.compilation(tuple(trees), transformed._groups(trees, targets,
                                                                  len(transformed.bound)))
    try:
        pipeline.run(c, pipeline.through(transformed.stages[:-1], stage if stage != "lower"
                                         else "optimize"))
    except NeedStatic as e:  # types alone give no values to specialise on
        raise e.error from None
    if stage == "lower":
        return pipeline.lowered_text(c, backend)
    return graph_to_dot(c.graph) if dot else print_graph(c.graph)


__all__ = ["grad", "jit", "jvp", "show", "value_and_grad", "vjp"]
