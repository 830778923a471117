"""paddle.static.nn: fc, and the control-flow ops cond / while_loop / case / switch_case.

fc builds on nn (in dygraph it is an nn.Linear), so it lives here, above the core; the
control-flow ops are the core's (framework/static/control_flow.py: the Executor runs them).

    h = paddle.static.nn.fc(x, 64, activation="relu")     # parameters fc_0.w_0 [in, 64], fc_0.b_0 [64]
"""
from __future__ import annotations

import math

from ..framework.errors import invalid_argument
from ..framework.ops.manipulation import reshape
from ..framework.ops.nn_ops import linear
from ..framework.parameter import unique_name
from ..framework.static import builder
from ..framework.static.control_flow import case, cond, switch_case, while_loop

__all__ = ["fc", "cond", "while_loop", "case", "switch_case"]


def fc(x, size: int, num_flatten_dims: int = 1, weight_attr=None, bias_attr=None, activation: str | None = None,
       name: str | None = None):
    """A fully connected layer: flatten x's dims from `num_flatten_dims` on, `@ W + b`, then `activation`."""
    from .. import nn   # on first use: `import minipaddle.static` stays light
    if not isinstance(size, int) or size <= 0:
        raise invalid_argument("fc", f"size must be a positive int, got {size!r}.")
    shape = list(x.shape)
    if not 1 <= num_flatten_dims < len(shape):
        raise invalid_argument("fc", f"num_flatten_dims={num_flatten_dims} must be in [1, {len(shape) - 1}] "
                                     f"for input shape {shape}.")
    rest = shape[num_flatten_dims:]
    if -1 in rest:
        raise invalid_argument("fc", f"the dims of x from num_flatten_dims on ({rest}) must be known.")
    in_features = math.prod(rest)
    if len(rest) > 1:
        x = reshape(x, shape[:num_flatten_dims] + [in_features])
    prefix = name or unique_name("fc")
    dtype = x._data.dtype
    if builder.in_static_mode():
        weight = builder.create_parameter([in_features, size], dtype, name=f"{prefix}.w_0", attr=weight_attr)
        bias = None if bias_attr is False else builder.create_parameter([size], dtype, name=f"{prefix}.b_0",
                                                                         attr=bias_attr, is_bias=True)
    else:
        layer = nn.Linear(in_features, size, weight_attr=weight_attr, bias_attr=bias_attr)
        weight, bias = layer.weight, layer.bias
    out = linear(x, weight, bias)
    if activation is not None:
        act = getattr(nn.functional, activation, None)
        if act is None:
            raise invalid_argument("fc", f"unknown activation {activation!r}.", hint="e.g. 'relu', 'tanh', 'sigmoid'.")
        out = act(out)
    return out
