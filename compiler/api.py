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
  values used only at run time (loop counts) stay runtime values. A differentiated one (grad,
  value_and_grad, vjp, jvp, hessian) is specialised the same way but stays a run-time input
  (`arguments.Known`): its arithmetic is differentiated, and the values computed from it
  that compiling needs (sizes, trip counts, tests: `frontend/known_values.py`) are constants
  of its compilation, of derivative 0 (piecewise constant in it).
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
    Known,
    NeedStatic,
    Node,
    SizesSpecialised,
    Static,
    Tree,
    arg_type,  # noqa: F401 - part of this module's interface (tests, tools)
    cotangents,
    differentiable,
    dynamic_trees,
    flatten,
    has_complex,
    has_sizes,
    has_static,
    joined_complex,
    leaf_types,
    part_kinds,
    retyped,
    split_complex,
    target_of,
    type_tree,
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
from .structured_calls import FIRST, builder, finishing, structured_entry
from .tracebacks import boundary, hide_frames
from .transformation import transformer

BACKENDS = ("llvm", "python")
SHAPES = ("static", "dynamic")
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
    """A compiled transformation of `fn`, specialised and cached per argument signature.

    What [`jit`][adlite.compiler.jit], [`grad`][adlite.compiler.grad],
    [`value_and_grad`][adlite.compiler.value_and_grad] and the Jacobians return: called
    like `fn` (positional and keyword arguments, defaults, `*args`, `**kwargs`, bound as
    Python binds them), it compiles the transformation at the first call of each argument
    signature and runs the cached code afterwards. `compile_count` tells how many signatures
    were compiled. Defined in a class body, it is a method: read on an instance, it is the
    transformation of the bound method, kept in the instance's `__dict__` (so its
    compilations live as long as the instance). It pickles as the function and the
    transformation, never as native code (the receiving process compiles again or loads the
    code from the disk cache).

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import grad, jit
        >>> def f(x):
        ...     return np.sum(x * x)
        >>> df = grad(f)
        >>> df(np.array([1.0, 2.0])), df(np.array([3.0, 4.0])), df.compile_count
        (array([2., 4.]), array([6., 8.]), 1)
        >>> df(np.ones(3)), df.compile_count  # a new shape: a new signature
        (array([2., 2., 2.]), 2)
        >>> class Model:
        ...     def __init__(self, scale):
        ...         self.scale = scale
        ...     @jit
        ...     def predict(self, x):
        ...         return self.scale * x
        >>> Model(2.0).predict(np.array([1.0, 2.0]))
        array([2., 4.])
    """

    def __init__(self, fn: Callable, kind: str, wrt: int | str | tuple = 0,
                 backend: str = "llvm", checkpoint: object = None, *, has_aux: bool = False,
                 static: Sequence[int | str] = (), shapes: str = "static",
                 holomorphic: bool = False) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; choose one of {BACKENDS}")
        if shapes not in SHAPES:
            raise ValueError(f"unknown shapes {shapes!r}; choose one of {SHAPES}")
        self.shapes = shapes
        # signatures with run-time sizes that compile per shape instead: why (see `compiled`)
        self.sizes_refused: dict[tuple, Exception] = {}
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
        self.known_floats = False  # float parameters are differentiated (vjp, jvp): `Known`
        self._fast: Callable = self._positional  # see native_entry
        self.target, bound = target_of(fn)
        self.bound = tuple(Static(v) for v in bound)
        self.signature = inspect.signature(fn)
        self.names = tuple(self.signature.parameters)
        self.has_aux = bool(has_aux)
        self.holomorphic = bool(holomorphic)
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
        return sum(1 for key in list(self.cache) if key[0] not in ("ir", "sizes refused"))

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
        given = (("has_aux", self.has_aux), ("static", self.static),
                 ("shapes", self.shapes if self.shapes != "static" else None))
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
            # specialised per value: compile-time, or Known where differentiated
            known = name in self.static_scalars and (p in differentiated or self.known_floats
                                                     and isinstance(value, float | np.floating))
            static = name in self.static_scalars and not known
            if (p, 0) in binding.positions:  # *args: each element named by its position
                start = binding.positions.index((p, 0))
                parts = [(flatten(v, str(start + i), static, known), ("a", start + i))
                         for i, v in enumerate(value)]
                tree = Node("tuple", tuple(t for (t, _), _ in parts))
            elif name == binding.var_keyword:  # **kwargs: each element a keyword argument
                parts = [(flatten(v, repr(k), static, known), ("k", k))
                         for k, v in value.items()]
                tree = Node("dict", tuple(t for (t, _), _ in parts), tuple(value))
            else:
                source = ("a", int(where[p])) if p in where else \
                    ("k", name) if name in kwargs else None
                parts = [(flatten(value, where.get(p, repr(name)), static, known), source)]
                tree = parts[0][0][0]
            trees.append(tree)
            for (t, flat), source in parts:
                leaves += flat
                given += [source is not None] * len(flat)
                # a leaf is the call's argument itself, or a constant (from a default)
                sources += [source if isinstance(t, Type) and not isinstance(t, Known) else
                            None] if source else \
                    [("c", leaf) for leaf in flat]
        trees = self._promote(trees, targets, binding, where)
        if self.shapes == "dynamic":
            symbolic = dynamic_trees(trees)
            if symbolic not in self.sizes_refused:
                trees = list(symbolic)
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
        trees = [type_tree(t) for t in types]
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
        if self.holomorphic and not all(has_complex(tree) for _, tree in groups):
            raise TypeError(f"{self.kind}(holomorphic=True) requires complex arguments (JAX's "
                            "rule): pass x + 0j, or drop holomorphic=True")
        derivative = None if self.kind == "jit" else \
            Derivative(self.kind, wrt, self.checkpoint, self.has_aux, self.holomorphic)
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
        if not externals.holds(graph.externals.reads):  # a value it reads has changed
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
        grads = tuple(cotangents(t) for _, t in groups)
        gradient = Node("tuple", grads) if self.multi else grads[0]
        return Node("tuple", (graph.outputs[0].type, gradient)) \
            if self.kind == "value_and_grad" else gradient

    def _graph(self, trees: tuple, groups: tuple):
        c = pipeline.run(self.compilation(trees, groups, effects=False), self.stages[:-1])
        return c.graph, c.result

    def compiled(self, trees: tuple, groups: tuple = ()):
        """(run, result tree or `Layout`) for one signature; `run(*leaves)` returns a tuple.
        A signature with run-time sizes (`shapes="dynamic"`) whose compilation fails for
        any reason is recorded in `sizes_refused` (and logged), and `SizesSpecialised` tells
        the caller to bind the call again: it then compiles for the call's shapes, where
        any error is the user's to see."""
        try:
            return compile_sized(self.cache, (trees, groups), trees, self.target,
                                 lambda: self._compile(trees, groups))
        except SizesSpecialised as signal:
            self.sizes_refused[trees] = signal.__cause__
            raise

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
        """Specialise the scalar parameters `e` names on their values (compile-time values,
        or `Known` numbers where differentiated: see `bind`), or raise its error."""
        names = self.names[:len(call.trees)]
        scalars = {n for n, t in zip(names, call.trees, strict=True)
                if {I64, BOOL, F64} & set(leaf_types(t)) and n not in self.static_scalars}
        wanted = e.names & scalars
        if not wanted:
            raise e.error
        self.static_scalars |= wanted
        differentiated = set() if self.kind == "jit" else {
            w if isinstance(w, str) else names[w] for w in self.wrt
            if isinstance(w, str) or -len(names) <= w < len(names)}
        log.specialised(self.target, wanted, e.error, wanted & differentiated)

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
        shapes = [cotangents(tree) for _, tree in call.groups]
        if all(isinstance(t, Type) for t in shapes) and not self.has_aux:
            if self.kind == "value_and_grad" and self.multi:
                def fast(*a):
                    values = run(*a)
                    return values[0], values[1:]
                return fast
            if self.kind == "value_and_grad":
                return run  # (value, gradient) already
            return run if self.multi else finishing(run, FIRST)
        first = 1 if self.kind == "value_and_grad" else 0
        aux_tree = result.children[1] if self.has_aux else None
        if not first and not self.multi and not self.has_aux:
            return finishing(run, builder(shapes[0]))

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
        return finishing(run, FIRST)
    if flat:
        return run
    return finishing(run, builder(tree))


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


