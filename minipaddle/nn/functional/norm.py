"""Functional API: batch_norm, layer_norm, group_norm, instance_norm (Paddle 2.x signatures).

Each function checks its arguments, fills a missing weight/bias with ones/zeros and calls one fused
op from framework/ops/norm.py. batch_norm in training also updates the running statistics in place,
with Paddle's momentum convention (the opposite of PyTorch's):

    running = momentum * running + (1 - momentum) * batch          (momentum=0.9 keeps 90% of the old)

and, as Paddle does, with the biased batch variance (divided by n, not n - 1).

In a static Program (static mode, to_static, jit.save's trace) the running statistics are persistable
buffer Variables bound by reference, and a training batch_norm is followed by a `batch_norm_update` op
that writes the new statistics into them -- Paddle's MeanOut / VarianceOut -- so `Executor.run` (and
to_static's run) keeps them; `clone(for_test=True)` flips the ops' `is_test` to use them instead.
"""
from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from ...framework import arrays
from ...framework.dispatch import dispatch
from ...framework.errors import invalid_argument
from ...framework.ops.common import as_tensor
from ...framework.ops.norm import BATCH_NORM, BATCH_NORM_UPDATE, CHANNEL_FIRST, CHANNEL_LAST, GROUP_NORM, LAYER_NORM
from ...framework.registry import DEVICE_ARRAY_TYPES, run_kernel
from ...framework.tensor import Tensor

__all__ = ["batch_norm", "layer_norm", "group_norm", "instance_norm", "local_response_norm"]


def _constant(value: float, size: int, like) -> Tensor:
    """The weight (1) or bias (0) used when none is given: a constant that takes no gradient, made where the
    array `like` (x's storage) lives."""
    return Tensor._wrap(arrays.full((size,), value, np.dtype(like.dtype), like))


def _affine(op: str, x: Tensor, weight, bias, size: int) -> tuple[Tensor, Tensor]:
    weight = _constant(1.0, size, x._data) if weight is None else as_tensor(op, "weight", weight)
    bias = _constant(0.0, size, x._data) if bias is None else as_tensor(op, "bias", bias)
    return weight, bias


def _check_format(op: str, data_format: str, allowed: tuple) -> None:
    if data_format not in allowed:
        raise invalid_argument(op, f"data_format {data_format!r} is not supported; expected one of {list(allowed)}.")


def batch_norm(x: Tensor, running_mean: Tensor, running_var: Tensor, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.9, epsilon: float = 1e-05,
               data_format: str = "NCHW", use_global_stats: bool | None = None, name=None) -> Tensor:
    """Normalize each channel: by the batch's mean/variance when training (updating the running ones
    in place), by `running_mean`/`running_var` otherwise or when `use_global_stats` is True.

    >>> y = F.batch_norm(x, bn_mean, bn_var, w, b, training=True)     # doctest: +SKIP
    """
    x = as_tensor("batch_norm", "x", x)
    running_mean = as_tensor("batch_norm", "running_mean", running_mean)
    running_var = as_tensor("batch_norm", "running_var", running_var)
    _check_format("batch_norm", data_format, CHANNEL_FIRST + CHANNEL_LAST)
    if not 0.0 <= momentum <= 1.0:
        raise invalid_argument("batch_norm", f"momentum must be in [0, 1], got {momentum}.")
    if use_global_stats is None:
        use_global_stats = not training
    shape = x._data.shape
    channels = shape[-1] if data_format in CHANNEL_LAST and len(shape) > 2 else shape[1] if len(shape) > 1 else 0
    weight, bias = _affine("batch_norm", x, weight, bias, channels)
    attrs = {"epsilon": float(epsilon), "data_format": data_format, "use_global_stats": bool(use_global_stats)}
    batch_stats = not use_global_stats
    if batch_stats and x._data.ndim >= 2 and channels and x._data.size == channels:
        # one value per channel: Paddle leaves x as it is (its variance would be 0)
        from ...framework.ops.elementwise import assign
        return assign(x)
    if _building():
        return _static_batch_norm(x, running_mean, running_var, weight, bias, attrs, batch_stats and training,
                                  float(momentum))
    out, saved_mean, saved_var = dispatch(BATCH_NORM, (x, weight, bias, running_mean, running_var), attrs)
    if batch_stats and training:
        _update_running(running_mean, running_var, saved_mean._data, saved_var._data, momentum)
    return out


