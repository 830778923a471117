"""The NaN/Inf checker: paddle.set_flags(FLAGS_check_nan_inf) and paddle.amp.debugging."""
from __future__ import annotations

import logging

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.amp import debugging
from minipaddle.amp.debugging import DebugMode, NanInfError, TensorCheckerConfig
from minipaddle.framework import instrument
from minipaddle.framework.errors import InvalidArgument


class Head(nn.Layer):
    def forward(self, x):
        return paddle.sqrt(x)


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.head = Head()

    def forward(self, x):
        return self.head(self.fc(x))


@pytest.fixture(autouse=True)
def checker_off():
    debugging.reports(clear=True)
    yield
    debugging.disable_tensor_checker()
    paddle.set_flags({"FLAGS_check_nan_inf_level": 0})
    debugging.reports(clear=True)


def _net():
    paddle.seed(0)
    net = Net()
    net.fc.weight.set_value(np.ones((3, 2), np.float32))
    net.fc.bias.set_value(np.zeros(2, np.float32))
    return net


def _x():  # the second row makes the linear layer's output negative: sqrt gives NaN there
    return paddle.to_tensor(np.array([[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]], np.float32))


def test_flag_abort_mode_raises_at_the_first_nan_naming_op_layer_and_stats():
    paddle.set_flags({"FLAGS_check_nan_inf": True})
    assert paddle.get_flags("FLAGS_check_nan_inf") == {"FLAGS_check_nan_inf": True}
    net = _net()
    with pytest.raises(NanInfError) as info:
        net(_x())
    r = info.value.report
    assert (r["op"], r["phase"], r["layer"], r["tensor"], r["origin"]) == ("sqrt", "forward", "Net.head",
                                                                           "sqrt.out", "produced")
    assert (r["numel"], r["num_nan"], r["num_inf"], r["num_zero"]) == (4, 2, 0, 0)
    assert r["max"] == pytest.approx(np.sqrt(6)) and r["min"] == pytest.approx(np.sqrt(6))
    message = str(info.value)
    assert "op=sqrt, phase=forward, layer=Net.head, tensor=sqrt.out" in message and "num_nan=2" in message


def test_clean_ops_pass_and_the_checker_is_gone_when_off():
    paddle.set_flags({"FLAGS_check_nan_inf": True})
    out = paddle.exp(paddle.to_tensor(np.ones(3, np.float32)))
    np.testing.assert_allclose(out.numpy(), np.e, rtol=1e-6)
    assert debugging._checker.fn in instrument.subscribers
    paddle.set_flags({"FLAGS_check_nan_inf": 0})
    assert debugging._checker is None
    paddle.sqrt(paddle.to_tensor(np.array([-1.0], np.float32)))  # off: no error


def test_report_mode_goes_on_through_forward_backward_and_optimizer(caplog):
    net = _net()
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    debugging.enable_tensor_checker(TensorCheckerConfig(True, DebugMode.CHECK_NAN_INF))
    with caplog.at_level(logging.WARNING, logger="minipaddle.amp.debugging"):
        net(_x()).sum().backward()
        opt.step()
    debugging.disable_tensor_checker()
    seen = [(r["op"], r["phase"], r["layer"], r["tensor"], r["origin"]) for r in debugging.reports()]
    assert seen[0] == ("sqrt", "forward", "Net.head", "sqrt.out", "produced")
    assert ("sum", "forward", None, "sum.out", "propagated") in seen
    assert ("sqrt_grad", "backward", "Net.head", "x@GRAD", "produced") in seen
    assert ("linear_grad", "backward", "Net.fc", "weight@GRAD", "propagated") in seen
    assert ("sgd", "optimizer", None, net.fc.weight.name, "propagated") in seen
    assert len(caplog.records) == len(seen) and "[PRECISION] [ERROR]" in caplog.records[0].getMessage()


def test_backward_abort_names_the_grad_op():
    x = paddle.to_tensor(np.array([0.0, 1.0], np.float32), stop_gradient=False)
    y = paddle.sqrt(x)  # fine forward; d sqrt / dx = inf at 0
    debugging.enable_tensor_checker(TensorCheckerConfig(True))
    with pytest.raises(NanInfError, match="op=sqrt_grad, phase=backward") as info, np.errstate(divide="ignore"):
        y.sum().backward()
    assert info.value.report["num_inf"] == 1


def test_skip_and_check_lists_choose_the_ops():
    net = _net()
    debugging.enable_tensor_checker(TensorCheckerConfig(True, DebugMode.CHECK_NAN_INF,
                                                        skipped_op_list=["sqrt"]))
    net(_x()).sum().backward()
    ops = {r["op"] for r in debugging.reports(clear=True)}
    assert "sqrt" not in ops and "sqrt_grad" not in ops and "sum" in ops
    debugging.enable_tensor_checker(TensorCheckerConfig(True, DebugMode.CHECK_NAN_INF,
                                                        checked_op_list=["linear", "elementwise_add"]))
    net(_x()).sum().backward()
    assert {r["op"] for r in debugging.reports()} == {"linear_grad"}
    assert TensorCheckerConfig(True, skipped_op_list=["elementwise_add"]).wants("add") is False


