"""paddle.sparse: tensors that store only their non-zero entries, in COO or CSR layout.

Design. A sparse tensor (`tensor.py`) is a small Python object holding ordinary minipaddle
Tensors: int64 index tensors (COO `indices` [sparse_dim, nnz]; CSR `crows`, `cols`) and a
`values` tensor. The values tensor is where autograd lives: every sparse op computes its output
values from its inputs' values with dense ops (`gather`, `scatter`, `multiply`, ...), or with one
registered op where a loop is worth a kernel (the CSR x dense matmul, `matmul.py`, a numba loop).
So `loss.backward()` reaches the values like any other tensor, and `x.grad` is the values'
gradient laid out on x's pattern. The index arithmetic (sorting, merging patterns) is numpy on the
index arrays: indices never need gradients.

Unlike Paddle, a sparse tensor is not an instance of `paddle.Tensor` (minipaddle's Tensor is one
dense numpy array; a subclass would have to disable half of it), so `paddle.is_tensor(x)` is False.

    >>> import minipaddle as paddle
    >>> x = paddle.sparse.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [1.0, 2.0, 3.0], [2, 3])
    >>> x.to_dense().numpy()
    array([[0., 0., 1.],
           [2., 0., 3.]], dtype=float32)
    >>> y = paddle.sparse.matmul(x.to_sparse_csr(), paddle.ones([3, 2]))   # dense [2, 2]

Files: tensor.py (the two classes), creation.py (constructors and their checks), conversion.py
(layouts, coalesce), matmul.py + kernels.py (products), binary.py (add, subtract, multiply,
divide), unary.py (math on the values), manipulation.py (transpose, sum, reshape), nn/.
"""
from __future__ import annotations

from ..framework.ops import tensor_methods as _core_methods
from . import nn  # noqa: F401
from .binary import add, divide, is_same_shape, multiply, subtract  # noqa: F401
from .conversion import coalesce, to_dense, to_sparse_coo, to_sparse_csr
from .creation import sparse_coo_tensor, sparse_csr_tensor  # noqa: F401
from .manipulation import reshape, sum, transpose  # noqa: F401,A004
from .matmul import addmm, masked_matmul, matmul, mv  # noqa: F401
from .tensor import SparseCooTensor, SparseCsrTensor, SparseTensor
from .unary import (abs, asin, asinh, atan, atanh, cast, deg2rad, expm1, isnan, log1p, mask_as,  # noqa: F401,A004
                    neg, pow, rad2deg, sin, sinh, sqrt, square, tan, tanh)

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "matmul", "masked_matmul", "mv", "addmm", "add",
           "subtract", "multiply", "divide", "is_same_shape", "coalesce", "transpose", "sum", "reshape",
           "abs", "asin", "asinh", "atan", "atanh", "cast", "deg2rad", "expm1", "isnan", "log1p", "mask_as",
           "neg", "pow", "rad2deg", "sin", "sinh", "sqrt", "square", "tan", "tanh", "SparseCooTensor",
           "SparseCsrTensor"]

# Tensor-style methods of a sparse tensor (x.to_dense(), x.coalesce(), ...): the functions above.
SparseTensor.to_dense = to_dense
SparseTensor.to_sparse_coo = to_sparse_coo
SparseTensor.to_sparse_csr = to_sparse_csr
SparseCooTensor.coalesce = coalesce

# Dense Tensor.to_sparse_coo / to_sparse_csr: the core cannot import this package, so it asks here.
_core_methods.SPARSE_CONVERSIONS["to_sparse_coo"] = to_sparse_coo
_core_methods.SPARSE_CONVERSIONS["to_sparse_csr"] = to_sparse_csr