def _building() -> bool:
    from ...framework.thread_modes import modes
    return modes.static_builder is not None


def _static_batch_norm(x, running_mean, running_var, weight, bias, attrs: dict, update: bool, momentum: float):
    """batch_norm in a Program: the running statistics by reference, updated by an op when training."""
    from ...framework.static import builder
    program = builder.default_main_program()
    mean_var = builder.lift_buffer(program, running_mean)
    var_var = builder.lift_buffer(program, running_var)
    attrs = dict(attrs, is_test=False)
    out, saved_mean, saved_var = dispatch(BATCH_NORM, (x, weight, bias, mean_var, var_var), attrs)
    if update:
        if not (mean_var.persistable and var_var.persistable):
            raise invalid_argument("batch_norm", "in a static Program, training batch_norm updates running_mean and "
                                                 "running_var, which must be persistable variables; got "
                                                 f"'{mean_var.name}' and '{var_var.name}'.",
                                   hint="pass the layer's buffers (or paddle.static.create_global_var(..., "
                                        "persistable=True)).")
        builder.write_op(BATCH_NORM_UPDATE, (mean_var, var_var, saved_mean, saved_var),
                         {"momentum": momentum, "is_test": False}, [mean_var, var_var])
    return out


def _update_running(running_mean: Tensor, running_var: Tensor, batch_mean, batch_var, momentum: float) -> None:
    """running = momentum * running + (1 - momentum) * batch, in place and outside the graph.

    On the GPU the batch_norm_update op's kernel computes the new statistics, which are copied into the
    buffers' own storage (a layer's buffer keeps its array, as it does on the CPU)."""
    mean, var = running_mean._data, running_var._data
    if type(mean) in DEVICE_ARRAY_TYPES:
        inputs, attrs = (mean, var, batch_mean, batch_var), {"momentum": float(momentum), "is_test": False}
        new_mean, new_var = run_kernel(BATCH_NORM_UPDATE, inputs, attrs, "gpu",
                                       BATCH_NORM_UPDATE.infer_meta(*inputs, **attrs))
        mean.copy_to_device(new_mean)
        var.copy_to_device(new_var)
    else:
        for data, batch in ((mean, batch_mean), (var, batch_var)):
            data *= momentum
            data += (1.0 - momentum) * batch
    running_mean._bump_version()
    running_var._bump_version()


def layer_norm(x: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               epsilon: float = 1e-05, name=None) -> Tensor:
    """Normalize over the trailing dims `normalized_shape` of each sample, then scale and shift.

    `weight` and `bias` have normalized_shape's number of elements (a LayerNorm stores them flattened).
    """
    x = as_tensor("layer_norm", "x", x)
    if isinstance(normalized_shape, Integral):
        normalized_shape = [int(normalized_shape)]
    normalized_shape = list(normalized_shape)
    shape = list(x._data.shape)
    begin = len(shape) - len(normalized_shape)
    if not normalized_shape or begin < 0 or shape[begin:] != normalized_shape:
        raise invalid_argument("layer_norm", f"normalized_shape {normalized_shape} must match the trailing dims of "
                                             f"x, shape {shape}.",
                               hint="e.g. x of shape [N, T, 64] is normalized with normalized_shape=[64].")
    size = math.prod(normalized_shape)
    weight, bias = _affine("layer_norm", x, weight, bias, size)
    weight, bias = _flat(weight, size), _flat(bias, size)
    out, _, _ = dispatch(LAYER_NORM, (x, weight, bias), {"epsilon": float(epsilon), "begin_norm_axis": begin})
    return out


def _flat(t: Tensor, size: int) -> Tensor:
    """A weight given in normalized_shape's shape, flattened (as the op and a LayerNorm store it)."""
    if t._data.ndim != 1 and t._data.size == size:
        from ...framework.ops.manipulation import reshape
        return reshape(t, [size])
    return t


