"""Draft for the scientific-computing tutorial: paddle.sparse -- a graph stored as a CSR matrix, and a
two-layer graph convolutional network (GCN, Kipf & Welling 2017) trained on it with a handful of labels.

Run: .venv/bin/python tutorials/_drafts/scientific_sparse.py   (a few seconds, most of it numba compiling
the CSR kernel the first time)
"""
import numpy as np

import minipaddle as paddle
import minipaddle.nn.functional as F

paddle.seed(0)
rng = np.random.default_rng(0)

# %% [markdown]
# ## 1. A graph as a sparse matrix
# Sixty people in two communities: two people in the same community are friends with probability 0.2, across
# communities with probability 0.02. The adjacency matrix A (A[i, j] = 1 for friends) is 3600 numbers but
# only a few hundred are non-zero, so we store the non-zeros only. COO keeps a list of (row, col, value);
# CSR sorts them by row and keeps, per row, where its entries start (`crows`) -- the layout a
# row-by-row product wants.

# %%
n, half = 60, 30
community = np.repeat([0, 1], half)
same = community[:, None] == community[None, :]
friends = np.triu(rng.random((n, n)) < np.where(same, 0.2, 0.02), k=1)
rows, cols = np.nonzero(friends | friends.T)
A = paddle.sparse.sparse_coo_tensor(np.stack([rows, cols]), np.ones(rows.size, dtype="float32"), [n, n])
print(f"{A.nnz()} stored entries out of {n * n} ({A.nnz() / n / n:.1%} dense)")
print("first rows' pointers (crows):", A.to_sparse_csr().crows().numpy()[:6].tolist())

# %% [markdown]
# ## 2. The normalized adjacency
# A GCN layer averages each node's features with its neighbours': H' = relu(Â H W), where
# Â = D^-1/2 (A + I) D^-1/2 adds a self-loop to each node and scales by the degrees d so that busy nodes
# do not drown out quiet ones. Scaling the stored values keeps the pattern, so Â stays sparse.

# %%
self_loops = np.arange(n)
rows_hat = np.concatenate([rows, self_loops])
cols_hat = np.concatenate([cols, self_loops])
degree = np.bincount(rows_hat, minlength=n).astype("float32")
norm_values = 1.0 / np.sqrt(degree[rows_hat] * degree[cols_hat])
A_hat = paddle.sparse.sparse_coo_tensor(np.stack([rows_hat, cols_hat]), norm_values, [n, n]).to_sparse_csr()
print("row sums of Â for nodes 0-4:", np.round(A_hat.to_dense().numpy().sum(1)[:5].astype(float), 3).tolist())

# %% [markdown]
# ## 3. Two GCN layers, four labels
# The node features are noise: nothing but the graph tells the communities apart. We know the community of
# just four people (two per side) and train on those; `paddle.sparse.matmul(A_hat, H)` runs the CSR kernel,
# and its gradient flows back to H (and through it to the weights).

# %%
class GCN(paddle.nn.Layer):
    def __init__(self, in_features, hidden, classes):
        super().__init__()
        self.w1 = paddle.nn.Linear(in_features, hidden)
        self.w2 = paddle.nn.Linear(hidden, classes)

    def forward(self, a_hat, x):
        h = F.relu(paddle.sparse.matmul(a_hat, self.w1(x)))
        return paddle.sparse.matmul(a_hat, self.w2(h))


features = paddle.to_tensor(rng.standard_normal((n, 16)).astype("float32"))
labels = paddle.to_tensor(community)
train = paddle.to_tensor([0, 1, half, half + 1])
model = GCN(16, 16, 2)
opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())
for step in range(60):
    logits = model(A_hat, features)
    loss = F.cross_entropy(paddle.gather(logits, train), paddle.gather(labels, train))
    loss.backward()
    opt.step()
    opt.clear_grad()
    if step % 20 == 0 or step == 59:
        accuracy = float((logits.argmax(axis=1) == labels).astype("float32").mean())
        print(f"step {step:2d}: loss {float(loss):.3f}, accuracy on all {n} nodes {accuracy:.0%}")

# %% [markdown]
# ## Summary
# - `sparse_coo_tensor(indices, values, shape)` stores the non-zeros; `to_sparse_csr()` sorts them by row.
# - Math on the values (`paddle.sparse.sin`, `nn.functional.relu`, scaling) keeps the pattern.
# - `paddle.sparse.matmul(csr, dense)` costs nnz x columns, not n^2 x columns, and its gradient reaches both
#   the dense operand and the sparse values.
#
# ## Exercises
# 1. Make the adjacency's values trainable (`stop_gradient=False`) and print their gradient after a step.
# 2. Replace the fixed Â with `paddle.sparse.nn.functional.softmax` of learned scores on A's pattern: a
#    graph attention layer.
