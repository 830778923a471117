"""%paddle_graph program, and static runs inside %%paddle_trace, in a real IPython shell."""
from __future__ import annotations

import jsonschema
import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from minipaddle.framework.static import builder, executor
from minipaddle.framework.static.program import Program
from minipaddle.notebook.display import MIME_TYPE, bundle_document
from minipaddle.visualizer import dangling_references, load_schema

SETUP = """
import numpy as np
import minipaddle as paddle
paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data("x", [None, 4], "float32")
    h = paddle.nn.functional.relu(paddle.static.nn.fc(x, 3))
    loss = paddle.mean(h * 1.0)
    flag = paddle.static.nn.cond(loss > 0, lambda: loss + 1.0, lambda: loss - 1.0)
paddle.disable_static()
exe = paddle.static.Executor()
exe.run(startup)
xs = np.ones((2, 4), "float32")
"""


@pytest.fixture
def shell():
    builder._main_program, builder._startup_program = Program(), Program()
    executor._global_scope = executor.Scope()
    sh = InteractiveShell.instance()
    assert sh.extension_manager.load_extension("minipaddle") in (None, "already loaded")
    result, _ = run(sh, SETUP)
    assert result.success, result.error_in_exec
    yield sh
    run(sh, "paddle.disable_static()")


def run(sh, source: str):
    with capture_output() as cap:
        result = sh.run_cell(source, store_history=False)
    return result, [o.data for o in cap.outputs]


def valid(doc: dict) -> dict:
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    assert dangling_references(doc) == []
    return doc


def test_paddle_graph_program_expr_shows_that_program(shell):
    result, (shown,) = run(shell, "%paddle_graph program main")
    assert result.success
    assert set(shown) == {MIME_TYPE, "text/html", "text/plain"}
    doc = valid(shown[MIME_TYPE])
    (p,) = doc["programs"]
    assert p["name"] == "main" and p["role"] == "main" and len(p["blocks"]) == 3
    assert p["text"] == shell.user_ns["main"].to_string()
    assert shown["text/plain"].startswith("minipaddle program main: 3 blocks, ")
    assert "Static programs (1)" in shown["text/html"]


def test_paddle_graph_program_alone_draws_the_default_main_program(shell):
    run(shell, "paddle.enable_static()\ny = paddle.static.data('q', [3], 'float32')\nz = paddle.exp(y)\n"
               "paddle.disable_static()")
    result, (shown,) = run(shell, "%paddle_graph program")
    assert result.success
    (p,) = shown[MIME_TYPE]["programs"]
    assert p["name"] == "default main program" and [op["type"] for op in p["blocks"][0]["ops"]] == ["exp"]


def test_paddle_graph_takes_a_program_valued_expression_directly(shell):
    result, (shown,) = run(shell, "%paddle_graph main")
    assert result.success and shown[MIME_TYPE]["programs"][0]["name"] == "main"


def test_paddle_graph_program_rejects_what_is_not_a_program(shell):
    result, outputs = run(shell, "%paddle_graph program xs")
    assert not result.success and outputs == []
    assert "expected a paddle.static.Program" in str(result.error_in_exec)
    result, _ = run(shell, "%paddle_graph program no_such_name")
    assert "could not evaluate 'no_such_name'" in str(result.error_in_exec)
    result, _ = run(shell, "%paddle_graph xs")
    assert "expected a minipaddle Tensor (or a static Program)" in str(result.error_in_exec)


def test_a_tensor_named_program_is_still_a_tensor(shell):
    run(shell, "program = paddle.to_tensor([1.0, 2.0], stop_gradient=False) * 2")
    result, (shown,) = run(shell, "%paddle_graph program")
    assert result.success and MIME_TYPE not in shown and shown["text/plain"].startswith("graph of ")
    run(shell, "del program")


def test_trace_cell_records_executor_runs_and_passes(shell):
    cell = ("%%paddle_trace\n"
            "from minipaddle.framework.static.passes import apply_passes\n"
            "opt, report = apply_passes(main, fetch_list=[loss, flag])\n"
            "out = exe.run(opt, feed={'x': xs}, fetch_list=[loss, flag])\n")
    result, (shown,) = run(shell, cell)
    assert result.success
    doc = valid(bundle_document(shown))
    assert len(doc["pass_diffs"]) == 6 and doc["programs"][0]["role"] == "main"
    (r,) = doc["program_runs"]
    assert r["program"] == doc["pass_diffs"][-1]["after"] and set(r["feed"]) == {"x"}
    assert any(s["type"] == "cond" for s in r["steps"]) and any(s["block"] > 0 for s in r["steps"])
    assert "Executor runs (1)" in shown["text/html"] and "Pass diffs" in shown["text/html"]
