"""paddle.save / paddle.load: round trips of every supported type, no pickle, and clear errors for bad files."""
from __future__ import annotations

import hashlib
import io
import json
import math
import os
import pickle
import zipfile

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument
from minipaddle.framework.io import META


def _members(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def _rewrite(path, members: dict[str, bytes]) -> None:
    """Write a new, internally consistent zip (valid CRCs): tampering that the zip layer cannot see."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def _meta(path) -> dict:
    return json.loads(_members(path)[META])


def _npy(array, allow_pickle: bool = False) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array, allow_pickle=allow_pickle)
    return buf.getvalue()


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "model.pdparams"
    paddle.save({"w": paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3)), "step": 3}, str(path))
    return path


# ---- round trips ------------------------------------------------------------------------
def test_state_dict_round_trip_keeps_values_names_and_order(tmp_path):
    paddle.seed(1)
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 2))
    state = net.state_dict()
    path = str(tmp_path / "net.pdparams")
    paddle.save(state, path)
    loaded = paddle.load(path)
    assert list(loaded) == list(state)
    for key, param in state.items():
        t = loaded[key]
        assert type(t) is paddle.Tensor            # Parameters come back as Tensors, as in Paddle
        assert t.name == param.name
        assert t.stop_gradient is False
        assert t.dtype == param.dtype
        np.testing.assert_array_equal(t.numpy(), param.numpy())
        assert t.numpy() is not param.numpy()


def test_loaded_state_dict_restores_a_fresh_layer(tmp_path):
    src, dst = paddle.nn.Linear(3, 2), paddle.nn.Linear(3, 2)
    paddle.save(src.state_dict(), str(tmp_path / "l.pdparams"))
    dst.set_state_dict(paddle.load(str(tmp_path / "l.pdparams")))
    x = paddle.rand([5, 3])
    np.testing.assert_array_equal(src(x).numpy(), dst(x).numpy())


def test_loaded_tensors_are_writable_and_usable(saved):
    w = paddle.load(str(saved))["w"]
    w.set_value(np.zeros((2, 3), dtype="float32"))
    w.stop_gradient = False
    (w * 2.0).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 3), 2.0))


def test_tensor_name_and_stop_gradient_round_trip(tmp_path):
    a = paddle.to_tensor([1.0, 2.0])
    a.name = "my_tensor"
    b = paddle.to_tensor([3.0], stop_gradient=False)
    paddle.save([a, b], str(tmp_path / "t"))
    la, lb = paddle.load(str(tmp_path / "t"))
    assert (la.name, la.stop_gradient, lb.stop_gradient) == ("my_tensor", True, False)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "float32",
                                   "float64"])
def test_every_dtype_round_trips(tmp_path, dtype):
    data = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    paddle.save({"t": paddle.to_tensor(data), "a": data}, str(tmp_path / "x"))
    out = paddle.load(str(tmp_path / "x"))
    assert out["t"].numpy().dtype == np.dtype(dtype) and out["a"].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out["t"].numpy(), data)
    np.testing.assert_array_equal(out["a"], data)


def test_nested_python_values_round_trip_exactly(tmp_path):
    obj = {
        "ints": [0, -7, 2 ** 70], "floats": (0.1, -0.0, float("inf"), 1e-300), "flags": [True, False],
        "text": "héllo", "nothing": None, 3: "int key", 2.5: "float key", None: "none key", True: "bool key",
        "nested": {"deeper": [(1, (2, [3]))], "empty_list": [], "empty_dict": {}, "empty_tuple": ()},
        "zero_d": np.array(5.5), "empty": np.zeros((0, 3), dtype="float32"),
        "np_scalars": [np.float32(1.5), np.int64(7), np.bool_(True)],
        "strided": np.arange(20.0).reshape(4, 5)[::2, ::-1], "fortran": np.asfortranarray(np.ones((2, 3))),
    }
    paddle.save(obj, str(tmp_path / "nested"))
    out = paddle.load(str(tmp_path / "nested"))
    assert list(out) == list(obj)
    assert out["ints"] == [0, -7, 2 ** 70] and out["flags"] == [True, False]
    assert out["floats"] == (0.1, -0.0, math.inf, 1e-300) and math.copysign(1, out["floats"][1]) == -1
    assert isinstance(out["floats"], tuple) and isinstance(out["nested"]["deeper"][0], tuple)
    assert out["text"] == "héllo" and out["nothing"] is None
    assert out[3] == "int key" and out[2.5] == "float key" and out[None] == "none key" and out[True] == "bool key"
    assert out["nested"] == {"deeper": [(1, (2, [3]))], "empty_list": [], "empty_dict": {}, "empty_tuple": ()}
    assert out["zero_d"].shape == () and out["zero_d"] == 5.5
    assert out["empty"].shape == (0, 3) and out["empty"].dtype == np.float32
    s = out["np_scalars"]
    assert type(s[0]) is np.float32 and type(s[1]) is np.int64 and type(s[2]) is np.bool_
    np.testing.assert_array_equal(out["strided"], obj["strided"])
    np.testing.assert_array_equal(out["fortran"], obj["fortran"])


def test_nan_survives(tmp_path):
    paddle.save([float("nan")], str(tmp_path / "n"))
    assert math.isnan(paddle.load(str(tmp_path / "n"))[0])


def test_a_single_tensor_and_return_numpy(tmp_path):
    paddle.save(paddle.to_tensor([[1, 2]]), str(tmp_path / "one"))
    t = paddle.load(str(tmp_path / "one"))
    assert isinstance(t, paddle.Tensor) and t.dtype == paddle.int64
    arr = paddle.load(str(tmp_path / "one"), return_numpy=True)
    assert type(arr) is np.ndarray
    np.testing.assert_array_equal(arr, [[1, 2]])


def test_optimizer_state_round_trip(tmp_path):
    paddle.seed(0)
    net = paddle.nn.Linear(3, 2)
    opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=net.parameters())
    for _ in range(2):
        net(paddle.rand([4, 3])).sum().backward()
        opt.step()
        opt.clear_grad()
    paddle.save(opt.state_dict(), str(tmp_path / "adam.pdopt"))
    fresh = paddle.optimizer.Adam(learning_rate=0.1, parameters=net.parameters())
    fresh.set_state_dict(paddle.load(str(tmp_path / "adam.pdopt")))
    before, after = opt.state_dict(), fresh.state_dict()
    assert before.keys() == after.keys() and before
    for key in before:
        np.testing.assert_array_equal(np.asarray(before[key]), np.asarray(after[key]))


def test_file_object_round_trip():
    buf = io.BytesIO()
    paddle.save({"x": paddle.to_tensor([1.0, 2.0])}, buf)
    buf.seek(0)
    np.testing.assert_array_equal(paddle.load(buf)["x"].numpy(), [1.0, 2.0])


# ---- the file format ------------------------------------------------------------------
def test_one_npz_shaped_file_at_exactly_path_with_a_json_description(tmp_path):
    path = tmp_path / "sub" / "dir" / "model.pdparams"   # parent folders are created
    paddle.save({"w": paddle.to_tensor([1.0, 2.0]), "n": 4}, str(path))
    assert sorted(os.listdir(path.parent)) == ["model.pdparams"]   # no temp file left behind
    meta = _meta(path)
    assert meta["format"] == "minipaddle.save" and meta["version"] == 1
    spec = meta["arrays"]["a0"]
    assert spec["dtype"] == "float32" and spec["shape"] == [2]
    assert spec["sha256"] == hashlib.sha256(np.array([1.0, 2.0], dtype="float32").tobytes()).hexdigest()
    assert meta["root"]["type"] == "dict"
    with np.load(path, allow_pickle=False) as npz:   # plain numpy can read the arrays, pickle off
        np.testing.assert_array_equal(npz["a0"], [1.0, 2.0])


def test_no_pickle_is_written(tmp_path):
    path = tmp_path / "x"
    paddle.save({"a": [1, "s", None], "t": paddle.to_tensor([1.0])}, str(path))
    for name, data in _members(path).items():
        assert not data.startswith(b"\x80"), name   # the pickle protocol-2+ marker


def test_saved_file_has_ordinary_permissions(tmp_path):
    path = tmp_path / "perm"
    paddle.save([1], str(path))
    mask = os.umask(0)
    os.umask(mask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~mask


def test_a_failed_save_leaves_the_old_file_intact(tmp_path, monkeypatch):
    path = tmp_path / "ckpt"
    paddle.save({"v": np.ones(3)}, str(path))
    original = path.read_bytes()

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np.lib.format, "write_array", crash)
    with pytest.raises(OSError, match="disk full"):
        paddle.save({"v": np.zeros(3)}, str(path))
    assert path.read_bytes() == original
    assert os.listdir(tmp_path) == ["ckpt"]


# ---- what cannot be saved -------------------------------------------------------------
def test_a_layer_is_refused_with_a_hint_to_save_its_state_dict(tmp_path):
    with pytest.raises(InvalidArgument, match=r"obj is a Linear.*state_dict\(\)"):
        paddle.save(paddle.nn.Linear(2, 2), str(tmp_path / "x"))
    with pytest.raises(InvalidArgument, match=r"obj\['opt'\] is a Adam.*state_dict\(\)"):
        paddle.save({"opt": paddle.optimizer.Adam(parameters=paddle.nn.Linear(2, 2).parameters())},
                    str(tmp_path / "x"))
    assert not os.path.exists(tmp_path / "x")


@pytest.mark.parametrize("bad, message", [
    (lambda: 1, "functions and classes cannot be saved"),
    (object(), "supported: Tensor"),
    ({1, 2}, "is a set"),
    (np.array([{"a": 1}], dtype=object), "dtype object"),
    ({("tuple", "key"): 1}, "keys must be str"),
])
def test_unsupported_values_raise_clearly(tmp_path, bad, message):
    with pytest.raises(InvalidArgument, match=message):
        paddle.save({"x": [bad]}, str(tmp_path / "x"))
    assert not os.path.exists(tmp_path / "x")


def test_cycles_are_refused(tmp_path):
    loop: list = [1]
    loop.append(loop)
    with pytest.raises(InvalidArgument, match="contains itself"):
        paddle.save(loop, str(tmp_path / "x"))


def test_bad_paths_and_options(tmp_path):
    with pytest.raises(InvalidArgument, match="must name a file"):
        paddle.save([1], str(tmp_path) + os.sep)
    with pytest.raises(InvalidArgument, match="is a directory"):
        paddle.save([1], str(tmp_path))
    with pytest.raises(InvalidArgument, match="protocol"):
        paddle.save([1], str(tmp_path / "x"), protocol=5)
    with pytest.raises(InvalidArgument, match="no file at"):
        paddle.load(str(tmp_path / "missing.pdparams"))
    with pytest.raises(InvalidArgument, match="is a directory"):
        paddle.load(str(tmp_path))


# ---- damaged and tampered files --------------------------------------------------------
def _load_error(path) -> str:
    with pytest.raises(InvalidArgument) as info:
        paddle.load(str(path))
    message = str(info.value)
    assert str(path) in message and "cannot load" in message
    return message


def test_truncated_file(saved):
    data = saved.read_bytes()
    for cut in (len(data) // 3, len(data) - 10):
        saved.write_bytes(data[:cut])
        assert "truncated" in _load_error(saved)


def test_flipped_byte_in_array_data(saved):
    data = bytearray(saved.read_bytes())
    at = data.index(np.arange(6, dtype="float32").tobytes())
    data[at + 5] ^= 0xFF
    saved.write_bytes(bytes(data))
    assert "damaged" in _load_error(saved) or "sha256" in _load_error(saved)


def test_changed_array_with_valid_zip_fails_the_sha256(saved):
    members = _members(saved)
    members["a0.npy"] = _npy(np.arange(6, dtype="float32").reshape(2, 3) + 1)
    _rewrite(saved, members)
    assert "does not match its sha256" in _load_error(saved)


def test_json_shape_that_disagrees_with_the_array(saved):
    members = _members(saved)
    meta = json.loads(members[META])
    meta["arrays"]["a0"]["shape"] = [3, 2]
    members[META] = json.dumps(meta).encode()
    _rewrite(saved, members)
    assert "described as float32 [3, 2]" in _load_error(saved)


def test_a_pickle_payload_added_to_the_zip_is_rejected(saved):
    members = _members(saved)
    members["evil.pkl"] = pickle.dumps({"x": 1})
    _rewrite(saved, members)
    assert "unexpected member(s) ['evil.pkl']" in _load_error(saved)


def test_an_object_array_member_is_never_unpickled(saved):
    members = _members(saved)
    members["a0.npy"] = _npy(np.array([{"boom": 1}], dtype=object), allow_pickle=True)
    _rewrite(saved, members)
    assert "tampered" in _load_error(saved)        # stored as object, described as float32
    meta = json.loads(members[META])
    meta["arrays"]["a0"].update(dtype="object", shape=[1])
    members[META] = json.dumps(meta).encode()
    _rewrite(saved, members)
    assert "never loaded" in _load_error(saved)


def test_a_pickle_file_is_refused_without_being_loaded(tmp_path):
    path = tmp_path / "paddle_format.pdparams"
    path.write_bytes(pickle.dumps({"w": np.ones(2)}, protocol=4))
    assert "pickle file" in _load_error(path)


def test_not_a_zip(tmp_path):
    path = tmp_path / "junk"
    path.write_bytes(b"hello world, not a checkpoint")
    assert "not a zip archive" in _load_error(path)


def test_a_zip_without_the_description(tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, w=np.ones(2))
    assert "not a file written by paddle.save" in _load_error(path)


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.update(version=99), "version 99 is not supported"),
    (lambda m: m.update(format="other"), "does not describe"),
    (lambda m: m["root"]["items"][0][1].update(array="a9"), "does not list"),
    (lambda m: m["root"]["items"][1][1].update(value="3"), "int node holds '3'"),
    (lambda m: m["root"]["items"][1][1].update(type="pickle"), "unknown node type 'pickle'"),
    (lambda m: m["root"]["items"][0].__setitem__(0, {"type": "list", "items": []}), "items are malformed"),
])
def test_tampered_description(saved, edit, message):
    members = _members(saved)
    meta = json.loads(members[META])
    edit(meta)
    members[META] = json.dumps(meta).encode()
    _rewrite(saved, members)
    assert message in _load_error(saved)


def test_invalid_json(saved):
    members = _members(saved)
    members[META] = b"{not json"
    _rewrite(saved, members)
    assert "not valid JSON" in _load_error(saved)


def _patch_central_sizes(data: bytes, member: str, size: int) -> bytes:
    """Set a member's sizes in the zip's central directory (CRC untouched): a forged header."""
    out = bytearray(data)
    name = member.encode()
    at = 0
    while True:
        at = out.index(b"PK\x01\x02", at)
        name_len = int.from_bytes(out[at + 28:at + 30], "little")
        if bytes(out[at + 46:at + 46 + name_len]) == name:
            out[at + 20:at + 24] = size.to_bytes(4, "little")   # compressed size
            out[at + 24:at + 28] = size.to_bytes(4, "little")   # uncompressed size
            return bytes(out)
        at += 4


def test_a_forged_member_size_is_refused_before_anything_that_size_is_allocated(tmp_path):
    path = tmp_path / "w.pdparams"
    paddle.save({"w": np.ones((4, 4), np.float32)}, str(path))
    path.write_bytes(_patch_central_sizes(path.read_bytes(), "a0.npy", 2_000_000_000))
    with pytest.raises(InvalidArgument, match=r"'a0.npy' claims 2000000000 bytes, past the end of the \d+-byte file"):
        paddle.load(str(path))


def test_parameter_archives_name_the_api_and_the_file(tmp_path):
    from minipaddle.framework.io import read_arrays, write_arrays
    path = str(tmp_path / "m.pdiparams")
    write_arrays("jit.save", path, {"fc.w_0": np.arange(6, dtype=np.float32).reshape(2, 3)})
    assert os.listdir(tmp_path) == ["m.pdiparams"]            # the temporary file is gone
    np.testing.assert_array_equal(read_arrays("jit.load", path)["fc.w_0"], np.arange(6).reshape(2, 3))
    with pytest.raises(InvalidArgument, match=r"jit.load: no parameter file"):
        read_arrays("jit.load", str(tmp_path / "other.pdiparams"))
    paddle.save({"nested": {"a": 1}}, path)
    with pytest.raises(InvalidArgument, match=r"jit.load: .*m.pdiparams' is a paddle.save file but not a parameter"):
        read_arrays("jit.load", path)
