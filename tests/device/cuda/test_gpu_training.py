"""Training a normal nn.Layer on the GPU: `paddle.set_device("gpu")`, build, train -- the CPU's numbers.

A small conv net (Conv2D, BatchNorm2D, ReLU, MaxPool2D, Flatten, Dropout, Linear, CrossEntropyLoss) is built from
one seed on each device and trained two steps; losses, parameters, batch_norm's running statistics and
the optimizer's accumulators must agree. The GPU steps run in numba's simulator here (each GPU thread a
Python thread), so shapes are tiny, and most cases train in float64, whose matmul is the simulator's
cheapest; the Adam case trains in float32, the dtype a real model uses.
"""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn as nn
import minipaddle.nn.functional as F
from minipaddle.framework.errors import InvalidArgument

from .kernel_check import on_device


class SmallConvNet(nn.Layer):
    def __init__(self):
        super().__init__()
        # no conv bias: batch_norm removes it, so its gradient is rounding noise, which Adam's m / sqrt(v) enlarges
        self.conv = nn.Conv2D(2, 3, 3, padding=1, bias_attr=False)
        self.bn = nn.BatchNorm2D(3)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2D(2)
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(0.25)  # Philox on both devices: the same units dropped under one seed
        self.fc = nn.Linear(12, 4)

    def forward(self, x):
        return self.fc(self.dropout(self.flatten(self.pool(self.relu(self.bn(self.conv(x)))))))


BATCHES = [(np.random.default_rng(step).standard_normal((2, 2, 4, 4)), np.array([[1], [3]]) - step)
           for step in range(2)]


def _train(device: str, make_optimizer, dtype: str) -> dict:
    """Build SmallConvNet from seed 7 on `device` and train it on BATCHES; everything read back to numpy."""
    def train():
        paddle.seed(7)
        net = SmallConvNet()
        net.to(dtype=dtype)
        opt = make_optimizer(net.parameters())
        losses = []
        for images, labels in BATCHES:
            loss = nn.CrossEntropyLoss()(net(paddle.to_tensor(images.astype(dtype))), paddle.to_tensor(labels))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        places = {str(t.place) for t in list(net.parameters()) + [t for t in opt.state_dict().values()
                                                                   if t.size > 1]}
        return {"losses": np.array(losses), "places": places,
                "model": {k: v.numpy() for k, v in net.state_dict().items()},
                "optimizer": _accumulators_by_structured_name(net, opt.state_dict())}
    return on_device(device, train)


def _accumulators_by_structured_name(net: nn.Layer, state: dict) -> dict:
    """{"fc.weight:moment1_0": values}: accumulator names carry the parameter's unique name (linear_3.w_0),
    which differs between two builds of one model."""
    out = {}
    for structured, p in net.named_parameters():
        for name, value in state.items():
            if name.startswith(p.name + "_"):
                out[f"{structured}:{name[len(p.name) + 1:]}"] = value.numpy()
    assert len(out) == len(state)
    return out


def _assert_same_training(gpu: dict, cpu: dict, rtol: float, atol: float) -> None:
    assert gpu["places"] == {"Place(gpu:0)"} and cpu["places"] == {"Place(cpu)"}
    np.testing.assert_allclose(gpu["losses"], cpu["losses"], rtol=rtol, atol=atol)
    assert gpu["model"].keys() == cpu["model"].keys() and gpu["optimizer"].keys() == cpu["optimizer"].keys()
    assert {"bn._mean", "bn._variance"} <= gpu["model"].keys()
    for part in ("model", "optimizer"):
        for name, value in cpu[part].items():
            np.testing.assert_allclose(gpu[part][name], value, rtol=rtol, atol=atol, err_msg=name)


def test_a_conv_net_built_on_the_gpu_trains_two_adam_steps_as_on_the_cpu():
    def adam(params):
        return paddle.optimizer.Adam(learning_rate=0.01, parameters=params)
    cpu, gpu = _train("cpu", adam, "float32"), _train("gpu", adam, "float32")
    assert "fc.weight:moment1_0" in gpu["optimizer"] and "bn.weight:moment2_0" in gpu["optimizer"]
    _assert_same_training(gpu, cpu, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make_optimizer", [
    lambda params: paddle.optimizer.SGD(learning_rate=0.1, parameters=params),
    lambda params: paddle.optimizer.Momentum(learning_rate=0.1, momentum=0.8, parameters=params, use_nesterov=True,
                                             weight_decay=paddle.regularizer.L2Decay(0.01)),
    lambda params: paddle.optimizer.AdamW(learning_rate=0.05, parameters=params, weight_decay=0.1,
                                          grad_clip=nn.ClipGradByGlobalNorm(0.5)),
], ids=["sgd", "momentum_nesterov_l2", "adamw_global_norm_clip"])
def test_sgd_momentum_and_adamw_train_on_the_gpu_as_on_the_cpu(make_optimizer):
    _assert_same_training(_train("gpu", make_optimizer, "float64"), _train("cpu", make_optimizer, "float64"),
                          rtol=1e-10, atol=1e-12)


