"""A @to_static training step in the profiler: one run_program op, its Program's ops under its span."""
from __future__ import annotations

import json

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn
from minipaddle.profiler import Profiler
from minipaddle.profiler.chrome_trace import chrome_trace


class _Net(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(4, 8), nn.Linear(8, 2)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


def _profiled_step():
    paddle.seed(0)
    net = _Net()
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((3, 4)).astype("float32"))
    net(x).mean().backward()          # the Programs are built before the window
    with Profiler() as prof:
        net(x).mean().backward()
    return prof.result


def test_the_run_program_op_carries_its_forward_programs_ops_and_its_grad_the_backwards():
    result = _profiled_step()
    c = result.collector
    (op,) = [o for o in c.ops if o[0] == "run_program"]
    program_ops = op[7]["program_ops"]
    assert "matmul" in [p[0] for p in program_ops] or "linear" in [p[0] for p in program_ops]
    assert all(op[2] <= p[2] <= p[3] <= op[3] for p in program_ops)   # inside the op's own span
    (grad,) = [b for b in c.backward if b[0] == "run_program_grad"]
    assert grad[4] and all(inner[1] == "executor" for inner in grad[4])


def test_the_chrome_trace_and_the_operator_table_show_them_under_run_program():
    result = _profiled_step()
    trace = json.loads(json.dumps(chrome_trace(result)))
    spans = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    (outer,) = [e for e in spans if e["name"] == "run_program" and e["cat"] == "Operator"]
    inner = [e for e in spans if e["cat"] == "OperatorInner" and e["tid"] == outer["tid"]]
    assert inner and all(outer["ts"] - 1e-3 <= e["ts"] and e["ts"] + e["dur"] <= outer["ts"] + outer["dur"] + 1e-3
                         for e in inner)
    table = next(t for t in result.tables() if t.title == "Operator Summary")
    rows = table.rows
    i = [cells[0].strip() for _, cells in rows].index("run_program")
    children = []
    for depth, cells in rows[i + 1:]:
        if depth == 0:
            break
        children.append(cells[0])
    assert any(child.endswith("(executor)") for child in children)
