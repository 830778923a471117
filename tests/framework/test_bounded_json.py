"""bounded_json: JSON from files is size- and depth-checked before it is parsed."""
from __future__ import annotations

import json

import pytest

from minipaddle.framework import bounded_json


def test_nesting_depth_ignores_brackets_inside_strings():
    assert bounded_json.nesting_depth(b'{"a": [1, "[[[{\\"[", {}]}') == 3
    assert bounded_json.nesting_depth(b"[]") == 1
    assert bounded_json.nesting_depth(b'"just a string"') == 0


def test_depth_over_the_limit_is_refused_before_parsing():
    with pytest.raises(ValueError, match="m.json is nested 2000 levels deep; at most 200"):
        bounded_json.loads(b"[" * 2000 + b"]" * 2000, "m.json")      # json itself: RecursionError
    assert bounded_json.loads(b"[" * 200 + b"]" * 200, "m.json") is not None


def test_size_over_the_limit_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.json"
    with open(path, "wb") as f:
        f.truncate(bounded_json.MAX_JSON_BYTES + 1)                    # sparse: no disk, no memory
    with pytest.raises(ValueError, match=rf"is {bounded_json.MAX_JSON_BYTES + 1} bytes of JSON"):
        bounded_json.load_file(str(path))


def test_duplicate_keys_and_bad_text_are_refused():
    with pytest.raises(ValueError, match="key 'a' appears twice"):
        bounded_json.loads(b'{"a": 1, "a": 2}', "m.json")
    with pytest.raises(ValueError, match="m.json is not valid JSON"):
        bounded_json.loads(b"{not json", "m.json")
    with pytest.raises(ValueError, match="m.json is not valid JSON"):
        bounded_json.loads(b'"\xff"', "m.json")


def test_a_large_ordinary_document_is_read_quickly():
    doc = {f"k{i}": [1.5, "x[y", {"z": [i]}] for i in range(50_000)}
    assert bounded_json.loads(json.dumps(doc).encode(), "doc") == doc


def _nested(depth: int, kind):
    obj = 1.0
    for _ in range(depth):
        obj = {"k": obj} if kind is dict else [obj]
    return obj


@pytest.mark.parametrize("kind", [dict, list])
def test_paddle_save_writes_only_what_paddle_load_reads_back(kind, tmp_path):
    import minipaddle as paddle
    from minipaddle.framework.io import MAX_CONTAINER_DEPTH
    path = str(tmp_path / "deep.pdparams")
    paddle.save(_nested(MAX_CONTAINER_DEPTH, kind), path)
    assert paddle.load(path) == _nested(MAX_CONTAINER_DEPTH, kind)
    with pytest.raises(ValueError, match=f"nested more than {MAX_CONTAINER_DEPTH} containers deep"):
        paddle.save(_nested(MAX_CONTAINER_DEPTH + 1, kind), path)
    assert paddle.load(path) == _nested(MAX_CONTAINER_DEPTH, kind)    # the refused save touched nothing


def test_paddle_save_refuses_a_structure_whose_json_loading_would_refuse(tmp_path, monkeypatch):
    import minipaddle as paddle
    path = str(tmp_path / "h.pdparams")
    paddle.save({"loss": [0.5] * 10}, path)
    monkeypatch.setattr(bounded_json, "MAX_JSON_BYTES", 300)
    with pytest.raises(ValueError, match=r"is \d+ bytes of JSON; at most 300 are read.*Loading would refuse it"):
        paddle.save({"loss": [0.5] * 100}, path)
    monkeypatch.undo()
    assert paddle.load(path) == {"loss": [0.5] * 10}


def test_a_document_of_many_tiny_containers_is_refused_before_it_becomes_objects():
    # 3 bytes of text per empty list, ~80 bytes of memory each once parsed: a 26x memory bomb
    bomb = b"[" + b"[]," * (bounded_json.MAX_CONTAINERS + 1) + b"0]"
    with pytest.raises(ValueError, match=r"bomb.json holds \d+ lists/objects and \d+ values; at most 1000000"):
        bounded_json.loads(bomb, "bomb.json")
    many_values = b"[" + b"0," * (bounded_json.MAX_VALUES + 1) + b"0]"
    with pytest.raises(ValueError, match="values; at most"):
        bounded_json.loads(many_values, "values.json")
