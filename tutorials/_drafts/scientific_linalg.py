"""Draft for the scientific-computing tutorial: paddle.linalg (solve, det, eig, gradients through a
solver) and paddle.einsum, with the ops einsum expands into, read off a recording.

Run: .venv/bin/python tutorials/_drafts/scientific_linalg.py   (a few seconds)
"""
import numpy as np

import minipaddle as paddle

# %% [markdown]
# ## 1. Solving a linear system
# Three unknown currents in a small circuit satisfy A x = b. `paddle.linalg.solve` hands the system to
# LAPACK (an LU factorization) -- never compute `inv(A) @ b`: it is slower and less accurate. `det`
# says whether a unique solution exists at all.

# %%
A = paddle.to_tensor([[4.0, -1.0, 0.0],
                      [-1.0, 4.0, -1.0],
                      [0.0, -1.0, 4.0]], dtype="float64")
b = paddle.to_tensor([15.0, 10.0, 10.0], dtype="float64")
x = paddle.linalg.solve(A, b)
print("currents:", np.round(x.numpy(), 4).tolist())
print("residual |Ax - b|:", float(paddle.linalg.norm(paddle.matmul(A, x) - b)))
print("det(A) =", round(paddle.linalg.det(A).item(), 6))

singular = paddle.to_tensor([[1.0, 2.0], [2.0, 4.0]])
try:
    paddle.linalg.inv(singular)
except ValueError as error:   # minipaddle's InvalidArgument is a ValueError, as Paddle's is
    print(error)

# %% [markdown]
# ## 2. Gradients through a solver
# `solve` is an op with a backward rule: for X = A^-1 B the gradients are dB = A^-T dX and
# dA = -dB X^T. So a quantity computed from the solution can be differentiated with respect to
# the matrix itself -- here, how the total current depends on each conductance in A.
# `describe` shows the rule, written in minipaddle ops (so grads of grads work too).

# %%
A.stop_gradient = False
total = paddle.linalg.solve(A, b).sum()
(dA,) = paddle.grad(total, A)
print("d total / d A:\n", np.round(dA.numpy(), 4))
print(paddle.framework.ops.describe("solve"))

# %% [markdown]
# ## 3. Eigenvalues: a rotation has complex ones
# `eig` works on any square matrix, so its eigenvalues and eigenvectors are complex (complex64 for a
# float32 input). A rotation by 90 degrees turns every real vector, so it has no real eigenvector:
# its eigenvalues are +i and -i. A symmetric matrix has real ones: use `eigh` (faster, and sorted).

# %%
rotation = paddle.to_tensor([[0.0, -1.0], [1.0, 0.0]])
values, vectors = paddle.linalg.eig(rotation)
print("eig of a rotation:", values.numpy(), values.dtype)
w, v = paddle.linalg.eigh(paddle.to_tensor([[2.0, 1.0], [1.0, 2.0]]))
print("eigh of a symmetric matrix:", w.numpy(), w.dtype)

# %% [markdown]
# ## 4. einsum, and the ops it becomes
# `einsum` names each dim with a letter: `'bhqd,bhkd->bhqk'` multiplies queries and keys over `d`
# for every batch `b` and head `h` -- attention scores. minipaddle's einsum, like Paddle's, has no
# kernel: it parses the equation and calls transpose, reshape and one batched matmul. Record it
# with `paddle.debug.record()` and read the ops off the trace (the debugger draws the same nodes).

# %%
q = paddle.rand([2, 4, 5, 8])     # batch, heads, queries, dim
k = paddle.rand([2, 4, 6, 8])     # batch, heads, keys, dim
with paddle.debug.record() as rec:
    scores = paddle.einsum("bhqd,bhkd->bhqk", q, k)
for node in rec.trace.nodes:
    print(f"{node['op']:10} {node['attrs']}")
reference = np.einsum("bhqd,bhkd->bhqk", q.numpy(), k.numpy())
print("scores", scores.shape, "match numpy:", np.allclose(scores.numpy(), reference, atol=1e-5))
print("trace of A via 'ii':", paddle.einsum("ii", A.detach()).item())

# %% [markdown]
# ## Summary
# - `paddle.linalg.solve` / `det` / `inv` work on the last two dims and batch over the rest; a singular
#   matrix is an error that says so.
# - The solvers and decompositions have backward rules, so losses can be differentiated through them.
# - `eig` is complex; `eigh` is for symmetric matrices and gives real, sorted eigenvalues.
# - `einsum` is a recipe of transposes, reshapes and a matmul -- the recording shows which.
# - Exercises: compare `paddle.linalg.lstsq` with `solve` on an overdetermined system; write
#   `'ij,jk->ik'` and `'bij,bjk->bik'` as einsums and count the ops each records.
