"""Golden cases: nn ops and layers -- unfold / fold, pixel_shuffle / pixel_unshuffle, conv3d, 3-D pooling,
local_response_norm, glu, dice_loss, multi_label_soft_margin_loss, grid_sample / affine_grid, ctc_loss:
values, gradients and errors."""
import numpy as np

from .harness import case, outcome


def _ramp(paddle, shape, scale=0.1, stop_gradient=False):
    n = int(np.prod(shape))
    values = (np.sin(np.arange(n) * 0.7) * scale * 10).reshape(shape).astype("float32")
    return paddle.to_tensor(values, stop_gradient=stop_gradient)


def _weights(paddle, shape):
    return paddle.to_tensor(np.cos(np.arange(int(np.prod(shape))) * 0.3).reshape(shape).astype("float32"))


@case
def unfold_and_fold(paddle):
    F = paddle.nn.functional
    x = _ramp(paddle, [2, 2, 4, 5])
    cols = F.unfold(x, [2, 3], strides=[1, 2], paddings=[1, 0, 0, 1], dilations=[2, 1])
    (cols * _weights(paddle, cols.shape)).sum().backward()
    y = _ramp(paddle, [1, 8, 4])
    back = F.fold(y, [3, 3], 2, strides=1, paddings=0)
    (back * _weights(paddle, back.shape)).sum().backward()
    return {"unfold": cols, "unfold grad": x.grad, "paddings [h, w]": F.unfold(x, 2, paddings=[1, 0]),
            "fold": back, "fold grad": y.grad,
            "fold layer": paddle.nn.Fold([3, 3], 2)(y), "unfold layer": paddle.nn.Unfold([2, 2], strides=2)(x),
            "kernel too large": outcome(lambda: F.unfold(paddle.ones([1, 1, 3, 3]), 4)),
            "fold wrong windows": outcome(lambda: F.fold(paddle.ones([1, 4, 5]), [3, 3], 2)),
            "3 paddings": outcome(lambda: F.unfold(x, 2, paddings=[1, 1, 1]))}


@case
def pixel_shuffle_and_unshuffle(paddle):
    F = paddle.nn.functional
    x = _ramp(paddle, [1, 8, 2, 3])
    out = F.pixel_shuffle(x, 2)
    (out * _weights(paddle, out.shape)).sum().backward()
    nhwc = _ramp(paddle, [1, 2, 3, 8])
    return {"NCHW": out, "grad": x.grad, "NHWC": F.pixel_shuffle(nhwc, 2, data_format="NHWC"),
            "layer": paddle.nn.PixelShuffle(2)(x), "unshuffle": F.pixel_unshuffle(_ramp(paddle, [1, 2, 4, 6]), 2),
            "unshuffle NHWC": F.pixel_unshuffle(_ramp(paddle, [1, 4, 6, 2]), 2, data_format="NHWC"),
            "unshuffle layer": paddle.nn.PixelUnshuffle(2)(_ramp(paddle, [1, 1, 2, 2])),
            "channel_shuffle": F.channel_shuffle(_ramp(paddle, [1, 6, 1, 2]), 3),
            "channel_shuffle NHWC": F.channel_shuffle(_ramp(paddle, [1, 1, 2, 6]), 2, data_format="NHWC"),
            "ChannelShuffle": paddle.nn.ChannelShuffle(2)(_ramp(paddle, [1, 4, 1, 1])),
            "channel_shuffle 5 groups": outcome(lambda: F.channel_shuffle(_ramp(paddle, [1, 6, 1, 2]), 5)),
            "float factor": outcome(lambda: F.pixel_shuffle(x, 2.0)),
            "bad format": outcome(lambda: F.pixel_shuffle(x, 2, data_format="NCWH")),
            "unshuffle factor 0": outcome(lambda: F.pixel_unshuffle(x, 0)),
            "unshuffle 3-D": outcome(lambda: F.pixel_unshuffle(paddle.ones([2, 4, 4]), 2))}


@case
def conv3d_values_and_gradients(paddle):
    F = paddle.nn.functional
    x = _ramp(paddle, [1, 4, 3, 4, 5])
    w = _ramp(paddle, [6, 2, 2, 3, 2], scale=0.05)
    b = paddle.to_tensor([0.1, -0.1, 0.2, 0.0, 0.3, -0.3], stop_gradient=False)
    out = F.conv3d(x, w, b, stride=[1, 2, 1], padding=[1, 0, 1], dilation=[1, 1, 2], groups=2)
    (out * _weights(paddle, out.shape)).sum().backward()
    same = F.conv3d(x, w, None, padding="SAME", groups=2)
    layer = paddle.nn.Conv3D(4, 2, 3, padding=1)
    return {"out": out, "grad x": x.grad, "grad w": w.grad, "grad b": b.grad, "SAME": same,
            "NDHWC": F.conv3d(x.transpose([0, 2, 3, 4, 1]), w, b, groups=2, data_format="NDHWC"),
            "layer state": [[k, list(v.shape)] for k, v in layer.state_dict().items()],
            "layer out shape": list(layer(x).shape),
            "transpose": F.conv3d_transpose(_ramp(paddle, [1, 6, 2, 2, 3]), w.detach(), stride=2, padding=1, groups=2),
            "4-D x": outcome(lambda: F.conv3d(paddle.ones([1, 4, 3, 3]), w)),
            "channel mismatch": outcome(lambda: F.conv3d(paddle.ones([1, 3, 3, 3, 3]), w, groups=2))}


