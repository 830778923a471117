"""The debugger shows the autotuner's decision for a node (issue 8), in a real JupyterLab.

The notebook turns kernel autotuning on (tuning steps 1..3, a fresh cache dir), trains one untuned step, then
records two steps under `%%paddle_trace`: the first tunes matmul's kernels (numpy's BLAS against a numba loop),
the second runs the winners. Clicking a matmul node shows the `mp-autotune` table in the inspector: every
candidate with its measured time, the winner marked. Read only through the DOM contract (data-testid,
data-node-id, data-candidate).
"""
from __future__ import annotations


from .conftest import ARTIFACTS
from .lab_page import open_notebook, run_all, trace_widget, write_notebook

SETUP = """import tempfile
import numpy as np
import minipaddle as paddle
import minipaddle.nn.functional as F

%load_ext minipaddle

paddle.incubate.autotune.set_config({"kernel": {"enable": True, "tuning_range": [1, 3],
                                                "cache_dir": tempfile.mkdtemp()}})
rng = np.random.default_rng(0)
x = paddle.to_tensor(rng.standard_normal((16, 24)).astype("float32"))
w1 = paddle.to_tensor(rng.standard_normal((24, 32)).astype("float32"), stop_gradient=False)
w2 = paddle.to_tensor(rng.standard_normal((32, 4)).astype("float32"), stop_gradient=False)


def train_step():
    loss = paddle.matmul(F.relu(paddle.matmul(x, w1)), w2).mean()
    loss.backward()
    w1.clear_gradient()
    w2.clear_gradient()


train_step()  # step 0: the kernels compile, nothing is tuned yet"""

TRACE = """%%paddle_trace
for _ in range(2):  # step 1 tunes each shape class, step 2 runs the winners
    train_step()"""

NOTEBOOK_NAME = "autotune_view.ipynb"



def test_a_tuned_matmul_node_shows_its_candidates_times_and_winner(page, lab, extension) -> None:
    write_notebook(lab, NOTEBOOK_NAME, [SETUP, TRACE])
    open_notebook(page, lab, NOTEBOOK_NAME)
    run_all(page)
    root = trace_widget(page)
    matmuls = root.locator('[data-testid="mp-graph"] svg g.node[data-node-id]', has_text="matmul")
    assert matmuls.count() >= 1, "no matmul node is drawn"
    matmuls.first.click()
    table = root.locator('[data-testid="mp-inspector"] [data-testid="mp-autotune"]')
    table.wait_for(state="visible", timeout=5_000)

    rows = table.locator("tr[data-candidate]")
    names = rows.evaluate_all("rs => rs.map(r => r.dataset.candidate)")
    assert len(names) >= 2 and {"blas", "numba"} <= set(names), names
    times = rows.evaluate_all("rs => rs.map(r => r.cells[1].textContent.trim())")
    assert all(float(t) > 0 for t in times), times  # µs, measured
    winners = table.locator("tr.mp-winner")
    assert winners.count() == 1 and "winner" in (winners.text_content() or "")
    assert winners.get_attribute("data-candidate") in names
    head = table.locator(".mp-autotune-head").text_content() or ""
    assert "measured at step 1" in head and "default blas" in head, head
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    root.locator('[data-testid="mp-inspector"]').screenshot(path=str(ARTIFACTS / "autotune-inspector.png"),
                                                            timeout=10_000)