@transformer
def jit(fn: Callable | None = None, *, static_argnums: StaticSpec = (),
        static_argnames: StaticSpec = (), backend: str = "llvm", shapes: str = "static"):
    """Compile a Python function to native code, once per call signature.

    `jit(f)` returns a callable that is called exactly like `f` and returns what `f` returns.
    Unlike JAX's `jit`, nothing is traced: adlite compiles `f` from its *source* (found by
    `inspect.getsource`: a function defined in a file or a doctest, not at the plain Python
    prompt; the guide's section "Supported Python in compiled functions" lists what
    compiles), so Python control flow on run-time values (`if`, `for`, `while` with a
    data-dependent trip count, `break`, early `return`) is compiled as it stands.

    Compilation happens at the first call of each *signature*: the structure of the
    arguments (tuples, lists and dicts, nested), the types of their numbers, the dtypes and
    shapes of their arrays, and the compile-time values. The code is cached per signature
    (and in the disk cache, across processes), so later calls with the same signature run
    it without compiling again; `compile_count` tells how many signatures were compiled.

    - Floats, ints and bools are run-time values. One the code needs while compiling (an
      array length `np.zeros(n)`, a shape, a slice bound, the trip count of a loop that must
      be unrolled) is specialised on its value automatically: one compilation per value.
    - Strings, None, functions, modules and other objects are compile-time values, by value
      (`str`, `bytes`, None) or by identity; `static_argnums` / `static_argnames` make any
      hashable parameter one, as in JAX.
    - Module-level and closed-over values and object attributes the function reads are read
      at every call, never stale: a change that needs other code compiles again.
    - Arrays are shared as in numpy: writes into an argument array (`x[i] = ...`, `x *= k`)
      land in the caller's array, and a returned argument is the caller's very array.
    - The result pickles as the function and its options, never as native code.

    Args:
        fn: The function to compile: a function, a bound method, a `staticmethod` or a
            `classmethod` (`self` / `cls` is a compile-time value). Omitted, `jit(...)`
            returns a decorator (`@jit(static_argnames="kind")`).
        static_argnums: Positions of the parameters (counting the parameters, as JAX does)
            that are compile-time values: one compilation per distinct hashable value.
        static_argnames: Names of the parameters that are compile-time values.
        backend: `"llvm"` (native code) or `"python"` (the readable Python the compiler
            prints, run by the interpreter: the reference implementation).
        shapes: `"static"` (one compilation per array shape) or `"dynamic"`: array sizes
            of 8 or more are run-time values, so calls with arrays of other sizes but the
            same ranks, dtypes and pattern of sizes (the sizes below 8, which sizes are
            equal) share one compilation. Code that needs a size's value when compiling
            (`x[:10]`, a reshape to a constant shape) compiles per shape instead (logged
            on `adlite.compile`).

    Returns:
        A [`Transformed`][adlite.compiler.api.Transformed] called like `fn`; without `fn`,
        a decorator that makes one.

    Raises:
        ValueError: When made, for an unknown `backend` or a static name that is no
            parameter of `fn`.
        AdliteSyntaxError: At the first call of a signature, for code adlite cannot compile
            (with the file, line and column, a caret under the construct and a hint).
        AdliteSourceError: At the first call, when `fn`'s source cannot be found.
        TypeError: At a call Python would refuse (with Python's message), or for a static
            argument that is not hashable.

    Examples:
        A `while` loop whose trip count depends on the argument:

        >>> from adlite.compiler import jit
        >>> @jit
        ... def collatz_steps(n):
        ...     steps = 0
        ...     while n != 1:
        ...         n = n // 2 if n % 2 == 0 else 3 * n + 1
        ...         steps += 1
        ...     return steps
        >>> collatz_steps(27), collatz_steps(97), collatz_steps.compile_count
        (111, 118, 1)

        An array length is specialised on its value; writes reach the caller's array:

        >>> import numpy as np
        >>> @jit
        ... def head_sum(x, n):
        ...     return np.sum(x[:n])
        >>> head_sum(np.arange(5.0), 2), head_sum(np.arange(5.0), 3), head_sum.compile_count
        (1.0, 3.0, 2)
        >>> @jit
        ... def scale_(x, k):
        ...     x *= k
        >>> a = np.array([1.0, 2.0])
        >>> scale_(a, 3.0)
        >>> a
        array([3., 6.])

        A static argument, as JAX's:

        >>> def power(x, p):
        ...     return x ** p
        >>> power_jit = jit(power, static_argnums=1)
        >>> power_jit(2.0, 3), power_jit(2.0, 10), power_jit.compile_count
        (8.0, 1024.0, 2)

        One compilation for every length:

        >>> norm = jit(lambda x: np.sqrt(np.sum(x * x)), shapes="dynamic")
        >>> norm(np.ones(16)), norm(np.ones(25)), norm.compile_count
        (4.0, 5.0, 1)
    """
    static = _static_list(static_argnums) + _static_list(static_argnames)
    if fn is None:
        return lambda f: Transformed(f, "jit", backend=backend, static=static, shapes=shapes)
    return Transformed(fn, "jit", backend=backend, static=static, shapes=shapes)


