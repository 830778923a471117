"""Golden cases: functional (issue: scientific computing).

paddle.autograd.jacobian / hessian (values, shapes, lazily indexed parts, batch axis, nested tuples),
paddle.incubate.autograd vjp / jvp / Jacobian / Hessian, the quasi-Newton minimisers of
paddle.incubate.optimizer.functional on quadratics, paddle.optimizer.LBFGS on a small regression,
and the error kinds of each."""
from __future__ import annotations

import numpy as np

from .harness import case, outcome


def _x(paddle, values, dtype="float32"):
    return paddle.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=False)


# ---- paddle.autograd.jacobian / hessian ---------------------------------------------------------
@case
def jacobian_of_a_vector_function_and_its_parts(paddle):
    x = _x(paddle, [1.0, 2.0, 3.0])
    y = x * x * x + paddle.sin(x) * x[0]
    J = paddle.autograd.jacobian(y, x)
    return {"shape": list(J.shape), "all": J[:], "row 0": J[0], "row -1": J[-1], "columns 1:3": J[:, 1:3],
            "entry": J[1, 2], "every other row": J[::2]}


@case
def jacobian_with_zero_d_sides(paddle):
    x, s = _x(paddle, [1.0, 2.0, 3.0]), _x(paddle, 2.0)
    J_y0 = paddle.autograd.jacobian((x * x).sum(), x)
    J_x0 = paddle.autograd.jacobian(x * s, s)
    J_both = paddle.autograd.jacobian(s ** 3, s)
    return {"ys 0-D": [list(J_y0.shape), J_y0[:], J_y0[1]], "xs 0-D": [list(J_x0.shape), J_x0[:], J_x0[2]],
            "both 0-D shape": list(J_both.shape), "both 0-D indexed": outcome(lambda: J_both[:])}


@case
def jacobian_with_a_batch_axis(paddle):
    xb = _x(paddle, np.arange(6.0).reshape(2, 3))
    y = paddle.concat([xb * xb, xb.sum(1, keepdim=True)], 1)
    J = paddle.autograd.jacobian(y, xb, batch_axis=0)
    x1 = _x(paddle, [1.0, 2.0, 3.0])
    J1 = paddle.autograd.jacobian(x1 * x1, x1, batch_axis=0)
    return {"shape": list(J.shape), "all": J[:], "row 3 of each sample": J[:, 3], "sample 1": J[1],
            "one entry per sample": J[:, 0, 1], "1-D ys and xs": [list(J1.shape), J1[:], J1[1]]}


@case
def jacobian_of_tuples_is_nested(paddle):
    x1, x2 = _x(paddle, [1.0, 2.0, 3.0]), _x(paddle, [4.0, 5.0])
    y1, y2 = x1 * x1, x2 * x1[0]
    J = paddle.autograd.jacobian((y1, y2), (x1, x2))
    J_ys = paddle.autograd.jacobian((y1, y2), x1)
    J_xs = paddle.autograd.jacobian(y1, (x1, x2))
    return {"nested shapes": [[list(j.shape) for j in row] for row in J],
            "values": [[j[:] for j in row] for row in J],
            "tuple of ys": [list(j.shape) for j in J_ys], "tuple of xs": [list(j.shape) for j in J_xs]}


@case
def jacobian_arithmetic_uses_the_whole_matrix(paddle):
    x = _x(paddle, [1.0, 2.0])
    J = paddle.autograd.jacobian(x * x, x)
    return {"J + 1": J + 1, "J * 2": J * 2, "J @ v": J @ paddle.to_tensor([1.0, -1.0])}


@case
def hessian_values_and_blocks(paddle):
    x = _x(paddle, [0.5, -1.0, 2.0])
    y = (x ** 3).sum() + x[0] * x[1] + paddle.sin(x[1] * x[2])
    H = paddle.autograd.hessian(y, x)
    x1, x2 = _x(paddle, [1.0, 2.0, 3.0]), _x(paddle, [0.5, -1.0])
    blocks = paddle.autograd.hessian((x1 * x1).sum() * x2.sum() + (x2 ** 3).sum(), (x1, x2))
    return {"shape": list(H.shape), "H": H[:], "row 1": H[1], "column 2": H[:, 2],
            "block shapes": [[list(h.shape) for h in row] for row in blocks],
            "blocks": [[h[:] for h in row] for row in blocks]}


@case
def hessian_with_a_batch_axis(paddle):
    xb = _x(paddle, np.arange(6.0).reshape(3, 2))
    H = paddle.autograd.hessian((xb ** 3).sum(1), xb, batch_axis=0)
    x1 = _x(paddle, [1.0, 2.0, 3.0])
    H1 = paddle.autograd.hessian(x1 ** 3, x1, batch_axis=0)
    return {"shape": list(H.shape), "H": H[:], "1-D": [list(H1.shape), H1[:]]}


