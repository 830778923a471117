"""nn layers whose Python code makes constants of its own (labels' masks, RNN states) make them where
the inputs live: on the GPU they train as on the CPU."""
from __future__ import annotations

import numpy as np

import minipaddle as paddle
import minipaddle.nn as nn
import minipaddle.nn.functional as F

from .kernel_check import gpu_and_cpu

RNG = np.random.default_rng(3)


def test_label_losses_with_ignored_rows_weights_and_smoothing_on_the_gpu():
    logits = RNG.standard_normal((5, 4))
    labels = np.array([0, 3, -100, 1, 2])

    def run():
        x = paddle.to_tensor(logits)
        x.stop_gradient = False
        y = paddle.to_tensor(labels)
        w = paddle.to_tensor(np.array([1.0, 2.0, 0.5, 1.5]))
        loss = (nn.NLLLoss(weight=w)(F.log_softmax(x), y)
                + F.cross_entropy(x, y, weight=w, ignore_index=-100)
                + F.cross_entropy(x, paddle.to_tensor(np.array([0, 3, 2, 1, 2])), label_smoothing=0.1))
        loss.backward()
        return float(loss), x.grad.numpy(), str(loss.place)
    gpu, cpu = gpu_and_cpu(run)
    assert gpu[2] == "Place(gpu:0)"
    np.testing.assert_allclose(gpu[0], cpu[0], rtol=1e-10)
    np.testing.assert_allclose(gpu[1], cpu[1], rtol=1e-9, atol=1e-12)


def test_lstm_and_gru_with_sequence_lengths_on_the_gpu():
    inputs = RNG.standard_normal((2, 4, 3))

    def run():
        paddle.seed(2)
        lstm, gru = nn.LSTM(3, 4), nn.GRU(3, 4, direction="bidirect")
        lstm.to(dtype="float64")
        gru.to(dtype="float64")
        x = paddle.to_tensor(inputs)
        lengths = paddle.to_tensor(np.array([4, 2]))
        out, (h, _) = lstm(x, sequence_length=lengths)
        out2, h2 = gru(x)
        (out.sum() + h.sum() + out2.sum() + h2.sum()).backward()
        return out.numpy(), out2.numpy(), lstm.weight_ih_l0.grad.numpy(), str(out.place)
    gpu, cpu = gpu_and_cpu(run)
    assert gpu[3] == "Place(gpu:0)"
    for g, c in zip(gpu[:3], cpu[:3]):
        np.testing.assert_allclose(g, c, rtol=1e-9, atol=1e-12)
