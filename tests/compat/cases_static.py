"""Golden cases: static-graph training as Paddle's docs write it (no parameters= for the optimizer)."""
import numpy as np

from .harness import case


def _regression_data():
    xs = (np.arange(24, dtype="float32").reshape(8, 3) % 5 - 2) / 2
    ys = xs.sum(axis=1, keepdims=True)
    return xs, ys


@case
def sgd_minimize_without_parameters_trains_the_program(paddle):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
        y = paddle.static.data(name="y", shape=[None, 1], dtype="float32")
        weight = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5))
        pred = paddle.static.nn.fc(x, 1, weight_attr=weight)
        loss = paddle.mean((pred - y) ** 2)
        sgd = paddle.optimizer.SGD(learning_rate=0.1)
        sgd.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    xs, ys = _regression_data()
    losses = []
    for _ in range(5):
        (value,) = exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])
        losses.append(float(value))
    paddle.disable_static()
    return {"losses": losses}


@case
def adam_minimize_without_parameters_trains_the_program(paddle):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
        y = paddle.static.data(name="y", shape=[None, 1], dtype="float32")
        weight = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5))
        hidden = paddle.static.nn.fc(x, 4, weight_attr=weight, activation="relu")
        pred = paddle.static.nn.fc(hidden, 1, weight_attr=weight)
        loss = paddle.nn.functional.mse_loss(pred, y)
        paddle.optimizer.Adam(learning_rate=0.05).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    xs, ys = _regression_data()
    losses = [float(exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])[0]) for _ in range(5)]
    paddle.disable_static()
    return {"losses": losses}


@case
def fit_a_line_with_square_error_cost(paddle):
    """Paddle's fit-a-line example: fc, square_error_cost, mean, SGD(learning_rate=0.001).minimize."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 13], dtype="float32")
        y = paddle.static.data(name="y", shape=[None, 1], dtype="float32")
        weight = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1))
        y_predict = paddle.static.nn.fc(x, size=1, activation=None, weight_attr=weight)
        cost = paddle.nn.functional.square_error_cost(input=y_predict, label=y)
        avg_loss = paddle.mean(cost)
        paddle.optimizer.SGD(learning_rate=0.001).minimize(avg_loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    xs = (np.arange(13 * 8).reshape(8, 13) % 7 / 7).astype("float32")
    ys = xs.sum(axis=1, keepdims=True)
    losses = [float(exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[avg_loss])[0]) for _ in range(3)]
    paddle.disable_static()
    return {"losses": losses}
