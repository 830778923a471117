"""ProgressBar: \\r-updated line in a terminal, plain lines elsewhere, a widget in a notebook."""
from __future__ import annotations

import io

import pytest

from minipaddle.hapi import progressbar
from minipaddle.hapi.progressbar import ProgressBar, format_eta, format_rate, format_value


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_rewrites_one_line_and_ends_it_when_done():
    out = FakeTerminal()
    bar = ProgressBar(num=4, width=8, verbose=1, file=out)
    bar.update(1, [("loss", 0.5)])
    bar.update(4, [("loss", 0.25), ("acc", [0.5, 0.75])])
    text = out.getvalue()
    first, second = text.split("\r")[1:]
    assert first.startswith("step 1/4 [=>......] - loss: 0.5000 - ETA: ") and "\n" not in first
    assert second.startswith("step 4/4 [========] - loss: 0.2500 - acc: 0.5000 0.7500 - ")
    assert second.endswith("/step\n") and "ETA" not in second


def test_shorter_update_pads_over_the_previous_line():
    out = FakeTerminal()
    bar = ProgressBar(num=10, width=4, verbose=1, file=out)
    bar.update(1, [("a_long_metric_name", "x" * 30)])
    bar.update(2)
    first, second = out.getvalue().split("\r")[1:]
    assert len(second) >= len(first)


def test_plain_stream_gets_full_lines():
    out = io.StringIO()
    bar = ProgressBar(num=3, verbose=1, file=out)
    bar.update(1)
    bar.update(3)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in out.getvalue() and lines[1].startswith("step 3/3 [")


def test_verbose_2_and_unknown_length():
    out = io.StringIO()
    ProgressBar(num=None, verbose=2, file=out).update(7, [("loss", 1e-5)])
    assert out.getvalue().startswith("step   7 - loss: 1.0000e-05 - ") and out.getvalue().endswith("\n")
    out = io.StringIO()
    ProgressBar(num=None, verbose=1, file=out).update(3)
    assert out.getvalue().startswith("step   3 - ")
    with pytest.raises(TypeError):
        ProgressBar(num=0)


def test_formatting_rules():
    assert format_value(0.123456) == "0.1235" and format_value(2e-4) == "2.0000e-04" and format_value(3) == "3"
    assert format_rate(0.0123, "step") == " - 12ms/step" and format_rate(2.4, "step") == " - 2s/step"
    assert format_rate(5e-5, "step") == " - 50us/step"
    assert format_eta(42) == "42s" and format_eta(125) == "2:05" and format_eta(3725) == "1:02:05"


def test_notebook_updates_one_output_with_an_html_bar(monkeypatch, capsys):
    from IPython.core import display_functions
    calls = []
    monkeypatch.setattr(display_functions, "display", lambda obj, **kw: calls.append((obj, kw)))
    monkeypatch.setattr(progressbar, "_in_notebook", lambda: True)
    bar = ProgressBar(num=5, verbose=1)
    bar.update(2, [("loss", 0.5)])
    bar.update(5, [("loss", 0.25)])
    (first, kw1), (last, kw2) = calls
    assert not kw1.get("update") and kw2["update"] and kw1["display_id"] == kw2["display_id"]
    assert first["text/plain"].startswith("step 2/5 - loss: 0.5000 - ETA:")
    assert last["text/plain"].startswith("step 5/5 - loss: 0.2500 - ")
    assert last["text/html"].startswith('<progress value="5" max="5"') and "<code>step 5/5" in last["text/html"]
    assert capsys.readouterr().out == ""        # nothing printed as text


def test_notebook_display_failure_falls_back_to_text(monkeypatch, capsys):
    from IPython.core import display_functions

    def broken(*args, **kwargs):
        raise RuntimeError("no frontend")

    monkeypatch.setattr(display_functions, "display", broken)
    monkeypatch.setattr(progressbar, "_in_notebook", lambda: True)
    ProgressBar(num=2, verbose=1).update(2)
    assert capsys.readouterr().out.startswith("step 2/2 [")
