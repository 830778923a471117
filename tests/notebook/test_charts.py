"""line_chart: valid SVG, series in order, non-finite points skipped, names escaped."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from minipaddle.notebook.charts import line_chart

SVG = "{http://www.w3.org/2000/svg}"


def test_line_chart_is_valid_svg_with_one_polyline_per_series():
    root = ET.fromstring(line_chart({"a": [3.0, 2.0, 1.0], "b": [1.0, 1.5]}, title="loss"))
    lines = root.findall(f"{SVG}polyline")
    assert len(lines) == 2
    assert len(lines[0].get("points").split()) == 3


def test_non_finite_points_are_skipped_and_log_scale_drops_non_positive():
    root = ET.fromstring(line_chart({"a": [1.0, float("nan"), float("inf"), 0.5]}))
    assert len(root.find(f"{SVG}polyline").get("points").split()) == 2
    root = ET.fromstring(line_chart({"a": [1.0, 0.0, 0.1]}, log_y=True))
    assert len(root.find(f"{SVG}polyline").get("points").split()) == 2


def test_names_are_escaped():
    text = line_chart({"<script>alert(1)</script>": [1.0, 2.0]}, title="<b>")
    assert "<script>" not in text and "&lt;script&gt;" in text
    ET.fromstring(text)


def test_empty_and_constant_series_still_render():
    ET.fromstring(line_chart({}))
    ET.fromstring(line_chart({"flat": [2.0, 2.0, 2.0]}))


def test_xy_chart_draws_curves_bars_and_paths_on_shared_axes():
    from minipaddle.notebook.charts import xy_chart
    text = xy_chart({"pdf": ([0.0, 1.0, 2.0], [0.1, 0.4, 0.1])}, title="<zoo>",
                    bars={"samples": ([0.0, 1.0, 2.0], [0.2, 0.3])},
                    paths={"iterates": ([0.0, 2.0, float("nan")], [0.0, 0.4, 1.0])})
    root = ET.fromstring(text)
    assert len(root.findall(f"{SVG}rect")) == 1 + 2           # the background and one bar per bin
    lines = root.findall(f"{SVG}polyline")
    assert [len(line.get("points").split()) for line in lines] == [3, 2]   # the NaN point is skipped
    assert len(root.findall(f"{SVG}circle")) == 2
    assert "&lt;zoo&gt;" in text
    ET.fromstring(xy_chart({}))                                  # nothing to draw still renders
