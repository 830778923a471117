"""Every golden case gives under minipaddle what real Paddle 3.3.1 gave (tests/compat/goldens/*.json).

Record goldens again with tools/record_paddle_goldens.py after adding or changing a case.
"""
from __future__ import annotations

import importlib

import pytest

import minipaddle

from . import harness


def _all_cases():
    for theme in harness.THEMES:
        module = importlib.import_module(f"tests.compat.cases_{theme}")
        for c in harness.cases_in(module):
            marks = [pytest.mark.xfail(reason=c.differs, strict=True)] if c.differs else []
            yield pytest.param(theme, c, id=f"{theme}::{c.name}", marks=marks)


@pytest.fixture(autouse=True)
def _dynamic_mode():
    minipaddle.disable_static()
    minipaddle.seed(0)
    yield
    minipaddle.disable_static()


@pytest.mark.parametrize("theme, golden_case", list(_all_cases()))
def test_minipaddle_matches_paddle(theme, golden_case):
    goldens = harness.load_goldens(theme)["cases"]
    assert golden_case.name in goldens, (f"no golden for {golden_case.name}: run "
                                         f"tools/record_paddle_goldens.py {theme} with Paddle installed")
    diffs = harness.compare(golden_case(minipaddle), goldens[golden_case.name])
    assert not diffs, "\n".join(diffs)


@pytest.mark.parametrize("theme", harness.THEMES)
def test_every_golden_has_its_case(theme):
    module = importlib.import_module(f"tests.compat.cases_{theme}")
    names = {c.name for c in harness.cases_in(module)}
    doc = harness.load_goldens(theme)
    assert doc["paddle_version"] == "3.3.1"
    assert set(doc["cases"]) == names, "goldens and cases differ: record the theme again"