@case
def jacobian_and_hessian_error_kinds(paddle):
    x = _x(paddle, [1.0, 2.0, 3.0])
    x2d = _x(paddle, np.ones((2, 2)))
    J = paddle.autograd.jacobian(x * x, x)
    return {"batch_axis=1": outcome(lambda: paddle.autograd.jacobian(x * 2, x, batch_axis=1)),
            "2-D xs without batch": outcome(lambda: paddle.autograd.jacobian(x2d.sum(), x2d)),
            "2-D ys without batch": outcome(lambda: paddle.autograd.jacobian(x2d, x)),
            "hessian of a vector": outcome(lambda: paddle.autograd.hessian(x * x, x)),
            "hessian batch_axis str": outcome(lambda: paddle.autograd.hessian((x * x).sum(), x, batch_axis="0")),
            "hessian batched, 2 values per sample": outcome(
                lambda: paddle.autograd.hessian(x2d * x2d, x2d, batch_axis=0)),
            "index out of range": outcome(lambda: J[5]),
            "column out of range": outcome(lambda: J[:, 5]),
            "Ellipsis": outcome(lambda: J[..., 0]),
            "a tensor index": outcome(lambda: J[paddle.to_tensor(0)])}


# ---- paddle.incubate.autograd -------------------------------------------------------------------
def _matmul_self(paddle):
    return lambda x: paddle.matmul(x, x)


@case
def vjp_and_jvp_of_the_docs_example(paddle):
    func = _matmul_self(paddle)
    x = paddle.ones(shape=[2, 2], dtype="float32")
    v = paddle.to_tensor([[1.0, 0.0], [0.0, 0.0]])
    return {"vjp": paddle.incubate.autograd.vjp(func, x), "vjp v": paddle.incubate.autograd.vjp(func, x, v)[1],
            "jvp": paddle.incubate.autograd.jvp(func, x), "jvp v": paddle.incubate.autograd.jvp(func, x, v)[1],
            "x keeps stop_gradient": x.stop_gradient}


@case
def vjp_and_jvp_with_several_inputs_and_outputs(paddle):
    a, b = paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([3.0, 4.0])

    def func(x, y):
        return x * y, paddle.sin(x) + y * y

    v_out = [paddle.to_tensor([1.0, 0.5]), paddle.to_tensor([-1.0, 2.0])]
    return {"vjp": paddle.incubate.autograd.vjp(func, [a, b]),
            "vjp v": paddle.incubate.autograd.vjp(func, [a, b], v_out)[1],
            "jvp": paddle.incubate.autograd.jvp(func, [a, b])[1],
            "jvp v": paddle.incubate.autograd.jvp(func, [a, b], v_out)[1],
            "scalar output": paddle.incubate.autograd.vjp(lambda x: (x * x).sum(), a),
            "constant output": paddle.incubate.autograd.jvp(lambda x: paddle.ones([3]), a)[1]}


@case
def incubate_jacobian_and_hessian(paddle):
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    J = paddle.incubate.autograd.Jacobian(lambda p, q: paddle.matmul(p, q), [x, x])
    H = paddle.incubate.autograd.Hessian(lambda p: paddle.sum(p * p * p), x)
    Jb = paddle.incubate.autograd.Jacobian(lambda p: p * p, x, is_batched=True)
    Hb = paddle.incubate.autograd.Hessian(lambda p: (p * p * p).sum(1, keepdim=True), x, is_batched=True)
    return {"J shape": list(J.shape), "J": J[:], "J[0, :]": J[0, :], "J[:, 0]": J[:, 0],
            "H shape": list(H.shape), "H": H[:], "batched J": [list(Jb.shape), Jb[:]],
            "batched H": [list(Hb.shape), Hb[:], Hb[1]]}


@case
def incubate_autograd_error_kinds(paddle):
    ia = paddle.incubate.autograd
    func = _matmul_self(paddle)
    x = paddle.ones([2, 2])
    a = paddle.to_tensor([1.0, 2.0])
    return {"func not callable": outcome(lambda: ia.vjp(1, x)),
            "xs a float": outcome(lambda: ia.jvp(func, 1.0)),
            "xs holds an int": outcome(lambda: ia.vjp(func, [x, 1])),
            "v an int": outcome(lambda: ia.vjp(func, x, 3)),
            "vjp v of the wrong shape": outcome(lambda: ia.vjp(func, x, paddle.ones([3]))),
            "jvp v of the wrong shape": outcome(lambda: ia.jvp(func, x, paddle.ones([3]))),
            "v of the wrong length": outcome(lambda: ia.vjp(lambda p, q: (p * q, p + q), [a, a], [a])),
            "Hessian of a vector function": outcome(lambda: ia.Hessian(lambda p: p * p, a)[:])}


# ---- paddle.incubate.optimizer.functional -------------------------------------------------------
def _quadratic(paddle):
    A = np.array([[3.0, 1.0], [1.0, 2.0]])
    b = np.array([1.0, -1.0])

    def f(x):
        return 0.5 * paddle.dot(x, paddle.matmul(paddle.to_tensor(A, dtype=x.dtype), x)) - paddle.dot(
            paddle.to_tensor(b, dtype=x.dtype), x)
    return f


