"""The GPU kernels a training step needs (kernels/cuda/conv.py, pooling.py, norm.py, loss.py) against the CPU's.

Each kernel runs on the GPU and on the CPU on the same inputs (kernel_check.check); shapes are tiny
because the simulator runs every GPU thread as a Python thread.
"""
from __future__ import annotations

import numpy as np
import pytest

from .kernel_check import check

RNG = np.random.default_rng(11)




def _normal(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# ---- conv2d and its two gradients ----------------------------------------------------------------
# (x shape, weight shape, strides, paddings (top, bottom, left, right), dilations, groups)
CONV_CASES = [
    ((1, 2, 6, 5), (2, 2, 3, 2), (2, 1), (1, 0, 2, 1), (1, 1), 1),       # strides, uneven padding (float32)
    ((2, 4, 5, 4), (6, 2, 2, 2), (1, 2), (1, 1, 0, 1), (2, 1), 2),       # dilation, groups (float64)
    ((1, 3, 5, 4), (3, 1, 3, 1), (2, 1), (1, 1, 0, 0), (1, 1), 3),       # depthwise (float64)
]


@pytest.mark.parametrize("x_shape, w_shape, strides, paddings, dilations, groups", CONV_CASES)
def test_conv2d_and_its_gradients_match_the_cpu(x_shape, w_shape, strides, paddings, dilations, groups):
    dtype = np.float32 if groups == 1 else np.float64  # float32: the registry's fastest matmul
    x, w = _normal(*x_shape, dtype=dtype), _normal(*w_shape, dtype=dtype)
    geometry = {"strides": strides, "paddings": paddings, "dilations": dilations, "groups": groups}
    check("conv2d", [x, w], geometry, rtol=1e-5, atol=1e-5)
    from minipaddle.framework.kernels.cpu.im2col import conv2d_im2col
    dout = _normal(*conv2d_im2col(x, w, strides, paddings, dilations, groups).shape, dtype=dtype)
    check("conv2d_transpose", [dout, w], {**geometry, "output_size": x_shape[2:]}, rtol=1e-5, atol=1e-5)
    check("conv2d_grad_filter", [x, dout], {**geometry, "filter_size": w_shape[2:]}, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x_shape, w_shape, strides, paddings, dilations, groups", CONV_CASES)
def test_the_direct_conv2d_candidate_matches_the_cpu(x_shape, w_shape, strides, paddings, dilations, groups):
    from numba import cuda

    from minipaddle.framework.kernels.cpu.im2col import conv2d_im2col
    from minipaddle.framework.kernels.cuda import conv_direct
    x, w = _normal(*x_shape, dtype=np.float64), _normal(*w_shape, dtype=np.float64)
    got = conv_direct.conv2d(cuda.to_device(x), cuda.to_device(w), strides, paddings, dilations, groups)
    np.testing.assert_allclose(got.copy_to_host(), conv2d_im2col(x, w, strides, paddings, dilations, groups),
                               rtol=1e-12, atol=1e-12)


def test_the_gpu_conv2d_candidates_are_im2col_first_then_direct():
    from minipaddle.framework.registry import KernelKey, get_op
    names = [k.name for k in get_op("conv2d").kernels[KernelKey("gpu", np.dtype("float32"))]]
    assert names == ["cuda_im2col", "cuda_direct"]


def test_conv2d_transpose_with_groups_to_a_larger_output():
    x, w = _normal(1, 4, 3, 3), _normal(4, 2, 3, 3)          # 4 in, 2 out per group, 2 groups
    check("conv2d_transpose", [x, w], {"strides": (2, 2), "paddings": (1, 1, 1, 1), "dilations": (1, 1),
                                       "groups": 2, "output_size": (6, 5)}, rtol=1e-5, atol=1e-5)


# ---- pooling -------------------------------------------------------------------------------------
# (kernel_size, strides, paddings, ceil_mode): plain 2x2, overlapping windows with padding, ceil_mode
POOL_CASES = [((2, 2), (2, 2), (0, 0, 0, 0), False), ((3, 2), (1, 2), (1, 1, 0, 1), False),
              ((2, 3), (2, 2), (1, 0, 1, 1), True)]


@pytest.mark.parametrize("kernel_size, strides, paddings, ceil_mode", POOL_CASES)
def test_max_pool2d_its_mask_and_its_gradient_match_the_cpu(kernel_size, strides, paddings, ceil_mode):
    x = _normal(2, 2, 5, 6)
    x[0, 0, 1, 1] = np.nan                                   # a NaN wins its windows, as on the CPU
    x[1, 1] = 0.5                                            # ties: the first maximum, as on the CPU
    attrs = {"kernel_size": kernel_size, "strides": strides, "paddings": paddings, "ceil_mode": ceil_mode}
    check("max_pool2d", [x], attrs)
    from minipaddle.framework.kernels.cpu.pooling import max_pool2d_kernel
    out, mask = max_pool2d_kernel(x, **attrs)
    check("max_pool2d_grad", [_normal(*out.shape), mask], {"input_size": (5, 6)}, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kernel_size, strides, paddings, ceil_mode", POOL_CASES)
def test_avg_pool2d_and_its_gradient_match_the_cpu(kernel_size, strides, paddings, ceil_mode):
    x = _normal(2, 2, 5, 6, dtype=np.float64)
    for exclusive, divisor in ((True, 0.0), (False, 0.0), (True, 2.5)):
        attrs = {"kernel_size": kernel_size, "strides": strides, "paddings": paddings, "ceil_mode": ceil_mode,
                 "exclusive": exclusive, "divisor": divisor}
        check("avg_pool2d", [x], attrs)
        from minipaddle.framework.kernels.cpu.pooling import avg_pool2d_kernel
        dout = _normal(*avg_pool2d_kernel(x, **attrs).shape, dtype=np.float64)
        check("avg_pool2d_grad", [dout], {**attrs, "adaptive": False, "input_size": (5, 6)})


def test_adaptive_pools_and_their_gradients_match_the_cpu():
    x = _normal(1, 3, 7, 5)
    check("adaptive_avg_pool2d", [x], {"output_size": (3, 2)})
    check("adaptive_max_pool2d", [x], {"output_size": (3, 2)})
    check("avg_pool2d_grad", [_normal(1, 3, 3, 2)], {"adaptive": True, "input_size": (7, 5)})


# ---- batch_norm and layer_norm -------------------------------------------------------------------
def _channel_vectors(c: int, dtype=np.float32):
    """weight, bias, running mean and a positive running variance for c channels."""
    return _normal(c, dtype=dtype), _normal(c, dtype=dtype), _normal(c, dtype=dtype), \
        (RNG.random(c) + 0.5).astype(dtype)


@pytest.mark.parametrize("shape, data_format, use_global_stats", [
    ((3, 4, 2, 3), "NCHW", False), ((3, 4, 2, 3), "NCHW", True), ((4, 3, 2), "NLC", False), ((5, 3), "NC", True)])
def test_batch_norm_forward_and_backward_match_the_cpu(shape, data_format, use_global_stats):
    x = _normal(*shape) * 3.0 + 10.0                          # a mean far from 0: centred before scaling
    c = shape[-1] if data_format == "NLC" else shape[1]
    scale, bias, mean, variance = _channel_vectors(c)
    attrs = {"epsilon": 1e-5, "data_format": data_format, "use_global_stats": use_global_stats, "is_test": False}
    check("batch_norm", [x, scale, bias, mean, variance], attrs, rtol=1e-5, atol=1e-5)
    from minipaddle.framework.kernels.cpu.norm import batch_norm_numba
    _, saved_mean, saved_variance = batch_norm_numba(x, scale, bias, mean, variance, **attrs)
    check("batch_norm_grad", [x, scale, saved_mean, saved_variance, _normal(*shape)], attrs, rtol=1e-4, atol=1e-5)


def test_batch_norm_in_a_static_programs_test_clone_and_the_running_stats_update():
    x = _normal(2, 3, 2, 2, dtype=np.float64)
    scale, bias, mean, variance = _channel_vectors(3, np.float64)
    check("batch_norm", [x, scale, bias, mean, variance], {"is_test": True}, rtol=1e-12, atol=1e-12)
    batch_mean, batch_var = _normal(3), (RNG.random(3) + 0.5).astype(np.float32)
    for is_test in (False, True):
        check("batch_norm_update", [mean.astype(np.float32), variance.astype(np.float32), batch_mean, batch_var],
              {"momentum": 0.8, "is_test": is_test})


@pytest.mark.parametrize("shape, begin_norm_axis", [((4, 6), 1), ((2, 3, 5), 2)])
def test_layer_norm_forward_and_backward_match_the_cpu(shape, begin_norm_axis):
    x = _normal(*shape, dtype=np.float64) + 5.0
    k = int(np.prod(shape[begin_norm_axis:]))
    scale, bias = _normal(k, dtype=np.float64), _normal(k, dtype=np.float64)
    attrs = {"epsilon": 1e-5, "begin_norm_axis": begin_norm_axis}
    check("layer_norm", [x, scale, bias], attrs, rtol=1e-10, atol=1e-10)
    from minipaddle.framework.kernels.cpu.norm import layer_norm_numba
    _, saved_mean, saved_variance = layer_norm_numba(x, scale, bias, **attrs)
    check("layer_norm_grad", [x, scale, saved_mean, saved_variance, _normal(*shape, dtype=np.float64)], attrs,
          rtol=1e-10, atol=1e-10)
    check("layer_norm", [x.astype(np.float32), scale.astype(np.float32), bias.astype(np.float32)], attrs,
          rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape, groups", [((2, 4, 3, 2), 2), ((3, 6), 3)])
def test_group_norm_forward_and_backward_match_the_cpu(shape, groups):
    x = _normal(*shape, dtype=np.float64) * 2.0 - 3.0
    scale, bias = _normal(shape[1], dtype=np.float64), _normal(shape[1], dtype=np.float64)
    attrs = {"epsilon": 1e-5, "groups": groups}
    check("group_norm", [x, scale, bias], attrs, rtol=1e-10, atol=1e-10)
    from minipaddle.framework.ops.norm import group_norm_kernel
    _, saved_mean, saved_variance = group_norm_kernel(x, scale, bias, **attrs)
    check("group_norm_grad", [x, scale, saved_mean, saved_variance, _normal(*shape, dtype=np.float64)], attrs,
          rtol=1e-10, atol=1e-10)


# ---- the fused softmax cross-entropy ---------------------------------------------------------------
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the simulator's 1 / 0 on the row of -inf, in numpy scalars
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 1])
def test_cross_entropy_with_softmax_and_its_gradient_match_the_cpu(reduction, ignore_index):
    logits = _normal(6, 4) * 3.0
    logits[5] = -np.inf                                       # a row of -inf: nan, as on the CPU
    label = np.array([0, 3, 1, 2, 1, 1], np.int64)           # label 1 is ignored in half of the cases
    attrs = {"ignore_index": ignore_index, "axis": -1, "reduction": reduction}
    check("cross_entropy_with_softmax", [logits, label], attrs)
    from minipaddle.framework.kernels.cpu.loss import cross_entropy_numba
    softmax, loss = cross_entropy_numba(logits[:5], label[:5], **attrs)
    check("cross_entropy_with_softmax_grad", [softmax, label[:5].copy(), _normal(*loss.shape)], attrs)


def test_cross_entropy_along_a_middle_axis_with_kept_label_dims_and_int32_labels():
    logits = _normal(2, 3, 4, dtype=np.float64)               # classes along axis 1
    label = RNG.integers(0, 3, (2, 1, 4)).astype(np.int32)
    attrs = {"ignore_index": -100, "axis": 1, "reduction": "none"}
    check("cross_entropy_with_softmax", [logits, label], attrs, rtol=1e-12, atol=1e-12)
    softmax = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    check("cross_entropy_with_softmax_grad", [softmax, label, _normal(2, 1, 4, dtype=np.float64)], attrs)


def test_a_bad_label_is_the_ops_error_on_the_gpu_too():
    from numba import cuda

    from minipaddle.framework.errors import InvalidArgument
    from minipaddle.framework.kernels.cuda.loss import cross_entropy_with_softmax
    logits, label = cuda.to_device(_normal(3, 4)), cuda.to_device(np.array([0, 4, -1], np.int64))
    with pytest.raises(InvalidArgument, match=r"cross_entropy_with_softmax: label 4 is out of range: "
                                              r"expected 0 <= label < 4"):
        cross_entropy_with_softmax(logits, label)


# ---- linear ----------------------------------------------------------------------------------------
def test_linear_folds_leading_dims_into_one_matmul_and_adds_the_bias():
    check("linear", [_normal(2, 3, 4), _normal(4, 5), _normal(5)], rtol=1e-5, atol=1e-5)
    check("linear", [_normal(3, 4, dtype=np.float64), _normal(4, 2, dtype=np.float64), _normal(2, dtype=np.float64)],
          rtol=1e-12, atol=1e-12)


# ---- Adam's update ---------------------------------------------------------------------------------
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_step_on_the_gpu_matches_the_cpus_over_three_steps(amsgrad):
    from numba import cuda

    from minipaddle.framework.kernels.cuda.optimizer import adam_init_state, adam_step
    from minipaddle.optimizer.adam import adam_step as adam_step_cpu
    group = {"beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6, "amsgrad": amsgrad}
    p_cpu = _normal(3, 5)
    p_gpu = cuda.to_device(p_cpu)
    state_gpu = adam_init_state(p_gpu, group)
    state_cpu = {name: (v.copy_to_host() if hasattr(v, "copy_to_host") else v.copy()) for name, v in state_gpu.items()}
    for step in range(3):
        grad = _normal(3, 5) * (3.0 - step)                   # shrinking gradients: amsgrad's max matters
        adam_step_cpu(p_cpu, grad, 0.05, state_cpu, group)
        adam_step(p_gpu, cuda.to_device(grad), 0.05, state_gpu, group)
    np.testing.assert_allclose(p_gpu.copy_to_host(), p_cpu, rtol=1e-6, atol=1e-6)
    for name, value in state_cpu.items():
        got = state_gpu[name].copy_to_host() if hasattr(state_gpu[name], "copy_to_host") else state_gpu[name]
        np.testing.assert_allclose(got, value, rtol=1e-6, atol=1e-7, err_msg=name)


# ---- a small conv net: one training step on the GPU gives what it gives on the CPU -------------------
def _conv_net_step(device: str):
    """conv2d -> batch_norm -> relu -> max_pool2d -> flatten -> dropout -> linear -> cross_entropy, backward,
    one Adam step; returns (loss, {name: grad}, {name: param after the step}, {name: (moment1, moment2)})."""
    import minipaddle as paddle
    import minipaddle.nn.functional as F
    rng = np.random.default_rng(3)
    # no conv bias: batch_norm removes it, so its gradient is rounding noise, which Adam's m / sqrt(v) enlarges
    init = {"conv_w": rng.standard_normal((3, 2, 3, 3)) * 0.3,
            "bn_w": rng.random(3) + 0.5, "bn_b": rng.standard_normal(3) * 0.1,
            "fc_w": rng.standard_normal((12, 4)) * 0.3, "fc_b": rng.standard_normal(4) * 0.1}
    images, labels = rng.standard_normal((2, 2, 4, 4)).astype(np.float32), np.array([1, 3])
    paddle.set_device(device)
    try:
        p = {name: paddle.to_tensor(v.astype(np.float32), stop_gradient=False) for name, v in init.items()}
        h = F.conv2d(paddle.to_tensor(images), p["conv_w"], padding=1)
        # batch statistics without the running-stats update (checked on its own above: batch_norm_update)
        h = F.batch_norm(h, paddle.zeros([3]), paddle.ones([3]), p["bn_w"], p["bn_b"], training=False,
                         use_global_stats=False)
        h = F.dropout(paddle.flatten(F.max_pool2d(F.relu(h), 2), 1), p=0.0)
        logits = paddle.matmul(h, p["fc_w"]) + p["fc_b"]   # (F.linear's meta reads x.shape[-1]: no simulator)
        loss = F.cross_entropy(logits, paddle.to_tensor(labels))
        loss.backward()
        assert all(str(t.grad.place) == str(loss.place) for t in p.values())
        grads = {name: t.grad.numpy() for name, t in p.items()}
        moments = _adam_step(device, list(p.values()))
        return float(loss), grads, {name: t.numpy() for name, t in p.items()}, moments
    finally:
        paddle.set_device("cpu")


def _adam_step(device: str, params: list) -> list:
    """One Adam step (lr 0.01): paddle.optimizer.Adam on the CPU, the GPU's adam_step kernel on the GPU."""
    import minipaddle as paddle
    if device == "cpu":
        opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=params)
        opt.step()
        return [(opt._accumulators[id(t)]["moment1"], opt._accumulators[id(t)]["moment2"]) for t in params]
    from minipaddle.framework.kernels.cuda.optimizer import adam_init_state, adam_step
    group = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "amsgrad": False}
    moments = []
    for t in params:
        state = adam_init_state(t._data, group)
        adam_step(t._data, t.grad._data, 0.01, state, group)
        moments.append((state["moment1"].copy_to_host(), state["moment2"].copy_to_host()))
    return moments


def test_a_conv_net_trains_one_adam_step_on_the_gpu_as_on_the_cpu():
    cpu, gpu = _conv_net_step("cpu"), _conv_net_step("gpu")
    np.testing.assert_allclose(gpu[0], cpu[0], rtol=1e-5)
    for name in cpu[1]:
        np.testing.assert_allclose(gpu[1][name], cpu[1][name], rtol=1e-4, atol=1e-5, err_msg=name)
        np.testing.assert_allclose(gpu[2][name], cpu[2][name], rtol=1e-5, atol=1e-6, err_msg=name)
    for (m_gpu, v_gpu), (m_cpu, v_cpu) in zip(gpu[3], cpu[3]):
        np.testing.assert_allclose(m_gpu, m_cpu, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(v_gpu, v_cpu, rtol=1e-4, atol=1e-10)
