"""Runtime helpers the converted code calls (`_jst.convert_ifelse(...)` & co.).

Each decides at run time: while a Program is being built, a condition that is a static
Variable becomes a `cond` / `while` op (`paddle.static.nn.cond` / `while_loop`); a Python value
(a config flag, an int counter) runs as plain Python, so it never becomes a graph op. Outside
building (eager) everything behaves exactly like the Python it replaced.

    y = _jst.convert_ifelse(x.mean() > 0, true_fn, false_fn, (y,), ('y',))
    i, s = _jst.convert_while_loop(cond_fn, body_fn, (i, s), ('i', 's'))
"""
from __future__ import annotations

import builtins
import numbers
import sys

import numpy as np

from ..framework.dtype import default_float
from ..framework.errors import invalid_argument, precondition_not_met, unimplemented
from ..framework.static import builder
from ..framework.static.program import Variable, VarMeta
from ..framework.tensor import Tensor

__all__ = ["UndefinedVar", "convert_ifelse", "convert_while_loop", "convert_logical_and", "convert_logical_or",
           "convert_logical_not", "convert_len", "convert_iterable", "convert_index", "convert_range",
           "convert_range_cond",
           "convert_var_dtype", "convert_shape", "convert_print", "convert_assert", "convert_stop_gradient",
           "convert_call"]


class UndefinedVar:
    """The value of a name that is first bound inside a branch or loop, before it is bound.

    Using it (arithmetic, indexing, calling an op with it) raises a clear error that names the variable.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"UndefinedVar({self.name!r})"

    def _used(self, *args, **kwargs):
        raise precondition_not_met("to_static", f"variable '{self.name}' is used before it has a value (it is "
                                                "first assigned inside an if/else branch or a loop that did not "
                                                "assign it).",
                                   hint=f"give '{self.name}' a value before the if/while, or assign it in every "
                                        "branch.")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _used
    __matmul__ = __rmatmul__ = __getitem__ = __call__ = __neg__ = __pow__ = __lt__ = __gt__ = _used
    __le__ = __ge__ = __len__ = __iter__ = __bool__ = __float__ = __int__ = __floordiv__ = __mod__ = _used


def _building() -> bool:
    return builder.in_static_mode()


def _is_var(value) -> bool:
    return isinstance(value, Variable)


def _truth(value) -> bool:
    return bool(value)


# ---- nested values <-> flat lists ------------------------------------------------------------
def _flatten(value, out: list) -> object:
    """Append the leaves of nested tuples/lists to `out`; return the structure to rebuild them."""
    if isinstance(value, (tuple, list)):
        return (type(value), [_flatten(v, out) for v in value])
    out.append(value)
    return None


def _unflatten(spec, leaves) -> object:
    if spec is None:
        return next(leaves)
    kind, items = spec
    return kind(_unflatten(s, leaves) for s in items)


def _same_structure(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a[0] is b[0] and len(a[1]) == len(b[1]) and all(_same_structure(x, y) for x, y in zip(a[1], b[1]))


def _leaf_names(spec, names) -> list[str]:
    """A label per leaf: the variable's name, with [i] for items of tuples."""
    out: list[str] = []

    def walk(s, label):
        if s is None:
            out.append(label)
        else:
            for i, sub in enumerate(s[1]):
                walk(sub, f"{label}[{i}]")
    for s, name in zip(spec[1], names):
        walk(s, name)
    return out


# ---- if / else ---------------------------------------------------------------------------------
def _reject(unsupported: tuple, what: str) -> None:
    """Refuse `try` / `raise` / a foreign `with` under a tensor condition, naming the user's line of it.

    `unsupported` holds (construct, line) pairs, the line counted from the converted function's `def`."""
    if unsupported:
        construct, line = unsupported[0]
        raise unimplemented("to_static", f"`{construct}` inside {what} whose condition is a tensor is not "
                                         f"supported{_user_line(line)}: both branches are built into the Program"
                                         + (", so the `raise` would run while building whatever the condition "
                                            "is." if construct == "raise" else "."),
                            hint="move it out of the if/while, or see the table in docs/dy2static.md.")


