"""Writes views.json: the graph views Python draws (minipaddle/visualizer/graph.py) for each fixture, as
the structure both sides must agree on -- node ids, kinds and clusters, and edges -- so the extension's
views.ts and graph.py cannot drift apart (views.test.ts compares; tests/visualizer checks this file is
current). Labels are left out: the two sides word them for their own screens.

Run: .venv/bin/python notebook_ext/tests/make_view_goldens.py
"""
import json
from pathlib import Path

from minipaddle.visualizer.graph import graph_view
from minipaddle.visualizer.trace import Trace

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# the extension's view kind -> graph.py's name for it
KINDS = {"forward": "forward", "backward": "backward", "combined": "both", "layers": "layers"}
DOCS = ("mlp.json", "blocks.json", "train.json")


def structure(view: dict) -> dict:
    nodes = sorted([n["id"], n["kind"], n["cluster"]] for n in view["nodes"])
    edges = sorted({(e["source"], e["target"]) for e in view["edges"]})
    return {"nodes": nodes, "edges": [list(e) for e in edges]}


def goldens() -> dict:
    out = {}
    for name in DOCS:
        trace = Trace.from_dict(json.loads((FIXTURES / name).read_text(encoding="utf-8")))
        for ts_kind, py_kind in KINDS.items():
            if ts_kind == "layers":  # at each depth: layers above it drawn open, those at it as boxes
                for depth in (1, 2, 3):
                    view = graph_view(trace, py_kind, depth=depth, budget=None).to_dict()
                    out[f"{name}:{ts_kind}:{depth}"] = structure(view)
            else:
                out[f"{name}:{ts_kind}"] = structure(graph_view(trace, py_kind, budget=None).to_dict())
    return out


def text(views: dict) -> str:
    """One line per view: diffs stay readable."""
    lines = [f"  {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}" for key, value in views.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


GOLDEN = FIXTURES.parent / "views.golden.json"

if __name__ == "__main__":
    GOLDEN.write_text(text(goldens()), encoding="utf-8")
