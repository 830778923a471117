"""The debugger shows a sparse product's matrix (schema 1.4 opNode.info), in a real JupyterLab.

The notebook records one graph-convolution step on a 96-node graph of two communities under `%%paddle_trace`;
`paddle.sparse.matmul(a_hat, h)` is one `sparse_csr_dense_matmul` node whose inputs are three vectors (crows,
cols, values). Clicking it shows what the op's node_info says of the matrix under the props table: its shape,
its nnz, and its pattern downsampled to 32 x 32 blocks, drawn with the inspector's heat map. Read only through
the DOM contract (data-testid, data-node-id).
"""
from __future__ import annotations


from .conftest import ARTIFACTS
from .lab_page import node_ids, node_text, open_notebook, run_all, trace_widget, write_notebook

SETUP = """import numpy as np
import minipaddle as paddle
import minipaddle.nn.functional as F

%load_ext minipaddle

n = 96  # two communities of 48 people: dense inside, a few links across
rng = np.random.default_rng(0)
same = (np.arange(n)[:, None] < n // 2) == (np.arange(n)[None, :] < n // 2)
a = (rng.random((n, n)) < np.where(same, 0.12, 0.01)).astype("float32")
a = np.maximum(a, a.T) + np.eye(n, dtype="float32")
degree = a.sum(1)
a_hat = paddle.to_tensor(a / np.sqrt(np.outer(degree, degree))).to_sparse_csr()
nnz = int(np.count_nonzero(a))
x = paddle.randn([n, 8])
w = paddle.create_parameter([8, 4], "float32")"""

TRACE = """%%paddle_trace
h = F.relu(paddle.sparse.matmul(a_hat, paddle.matmul(x, w)))
h.mean().backward()"""

CHECK = """print(f"nnz={nnz}")"""

NOTEBOOK_NAME = "sparse_view.ipynb"
MIN_CELL_PX = 5    # a 32-cell-wide pattern drawn at least this many pixels a cell
MIN_TEXT_PX = 11   # STYLE: text a learner must read



def test_a_sparse_product_node_shows_its_matrix_nnz_and_pattern(page, lab, extension) -> None:
    write_notebook(lab, NOTEBOOK_NAME, [SETUP, TRACE, CHECK])
    open_notebook(page, lab, NOTEBOOK_NAME)
    run_all(page)
    printed = page.locator(".jp-OutputArea-output", has_text="nnz=").first.text_content() or ""
    nnz = int(printed.strip().split("=")[1])
    root = trace_widget(page)
    # forward op nodes are n<N> (the combined view also draws its grad node, g<N>)
    forward = [nid for nid in node_ids(root)
               if nid.startswith("n") and "sparse_csr_dense_matmul" in node_text(root, nid)]
    assert len(forward) == 1, f"the sparse product is not one drawn node: {node_ids(root)}"
    root.locator(f'[data-testid="mp-graph"] svg g.node[data-node-id="{forward[0]}"]').click()
    info = root.locator('[data-testid="mp-inspector"] [data-testid="mp-node-info"]')
    info.wait_for(state="visible", timeout=5_000)

    rows = dict(info.locator("tr").evaluate_all("rs => rs.map(r => [r.cells[0].textContent, r.cells[1].textContent])"))
    assert rows["sparse matrix"] == "[96, 96] CSR"
    assert rows["nnz"] == f"{nnz} of 9216 ({100 * nnz / 9216:.1f}%)"
    nnz_cell = info.locator("tr", has_text="nnz").locator("td")
    nnz_cell.scroll_into_view_if_needed(timeout=5_000)
    assert nnz_cell.is_visible()
    font_px = float(nnz_cell.evaluate("el => parseFloat(getComputedStyle(el).fontSize)"))
    assert font_px >= MIN_TEXT_PX, f"the nnz text is {font_px}px"

    grid = info.locator('svg[data-testid="mp-info-grid"]')
    grid.scroll_into_view_if_needed(timeout=5_000)
    box = grid.bounding_box(timeout=5_000) or {"width": 0, "height": 0}
    assert box["width"] >= 32 * MIN_CELL_PX and box["height"] >= 32 * MIN_CELL_PX, box
    fills = grid.locator("rect").evaluate_all("rs => rs.map(r => r.getAttribute('fill'))")
    assert len(fills) == 32 * 32
    shaded = [f for f in fills if not f.endswith(", 0.000)")]
    assert 0 < len(shaded) < len(fills), "the pattern is all empty or all full"
    # two communities: the diagonal blocks are denser than the blocks across
    alpha = [float(f.rsplit(",", 1)[1].rstrip(")")) for f in fills]
    inside = sum(alpha[i * 32 + j] for i in range(32) for j in range(32) if (i < 16) == (j < 16))
    across = sum(alpha[i * 32 + j] for i in range(32) for j in range(32) if (i < 16) != (j < 16))
    assert inside > 3 * across, (inside, across)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    info.scroll_into_view_if_needed(timeout=5_000)
    root.screenshot(path=str(ARTIFACTS / "sparse-inspector.png"), timeout=10_000)  # the node beside its matrix