def test_debug_step_checks_only_those_enable_calls():
    cfg = TensorCheckerConfig(True, DebugMode.CHECK_NAN_INF, debug_step=[1, 2])
    bad = paddle.to_tensor(np.array([-1.0], np.float32))
    for _ in range(3):
        debugging.enable_tensor_checker(cfg)
        paddle.sqrt(bad)
        debugging.disable_tensor_checker()
    assert len(debugging.reports()) == 1 and cfg.current_step_id == 3


def test_overflow_mode_reports_float32_beyond_float16_range():
    debugging.enable_tensor_checker(TensorCheckerConfig(True, DebugMode.CHECK_ALL_FOR_OVERFLOW))
    paddle.multiply(paddle.to_tensor(np.array([1e3, 1.0], np.float32)), paddle.to_tensor(np.float32(100.0)))
    paddle.multiply(paddle.to_tensor(np.array([1.0, 2.0], np.float32)), paddle.to_tensor(np.float32(2.0)))
    (r,) = debugging.reports()
    assert r["op"] == "multiply" and r["max"] == pytest.approx(1e5) and r["origin"] is None


def test_check_all_reports_every_tensor_and_output_dir_gets_the_log(tmp_path):
    debugging.enable_tensor_checker(TensorCheckerConfig(True, DebugMode.CHECK_ALL, output_dir=str(tmp_path)))
    paddle.add(paddle.to_tensor(np.array([0.0, 2.0], np.float32)), paddle.to_tensor(np.float32(1.0)))
    (r,) = debugging.reports()
    assert (r["num_zero"], r["min"], r["max"], r["mean"]) == (0, 1.0, 3.0, 2.0)
    (log,) = list(tmp_path.iterdir())
    assert "[PRECISION] [INFO]" in log.read_text() and "op=add" in log.read_text()


def test_a_recording_trace_marks_the_node_the_checker_stopped_at():
    net = _net()
    for checker_first in (True, False):
        if checker_first:
            paddle.set_flags({"FLAGS_check_nan_inf": True})
        with paddle.debug.record() as rec:
            if not checker_first:
                paddle.set_flags({"FLAGS_check_nan_inf": True})
            with pytest.raises(NanInfError):
                net(_x())
        paddle.set_flags({"FLAGS_check_nan_inf": False})
        first = rec.trace.to_dict()["nan_inf"]["first"]
        assert (first["op"], first["layer"], first["origin"]) == ("sqrt", "Net.head", "produced")


def test_level_flag_picks_report_mode():
    paddle.set_flags({"FLAGS_check_nan_inf_level": 1, "FLAGS_check_nan_inf": True})
    out = paddle.log(paddle.to_tensor(np.array([-1.0, 0.0], np.float32)))  # no raise
    assert np.isnan(out.numpy()[0]) and debugging.reports()[0]["num_inf"] == 1


def test_check_numerics_returns_stats_and_aborts():
    stats, values = debugging.check_numerics(paddle.to_tensor(np.array([0.0, 1.0, 3.0], np.float32)), "op", "v")
    assert stats.numpy().tolist() == [0, 0, 1] and values.numpy().tolist() == [3.0, 0.0, pytest.approx(4 / 3)]
    with pytest.raises(NanInfError, match="op=my_op.*tensor=v"):
        debugging.check_numerics(paddle.to_tensor(np.array([np.nan], np.float32)), "my_op", "v")


@pytest.mark.parametrize("call, message", [
    (lambda: paddle.set_flags({"FLAGS_no_such": 1}), "unknown flag 'FLAGS_no_such'"),
    (lambda: paddle.set_flags({"FLAGS_check_nan_inf": "yes"}), "FLAGS_check_nan_inf got 'yes'"),
    (lambda: paddle.set_flags({"FLAGS_check_nan_inf_level": 7}), "expected one of"),
    (lambda: paddle.set_flags([("FLAGS_check_nan_inf", True)]), "expected a dict"),
    (lambda: paddle.get_flags(3), "expected a flag name"),
    (lambda: TensorCheckerConfig(True, debug_mode=1), "expected a paddle.amp.debugging.DebugMode"),
    (lambda: TensorCheckerConfig(True, skipped_op_list="sqrt"), "expected a list of op names"),
    (lambda: TensorCheckerConfig(True, debug_step=[3, 1]), "debug_step got"),
    (lambda: debugging.enable_tensor_checker({"enable": True}), "expected a paddle.amp.debugging"),
])
def test_bad_arguments_are_named(call, message):
    with pytest.raises(InvalidArgument, match=message):
        call()
    assert paddle.get_flags(["FLAGS_check_nan_inf_level"]) == {"FLAGS_check_nan_inf_level": 0}
