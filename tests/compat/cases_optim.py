"""Golden cases: optimizers Adamax and Adadelta and the CyclicLR schedule -- parameter values after each
step of a fixed tiny least-squares problem, the rates a schedule gives, and argument errors."""
from .harness import case, outcome

X = [[1.0, 2.0, -1.0], [0.5, -1.5, 2.0], [3.0, 0.0, 1.0], [-2.0, 1.0, 0.5]]
Y = [[1.0, 0.0], [0.0, 1.0], [2.0, -1.0], [-1.0, 0.5]]
W0 = [[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]


def _train(paddle, make_optimizer, steps=4):
    """Parameter values after each step of minimising ||X w + b - Y||^2 / n from a fixed start."""
    w = paddle.create_parameter([3, 2], "float32", default_initializer=paddle.nn.initializer.Assign(W0))
    b = paddle.create_parameter([2], "float32", default_initializer=paddle.nn.initializer.Constant(0.1))
    opt = make_optimizer([w, b])
    x, y = paddle.to_tensor(X), paddle.to_tensor(Y)
    history = []
    for _ in range(steps):
        loss = ((paddle.matmul(x, w) + b - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        history.append({"loss": float(loss), "w": w.numpy().copy(), "b": b.numpy().copy()})
    return history


@case
def adamax_steps(paddle):
    opt = paddle.optimizer
    return {"defaults lr=0.1": _train(paddle, lambda p: opt.Adamax(learning_rate=0.1, parameters=p)),
            "betas and epsilon": _train(paddle, lambda p: opt.Adamax(learning_rate=0.05, beta1=0.5, beta2=0.8,
                                                                   epsilon=0.1, parameters=p)),
            "weight_decay": _train(paddle, lambda p: opt.Adamax(learning_rate=0.1, weight_decay=0.5, parameters=p))}


@case
def adadelta_steps(paddle):
    opt = paddle.optimizer
    return {"lr=1.0": _train(paddle, lambda p: opt.Adadelta(learning_rate=1.0, parameters=p)),
            "default lr": _train(paddle, lambda p: opt.Adadelta(parameters=p), steps=2),
            "rho and epsilon": _train(paddle, lambda p: opt.Adadelta(learning_rate=0.5, rho=0.5, epsilon=0.01,
                                                                   parameters=p)),
            "weight_decay": _train(paddle, lambda p: opt.Adadelta(learning_rate=1.0, weight_decay=0.5, parameters=p))}


@case
def adamax_and_adadelta_with_a_scheduler(paddle):
    opt = paddle.optimizer
    return {"adamax": _train(paddle, lambda p: opt.Adamax(
                learning_rate=opt.lr.CyclicLR(0.01, 0.1, step_size_up=2), parameters=p)),
            "adadelta": _train(paddle, lambda p: opt.Adadelta(
                learning_rate=opt.lr.StepDecay(1.0, step_size=1, gamma=0.5), parameters=p))}


def _rates(sched, steps=12):
    rates = []
    for _ in range(steps):
        rates.append(sched())
        sched.step()
    return rates


@case
def cyclic_lr_rates(paddle):
    lr = paddle.optimizer.lr
    return {"triangular": _rates(lr.CyclicLR(0.1, 0.5, step_size_up=2)),
            "up 3 down 1": _rates(lr.CyclicLR(0.1, 0.5, step_size_up=3, step_size_down=1)),
            "triangular2": _rates(lr.CyclicLR(0.1, 0.9, step_size_up=2, mode="triangular2")),
            "exp_range": _rates(lr.CyclicLR(0.1, 0.9, step_size_up=2, mode="exp_range", exp_gamma=0.9)),
            "scale_fn per cycle": _rates(lr.CyclicLR(0.1, 0.9, step_size_up=2, scale_fn=lambda x: 1.0 / x)),
            "scale_fn per iteration": _rates(lr.CyclicLR(0.1, 0.9, step_size_up=2, scale_fn=lambda x: 0.5 ** x,
                                                         scale_mode="iterations")),
            "last_epoch=3": _rates(lr.CyclicLR(0.1, 0.5, step_size_up=2, last_epoch=3), steps=3)}


@case
def cyclic_lr_state_and_sgd(paddle):
    lr = paddle.optimizer.lr
    sched = lr.CyclicLR(0.1, 0.5, step_size_up=2)
    sched.step()
    sched.step()
    history = _train(paddle, lambda p: paddle.optimizer.SGD(learning_rate=lr.CyclicLR(0.01, 0.1, step_size_up=2),
                                                            parameters=p))
    return {"state_dict": sched.state_dict(), "sgd": history}


@case
def optimizer_argument_errors(paddle):
    opt = paddle.optimizer
    w = paddle.create_parameter([2], "float32")
    return {"adamax beta1 1.5": outcome(lambda: opt.Adamax(beta1=1.5, parameters=[w])),
            "adamax beta2 -0.1": outcome(lambda: opt.Adamax(beta2=-0.1, parameters=[w])),
            "cyclic step_size_up 0": outcome(lambda: opt.lr.CyclicLR(0.1, 0.5, step_size_up=0)),
            "cyclic step_size_up 2.5": outcome(lambda: opt.lr.CyclicLR(0.1, 0.5, step_size_up=2.5)),
            "cyclic step_size_down -1": outcome(lambda: opt.lr.CyclicLR(0.1, 0.5, step_size_up=2, step_size_down=-1)),
            "cyclic max -1": outcome(lambda: opt.lr.CyclicLR(0.1, -1.0, step_size_up=2)),
            "cyclic max '1'": outcome(lambda: opt.lr.CyclicLR(0.1, "1", step_size_up=2)),
            "cyclic bad mode": outcome(lambda: opt.lr.CyclicLR(0.1, 0.5, step_size_up=2, mode="sine")),
            "cyclic bad scale_mode": outcome(lambda: opt.lr.CyclicLR(0.1, 0.5, step_size_up=2, scale_fn=abs,
                                                                   scale_mode="epochs")),
            "cyclic int exp_gamma": outcome(lambda: opt.lr.CyclicLR(0.1, 0.5, step_size_up=2, exp_gamma=1))}
