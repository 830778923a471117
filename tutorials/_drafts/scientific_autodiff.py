"""Draft for the scientific-computing tutorial: derivatives as objects (Jacobian, Hessian, jvp, vjp), a
quasi-Newton optimizer on the Rosenbrock valley, and a network that solves a differential equation
because its loss contains second derivatives.

Run: .venv/bin/python tutorials/_drafts/scientific_autodiff.py   (a few seconds; writes
rosenbrock_paths.svg to the current folder)
"""
import math

import numpy as np

import minipaddle as paddle
from minipaddle.notebook.charts import xy_chart

# %% [markdown]
# ## 1. A Jacobian is computed one row at a time
# Reverse mode (backward) gives the gradient of one number. The Jacobian of y = f(x), with y in R^M,
# has M rows, row i the gradient of y[i]: so M backward passes. `paddle.autograd.jacobian` returns an
# object that runs them only for the rows you index, and keeps each row once computed.

# %%
x = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
y = paddle.stack([x[0] * x[1], paddle.sin(x[1]) + x[2] ** 2, x.sum()])
J = paddle.autograd.jacobian(y, x)
print("shape, known without computing:", J.shape, "|", J)
print("row 1 (one backward pass):", J[1].numpy())
print(J)
print("the whole matrix:\n", J[:].numpy())
print(J)

# %% [markdown]
# A Hessian is the Jacobian of the gradient. The gradient is computed with create_graph=True, so it is
# itself differentiable, and each Hessian row is one more backward pass through it.

# %%
f = (x ** 3).sum() + x[0] * x[1]
H = paddle.autograd.hessian(f, x)
print("Hessian of sum(x^3) + x0 x1:\n", H[:].numpy())        # diag(6x) plus the x0 x1 cross term

# %% [markdown]
# ## 2. jvp and vjp: the product without the matrix
# Often you want J times a vector, not J. `vjp` gives v^T J in one backward pass. `jvp` gives J v with
# reverse mode only, by the double-vjp trick: g(u) = u^T J is linear in u, so differentiating g along v
# with respect to u gives J v (two backward passes).

# %%
def f_vec(x):
    return paddle.stack([x[0] * x[1], paddle.sin(x[1]) + x[2] ** 2])


point = paddle.to_tensor([0.5, 1.0, 2.0])
v_in = paddle.to_tensor([1.0, 0.0, 0.0])
v_out = paddle.to_tensor([0.0, 1.0])
_, jv = paddle.incubate.autograd.jvp(f_vec, point, v_in)
_, vj = paddle.incubate.autograd.vjp(f_vec, point, v_out)
J_full = paddle.incubate.autograd.Jacobian(f_vec, point)[:]
print("J v  :", jv.numpy(), " = first column of J:", J_full[:, 0].numpy())
print("v^T J:", vj.numpy(), " = second row of J:  ", J_full[1].numpy())

# %% [markdown]
# ## 3. L-BFGS in the Rosenbrock valley
# f(a, b) = (1 - a)^2 + 100 (b - a^2)^2 has its minimum at (1, 1), at the end of a long curved valley.
# Gradient descent zig-zags across the valley; L-BFGS builds a picture of the curvature from its last
# steps and walks along it. `paddle.optimizer.LBFGS` needs a closure: each step evaluates the loss
# several times (the strong-Wolfe line search tries step lengths).

