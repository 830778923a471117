"""The Program IR: building through dispatch, printing, cloning, JSON round trip, build-time errors."""
from __future__ import annotations

import json

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet


def _mlp_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 4], "float32")
        y = F.relu(paddle.nn.Linear(4, 3)(x)) * 2.0 + 1.0
        z = paddle.mean(y[:, 1:])
    return main, startup, x, y, z


def test_static_mode_switches_and_data_shapes():
    assert paddle.in_dynamic_mode()
    paddle.enable_static()
    assert not paddle.in_dynamic_mode()
    x = static.data("x", [None, 3, -1], "float32")
    assert x.shape == [-1, 3, -1] and x.dtype == paddle.float32 and x.name == "x"
    assert static.default_main_program().global_block().var("x") is x
    paddle.disable_static()
    assert paddle.in_dynamic_mode()
    with pytest.raises(PreconditionNotMet, match="static mode"):
        static.data("x", [1], "float32")


def test_ops_append_operators_with_inferred_shapes():
    main, startup, x, y, z = _mlp_program()
    types = [op.type for op in main.global_block().ops]
    assert types[:2] == ["linear", "relu"] and "getitem" in types and types[-1] == "mean"
    assert y.shape == [-1, 3] and z.shape == []
    assert [op.type for op in startup.global_block().ops] == ["uniform_random", "fill_constant"]  # XavierUniform, 0
    w = main.global_block().var("linear_0.w_0") if "linear_0.w_0" in main.global_block().vars else \
        main.all_parameters()[0]
    assert w.persistable and w.is_parameter and not w.stop_gradient


def test_print_shows_vars_and_ops():
    main, *_ = _mlp_program()
    text = str(main)
    assert text.startswith("block 0 {") and "var x : float32[-1, 4]  (data, stop_gradient)" in text
    assert "= relu(inputs={x=[" in text and "= linear(inputs=" in text


def test_clone_is_independent_and_for_test_drops_backward():
    main, startup, x, y, z = _mlp_program()
    with static.program_guard(main, startup):
        static.append_backward(z)
    copy = main.clone()
    assert [op.type for op in copy.global_block().ops] == [op.type for op in main.global_block().ops]
    copy.global_block().ops.pop()
    assert len(copy.global_block().ops) == len(main.global_block().ops) - 1
    test = main.clone(for_test=True)
    assert all(op.role == "forward" for op in test.global_block().ops)
    assert len(test.global_block().ops) < len(main.global_block().ops)


def test_json_round_trip_runs_the_same():
    main, startup, x, y, z = _mlp_program()
    text = json.dumps(main.to_dict())
    back = static.Program.from_dict(json.loads(text))
    assert back.to_string() == main.to_string()
    exe = static.Executor()
    exe.run(startup)
    xs = np.random.default_rng(0).random((5, 4), dtype=np.float32)
    a = exe.run(main, feed={"x": xs}, fetch_list=[z])[0]
    b = exe.run(back, feed={"x": xs}, fetch_list=["mean.tmp_" + z.name.split("_")[-1]])[0]
    np.testing.assert_array_equal(a, b)


def test_from_dict_rejects_other_data():
    with pytest.raises(InvalidArgument, match="not a minipaddle program"):
        static.Program.from_dict({"blocks": []})
    with pytest.raises(InvalidArgument, match="malformed"):
        static.Program.from_dict({"format": "minipaddle.program", "blocks": [{"idx": 0}]})


def test_build_error_names_op_and_user_line():
    main = static.Program()
    with static.program_guard(main):
        a = static.data("a", [None, 3], "float32")
        b = static.data("b", [5, 4], "float32")
        with pytest.raises(InvalidArgument) as info:
            paddle.matmul(a, b)  # the line the error must name
    message = str(info.value)
    assert "matmul" in message and "test_program.py:" in message
    line = int(message.split("test_program.py:")[1].split(")")[0])
    assert "paddle.matmul(a, b)" in open(__file__).read().splitlines()[line - 1]


def test_variable_has_no_values_while_building():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [2], "float32")
        with pytest.raises(PreconditionNotMet, match="no values"):
            x.numpy()
        with pytest.raises(PreconditionNotMet, match="cond"):
            bool(x > 0)


def test_variable_operators_build_ops():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [2, 3], "float32")
        w = static.data("w", [3, 2], "float32")
        out = (x @ w - 1) / 2
        item = x[0]
    types = [op.type for op in main.global_block().ops]
    assert "matmul" in types and "subtract" in types and "divide" in types and "getitem" in types
    assert out.shape == [2, 2] and item.shape == [3]
