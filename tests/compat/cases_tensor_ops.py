"""Golden cases: cumprod, logcumsumexp, kron, diag, diagflat, meshgrid, repeat_interleave, unique,
bincount, histogram, searchsorted, bucketize -- values, dtypes, gradients and errors."""
from .harness import case, outcome

X = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


@case
def cumprod(paddle):
    x = paddle.to_tensor([[1.0, 2.0, 0.0], [4.0, 0.5, 6.0]], stop_gradient=False)
    y = paddle.cumprod(x, dim=1)
    (y * paddle.to_tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])).sum().backward()
    return {"dim=1": y, "dim=0": paddle.cumprod(x, dim=0), "flattened": paddle.cumprod(x),
            "int": paddle.cumprod(paddle.to_tensor([1, 2, 3]), dim=0),
            "dtype": paddle.cumprod(paddle.to_tensor([1, 2, 3]), dim=0, dtype="float64"),
            "method": x.cumprod(dim=1), "grad with a zero": x.grad}


@case
def logcumsumexp(paddle):
    x = paddle.to_tensor(X, stop_gradient=False)
    y = paddle.logcumsumexp(x, axis=1)
    (y * paddle.to_tensor([[1.0, -2.0, 0.5], [0.0, 1.0, 1.0]])).sum().backward()
    return {"axis=1": y, "flattened": paddle.logcumsumexp(x), "int": paddle.logcumsumexp(paddle.to_tensor([1, 2])),
            "large": paddle.logcumsumexp(paddle.to_tensor([1000.0, 1000.0])), "grad": x.grad}


@case
def kron(paddle):
    a = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    b = paddle.to_tensor([[0.0, 1.0, 2.0]], stop_gradient=False)
    out = paddle.kron(a, b)
    (out * paddle.arange(12, dtype="float32").reshape([2, 6])).sum().backward()
    return {"2-D": out, "int": paddle.kron(paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4, 5])),
            "1-D with 2-D": paddle.kron(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])),
            "grad a": a.grad, "grad b": b.grad}


@case
def diag(paddle):
    v = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    m = paddle.to_tensor(X, stop_gradient=False)
    (paddle.diag(v, offset=1) * paddle.arange(9, dtype="float32").reshape([3, 3])).sum().backward()
    (paddle.diag(m, offset=1) * paddle.to_tensor([10.0, 20.0])).sum().backward()
    return {"vector": paddle.diag(v), "vector offset 1": paddle.diag(v, offset=1),
            "vector offset -1 padded": paddle.diag(v, offset=-1, padding_value=9),
            "matrix": paddle.diag(m), "matrix offset 1": paddle.diag(m, offset=1),
            "matrix offset -1": paddle.diag(m, offset=-1), "0-D": paddle.diag(paddle.to_tensor(3.0)),
            "3-D": outcome(lambda: paddle.diag(paddle.ones([2, 2, 2]))), "grad v": v.grad, "grad m": m.grad}


@case
def diagflat(paddle):
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    out = paddle.diagflat(x, offset=-1)
    (out * paddle.arange(25, dtype="float32").reshape([5, 5])).sum().backward()
    return {"2-D": paddle.diagflat(x), "offset -1": out, "grad": x.grad}


@case
def meshgrid(paddle):
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = paddle.to_tensor([4.0, 5.0], stop_gradient=False)
    gx, gy = paddle.meshgrid(x, y)
    (gx * gy).sum().backward()
    return {"grids": [gx, gy], "list argument": paddle.meshgrid([paddle.to_tensor([1, 2]), paddle.to_tensor([3])]),
            "grad x": x.grad, "grad y": y.grad,
            "2-D input": outcome(lambda: paddle.meshgrid(paddle.ones([2, 2]), y))}


@case
def repeat_interleave(paddle):
    x = paddle.to_tensor(X, stop_gradient=False)
    out = paddle.repeat_interleave(x, paddle.to_tensor([1, 3]), axis=0)
    (out * paddle.arange(12, dtype="float32").reshape([4, 3])).sum().backward()
    return {"int, axis=1": paddle.repeat_interleave(x, 2, axis=1), "flattened": paddle.repeat_interleave(x, 2),
            "tensor repeats": out, "method": x.repeat_interleave(2, axis=0), "grad": x.grad,
            "wrong count": outcome(lambda: paddle.repeat_interleave(x, paddle.to_tensor([1, 2, 3]), axis=0))}


@case
def unique(paddle):
    u = paddle.to_tensor([2, 3, 3, 1, 5, 3])
    return {"values": paddle.unique(u),
            "all": paddle.unique(u, return_index=True, return_inverse=True, return_counts=True),
            "axis 0": paddle.unique(paddle.to_tensor([[2, 1], [2, 1], [0, 3]]), axis=0, return_inverse=True,
                                    return_counts=True),
            "float": paddle.unique(paddle.to_tensor([2.0, 1.0, 2.0])),
            "int32 inverse": paddle.unique(u, return_inverse=True, dtype="int32"),
            "2-D flattened": paddle.unique(paddle.to_tensor([[1, 1], [0, 1]]), return_counts=True)}


@case
def bincount(paddle):
    x = paddle.to_tensor([1, 1, 4, 5])
    return {"counts": paddle.bincount(x), "weights": paddle.bincount(x, weights=paddle.to_tensor([0.5, 1.0, 2.0, 3.0])),
            "minlength": paddle.bincount(paddle.to_tensor([1, 1]), minlength=5),
            "int weights": paddle.bincount(paddle.to_tensor([1, 1]), weights=paddle.to_tensor([2, 3])),
            "int32": paddle.bincount(paddle.to_tensor([1, 2], dtype="int32")),
            "negative": outcome(lambda: paddle.bincount(paddle.to_tensor([1, -1]))),
            "float": outcome(lambda: paddle.bincount(paddle.to_tensor([1.0])))}


@case
def histogram(paddle):
    x = paddle.to_tensor([1.0, 2.0, 1.0, 4.0])
    return {"range": paddle.histogram(x, bins=4, min=0, max=4), "auto range": paddle.histogram(x, bins=3),
            "int": paddle.histogram(paddle.to_tensor([1, 2, 1]), bins=4, min=0, max=3),
            "outside left out": paddle.histogram(paddle.to_tensor([1.0, 2.0, 5.0, -1.0]), bins=2, min=0, max=4),
            "weight": paddle.histogram(x[:3], bins=2, min=0, max=4, weight=paddle.to_tensor([1.0, 2.0, 3.0])),
            "density": paddle.histogram(x[:3], bins=2, min=0, max=4, density=True),
            "one value": paddle.histogram(paddle.to_tensor([1.0, 1.0]), bins=2),
            "min > max": outcome(lambda: paddle.histogram(x, bins=2, min=4, max=0))}


@case
def searchsorted_and_bucketize(paddle):
    seq = paddle.to_tensor([[1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 8.0]])
    values = paddle.to_tensor([[3.0, 6.0], [8.0, 0.0]])
    edges = paddle.to_tensor([1.0, 3.0, 5.0])
    return {"rows": paddle.searchsorted(seq, values), "right": paddle.searchsorted(seq, values, right=True),
            "int32": paddle.searchsorted(seq, values, out_int32=True),
            "1-D sequence": paddle.searchsorted(edges, values),
            "bucketize": paddle.bucketize(values, edges),
            "bucketize right": paddle.bucketize(values, edges, right=True),
            "bucketize 2-D edges": outcome(lambda: paddle.bucketize(values, seq))}
