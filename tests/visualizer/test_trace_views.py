"""A Trace shows itself: graph data, DOT, HTML (saved and scriptless), and one notebook MIME bundle."""
from __future__ import annotations

import shutil

import pytest

import minipaddle as paddle

from .conftest import train_step


def _trace(mlp, batch):
    with paddle.debug.record() as rec:
        train_step(mlp, *batch)
    return rec.trace


def test_trace_methods_reach_every_view(mlp, batch, tmp_path):
    trace = _trace(mlp, batch)
    ops = {n["label"] for n in trace.graph("forward").to_dict()["nodes"] if n["kind"] == "op"}
    assert {"linear", "relu"} <= ops
    assert "digraph" in trace.to_dot("forward") and "cluster" in trace.to_dot("forward")
    html = trace.to_html(scripts=False, full_page=False)
    assert "<script" not in html and "linear" in html
    path = trace.save_html(tmp_path / "step.html")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    if shutil.which("dot"):
        assert "<svg" in trace.to_svg("forward") and trace.to_svg("forward").rstrip().endswith("</svg>")


def test_trace_displays_as_one_mime_bundle(mlp, batch):
    bundle = _trace(mlp, batch)._repr_mimebundle_()
    assert set(bundle) == {"application/vnd.minipaddle.trace+json", "text/html", "text/plain"}
    from minipaddle.notebook.display import bundle_document
    assert bundle_document(bundle)["schema_version"] == "1.5"
    assert bundle["text/plain"].startswith("minipaddle trace:")


def test_unknown_view_is_a_clear_error(mlp, batch):
    with pytest.raises(ValueError, match="view"):
        _trace(mlp, batch).graph("sideways")