def _user_line(relative: int) -> str:
    """' (file.py, line N)' for a line of the converted function that is running (found on the stack)."""
    from .ast_transformer import ORIGINS
    frame = sys._getframe(2)
    while frame is not None:
        conv = ORIGINS.get(frame.f_code.co_filename)
        if conv is not None:
            return f" ({conv.source_file}, line {conv.original.__code__.co_firstlineno + relative - 1})"
        frame = frame.f_back
    return ""


def convert_ifelse(pred, true_fn, false_fn, args: tuple = (), names: tuple = (), unsupported: tuple = ()):
    """`if pred:` with branch functions: a `cond` op when pred is a Variable, else plain Python."""
    if _building() and _is_var(pred):
        _reject(unsupported, "an `if`")
        return _static_ifelse(pred, true_fn, false_fn, tuple(args), tuple(names))
    return true_fn(*args) if _truth(pred) else false_fn(*args)


def _is_number(value) -> bool:
    return isinstance(value, (numbers.Number, np.number)) and not isinstance(value, Tensor)


def _is_empty(value) -> bool:
    return value is None or isinstance(value, UndefinedVar)


def _number_dtype(*values) -> np.dtype:
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return np.dtype(np.bool_)
    if all(isinstance(v, (numbers.Integral, np.integer)) for v in values):
        return np.dtype(np.int64)
    return np.dtype(default_float())


def _fill_shape(var) -> tuple:
    return tuple(1 if d == -1 else d for d in var._data.shape)


def _write_placeholder(block, ph: Variable, shape, dtype, value) -> None:
    """Give a placeholder output of an already built branch its value, now that the other branch is known."""
    ph._data = VarMeta(shape, dtype)
    block.append_op("fill_constant", {}, {"out": [ph.name]},
                    {"shape": tuple(shape), "dtype": np.dtype(dtype), "value": 0 if _is_empty(value) else value})


def _static_ifelse(pred, true_fn, false_fn, args: tuple, names: tuple):
    from ..framework.static.control_flow import cond
    program = builder.default_main_program()
    state: dict = {}

    def build_true():
        leaves: list = []
        spec = _flatten(true_fn(*args), leaves)
        block = program.current_block()
        outs = [v if isinstance(v, Tensor) else block.create_var(program._unique_name("jst_branch"), (), np.float32)
                for v in leaves]
        state.update(t_leaves=leaves, t_spec=spec, t_block=block, t_outs=outs)
        return outs

    def build_false():
        leaves: list = []
        spec = _flatten(false_fn(*args), leaves)
        if not _same_structure(spec, state["t_spec"]):
            raise invalid_argument("to_static", f"the branches of a tensor-dependent `if` give different "
                                                f"structures for {list(names)}: true branch {state['t_spec']}, "
                                                f"false branch {spec}.",
                                   hint="make both branches assign tuples/lists of the same length.")
        labels = _leaf_names(spec, names) if spec is not None else list(names)
        block = program.current_block()
        outs, keep = [], {}
        for i, (a, b) in enumerate(zip(state["t_leaves"], leaves)):
            label = labels[i] if i < len(labels) else ("<a if cond else b>" if not names else f"#{i}")
            outs.append(_merge_leaf(i, a, b, state, block, keep, label))
        state["keep"] = keep
        return outs

    outs = cond(pred, build_true, build_false)
    final = [state["keep"].get(i, out) for i, out in enumerate(outs)]
    return _unflatten(state["t_spec"], iter(final))


def _merge_leaf(i: int, a, b, state: dict, block, keep: dict, label: str):
    """One output of the `cond`: both branches' values made into Variables of one dtype."""
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    t_block, ph = state["t_block"], state["t_outs"][i]
    if ta and tb:
        return b
    if ta:
        _check_fillable(b, label, "false")
        return builder.fill_constant(block, _fill_shape(a), a._data.dtype, 0 if _is_empty(b) else b)
    if tb:
        _check_fillable(a, label, "true")
        _write_placeholder(t_block, ph, _fill_shape(b), b._data.dtype, a)
        return b
    if a is b or (type(a) is type(b) and isinstance(a, (numbers.Number, str, bytes)) and a == b) \
            or (_is_empty(a) and _is_empty(b)):
        keep[i] = a  # the same Python value either way: no graph value needed
        _write_placeholder(t_block, ph, (), np.float32, 0)
        return builder.fill_constant(block, (), np.float32, 0)
    if _is_number(a) and _is_number(b):
        dtype = _number_dtype(a, b)
        _write_placeholder(t_block, ph, (), dtype, a)
        return builder.fill_constant(block, (), dtype, b)
    raise invalid_argument("to_static", f"variable '{label}' is a {type(a).__name__} in the true branch and a "
                                        f"{type(b).__name__} in the false branch of a tensor-dependent `if`; "
                                        "only tensors and numbers can differ between branches.",
                           hint="compute it outside the `if`, or make the condition a Python bool.")


