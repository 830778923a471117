"""The documents the extension's unit tests read (notebook_ext/tests/fixtures/) are real trace documents:
each one validates against the trace schema, so the TypeScript tests cannot drift from what the recorder
writes. (make_fixtures.py and make_profile_fixture.py write them.)"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from minipaddle.visualizer.trace import Trace

FIXTURES = Path(__file__).resolve().parents[2] / "notebook_ext" / "tests" / "fixtures"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.json")))
def test_each_extension_fixture_is_a_valid_trace_document(name):
    doc = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    trace = Trace.from_dict(doc)
    trace.validate()        # the reference check (jsonschema)
    trace.check(name)       # and the fast one Trace.load uses agree


def test_the_fixtures_cover_iterations_programs_and_a_profile():
    docs = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in FIXTURES.glob("*.json")}
    assert len(docs) >= 5
    assert any(len(d.get("iterations") or []) > 1 for d in docs.values())
    assert any(d.get("programs") for d in docs.values())
    assert any(d.get("profile") for d in docs.values())


def test_the_view_goldens_the_extension_is_checked_against_are_what_graph_py_draws_now():
    # views.ts is compared with views.golden.json (views_parity.test.ts); this keeps that file true to
    # graph.py, so a change on either side without the other fails one of the two suites
    import importlib.util
    path = FIXTURES.parent / "make_view_goldens.py"
    spec = importlib.util.spec_from_file_location("make_view_goldens", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.GOLDEN.read_text(encoding="utf-8") == module.text(module.goldens()), \
        "notebook_ext/tests/views.golden.json is stale: run .venv/bin/python notebook_ext/tests/make_view_goldens.py"
