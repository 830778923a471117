"""to_static: a converted function that builds one Program per input signature and runs it in dygraph.

    @paddle.jit.to_static
    def f(x):
        if x.mean() > 0:        # a tensor condition: becomes a `cond` op
            return x * 2
        return x - 1

    y = f(paddle.randn([3]))    # builds the Program (once per shape/dtype/structure), runs it
    print(f.code)               # the converted source
    f.concrete_program.main_program

`StaticFunction` is a descriptor, so it works on functions, methods and `Layer.forward`. A call
in dygraph builds (or fetches from `program_cache`) a `ConcreteProgram` per input signature and
training mode, then runs it:

  - when something needs a gradient, as ONE `run_program` op (run_program_op.py): a forward and a
    backward Program, built once with append_backward's rules and optimized by the
    `build_strategy`'s passes (partial_program.py), run by a RunPlan; `loss.backward()` reaches
    the Layer's Parameters and the inputs, and an optimizer trains as it would eagerly. Where the
    backward cannot be built (or `BuildStrategy(to_static_op_by_op=True)` asks for it) the Program
    runs op by op through eager dispatch instead (run_program.py), with a warning saying why;
  - under `paddle.no_grad()` (or when nothing needs a gradient), its forward optimized by the same passes.
"""
from __future__ import annotations

import inspect
import types
import warnings

import numpy as np

from ..framework import instrument
from ..framework.dtype import convert_dtype
from ..framework.errors import Unimplemented, invalid_argument, precondition_not_met
from ..framework.static import builder
from ..framework.static.passes import BuildStrategy
from ..framework.static.program import Program
from ..framework.tensor import Tensor
from ..framework.thread_modes import modes
from . import error as jst_error
from .convert_call_func import convert_callable, converted
from .partial_program import forward_for, partial_for
from .run_program import run_forward_program, run_program
from .run_program_op import run_partial_program

__all__ = ["StaticFunction", "ConcreteProgram", "ProgramTranslator", "to_static", "not_to_static",
           "enable_to_static", "declarative", "convert_callable"]

_ENABLED = [True]
_FETCH = object()   # marks an output leaf that is a fetched tensor


def enable_to_static(enable_to_static_bool: bool) -> None:
    """`paddle.jit.enable_to_static(False)`: converted functions run their original Python eagerly."""
    if not isinstance(enable_to_static_bool, bool):
        raise invalid_argument("enable_to_static", f"expected a bool, got {type(enable_to_static_bool).__name__}.")
    _ENABLED[0] = enable_to_static_bool


def not_to_static(func=None):
    """Mark `func` so converted code calls it as plain Python (it is never converted)."""
    if func is None:
        return not_to_static
    func._jst_not_to_static = True
    return func


# ---- concrete programs -------------------------------------------------------------------------
class ConcreteProgram:
    """One built Program: `main_program`, `startup_program`, `inputs` (the feed Variables),
    `outputs` (the fetch Variables), `parameters` (the eager Parameters it reads) and `buffers`
    ({variable name: the layer's buffer Tensor}, e.g. batch norm's running statistics, read -- and in
    training updated -- by reference at each call)."""

    def __init__(self, main_program, startup_program, inputs, outputs, parameters, function, out_spec,
                 buffers: dict | None = None) -> None:
        self.main_program, self.startup_program = main_program, startup_program
        self.inputs, self.outputs, self.parameters = inputs, outputs, parameters
        self.buffers = dict(buffers or {})
        self.function = function
        self._out_spec = out_spec   # (structure, leaves with _FETCH where a fetched tensor goes)
        bound = {p.name: p for p in parameters}
        bound.update(self.buffers)
        self._run_args = ([v.name for v in inputs], [v.name for v in outputs], bound)
        self._bound = list(bound.values())   # the run_program op's inputs after the feeds
        self._partials: dict = {}  # inputs' needs-grad flags -> PartialProgram (None: run op by op)
        self._forward = None       # the optimized forward of calls that need no gradient (a ForwardProgram)
        self._checked = False      # run_program has checked the feeds and reads of this program once

    def __repr__(self) -> str:
        return (f"ConcreteProgram(inputs={[v.name for v in self.inputs]}, "
                f"outputs={[v.name for v in self.outputs]}, {self.main_program.num_ops()} ops)")