def _check_fillable(value, label: str, branch: str) -> None:
    """A branch may leave a name unbound (it gets zeros) or give a number; None is refused: a Program
    value cannot be None, and turning it into zeros would silently change what the code computes."""
    if value is None:
        raise invalid_argument("to_static", f"variable '{label}' is None in the {branch} branch of a "
                                            "tensor-dependent `if` and a tensor in the other; a Program value "
                                            "cannot be None.",
                               hint="give it a tensor in both branches (e.g. paddle.zeros_like(...)), or make the "
                                    "condition a Python bool.")
    if not (_is_empty(value) or _is_number(value)):
        raise invalid_argument("to_static", f"variable '{label}' is a tensor in one branch but a "
                                            f"{type(value).__name__} in the {branch} branch of a tensor-dependent "
                                            "`if`.", hint="assign a tensor (or a number) in both branches.")


# ---- while -------------------------------------------------------------------------------------
def convert_while_loop(cond_fn, body_fn, loop_vars: tuple = (), names: tuple = (), unsupported: tuple = ()) -> tuple:
    """`while cond: body` over `loop_vars`: a `while` op once the condition is a Variable."""
    values = tuple(loop_vars)
    while True:
        block = builder.default_main_program().current_block() if _building() else None
        start = len(block.ops) if block is not None else 0
        pred = cond_fn(*values)
        if _building() and _is_var(pred):
            _reject(unsupported, "a loop")
            block._remove_ops(start)  # the condition is rebuilt inside the loop's own block
            return _static_while(cond_fn, body_fn, values, tuple(names))
        if not _truth(pred):
            return values
        values = tuple(body_fn(*values))


class _Retry(Exception):
    """The body turned a loop variable that started as a Python number into another dtype/shape."""

    def __init__(self, metas: dict) -> None:
        super().__init__("retry")
        self.metas = metas


def _static_while(cond_fn, body_fn, values: tuple, names: tuple) -> tuple:
    """Build a `while` op. A loop variable that starts as a Python number (`total = 0`) or with no value yet
    (None, or first assigned in the body) takes the dtype and shape the body gives it: the first build finds
    them, the loop is then built again from there. (With no value it starts as zeros, as in Paddle.)"""
    program = builder.default_main_program()
    block = program.current_block()
    metas: dict = {}
    for _ in range(3):
        n_blocks, n_ops = len(program.blocks), len(block.ops)
        try:
            return _build_while(cond_fn, body_fn, values, names, metas)
        except _Retry as retry:
            del program.blocks[n_blocks:]  # forget the attempt: its sub-blocks and the ops it added here
            program.current_block_idx = block.idx
            block._remove_ops(n_ops)
            metas.update(retry.metas)
    raise precondition_not_met("to_static", f"the loop variables {list(names)} keep changing dtype or shape.")