def test_clipping_by_value_and_by_norm_and_l1_decay_clip_gpu_gradients_as_the_cpu():
    def step(device: str, clip, decay):
        def run():
            w = paddle.create_parameter([3, 2], "float64", default_initializer=nn.initializer.Assign(
                np.arange(6.0).reshape(3, 2) - 2.5))
            (w * paddle.to_tensor(np.linspace(-3.0, 3.0, 6).reshape(3, 2))).sum().backward()
            paddle.optimizer.SGD(0.5, parameters=[w], weight_decay=decay, grad_clip=clip).step()
            return w.numpy(), str(w.place)
        return on_device(device, run)
    for clip, decay in ((nn.ClipGradByValue(1.0), paddle.regularizer.L1Decay(0.1)), (nn.ClipGradByNorm(2.0), None)):
        (gpu, gpu_place), (cpu, _) = step("gpu", clip, decay), step("cpu", clip, decay)
        assert gpu_place == "Place(gpu:0)"
        np.testing.assert_allclose(gpu, cpu, rtol=1e-12, atol=1e-12)


def test_optimizer_state_loads_into_gpu_accumulators_in_place():
    def run():
        w = paddle.create_parameter([2, 2], "float32")
        (w * w).sum().backward()
        opt = paddle.optimizer.Momentum(0.1, parameters=[w])
        opt.step()
        (name, velocity), = opt.state_dict().items()
        assert str(velocity.place) == "Place(gpu:0)"
        opt.set_state_dict({name: np.full((2, 2), 4.0, np.float32)})
        return opt.state_dict()[name]
    loaded = on_device("gpu", run)
    assert str(loaded.place) == "Place(gpu:0)"
    np.testing.assert_array_equal(loaded.numpy(), np.full((2, 2), 4.0, np.float32))


def test_an_update_of_a_gpu_parameter_is_reported_with_its_norms():
    from minipaddle.framework import instrument
    events = []

    def run():
        w = paddle.create_parameter([2, 2], "float64", default_initializer=nn.initializer.Constant(1.0))
        (w * paddle.to_tensor([[3.0, 0.0], [0.0, 4.0]])).sum().backward()    # grad [[3, 0], [0, 4]]: norm 5
        stop = instrument.subscribe(events.append, kinds=("optimizer_update",))
        try:
            paddle.optimizer.SGD(0.1, parameters=[w]).step()
        finally:
            stop()
        return w.numpy()
    np.testing.assert_allclose(on_device("gpu", run), [[0.7, 1.0], [1.0, 0.6]])
    (event,) = events
    assert (event.optimizer, event.lr) == ("SGD", 0.1)
    np.testing.assert_allclose([event.grad_norm, event.update_norm], [5.0, 0.5])


# ---- parameters made on the current device, Layer.to -------------------------------------------------
def test_initializers_fill_a_gpu_parameter_with_the_cpus_draws():
    def run():
        w = paddle.create_parameter([2, 3], "float32", default_initializer=nn.initializer.Constant(2.0))
        first = w.numpy().copy()
        paddle.seed(9)
        nn.initializer.Normal(0.0, 2.0)(w)
        drawn = w.numpy().copy()   # on the CPU numpy() shares the storage Assign overwrites
        nn.initializer.Assign(paddle.to_tensor(np.arange(6.0).reshape(2, 3)))(w)   # from a tensor of this device
        return first, drawn, w.numpy(), str(w.place)
    (first, drawn, assigned, place), cpu = on_device("gpu", run), on_device("cpu", run)
    assert place == "Place(gpu:0)" and cpu[3] == "Place(cpu)"
    np.testing.assert_array_equal(first, np.full((2, 3), 2.0, np.float32))
    np.testing.assert_array_equal(drawn, cpu[1])
    assert np.std(drawn) > 0.5
    np.testing.assert_array_equal(assigned, np.arange(6.0, dtype=np.float32).reshape(2, 3))