def _lift_recorder(found: dict):
    """A builder lift listener noting every eager tensor the Program reads by reference (var name ->
    tensor): Parameters, buffers (batch norm's running statistics) and plain tensors that need a
    gradient, so run_program binds the live tensors and gradients and statistics updates reach them."""
    def note(tensor, var) -> None:
        found.setdefault(var.name, tensor)
    return note


def _flatten(value, leaves: list):
    if isinstance(value, (list, tuple)):
        return (type(value), [_flatten(v, leaves) for v in value])
    if isinstance(value, dict):
        return (dict, [(k, _flatten(v, leaves)) for k, v in value.items()])
    leaves.append(value)
    return None


def _leaf_labels(spec, label: str, out: list) -> None:
    if spec is None:
        out.append(label)
        return
    kind, items = spec
    for k, item in (items if kind is dict else enumerate(items)):
        _leaf_labels(item, f"{label}_{k}", out)


def _unflatten(spec, leaves):
    if spec is None:
        return next(leaves)
    kind, items = spec
    if kind is dict:
        return {k: _unflatten(s, leaves) for k, s in items}
    return kind(_unflatten(s, leaves) for s in items)


# ---- the signature of a call ----------------------------------------------------------------------
def _is_spec(value) -> bool:
    return type(value).__name__ == "InputSpec" and hasattr(value, "shape") and hasattr(value, "dtype")


def _leaf_key(value, spec=None):
    if isinstance(value, Tensor):
        shape = tuple(spec.shape) if spec is not None and _is_spec(spec) else value._data.shape
        return ("T", shape, value._data.dtype, value.stop_gradient)
    if _is_spec(value):
        return ("T", tuple(value.shape), np.dtype(convert_dtype(value.dtype)),
                bool(getattr(value, "stop_gradient", False)))
    try:
        hash(value)
        return ("V", type(value).__name__, value)
    except TypeError:
        return ("id", _Identity(value))


