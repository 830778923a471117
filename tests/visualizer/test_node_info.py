"""An op's own picture on its debugger node (register_op(..., node_info=), schema opNode.info): a sparse
product's node shows the matrix's nnz and pattern; a failing node_info is a recording error, never raised;
documents without info load as before."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.framework.registry import get_op
from minipaddle.sparse.matmul import csr_dense_matmul_info, csr_pattern_grid
from minipaddle.visualizer.html import to_html
from minipaddle.visualizer.node_info import info_json
from minipaddle.visualizer.trace import Trace

from .conftest import validated

SPARSE_OP = "sparse_csr_dense_matmul"
EXTENSION_FIXTURES = Path(__file__).resolve().parents[2] / "notebook_ext" / "tests" / "fixtures"


def _adjacency(n: int, density: float, seed: int) -> np.ndarray:
    """A random graph's normalized adjacency with self loops, as a dense array (zeros off the pattern)."""
    rng = np.random.default_rng(seed)
    a = (rng.random((n, n)) < density).astype(np.float64)
    a = np.maximum(a, a.T)
    np.fill_diagonal(a, 1.0)
    degree = a.sum(1)
    return (a / np.sqrt(np.outer(degree, degree))).astype(np.float32)


def _gcn_step(a_dense: np.ndarray) -> paddle.Tensor:
    """One training step of a two-layer graph convolution: relu(Â X W1) then Â H W2, a loss, an update."""
    paddle.seed(0)
    n = a_dense.shape[0]
    a_hat = paddle.to_tensor(a_dense).to_sparse_csr()
    x = paddle.randn([n, 8])
    w1, w2 = nn.Linear(8, 16), nn.Linear(16, 2)
    opt = paddle.optimizer.SGD(0.1, parameters=w1.parameters() + w2.parameters())
    h = paddle.nn.functional.relu(paddle.sparse.matmul(a_hat, w1(x)))
    loss = paddle.sparse.matmul(a_hat, w2(h)).square().mean()
    loss.backward()
    opt.step()
    return loss


def _block_fractions(pattern: np.ndarray, grid: tuple[int, int]) -> np.ndarray:
    """The reference downsampling, cell by cell: row i of the matrix falls in cell row i * r // n_rows."""
    n_rows, n_cols = pattern.shape
    r, c = grid
    row_cell = np.arange(n_rows) * r // n_rows
    col_cell = np.arange(n_cols) * c // n_cols
    out = np.zeros(grid)
    for i in range(r):
        for j in range(c):
            out[i, j] = pattern[np.ix_(row_cell == i, col_cell == j)].mean()
    return out


def test_a_recorded_gcn_step_shows_each_sparse_product_with_its_nnz_and_pattern():
    a_dense = _adjacency(64, 0.05, seed=1)
    with paddle.debug.record() as rec:
        _gcn_step(a_dense)
    doc = validated(rec.trace)
    nodes = [n for n in doc["graph"]["forward"]["nodes"] if n["op"] == SPARSE_OP]
    assert len(nodes) == 2
    nnz = int(np.count_nonzero(a_dense))
    pattern = (a_dense != 0).astype(np.float64)
    for node in nodes:
        info = node["info"]
        rows = dict(info["rows"])
        assert rows["sparse matrix"] == "[64, 64] CSR"
        assert rows["nnz"] == f"{nnz} of 4096 ({100 * nnz / 4096:.1f}%)"
        per_row = pattern.sum(1)
        low, mean, high = per_row.min(), per_row.mean(), per_row.max()
        assert rows["stored per row"] == f"min {low:.0f} · mean {mean:.1f} · max {high:.0f}"
        assert info["grid"]["shape"] == [32, 32]
        expected = pattern.reshape(32, 2, 32, 2).mean(axis=(1, 3))  # 64 / 32: blocks of 2 x 2
        np.testing.assert_allclose(np.reshape(info["grid"]["values"], (32, 32)), expected, atol=1e-4)
    # the other ops carry no info: only ops registered with node_info do
    assert all("info" not in n for n in doc["graph"]["forward"]["nodes"] if n["op"] != SPARSE_OP)


def test_the_pattern_of_a_matrix_whose_size_32_does_not_divide_matches_a_cell_by_cell_reference():
    rng = np.random.default_rng(3)
    pattern = (rng.random((45, 70)) < 0.2).astype(np.float64)
    csr = paddle.to_tensor(pattern).to_sparse_csr()
    grid = csr_pattern_grid(csr.crows().numpy(), csr.cols().numpy(), 45, 70)
    assert grid["shape"] == [32, 32]
    np.testing.assert_allclose(np.reshape(grid["values"], (32, 32)), _block_fractions(pattern, (32, 32)), atol=5e-4)
    small = csr_pattern_grid(np.array([0, 1, 1, 3]), np.array([4, 0, 4]), 3, 5)  # smaller than 32: one entry a cell
    np.testing.assert_array_equal(np.reshape(small["values"], (3, 5)),
                                  [[0, 0, 0, 0, 1], [0, 0, 0, 0, 0], [1, 0, 0, 0, 1]])


