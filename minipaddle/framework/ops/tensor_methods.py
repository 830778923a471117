"""Attach the op library to Tensor: methods (`x.sum()`), operators (`x + y`) and in-place ops.

Paddle patches its Tensor class the same way (monkey_patch_math_tensor); keeping it in one
file shows every operator's meaning at a glance.
"""
from __future__ import annotations

from ..errors import unimplemented
from ..tensor import Tensor
from . import FAMILIES
from . import elementwise as E

INPLACE = ("add", "subtract", "multiply", "divide", "scale", "clip", "exp", "sqrt", "tanh", "abs",
           "floor", "ceil", "round", "remainder", "pow", "sigmoid", "relu", "neg", "log", "square",
           "masked_fill")
# In-place views: the tensor keeps its storage and takes the new shape (Paddle's reshape_ & co.).
INPLACE_VIEWS = ("reshape", "squeeze", "unsqueeze", "flatten")


def _reflected(fn):
    def method(self, other):
        return fn(other, self)
    return method


def _make_inplace(name: str, fn):
    def method(self, *args, **kwargs):
        self._check_inplace(f"{name}_")
        return self._assign_result(fn(self, *args, **kwargs), f"{name}_")
    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place {name}: writes the result into this tensor and bumps its version."
    return method


def _make_inplace_view(name: str, fn):
    def method(self, *args, **kwargs):
        self._check_inplace(f"{name}_")
        result = fn(self, *args, **kwargs)
        self._data = self._data.reshape(result._data.shape)  # same memory, new shape
        self._take_history(result)
        return self
    method.__name__ = method.__qualname__ = f"{name}_"
    method.__doc__ = f"In-place {name}: this tensor takes the new shape, sharing its storage."
    return method


def zero_(self) -> Tensor:
    self._check_inplace("zero_")
    self._data[...] = 0
    self._bump_version()
    return self


def fill_(self, value) -> Tensor:
    self._check_inplace("fill_")
    self._data[...] = value
    self._bump_version()
    return self


def clone(self) -> Tensor:
    """A copy that stays in the graph: gradients flow back to this tensor."""
    return E.assign(self)


# ---- dense -> sparse ---------------------------------------------------------------------------
# paddle.sparse sits above the core, so the core cannot build a sparse tensor itself: minipaddle/sparse
# fills this table when imported, and `load_sparse` (set by minipaddle/__init__.py) imports it on first use.
SPARSE_CONVERSIONS: dict = {}
load_sparse = None


def _sparse_conversion(name: str):
    if name not in SPARSE_CONVERSIONS and load_sparse is not None:
        load_sparse()
    if name not in SPARSE_CONVERSIONS:
        raise unimplemented(f"Tensor.{name}", "paddle.sparse is not loaded.",
                            hint="import minipaddle.sparse (or touch paddle.sparse) first.")
    return SPARSE_CONVERSIONS[name]


def to_sparse_coo(self, sparse_dim: int):
    """This dense tensor as a paddle.sparse COO tensor whose first `sparse_dim` dims are sparse."""
    return _sparse_conversion("to_sparse_coo")(self, sparse_dim)


def to_sparse_csr(self):
    """This dense 2-D or 3-D tensor as a paddle.sparse CSR tensor."""
    return _sparse_conversion("to_sparse_csr")(self)


def is_sparse(self) -> bool:
    """False: a Tensor is dense (paddle.sparse's tensors answer True)."""
    return False


def is_dense(self) -> bool:
    return True


def _install() -> None:
    methods = {}
    for module in FAMILIES:
        for n in module.TENSOR_METHODS:
            methods[n] = getattr(module, n)
    for n, fn in methods.items():
        setattr(Tensor, n, fn)
    for n in INPLACE:
        if n in methods:
            setattr(Tensor, f"{n}_", _make_inplace(n, methods[n]))
    for n in INPLACE_VIEWS:
        setattr(Tensor, f"{n}_", _make_inplace_view(n, methods[n]))
    Tensor.zero_ = zero_
    Tensor.fill_ = fill_
    Tensor.clone = clone
    Tensor.to_sparse_coo = to_sparse_coo
    Tensor.to_sparse_csr = to_sparse_csr
    Tensor.is_sparse = Tensor.is_sparse_coo = Tensor.is_sparse_csr = is_sparse
    Tensor.is_dense = is_dense

    Tensor.__add__ = E.add
    Tensor.__radd__ = _reflected(E.add)
    Tensor.__sub__ = E.subtract
    Tensor.__rsub__ = _reflected(E.subtract)
    Tensor.__mul__ = E.multiply
    Tensor.__rmul__ = _reflected(E.multiply)
    Tensor.__truediv__ = E.divide
    Tensor.__rtruediv__ = _reflected(E.divide)
    Tensor.__floordiv__ = E.floor_divide
    Tensor.__rfloordiv__ = _reflected(E.floor_divide)
    Tensor.__mod__ = E.remainder
    Tensor.__rmod__ = _reflected(E.remainder)
    Tensor.__pow__ = E.pow
    Tensor.__rpow__ = _reflected(E.pow)
    Tensor.__neg__ = E.neg
    Tensor.__abs__ = E.abs
    for op_name, dunder in (("equal", "__eq__"), ("not_equal", "__ne__"), ("less_than", "__lt__"),
                            ("less_equal", "__le__"), ("greater_than", "__gt__"),
                            ("greater_equal", "__ge__"), ("matmul", "__matmul__"),
                            ("bitwise_and", "__and__"), ("bitwise_or", "__or__"),
                            ("bitwise_xor", "__xor__"), ("bitwise_not", "__invert__"),
                            ("getitem", "__getitem__"), ("setitem", "__setitem__")):
        setattr(Tensor, dunder, _find(op_name))
    Tensor.__rmatmul__ = _reflected(_find("matmul"))


def _find(name: str):
    """The function `name` from whichever op family defines it (getitem is not in any __all__)."""
    for m in FAMILIES:
        if hasattr(m, name):
            return getattr(m, name)
    raise AttributeError(name)


_install()


def _install_linalg() -> None:
    """The paddle.linalg functions Paddle also puts on Tensor: x.inverse(), x.cholesky(), x.solve(y), ..."""
    from . import decomposition, matrix
    for name, fn in (("inverse", matrix.inv), ("cholesky", matrix.cholesky), ("cholesky_solve", matrix.cholesky_solve),
                     ("cross", matrix.cross), ("matrix_power", matrix.matrix_power), ("slogdet", matrix.slogdet),
                     ("solve", matrix.solve), ("cond", decomposition.cond), ("eig", decomposition.eig),
                     ("eigvals", decomposition.eigvals), ("eigvalsh", decomposition.eigvalsh),
                     ("lstsq", decomposition.lstsq), ("pinv", decomposition.pinv), ("qr", decomposition.qr)):
        setattr(Tensor, name, fn)


_install_linalg()