def _build_while(cond_fn, body_fn, values: tuple, names: tuple, metas: dict) -> tuple:
    from ..framework.static.control_flow import while_loop
    block = builder.default_main_program().current_block()
    inits, from_number = [], []
    for i, v in enumerate(values):
        label = names[i] if i < len(names) else f"#{i}"
        if isinstance(v, Tensor):
            inits.append(v)
        elif _is_number(v) or _is_empty(v):  # no tensor yet: the body tells what it becomes
            shape, dtype = metas.get(i, ((), _number_dtype(v) if _is_number(v) else np.dtype(default_float())))
            inits.append(builder.fill_constant(block, shape, dtype, 0 if _is_empty(v) else v))
            from_number.append(i)
        else:
            raise invalid_argument("to_static", f"loop variable '{label}' is {v!r} when a loop whose condition is "
                                                "a tensor starts; every loop variable needs a tensor or number "
                                                "value before the loop.",
                                   hint=f"assign '{label}' before the loop (e.g. {label} = paddle.zeros([1])).")

    def body(*vs):
        out = tuple(body_fn(*vs))
        sub = builder.default_main_program().current_block()
        changed = {}
        for i in from_number:
            if isinstance(out[i], Tensor):
                shape = tuple(out[i]._data.shape)
                meta = (() if -1 in shape else shape, out[i]._data.dtype)
                if meta != (tuple(inits[i]._data.shape), inits[i]._data.dtype):
                    changed[i] = meta
        if changed:
            raise _Retry(changed)
        return [_loop_value(v, init, names, i, sub) for i, (v, init) in enumerate(zip(out, inits))]

    return tuple(while_loop(lambda *vs: cond_fn(*vs), body, inits))


def _loop_value(v, init, names: tuple, i: int, block):
    if isinstance(v, Tensor):
        return v
    if _is_number(v):
        return builder.fill_constant(block, _fill_shape(init), init._data.dtype, v)
    label = names[i] if i < len(names) else f"#{i}"
    raise invalid_argument("to_static", f"the loop body leaves loop variable '{label}' as {v!r}; expected a tensor "
                                        "or a number.")


# ---- logic --------------------------------------------------------------------------------------
def _as_bool_var(value):
    from ..framework.ops.elementwise import cast
    if isinstance(value, Tensor):
        return value if value._data.dtype == np.bool_ else cast(value, "bool")
    return builder.fill_constant(builder.default_main_program().current_block(), (), np.bool_, bool(value))


def convert_logical_and(x_fn, y_fn):
    """`x and y`: Python's short-circuit `and` on Python values, `paddle.logical_and` on Variables."""
    x = x_fn()
    if _building() and _is_var(x):
        from ..framework.ops.compare import logical_and
        return logical_and(_as_bool_var(x), _as_bool_var(y_fn()))
    if not _truth(x):
        return x
    return y_fn()


def convert_logical_or(x_fn, y_fn):
    """`x or y`: Python's short-circuit `or` on Python values, `paddle.logical_or` on Variables."""
    x = x_fn()
    if _building() and _is_var(x):
        from ..framework.ops.compare import logical_or
        return logical_or(_as_bool_var(x), _as_bool_var(y_fn()))
    if _truth(x):
        return x
    return y_fn()


def convert_logical_not(x):
    if _building() and _is_var(x):
        from ..framework.ops.compare import logical_not
        return logical_not(_as_bool_var(x))
    return not x


# ---- len, iteration, range ------------------------------------------------------------------------
def _runtime_dim(x: Variable, axis: int):
    """The size of x's `axis` as a 0-D int64 Variable, for a dim the build-time shape gives as -1:
    the count of elements along that axis (other axes taken at index 0)."""
    from ..framework.ops.compare import isnan, logical_not, logical_or
    from ..framework.ops.elementwise import cast
    from ..framework.ops.reduction import sum as reduce_sum
    shape = x._data.shape
    if any(d == 0 for a, d in enumerate(shape) if a != axis):
        raise unimplemented("to_static", f"the size of dim {axis} of a Variable of shape {list(shape)} is only known "
                                         "at run time, and an empty dim elsewhere hides it.")
    line = x[tuple(slice(None) if a == axis else 0 for a in range(len(shape)))] if len(shape) > 1 else x
    nan = isnan(line)
    return reduce_sum(cast(logical_or(nan, logical_not(nan)), "int64"))


def convert_len(x):
    """`len(x)`: a Variable's first dim (an int64 Variable when it is unknown while building)."""
    if _is_var(x):
        if not x._data.shape:
            raise invalid_argument("len", f"Variable '{x.name}' is 0-D and has no length.")
        n = x._data.shape[0]
        return n if n != -1 else _runtime_dim(x, 0)
    return len(x)


def convert_iterable(x):
    """What a for-loop indexes: tensors, lists and tuples as they are, any other iterable as a list."""
    if isinstance(x, (Tensor, list, tuple, range)):
        return x
    return list(x)


