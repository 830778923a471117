"""Golden cases: sparse (issue: scientific computing) -- paddle.sparse's constructors, layouts, coalesce,
elementwise and unary ops, sum/transpose, the sparse softmax and the errors Paddle raises.

A sparse tensor is returned through `parts(x)` (its layout arrays), never whole: Paddle 3.3.1 crashes
on `.numpy()` of a sparse tensor. Paddle has no CPU kernel for sparse.matmul/mv/addmm/masked_matmul,
so only their argument checks are compared here (tests/sparse checks the products against scipy)."""
from __future__ import annotations

from .harness import case, outcome

INDICES = [[0, 1, 2], [1, 2, 0]]
VALUES = [1.0, -2.0, 3.0]


def parts(x):
    out = {"shape": list(x.shape), "nnz": int(x.nnz()), "values": x.values(),
           "coo": x.is_sparse_coo(), "csr": x.is_sparse_csr(), "stop_gradient": x.stop_gradient}
    if x.is_sparse_coo():
        out["indices"] = x.indices()
    else:
        out["crows"], out["cols"] = x.crows(), x.cols()
    return out


@case
def coo_construction(paddle):
    S = paddle.sparse
    x = S.sparse_coo_tensor(INDICES, VALUES, [3, 3])
    return {"parts": parts(x), "dense": x.to_dense(), "is_sparse": x.is_sparse(),
            "inferred shape": list(S.sparse_coo_tensor(INDICES, VALUES).shape),
            "int values": parts(S.sparse_coo_tensor(INDICES, [1, 2, 3])),
            "float64 dtype": parts(S.sparse_coo_tensor(INDICES, VALUES, dtype="float64")),
            "needs grad": S.sparse_coo_tensor(INDICES, VALUES, [3, 3], stop_gradient=False).stop_gradient,
            "grad before backward": S.sparse_coo_tensor(INDICES, VALUES, [3, 3]).grad,
            "dense dims": S.sparse_coo_tensor([[0, 1], [1, 0]], [[1.0, 2.0], [3.0, 4.0]], [2, 2, 2]).to_dense()}


@case
def coo_errors(paddle):
    S = paddle.sparse
    return {"index outside shape": outcome(lambda: S.sparse_coo_tensor([[0, 5], [0, 1]], [1.0, 2.0], [3, 3])),
            "shape too small": outcome(lambda: S.sparse_coo_tensor(INDICES, VALUES, [2, 2])),
            "values length": outcome(lambda: S.sparse_coo_tensor([[0, 1], [0, 1]], VALUES, [3, 3])),
            "1-D indices": outcome(lambda: S.sparse_coo_tensor([0, 1], [1.0, 2.0], [3, 3])),
            "rank of shape": outcome(lambda: S.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3, 3])),
            "float indices": outcome(lambda: S.sparse_coo_tensor([[0.0, 1.0], [0.0, 1.0]], [1.0, 2.0], [3, 3]))}


@case
def csr_construction(paddle):
    S = paddle.sparse
    x = S.sparse_csr_tensor([0, 1, 2, 3], [1, 2, 0], VALUES, [3, 3])
    batch = S.sparse_csr_tensor([0, 1, 2, 0, 1, 1], [1, 0, 1], VALUES, [2, 2, 2])
    return {"parts": parts(x), "dense": x.to_dense(), "batch": parts(batch), "batch dense": batch.to_dense(),
            "inferred shape": list(S.sparse_csr_tensor([0, 1, 2, 3], [1, 2, 0], VALUES).shape)}


@case
def csr_errors(paddle):
    S = paddle.sparse
    return {"crows length": outcome(lambda: S.sparse_csr_tensor([0, 1, 3], [1, 2, 0], VALUES, [3, 3])),
            "crows start": outcome(lambda: S.sparse_csr_tensor([1, 1, 2, 3], [1, 2, 0], VALUES, [3, 3])),
            "crows end": outcome(lambda: S.sparse_csr_tensor([0, 1, 2, 4], [1, 2, 0], VALUES, [3, 3])),
            "values length": outcome(lambda: S.sparse_csr_tensor([0, 1, 2, 3], [1, 2, 0], [1.0, 2.0], [3, 3])),
            "1-D shape": outcome(lambda: S.sparse_csr_tensor([0, 1], [0], [1.0], [1]))}


@case
def conversions(paddle):
    x = paddle.sparse.sparse_coo_tensor(INDICES, VALUES, [3, 3])
    d = paddle.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    return {"coo to csr": parts(x.to_sparse_csr()), "csr to coo": parts(x.to_sparse_csr().to_sparse_coo(2)),
            "dense to coo 1": parts(d.to_sparse_coo(1)), "dense to coo 2": parts(d.to_sparse_coo(2)),
            "dense to csr": parts(d.to_sparse_csr()),
            "dense predicates": [d.is_sparse(), d.is_sparse_coo(), d.is_sparse_csr()],
            "dense grad": _dense_to_coo_grad(paddle)}


def _dense_to_coo_grad(paddle):
    d = paddle.to_tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], stop_gradient=False)
    d.to_sparse_coo(2).values().sum().backward()
    return d.grad


@case
def coalesce(paddle):
    x = paddle.sparse.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1.0, 2.0, 3.0], [2, 2])
    return {"nnz before": x.nnz(), "function": parts(paddle.sparse.coalesce(x)), "method": parts(x.coalesce()),
            "dense of coalesced": x.coalesce().to_dense()}


