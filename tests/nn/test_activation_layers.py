"""nn.functional activations and the activation layers: the new ops (selu, celu, log_sigmoid, hardshrink,
softshrink, thresholded_relu, prelu, rrelu) against numpy and PyTorch with gradients and double grads,
the composed ones (swish, glu, maxout, gumbel_softmax, relu_), every layer against its functional form
and PyTorch's module, reprs, PReLU's parameter, RReLU's train/eval, and the errors."""
from __future__ import annotations

import math

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.ops import describe

from ..ops.opcheck import assert_forward, check_double_grad, check_grad, torch_or_skip

RNG = np.random.default_rng(11)
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def rand(*shape, dtype="float32", low=-3.0, high=3.0):
    return RNG.uniform(low, high, shape).astype(dtype)


def t(a, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


# name -> (numpy reference in float64, kwargs, twice differentiable?)
NEW_OPS = {
    "selu": (lambda x, scale=SELU_SCALE, alpha=SELU_ALPHA: scale * np.where(x > 0, x, alpha * np.expm1(x)),
             {"scale": 1.2, "alpha": 1.5}, True),
    "celu": (lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x / alpha)), {"alpha": 0.7}, True),
    "log_sigmoid": (lambda x: -np.logaddexp(0.0, -x), {}, True),
    "hardshrink": (lambda x, threshold=0.5: np.where(np.abs(x) > threshold, x, 0.0), {"threshold": 0.8}, False),
    "softshrink": (lambda x, threshold=0.5: np.where(x > threshold, x - threshold,
                                                     np.where(x < -threshold, x + threshold, 0.0)),
                   {"threshold": 0.8}, False),
    "thresholded_relu": (lambda x, threshold=1.0, value=0.0: np.where(x > threshold, x, value),
                         {"threshold": 0.5, "value": -0.25}, False),
}


def away_from_kinks(x: np.ndarray, points=(-0.8, -0.5, 0.0, 0.5, 0.8)) -> np.ndarray:
    """Nudge values off the points where a piecewise op has no derivative (central differences)."""
    for p in points:
        x = np.where(np.abs(x - p) < 1e-3, x + 0.01, x)
    return x


