"""Math on the stored values: each function against numpy, its gradient against central differences."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidType
from tests.ops.opcheck import check_double_grad, check_grad

from .helpers import coo_parts

S = paddle.sparse
INDEX, VALUES = coo_parts(np.array([[0.0, 0.3, 0.0], [-0.6, 0.0, 0.45]]))
UNARY = {"abs": np.abs, "neg": np.negative, "sin": np.sin, "tanh": np.tanh, "square": np.square,
         "asin": np.arcsin, "asinh": np.arcsinh, "atan": np.arctan, "atanh": np.arctanh, "tan": np.tan,
         "sinh": np.sinh, "expm1": np.expm1, "deg2rad": np.deg2rad, "rad2deg": np.rad2deg}
POSITIVE = {"sqrt": np.sqrt, "log1p": np.log1p}


def _apply(name, values, **kwargs):
    x = S.sparse_coo_tensor(INDEX, values, [2, 3], stop_gradient=False)
    return getattr(S, name)(x, **kwargs)


@pytest.mark.parametrize("name", sorted(UNARY) + sorted(POSITIVE))
def test_unary_matches_numpy_on_values_and_keeps_the_pattern(name):
    values = np.abs(VALUES) if name in POSITIVE else VALUES
    out = _apply(name, values)
    np.testing.assert_array_equal(out.indices().numpy(), INDEX)
    np.testing.assert_allclose(out.values().numpy(), {**UNARY, **POSITIVE}[name](values), rtol=1e-12)
    check_grad(lambda v: _apply(name, v).values(), [values])


@pytest.mark.parametrize("name", ["asin", "atanh", "tan", "sinh", "expm1"])
def test_table_ops_have_double_grad(name):
    check_double_grad(lambda v: _apply(name, v).values(), [VALUES])


def test_pow_cast_isnan_on_csr():
    x = S.sparse_coo_tensor(INDEX, VALUES, [2, 3]).to_sparse_csr()
    np.testing.assert_allclose(S.pow(x, 3).values().numpy(), VALUES ** 3)
    c = S.cast(x, "int32", "float32")
    assert c.crows().dtype == paddle.int32 and c.cols().dtype == paddle.int32 and c.dtype == paddle.float32
    assert S.isnan(S.sqrt(x)).values().numpy().tolist() == [False, True, False]


def test_mask_as_picks_dense_entries_on_the_pattern():
    mask = S.sparse_coo_tensor(INDEX, VALUES, [2, 3])
    dense = np.arange(6.0).reshape(2, 3)
    for m in (mask, mask.to_sparse_csr()):
        np.testing.assert_array_equal(S.mask_as(paddle.to_tensor(dense), m).to_dense().numpy(),
                                      np.where(mask.to_dense().numpy() != 0, dense, 0))


def test_unary_refuses_a_dense_tensor():
    with pytest.raises(InvalidType, match="paddle.sin"):
        S.sin(paddle.ones([2]))