def test_a_model_built_under_set_device_gpu_has_the_cpu_models_values_on_the_gpu():
    def build():
        paddle.seed(3)
        return SmallConvNet()
    gpu, cpu = on_device("gpu", build), on_device("cpu", build)
    for (name, g), (_, c) in zip(gpu.state_dict().items(), cpu.state_dict().items()):
        assert str(g.place) == "Place(gpu:0)" and str(c.place) == "Place(cpu)", name
        np.testing.assert_array_equal(g.numpy(), c.numpy(), err_msg=name)


def test_layer_to_moves_parameters_buffers_and_grads_in_place_and_back():
    paddle.seed(1)
    net = SmallConvNet()
    net.register_buffer("steps", paddle.to_tensor([3], dtype="int64"))
    net(paddle.randn([2, 2, 4, 4])).sum().backward()
    opt = paddle.optimizer.SGD(0.5, parameters=net.parameters())   # holds the Parameter objects
    before = {name: (t, t.numpy().copy()) for name, t in net.state_dict().items()}
    weight, grad = net.fc.weight.numpy().copy(), net.fc.weight.grad.numpy().copy()
    assert net.to("gpu") is net
    for name, (t, values) in before.items():
        assert net.state_dict()[name] is t and str(t.place) == "Place(gpu:0)", name
        np.testing.assert_array_equal(t.numpy(), values, err_msg=name)
    assert str(net.fc.weight.grad.place) == "Place(gpu:0)"
    np.testing.assert_array_equal(net.fc.weight.grad.numpy(), grad)
    opt.step()                                                       # updates the moved parameters on the GPU
    np.testing.assert_allclose(net.fc.weight.numpy(), weight - np.float32(0.5) * grad, rtol=1e-6)
    after_step = {name: t.numpy().copy() for name, (t, _) in before.items()}
    net.cpu()
    net.cuda(0)
    net.to(paddle.CPUPlace(), dtype="float64")
    for name, (t, _) in before.items():
        assert str(t.place) == "Place(cpu)", name
        assert t.dtype == (paddle.int64 if name == "steps" else paddle.float64), name
        np.testing.assert_array_equal(t.numpy(), after_step[name], err_msg=name)


def test_layer_to_on_the_gpu_casts_there_and_loads_state_dicts_across_devices():
    paddle.seed(2)
    net = SmallConvNet().to("gpu:0", dtype="float64")
    assert {str(p.place) for p in net.parameters()} == {"Place(gpu:0)"}
    assert {p.dtype for p in net.parameters()} == {paddle.float64}
    paddle.seed(4)
    cpu_state = {k: v.numpy() for k, v in SmallConvNet().state_dict().items()}
    net.set_state_dict(cpu_state)
    for name, value in net.state_dict().items():
        assert str(value.place) == "Place(gpu:0)"
        np.testing.assert_allclose(value.numpy(), cpu_state[name], rtol=1e-7, err_msg=name)  # float32 -> float64


def test_layer_to_rejects_what_paddle_rejects():
    net = nn.Linear(2, 2)
    with pytest.raises(InvalidArgument, match=r"Layer.to: device must be a str .* or a Place, got int"):
        net.to(device=3)
    with pytest.raises(InvalidArgument, match=r"Layer.to: blocking must be True, False or None, got 1"):
        net.to(blocking=1)
    with pytest.raises(InvalidArgument, match=r"Layer.to: dtype must be a float type, got int32"):
        net.to(dtype="int32")
    with pytest.raises(TypeError, match=r"Layer.cuda: device must be an int, a CUDAPlace or None, got str"):
        net.cuda("gpu")
    assert {str(p.place) for p in net.parameters()} == {"Place(cpu)"}