# %%
def rosenbrock(p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


def lbfgs_path(start, iterations):
    p = paddle.create_parameter([2], "float64")
    p.set_value(np.array(start))
    opt = paddle.optimizer.LBFGS(max_iter=1, line_search_fn="strong_wolfe", parameters=[p])

    def closure():
        opt.clear_grad()
        loss = rosenbrock(p)
        loss.backward()
        return loss

    path = [p.numpy().copy()]
    for _ in range(iterations):       # max_iter=1: one L-BFGS iteration per step, to record each one
        opt.step(closure)
        path.append(p.numpy().copy())
    return np.array(path), opt.state["func_evals"]


def gradient_descent_path(start, iterations, lr=1e-3):
    p = paddle.create_parameter([2], "float64")
    p.set_value(np.array(start))
    opt = paddle.optimizer.SGD(learning_rate=lr, parameters=[p])
    path = [p.numpy().copy()]
    for _ in range(iterations):
        rosenbrock(p).backward()
        opt.step()
        opt.clear_grad()
        path.append(p.numpy().copy())
    return np.array(path)


start = [-1.2, 1.0]
lbfgs, evals = lbfgs_path(start, 40)
sgd = gradient_descent_path(start, 2000)
print(f"L-BFGS: 40 steps of one iteration, {evals} loss evaluations, ends at {np.round(lbfgs[-1], 6)}")
print(f"gradient descent: 2000 steps, ends at {np.round(sgd[-1], 3)}")

# The same minimisation as a function, the way scipy.optimize.minimize is called:
converged, calls, position, value, _ = paddle.incubate.optimizer.functional.minimize_lbfgs(
    rosenbrock, paddle.to_tensor(start, dtype="float64"), dtype="float64", max_iters=100)
print(f"minimize_lbfgs: converged={bool(converged)} after {int(calls)} calls, at {np.round(position.numpy(), 6)}")

valley = np.linspace(-1.3, 1.2, 100)
svg = xy_chart({"valley floor b = a^2": (valley, valley ** 2)}, title="Rosenbrock: paths to (1, 1)",
               xlabel="a", ylabel="b", paths={"L-BFGS": (lbfgs[:, 0], lbfgs[:, 1]),
                                              "gradient descent": (sgd[::50, 0], sgd[::50, 1])})
with open("rosenbrock_paths.svg", "w", encoding="utf-8") as out:
    out.write(svg)
print("saved rosenbrock_paths.svg")

# %% [markdown]
# ## 4. A physics-informed network: second derivatives in the loss
# Solve u''(x) = -pi^2 sin(pi x) on [0, 1] with u(0) = u(1) = 0 (the answer is sin(pi x)) by training
# a small network u(x) so that the equation holds at 32 points. The loss needs u'' there: paddle.grad
# twice with create_graph=True, then backward through both to the weights (a third-order graph).

# %%
paddle.seed(0)
net = paddle.nn.Sequential(paddle.nn.Linear(1, 16), paddle.nn.Tanh(), paddle.nn.Linear(16, 16),
                           paddle.nn.Tanh(), paddle.nn.Linear(16, 1))
xs = paddle.to_tensor(np.linspace(0, 1, 32, dtype="float32").reshape(-1, 1), stop_gradient=False)
ends = paddle.to_tensor([[0.0], [1.0]])
rhs = -math.pi ** 2 * paddle.sin(math.pi * xs.detach())
grid = np.linspace(0, 1, 101, dtype="float32").reshape(-1, 1)
steps = 300
schedule = paddle.optimizer.lr.CosineAnnealingDecay(0.01, T_max=steps)
adam = paddle.optimizer.Adam(learning_rate=schedule, parameters=net.parameters())
for step in range(steps + 1):
    u = net(xs)
    (du,) = paddle.grad(u.sum(), xs, create_graph=True)      # u'(x) at each point
    (d2u,) = paddle.grad(du.sum(), xs, create_graph=True)    # u''(x)
    loss = ((d2u - rhs) ** 2).mean() + 100 * (net(ends) ** 2).mean()
    if step % 100 == 0:
        error = np.abs(net(paddle.to_tensor(grid)).numpy() - np.sin(np.pi * grid)).max()
        print(f"step {step:3d}: loss {float(loss):9.5f}, max |u - sin(pi x)| {error:.4f}")
    if step < steps:
        adam.clear_grad()
        loss.backward()
        adam.step()
        schedule.step()

# %% [markdown]
# ## Summary
# - `paddle.autograd.jacobian` / `hessian` are lazy: indexing runs one backward pass per row needed.
# - `vjp` costs one backward pass; `jvp` two (the double-vjp trick), since minipaddle has reverse mode only.
# - Quasi-Newton methods (BFGS, L-BFGS) use gradients to learn curvature; with a line search they need
#   a closure that can re-evaluate the loss.
# - Derivatives of derivatives (create_graph=True) let a loss contain a differential equation.
#
# Exercises: (1) count how many backward passes `J[:, 0]` costs, and why it cannot be fewer;
# (2) run L-BFGS with history_size=1 and compare the number of evaluations; (3) change the PINN to
# u'' = -4 pi^2 sin(2 pi x) and check that it finds sin(2 pi x).
