"""Golden cases: static-graph training as Paddle's docs write it (no parameters= for the optimizer)."""
import numpy as np

from .harness import case, outcome


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


@case
def case_and_switch_case_pick_branches_as_documented(paddle):
    """static.nn.case (first true pred; no default: the last pair) and switch_case (matching index; no
    default: the largest index), run by the Executor, then eagerly; the argument errors (in a Program:
    eagerly Paddle skips these checks)."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[2], dtype="float32")
        i = paddle.static.data(name="i", shape=[1], dtype="int32")
        s = paddle.sum(x)
        by_case = paddle.static.nn.case([(s < -1.0, lambda: x * 2.0), (s < 1.0, lambda: x * 3.0)],
                                        default=lambda: x - 1.0)
        last_pair = paddle.static.nn.case([(s > 100.0, lambda: x * 0.0), (s > 200.0, lambda: x + 5.0)])
        by_index = paddle.static.nn.switch_case(i, {1: lambda: x * 10.0, 4: lambda: x * 40.0},
                                                default=lambda: x * -1.0)
        largest = paddle.static.nn.switch_case(i, [lambda: x + 0.5, lambda: x + 1.5, lambda: x + 2.5])
        errors = {"case_pred_not_bool": outcome(lambda: paddle.static.nn.case([(x, lambda: x)])),
                  "case_not_a_list": outcome(lambda: paddle.static.nn.case(lambda: x)),
                  "switch_float_index": outcome(lambda: paddle.static.nn.switch_case(x, [lambda: x])),
                  "switch_repeated_index": outcome(lambda: paddle.static.nn.switch_case(i, [(1, lambda: x),
                                                                                           (1, lambda: x)])),
                  "switch_str_index": outcome(lambda: paddle.static.nn.switch_case(i, {"a": lambda: x}))}
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    runs = []
    for xs, idx in (([-2.0, -1.0], 1), ([0.0, 0.5], 4), ([2.0, 3.0], 2), ([1.0, 1.0], 7)):
        feed = {"x": np.array(xs, "float32"), "i": np.array([idx], "int32")}
        runs.append(exe.run(main, feed=feed, fetch_list=[by_case, last_pair, by_index, largest]))
    paddle.disable_static()
    t = paddle.to_tensor([0.25, 0.25])
    eager = [paddle.static.nn.case([(paddle.sum(t) > 1.0, lambda: t * 0.0)], default=lambda: t * 4.0),
             paddle.static.nn.switch_case(paddle.to_tensor([2]), [(1, lambda: t), (2, lambda: t * 8.0)])]
    return {"runs": runs, "eager": eager, "errors": errors}