def _static_list(static: StaticSpec) -> list:
    return [static] if isinstance(static, int | str) else list(static)


@transformer
def grad(fn: Callable | None = None, wrt: int | str | tuple = 0, *, argnums=None,
         has_aux: bool = False, static_argnums: StaticSpec = (), static_argnames: StaticSpec = (),
         backend: str = "llvm", checkpoint: object = None, shapes: str = "static",
         holomorphic: bool = False):
    """Compile the gradient of a function with one float result (reverse mode).

    `grad(f)` returns a callable that is called like `f` and returns the derivative of `f`'s
    result with respect to argument `wrt`, computed by adjoint code the compiler generates
    from `f`'s source (see [`jit`][adlite.compiler.jit] for what compiles, how calls are
    bound, and the compilation per call signature, cached: `compile_count`). Loops of any
    trip count are differentiated by reversing them over a tape of the values they
    computed; `checkpoint` bounds that tape's memory.

    - The gradient has the structure of the argument: a float for a number, an array of its
      shape for an array, a dict of arrays for a dict of arrays (JAX's pytrees).
    - An int argument that is differentiated is taken as a float; int and bool arrays are
      data (labels, indices, masks) and are never differentiated.
    - Values the function reads from outside its arguments (module-level or closed-over
      arrays, attributes) are constants: only the arguments get derivatives.
    - Differentiating never modifies the caller's arrays, even when `f` writes into them.
    - Transformations compose to any order and may be called from compiled code:
      `grad(grad(f))`, `jit` of a function calling `grad(f)`, `vmap(grad(f))`.

    Args:
        fn: The function, returning one float (a Python float or a 0-d float array); with
            `has_aux`, a pair `(output, aux)`. Omitted, `grad(...)` returns a decorator.
        wrt: The argument to differentiate: a position (in the call's positional arguments,
            then in the parameters), a parameter name, or a tuple of them.
        argnums: JAX's name for `wrt` (give one of them).
        has_aux: `fn` returns `(output, aux)`; the call returns `(gradient, aux)`, with no
            derivative flowing into `aux` (called from Python only).
        static_argnums: As for [`jit`][adlite.compiler.jit]; static arguments are never
            differentiated.
        static_argnames: As for [`jit`][adlite.compiler.jit].
        backend: `"llvm"` or `"python"`, as for [`jit`][adlite.compiler.jit].
        checkpoint: How loops keep their tape: None (automatic: the plain tape until half of
            `ADLITE_TAPE_BUDGET`, then snapshots), False (the whole tape), a memory budget
            such as `"64MB"`, or an int k (a snapshot every k steps). First derivatives are
            bit for bit those of the plain tape.
        shapes: `"static"` or `"dynamic"` (one compilation for all sizes), as for
            [`jit`][adlite.compiler.jit].
        holomorphic: `fn` returns a complex number and is holomorphic: the gradient is
            `f'(z)` (JAX's `holomorphic=True`; the arguments must be complex). Without it,
            a complex result is refused and the gradient w.r.t. a complex argument of a
            real function is JAX's `dL/dx - i dL/dy`.

    Returns:
        A [`Transformed`][adlite.compiler.api.Transformed] whose calls return the gradient
        (a tuple of gradients for a tuple `wrt`; `(gradient, aux)` with `has_aux`).

    Raises:
        ValueError: When made, for a `checkpoint` it cannot take or an unknown `backend`.
        TypeError: At a call, for a function that does not return one float, a `wrt` naming
            no argument, or a differentiated int or bool array or compile-time value.
        AdliteSyntaxError: At the first call of a signature, for code adlite cannot compile.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import grad
        >>> def f(x):
        ...     y = 0.0
        ...     while x < 10.0:  # the trip count depends on x
        ...         x = x * 1.5
        ...         y = y + x
        ...     return y
        >>> grad(f)(1.0)
        31.171875

        Several arguments, by position or by name, and structured arguments:

        >>> def loss(w, b, x, y):
        ...     return np.sum((x @ w + b - y) ** 2)
        >>> w, b = np.array([1.0, -1.0]), 0.5
        >>> x, y = np.array([[1.0, 2.0], [3.0, 1.0]]), np.array([0.0, 1.0])
        >>> grad(loss)(w, b, x, y)
        array([8., 1.])
        >>> grad(loss, wrt=(0, "b"))(w, b, x, y)
        (array([8., 1.]), 2.0)
        >>> def dict_loss(params, x):
        ...     return np.sum((x @ params["w"] + params["b"]) ** 2)
        >>> grad(dict_loss)({"w": w, "b": b}, x)
        {'w': array([14.,  3.]), 'b': 4.0}

        Auxiliary results (JAX's `has_aux`) and higher orders:

        >>> def loss_and_residual(w):
        ...     r = x @ w - y
        ...     return np.sum(r * r), r
        >>> grad(loss_and_residual, has_aux=True)(w)
        (array([ 4., -2.]), array([-1.,  1.]))
        >>> grad(grad(lambda t: t ** 3))(2.0)
        12.0
    """
    def make(f: Callable) -> Transformed:
        return Transformed(f, "grad", wrt_or_argnums(wrt, argnums), backend, checkpoint,
                           has_aux=has_aux, shapes=shapes, holomorphic=holomorphic,
                           static=_static_list(static_argnums) + _static_list(static_argnames))
    return make if fn is None else make(fn)