@case
def pool3d_values_and_gradients(paddle):
    F = paddle.nn.functional
    x = _ramp(paddle, [1, 2, 4, 5, 6])
    out, mask = F.max_pool3d(x, [2, 3, 2], stride=[2, 1, 2], padding=1, return_mask=True, ceil_mode=True)
    (out * _weights(paddle, out.shape)).sum().backward()
    y = _ramp(paddle, [1, 2, 4, 5, 6])
    avg = F.avg_pool3d(y, 3, stride=2, padding=1)
    (avg * _weights(paddle, avg.shape)).sum().backward()
    return {"max": out, "mask": mask, "max grad": x.grad, "avg exclusive": avg, "avg grad": y.grad,
            "avg inclusive": F.avg_pool3d(y, 3, stride=2, padding=1, exclusive=False),
            "avg divisor": F.avg_pool3d(y, 2, divisor_override=3),
            "avg ceil": F.avg_pool3d(y, 2, stride=2, ceil_mode=True),
            "max NDHWC": F.max_pool3d(y.transpose([0, 2, 3, 4, 1]), 2, data_format="NDHWC"),
            "layers": [paddle.nn.MaxPool3D(2, stride=1)(y), paddle.nn.AvgPool3D([1, 2, 2])(y)],
            "4-D x": outcome(lambda: F.max_pool3d(paddle.ones([1, 2, 3, 3]), 2))}


@case
def local_response_norm(paddle):
    F = paddle.nn.functional
    x = _ramp(paddle, [2, 5, 3, 2])
    out = F.local_response_norm(x, 3, alpha=0.5, beta=0.75, k=1.0)
    (out * _weights(paddle, out.shape)).sum().backward()
    return {"NCHW": out, "grad": x.grad, "defaults size 4": F.local_response_norm(x, 4),
            "NHWC": F.local_response_norm(x.transpose([0, 2, 3, 1]), 2, alpha=1.0, data_format="NHWC"),
            "NCL": F.local_response_norm(_ramp(paddle, [1, 4, 3]), 5, alpha=2.0, beta=0.5, k=2.0),
            "NCDHW": F.local_response_norm(_ramp(paddle, [1, 3, 2, 2, 2]), 2, alpha=1.0),
            "layer": paddle.nn.LocalResponseNorm(3, alpha=1.0)(x),
            "2-D": outcome(lambda: F.local_response_norm(paddle.ones([2, 3]), 2)),
            "bad format": outcome(lambda: F.local_response_norm(x, 2, data_format="CHWN"))}


@case
def glu(paddle):
    F = paddle.nn.functional
    x = _ramp(paddle, [2, 4, 3])
    out = F.glu(x, axis=1)
    (out * _weights(paddle, out.shape)).sum().backward()
    return {"axis=1": out, "grad": x.grad, "last axis": F.glu(_ramp(paddle, [3, 6])),
            "layer": paddle.nn.GLU(axis=0)(_ramp(paddle, [4, 2])),
            "odd": outcome(lambda: F.glu(paddle.ones([3, 3])))}


@case
def dice_loss(paddle):
    F = paddle.nn.functional
    logits = np.sin(np.arange(24) * 0.7).reshape([2, 3, 4])
    probs = paddle.to_tensor((np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)).astype("float32"),
                             stop_gradient=False)
    label = paddle.to_tensor([[[0], [3], [1]], [[2], [2], [0]]])
    loss = F.dice_loss(probs, label)
    loss.backward()
    return {"loss": loss, "grad": probs.grad,
            "2-D": F.dice_loss(paddle.to_tensor([[0.2, 0.8], [0.6, 0.4]]), paddle.to_tensor([[1], [0]])),
            "epsilon": F.dice_loss(paddle.to_tensor([[0.0, 0.0]]), paddle.to_tensor([[1]]), epsilon=1.0),
            "int32 label": F.dice_loss(paddle.to_tensor([[0.3, 0.7]]), paddle.to_tensor([[1]], dtype="int32"))}