# ---- batch_norm's running statistics and default affine on the GPU ----------------------------------
def test_functional_batch_norm_on_the_gpu_updates_the_running_stats_in_their_storage():
    x = np.random.default_rng(5).standard_normal((4, 3, 2, 2)) * 2.0 + 1.0

    def run():
        mean, var = paddle.zeros([3], "float64"), paddle.ones([3], "float64")
        storage = (mean._data, var._data)
        out = F.batch_norm(paddle.to_tensor(x), mean, var, training=True, momentum=0.8)  # no weight, no bias
        assert mean._data is storage[0] and var._data is storage[1] and str(out.place) == str(mean.place)
        return out.numpy(), mean.numpy(), var.numpy()
    for gpu, cpu in zip(on_device("gpu", run), on_device("cpu", run)):
        np.testing.assert_allclose(gpu, cpu, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(on_device("gpu", run)[1], 0.2 * x.mean(axis=(0, 2, 3)), rtol=1e-12)


def test_layer_norm_without_weight_runs_on_the_gpu():
    x = np.random.default_rng(6).standard_normal((2, 5))
    gpu = on_device("gpu", lambda: F.layer_norm(paddle.to_tensor(x), 5).numpy())
    np.testing.assert_allclose(gpu, (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5),
                               rtol=1e-10)


# ---- DataLoader batches and hapi ----------------------------------------------------------------------
class _Pairs(paddle.io.Dataset):
    def __init__(self):
        rng = np.random.default_rng(0)
        self.images, self.labels = rng.standard_normal((4, 2, 4, 4)), rng.integers(0, 4, (4, 1))

    def __getitem__(self, i):
        return self.images[i], self.labels[i]

    def __len__(self):
        return 4


def test_a_dataloader_batch_lands_on_the_current_device():
    def first_batch(**kwargs):
        images, labels = next(iter(paddle.io.DataLoader(_Pairs(), batch_size=2, **kwargs)))
        return images, labels
    images, labels = on_device("gpu", first_batch)
    assert str(images.place) == str(labels.place) == "Place(gpu:0)"
    assert labels.dtype == paddle.int64
    np.testing.assert_array_equal(images.numpy(), _Pairs().images[:2])
    images, _ = on_device("gpu", lambda: first_batch(places=paddle.CPUPlace()))  # places= wins
    assert str(images.place) == "Place(cpu)"
    assert str(first_batch()[0].place) == "Place(cpu)"


def test_batches_go_through_reused_pinned_buffers_and_keep_their_values():
    from minipaddle.framework import gpu

    def all_batches():
        return list(paddle.io.DataLoader(_Pairs(), batch_size=2))   # two batches of the same sizes
    gpu._staging.clear()
    batches = on_device("gpu", all_batches)
    assert len(gpu._staging) == 2   # one buffer per field size (images, labels), reused by the second batch
    for k, (images, labels) in enumerate(batches):   # the first batch was not overwritten by the second
        np.testing.assert_array_equal(images.numpy(), _Pairs().images[2 * k:2 * k + 2])
        np.testing.assert_array_equal(labels.numpy(), _Pairs().labels[2 * k:2 * k + 2])
    for size in range(gpu.STAGING_BUFFERS + 2):      # a bounded number of buffers, the newest kept
        gpu.to_device_pinned(np.zeros(size + 1, np.float32))
    assert len(gpu._staging) == gpu.STAGING_BUFFERS and 4 * (gpu.STAGING_BUFFERS + 2) in gpu._staging


def test_a_tensor_dataset_of_gpu_tensors_batches_on_the_gpu():
    x, y = np.arange(12.0).reshape(6, 2), np.arange(6).reshape(6, 1)

    def batches():
        dataset = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
        return [(a.numpy(), b.numpy(), str(a.place)) for a, b in paddle.io.DataLoader(dataset, batch_size=4)]
    got = on_device("gpu", batches)
    assert [place for _, _, place in got] == ["Place(gpu:0)"] * 2
    np.testing.assert_array_equal(np.concatenate([a for a, _, _ in got]), x)
    np.testing.assert_array_equal(np.concatenate([b for _, b, _ in got]), y)


def test_paddle_model_fit_trains_on_the_gpu_as_on_the_cpu():
    def fit():
        paddle.seed(5)
        net = SmallConvNet()
        net.to(dtype="float64")
        model = paddle.Model(net)
        model.prepare(paddle.optimizer.Momentum(0.1, parameters=net.parameters()), nn.CrossEntropyLoss())
        model.fit(_Pairs(), batch_size=2, epochs=1, verbose=0, shuffle=False)
        return {k: (v.numpy(), str(v.place)) for k, v in net.state_dict().items()}
    gpu, cpu = on_device("gpu", fit), on_device("cpu", fit)
    for name, (value, place) in cpu.items():
        assert gpu[name][1] == "Place(gpu:0)" and place == "Place(cpu)"
        np.testing.assert_allclose(gpu[name][0], value, rtol=1e-10, atol=1e-12, err_msg=name)