@transformer
def value_and_grad(fn: Callable, wrt: int | str | tuple = 0, *, argnums=None,
                   has_aux: bool = False, static_argnums: StaticSpec = (),
                   static_argnames: StaticSpec = (), backend: str = "llvm",
                   checkpoint: object = None, shapes: str = "static"):
    """Compile a function's value and its gradient together (reverse mode).

    As [`grad`][adlite.compiler.grad], but each call returns `(value, gradient)`: the value
    comes from the forward sweep that the gradient needs anyway, so both cost about as much
    as the gradient alone. Compiled once per call signature and cached, as
    [`jit`][adlite.compiler.jit] is.

    Args:
        fn: The function, returning one float; with `has_aux`, a pair `(output, aux)`.
        wrt: The argument(s) to differentiate, as for [`grad`][adlite.compiler.grad].
        argnums: JAX's name for `wrt` (give one of them).
        has_aux: `fn` returns `(output, aux)`; the call returns `((value, aux), gradient)`,
            as JAX's does (called from Python only).
        static_argnums: As for [`jit`][adlite.compiler.jit].
        static_argnames: As for [`jit`][adlite.compiler.jit].
        backend: `"llvm"` or `"python"`, as for [`jit`][adlite.compiler.jit].
        checkpoint: How loops keep their tape, as for [`grad`][adlite.compiler.grad].
        shapes: `"static"` or `"dynamic"`, as for [`jit`][adlite.compiler.jit].

    Returns:
        A [`Transformed`][adlite.compiler.api.Transformed] whose calls return
        `(value, gradient)` (the gradient a tuple for a tuple `wrt`).

    Raises:
        ValueError: When made, for a `checkpoint` it cannot take or an unknown `backend`.
        TypeError: At a call, as for [`grad`][adlite.compiler.grad].

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import value_and_grad
        >>> def loss(w, x):
        ...     return np.sum((x @ w) ** 2)
        >>> w, x = np.array([1.0, 2.0]), np.array([[1.0, 0.0], [0.0, 1.0]])
        >>> value_and_grad(loss)(w, x)
        (5.0, array([2., 4.]))
        >>> value_and_grad(loss, wrt=(0, 1))(w, x)
        (5.0, (array([2., 4.]), array([[2., 4.],
               [4., 8.]])))
        >>> def with_aux(w):
        ...     return np.sum(w * w), w.shape[0]
        >>> value_and_grad(with_aux, has_aux=True)(w)
        ((5.0, 2), array([2., 4.]))
    """
    return Transformed(fn, "value_and_grad", wrt_or_argnums(wrt, argnums), backend, checkpoint,
                       has_aux=has_aux, shapes=shapes,
                       static=_static_list(static_argnums) + _static_list(static_argnames))