@case
def multi_label_soft_margin_loss(paddle):
    F = paddle.nn.functional
    x = _ramp(paddle, [3, 4])
    y = paddle.to_tensor([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.0]])
    w = paddle.to_tensor([1.0, 2.0, 0.5, 1.0])
    loss = F.multi_label_soft_margin_loss(x, y)
    loss.backward()
    return {"mean": loss, "grad": x.grad, "none": F.multi_label_soft_margin_loss(x, y, reduction="none"),
            "sum weighted": F.multi_label_soft_margin_loss(x, y, weight=w, reduction="sum"),
            "layer": paddle.nn.MultiLabelSoftMarginLoss(weight=w)(x, y),
            "shape mismatch": outcome(lambda: F.multi_label_soft_margin_loss(x, y[:, :3])),
            "bad reduction": outcome(lambda: F.multi_label_soft_margin_loss(x, y, reduction="avg"))}


@case
def affine_grid(paddle):
    F = paddle.nn.functional
    theta = paddle.to_tensor([[[1.0, 0.2, 0.1], [-0.3, 0.9, 0.0]]], stop_gradient=False)
    grid = F.affine_grid(theta, [1, 2, 3, 4])
    (grid * _weights(paddle, grid.shape)).sum().backward()
    theta3 = paddle.to_tensor([[[1.0, 0.0, 0.1, 0.0], [0.0, 0.8, 0.0, 0.2], [0.1, 0.0, 1.0, 0.0]]])
    return {"align_corners=True": grid, "grad": theta.grad,
            "align_corners=False": F.affine_grid(theta, [1, 2, 3, 4], align_corners=False),
            "out_shape tensor": F.affine_grid(theta, paddle.to_tensor([1, 1, 2, 2])),
            "3-D": F.affine_grid(theta3, [1, 1, 2, 2, 3])}


@case
def grid_sample(paddle):
    F = paddle.nn.functional
    x = _ramp(paddle, [1, 2, 3, 4])
    grid = paddle.to_tensor([[[[-1.0, -1.0], [0.3, 0.2]], [[1.2, 0.9], [-0.55, 1.4]], [[0.05, -0.8], [0.9, -1.3]]]],
                            stop_gradient=False)
    out = F.grid_sample(x, grid)
    (out * _weights(paddle, out.shape)).sum().backward()
    results = {"bilinear zeros": out, "grad x": x.grad, "grad grid": grid.grad}
    for mode in ("bilinear", "nearest"):
        for padding_mode in ("zeros", "border", "reflection"):
            for align in (True, False):
                if (mode, padding_mode, align) != ("bilinear", "zeros", True):
                    results[f"{mode} {padding_mode} {align}"] = F.grid_sample(x, grid.detach(), mode, padding_mode,
                                                                              align)
    volume = _ramp(paddle, [1, 2, 2, 3, 4])
    grid3 = paddle.to_tensor([[[[[-1.0, -1.0, -1.0], [0.3, 0.2, -0.4]], [[1.2, 0.9, 0.5], [-0.55, 1.4, 0.1]]]]],
                             stop_gradient=False)
    out3 = F.grid_sample(volume, grid3, align_corners=False)
    (out3 * _weights(paddle, out3.shape)).sum().backward()
    results.update({"3-D": out3, "3-D grad x": volume.grad, "3-D grad grid": grid3.grad,
                    "3-D nearest border": F.grid_sample(volume, grid3.detach(), "nearest", "border")})
    results["bicubic"] = outcome(lambda: F.grid_sample(x, grid, mode="bicubic"))
    results["bad padding"] = outcome(lambda: F.grid_sample(x, grid, padding_mode="wrap"))
    return results


@case
def ctc_loss(paddle):
    F = paddle.nn.functional
    logits = _ramp(paddle, [5, 2, 4])
    labels = paddle.to_tensor([[1, 2, 2], [3, 0, 0]], dtype="int32")
    input_lengths = paddle.to_tensor([5, 4], dtype="int64")
    label_lengths = paddle.to_tensor([3, 1], dtype="int64")
    loss = F.ctc_loss(logits, labels, input_lengths, label_lengths)
    loss.backward()
    normed = _ramp(paddle, [5, 2, 4])
    F.ctc_loss(normed, labels, input_lengths, label_lengths, reduction="sum", norm_by_times=True).backward()
    short = paddle.to_tensor([2, 4], dtype="int64")
    return {"mean": loss, "grad": logits.grad,
            "none": F.ctc_loss(logits, labels, input_lengths, label_lengths, reduction="none"),
            "sum": F.ctc_loss(logits, labels, input_lengths, label_lengths, reduction="sum"),
            "log_softmax input": F.ctc_loss(F.log_softmax(logits, axis=-1), labels, input_lengths, label_lengths),
            "blank=3": F.ctc_loss(logits, paddle.to_tensor([[1, 2, 0], [2, 0, 0]], dtype="int32"), input_lengths,
                                  label_lengths, blank=3, reduction="none"),
            "norm_by_times grad": normed.grad,
            "layer": paddle.nn.CTCLoss(reduction="sum")(logits, labels, input_lengths, label_lengths),
            "too short, zero_infinity": F.ctc_loss(logits, labels, short, label_lengths, reduction="none",
                                                   zero_infinity=True)}