def group_norm(x: Tensor, num_groups: int, epsilon: float = 1e-05, weight: Tensor | None = None,
               bias: Tensor | None = None, data_format: str = "NCHW", name=None) -> Tensor:
    """Split the channels into `num_groups` groups; normalize each group of each sample, then scale
    and shift per channel."""
    x = as_tensor("group_norm", "x", x)
    _check_format("group_norm", data_format, CHANNEL_FIRST + CHANNEL_LAST)
    if not isinstance(num_groups, Integral) or isinstance(num_groups, bool):
        raise invalid_argument("group_norm", f"num_groups must be an int, got {type(num_groups).__name__}.")
    last = data_format in CHANNEL_LAST
    x_cf = _to_channel_first(x) if last else x
    channels = x_cf._data.shape[1] if x_cf._data.ndim > 1 else 0
    weight, bias = _affine("group_norm", x, weight, bias, channels)
    out, _, _ = dispatch(GROUP_NORM, (x_cf, weight, bias), {"epsilon": float(epsilon), "groups": int(num_groups)})
    return _to_channel_last(out) if last else out


def _to_channel_first(x: Tensor) -> Tensor:
    from ...framework.ops.manipulation import transpose
    ndim = x._data.ndim
    if ndim < 3:
        return x
    return transpose(x, [0, ndim - 1] + list(range(1, ndim - 1)))


def _to_channel_last(x: Tensor) -> Tensor:
    from ...framework.ops.manipulation import transpose
    ndim = x._data.ndim
    if ndim < 3:
        return x
    return transpose(x, [0] + list(range(2, ndim)) + [1])


def instance_norm(x: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.9, eps: float = 1e-05, data_format: str = "NCHW", name=None) -> Tensor:
    """Normalize each channel of each sample over its spatial dims (group_norm with one channel a group).

    With use_input_stats=False the given running statistics are used instead, as batch_norm in eval does.
    """
    x = as_tensor("instance_norm", "x", x)
    _check_format("instance_norm", data_format, CHANNEL_FIRST + CHANNEL_LAST)
    if x._data.ndim < 3 and use_input_stats:
        raise invalid_argument("instance_norm", f"x has shape {list(x._data.shape)}, expected at least 3-D "
                                                "[N, C, L, ...]: each channel needs spatial values to normalize.")
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise invalid_argument("instance_norm", "use_input_stats=False needs running_mean and running_var.")
        return batch_norm(x, running_mean, running_var, weight, bias, training=False, momentum=momentum,
                          epsilon=eps, data_format=data_format, use_global_stats=True)
    channels = x._data.shape[-1] if data_format in CHANNEL_LAST else x._data.shape[1]
    return group_norm(x, channels, eps, weight, bias, data_format)


_LRN_FORMATS = ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC")


def local_response_norm(x: Tensor, size: int, alpha: float = 0.0001, beta: float = 0.75, k: float = 1.0,
                        data_format: str = "NCHW", name: str | None = None) -> Tensor:
    """Normalize each value by the squares of its neighbours across channels (AlexNet's LRN):

        out[c] = x[c] / (k + alpha / size * sum of x[j]^2 for j in [c - size//2, c + (size-1)//2]) ** beta

    Composed of existing ops (as Paddle composes it from pad + avg_pool), so its gradient comes from them.
    """
    from ...framework.ops.joining import pad
    op = "local_response_norm"
    x = as_tensor(op, "x", x)
    if data_format not in _LRN_FORMATS:
        raise invalid_argument(op, f"data_format got {data_format!r}, expected one of {list(_LRN_FORMATS)}.")
    if x.ndim < 3:
        raise invalid_argument(op, f"x has shape {x.shape}; expected 3-D or higher input ({data_format}).")
    if any(s <= 0 for s in x.shape[1:]):
        raise invalid_argument(op, f"x has shape {x.shape}; every dim but the batch must be larger than 0.")
    if isinstance(size, bool) or not isinstance(size, Integral) or size < 1:
        raise invalid_argument(op, f"size must be an int >= 1, got {size!r}.")
    axis = x.ndim - 1 if data_format[-1] == "C" else 1
    widths = [0] * (2 * x.ndim)
    widths[2 * axis], widths[2 * axis + 1] = size // 2, (size - 1) // 2
    squares = pad(x * x, widths)          # zeros beyond the first and last channel
    channels = x.shape[axis]
    window = None
    for start in range(size):             # sum of `size` shifted copies: each channel's neighbourhood
        index = [slice(None)] * x.ndim
        index[axis] = slice(start, start + channels)
        part = squares[tuple(index)]
        window = part if window is None else window + part
    return x / (window * (alpha / size) + k) ** beta
