"""paddle.summary: a table of a network's layers with input/output shapes and parameter counts.

It runs one forward pass on random inputs (or the `input` you give) with a forward post-hook on
every layer, which records each layer's input and output shapes and its own parameters:

    ---------------------------------------------------------------------------
     Layer (type)       Input Shape          Output Shape         Param #
    ===========================================================================
       Linear-1          [[1, 4]]               [1, 8]                40
    ...
    Total params: 58
    Trainable params: 58
    Non-trainable params: 0
    ---------------------------------------------------------------------------
    Input size (MB): 0.00
    Forward/backward pass size (MB): 0.00
    Params size (MB): 0.00
    Estimated Total Size (MB): 0.00
    ---------------------------------------------------------------------------

Sizes are estimated as Paddle does: 4 bytes per value, outputs counted twice (forward + gradient).
"""
from __future__ import annotations

import numbers
from collections import OrderedDict

import numpy as np

from ..framework.autograd import no_grad
from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor

__all__ = ["summary"]


def _is_shape(items) -> bool:
    return isinstance(items, (list, tuple)) and all(isinstance(i, numbers.Number) or i is None for i in items)


def _spec_shape(item):
    """An InputSpec-like object (anything with .shape) -> its shape as a tuple."""
    return tuple(item.shape) if hasattr(item, "shape") and not isinstance(item, (list, tuple)) else item


def _normalize_input_size(input_size):
    if _spec_shape(input_size) is not input_size:
        return tuple(_spec_shape(input_size))
    if isinstance(input_size, int):
        return (input_size,)
    if isinstance(input_size, list) and not _is_shape(input_size):
        out = []
        for item in input_size:
            item = (item,) if isinstance(item, int) else _spec_shape(item)
            if not isinstance(item, (tuple, list)):
                raise invalid_argument("summary", f"input_size items must be tuples or InputSpecs, got "
                                                  f"{type(item).__name__}.")
            out.append(tuple(item))
        return out
    return input_size


def _check_shape(shape) -> tuple:
    """Replace the one unknown dim (None or -1, the batch) by 1; anything else must be positive."""
    unknown = [d for d in shape if d is None or d == -1]
    if len(unknown) > 1:
        raise invalid_argument("summary", f"input_size {list(shape)}: only the batch dim may be None or -1.")
    for d in shape:
        if d is not None and d != -1 and d <= 0:
            raise invalid_argument("summary", f"input_size {list(shape)}: dims must be positive (or None/-1 "
                                              "for the batch).")
    return tuple(1 if d is None or d == -1 else int(d) for d in shape)


def _check_input(input_size):
    if _is_shape(input_size):
        return _check_shape(input_size)
    if isinstance(input_size, (list, tuple)):
        return [_check_input(i) for i in input_size]
    raise invalid_argument("summary", f"input_size must be a shape (tuple of ints), a list of shapes or an int, "
                                      f"got {input_size!r}.")


def summary(net, input_size=None, dtypes=None, input=None) -> dict:
    """Print the layer table of `net` and return {'total_params': n, 'trainable_params': m}.

    >>> paddle.summary(paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU()), (1, 4))  # doctest: +SKIP
    """
    if input_size is None and input is None:
        raise invalid_argument("summary", "input_size and input cannot both be None.",
                               hint="pass input_size=(batch, features) or an example input tensor.")
    if input_size is None:
        if isinstance(input, Tensor):
            input_size = tuple(input.shape)
        elif isinstance(input, (list, tuple)):
            input_size = [tuple(x.shape) for x in input]
        elif isinstance(input, dict):
            input_size = [tuple(x.shape) for x in input.values()]
        else:
            raise invalid_argument("summary", f"input is a {type(input).__name__}; expected a Tensor, or a "
                                              "list/tuple/dict of Tensors.")
    input_size = _check_input(_normalize_input_size(input_size))
    table, params_info = summary_string(net, input_size, dtypes, input)
    print(table)
    return params_info


def _build_dtypes(input_size, dtype):
    if _is_shape(input_size):
        return [dtype or "float32"]
    return [_build_dtypes(i, dtype) for i in input_size]


def _build_input(input_size, dtypes):
    from ..framework.creation import rand
    from ..framework.dtype import convert_dtype
    if _is_shape(input_size):
        dtype = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
        return Tensor._wrap(rand(list(input_size)).numpy().astype(convert_dtype(dtype or "float32")))
    return [_build_input(i, d) for i, d in zip(input_size, dtypes)]


