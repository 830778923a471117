"""paddle.flops: count a network's multiply-adds by running it once, as Paddle's dynamic_flops counts them.

    net = paddle.vision.models.LeNet()
    paddle.flops(net, [1, 1, 28, 28], print_detail=True)      # 347560 (Paddle's docs give the same)

Each leaf layer (a layer without sublayers) of a known type gets a forward hook that adds its count;
the formulas are Paddle's (hapi/dynamic_flops.py):

    Conv*        out.numel() * (in_channels / groups * kernel_elems + has_bias)
    Linear       out.numel() * in_features
    BatchNorm    2 * x.numel() (the model runs in eval mode)
    LeakyReLU    x.numel();  AvgPool: out.numel();  AdaptiveAvgPool: out.numel() * (kernel_elems + 1)
    ReLU, ReLU6, Dropout, and any other layer: 0 (pass custom_ops={LayerType: fn(layer, inputs, output)})

Two differences from Paddle 3.3.1 (see docs/coming_from_paddle.md): its flops() raises TypeError for
any network with sublayers (`int()` of a shape-[1] tensor), and a single leaf layer passed as the
network counts as 0 there; here both are counted.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..framework.autograd import no_grad
from ..framework.creation import randn
from ..framework.errors import invalid_argument
from ..nn import layer as _layers
from ..nn.layer.layers import Layer

__all__ = ["flops"]


def _numel(t) -> int:
    return int(np.prod(t.shape, dtype=np.int64))


def count_convNd(layer, inputs, output) -> int:  # noqa: N802 - Paddle's name
    kernel_elems = int(np.prod(layer.weight.shape[2:]))
    bias = 1 if layer.bias is not None else 0
    in_channels = inputs[0].shape[1]
    return abs(int(_numel(output) * (in_channels / layer._groups * kernel_elems + bias)))


def count_linear(layer, inputs, output) -> int:
    return abs(int(layer.weight.shape[0] * _numel(output)))


def count_bn(layer, inputs, output) -> int:
    return 2 * _numel(inputs[0])


def count_leaky_relu(layer, inputs, output) -> int:
    return _numel(inputs[0])


def count_avgpool(layer, inputs, output) -> int:
    return _numel(output)


def count_adaptive_avgpool(layer, inputs, output) -> int:
    kernel = np.array(inputs[0].shape[2:]) // np.array(output.shape[2:])
    return abs(int((int(np.prod(kernel)) + 1) * _numel(output)))


def count_zero_ops(layer, inputs, output) -> int:
    return 0


def _known_counts() -> dict:
    L = _layers
    table = {L.conv.Conv1D: count_convNd, L.conv.Conv2D: count_convNd, L.conv.Conv2DTranspose: count_convNd,
             L.norm.BatchNorm1D: count_bn, L.norm.BatchNorm2D: count_bn, L.norm.BatchNorm: count_bn,
             L.activation.ReLU: count_zero_ops, L.activation.ReLU6: count_zero_ops,
             L.activation.LeakyReLU: count_leaky_relu, L.common.Linear: count_linear,
             L.common.Dropout: count_zero_ops, L.pooling.AvgPool1D: count_avgpool,
             L.pooling.AvgPool2D: count_avgpool, L.pooling.AdaptiveAvgPool1D: count_adaptive_avgpool,
             L.pooling.AdaptiveAvgPool2D: count_adaptive_avgpool}
    return table


def flops(net: Layer, input_size: list, custom_ops: dict | None = None, print_detail: bool = False) -> int:
    """Run `net` once on `paddle.randn(input_size)` (eval mode, no grad) and return its FLOPs count."""
    if not isinstance(net, Layer):
        raise invalid_argument("flops", f"net must be a paddle.nn.Layer, got {type(net).__name__}.")
    if not isinstance(input_size, (list, tuple)) or not all(isinstance(d, int) and d > 0 for d in input_size):
        raise invalid_argument("flops", f"input_size got {input_size!r}, expected a list of positive ints such as "
                                        "[1, 1, 28, 28].")
    counts = {**_known_counts(), **(custom_ops or {})}
    rows: list = []     # [name, input shape, output shape, params, flops] per leaf layer
    handles, announced = [], set()
    leaves = [sub for _, sub in net.named_sublayers(include_self=True) if not list(sub.children())]
    for sub in leaves:
        count: Callable | None = counts.get(type(sub))
        if type(sub) not in announced:
            announced.add(type(sub))
            if count is None:
                print(f"Cannot find suitable count function for {type(sub).__name__}. Treat it as zero FLOPs.")
        row = [sub.full_name(), None, None, sum(_numel(p) for p in sub.parameters()), 0]
        rows.append(row)

        def hook(layer, inputs, output, row=row, count=count):
            out = output[0] if isinstance(output, (list, tuple)) else output
            row[1], row[2] = list(inputs[0].shape), list(out.shape)
            if count is not None:
                row[4] += int(count(layer, inputs, out))
        handles.append(sub.register_forward_post_hook(hook))
    training = net.training
    net.eval()
    try:
        with no_grad():
            net(randn(list(input_size)))
    finally:
        for h in handles:
            h.remove()
        if training:
            net.train()
    total_flops = sum(r[4] for r in rows)
    total_params = sum(r[3] for r in rows)
    if print_detail:
        _print_table(rows)
    print(f"Total Flops: {total_flops}     Total Params: {total_params}")
    return total_flops


def _print_table(rows: list) -> None:
    header = ["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"]
    cells = [header] + [[str(c) for c in r] for r in rows]
    widths = [max(len(row[i]) for row in cells) + 2 for i in range(len(header))]
    line = "+" + "+".join("-" * w for w in widths) + "+"
    print(line)
    for i, row in enumerate(cells):
        print("|" + "|".join(c.center(w) for c, w in zip(row, widths)) + "|")
        if i == 0:
            print(line.replace("-", "="))
    print(line)