class _Identity:
    """An unhashable argument in a cache key, by identity; holding it keeps its id from being reused."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Identity) and other.value is self.value


def _signature_key(leaves: list, specs: list) -> tuple:
    return tuple(_leaf_key(v, s) for v, s in zip(leaves, specs))


class StaticFunction:
    """A function (or method / Layer.forward) converted to static: see the module docstring."""

    def __init__(self, function, input_spec=None, build_strategy=None, full_graph: bool = True,
                 instance=None) -> None:
        if isinstance(function, types.MethodType):
            function, instance = function.__func__, function.__self__
        if not isinstance(function, types.FunctionType):
            raise invalid_argument("to_static", f"expected a function, method or Layer, got {type(function).__name__}.")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise invalid_argument("to_static", f"build_strategy must be a paddle.static.BuildStrategy, got "
                                                f"{type(build_strategy).__name__}.")
        if input_spec is not None and not isinstance(input_spec, (list, tuple)):
            raise invalid_argument("to_static", f"input_spec must be a list of InputSpec, got "
                                                f"{type(input_spec).__name__}.")
        self._function = function
        self._instance = instance
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._build_strategy = build_strategy
        self._full_graph = bool(full_graph)
        self.program_cache: dict = {}
        self._fast_cache: dict = {}   # _fast_key -> the ConcreteProgram program_cache holds for it
        self._last = None
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__doc__ = function.__doc__
        self.__wrapped__ = function

    # ---- descriptor: `@to_static def forward(self, x)` -------------------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        key = f"_jst_bound_{self._function.__name__}_{id(self)}"
        bound = instance.__dict__.get(key)
        if bound is None:
            bound = StaticFunction(self._function, self._input_spec, self._build_strategy, self._full_graph, instance)
            instance.__dict__[key] = bound
        return bound

    @property
    def dygraph_function(self):
        fn = self._function
        return fn if self._instance is None else types.MethodType(fn, self._instance)

    @property
    def code(self) -> str:
        """The converted source (what runs while the Program is built)."""
        return converted(self._function).code

    @property
    def source_map(self) -> dict[int, int]:
        """{line of `code`: line of the user's source file} (the file is `inspect.getsourcefile(fn)`)."""
        return converted(self._function).source_map()

    def __call__(self, *args, **kwargs):
        if not _ENABLED[0]:
            return self.dygraph_function(*args, **kwargs)
        if modes.static_builder is not None:  # inside another program being built: inline the converted code
            return self._converted_callable()(*args, **kwargs)
        fast = self._fast_key(args) if not kwargs else None
        concrete = self._fast_cache.get(fast) if fast is not None else None
        if concrete is not None:  # the common call, f(x, y) with Tensors: one tuple and one lookup
            if instrument.subscribers:
                self._announce(concrete)
            self._last = concrete
            return self._run(concrete, list(args))
        try:
            concrete, leaves = self._concrete(args, kwargs)
        except Unimplemented as e:  # a construct the converter cannot turn into a Program
            if self._full_graph:
                raise
            warnings.warn(f"to_static(full_graph=False): {self.__qualname__} runs eagerly: {e}", stacklevel=2)
            return self.dygraph_function(*args, **kwargs)
        if fast is not None:
            self._fast_cache[fast] = concrete
        return self._run(concrete, leaves)

    def _fast_key(self, args: tuple) -> tuple | None:
        """The program-cache key of a call whose arguments are all plain Tensors (no input_spec): what
        `_key` computes, without flattening (None for any other call)."""
        if self._input_spec is not None:
            return None
        key = [getattr(self._instance, "training", None)]
        for a in args:
            if type(a) is not Tensor:
                return None
            data = a._data
            key.append((data.shape, data.dtype, a.stop_gradient))
        return tuple(key)

    def _converted_callable(self):
        fn = converted(self._function).function
        return fn if self._instance is None else types.MethodType(fn, self._instance)

    # ---- building ---------------------------------------------------------------------------
    def _inputs(self, args: tuple, kwargs: dict):
        leaves: list = []
        spec = _flatten((args, kwargs), leaves)
        for i, v in enumerate(leaves):
            if isinstance(v, np.ndarray):  # numpy arrays are inputs, as in Paddle (not baked-in constants)
                leaves[i] = Tensor._wrap(v)
        specs: list = [None] * len(leaves)
        if self._input_spec is not None:
            arg_leaves: list = []
            _flatten(tuple(args), arg_leaves)
            spec_leaves: list = []
            _flatten(tuple(self._input_spec), spec_leaves)
            for i, s in enumerate(spec_leaves[:len(arg_leaves)]):
                specs[i] = s
        return leaves, spec, specs

    def _key(self, leaves, specs) -> tuple:
        training = getattr(self._instance, "training", None)
        return (_signature_key(leaves, specs), training)

    def _concrete(self, args: tuple, kwargs: dict) -> ConcreteProgram:
        leaves, spec, specs = self._inputs(args, kwargs)
        key = self._key(leaves, specs)
        concrete = self.program_cache.get(key)
        if concrete is None:
            concrete = self._build(leaves, spec, specs)
            self.program_cache[key] = concrete
        if instrument.subscribers:   # a recording shows the program (once) beside the run
            self._announce(concrete)
        self._last = concrete
        return concrete, leaves

    def _announce(self, concrete: ConcreteProgram) -> None:
        origin = self.__dict__.get("_origin")
        if origin is None:   # the sources are read once, not on every recorded call
            from ..visualizer.program import dy2static_origin
            origin = self._origin = dy2static_origin(self)
        name = getattr(self._function, "__qualname__", getattr(self._function, "__name__", "function"))
        instrument.emit(instrument.ProgramBuilt(concrete.main_program, "dy2static", f"to_static: {name}", origin))

    def _feed_names(self, leaves, spec, specs) -> list:
        """A data-variable name per tensor leaf: the InputSpec's name, else the parameter's name
        (`x`, `xs_0` for items of a list argument, the keyword for a keyword argument)."""
        try:
            params = list(inspect.signature(self._function).parameters)
        except (TypeError, ValueError):
            params = []
        if self._instance is not None and params:
            params = params[1:]
        (_, (args_spec, kwargs_spec)) = spec
        labels: list = []
        for j, sub in enumerate(args_spec[1]):
            _leaf_labels(sub, params[j] if j < len(params) else f"input_{j}", labels)
        for key, sub in kwargs_spec[1]:
            _leaf_labels(sub, key, labels)
        names, used = [], set()
        for v, s, label in zip(leaves, specs, labels):
            if not (isinstance(v, Tensor) or _is_spec(v)):
                names.append(None)
                continue
            base = next((d.name for d in (s, v) if _is_spec(d) and d.name), None) or label
            name, n = base, 0
            while name in used:
                n += 1
                name = f"{base}_{n}"
            used.add(name)
            names.append(name)
        return names

    def _build(self, leaves, spec, specs) -> ConcreteProgram:
        from ..framework.static.builder import data, program_guard
        conv = converted(self._function)
        main, startup = Program(), Program()
        names = self._feed_names(leaves, spec, specs)
        found: dict = {}
        try:
            with program_guard(main, startup), builder.listen_lifts(_lift_recorder(found), grad_tensors=True):
                feeds, values = [], []
                for v, s, name in zip(leaves, specs, names):
                    if name is None:
                        values.append(v)
                        continue
                    desc = s if _is_spec(s) else v
                    shape = desc.shape if _is_spec(desc) else v._data.shape
                    dtype = desc.dtype if _is_spec(desc) else v._data.dtype
                    var = data(name, list(shape), dtype)
                    var.stop_gradient = bool(getattr(desc, "stop_gradient", True))
                    feeds.append(var)
                    values.append(var)
                args, kwargs = _unflatten(spec, iter(values))
                fn = conv.function if self._instance is None else types.MethodType(conv.function, self._instance)
                out = fn(*args, **kwargs)
                out_leaves: list = []
                out_spec = _flatten(out, out_leaves)
                gb = main.global_block()
                fetch = [builder.as_variable(gb, v) if isinstance(v, Tensor) else None for v in out_leaves]
        except Exception as e:
            raise jst_error.remap(e) from None
        jst_error.rewrite_sources(main)
        outputs = [v for v in fetch if v is not None]
        placed = [_FETCH if f is not None else v for f, v in zip(fetch, out_leaves)]
        params = [found[v.name] for v in main.all_parameters() if v.name in found]
        buffers = {v.name: found[v.name] for v in main.global_block().vars.values()
                   if v.persistable and not v.is_parameter and v.name in found}
        return ConcreteProgram(main, startup, feeds, outputs, params, conv.function, (out_spec, placed), buffers)

    # ---- running ---------------------------------------------------------------------------
    def _run(self, concrete: ConcreteProgram, leaves: list):
        inputs = [v for v in leaves if isinstance(v, Tensor)]
        feed_names, fetch_names, params = concrete._run_args
        strategy, label = self._build_strategy, self.__qualname__
        try:
            partial = partial_for(concrete, inputs, strategy, label) if modes.grad_enabled else None
            forward = forward_for(concrete, inputs, strategy, label) if partial is None else None
            if partial is not None:    # training: forward and backward Programs as one run_program op
                outs = run_partial_program(partial, inputs + concrete._bound)
            elif forward is not None:  # no gradient wanted: the optimized forward Program
                outs = run_forward_program(forward, feed_names, inputs, params, checked=concrete._checked)
            else:                      # op by op through dispatch (or inlined into a Program being built)
                outs = run_program(concrete.main_program, feed_names, inputs, fetch_names, params, concrete._checked)
            if partial is None:  # the signature's key (shapes and dtypes as called, no input_spec) vouches from now on
                concrete._checked = self._input_spec is None
        except Exception as e:
            raise jst_error.remap(e) from None
        out_spec, placed = concrete._out_spec
        results = iter(outs)
        return _unflatten(out_spec, iter([next(results) if p is _FETCH else p for p in placed]))

    # ---- Paddle's inspection API ---------------------------------------------------------------
    @property
    def concrete_program(self) -> ConcreteProgram:
        """The most recently used ConcreteProgram (built from input_spec if there is none yet)."""
        if self._last is None:
            if self._input_spec is None:
                raise precondition_not_met("to_static", f"{self.__qualname__} has no program yet.",
                                           hint="call it once, or give to_static an input_spec.")
            return self.get_concrete_program(*self._input_spec)[0]
        return self._last

    def get_concrete_program(self, *args, **kwargs) -> tuple:
        """`(concrete_program, partial_program)` for these inputs (Tensors or InputSpecs); the second
        item runs the program like the StaticFunction does."""
        concrete, _ = self._concrete(args, kwargs)
        return concrete, (lambda *a, **k: self._run(concrete, self._inputs(a, k)[0]))

    @property
    def main_program(self) -> Program:
        return self.concrete_program.main_program

    @property
    def inputs(self) -> list:
        return self.concrete_program.inputs

    @property
    def outputs(self) -> list:
        return self.concrete_program.outputs

    def rollback(self):
        """Undo to_static: a Layer gets its Python forward back; returns the dygraph function."""
        if self._instance is not None and self._instance.__dict__.get("forward") is self:
            del self._instance.__dict__["forward"]
        return self.dygraph_function

    def __repr__(self) -> str:
        return f"<StaticFunction {self.__qualname__}, {len(self.program_cache)} program(s)>"


# ---- the public entry points ------------------------------------------------------------------------
def to_static(function=None, input_spec=None, build_strategy=None, full_graph: bool = True, **kwargs):
    """`@paddle.jit.to_static` on a function or method, or `paddle.jit.to_static(layer)`: convert it
    to a static Program (built per input signature, run in dygraph with autograd)."""
    from ..nn.layer.layers import Layer

    def decorate(fn):
        if isinstance(fn, Layer):
            forward = inspect.getattr_static(type(fn), "forward")
            if isinstance(forward, StaticFunction):
                forward = forward._function
            static = StaticFunction(forward, input_spec, build_strategy, full_graph, instance=fn)
            fn.__dict__["forward"] = static
            return fn
        if isinstance(fn, StaticFunction):
            return fn
        return StaticFunction(fn, input_spec, build_strategy, full_graph)

    return decorate if function is None else decorate(function)


declarative = to_static


class ProgramTranslator:
    """Paddle's older interface to the same machinery; one instance (`get_instance()`)."""

    _instance = None

    @classmethod
    def get_instance(cls) -> "ProgramTranslator":
        return cls()  # __new__ keeps the one instance

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    @property
    def enable_to_static(self) -> bool:
        return _ENABLED[0]

    def enable(self, enable_to_static: bool) -> None:
        enable_to_static_fn(enable_to_static)

    def get_output(self, dygraph_func, *args, **kwargs):
        """Run `dygraph_func` converted (or as it is, when conversion is off)."""
        if not _ENABLED[0]:
            return dygraph_func(*args, **kwargs)
        return _static(dygraph_func)(*args, **kwargs)

    def get_func(self, dygraph_func):
        """The converted Python function (it builds ops when called under program_guard)."""
        return _static(dygraph_func)._converted_callable()

    def get_program(self, dygraph_func, *args, **kwargs) -> tuple:
        """(main_program, startup_program, inputs, outputs) for these arguments."""
        concrete, _ = _static(dygraph_func).get_concrete_program(*args, **kwargs)
        return concrete.main_program, concrete.startup_program, concrete.inputs, concrete.outputs

    def get_code(self, dygraph_func) -> str:
        return _static(dygraph_func).code


enable_to_static_fn = enable_to_static


def _static(fn) -> StaticFunction:
    return fn if isinstance(fn, StaticFunction) else StaticFunction(fn)
