"""CUDA elementwise kernels against the ops' CPU kernels (numpy is the reference behind those).

Every op with a GPU kernel runs on the same inputs as its default CPU kernel; broadcasting,
odd sizes (not a multiple of a block) and float16 are covered on a few representative ops.
"""
from __future__ import annotations

import numpy as np
import pytest
from numba import cuda

from minipaddle.framework.registry import get_op

from .kernel_check import check as check_op

RNG = np.random.default_rng(17)
SHAPE = (37,)  # odd: not a multiple of a block, nor of the kernels' 4-way unroll

UNARY_FLOAT = ["exp", "log", "log1p", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tanh", "erf", "sign", "floor",
               "ceil", "round", "neg", "abs", "square", "relu", "relu6", "sigmoid", "silu", "hardswish", "mish",
               "tanhshrink", "softsign", "log_sigmoid", "gelu", "leaky_relu", "elu", "softplus", "hardsigmoid",
               "clip", "hardtanh", "selu", "celu", "hardshrink", "softshrink", "thresholded_relu", "scale",
               "isnan", "isinf", "isfinite", "logical_not", "assign"]
BINARY_FLOAT = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "elementwise_pow", "floor_divide",
                "remainder", "relu_grad", "equal", "not_equal", "less_than", "less_equal", "greater_than",
                "greater_equal", "logical_and", "logical_or", "logical_xor"]
INT_OPS = ["add", "subtract", "multiply", "maximum", "minimum", "neg", "abs", "square", "scale", "clip", "equal",
           "less_than", "greater_equal", "logical_and", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"]
ATTRS = {"leaky_relu": {"negative_slope": 0.2}, "elu": {"alpha": 0.7}, "softplus": {"beta": 2.0, "threshold": 3.0},
         "clip": {"min": -0.5, "max": 1}, "hardtanh": {"min": -0.3, "max": 0.4}, "scale": {"scale": 3, "bias": -1},
         "thresholded_relu": {"threshold": 0.1, "value": -2.0}, "hardsigmoid": {"slope": 0.3, "offset": 0.4}}


def check(op_name, arrays, attrs=None, rtol=1e-6, atol=1e-6):
    check_op(op_name, arrays, ATTRS.get(op_name, {}) if attrs is None else attrs, rtol, atol)


def floats(shape=SHAPE, dtype=np.float32, low=-2.5, high=2.5):
    x = RNG.uniform(low, high, shape).astype(dtype)
    x.flat[:4] = (0.0, 1.0, -1.0, 2.0)[: x.size]  # the edges of piecewise ops
    return x


@pytest.mark.parametrize("op_name", UNARY_FLOAT)
def test_unary_float32_matches_the_cpu_kernel(op_name):
    check(op_name, [floats()], rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("op_name", BINARY_FLOAT)
def test_binary_float32_matches_the_cpu_kernel(op_name):
    x, y = floats(), floats()
    y[5] = x[5]  # a tie, for the comparisons and maximum/minimum
    if op_name == "relu_grad":
        x = np.maximum(x, 0)
    if op_name == "elementwise_pow":
        x = np.abs(x)
    check(op_name, [x, y], rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("op_name", INT_OPS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_ops_match_the_cpu_kernel(op_name, dtype):
    arrays = [RNG.integers(-9, 9, SHAPE).astype(dtype) for _ in range(get_op(op_name).inputs.__len__())]
    check(op_name, arrays)


@pytest.mark.parametrize("op_name", ["add", "gelu", "exp", "sigmoid", "less_than", "maximum"])
def test_float64_matches_to_float64_precision(op_name):
    arrays = [floats(dtype=np.float64) for _ in get_op(op_name).inputs]
    check(op_name, arrays, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("op_name", ["add", "gelu", "tanh", "leaky_relu", "greater_than"])
def test_float16_computes_in_float32_and_rounds_once(op_name):
    arrays = [floats(dtype=np.float16) for _ in get_op(op_name).inputs]
    check(op_name, arrays, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("x_shape, y_shape", [((5, 7, 3), (7, 1)), ((5, 1, 3), (1, 7, 3)), ((5, 7, 3), ()),
                                              ((1,), (4, 3)), ((2, 1, 3, 1), (4, 1, 5)), ((6, 1), (1, 9)),
                                              ((6, 9), (9,))])
@pytest.mark.parametrize("op_name", ["add", "divide", "less_equal", "logical_or"])
def test_broadcasting_matches_numpy(op_name, x_shape, y_shape):
    check(op_name, [floats(x_shape), floats(y_shape, low=0.5)])


def test_where_broadcasts_condition_x_and_y():
    condition = RNG.random((5, 1, 3)) > 0.5
    check("where", [condition, floats((5, 7, 3)), floats((7, 1))])
    check("where", [np.ascontiguousarray(condition[:, :, 0]), floats((5, 7)), floats((5, 7))])


@pytest.mark.parametrize("source", [np.float32, np.float16, np.float64, np.int32, np.int64, np.bool_])
@pytest.mark.parametrize("target", ["float32", "float16", "float64", "int32", "int64", "bool"])
def test_cast_between_every_pair_of_dtypes(source, target):
    x = (floats() * 3).astype(source) if source != np.bool_ else floats() > 0
    check("cast", [x], {"dtype": np.dtype(target)})


def test_gelu_tanh_approximation_and_empty_tensors():
    check("gelu", [floats()], {"approximate": True})
    check("add", [floats((0, 3)), floats((0, 3))])
    check("exp", [floats((2, 0))])


def test_a_wrong_dtype_names_the_kernel_and_the_dtypes_it_has():
    from minipaddle.framework.kernels.cuda.elementwise import exp
    with pytest.raises(TypeError, match="exp .cuda.: no kernel for dtype int32; have float16, float32, float64"):
        exp(cuda.to_device(np.zeros(3, np.int32)))


@pytest.mark.parametrize("x_shape, y_shape", [((1501,), (1501,)), ((41, 37), (37,)), ((41, 37), (41, 1))])
@pytest.mark.parametrize("op_name", ["add", "gelu", "where"])
def test_enough_elements_for_the_four_way_unrolled_loops(op_name, x_shape, y_shape):
    # more than 4 x (blocks x threads) elements, so every thread runs the unrolled body and the tail
    if op_name == "gelu":
        check(op_name, [floats(x_shape)], rtol=2e-6, atol=2e-6)
    elif op_name == "where":
        check(op_name, [RNG.random(y_shape) > 0.5, floats(x_shape), floats(x_shape)])
    else:
        check(op_name, [floats(x_shape), floats(y_shape)])
