"""Integrity of every save format: a sampled single-byte corruption sweep over every file of every
format (each damaged file is refused with a clear error naming it, or loads exactly as saved --
never loads changed), stray archive members, files of different saves paired, and edits that
recompute nothing. The formats and their fingerprints are in save_formats.py."""
from __future__ import annotations

import json
import os
import warnings
import zipfile

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import MinipaddleError

from .save_formats import FORMATS, files_of, load_jit, load_model, save_jit_plain, save_model

POSITIONS_PER_FILE = 160


def _positions(size: int, rng) -> list[int]:
    """Every byte of the zip/JSON head and tail (headers, central directory, the JSON's closing keys)
    plus a random sample of the middle."""
    edges = set(range(min(size, 48))) | set(range(max(0, size - 96), size))
    middle = rng.choice(size, size=min(size, POSITIONS_PER_FILE), replace=False)
    return sorted(edges | {int(p) for p in middle})


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_single_byte_corruptions_are_refused_by_name_or_load_unchanged(fmt, tmp_path):
    save, load = FORMATS[fmt]
    prefix = save(str(tmp_path))
    expected = load(prefix)
    rng = np.random.default_rng(16)
    refused = unchanged = 0
    for path in files_of(str(tmp_path)):
        good = open(path, "rb").read()
        for pos in _positions(len(good), rng):
            bad = bytearray(good)
            bad[pos] ^= int(rng.integers(1, 256))
            with open(path, "wb") as f:
                f.write(bad)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = load(prefix)
            except MinipaddleError as err:
                assert os.path.basename(path) in str(err), f"{fmt}: byte {pos} of {path}: {err}"
                refused += 1
            else:
                assert got == expected, f"{fmt}: byte {pos} of {os.path.basename(path)} loads changed"
                unchanged += 1
        with open(path, "wb") as f:
            f.write(good)
    assert load(prefix) == expected
    assert refused > unchanged   # what loads unchanged is zip bookkeeping nothing reads (times, attributes)


# ---- the probes of issue 16 item 3, and stray members, for each archive a save writes ------------
def _rewrite_json(path: str, edit) -> None:
    meta = json.load(open(path))
    edit(meta)
    json.dump(meta, open(path, "w"))


def test_a_relu_turned_selu_in_the_program_json_is_refused(tmp_path):
    prefix = save_jit_plain(str(tmp_path))
    text = open(prefix + ".json").read()
    assert '"type": "relu"' in text
    open(prefix + ".json", "w").write(text.replace('"type": "relu"', '"type": "selu"', 1))
    with pytest.raises(MinipaddleError, match=r"net.json' does not match its sha256"):
        load_jit(prefix)


@pytest.mark.parametrize("edit", ["output_structure", "structured_name"])
def test_edits_to_jit_s_sidecar_are_refused(edit, tmp_path):
    prefix = save_jit_plain(str(tmp_path))

    def change(meta):
        if edit == "output_structure":
            meta["jit"]["output_structure"] = "tuple"
        else:
            first = next(iter(meta["jit"]["persistables"].values()))
            first["structured_name"] = "fc2.weight"
    _rewrite_json(prefix + ".json", change)
    with pytest.raises(MinipaddleError, match=r"net.json' does not match its sha256"):
        load_jit(prefix)


def _zero_first_array(path: str) -> None:
    """Overwrite the data of the archive's largest array with zeros (its sha256 left as it was)."""
    with zipfile.ZipFile(path) as zf:
        info = max((i for i in zf.infolist() if i.filename.endswith(".npy")), key=lambda i: i.file_size)
        header_len = 30 + len(info.filename) + len(info.extra)
    data = bytearray(open(path, "rb").read())
    start = info.header_offset + header_len + 128        # past the local header and the .npy header
    data[start:start + 16] = bytes(16)
    open(path, "wb").write(bytes(data))


@pytest.mark.parametrize("fmt, name", [("jit.save", "net.pdiparams"), ("save_inference_model", "infer.pdiparams"),
                                       ("static.save", "state.pdparams"), ("static.save", "state.pdopt"),
                                       ("Model.save", "ckpt.pdparams"), ("Model.save", "ckpt.pdopt")])
def test_zeroed_parameters_are_refused_naming_the_file(fmt, name, tmp_path):
    save, load = FORMATS[fmt]
    prefix = save(str(tmp_path))
    _zero_first_array(str(tmp_path / name))
    with pytest.raises(MinipaddleError, match=rf"{name}'.*(sha256|CRC|damaged)"):
        load(prefix)