def _rounded(result, n: int):
    """The convergence flag and position (rounded), and the value, of a minimiser's result."""
    return {"is_converge": result[0], "position": np.round(result[2].numpy().astype(np.float64), n),
            "value": result[3], "dtypes": [str(t.dtype) for t in result[2:]], "shapes": [list(t.shape) for t in result]}


@case
def minimize_bfgs_and_lbfgs_on_a_quadratic(paddle):
    F = paddle.incubate.optimizer.functional
    f = _quadratic(paddle)   # minimum at [0.6, -0.8], value -0.7
    return {"bfgs float64": _rounded(F.minimize_bfgs(f, paddle.to_tensor([0.0, 0.0], dtype="float64"),
                                                     dtype="float64"), 5),
            "lbfgs float64": _rounded(F.minimize_lbfgs(f, paddle.to_tensor([0.0, 0.0], dtype="float64"),
                                                       dtype="float64"), 5),
            "lbfgs float32": _rounded(F.minimize_lbfgs(f, paddle.to_tensor([0.0, 0.0]), tolerance_grad=1e-4), 4)}


@case
def minimize_bfgs_on_a_separable_quadratic_in_full(paddle):
    F = paddle.incubate.optimizer.functional

    def f(x):
        return ((x - paddle.to_tensor([1.0, 2.0, 3.0], dtype=x.dtype)) ** 2).sum()

    converged, calls, x, value, grad, H = F.minimize_bfgs(f, paddle.to_tensor([0.0, 0.0, 0.0]))
    return {"is_converge": converged, "num_func_calls": calls, "position": x, "value": value, "gradient": grad,
            "inverse_hessian_estimate": H}


@case(differs="Paddle 3.3.1's BFGS update is (I - rho y s^T) H (I - rho s y^T), the factors swapped, so H y != s "
              "and it stalls near (1.07, 1.14) on Rosenbrock; minipaddle follows Nocedal & Wright eq. 6.17 and "
              "converges to (1, 1)")
def minimize_bfgs_on_rosenbrock(paddle):
    def rosenbrock(x):
        return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2

    result = paddle.incubate.optimizer.functional.minimize_bfgs(
        rosenbrock, paddle.to_tensor([-1.2, 1.0], dtype="float64"), dtype="float64", max_iters=100)
    return {"is_converge": result[0], "position": np.round(result[2].numpy(), 3)}


@case
def minimize_error_kinds(paddle):
    F = paddle.incubate.optimizer.functional
    f = _quadratic(paddle)
    x0 = paddle.to_tensor([0.0, 0.0])
    return {"dtype int32": outcome(lambda: F.minimize_bfgs(f, x0, dtype="int32")),
            "position a list": outcome(lambda: F.minimize_bfgs(f, [0.0, 0.0])),
            "line search hz": outcome(lambda: F.minimize_bfgs(f, x0, line_search_fn="hz")),
            "H0 not symmetric": outcome(lambda: F.minimize_bfgs(
                f, x0, initial_inverse_hessian_estimate=paddle.to_tensor([[1.0, 2.0], [0.0, 1.0]]))),
            "H0 not positive definite": outcome(lambda: F.minimize_lbfgs(
                f, x0, initial_inverse_hessian_estimate=paddle.to_tensor([[-1.0, 0.0], [0.0, 1.0]]))),
            "float64 position, float32 dtype": outcome(lambda: F.minimize_bfgs(
                f, paddle.to_tensor([0.0, 0.0], dtype="float64")))}


# ---- paddle.optimizer.LBFGS ---------------------------------------------------------------------
def _lbfgs_regression(paddle, line_search_fn):
    rng = np.random.default_rng(0)
    X = rng.random((8, 3)).astype("float32")
    Y = X @ np.array([[1.0], [-2.0], [0.5]], dtype="float32") + 0.3
    net = paddle.nn.Linear(3, 1)
    net.weight.set_value(np.full([3, 1], 0.1, "float32"))
    net.bias.set_value(np.zeros([1], "float32"))
    opt = paddle.optimizer.LBFGS(learning_rate=1, max_iter=5, line_search_fn=line_search_fn,
                                 parameters=net.parameters())
    x, y = paddle.to_tensor(X), paddle.to_tensor(Y)

    def closure():
        opt.clear_grad()
        loss = paddle.nn.functional.mse_loss(paddle.tanh(net(x)), paddle.tanh(y))
        loss.backward()
        return loss

    losses = [float(opt.step(closure)) for _ in range(3)]
    state = opt.state_dict()["state"]
    return {"losses": losses, "func_evals": state["func_evals"], "n_iter": state["n_iter"],
            "weight": net.weight, "bias": net.bias}


@case
def lbfgs_optimizer_on_a_small_regression(paddle):
    return {"no line search": _lbfgs_regression(paddle, None),
            "strong wolfe": _lbfgs_regression(paddle, "strong_wolfe")}


@case
def lbfgs_optimizer_minimize_is_not_supported(paddle):
    net = paddle.nn.Linear(2, 1)
    opt = paddle.optimizer.LBFGS(parameters=net.parameters())
    return outcome(lambda: opt.minimize(net(paddle.ones([1, 2])).sum()))