@pytest.mark.parametrize("name", sorted(NEW_OPS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_new_activation_forward_matches_numpy(name, dtype):
    ref, kwargs, _ = NEW_OPS[name]
    fn = getattr(F, name)
    x = np.concatenate([rand(3, 7, dtype=dtype).ravel(), np.array([0.0, -40.0, 40.0], dtype)])
    assert_forward(fn(t(x)), ref(x.astype(np.float64)).astype(dtype), rtol=1e-5, atol=1e-6)
    assert_forward(fn(t(x), **kwargs), ref(x.astype(np.float64), **kwargs).astype(dtype), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(NEW_OPS))
def test_new_activation_gradients(name):
    _, kwargs, twice = NEW_OPS[name]
    fn = getattr(F, name)
    x = away_from_kinks(rand(2, 5))
    check_grad(lambda v: fn(v, **kwargs), [x])
    if twice:
        check_double_grad(lambda v: fn(v, **kwargs), [x])


def test_new_activations_match_torch():
    torch = torch_or_skip()
    x = rand(4, 6)
    tx = torch.from_numpy(x)
    tf = torch.nn.functional
    pairs = [(F.selu(t(x)), tf.selu(tx)), (F.celu(t(x), 0.5), tf.celu(tx, 0.5)),
             (F.log_sigmoid(t(x)), tf.logsigmoid(tx)), (F.hardshrink(t(x), 0.7), tf.hardshrink(tx, 0.7)),
             (F.softshrink(t(x), 0.7), tf.softshrink(tx, 0.7)),
             (F.thresholded_relu(t(x), 0.3), tf.threshold(tx, 0.3, 0.0))]
    for got, want in pairs:
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_new_activations_are_numba_kernels_with_readable_primitives():
    d = describe("selu")
    assert d["backward_name"] == "selu_grad"
    assert any(k["name"] == "numba" and "nn_activation.py" in k["location"] for k in d["kernels"])
    x = rand(5).astype(np.float16)
    assert F.celu(t(x)).numpy().dtype == np.float16  # float16 runs the float32 loop


def test_new_activation_errors():
    x = t(rand(3))
    with pytest.raises(InvalidArgument, match="selu: 'scale' is 1.0, expected a number greater than 1.0"):
        F.selu(x, scale=1.0)
    with pytest.raises(InvalidArgument, match="selu: 'alpha' is -1, expected a number >= 0"):
        F.selu(x, alpha=-1)
    with pytest.raises(InvalidArgument, match="celu: 'alpha' is 0; celu divides by alpha"):
        F.celu(x, alpha=0)
    with pytest.raises(InvalidArgument, match="softshrink: 'threshold' is -0.5, expected a number >= 0"):
        F.softshrink(x, threshold=-0.5)
    with pytest.raises(InvalidArgument, match="hardshrink: 'threshold' got str, expected a number"):
        F.hardshrink(x, threshold="a")
    with pytest.raises(InvalidArgument, match="log_sigmoid: argument 'x' has dtype int64, expected a floating"):
        F.log_sigmoid(paddle.to_tensor([1, 2]))


# ---- prelu ---------------------------------------------------------------------------------------
def test_prelu_shared_and_per_channel_weights():
    x = rand(2, 3, 4)
    w1 = np.array([0.2], np.float32)
    assert_forward(F.prelu(t(x), t(w1)), np.where(x > 0, x, 0.2 * x))
    w3 = np.array([0.1, 0.2, 0.3], np.float32)
    assert_forward(F.prelu(t(x), t(w3)), np.where(x > 0, x, w3[None, :, None] * x))
    xl = rand(2, 4, 3)
    assert_forward(F.prelu(t(xl), t(w3), data_format="NLC"), np.where(xl > 0, xl, w3 * xl))
    assert_forward(F.prelu(t(x), t(np.array(0.5, np.float32))), np.where(x > 0, x, 0.5 * x))


@pytest.mark.parametrize("weight_shape", [(1,), (3,)])
def test_prelu_gradients_for_x_and_weight(weight_shape):
    x = away_from_kinks(rand(2, 3, 2))
    w = RNG.uniform(0.1, 0.5, weight_shape)
    check_grad(F.prelu, [x, w])
    check_grad(lambda a, b: F.prelu(a, b, data_format="NHWC"), [away_from_kinks(rand(2, 2, 3)), w])
    check_double_grad(F.prelu, [x, w])  # x * w is bilinear on the negative side


def test_prelu_matches_torch():
    torch = torch_or_skip()
    x, w = rand(2, 3, 4, 4), np.array([0.1, 0.2, 0.3], np.float32)
    want = torch.nn.functional.prelu(torch.from_numpy(x), torch.from_numpy(w))
    np.testing.assert_allclose(F.prelu(t(x), t(w)).numpy(), want.numpy(), rtol=1e-6)


def test_prelu_errors():
    with pytest.raises(InvalidArgument, match="prelu: weight has 2 entries but x has 3 channels"):
        F.prelu(t(rand(2, 3, 4)), t(np.ones(2, np.float32)))
    with pytest.raises(InvalidArgument, match=r"weight has shape \[1, 3\], expected \[\], \[1\] or"):
        F.prelu(t(rand(2, 3)), t(np.ones((1, 3), np.float32)))
    with pytest.raises(InvalidArgument, match="data_format 'CHW' is not one of"):
        F.prelu(t(rand(2, 3)), t(np.ones(1, np.float32)), data_format="CHW")
    with pytest.raises(InvalidArgument, match="weight has dtype float64 but x has float32"):
        F.prelu(t(rand(2, 3)), t(np.ones(1)))


# ---- rrelu -----------------------------------------------------------------------------------------
def test_rrelu_draws_slopes_in_range_while_training_and_uses_their_mean_in_eval():
    paddle.seed(3)
    x = t(-np.abs(rand(50, 40)) - 0.01, grad=True)
    out = F.rrelu(x, 0.1, 0.3)
    slopes = out.numpy() / x.numpy()
    assert slopes.min() >= 0.1 - 1e-6 and slopes.max() <= 0.3 + 1e-6 and slopes.std() > 0.03
    out.backward(paddle.ones_like(out))
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-5)
    y = rand(3, 4)
    assert_forward(F.rrelu(t(y), 0.1, 0.3, training=False), np.where(y >= 0, y, 0.2 * y), rtol=1e-6)
    paddle.seed(4)
    a = F.rrelu(t(y)).numpy()
    paddle.seed(4)
    np.testing.assert_array_equal(a, F.rrelu(t(y)).numpy())

    def reseeded(v):
        paddle.seed(12)
        return F.rrelu(v)
    check_grad(reseeded, [away_from_kinks(rand(3, 4))])
    with pytest.raises(InvalidArgument, match=r"'lower' \(0.5\) is greater than 'upper' \(0.2\)"):
        F.rrelu(t(y), 0.5, 0.2)
    with pytest.raises(InvalidArgument, match=r"'upper' is 1.5, expected a number in \[0, 1\]"):
        F.rrelu(t(y), 0.5, 1.5)


# ---- composed activations ------------------------------------------------------------------------
def test_swish_glu_maxout():
    x = rand(2, 6)
    assert_forward(F.swish(t(x)), (x / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32), rtol=1e-5)
    a, b = x[:, :3], x[:, 3:]
    assert_forward(F.glu(t(x)), (a / (1 + np.exp(-b.astype(np.float64)))).astype(np.float32), rtol=1e-5)
    check_grad(lambda v: F.glu(v, axis=0), [rand(4, 3)])
    with pytest.raises(InvalidArgument, match="glu: dim 1 of x .* has odd size 5"):
        F.glu(t(rand(2, 5)))
    m = rand(2, 6, 3, 3)
    assert_forward(F.maxout(t(m), groups=3), m.reshape(2, 2, 3, 3, 3).max(axis=2))
    mh = m.transpose(0, 2, 3, 1)
    assert_forward(F.maxout(t(mh), groups=2, axis=-1), mh.reshape(2, 3, 3, 3, 2).max(axis=-1))
    with pytest.raises(InvalidArgument, match="groups is 4, expected a positive divisor of the number of channels"):
        F.maxout(t(m), groups=4)


def test_gumbel_softmax_soft_and_hard():
    paddle.seed(0)
    x = t(rand(4, 5), grad=True)
    y = F.gumbel_softmax(x, temperature=0.5)
    np.testing.assert_allclose(y.numpy().sum(axis=-1), 1, rtol=1e-5)
    hard = F.gumbel_softmax(x, hard=True, axis=0)
    np.testing.assert_array_equal(hard.numpy().sum(axis=0), 1)
    assert set(np.unique(hard.numpy())) <= {0.0, 1.0}
    (g,) = paddle.grad([(hard * t(rand(4, 5))).sum()], [x])  # the straight-through gradient is the soft one
    assert np.abs(g.numpy()).sum() > 0
    with pytest.raises(InvalidArgument, match="temperature is 0, expected a number > 0"):
        F.gumbel_softmax(x, temperature=0)


def test_inplace_functions_write_into_x():
    x = t(rand(3, 4))
    before = x.inplace_version
    out = F.relu_(x)
    assert out is x and x.inplace_version == before + 1 and x.numpy().min() >= 0
    y = t(rand(3))
    F.tanh_(y)
    F.elu_(y, 0.5)
    F.softmax_(y)
    np.testing.assert_allclose(y.numpy().sum(), 1, rtol=1e-6)


def test_functional_exports_are_the_registered_ops():
    from minipaddle.nn.functional import activation, common
    for n in activation.__all__ + common.__all__:
        assert callable(getattr(F, n)), n
    assert F.relu is paddle.relu and F.softmax is paddle.softmax and F.tanh is paddle.tanh


# ---- layers --------------------------------------------------------------------------------------
LAYERS = [  # (minipaddle layer, functional equivalent, torch module name and args or None)
    (nn.ReLU(), F.relu, ("ReLU", ())), (nn.ReLU6(), F.relu6, ("ReLU6", ())),
    (nn.GELU(), F.gelu, ("GELU", ())), (nn.GELU(True), lambda x: F.gelu(x, True), ("GELU", ("tanh",))),
    (nn.Sigmoid(), F.sigmoid, ("Sigmoid", ())), (nn.Tanh(), F.tanh, ("Tanh", ())),
    (nn.Softmax(), F.softmax, ("Softmax", (-1,))), (nn.LogSoftmax(0), lambda x: F.log_softmax(x, 0),
                                                    ("LogSoftmax", (0,))),
    (nn.LeakyReLU(0.2), lambda x: F.leaky_relu(x, 0.2), ("LeakyReLU", (0.2,))),
    (nn.ELU(0.5), lambda x: F.elu(x, 0.5), ("ELU", (0.5,))), (nn.CELU(0.5), lambda x: F.celu(x, 0.5), ("CELU", (0.5,))),
    (nn.SELU(), F.selu, ("SELU", ())), (nn.SiLU(), F.silu, ("SiLU", ())), (nn.Swish(), F.swish, ("SiLU", ())),
    (nn.Softplus(2, 5), lambda x: F.softplus(x, 2, 5), ("Softplus", (2, 5))),
    (nn.Softsign(), F.softsign, ("Softsign", ())), (nn.Hardswish(), F.hardswish, ("Hardswish", ())),
    (nn.Hardsigmoid(), F.hardsigmoid, None),
    (nn.Hardtanh(-2, 2), lambda x: F.hardtanh(x, -2, 2), ("Hardtanh", (-2, 2))),
    (nn.Hardshrink(), F.hardshrink, ("Hardshrink", ())), (nn.Softshrink(), F.softshrink, ("Softshrink", ())),
    (nn.Tanhshrink(), F.tanhshrink, ("Tanhshrink", ())), (nn.Mish(), F.mish, ("Mish", ())),
    (nn.LogSigmoid(), F.log_sigmoid, ("LogSigmoid", ())),
    (nn.ThresholdedReLU(0.5), lambda x: F.thresholded_relu(x, 0.5), ("Threshold", (0.5, 0.0))),
    (nn.GLU(), F.glu, ("GLU", (-1,))),
]


@pytest.mark.parametrize("index", range(len(LAYERS)))
def test_activation_layer_is_its_functional_form_and_matches_torch(index):
    layer, fn, torch_spec = LAYERS[index]
    x = rand(3, 4)
    got = layer(t(x)).numpy()
    np.testing.assert_array_equal(got, fn(t(x)).numpy())
    if torch_spec is not None:
        torch = torch_or_skip()
        module = getattr(torch.nn, torch_spec[0])(*torch_spec[1])
        np.testing.assert_allclose(got, module(torch.from_numpy(x)).numpy(), rtol=1e-5, atol=1e-6)
    assert layer.parameters() == []


def test_hardsigmoid_layer_uses_paddles_slope():
    x = rand(10)
    assert_forward(nn.Hardsigmoid()(t(x)), np.clip(x * 0.1666667 + 0.5, 0, 1).astype(np.float32), rtol=1e-6)


def test_activation_layer_reprs():
    assert repr(nn.ReLU()) == "ReLU()"
    assert repr(nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)"
    assert repr(nn.Softmax(axis=1, name="sm")) == "Softmax(axis=1, name=sm)"
    assert repr(nn.GELU()) == "GELU(approximate=False)"
    assert repr(nn.PReLU(3)) == "PReLU(num_parameters=3, data_format=NCHW, init=0.25, dtype=float32)"
    assert repr(nn.RReLU()) == f"RReLU(lower={1 / 8}, upper={1 / 3})"
    seq = nn.Sequential(nn.Linear(2, 3), nn.Tanh())
    assert repr(seq) == "Sequential(\n  (0): Linear(in_features=2, out_features=3, dtype=float32)\n  (1): Tanh()\n)"


def test_prelu_layer_learns_its_slopes():
    layer = nn.PReLU(num_parameters=3, init=0.1)
    np.testing.assert_array_equal(layer.weight.numpy(), np.full(3, 0.1, np.float32))
    x = rand(2, 3, 2, 2)
    out = layer(t(x))
    assert_forward(out, np.where(x > 0, x, np.float32(0.1) * x))
    out.sum().backward()
    want = np.where(x > 0, 0, x).sum(axis=(0, 2, 3))
    np.testing.assert_allclose(layer.weight.grad.numpy(), want, rtol=1e-5)
    shared = nn.PReLU(weight_attr=nn.initializer.Constant(0.3))
    np.testing.assert_array_equal(shared.weight.numpy(), np.array([0.3], np.float32))
    assert [n for n, _ in layer.named_parameters()] == ["weight"]
    with pytest.raises(InvalidArgument, match="num_parameters got 0"):
        nn.PReLU(0)


def test_rrelu_layer_and_softmax2d_and_maxout_layers():
    layer = nn.RReLU(0.1, 0.3)
    x = t(-np.ones((4, 4), np.float32))
    assert len(np.unique(layer(x).numpy())) > 1
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), -0.2, rtol=1e-6)
    s = rand(2, 3, 2, 2)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    assert_forward(nn.Softmax2D()(t(s)), (e / e.sum(axis=1, keepdims=True)).astype(np.float32), rtol=1e-5)
    with pytest.raises(InvalidArgument, match="Softmax2D: x has shape \\[2, 3\\], expected a 3-D or 4-D"):
        nn.Softmax2D()(t(rand(2, 3)))
    assert nn.Maxout(groups=3)(t(rand(1, 6, 2, 2))).shape == [1, 2, 2, 2]


def test_mlp_of_layers_trains_end_to_end_in_float32():
    paddle.seed(1)
    model = nn.Sequential(nn.Linear(6, 16), nn.GELU(), nn.Dropout(0.1), nn.Linear(16, 1))
    x, y = t(rand(32, 6)), t(rand(32, 1))
    losses = []
    for _ in range(60):
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        with paddle.no_grad():
            for p in model.parameters():
                p.set_value(p - 0.05 * p.grad)
                p.clear_grad()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
    assert all(p.numpy().dtype == np.float32 for p in model.parameters())
    assert not math.isnan(losses[-1])


def test_more_inplace_functions():
    x = t(rand(8))
    want = np.clip(x.numpy(), -0.5, 0.5)
    assert F.hardtanh_(x, -0.5, 0.5) is x
    np.testing.assert_allclose(x.numpy(), want)
    y = t(rand(8))
    want = np.where(y.numpy() > 0, y.numpy(), 0.1 * y.numpy())
    F.leaky_relu_(y, 0.1)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-6)
    z = t(rand(8))
    want = np.where(z.numpy() > 1.0, z.numpy(), 0.0)
    F.thresholded_relu_(z)
    np.testing.assert_allclose(z.numpy(), want)
