"""Parameter: a Tensor a Layer owns and an optimizer updates; ParamAttr: how to make one.

Like Paddle's EagerParamBase, a Parameter *is* a Tensor (every op accepts it) with
stop_gradient=False, a unique name (`linear_0.w_0`) and the settings optimizers read:
`optimize_attr["learning_rate"]` (a per-parameter multiplier), `regularizer`, `need_clip`.
"""
from __future__ import annotations

import contextlib
import itertools
from collections import defaultdict

import numpy as np

from . import gpu
from .dtype import convert_dtype, default_float
from .errors import invalid_argument
from .initializer import Constant, XavierUniform
from .place import current_place
from .tensor import Tensor

_counters: dict[str, itertools.count] = defaultdict(itertools.count)


def unique_name(prefix: str) -> str:
    """`unique_name("linear")` -> "linear_0", then "linear_1", ... (Paddle's unique_name.generate)."""
    return f"{prefix}_{next(_counters[prefix])}"


@contextlib.contextmanager
def unique_name_guard(new_generator=None):
    """`with paddle.utils.unique_name.guard():` names start again from 0 inside (fc_0, learning_rate_0),
    so building the same Program twice gives the same variable names; the old counters come back after."""
    global _counters
    saved = _counters
    _counters = defaultdict(itertools.count)
    try:
        yield
    finally:
        _counters = saved


class Parameter(Tensor):
    """A trainable tensor: `stop_gradient` is False unless `trainable=False`."""

    regularizer = None
    need_clip = True
    is_distributed = False

    def __init__(self, data: np.ndarray, name: str | None = None, trainable: bool = True,
                 learning_rate: float = 1.0, regularizer=None, need_clip: bool = True) -> None:
        self._data = data
        self._name = name if name is not None else unique_name("param")
        self.stop_gradient = not trainable
        self.persistable = True
        self.optimize_attr = {"learning_rate": float(learning_rate)}
        self.regularizer = regularizer
        self.need_clip = need_clip

    @property
    def trainable(self) -> bool:
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self.stop_gradient = not value

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__


class ParamAttr:
    """How a layer should create one parameter (Paddle's `paddle.ParamAttr`).

    >>> fc = paddle.nn.Linear(4, 2, weight_attr=paddle.ParamAttr(
    ...     initializer=paddle.nn.initializer.Constant(0.5), learning_rate=0.1))   # doctest: +SKIP
    """

    def __init__(self, name: str | None = None, initializer=None, learning_rate: float = 1.0,
                 regularizer=None, trainable: bool = True, do_model_average: bool = True,
                 need_clip: bool = True) -> None:
        if initializer is not None and not callable(initializer):
            raise invalid_argument("ParamAttr", f"initializer must be callable, got {type(initializer).__name__}.")
        if not isinstance(learning_rate, (int, float)) or learning_rate < 0:
            raise invalid_argument("ParamAttr", f"learning_rate must be a number >= 0, got {learning_rate!r}.")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    @staticmethod
    def _to_attr(arg) -> "ParamAttr | None":
        """Paddle's accepted spellings: None (defaults), False (no parameter), a ParamAttr, a name,
        or an initializer."""
        if arg is None:
            return ParamAttr()
        if arg is False:
            return None
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if callable(arg):
            return ParamAttr(initializer=arg)
        raise invalid_argument("ParamAttr", f"got {type(arg).__name__}, expected None, False, a ParamAttr, "
                                            "a name or an initializer.")

    def __repr__(self) -> str:
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, trainable={self.trainable})")


def create_parameter(shape, dtype=None, name: str | None = None, attr=None, is_bias: bool = False,
                     default_initializer=None) -> Parameter:
    """`paddle.create_parameter([3, 4], "float32")`: a new Parameter, initialized.

    The initializer comes from `attr.initializer`, else `default_initializer`, else Paddle's
    default: Constant(0) for a bias, XavierUniform for a weight.
    """
    attr = ParamAttr._to_attr(attr)
    if attr is None:
        raise invalid_argument("create_parameter", "attr=False means 'no parameter', which cannot be created.")
    try:
        shape = tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise invalid_argument("create_parameter", f"shape must be a list of ints, got {shape!r}.") from None
    if any(s < 0 for s in shape):
        raise invalid_argument("create_parameter", f"shape must not have negative dims, got {list(shape)}.")
    np_dtype = default_float() if dtype is None else convert_dtype(dtype)
    if np_dtype.kind != "f":
        raise invalid_argument("create_parameter", f"dtype must be a float type, got {np_dtype}.")
    initializer = attr.initializer or default_initializer
    if initializer is None:
        initializer = Constant(0.0) if is_bias else XavierUniform()
    param = Parameter(np.zeros(shape, dtype=np_dtype), name=attr.name or name or unique_name("create_parameter"),
                      trainable=attr.trainable, learning_rate=attr.learning_rate,
                      regularizer=attr.regularizer, need_clip=attr.need_clip)
    from .thread_modes import modes
    if modes.static_builder is None:
        initializer(param)
        _to_current_place(param)
    else:  # static mode, as in Paddle: the startup program draws the values (static.builder.lift_parameter)
        param._static_initializer = (initializer, param.inplace_version)
    return param


def _to_current_place(param: Parameter) -> None:
    """Move a parameter initialized on the host to the current device (`paddle.set_device("gpu")`): the values
    are drawn on the host from the one generator, so a model built from a seed is the same on either device."""
    if current_place().backend == "gpu":
        param._data = gpu.to_device(param._data)
