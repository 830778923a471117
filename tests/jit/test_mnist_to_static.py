"""The seeds' MNIST example (the README's digits classifier) converted with one decorator, trained,
saved with jit.save and loaded back: same predictions, same training as eager, and static.load_inference_model
reads the same files."""
from __future__ import annotations

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn, static
from minipaddle.datasets import Digits
from minipaddle.static import InputSpec


def scale(img):
    return (img / 16.0).astype("float32")


class DigitNet(nn.Layer):
    """README's `nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))`, as a class."""

    def __init__(self) -> None:
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    @paddle.jit.to_static(input_spec=[InputSpec([None, 8, 8], "float32", "image")])  # the one decorator
    def forward(self, x):
        return self.fc2(F.relu(self.fc1(self.flatten(x))))


class EagerDigitNet(DigitNet):
    forward = DigitNet.__dict__["forward"].dygraph_function  # the same forward, not converted


def batches(dataset, size=64):
    images = np.stack([scale(img) for img in dataset.images])
    labels = dataset.labels.reshape(-1)
    for i in range(0, len(labels), size):
        yield paddle.to_tensor(images[i:i + size]), paddle.to_tensor(labels[i:i + size])


def train(net, epochs=2):
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    losses = []
    for _ in range(epochs):
        for x, y in batches(Digits("train")):
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
    return losses


def accuracy(model, dataset) -> float:
    images = paddle.to_tensor(np.stack([scale(img) for img in dataset.images]))
    with paddle.no_grad():
        pred = model(images).numpy().argmax(axis=1)
    return float((pred == dataset.labels.reshape(-1)).mean())


def test_converted_digits_model_trains_like_eager_saves_and_loads(tmp_path):
    paddle.seed(7)
    net = DigitNet()
    paddle.seed(7)
    eager = EagerDigitNet()
    assert type(net.forward).__name__ == "StaticFunction" and type(eager.forward).__name__ == "method"
    losses = train(net)
    eager_losses = train(eager)
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-4)  # the Program trains exactly as eager does
    assert "linear" in [op.type for op in net.forward.concrete_program.main_program.global_block().ops]
    test = Digits("test")
    acc = accuracy(net, test)
    assert acc > 0.85

    path = str(tmp_path / "digits")
    paddle.jit.save(net, path)  # the input_spec comes from the decorator
    loaded = paddle.jit.load(path).eval()
    assert list(loaded.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    x, _ = next(batches(test))
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-6)
    assert accuracy(loaded, test) == acc

    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        program, feeds, fetches = static.load_inference_model(path, exe)
        assert feeds == ["image"]
        logits, = exe.run(program, feed={"image": x.numpy()}, fetch_list=fetches)
    np.testing.assert_allclose(logits, net(x).numpy(), rtol=1e-5, atol=1e-6)

    loaded.train()  # fine-tuning the loaded model goes on lowering the loss
    before = float(F.cross_entropy(loaded(x), paddle.to_tensor(test.labels.reshape(-1)[:64])))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=loaded.parameters())
    for _ in range(20):
        loss = F.cross_entropy(loaded(x), paddle.to_tensor(test.labels.reshape(-1)[:64]))
        loss.backward()
        opt.step()
        opt.clear_grad()
    assert float(loss) < before