def test_without_host_indices_the_info_keeps_shape_and_nnz_and_leaves_out_the_pattern():
    class DeviceArray:  # what a GPU input looks like to node_info: a shape, no numpy data
        def __init__(self, shape):
            self.shape = shape
    arrays = [DeviceArray((5,)), DeviceArray((6,)), DeviceArray((6,)), DeviceArray((7, 3))]
    info = csr_dense_matmul_info(arrays, {"n_rows": 4})
    assert info["grid"] is None
    assert info["rows"] == [["sparse matrix", "[4, 7] CSR"], ["nnz", "6 of 28 (21.4%)"]]


def test_node_info_runs_only_while_a_recording_listens(monkeypatch):
    op = get_op(SPARSE_OP)
    calls = []
    original = op.node_info
    monkeypatch.setattr(op, "node_info", lambda arrays, attrs: calls.append(attrs) or original(arrays, attrs))
    x = paddle.to_tensor(np.eye(3, dtype=np.float32)).to_sparse_csr()
    paddle.sparse.matmul(x, paddle.ones([3, 2]))
    assert calls == []
    with paddle.debug.record():
        paddle.sparse.matmul(x, paddle.ones([3, 2]))
    assert calls == [{"n_rows": 3}]


def test_a_node_info_that_raises_is_a_recording_error_and_the_program_goes_on(monkeypatch):
    def broken(arrays, attrs):
        raise RuntimeError("no picture today")
    monkeypatch.setattr(get_op(SPARSE_OP), "node_info", broken)
    x = paddle.to_tensor(np.eye(3, dtype=np.float32)).to_sparse_csr()
    with paddle.debug.record() as rec:
        out = paddle.sparse.matmul(x, paddle.full([3, 2], 2.0))
    np.testing.assert_array_equal(out.numpy(), np.full((3, 2), 2.0))
    doc = rec.trace.to_dict()
    rec.trace.validate()
    (node,) = doc["graph"]["forward"]["nodes"]
    assert node["op"] == SPARSE_OP and "info" not in node  # the node is still there, without info
    assert doc["recording"]["errors"] == [f"op {SPARSE_OP}: node_info failed: RuntimeError: no picture today"]


@pytest.mark.parametrize("bad, why", [
    ([["nnz", "3"]], "must return a dict"),
    ({"title": "t", "rows": [], "grid": {"shape": [40, 40], "values": [0.0] * 1600}}, "at most 1024 cells"),
    ({"title": "t", "rows": [], "grid": {"shape": [2, 2], "values": [0.0] * 3}}, "with 3 values"),
])
def test_a_node_info_result_the_schema_cannot_hold_is_refused_with_why(monkeypatch, bad, why):
    monkeypatch.setattr(get_op(SPARSE_OP), "node_info", lambda arrays, attrs: bad)
    x = paddle.to_tensor(np.eye(2, dtype=np.float32)).to_sparse_csr()
    with paddle.debug.record() as rec:
        paddle.sparse.matmul(x, paddle.ones([2, 2]))
    rec.trace.validate()
    (error,) = rec.trace.to_dict()["recording"]["errors"]
    assert why in error


def test_info_texts_become_strings_and_numbers_json_numbers():
    info = info_json({"title": 3, "rows": [["n", 5]], "grid": {"shape": [1, 2], "values": [np.inf, 0.123456]}})
    assert info == {"title": "3", "rows": [["n", "5"]], "grid": {"shape": [1, 2], "values": ["Infinity", 0.1235]}}


def test_documents_without_info_still_load_and_documents_with_it_round_trip(tmp_path):
    x = paddle.to_tensor(np.eye(4, dtype=np.float32)).to_sparse_csr()
    with paddle.debug.record() as rec:
        paddle.sparse.matmul(x, paddle.ones([4, 2]))
    path = rec.trace.save(tmp_path / "sparse.json")
    loaded = Trace.load(path)
    assert dict(loaded.nodes[0]["info"]["rows"])["nnz"] == "4 of 16 (25.0%)"
    old = json.loads(path.read_text())
    old["schema_version"] = "1.3"
    del old["graph"]["forward"]["nodes"][0]["info"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert "info" not in Trace.load(tmp_path / "old.json").nodes[0]
    first = Trace.load(EXTENSION_FIXTURES / "mlp.json")  # a 1.0 document, written before info existed
    assert first.to_dict()["schema_version"] == "1.0" and all("info" not in n for n in first.nodes)


def test_the_html_page_lists_the_info_rows_under_the_op():
    a_dense = _adjacency(40, 0.1, seed=2)
    x = paddle.to_tensor(a_dense).to_sparse_csr()
    with paddle.debug.record() as rec:
        paddle.sparse.matmul(x, paddle.ones([40, 3]))
    page = to_html(rec.trace, scripts=False, full_page=False)
    nnz = int(np.count_nonzero(a_dense))
    assert f"nnz: {nnz} of 1600 ({100 * nnz / 1600:.1f}%)" in page
    assert "sparse matrix: [40, 40] CSR" in page
    assert 'data-testid="mp-info-grid"' in page
