"""Quasi-Newton optimisers: paddle.incubate.optimizer.functional.minimize_bfgs / minimize_lbfgs, the
strong-Wolfe line search they share, and paddle.optimizer.LBFGS, checked on quadratics with known
minima, on Rosenbrock against scipy.optimize.minimize, and (LBFGS) step for step against
torch.optim.LBFGS, the algorithm Paddle's LBFGS is a port of."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize as so

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, Unimplemented
from minipaddle.incubate.optimizer.functional.bfgs import bfgs_update
from minipaddle.incubate.optimizer.functional.lbfgs import two_loop_recursion
from minipaddle.incubate.optimizer.functional.line_search import cubic_interpolate, strong_wolfe
from tests.optimizer.common import X, Y

F = paddle.incubate.optimizer.functional
RNG = np.random.default_rng(0)
M = RNG.normal(size=(6, 6))
A = M @ M.T + 6 * np.eye(6)         # symmetric positive definite: the minimum is A^-1 b
B = RNG.normal(size=6)


def quadratic(x):
    a, b = paddle.to_tensor(A, dtype=x.dtype), paddle.to_tensor(B, dtype=x.dtype)
    return 0.5 * paddle.dot(x, paddle.matmul(a, x)) - paddle.dot(b, x)


def rosenbrock(x):
    return ((1 - x[:-1]) ** 2).sum() + 100 * ((x[1:] - x[:-1] ** 2) ** 2).sum()


ROSEN_START = np.array([-1.2, 1.0, -0.5, 0.8])


# ---- minimize_bfgs -----------------------------------------------------------------------------
def test_bfgs_finds_the_minimum_of_a_quadratic_and_its_inverse_hessian():
    converged, calls, x, fx, g, H = F.minimize_bfgs(quadratic, paddle.zeros([6], dtype="float64"), dtype="float64")
    x_star = np.linalg.solve(A, B)
    assert bool(converged) and converged.shape == [1] and converged.dtype == paddle.bool
    assert calls.dtype == paddle.int64 and int(calls) < 20
    np.testing.assert_allclose(x.numpy(), x_star, atol=1e-10)
    np.testing.assert_allclose(float(fx), -0.5 * B @ x_star, rtol=1e-12)
    assert np.abs(g.numpy()).max() < 1e-7
    # on a quadratic, BFGS with (here exact) line searches ends with H = A^-1 (N&W, Theorem 6.4 in spirit)
    np.testing.assert_allclose(H.numpy(), np.linalg.inv(A), atol=1e-9)


def test_bfgs_matches_scipy_on_rosenbrock():
    converged, calls, x, fx, g, H = F.minimize_bfgs(rosenbrock, paddle.to_tensor(ROSEN_START), dtype="float64",
                                                    max_iters=200)
    ref = so.minimize(so.rosen, ROSEN_START, jac=so.rosen_der, method="BFGS", options={"gtol": 1e-9})
    assert bool(converged) and ref.success
    np.testing.assert_allclose(x.numpy(), ref.x, atol=1e-6)
    np.testing.assert_allclose(x.numpy(), np.ones(4), atol=1e-7)
    assert float(fx) < 1e-14
    np.testing.assert_allclose(H.numpy(), H.numpy().T, atol=1e-12)   # symmetric
    assert np.linalg.eigvalsh(H.numpy()).min() > 0                     # positive definite


def test_num_func_calls_counts_every_evaluation():
    count = []

    def counted(x):
        count.append(1)
        return rosenbrock(x)

    _, calls, *_ = F.minimize_bfgs(counted, paddle.to_tensor(ROSEN_START[:2]), dtype="float64", max_iters=100)
    assert int(calls) == len(count)
    count.clear()
    _, calls, *_ = F.minimize_lbfgs(counted, paddle.to_tensor(ROSEN_START[:2]), dtype="float64", max_iters=100)
    assert int(calls) == len(count)


def test_float32_keeps_float32_and_max_iters_stops_unconverged():
    out = F.minimize_bfgs(rosenbrock, paddle.to_tensor(ROSEN_START, dtype="float32"), max_iters=3)
    assert not bool(out[0])
    assert [t.dtype for t in out[2:]] == [paddle.float32] * 4
    assert [t.shape for t in out[2:]] == [[4], [], [4], [4, 4]]


def test_an_initial_inverse_hessian_estimate_is_used():
    # starting from the true inverse Hessian, the first step is Newton's: straight to the minimum
    converged, calls, x, *_ = F.minimize_bfgs(quadratic, paddle.zeros([6], dtype="float64"), dtype="float64",
                                              initial_inverse_hessian_estimate=paddle.to_tensor(np.linalg.inv(A)))
    assert bool(converged) and int(calls) == 2
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(A, B), atol=1e-12)


# ---- minimize_lbfgs ----------------------------------------------------------------------------
@pytest.mark.parametrize("history_size", [1, 2, 100])
def test_lbfgs_finds_the_minimum_of_a_quadratic(history_size):
    converged, calls, x, fx, g = F.minimize_lbfgs(quadratic, paddle.zeros([6], dtype="float64"), dtype="float64",
                                                  history_size=history_size, max_iters=100)
    assert bool(converged)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(A, B), atol=1e-8)


def test_lbfgs_matches_scipy_lbfgsb_on_rosenbrock():
    converged, calls, x, fx, g = F.minimize_lbfgs(rosenbrock, paddle.to_tensor(ROSEN_START), dtype="float64",
                                                  max_iters=200, history_size=5)
    ref = so.minimize(so.rosen, ROSEN_START, jac=so.rosen_der, method="L-BFGS-B",
                      options={"maxcor": 5, "gtol": 1e-10, "ftol": 1e-15})
    assert bool(converged)
    np.testing.assert_allclose(x.numpy(), ref.x, atol=1e-6)
    np.testing.assert_allclose(float(fx), ref.fun, atol=1e-12)


def test_two_loop_recursion_with_one_pair_is_one_bfgs_update():
    s, y = paddle.to_tensor([0.3, -0.2, 0.5]), paddle.to_tensor([1.0, 0.4, 0.2])
    g = paddle.to_tensor([0.7, 0.1, -1.3])
    rho = 1.0 / float(paddle.dot(s, y))
    H = bfgs_update(paddle.eye(3), s, y, paddle.eye(3))
    np.testing.assert_allclose(two_loop_recursion(g, [(s, y, rho)]).numpy(), (H @ g).numpy(), rtol=1e-5)
    np.testing.assert_allclose((H @ y).numpy(), s.numpy(), rtol=1e-5)   # the secant condition


# ---- the line search ---------------------------------------------------------------------------
def test_cubic_interpolation_finds_the_minimum_of_a_cubic():
    f, df = (lambda t: t ** 3 - 3 * t), (lambda t: 3 * t ** 2 - 3)   # local minimum at t = 1
    assert cubic_interpolate(0.0, f(0.0), df(0.0), 2.0, f(2.0), df(2.0)) == pytest.approx(1.0)
    assert cubic_interpolate(2.0, f(2.0), df(2.0), 0.0, f(0.0), df(0.0)) == pytest.approx(1.0)
    assert cubic_interpolate(0.0, 0.0, 1.0, 1.0, 0.8, 1.0) == pytest.approx(0.5)   # rising: bisect


@pytest.mark.parametrize("first_step", [1e-3, 1.0, 50.0])
def test_strong_wolfe_step_satisfies_both_conditions(first_step):
    x0 = paddle.to_tensor(ROSEN_START[:2])

    def f_and_grad(x):
        x = x.detach()
        x.stop_gradient = False
        fx = rosenbrock(x)
        (g,) = paddle.grad(fx, x)
        return float(fx), g

    f0, g0 = f_and_grad(x0)
    d = -g0 / float(g0.abs().max())
    found = strong_wolfe(lambda t: f_and_grad(x0 + t * d), first_step, f0, g0, d)
    slope0 = float(paddle.dot(g0, d))
    assert found.loss <= f0 + 1e-4 * found.step * slope0                         # sufficient decrease
    assert abs(float(paddle.dot(found.grad, d))) <= 0.9 * abs(slope0)            # curvature
    assert found.loss == pytest.approx(f_and_grad(x0 + found.step * d)[0])


# ---- argument errors ---------------------------------------------------------------------------
def test_bad_arguments_raise_clear_errors():
    x0 = paddle.zeros([6])
    with pytest.raises(InvalidArgument, match="dtype must be 'float32' or 'float64', got 'int32'"):
        F.minimize_bfgs(quadratic, x0, dtype="int32")
    with pytest.raises(InvalidArgument, match="initial_position must be a Tensor, got list"):
        F.minimize_lbfgs(quadratic, [0.0] * 6)
    with pytest.raises(InvalidArgument, match="initial_position has dtype paddle.float64, but dtype='float32'"):
        F.minimize_bfgs(quadratic, paddle.zeros([6], dtype="float64"))
    with pytest.raises(InvalidArgument, match="must be 1-D"):
        F.minimize_bfgs(quadratic, paddle.zeros([2, 3]))
    with pytest.raises(Unimplemented, match="only 'strong_wolfe'"):
        F.minimize_bfgs(quadratic, x0, line_search_fn="hager_zhang")
    with pytest.raises(InvalidArgument, match="not symmetric"):
        F.minimize_bfgs(quadratic, x0, initial_inverse_hessian_estimate=paddle.to_tensor(np.triu(np.ones((6, 6))),
                                                                                         dtype="float32"))
    with pytest.raises(InvalidArgument, match="not positive definite"):
        F.minimize_lbfgs(quadratic, x0, initial_inverse_hessian_estimate=-paddle.eye(6))
    with pytest.raises(InvalidArgument, match="objective_func must return a Tensor with one value"):
        F.minimize_bfgs(lambda x: x * 2, x0)


# ---- paddle.optimizer.LBFGS --------------------------------------------------------------------
def _regression(line_search_fn, dtype="float64", steps=3, squash=False, **kwargs):
    """A Linear(3, 2) least-squares fit (squash: of tanh(Linear), not a quadratic any more);
    returns (losses per step, layer, optimizer)."""
    paddle.seed(0)
    net = paddle.nn.Linear(3, 2)
    net.to(dtype=dtype)
    net.weight.set_value(np.full((3, 2), 0.1, dtype))
    net.bias.set_value(np.zeros(2, dtype))
    opt = paddle.optimizer.LBFGS(line_search_fn=line_search_fn, parameters=net.parameters(), **kwargs)
    x, y = paddle.to_tensor(X, dtype=dtype), paddle.to_tensor(Y, dtype=dtype)

    def closure():
        opt.clear_grad()
        out = net(x)
        loss = paddle.nn.functional.mse_loss(paddle.tanh(out) if squash else out, y)
        loss.backward()
        return loss

    return [float(opt.step(closure)) for _ in range(steps)], net, opt


def _least_squares():
    design = np.hstack([X, np.ones((len(X), 1))])
    return np.linalg.lstsq(design, Y, rcond=None)[0]     # [W; b]


# with the default tolerance_change (1e-9 on the loss) it stops about 1e-5 from the solution
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_optimizer_fits_a_linear_regression(line_search_fn):
    losses, net, opt = _regression(line_search_fn, max_iter=20, tolerance_change=1e-14)
    solution = _least_squares()
    np.testing.assert_allclose(net.weight.numpy(), solution[:3], atol=1e-6)
    np.testing.assert_allclose(net.bias.numpy(), solution[3], atol=1e-6)
    assert losses[0] > losses[-1]
    state = opt.state_dict()["state"]
    assert state["func_evals"] >= state["n_iter"] >= 1
    assert len(state["history"]) <= 100


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_optimizer_follows_torch_step_for_step(line_search_fn):
    torch = pytest.importorskip("torch")
    losses, net, opt = _regression(line_search_fn, steps=4, squash=True, max_iter=3, history_size=2)
    w = torch.tensor(np.full((3, 2), 0.1), requires_grad=True)
    b = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    t_opt = torch.optim.LBFGS([w, b], max_iter=3, history_size=2, line_search_fn=line_search_fn)
    xt, yt = torch.tensor(X), torch.tensor(Y)

    def closure():
        t_opt.zero_grad()
        loss = torch.nn.functional.mse_loss(torch.tanh(xt @ w + b), yt)
        loss.backward()
        return loss

    t_losses = [t_opt.step(closure).item() for _ in range(4)]
    np.testing.assert_allclose(losses, t_losses, rtol=1e-10)
    np.testing.assert_allclose(net.weight.numpy(), w.detach().numpy(), rtol=1e-9, atol=1e-12)
    assert opt.state["func_evals"] == t_opt.state[w]["func_evals"]
    assert opt.state["n_iter"] == t_opt.state[w]["n_iter"]


def test_lbfgs_optimizer_keeps_at_most_history_size_pairs():
    _, _, opt = _regression("strong_wolfe", steps=2, max_iter=10, history_size=2, tolerance_grad=0.0,
                            tolerance_change=0.0)
    assert len(opt.state["history"]) == 2


def test_lbfgs_optimizer_errors():
    net = paddle.nn.Linear(2, 1)
    with pytest.raises(InvalidArgument, match="line_search_fn must be None or 'strong_wolfe'"):
        paddle.optimizer.LBFGS(line_search_fn="armijo", parameters=net.parameters())
    opt = paddle.optimizer.LBFGS(parameters=net.parameters())
    with pytest.raises(InvalidArgument, match="closure must be a callable"):
        opt.step(None)
    with pytest.raises(NotImplementedError, match="opt.step\\(closure\\)"):
        opt.minimize(net(paddle.ones([1, 2])).sum())


def test_lbfgs_optimizer_line_search_follows_torch_on_rosenbrock():
    """Rosenbrock's curved valley makes the line search extrapolate and zoom, not just accept t = 1."""
    torch = pytest.importorskip("torch")
    from minipaddle.framework.parameter import create_parameter
    p = create_parameter([2], "float64")
    p.set_value(ROSEN_START[:2])
    opt = paddle.optimizer.LBFGS(max_iter=15, line_search_fn="strong_wolfe", parameters=[p])
    q = torch.tensor(ROSEN_START[:2], requires_grad=True)
    t_opt = torch.optim.LBFGS([q], max_iter=15, line_search_fn="strong_wolfe")

    def closure():
        opt.clear_grad()
        loss = rosenbrock(p)
        loss.backward()
        return loss

    def t_closure():
        t_opt.zero_grad()
        loss = ((1 - q[:-1]) ** 2).sum() + 100 * ((q[1:] - q[:-1] ** 2) ** 2).sum()
        loss.backward()
        return loss

    for _ in range(3):
        np.testing.assert_allclose(float(opt.step(closure)), t_opt.step(t_closure).item(), rtol=1e-9)
    np.testing.assert_allclose(p.numpy(), q.detach().numpy(), rtol=1e-9)
    evals = opt.state["func_evals"]
    assert evals == t_opt.state[q]["func_evals"] and evals > opt.state["n_iter"]   # the search did work
    np.testing.assert_allclose(p.numpy(), [1.0, 1.0], atol=1e-4)   # stopped by the loss-change tolerance
