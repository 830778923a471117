"""Inference model and training-state files: round trips, pruning, and errors for bad files."""
from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.errors import InvalidArgument, NotFound, PreconditionNotMet
from minipaddle.framework.io import read_arrays, write_arrays
from minipaddle.framework.static import io as static_io
from minipaddle.framework.static.io import read_params_npz


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
    saved = paddle.load(prefix + ".pdiparams", return_numpy=True)     # a paddle.save archive: {name: array}
    assert sorted(saved) == sorted(p.name for p in main.all_parameters())


def test_corrupted_and_mismatched_files_give_clear_errors(trained):
    main, x, logits, exe, xs, prefix = trained
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    with pytest.raises(NotFound, match="no model file"):
        static.load_inference_model(prefix + "_missing", exe)
    good = open(prefix + ".pdiparams", "rb").read()
    with open(prefix + ".pdiparams", "r+b") as f:
        f.write(b"garbage!" * 8)
    with pytest.raises(InvalidArgument, match=r"mlp.pdiparams'.*(damaged|not a zip)"):
        static.load_inference_model(prefix, exe)
    open(prefix + ".pdiparams", "wb").write(good[:-300])
    with pytest.raises(InvalidArgument, match=r"mlp.pdiparams'.*(truncated|damaged)"):
        static.load_inference_model(prefix, exe)
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    meta = json.load(open(prefix + ".json"))
    name = sorted(meta["params"])[0]
    meta["params"][name]["shape"] = [99]
    json.dump(meta, open(prefix + ".json", "w"))
    with pytest.raises(InvalidArgument, match="mlp.json' does not match its sha256"):
        static.load_inference_model(prefix, exe)
    del meta["sha256"]       # an edit that also drops the checksum is refused as such
    json.dump(meta, open(prefix + ".json", "w"))
    with pytest.raises(InvalidArgument, match="mlp.json' carries no sha256"):
        static.load_inference_model(prefix, exe)
    meta["sha256"] = static_io._checksum(meta)   # an edit that recomputes it: the parameters still disagree
    json.dump(meta, open(prefix + ".json", "w"))
    with pytest.raises(InvalidArgument, match="do not belong together"):
        static.load_inference_model(prefix, exe)
    open(prefix + ".json", "w").write("{not json")
    with pytest.raises(InvalidArgument, match="not valid JSON"):
        static.load_inference_model(prefix, exe)


def test_files_carry_paddle_3s_names_and_are_written_atomically(trained):
    main, x, logits, exe, xs, prefix = trained
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    static.save(main, prefix + "_state")
    folder = os.path.dirname(prefix)
    assert sorted(os.listdir(folder)) == ["mlp.json", "mlp.pdiparams", "mlp_state.json", "mlp_state.pdopt",
                                          "mlp_state.pdparams"]        # no temporary file left behind
    program, feeds, fetches = static.load_inference_model(prefix + ".json", exe)   # the file's name works too
    assert feeds == ["x"]


def test_files_with_the_older_names_are_still_read(trained):
    main, x, logits, exe, xs, prefix = trained
    (expected,) = exe.run(main.clone(for_test=True), feed={"x": xs, "y": np.zeros(6, np.int64)}, fetch_list=[logits])
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    meta = json.load(open(prefix + ".json"))
    del meta["sha256"], meta["files"]      # older files had neither checksum nor manifest
    meta["version"] = 1
    json.dump(meta, open(prefix + ".pdmodel.json", "w"))
    np.savez(prefix + ".pdiparams.npz", **paddle.load(prefix + ".pdiparams", return_numpy=True))
    os.remove(prefix + ".json")
    os.remove(prefix + ".pdiparams")
    static.global_scope()._vars.clear()
    program, feeds, fetches = static.load_inference_model(prefix, exe)
    (got,) = exe.run(program, feed={"x": xs}, fetch_list=fetches)
    np.testing.assert_array_equal(got, expected)