def convert_index(seq, i):
    """`seq[i]`: plain indexing. A tensor indexed by an integer Variable (a loop counter once its loop
    is a `while` op) builds a `getitem_dynamic` op by itself (ops/index_dynamic.py), as `x[i:i + 2]` does."""
    return seq[i]


def convert_range(*args) -> tuple:
    """range's arguments as (start, stop, step); any may be a Variable."""
    if not 1 <= len(args) <= 3:
        raise invalid_argument("range", f"range expected 1 to 3 arguments, got {len(args)}.")
    if len(args) == 1:
        return 0, args[0], 1
    if len(args) == 2:
        return args[0], args[1], 1
    return args


def convert_range_cond(i, stop, step):
    """The loop test of `for i in range(...)`: i < stop for a positive step, i > stop for a negative one."""
    if _building() and _is_var(step):
        from ..framework.ops.compare import logical_and, logical_or
        return logical_or(logical_and(step > 0, i < stop), logical_and(step < 0, i > stop))
    return i < stop if step > 0 else i > stop


# ---- casts, shape, print, assert -------------------------------------------------------------------
_CASTS = {"int": "int64", "float": None, "bool": "bool"}


def convert_var_dtype(x, kind: str):
    """`int(x)` / `float(x)` / `bool(x)`: a cast op for a Variable, Python's conversion otherwise."""
    if _building() and _is_var(x):
        from ..framework.ops.elementwise import cast
        return cast(x, _CASTS[kind] or str(np.dtype(default_float())))
    return getattr(builtins, kind)(x)


def convert_shape(x):
    """`x.shape`: a Variable's dims that are only known at run time (-1 while building) become int64
    Variables computed by the program, so `range(x.shape[0])` loops the right number of times."""
    if _building() and _is_var(x) and -1 in x._data.shape:
        return [d if d != -1 else _runtime_dim(x, a) for a, d in enumerate(x._data.shape)]
    return x.shape


def convert_print(*args, sep: str = " ", end: str = "\n", **kwargs) -> None:
    """`print(...)`: with a Variable among the arguments while building, a `jit_print` op that prints the
    values every time the Program runs; otherwise Python's print."""
    if not (_building() and any(_is_var(a) for a in args)) or kwargs:
        builtins.print(*args, sep=sep, end=end, **kwargs)
        return
    from ..framework.dispatch import dispatch
    from .jit_ops import PRINT
    tensors, template = [], []
    for a in args:
        if isinstance(a, Tensor):
            template.append(("tensor", len(tensors)))
            tensors.append(a)
        else:
            template.append(("text", str(a)))
    dispatch(PRINT, tuple(tensors), {"template": tuple(template), "sep": sep, "end": end})


def convert_assert(test, msg=None) -> None:
    """`assert test, msg`: checked now for Python values and eager tensors; for a Variable, a `jit_assert`
    op checks it every time the Program runs (naming the user's line)."""
    if _building() and _is_var(test):
        from ..framework.dispatch import dispatch
        from .error import user_location
        from .jit_ops import ASSERT
        caller = sys._getframe(1)
        where = user_location(caller.f_code.co_filename, caller.f_lineno) or ""
        dispatch(ASSERT, (test,), {"message": "" if msg is None else str(msg), "where": where})
        return
    if not _truth(test):
        raise AssertionError(msg) if msg is not None else AssertionError()


def convert_stop_gradient(value):
    """After a `with paddle.no_grad():` block: a Variable the block assigned goes through `jit_stop_gradient`,
    so gradients stop there when the Program runs with autograd (as they did eagerly)."""
    if isinstance(value, (tuple, list)):
        return type(value)(convert_stop_gradient(v) for v in value)
    if _building() and _is_var(value):
        from ..framework.dispatch import dispatch
        from .jit_ops import STOP_GRADIENT
        out = dispatch(STOP_GRADIENT, (value,))
        out.stop_gradient = True
        return out
    return value


def convert_call(func):
    """`f(...)` in converted code: user functions and layers are converted too (recursively);
    minipaddle / numpy / standard-library functions and builtins are called as they are."""
    from .convert_call_func import convert_callable
    return convert_callable(func)
