"""Static mode: while it is on, every op call appends an Operator to a Program instead of running.

`dispatch()` hands each call to `build_op` (this thread's `modes.static_builder`). `build_op` runs the op's
own `infer_meta` on the input Variables' metas -- so a shape or dtype error surfaces while the
program is built, naming the op and the user's line -- then appends the Operator and returns
new Variables. Eager Tensors met on the way become Variables: a Parameter (from `nn.Linear` & co.)
becomes a persistable parameter Variable with an initializer op in the startup program; a buffer
an op asks for by reference (`lift_buffer`: batch norm's running statistics) a persistable
non-parameter Variable; any other Tensor becomes a constant (`fill_constant` / `assign_value`).
`listen_lifts` listeners hear of every tensor lifted by reference (to_static binds the live tensors so).

    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 784], "float32")
        y = paddle.nn.Linear(784, 10)(x)
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Callable, Iterator

import numpy as np

from ..dtype import convert_dtype, default_float, is_differentiable
from ..errors import MinipaddleError, invalid_argument, precondition_not_met, unimplemented
from ..registry import OpDef
from ..tensor import Tensor
from ..thread_modes import modes
from .program import Block, Program, Variable

# The process's default Programs (as in Paddle, shared by every thread); program_guard swaps them per thread.
_main_program = Program()
_startup_program = Program()
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _BuildState(threading.local):
    """What this thread builds into and how; a new thread starts eager, building the default Programs.

    The switch itself is `modes.static_builder` (framework/thread_modes.py), which dispatch reads."""

    static_mode = False        # enable_static() was called in this thread
    main_program = None        # None: the default main Program (program_guard / block_guard set it)
    startup_program = None     # None: the default startup Program
    op_role = "forward"        # what build_op stamps on new ops; append_backward / minimize switch it
    lift_grad_tensors = 0      # > 0: a plain Tensor that needs a gradient is lifted by reference, not frozen

    def __init__(self) -> None:
        # callables (tensor, variable), told each time an eager tensor is lifted by reference (a parameter
        # or a buffer): to_static learns so which live tensors its Program reads
        self.lift_listeners: list[Callable] = []


_build = _BuildState()


# ---- the mode ---------------------------------------------------------------------------------
def enable_static() -> None:
    """`paddle.enable_static()`: from now on op calls in this thread build the default main Program."""
    _build.static_mode = True
    modes.static_builder = build_op


def disable_static(place=None) -> None:
    """`paddle.disable_static()`: back to eager (dynamic graph) mode."""
    _build.static_mode = False
    modes.static_builder = None


def in_dynamic_mode() -> bool:
    return not _build.static_mode


def in_static_mode() -> bool:
    """True while op calls build a Program (static mode on, or inside program_guard)."""
    return modes.static_builder is not None


def default_main_program() -> Program:
    program = _build.main_program
    return _main_program if program is None else program


def default_startup_program() -> Program:
    program = _build.startup_program
    return _startup_program if program is None else program


@contextlib.contextmanager
def program_guard(main_program: Program, startup_program: Program | None = None) -> Iterator[None]:
    """Build into `main_program` (parameters' initializers into `startup_program`) inside the block."""
    if not isinstance(main_program, Program):
        raise invalid_argument("program_guard", f"main_program must be a static.Program, got "
                                                f"{type(main_program).__name__}.")
    if startup_program is not None and not isinstance(startup_program, Program):
        raise invalid_argument("program_guard", f"startup_program must be a static.Program, got "
                                                f"{type(startup_program).__name__}.")
    prev = (_build.main_program, _build.startup_program, modes.static_builder)
    _build.main_program = main_program
    if startup_program is not None:
        _build.startup_program = startup_program
    modes.static_builder = build_op
    try:
        yield
    finally:
        _build.main_program, _build.startup_program, modes.static_builder = prev


@contextlib.contextmanager
def eager_guard() -> Iterator[None]:
    """Run ops eagerly inside (the Executor runs kernels and eager backward rules this way)."""
    prev = modes.static_builder
    modes.static_builder = None
    try:
        yield
    finally:
        modes.static_builder = prev


@contextlib.contextmanager
def listen_lifts(listener: Callable, grad_tensors: bool = False) -> Iterator[None]:
    """Call `listener(tensor, variable)` for each eager tensor lifted by reference inside the block;
    `grad_tensors`: also lift (instead of freezing as constants) plain Tensors that need a gradient,
    such as a closure's `w` with stop_gradient=False, so gradients can reach them."""
    _build.lift_listeners.append(listener)
    _build.lift_grad_tensors += bool(grad_tensors)
    try:
        yield
    finally:
        _build.lift_listeners.remove(listener)
        _build.lift_grad_tensors -= bool(grad_tensors)


@contextlib.contextmanager
def op_role(role: str) -> Iterator[None]:
    prev, _build.op_role = _build.op_role, role
    try:
        yield
    finally:
        _build.op_role = prev


@contextlib.contextmanager
def block_guard(program: Program, block: Block) -> Iterator[None]:
    """Build into `block` of `program` (append_backward into the loss's block, cond into sub-blocks)."""
    prev = (_build.main_program, program.current_block_idx, modes.static_builder)
    _build.main_program = program
    program.current_block_idx = block.idx
    modes.static_builder = build_op
    try:
        yield
    finally:
        _build.main_program, idx, modes.static_builder = prev
        program.current_block_idx = idx


# ---- where the user is --------------------------------------------------------------------
def user_source() -> str | None:
    """`file:line` of the innermost caller outside minipaddle: the line that built the op."""
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not os.path.abspath(path).startswith(_PACKAGE_DIR + os.sep):
            return f"{path}:{frame.f_lineno}"
        frame = frame.f_back
    return None


def _with_source(error: MinipaddleError, op_name: str, source: str | None) -> MinipaddleError:
    where = f" (building static op '{op_name}'" + (f" at {source})" if source else ")")
    new = type(error)(str(error) + where)
    new.source = source
    return new


# ---- the dispatch hook ------------------------------------------------------------------------
def build_op(op: OpDef, inputs: tuple, attrs: dict):
    """dispatch's static path: check with infer_meta, append the Operator, return its output Variables."""
    program = default_main_program()
    block = program.current_block()
    in_vars = [as_variable(block, t) for t in inputs]
    metas = [v._data for v in in_vars]
    try:
        out_metas = op.infer_meta(*metas, **attrs) if attrs else op.infer_meta(*metas)
    except MinipaddleError as e:
        raise _with_source(e, op.name, user_source()) from None
    single = hasattr(out_metas, "shape")
    out_metas = (out_metas,) if single else tuple(out_metas)
    needs_grad = op.backward is not None and any(
        not v.stop_gradient for i, v in enumerate(in_vars) if i in op.differentiable_inputs)
    outs = []
    for m in out_metas:
        dtype = np.dtype(m.dtype)
        outs.append(block.create_var(program._unique_name(op.name), m.shape, dtype,
                                     stop_gradient=not (needs_grad and is_differentiable(dtype))))
    if op.variadic:
        in_slots = {op.inputs[0]: [v.name for v in in_vars]}
    else:
        in_slots = {slot: [v.name] for slot, v in zip(op.inputs, in_vars)}
    out_names = op.outputs if len(op.outputs) == len(outs) else tuple(f"out{i}" for i in range(len(outs)))
    block.append_op(op.name, in_slots, {slot: [v.name] for slot, v in zip(out_names, outs)}, attrs,
                    source=user_source(), role=_build.op_role)
    return outs[0] if single else tuple(outs)


def as_variable(block: Block, value) -> Variable:
    """An op input as a Variable of `block`'s program: Variables pass, Parameters and constants are lifted."""
    if isinstance(value, Variable):
        if value.block.program is not block.program:
            raise invalid_argument("static", f"Variable '{value.name}' belongs to another Program.",
                                   hint="build every op of one model inside the same program_guard.")
        return value
    if not isinstance(value, Tensor):
        raise invalid_argument("static", f"an op input got {type(value).__name__}, expected a Variable or Tensor.")
    from ..parameter import Parameter
    if isinstance(value, Parameter) or (_build.lift_grad_tensors and not value.stop_gradient):
        return lift_parameter(block.program, value)
    return constant(block, value._data)


def _tell_listeners(tensor, var: Variable) -> None:
    for listener in _build.lift_listeners:
        listener(tensor, var)


def lift_parameter(program: Program, param) -> Variable:
    """An eager Parameter (made by nn.Linear & co.) as a parameter Variable of `program`.

    A Parameter created in static mode (a layer built after `enable_static()` or inside
    `program_guard`) gets its initializer as an op in the startup program (`uniform_random` for
    XavierUniform, ...), as in Paddle; one created in dygraph (then called under program_guard, as
    the dy2static helper does), or whose values were set after it was made, keeps its current values
    through an `assign_value` op."""
    gb = program.global_block()
    var = gb.vars.get(param.name)
    if var is None:
        var = _new_parameter(program, param)
    _tell_listeners(param, var)
    return var


def _new_parameter(program: Program, param) -> Variable:
    gb = program.global_block()
    data = param._data
    var = gb.create_parameter(param.name, data.shape, data.dtype, trainable=not param.stop_gradient)
    var.optimize_attr = dict(getattr(param, "optimize_attr", {"learning_rate": 1.0}))
    var.regularizer = getattr(param, "regularizer", None)
    var.need_clip = getattr(param, "need_clip", True)
    startup = default_startup_program()
    sb = startup.global_block()
    if param.name not in sb.vars:
        sb.create_var(param.name, data.shape, data.dtype, persistable=True)
        init, version = getattr(param, "_static_initializer", (None, None))
        if init is not None and version == param.inplace_version:  # not overwritten since it was made
            from .initializers import initializer_op
            op_type, attrs = initializer_op(init, data.shape, data.dtype)
            sb.append_op(op_type, {}, {"out": [param.name]}, attrs, role="startup")
        else:
            with op_role("startup"):
                constant(sb, data, name=param.name, declared=True)
    return var


def lift_buffer(program: Program, tensor: Tensor) -> Variable:
    """An eager buffer (batch norm's running mean) as a persistable, non-trainable, non-parameter
    Variable of `program`, named as the tensor: its current values go to the startup program, and an
    op may write it (the running statistics update), so `Executor.run` keeps the new values in the scope."""
    if isinstance(tensor, Variable):
        return as_variable(program.current_block(), tensor)
    gb = program.global_block()
    var = gb.vars.get(tensor.name)
    if var is None:
        data = tensor._data
        var = gb.create_var(tensor.name, data.shape, data.dtype, persistable=True, stop_gradient=True)
        sb = default_startup_program().global_block()
        if tensor.name not in sb.vars:
            sb.create_var(tensor.name, data.shape, data.dtype, persistable=True)
            with op_role("startup"):
                constant(sb, data, name=tensor.name, declared=True)
    elif not var.persistable:
        raise invalid_argument("static", f"the program already has a non-persistable variable {tensor.name!r}.",
                               hint="give the buffer tensor a name no other variable uses.")
    _tell_listeners(tensor, var)
    return var


def write_op(op: OpDef, inputs: tuple, attrs: dict, targets: list[Variable]) -> None:
    """Append `op` with its outputs written into existing `targets` (persistable state updated in place,
    as Paddle's batch_norm writes MeanOut into Mean): checked by infer_meta like any op."""
    program = default_main_program()
    block = program.current_block()
    if block.idx != 0:  # a cond / while body runs on a copy of the variables: the write would be lost
        raise unimplemented(op.name, "updating persistable state inside a control-flow branch or loop body "
                                     f"(variables {[t.name for t in targets]}) is not supported yet.",
                            hint="call the layer outside the tensor-dependent if/while, or in eval mode there.")
    in_vars = [as_variable(block, t) for t in inputs]
    try:
        metas = op.infer_meta(*[v._data for v in in_vars], **attrs)
    except MinipaddleError as e:
        raise _with_source(e, op.name, user_source()) from None
    metas = (metas,) if hasattr(metas, "shape") else tuple(metas)
    for m, t in zip(metas, targets):
        if tuple(m.shape) != tuple(t._data.shape) or np.dtype(m.dtype) != t._data.dtype:
            raise invalid_argument(op.name, f"writes {np.dtype(m.dtype)}{list(m.shape)} into variable "
                                            f"'{t.name}' of {t._data.dtype}{list(t._data.shape)}.")
    block.append_op(op.name, {slot: [v.name] for slot, v in zip(op.inputs, in_vars)},
                    {slot: [t.name] for slot, t in zip(op.outputs, targets)}, attrs,
                    source=user_source(), role=_build.op_role)


def constant(block: Block, data: np.ndarray, name: str | None = None, declared: bool = False) -> Variable:
    """A constant Variable: `fill_constant` when every element is equal, else `assign_value`
    (`declared`: the variable `name` exists already, only the op is added)."""
    data = np.asarray(data)
    program = block.program
    if declared:
        var = block.vars[name]
    else:
        var = block.create_var(name or program._unique_name("constant"), data.shape, data.dtype)
    if data.size == 0 or np.all(data == data.flat[0]):
        value = data.flat[0].item() if data.size else 0
        block.append_op("fill_constant", {}, {"out": [var.name]},
                        {"shape": tuple(data.shape), "dtype": data.dtype, "value": value}, role=_build.op_role)
    else:
        block.append_op("assign_value", {}, {"out": [var.name]},
                        {"shape": tuple(data.shape), "dtype": data.dtype, "values": np.array(data, copy=True)},
                        role=_build.op_role)
    return var


def fill_constant(block: Block, shape, dtype, value, name: str | None = None,
                  like: Variable | None = None) -> Variable:
    """A Variable of `shape` filled with `value`; -1 dims take their size from `like` at run time."""
    var = block.create_var(name or block.program._unique_name("fill_constant"), shape, dtype)
    inputs = {"like": [like.name]} if like is not None and -1 in tuple(shape) else {}
    block.append_op("fill_constant", inputs, {"out": [var.name]},
                    {"shape": tuple(shape), "dtype": np.dtype(dtype), "value": value}, role=_build.op_role)
    return var


def fill_any_like(x: Variable, value, dtype) -> Variable:
    """`zeros_like(x)` & co. in a Program: a `fill_any_like` op, sized by x at run time (-1 dims too)."""
    block = default_main_program().current_block()
    x = as_variable(block, x)
    var = block.create_var(block.program._unique_name("fill_any_like"), x._data.shape, dtype)
    block.append_op("fill_any_like", {"X": [x.name]}, {"out": [var.name]},
                    {"value": value, "dtype": np.dtype(dtype)}, source=user_source(), role=_build.op_role)
    return var


def shape_of(x: Variable) -> Variable:
    """`paddle.shape(x)` in a Program: a `shape` op giving x's run-time shape as int32."""
    block = default_main_program().current_block()
    x = as_variable(block, x)
    var = block.create_var(block.program._unique_name("shape"), (x._data.ndim,), np.int32)
    block.append_op("shape", {"Input": [x.name]}, {"out": [var.name]}, {}, source=user_source(), role=_build.op_role)
    return var


def fill_shaped(op_name: str, shape, value, dtype) -> Variable:
    """`paddle.full(shape, v)` in a Program where `shape` is a Variable (ShapeTensor) or a list holding
    Variables (ShapeTensorList): a `fill_constant` whose shape is read at run time."""
    block = default_main_program().current_block()
    if isinstance(shape, Tensor):
        sv = as_variable(block, shape)
        if sv._data.ndim != 1 or sv._data.shape[0] < 0 or sv._data.dtype.kind not in "iu":
            raise invalid_argument(op_name, f"a shape Variable must be a 1-D int vector of known length, got "
                                            f"{sv._data.dtype}{list(sv._data.shape)}.")
        dims, inputs = [-1] * sv._data.shape[0], {"ShapeTensor": [sv.name]}
    else:
        dims, given = [], []
        for d in shape:
            if isinstance(d, Tensor):
                dv = as_variable(block, d)
                if dv._data.dtype.kind not in "iu" or dv._data.size not in (1, -1):
                    raise invalid_argument(op_name, f"a shape entry Variable must hold one int, got "
                                                    f"{dv._data.dtype}{list(dv._data.shape)}.")
                dims.append(-1)
                given.append(dv.name)
            elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0:
                dims.append(int(d))
            else:
                raise invalid_argument(op_name, f"shape entries must be non-negative ints or int Variables, "
                                                f"got {d!r}.")
        inputs = {"ShapeTensorList": given}
    var = block.create_var(block.program._unique_name(op_name), dims, dtype)
    block.append_op("fill_constant", inputs, {"out": [var.name]},
                    {"shape": tuple(dims), "dtype": np.dtype(dtype), "value": value}, source=user_source(),
                    role=_build.op_role)
    return var


# ---- feeding data -------------------------------------------------------------------------
def data(name: str, shape, dtype=None, lod_level: int = 0) -> Variable:
    """`paddle.static.data("x", [None, 784], "float32")`: a Variable the Executor feeds (None/-1: any size)."""
    if not in_static_mode():
        raise precondition_not_met("static.data", "static.data is only for static mode.",
                                   hint="call paddle.enable_static() first, or use paddle.to_tensor in eager mode.")
    if not isinstance(name, str) or not name:
        raise invalid_argument("static.data", f"name must be a non-empty str, got {name!r}.")
    if isinstance(shape, int):
        shape = [shape]
    try:
        dims = [-1 if d is None else int(d) for d in shape]
    except (TypeError, ValueError):
        raise invalid_argument("static.data", f"shape must be a list of ints or None, got {shape!r}.") from None
    if any(d < -1 for d in dims):
        raise invalid_argument("static.data", f"shape {list(shape)} has a negative dim other than -1.")
    np_dtype = default_float() if dtype is None else convert_dtype(dtype)
    gb = default_main_program().global_block()
    if name in gb.vars:
        raise invalid_argument("static.data", f"the program already has a variable named {name!r}.")
    return gb.create_var(name, dims, np_dtype, stop_gradient=True, is_data=True)


def create_parameter(shape, dtype=None, name: str | None = None, attr=None, is_bias: bool = False,
                     default_initializer=None) -> Variable:
    """A parameter Variable in the main program with its initializer op in the startup program.

    (Paddle's static `create_parameter`; nn layers reach the same result through `lift_parameter`.)
    """
    from ..parameter import ParamAttr, unique_name
    from .initializers import initializer_op
    attr = ParamAttr._to_attr(attr)
    if attr is None:
        raise invalid_argument("create_parameter", "attr=False means 'no parameter', which cannot be created.")
    shape = tuple(int(s) for s in shape)
    np_dtype = default_float() if dtype is None else convert_dtype(dtype)
    name = attr.name or name or unique_name("create_parameter")
    gb = default_main_program().global_block()
    if name in gb.vars:
        raise invalid_argument("create_parameter", f"the program already has a variable named {name!r}.")
    var = gb.create_parameter(name, shape, np_dtype, trainable=attr.trainable)
    var.optimize_attr = {"learning_rate": attr.learning_rate}
    var.regularizer = attr.regularizer
    var.need_clip = attr.need_clip
    init = attr.initializer or default_initializer
    if init is None:
        from ..initializer import Constant, XavierUniform
        init = Constant(0.0) if is_bias else XavierUniform()
    sb = default_startup_program().global_block()
    sb.create_var(name, shape, np_dtype, persistable=True)
    op_type, attrs = initializer_op(init, shape, np_dtype)
    sb.append_op(op_type, {}, {"out": [name]}, attrs, role="startup")
    return var