def test_a_forged_array_size_is_refused_before_anything_is_allocated(trained):
    main, x, logits, exe, xs, prefix = trained
    path = prefix + ".arrays"
    write_arrays("test", path, {"w": np.ones((4, 4), np.float32)})
    data = bytearray(open(path, "rb").read())
    meta_at = data.index(b'"shape":[4,4]')
    data[meta_at:meta_at + 13] = b'"shape":[9,9]'   # claims 81 floats; the file holds 16
    open(path, "wb").write(bytes(data))
    with pytest.raises(InvalidArgument, match="arrays'"):
        read_arrays("test", path)


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


def test_program_state_dict_by_mode_and_set_state_dict(trained):
    main, x, logits, exe, xs, prefix = trained
    params = {p.name for p in main.all_parameters()}
    assert set(main.state_dict("param")) == params
    opt = set(main.state_dict("opt"))
    assert opt and not opt & params and any("moment1" in n for n in opt)
    assert set(main.state_dict()) == params | opt
    with pytest.raises(InvalidArgument, match="mode must be 'all', 'param' or 'opt', got 'bad'"):
        main.state_dict("bad")
    saved = {k: np.array(v).copy() for k, v in main.state_dict().items()}
    test_program = main.clone(for_test=True)
    feed = {"x": xs, "y": np.zeros(6, np.int64)}
    (before,) = exe.run(test_program, feed=feed, fetch_list=[logits])
    for _ in range(3):
        exe.run(main, feed=feed)
    (trained_out,) = exe.run(test_program, feed=feed, fetch_list=[logits])
    assert not np.allclose(trained_out, before)
    live = main.state_dict("param")
    assert any(not np.array_equal(np.array(live[n]), saved[n]) for n in live)   # the scope's own values
    main.set_state_dict(saved)
    (restored,) = exe.run(test_program, feed=feed, fetch_list=[logits])
    np.testing.assert_array_equal(restored, before)
    main.set_state_dict({n: paddle.to_tensor(v) for n, v in saved.items() if n in params})   # Tensors work too


def test_set_state_dict_checks_every_value_before_setting_any(trained):
    main, x, logits, exe, xs, prefix = trained
    name = main.all_parameters()[0].name
    before = {k: np.array(v).copy() for k, v in main.state_dict().items()}
    with pytest.raises(NotFound, match="no persistable variable 'nope'"):
        main.set_state_dict({name: np.zeros_like(before[name]), "nope": np.ones(3)})
    with pytest.raises(InvalidArgument, match=r"state_dict\[.*\] is float32\[5\], the program expects"):
        main.set_state_dict({name: np.zeros(5, np.float32)})
    with pytest.raises(InvalidArgument, match="is float64"):
        main.set_state_dict({name: before[name].astype(np.float64)})
    for k, v in main.state_dict().items():
        np.testing.assert_array_equal(np.array(v), before[k])


def test_state_dict_before_the_startup_program_ran():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        static.nn.fc(static.data("x", [None, 2], "float32"), 2)
    with static.scope_guard(static.Scope()):
        with pytest.raises(PreconditionNotMet, match="run the startup program"):
            main.state_dict()


def test_load_program_state_and_set_program_state(trained):
    main, x, logits, exe, xs, prefix = trained
    static.save(main, prefix)
    state = static.load_program_state(prefix)
    assert set(state) == set(main.state_dict())
    zeros = {k: np.zeros_like(v) for k, v in state.items()}
    static.set_program_state(main, zeros)
    assert all(not np.array(v).any() for v in main.state_dict().values())
    static.set_program_state(main, state)
    for k, v in main.state_dict().items():
        np.testing.assert_array_equal(np.array(v), state[k])


def test_an_older_npz_claiming_more_than_it_holds_is_refused(tmp_path):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False, "shape": (100000, 100000)})
    path = str(tmp_path / "old.pdiparams.npz")
    with zipfile.ZipFile(path, "w") as zf:        # 40 GB claimed, 16 bytes held: refused before numpy allocates
        zf.writestr("w.npy", header.getvalue() + b"\x00" * 16)
    with pytest.raises(InvalidArgument, match=r"old.pdiparams.npz'.*claims shape \[100000, 100000\]"):
        read_params_npz("test", path)
