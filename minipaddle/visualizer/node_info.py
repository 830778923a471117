"""An op's own picture of one call, on its debugger node: `register_op(..., node_info=fn)`.

Most ops are clear from their inputs and outputs. A few are not: a sparse matrix reaches
`sparse_csr_dense_matmul` as three vectors (crows, cols, values), and a learner cannot see the
matrix in them. Such an op registers `node_info(arrays, attrs) -> dict`; the recorder calls it for
each recorded call and stores the checked result on the op node as "info" (schema 1.4):

    {"title": "sparse x", "rows": [["nnz", "430 of 3600 (11.9%)"], ...],
     "grid": {"shape": [r, c], "values": [r * c numbers]} or None}

The front ends show the rows as a table and the grid as a heat map (at most 32 x 32 cells). A
node_info that raises or returns something else is noted in the recording's errors and the node
has no info: the debugger must never break the program it watches.
"""
from __future__ import annotations

import numpy as np

from .summary import json_number, round_significant

MAX_GRID_CELLS = 1024   # 32 x 32: what the inspector's heat map draws
MAX_ROWS = 16
MAX_TEXT = 200          # characters of one label or text
MAX_ERRORS = 20         # as the builder keeps


def add_node_info(node: dict, opdef, inputs: tuple, attrs: dict | None, errors: list) -> None:
    """Set node["info"] from `opdef.node_info` for this call; on failure note it in `errors` instead."""
    try:
        arrays = [t._data for t in inputs]
        node["info"] = info_json(opdef.node_info(arrays, {**opdef.attr_defaults, **(attrs or {})}))
    except Exception as exc:  # a bug in an op's picture of itself must not stop the program
        if len(errors) < MAX_ERRORS:
            errors.append(f"op {opdef.name}: node_info failed: {type(exc).__name__}: {exc}")


def info_json(raw) -> dict:
    """What a node_info returned, as the schema's opNode.info: texts as strings, the grid checked."""
    if not isinstance(raw, dict):
        raise TypeError(f"node_info must return a dict, got {type(raw).__name__}")
    rows = [[_text(label), _text(text)] for label, text in list(raw.get("rows") or ())[:MAX_ROWS]]
    grid = raw.get("grid")
    return {"title": _text(raw.get("title", "")), "rows": rows, "grid": None if grid is None else _grid(grid)}


def _text(value) -> str:
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT - 1] + "…"


def _grid(grid: dict) -> dict:
    n_rows, n_cols = (int(n) for n in grid["shape"])
    values = np.asarray(grid["values"], dtype=np.float64).reshape(-1)
    if n_rows < 1 or n_cols < 1 or n_rows * n_cols > MAX_GRID_CELLS or values.size != n_rows * n_cols:
        raise ValueError(f"grid of shape [{n_rows}, {n_cols}] with {values.size} values: expected "
                         f"rows * cols values, at most {MAX_GRID_CELLS} cells")
    return {"shape": [n_rows, n_cols], "values": [json_number(round_significant(v)) for v in values.tolist()]}
