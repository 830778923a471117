"""Multi-file saves are units (save_unit.py): a save killed while it writes leaves the old files
loadable and intact; one killed between its renames is refused on load, never loaded mixed; the
next save removes what a killed one left behind; Model.load changes nothing unless every file is
good."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import MinipaddleError
from minipaddle.framework.save_unit import SaveUnit, remove_stale_temps

from .save_formats import (child_env, load_jit, make_model, model_fingerprint, save_jit_plain, save_model,
                           train_a_step)

CHILD = os.path.join(os.path.dirname(__file__), "save_kill_child.py")
BIG_HIDDEN = 1_500_000      # 7 floats per unit: 42 MB of parameters, enough to be caught mid-write


def _temps(folder: str) -> list[str]:
    return sorted(f for f in os.listdir(folder) if f.startswith(".") and f.endswith(".tmp"))


def _kill_while_writing(args: list[str], folder: str, file_name: str) -> None:
    """Start the child and SIGKILL it once a temporary file of `file_name` holds a few megabytes."""
    child = subprocess.Popen([sys.executable, CHILD, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=child_env())
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            for name in os.listdir(folder):
                if name.startswith(f".{file_name}.") and name.endswith(".tmp"):
                    try:
                        if os.path.getsize(os.path.join(folder, name)) > (4 << 20):
                            child.send_signal(signal.SIGKILL)
                            child.wait()
                            return
                    except FileNotFoundError:
                        pass
            if child.poll() is not None:
                raise AssertionError(f"the child finished before it could be killed: {child.stderr.read()[-2000:]}")
            time.sleep(0.0005)
        raise AssertionError("no temporary file appeared")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_sigkill_while_jit_save_rewrites_a_model_leaves_the_old_one_intact(tmp_path):
    prefix = save_jit_plain(str(tmp_path))
    before = load_jit(prefix)
    _kill_while_writing(["jit", prefix, str(BIG_HIDDEN), "7"], str(tmp_path), "net.scores.pdiparams")
    assert _temps(str(tmp_path)), "the killed save left no temporary file: it was not killed mid-write"
    assert load_jit(prefix) == before
    save_jit_plain(str(tmp_path))          # the next save of the same files cleans up
    assert _temps(str(tmp_path)) == []
    assert load_jit(prefix) == before


@pytest.mark.parametrize("killed_in", ["ckpt.pdparams", "ckpt.pdopt"])
def test_sigkill_while_model_save_rewrites_a_checkpoint_leaves_the_old_pair_intact(killed_in, tmp_path):
    prefix = save_model(str(tmp_path))
    model = make_model(seed=5)
    model.load(prefix)
    before = model_fingerprint(model)
    _kill_while_writing(["model", prefix, str(BIG_HIDDEN), "9"], str(tmp_path), killed_in)
    assert _temps(str(tmp_path))
    model = make_model(seed=6)
    model.load(prefix)
    assert model_fingerprint(model) == before
    save_model(str(tmp_path))
    assert _temps(str(tmp_path)) == []


def _run_child_killed_at_rename(args: list[str], k: int) -> None:
    out = subprocess.run([sys.executable, CHILD, *args, str(k)], capture_output=True, text=True, timeout=120,
                         env=child_env())
    assert out.returncode == -signal.SIGKILL, out.stderr[-2000:]


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_jit_save_killed_before_any_rename_k_loads_old_or_refuses_never_mixed(k, tmp_path):
    # renames: net.scores.pdiparams, net.scores.json, net.pdiparams, net.json (the manifest, last)
    prefix = save_jit_plain(str(tmp_path))
    before = load_jit(prefix)
    _run_child_killed_at_rename(["jit", prefix, "6", "3"], k)
    if k == 1:
        assert load_jit(prefix) == before             # nothing renamed yet
    else:
        with pytest.raises(MinipaddleError, match="is not the file its save's manifest lists"):
            load_jit(prefix)
    prefix = save_jit_plain(str(tmp_path))             # saving again repairs and cleans up
    assert load_jit(prefix) == before and _temps(str(tmp_path)) == []


def test_model_save_killed_between_its_renames_is_refused_not_loaded_mixed(tmp_path):
    prefix = save_model(str(tmp_path))
    _run_child_killed_at_rename(["model", prefix, "5", "3"], 2)   # new .pdparams beside the old .pdopt
    model = make_model(seed=4)
    weights = [p.numpy().copy() for p in model.parameters()]
    with pytest.raises(MinipaddleError, match=r"ckpt.pdopt' does not belong with .*ckpt.pdparams'"):
        model.load(prefix)
    assert all(np.array_equal(w, p.numpy()) for w, p in zip(weights, model.parameters()))   # untouched
    model.load(prefix, reset_optimizer=True)          # the parameters alone are a complete, checked file
    assert not all(np.array_equal(w, p.numpy()) for w, p in zip(weights, model.parameters()))


def test_model_load_with_a_damaged_optimizer_file_changes_nothing(tmp_path):
    prefix = save_model(str(tmp_path))
    data = bytearray(open(prefix + ".pdopt", "rb").read())
    data[len(data) // 2] ^= 0x5A
    open(prefix + ".pdopt", "wb").write(bytes(data))
    model = make_model(seed=4)
    train_a_step(model)
    before = model_fingerprint(model)
    with pytest.raises(MinipaddleError, match="ckpt.pdopt'"):
        model.load(prefix)
    assert model_fingerprint(model) == before


def test_model_save_without_optimizer_state_removes_the_old_pdopt(tmp_path):
    prefix = save_model(str(tmp_path))
    model = paddle.Model(paddle.nn.Linear(4, 3))
    model.save(prefix)
    assert sorted(os.listdir(tmp_path)) == ["ckpt.pdparams"]


def test_a_unit_that_fails_midway_writes_nothing_and_leaves_no_temporary_file(tmp_path):
    target = str(tmp_path / "a.bin")
    open(target, "wb").write(b"old")

    def fail(f):
        f.write(b"half")
        raise OSError("disk full")
    with pytest.raises(OSError, match="disk full"):
        with SaveUnit("test") as unit:
            unit.add(target, lambda f: f.write(b"new") and "d")
            unit.add(str(tmp_path / "b.bin"), fail)
    assert open(target, "rb").read() == b"old"
    assert sorted(os.listdir(tmp_path)) == ["a.bin"]


def test_stale_temporary_files_are_matched_by_their_exact_save_name_and_a_gone_writer(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    names = [f".m.pdiparams.{gone}.abcd1234.tmp",      # its writer is gone: stale
             ".m.pdiparams.abcd1234.tmp",               # the older naming (no writer id): stale
             f".m.pdiparams.{os.getppid()}.abcd1234.tmp",   # a live process's save: kept
             ".m.pdiparams.x.tmp", ".m.json.abcd_123.tmp", "m.pdiparams"]   # other names: kept
    for name in names:
        open(tmp_path / name, "wb").close()
    removed = remove_stale_temps(str(tmp_path / "m.pdiparams"))
    assert sorted(os.path.basename(r) for r in removed) == sorted(names[:2])
    assert sorted(os.listdir(tmp_path)) == sorted(names[2:])


def test_a_save_under_way_in_another_thread_keeps_its_temporary_file(tmp_path):
    target = str(tmp_path / "m.pdiparams")
    with SaveUnit("test") as unit:
        unit.add(target, lambda f: "d")
        (tmp,) = [t for t, _ in unit.pending]
        assert remove_stale_temps(target) == [] and os.path.exists(tmp)   # what a second save would do
    assert os.path.exists(target) and not os.path.exists(tmp)


def test_model_load_refuses_a_text_array_before_setting_anything(tmp_path):
    model = make_model()
    state = {k: v.numpy() for k, v in model.network.state_dict().items()}
    last = list(state)[-1]
    state[last] = np.full(state[last].shape, "x")
    paddle.save(state, str(tmp_path / "t.pdparams"))
    before = model_fingerprint(model)
    with pytest.raises(MinipaddleError, match=f"{last} holds 'U'-kind data"):
        model.load(str(tmp_path / "t"))
    assert model_fingerprint(model) == before


def test_a_program_json_loading_would_refuse_is_not_saved_and_the_old_model_stays(tmp_path, monkeypatch):
    from minipaddle.framework import bounded_json
    prefix = save_jit_plain(str(tmp_path))
    before = load_jit(prefix)
    monkeypatch.setattr(bounded_json, "MAX_JSON_BYTES", 1000)     # the program JSON is ~3.5 KB
    with pytest.raises(MinipaddleError, match=r"net.scores.json is \d+ bytes of JSON; at most 1000 .*not saved"):
        save_jit_plain(str(tmp_path), seed=3)
    monkeypatch.undo()
    assert load_jit(prefix) == before and _temps(str(tmp_path)) == []