_EXTENDED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def compile_sized(cache: dict, key: tuple, trees: Sequence[Tree], target: Callable,
                  build: Callable) -> Any:
    """`once(cache, key, build)`, where a signature with run-time sizes (`shapes="dynamic"`)
    whose compilation fails for any reason raises `SizesSpecialised` (from the error, which
    is logged and remembered in `cache` under ("sizes refused", key): it is not compiled
    again): the caller binds the call again, for its shapes."""
    refused = cache.get(("sizes refused", key))
    if refused is not None:
        raise SizesSpecialised from refused
    try:
        return once(cache, key, build)
    except NeedStatic:
        raise
    except Exception as error:
        if not has_sizes(trees):
            raise
        cache[("sizes refused", key)] = error
        log.sizes_specialised(target, error)
        raise SizesSpecialised from error


def _compile_extended(fn, types, derivative: Derivative):
    """(primal graph, compiled derivative, result tree), cached per function, argument
    types and derivative like the other transformations."""
    def build():
        c = pipeline.run(Compilation(fn, types, derivative), DIFFERENTIATE)
        return c.primal, c.code, c.result

    per_fn = _EXTENDED.setdefault(fn, {})
    return compile_sized(per_fn, (derivative, types), types, fn, build)


def _bound(t: Transformed, args: Sequence[Any], kwargs: dict, build: Callable):
    """(call, build(call)) for a call of `t`, compiling again with the int parameters the
    function needs as compile-time values (`NeedStatic`)."""
    while True:
        call = t.bind(args, kwargs)
        try:
            return call, build(call)
        except NeedStatic as e:
            t._specialise(e, call)
        except SizesSpecialised:
            continue  # bound again, for the call's shapes


