"""Programs the pass tests optimize: each builder returns a `Case` (main, startup, fetch list, feeds)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static


@dataclass
class Case:
    main: static.Program
    startup: static.Program
    fetch: list
    feed: Callable[[np.random.Generator], dict]
    steps: int = 1     # training programs run several steps (parameters change in between)


def _xy(batch: int = 6, n_in: int = 4, n_out: int = 1):
    def feed(rng):
        return {"x": rng.standard_normal((batch, n_in)).astype(np.float32),
                "y": rng.standard_normal((batch, n_out)).astype(np.float32)}
    return feed


# The MLPs' input width: wider than the K a fused loop computes a product for (fused_product.SMALL_K),
# so their first layer stays a GEMM (its bias add in the loop after it: the epilogue the tests expect).
WIDE = 20


def _build(body, n_in: int = 4) -> tuple[static.Program, static.Program, list]:
    paddle.seed(3)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, n_in], "float32")
        y = static.data("y", [None, 1], "float32")
        fetch = body(x, y, main)
    return main, startup, fetch


def mlp_forward() -> Case:
    def body(x, y, main):
        h = F.relu(paddle.nn.Linear(WIDE, 16)(x))
        return [F.softmax(paddle.nn.Linear(16, 3)(h), axis=-1)]
    return Case(*_build(body, WIDE), _xy(n_in=WIDE))


def mlp_train() -> Case:
    def body(x, y, main):
        h = F.relu(paddle.nn.Linear(WIDE, 16)(x))
        loss = F.mse_loss(paddle.nn.Linear(16, 1)(h), y)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
        return [loss]
    return Case(*_build(body, WIDE), _xy(n_in=WIDE), steps=3)


def gelu_mlp_train() -> Case:
    def body(x, y, main):
        h = F.gelu(paddle.nn.Linear(WIDE, 16)(x))
        h = h * F.sigmoid(h) + 0.5 * paddle.tanh(h)
        loss = paddle.mean((paddle.nn.Linear(16, 1)(h) - y) ** 2)
        paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)
        return [loss]
    return Case(*_build(body, WIDE), _xy(n_in=WIDE), steps=3)


def gelu_forward() -> Case:
    def body(x, y, main):
        h = paddle.nn.Linear(WIDE, 32)(x)
        g = F.gelu(h)
        out = g * F.relu6(g) + paddle.square(g) * 0.1 - F.leaky_relu(h, 0.1) / 3.0
        return [paddle.clip(out, -2.0, 2.0), g]
    return Case(*_build(body, WIDE), _xy(n_in=WIDE))


def dead_ops() -> Case:
    def body(x, y, main):
        h = paddle.nn.Linear(4, 8)(x)
        paddle.exp(h)                              # never used
        unused = paddle.matmul(h, paddle.transpose(h, [1, 0]))
        paddle.sum(unused * 2.0)                   # a dead chain
        return [F.relu(h)]
    return Case(*_build(body), _xy())


def duplicates() -> Case:
    def body(x, y, main):
        w = paddle.nn.Linear(4, 4)
        a, b = paddle.exp(x), paddle.exp(x)
        c, d = w(x), w(x)                          # the same matmul + bias twice
        e = paddle.add(a, c) * paddle.add(c, a)    # add is commutative
        return [e + b * d]
    return Case(*_build(body), _xy())


def identities() -> Case:
    def body(x, y, main):
        h = paddle.tanh(x)
        h = h * 1.0
        h = 1.0 * h + 0.0
        h = (h - 0.0) / 1.0
        h = paddle.scale(h, 1.0, 0.0)
        h = paddle.cast(h, "float32")
        h = paddle.reshape(h, [-1, 4])
        return [paddle.exp(h) * 1.0]               # fetched result of an identity: becomes assign
    return Case(*_build(body), _xy())


def constants() -> Case:
    def body(x, y, main):
        c = paddle.to_tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
        d = paddle.exp(c) * 2.0 + 1.0               # computable at build time
        e = paddle.full([4], 0.5, "float32") * 3.0
        return [x * d + e]
    return Case(*_build(body), _xy())


def _messy_branch(h, w):
    """What every pass has something to do with: dead code, a repeat, identities, constants, a chain."""
    paddle.exp(h * 3.0)                                         # dead
    a, b = paddle.tanh(h), paddle.tanh(h)                       # a repeat
    c = paddle.to_tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32)) * 2.0 + 1.0   # foldable
    g = (a * 1.0 + 0.0) * w                                     # identities
    return F.sigmoid(g) * g + b * c - 0.5 * g * g               # a fusable chain


def control_flow_forward() -> Case:
    def body(x, y, main):
        w = paddle.full([4], 0.5, "float32")
        s = paddle.sum(x)
        out = static.nn.cond(s > 0, lambda: _messy_branch(x, w), lambda: _messy_branch(-x, w) * 2.0)
        k0 = paddle.full([], 0, "int64")
        _, v = static.nn.while_loop(lambda k, v: k < 3, lambda k, v: [k + 1, _messy_branch(v, w) * 0.5 + x],
                                    [k0, out])
        return [v, out]
    return Case(*_build(body), _xy())


def control_flow_train() -> Case:
    def body(x, y, main):
        lin, head = paddle.nn.Linear(4, 4), paddle.nn.Linear(4, 1)
        h = lin(x)
        h = static.nn.cond(paddle.mean(h) > 0, lambda: F.gelu(h) * 1.0 + paddle.tanh(h) * 0.5,
                           lambda: paddle.tanh(h) * paddle.tanh(h) - h * 0.25)
        k0 = paddle.full([], 0, "int64")
        _, h = static.nn.while_loop(lambda k, v: k < 2, lambda k, v: [k + 1, F.sigmoid(lin(v)) * v + 0.1 * v],
                                    [k0, h])
        loss = paddle.mean((head(h) - y) ** 2)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
        return [loss]
    return Case(*_build(body), _xy(), steps=3)


CASES = {f.__name__: f for f in (mlp_forward, mlp_train, gelu_mlp_train, gelu_forward, dead_ops, duplicates,
                                 identities, constants, control_flow_forward, control_flow_train)}


def run_case(case: Case, program: static.Program, seed: int = 0) -> list[np.ndarray]:
    """Run startup in a fresh scope, then `program` for case.steps steps; every fetch of every step,
    and the parameters at the end."""
    scope = static.Scope()
    exe = static.Executor()
    paddle.seed(1000 + seed)  # the startup program draws the parameters: the same ones for every program run
    exe.run(case.startup, scope=scope)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(case.steps):
        out += exe.run(program, feed=case.feed(rng), fetch_list=case.fetch, scope=scope)
    params = sorted(v.name for v in case.main.all_parameters())
    return out + [np.asarray(scope.find_var(p).get_tensor()) for p in params]