@case(differs="Paddle 3.3.1's CPU to_dense writes repeated indices over each other (the last wins) while its "
              "coalesce sums them; minipaddle sums in both, so x.to_dense() == x.coalesce().to_dense()")
def to_dense_of_repeated_indices(paddle):
    x = paddle.sparse.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1.0, 2.0, 3.0], [2, 2])
    return x.to_dense()


@case
def elementwise(paddle):
    S = paddle.sparse
    x = S.sparse_coo_tensor(INDICES, VALUES, [3, 3])
    y = S.sparse_coo_tensor([[0, 1], [1, 1]], [4.0, 5.0], [3, 3])
    cx, cy = x.to_sparse_csr(), y.to_sparse_csr()
    return {"add": parts(S.add(x, y)), "subtract": parts(S.subtract(x, y)), "multiply": parts(S.multiply(x, y)),
            "divide": parts(S.divide(x, y)), "add csr": parts(S.add(cx, cy)),
            "multiply csr": parts(S.multiply(cx, cy)), "divide csr": parts(S.divide(cx, cy)),
            "times number": parts(S.multiply(x, 2.0)), "over number": parts(S.divide(x, 2.0)),
            "is_same_shape": S.is_same_shape(x, paddle.ones([3, 2]))}


@case
def elementwise_errors(paddle):
    S = paddle.sparse
    x = S.sparse_coo_tensor(INDICES, VALUES, [3, 3])
    return {"plus number": outcome(lambda: S.add(x, 2.0)),
            "mixed layouts": outcome(lambda: S.add(x, x.to_sparse_csr())),
            "shapes differ": outcome(lambda: S.add(x, S.sparse_coo_tensor([[0], [1]], [1.0], [3, 4])))}


@case
def unary(paddle):
    S = paddle.sparse
    x = S.sparse_coo_tensor(INDICES, [0.5, -0.25, 0.75], [3, 3])
    out = {name: parts(getattr(S, name)(x)) for name in
           ["abs", "asin", "asinh", "atan", "atanh", "deg2rad", "expm1", "isnan", "log1p", "neg",
            "rad2deg", "sin", "sinh", "square", "tan", "tanh"]}
    out["sqrt csr"] = parts(S.sqrt(S.abs(x).to_sparse_csr()))
    out["pow"] = parts(S.pow(x, 3.0))
    cast = S.cast(x, "int32", "float64")
    out["cast"] = [cast.indices(), cast.values()]
    out["relu"] = parts(S.nn.functional.relu(x))
    out["ReLU layer csr"] = parts(S.nn.ReLU()(x.to_sparse_csr()))
    return out


@case
def transpose_and_sum(paddle):
    S = paddle.sparse
    x = S.sparse_coo_tensor(INDICES, VALUES, [3, 3])
    c = S.sparse_csr_tensor([0, 2, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], [3, 3])
    everything = S.sum(x)
    return {"transpose": parts(S.transpose(x, [1, 0])), "transpose csr": parts(S.transpose(c, [1, 0])),
            "sum all": [list(everything.shape), float(everything.values().sum())],
            "sum axis 0": parts(S.sum(x, axis=0)), "sum axis 1 keepdim": parts(S.sum(x, axis=1, keepdim=True)),
            "sum csr": parts(S.sum(c)), "sum csr rows": parts(S.sum(c, axis=-1)),
            "sum int": S.sum(S.sparse_coo_tensor(INDICES, [1, 2, 3])).values().dtype == paddle.int64,
            "sum dtype": S.sum(x, dtype="float64").values().dtype == paddle.float64,
            "sum dense dim": parts(S.sum(S.sparse_coo_tensor([[0, 1, 1], [0, 0, 2]],
                                                             [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], [2, 3, 2]),
                                         axis=2)),
            "sum csr axis 0": outcome(lambda: S.sum(c, axis=0))}


@case
def softmax(paddle):
    S = paddle.sparse
    F = S.nn.functional
    c = S.sparse_csr_tensor([0, 2, 2, 3], [0, 2, 1], [1.0, 2.0, 3.0], [3, 3])
    batch = S.sparse_csr_tensor([0, 1, 2, 0, 2, 2], [1, 0, 0, 1], [1.0, 2.0, 3.0, 4.0], [2, 2, 2])
    coo = S.sparse_coo_tensor([[0, 0, 1], [0, 2, 1]], [1.0, 2.0, 3.0], [3, 3])
    return {"csr": parts(F.softmax(c)), "batch": parts(F.softmax(batch)), "coo": parts(F.softmax(coo)),
            "layer": parts(S.nn.Softmax()(c)), "axis 0": outcome(lambda: F.softmax(c, axis=0))}


@case
def matmul_argument_checks(paddle):
    S = paddle.sparse
    c = S.sparse_coo_tensor(INDICES, VALUES, [3, 3]).to_sparse_csr()
    return {"inner dims differ": outcome(lambda: S.matmul(c, paddle.ones([4, 2])))}


@case(differs="Paddle 3.3.1 has no CPU kernel for sparse.matmul (NotImplementedError); minipaddle computes "
              "it with a numba CSR kernel")
def matmul_on_the_cpu(paddle):
    c = paddle.sparse.sparse_coo_tensor(INDICES, VALUES, [3, 3]).to_sparse_csr()
    return outcome(lambda: paddle.sparse.matmul(c, paddle.ones([3, 2])))