def _extended(fn: Callable, primals: Sequence[Any], mode: str, checkpoint: object = None,
              has_aux: bool = False, shapes: str = "static"):
    """(call, primal graph, run, result tree, float input positions) of vjp/jvp of `fn` at
    `primals`: derivatives w.r.t. the float leaves of the primals given (defaults are
    constants)."""
    t = Transformed(fn, "jit", shapes=shapes)
    t.known_floats = True

    def build(call: Call):
        types = [t for tree in call.trees for t in leaf_types(tree)]
        floats = tuple(i for i, t in enumerate(types) if t.is_float and call.given[i])
        derivative = Derivative(mode, floats if mode == "jvp" else None, checkpoint, has_aux)
        try:
            compiled = _compile_extended(t.target, t.bound + call.trees, derivative)
        except SizesSpecialised as signal:
            t.sizes_refused[call.trees] = signal.__cause__
            raise
        return compiled + ([k for k, i in enumerate(i for i, t in enumerate(types)
                                                    if t.is_float) if i in floats],)

    call, (primal, run, tree, floats) = _bound(t, primals, {}, build)
    return call, primal, run, tree, floats


def _given_kinds(call: Call, floats: Sequence[int]) -> list[str | None]:
    """`arguments.part_kinds` of the differentiated float leaves `floats` of a call."""
    leaves = [(k, t) for tree in call.trees
              for k, t in zip(part_kinds(tree), leaf_types(tree), strict=True)]
    float_kinds = [k for k, t in leaves if t.is_float]
    return [float_kinds[i] for i in floats]


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
def vjp(fn: Callable, *primals: Any, has_aux: bool = False, checkpoint: object = None,
        shapes: str = "static"):
    """Evaluate `fn` at `primals` and return its vector-Jacobian product (reverse mode).

    `vjp(f, *primals)` returns `(outputs, pullback)`: `outputs` is `f(*primals)`, shaped
    as `f`'s result, and `pullback(*cotangents)`, given one cotangent per float leaf of the
    outputs (flat, in order), returns the cotangents of the float leaves of `primals` (flat,
    in argument order, a tuple): `v @ J` for the Jacobian `J` of `f` at `primals`. Unlike
    JAX's, the cotangents taken and given are flat sequences of leaves rather than trees: a
    dict argument gets one cotangent per float leaf. Defaults of `f`'s parameters are
    constants. `pullback` can be called many times; the code is compiled once per argument
    signature and cached.

    Args:
        fn: The function to differentiate.
        *primals: The arguments of `fn` (numbers, arrays, tuples, lists and dicts of them).
        has_aux: `fn` returns `(output, aux)`; `vjp` returns `(outputs, pullback, aux)`,
            as JAX's does.
        checkpoint: How loops keep their tape, as for [`grad`][adlite.compiler.grad].
        shapes: `"static"` or `"dynamic"`, as for [`jit`][adlite.compiler.jit].

    Returns:
        `(outputs, pullback)`, or `(outputs, pullback, aux)` with `has_aux`.

    Raises:
        TypeError: When `pullback` is given a number of cotangents other than the number of
            float output leaves.
        ValueError: For a `checkpoint` it cannot take.
        AdliteSyntaxError: For code adlite cannot compile.

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import vjp
        >>> def f(x, y):
        ...     return x * y, np.sum(x)
        >>> outputs, pullback = vjp(f, np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        >>> outputs
        (array([3., 8.]), 3.0)
        >>> pullback(np.array([1.0, 0.0]), 0.0)
        (array([3., 0.]), array([1., 0.]))
        >>> pullback(np.zeros(2), 1.0)
        (array([1., 1.]), array([0., 0.]))
    """
    if checkpoint is not None:
        checkpoint_policy(checkpoint)
    call, primal, run, tree, floats = _extended(fn, primals, "vjp", checkpoint, has_aux, shapes)
    tree, aux_tree = output_and_aux(tree, has_aux)
    n_out = len(leaf_types(tree))
    float_outs = [a.type for a in primal.outputs[:n_out] if a.type.is_float]
    out_kinds = [k for k, a in zip(part_kinds(tree), primal.outputs, strict=False)
                 if a.type.is_float]
    kinds = _given_kinds(call, floats)
    values, aux = split_aux(run(*call.leaves, *(_zero_like(t) for t in float_outs)), aux_tree)

    @boundary
    def pullback(*cotangents: Any):
        expected = len(out_kinds) - out_kinds.count("im")
        if len(cotangents) != expected:
            raise TypeError(f"pullback takes {expected} cotangent(s), got {len(cotangents)}")
        cotangents = split_complex(cotangents, out_kinds, conjugate=True)
        bars = split_aux(run(*call.leaves, *cotangents), aux_tree)[0][n_out:]
        return tuple(joined_complex([bars[k] for k in floats], kinds))

    outputs = _outputs(tree, values[:n_out])
    return (outputs, pullback, aux) if has_aux else (outputs, pullback)