def _shape_of(x):
    if isinstance(x, (list, tuple)):
        return [_shape_of(v) for v in x]
    return list(x.shape) if hasattr(x, "shape") else []


def _record_layers(model, x_args) -> OrderedDict:
    """Run `model` once with a post-hook on every layer; per layer: shapes and parameter counts."""
    from ..nn.layer.container import LayerList, Sequential
    records: OrderedDict = OrderedDict()
    depth = len(model.sublayers())

    def hook(layer, inputs, outputs):
        class_name = type(layer).__name__
        try:
            layer_idx = int(layer._full_name.split("_")[-1])
        except ValueError:
            layer_idx = len(records)
        info = {"input_shape": _shape_of(inputs), "output_shape": _shape_of(outputs),
                "nb_params": 0, "trainable_params": 0, "trainable": False}
        for p in layer._parameters.values():
            if p is None:
                continue
            info["nb_params"] += int(np.prod(p.shape))
            if not p.stop_gradient:
                info["trainable_params"] += int(np.prod(p.shape))
                info["trainable"] = True
        records[f"{class_name}-{layer_idx + 1}"] = info

    hooks = [layer.register_forward_post_hook(hook) for layer in model.sublayers(include_self=True)
             if not isinstance(layer, (Sequential, LayerList)) and (layer is not model or depth < 1)]
    try:
        with no_grad():
            model(*x_args)
    finally:
        for h in hooks:
            h.remove()
    return records


def _widths(records: OrderedDict) -> dict:
    w = {"layer": 15, "input": 20, "output": 20, "params": 15}
    for name, info in records.items():
        w["layer"] = max(w["layer"], len(name))
        w["input"] = max(w["input"], len(str(info["input_shape"])))
        w["output"] = max(w["output"], len(str(info["output_shape"])))
        w["params"] = max(w["params"], len(str(info["nb_params"])))
    w["table"] = max(75, sum(w.values()) + 5)
    return w


def _input_mb(input_size) -> float:
    if _is_shape(input_size):
        return abs(float(np.prod(input_size)) * 4.0 / 1024 ** 2)
    return sum(_input_mb(i) for i in input_size)


def _count_outputs(shape) -> int:
    """Values in one output shape (or nested list of shapes)."""
    if shape and all(isinstance(d, list) for d in shape):
        return sum(_count_outputs(s) for s in shape)
    return int(np.prod(shape)) if shape else 0


def summary_string(model, input_size=None, dtypes=None, input=None) -> tuple[str, dict]:
    """The table as a string and the counts; `summary` prints the string."""
    if isinstance(input_size, tuple):
        input_size = [input_size]
    if input is not None:
        x_args = (input,)   # as Paddle: the given input is passed as the one argument
    else:
        if not isinstance(dtypes, (list, tuple)):
            dtypes = _build_dtypes(input_size, dtypes)
        x_args = _build_input(input_size, dtypes)
    records = _record_layers(model, x_args)
    w = _widths(records)

    def row(a, b, c, d) -> str:
        return f"{a:^{w['layer']}} {b:^{w['input']}} {c:^{w['output']}} {d:^{w['params']}}"

    lines = ["-" * w["table"], row("Layer (type)", "Input Shape", "Output Shape", "Param #"), "=" * w["table"]]
    total_params = trainable_params = total_output = 0
    for name, info in records.items():
        lines.append(row(name, str(info["input_shape"]), str(info["output_shape"]), f"{info['nb_params']:,}"))
        total_params += info["nb_params"]
        total_output += _count_outputs(info["output_shape"])
        if info["trainable"]:
            trainable_params += info["trainable_params"]
    input_mb = _input_mb(input_size)
    output_mb = abs(2.0 * total_output * 4.0 / 1024 ** 2)
    params_mb = abs(total_params * 4.0 / 1024 ** 2)
    lines += ["=" * w["table"], f"Total params: {total_params:,}", f"Trainable params: {trainable_params:,}",
              f"Non-trainable params: {total_params - trainable_params:,}", "-" * w["table"],
              f"Input size (MB): {input_mb:.2f}", f"Forward/backward pass size (MB): {output_mb:.2f}",
              f"Params size (MB): {params_mb:.2f}",
              f"Estimated Total Size (MB): {params_mb + output_mb + input_mb:.2f}", "-" * w["table"]]
    return "\n".join(lines) + "\n", {"total_params": total_params, "trainable_params": trainable_params}
