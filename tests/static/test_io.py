"""Inference model and training-state files: round trips, pruning, and errors for bad files."""
from __future__ import annotations

import json

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.errors import InvalidArgument, NotFound


@pytest.fixture
def trained(tmp_path):
    paddle.seed(5)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x, y = static.data("x", [None, 4], "float32"), static.data("y", [None], "int64")
        logits = static.nn.fc(static.nn.fc(x, 8, activation="relu"), 3)
        loss = F.cross_entropy(logits, y)
        paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    xs = np.random.default_rng(0).random((6, 4)).astype(np.float32)
    exe.run(main, feed={"x": xs, "y": np.zeros(6, np.int64)})
    return main, x, logits, exe, xs, str(tmp_path / "model" / "mlp")


def test_inference_model_round_trip_is_pruned(trained):
    main, x, logits, exe, xs, prefix = trained
    (expected,) = exe.run(main.clone(for_test=True), feed={"x": xs, "y": np.zeros(6, np.int64)}, fetch_list=[logits])
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    static.global_scope()._vars.clear()
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    assert feeds == ["x"] and [v.name for v in fetches] == [logits.name]
    types = {op.type for op in program.global_block().ops}
    assert types == {"linear", "relu"}           # no loss, backward or adam ops
    assert "y" not in program.global_block().vars
    (got,) = exe.run(program, feed={"x": xs}, fetch_list=fetches)
    np.testing.assert_array_equal(got, expected)
    with np.load(prefix + ".pdiparams.npz", allow_pickle=False) as npz:
        assert sorted(npz.files) == sorted(p.name for p in main.all_parameters())


def test_corrupted_and_mismatched_files_give_clear_errors(trained):
    main, x, logits, exe, xs, prefix = trained
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    with pytest.raises(NotFound, match="no model file"):
        static.load_inference_model(prefix + "_missing", exe)
    with open(prefix + ".pdiparams.npz", "r+b") as f:
        f.write(b"garbage!" * 8)
    with pytest.raises(InvalidArgument, match="corrupted"):
        static.load_inference_model(prefix, exe)
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    meta = json.load(open(prefix + ".pdmodel.json"))
    name = sorted(meta["params"])[0]
    meta["params"][name]["shape"] = [99]
    json.dump(meta, open(prefix + ".pdmodel.json", "w"))
    with pytest.raises(InvalidArgument, match="do not belong together"):
        static.load_inference_model(prefix, exe)
    open(prefix + ".pdmodel.json", "w").write("{not json")
    with pytest.raises(InvalidArgument, match="not valid JSON"):
        static.load_inference_model(prefix, exe)


def test_static_save_and_load_training_state(trained):
    main, x, logits, exe, xs, prefix = trained
    scope = static.global_scope()
    before = {k: v.copy() for k, v in scope.values().items()}
    static.save(main, prefix)
    for v in main.list_vars():
        if v.persistable:
            scope._vars[v.name] = np.zeros_like(before[v.name])
    static.load(main, prefix, exe)
    after = scope.values()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value)
    assert any("moment1" in n for n in before)      # optimizer state travels too


def test_static_load_rejects_a_different_program(trained, tmp_path):
    main, x, logits, exe, xs, prefix = trained
    static.save(main, prefix)
    other = static.Program()
    with static.program_guard(other, static.Program()):
        static.create_parameter([5, 5], "float32", name=main.all_parameters()[0].name)
    with pytest.raises(InvalidArgument, match="the program expects"):
        static.load(other, prefix)
