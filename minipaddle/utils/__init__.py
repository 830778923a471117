"""paddle.utils: run_check(), the "is my install working?" call from Paddle's install guide."""
from __future__ import annotations

from . import unique_name  # noqa: F401,E402 - paddle.utils.unique_name.guard / generate

__all__ = ["run_check", "unique_name"]


def run_check() -> None:
    """Train a tiny linear model for a few steps, eagerly and as a static Program, and say whether it learned.

    Prints "minipaddle works well on 1 CPU." (Paddle prints the same about PaddlePaddle), or raises
    the error that stopped it.
    """
    import numpy as np

    import minipaddle as paddle

    print("Running verify minipaddle program ... ")
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((16, 4)).astype("float32")
    ys = xs @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    was_static = not paddle.in_dynamic_mode()
    paddle.disable_static()
    try:
        model = paddle.nn.Linear(4, 1)
        opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
        x, y = paddle.to_tensor(xs), paddle.to_tensor(ys)
        losses = []
        for _ in range(20):
            loss = paddle.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        if not losses[-1] < losses[0]:
            raise RuntimeError(f"run_check: the loss did not fall ({losses[0]:.4f} -> {losses[-1]:.4f}).")
        paddle.enable_static()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            sx = paddle.static.data("x", [None, 4], "float32")
            sy = paddle.static.data("y", [None, 1], "float32")
            static_loss = paddle.nn.functional.mse_loss(paddle.static.nn.fc(sx, 1), sy)
            paddle.optimizer.SGD(learning_rate=0.1).minimize(static_loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        first = last = None
        for _ in range(20):
            (value,) = exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[static_loss])
            first = float(value) if first is None else first
            last = float(value)
        if not last < first:
            raise RuntimeError(f"run_check: the static program's loss did not fall ({first:.4f} -> {last:.4f}).")
    finally:
        paddle.enable_static() if was_static else paddle.disable_static()
    print("minipaddle works well on 1 CPU.")
    print("minipaddle is installed successfully! Let's start deep learning with minipaddle now.")