STRAYS = {"data.pkl": b"\x80\x04cos\nsystem\n.", "../escape.npy": b"\x93NUMPY", "/abs.npy": b"x"}


@pytest.mark.parametrize("stray", list(STRAYS))
@pytest.mark.parametrize("fmt, name", [("paddle.save", "model.pdparams"), ("jit.save", "net.scores.pdiparams"),
                                       ("save_inference_model", "infer.pdiparams"), ("static.save", "state.pdopt"),
                                       ("Model.save", "ckpt.pdparams")])
def test_stray_archive_members_are_refused_not_ignored(fmt, name, stray, tmp_path):
    save, load = FORMATS[fmt]
    prefix = save(str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # zipfile warns about odd names; the point is the load
        with zipfile.ZipFile(tmp_path / name, "a") as zf:
            zf.writestr(stray, STRAYS[stray])
    with pytest.raises(MinipaddleError, match=rf"{name}'.*unexpected member\(s\)"):
        load(prefix)


@pytest.mark.parametrize("fmt, names", [
    ("jit.save", ["net.pdiparams"]), ("jit.save", ["net.scores.json", "net.scores.pdiparams"]),
    ("save_inference_model", ["infer.pdiparams"]), ("static.save", ["state.pdopt"]),
    ("static.save", ["state.pdparams"]), ("Model.save", ["ckpt.pdparams"])])
def test_files_of_another_save_are_refused_even_when_their_shapes_fit(fmt, names, tmp_path):
    save, load = FORMATS[fmt]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    prefix = save(str(tmp_path / "a"))
    save(str(tmp_path / "b"), seed=99)    # the same model, other weights (a later epoch, say)
    for name in names:
        os.replace(tmp_path / "b" / name, tmp_path / "a" / name)
    with pytest.raises(MinipaddleError, match="come from different saves"):
        load(prefix)


def test_model_files_renamed_together_still_load(tmp_path):
    prefix = save_jit_plain(str(tmp_path))
    expected = load_jit(prefix)
    for f in os.listdir(tmp_path):
        os.rename(tmp_path / f, tmp_path / f.replace("net", "renamed", 1))
    assert load_jit(str(tmp_path / "renamed")) == expected
    model_prefix = save_model(str(tmp_path))
    expected = load_model(model_prefix)
    for suffix in (".pdparams", ".pdopt"):
        os.rename(model_prefix + suffix, str(tmp_path / "moved") + suffix)
    assert load_model(str(tmp_path / "moved")) == expected


def test_a_json_without_its_sha256_or_manifest_is_refused(tmp_path):
    prefix = save_jit_plain(str(tmp_path))
    _rewrite_json(prefix + ".json", lambda meta: meta.pop("sha256"))
    with pytest.raises(MinipaddleError, match="net.json' carries no sha256"):
        load_jit(prefix)


@pytest.mark.parametrize("fmt, name", [("save_inference_model", "infer.pdiparams"), ("static.save", "state.pdparams"),
                                       ("static.save", "state.pdopt")])
def test_an_older_format_file_cannot_stand_in_for_one_the_manifest_lists(fmt, name, tmp_path):
    save, load = FORMATS[fmt]
    prefix = save(str(tmp_path))
    arrays = paddle.framework.io.read_arrays("test", str(tmp_path / name))
    os.unlink(tmp_path / name)
    np.savez(str(tmp_path / name) + ".npz", **{k: np.zeros_like(v) for k, v in arrays.items()})
    with pytest.raises(MinipaddleError, match=rf"only '.*{name}.npz' \(an older-format file"):
        load(prefix)


@pytest.mark.parametrize("damage, offset, value", [
    ("extract version 6.4 (zipfile: NotImplementedError)", 6, 64),
    ("encrypted flag (zipfile: RuntimeError)", 8, 0x01),
    ("a renamed member (refused as unexpected)", 46, ord("b"))])
def test_damaged_zip_headers_are_invalid_argument_naming_the_file(damage, offset, value, tmp_path):
    path = str(tmp_path / "m.pdparams")
    paddle.save({"w": np.ones(3, "float32")}, path)
    data = bytearray(open(path, "rb").read())
    central = data.rfind(b"PK\x01\x02")          # the last member's central-directory entry
    data[central + offset] = value
    open(path, "wb").write(bytes(data))
    with pytest.raises(MinipaddleError, match=r"paddle.load: cannot load '.*m.pdparams'"):
        paddle.load(path)
