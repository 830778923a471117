"""A shared trace file is untrusted: Trace.load refuses a damaged or hostile document with a clear
error, and the HTML export escapes every field whatever type the schema gives it."""
from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.visualizer.html import to_html
from minipaddle.visualizer.trace import Trace

PAYLOAD = '"><script>alert(1)</script><img src=x onerror=alert(2)>'


@pytest.fixture(scope="module")
def document() -> dict:
    paddle.seed(0)
    net = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
    x = paddle.to_tensor(np.ones((2, 4), "float32"))
    y = paddle.to_tensor(np.array([0, 1]))
    with paddle.debug.record() as rec:
        for _ in range(2):
            loss = F.cross_entropy(net(paddle.sqrt(x - 2.0)), y)  # NaN on purpose: the banner fields
            loss.backward()
            opt.step()
            opt.clear_grad()
    return rec.trace.to_dict()


def _poison(doc: dict) -> dict:
    """Every number field the HTML writer prints, replaced by markup."""
    bad = copy.deepcopy(doc)
    bad["steps"][0]["index"] = PAYLOAD
    bad["steps"][0]["states"][0] = PAYLOAD
    bad["states"][0]["step"] = PAYLOAD
    bad["tensors"][0]["shape"] = [PAYLOAD]
    bad["nan_inf"]["first"]["step"] = PAYLOAD
    bad["nan_inf"]["first"]["nan_count"] = PAYLOAD
    bad["nan_inf"]["count"] = PAYLOAD
    bad["optimizer_updates"][0]["step"] = PAYLOAD
    return bad


def test_the_html_export_escapes_every_field_whatever_its_type(document):
    page = to_html(Trace.from_dict(_poison(document)), scripts=False)
    assert "<script" not in page
    assert not re.search(r"<img\b", page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown as text


def test_load_refuses_a_document_that_breaks_the_schema(document, tmp_path):
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(_poison(document)))
    with pytest.raises(ValueError, match=r"Trace.load\(trace.json\).*does not match the trace schema"):
        Trace.load(path)


def test_load_refuses_dangling_ids_deep_nesting_and_oversized_files(document, tmp_path):
    bad = copy.deepcopy(document)
    bad["steps"][0]["node"] = "n999999"
    path = tmp_path / "dangling.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="dangling reference"):
        Trace.load(path)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(ValueError, match="nests deeper|does not match"):
        Trace.load(deep)
    good = tmp_path / "good.json"
    Trace.from_dict(document).save(good)
    assert Trace.load(good).to_dict() == json.loads(good.read_text())
    with pytest.raises(ValueError, match="more than max_bytes=100"):
        Trace.load(good, max_bytes=100)