@boundary
def jvp(fn: Callable, primals: Sequence[Any], tangents: Sequence[Any], *,
        has_aux: bool = False, shapes: str = "static"):
    """Evaluate `fn` at `primals` and its derivative along `tangents` (forward mode).

    `jvp(f, primals, tangents)` returns `(outputs, output_tangents)`: `f(*primals)` and
    `J @ t`, the derivative of `f` at `primals` in the direction `tangents`, both shaped like
    `f`'s result, computed in one sweep by tangent code the compiler generates. `tangents`
    has one entry per float leaf of `primals` (flat, in argument order: a dict argument
    contributes one per float leaf, where JAX takes trees); defaults of `f`'s parameters are
    constants. Compiled once per argument signature and cached. Forward over reverse,
    `jvp(grad(f), (x,), (v,))`, gives Hessian-vector products.

    Args:
        fn: The function to differentiate.
        primals: The arguments of `fn`, a tuple or list.
        tangents: One tangent per float leaf of `primals` (a number for a number, an array
            of its shape for an array).
        has_aux: `fn` returns `(output, aux)`; `jvp` returns
            `(outputs, output_tangents, aux)`, as JAX's does.
        shapes: `"static"` or `"dynamic"`, as for [`jit`][adlite.compiler.jit].

    Returns:
        `(outputs, output_tangents)`, or `(outputs, output_tangents, aux)` with `has_aux`.
        The tangent of an int or bool output is zero, a float64 number or array of its
        shape (JAX gives `float0` zeros; numpy has no such dtype).

    Raises:
        TypeError: When the number of tangents is not the number of float leaves of
            `primals`.
        AdliteSyntaxError: For code adlite cannot compile, or a `custom_vjp` function
            (forward mode of a reverse-mode rule is refused, as in JAX).

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import grad, jvp
        >>> def f(x):
        ...     return np.sin(x) * x
        >>> jvp(f, (np.array([0.0, np.pi / 2]),), (np.array([1.0, 1.0]),))
        (array([0.        , 1.57079633]), array([0., 1.]))

        A Hessian-vector product, forward over reverse:

        >>> def energy(x):
        ...     return np.sum(x ** 3)
        >>> jvp(grad(energy), (np.array([1.0, 2.0]),), (np.array([1.0, 0.0]),))
        (array([ 3., 12.]), array([6., 0.]))
    """
    call, primal, run, tree, floats = _extended(fn, primals, "jvp", has_aux=has_aux,
                                                shapes=shapes)
    kinds = _given_kinds(call, floats)
    if len(tangents) != len(kinds) - kinds.count("im"):
        raise TypeError(f"jvp needs one tangent per float argument "
                        f"({len(kinds) - kinds.count('im')}), got {len(tangents)}")
    tangents = split_complex(tangents, kinds, conjugate=False)
    tree, aux_tree = output_and_aux(tree, has_aux)
    values, aux = split_aux(run(*call.leaves, *tangents), aux_tree)
    n_out = len(leaf_types(tree))
    float_tangents = iter(values[n_out:])
    output_tangents = [next(float_tangents) if a.type.is_float else _zero_like(a.type)
                       for a in primal.outputs[:n_out]]
    outputs = _outputs(tree, values[:n_out]), _outputs(tree, output_tangents)
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
    """The code the compiler makes of `fn` after one stage of its pipeline, as text.

    The pipeline of [`jit`][adlite.compiler.jit] is `frontend` (the IR of the source:
    structured `cond` and `while` nodes), `optimize` and `lower` (the code for `backend`:
    LLVM IR, or Python source); that of [`grad`][adlite.compiler.grad] (with `grad=True`,
    or `stage="ad"`; w.r.t. argument 0) has `ad` (the adjoint IR) between them, then
    optimises again. `show` runs the pipeline up to `stage` (the last stage of that name)
    for one signature, given as types, without compiling native code. The older names
    `ir`, `optimized`, `adjoint`, `python`, `python-grad`, `llvm`, `llvm-grad`, `dot` and
    `dot-grad` are accepted too. `adlite show FILE.py:FUNC --stage ...` prints the same from
    the shell.

    Args:
        fn: The function.
        stage: `"frontend"`, `"optimize"`, `"ad"` or `"lower"` (or an older name).
        types: One type per parameter (`adlite.compiler.ir.core.Type`: `Type("f64")`,
            `Type("i64")`, `Type("f32", (3, 4))` for an array); default every parameter
            `f64`.
        grad: Show the pipeline of `grad` instead of `jit`'s.
        backend: The code `lower` makes: `"llvm"` (LLVM IR) or `"python"`.
        dot: Render the IR as Graphviz DOT text instead of adlite's IR text.
        checkpoint: `grad`'s `checkpoint` option (how loops keep their tape).

    Returns:
        The text: IR, Graphviz DOT, LLVM IR or Python source.

    Raises:
        ValueError: For an unknown stage.
        TypeError: When the number of types is not the number of parameters.
        AdliteSyntaxError: For code adlite cannot compile, or that needs the value of an
            argument when compiling (types give none).

    Examples:
        >>> import numpy as np
        >>> from adlite.compiler import show
        >>> def f(x, y):
        ...     return x * y + np.sin(x)
        >>> print(show(f))
        { lambda x:f64 y:f64 .
          let t1:f64 = mul x y  # L2
              t2:f64 = sin x  # L2
              t3:f64 = add t1 t2  # L2
          in (t3) }
        <BLANKLINE>
        >>> print(show(f, "lower", grad=True, backend="python"))
        import numpy as np
        <BLANKLINE>
        <BLANKLINE>
        def f_grad(x, y):
            return np.cos(x) + y,
        <BLANKLINE>

        The adjoint of a loop runs it backwards (`checkpoint=False`: the whole tape):

        >>> def g(x, n):
        ...     while x < n:
        ...         x = x * 2.0
        ...     return x
        >>> print(show(g, "lower", grad=True, backend="python", checkpoint=False))
        import numpy as np
        from adlite.compiler.backends.python import support as _rt
        <BLANKLINE>
        <BLANKLINE>
        def g_grad(x, n):
            # L2: while x < n:
            x_1, trips = x, 0
            while x_1 < n:
                # L3: x = x * 2.0
                x_2 = x_1 * 2.0
                x_1, trips = x_2, _rt.int64(trips + 1)
            dx, k = 1.0, trips
            while k > 0:
                # L3: x = x * 2.0
                dx_1 = dx * 2.0
                dx, k = dx_1, _rt.int64(k - 1)
            return dx,
        <BLANKLINE>
    """
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
