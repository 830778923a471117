"""Golden cases: dtypes of mixed-dtype arithmetic, creation defaults, numel.

Paddle 3.3.1 promotes only float with float (the wider wins); a Tensor of one dtype with a Tensor
of another kind (float32 with int64, float32 with bool, int32 with int64) is a TypeError, for the
operators and for paddle.add alike. A 0-D Tensor or a Python number combines like a scalar: the
other tensor's dtype wins (a float scalar makes an int tensor float32).
"""
from .harness import case, dtype_name, outcome


def _vectors(paddle):
    f32 = paddle.to_tensor([1.5, 2.5], dtype="float32")
    i64 = paddle.to_tensor([1, 2], dtype="int64")
    flags = paddle.to_tensor([True, False])
    return f32, i64, flags


@case
def float32_plus_int64_operator(paddle):
    x, i, _ = _vectors(paddle)
    return [outcome(lambda: x + i), outcome(lambda: i + x)]


@case
def float32_plus_int64_add(paddle):
    x, i, _ = _vectors(paddle)
    return [outcome(lambda: paddle.add(x, i)), outcome(lambda: paddle.add(i, x))]


@case
def float32_plus_bool_operator(paddle):
    x, _, b = _vectors(paddle)
    return [outcome(lambda: x + b), outcome(lambda: b + x)]


@case
def float32_plus_bool_add(paddle):
    x, _, b = _vectors(paddle)
    return [outcome(lambda: paddle.add(x, b)), outcome(lambda: paddle.add(b, x))]


@case
def float32_with_int64_other_ops(paddle):
    x, i, _ = _vectors(paddle)
    return [outcome(lambda: x * i), outcome(lambda: paddle.multiply(x, i)), outcome(lambda: x - i),
            outcome(lambda: x / i), outcome(lambda: paddle.maximum(x, i)), outcome(lambda: x ** i)]


@case
def comparisons_of_float32_with_int64_and_bool(paddle):
    x, i, b = _vectors(paddle)
    return [outcome(lambda: x == i), outcome(lambda: x > i), outcome(lambda: x == b)]


@case
def int32_plus_int64(paddle):
    i32 = paddle.to_tensor([1, 2], dtype="int32")
    i64 = paddle.to_tensor([1, 2], dtype="int64")
    return outcome(lambda: i32 + i64)


@case
def float_with_float_promotes_to_the_wider(paddle):
    x = paddle.to_tensor([1.5, 2.5], dtype="float32")
    d = paddle.to_tensor([1.0, 2.0], dtype="float64")
    h = paddle.to_tensor([1.0, 2.0], dtype="float16")
    return [x + d, d + x, x + h, paddle.add(h, x)]


@case
def zero_d_tensor_combines_like_a_scalar(paddle):
    x, i, b = _vectors(paddle)
    i32 = paddle.to_tensor([1, 2], dtype="int32")
    return {"f32 + 0d i64": x + paddle.to_tensor(1),
            "0d i64 + f32": paddle.to_tensor(1) + x,
            "i64 + 0d f32": i + paddle.to_tensor(1.0),
            "f32 + 0d f64": x + paddle.to_tensor(1.0, dtype="float64"),
            "i32 + 0d i64": i32 + paddle.to_tensor(1),
            "bool + 0d i64": b + paddle.to_tensor(1),
            "bool + 0d f32": b + paddle.to_tensor(1.0),
            "i64 + 0d bool": i + paddle.to_tensor(True),
            "f32 + 0d bool": x + paddle.to_tensor(True),
            "f32 == 0d i64": x == paddle.to_tensor(1)}


@case
def two_zero_d_tensors_promote(paddle):
    return {"0d i64 + 0d f32": paddle.to_tensor(1) + paddle.to_tensor(1.5),
            "0d i32 + 0d i64": paddle.to_tensor(1, dtype="int32") + paddle.to_tensor(1),
            "0d f32 + 0d f64": paddle.to_tensor(1.0) + paddle.to_tensor(1.0, dtype="float64")}


@case
def python_scalars(paddle):
    x, i, b = _vectors(paddle)
    return {"f32 + 1": x + 1, "i64 + 1.5": i + 1.5, "i64 + True": i + True, "bool + 1": b + 1,
            "bool + 1.5": b + 1.5, "i64 * 2": i * 2, "i64 / i64": i / i, "i64 // 2": i // 2, "i64 % 2": i % 2,
            "i64 ** 2": i ** 2, "i64 == 1.5": i == 1.5, "bool == True": b == True}  # noqa: E712


@case
def full_with_an_int_fill_is_float32(paddle):
    return {"int": paddle.full([2, 3], 10), "float": paddle.full([2], 2.5), "bool": paddle.full([2], True),
            "int64 asked": paddle.full([2], 10, dtype="int64")}


@case
def creation_defaults(paddle):
    return {"to_tensor(1)": paddle.to_tensor(1), "to_tensor(1.0)": paddle.to_tensor(1.0),
            "to_tensor([1, 2.5])": paddle.to_tensor([1, 2.5]), "arange(3)": paddle.arange(3),
            "arange(3.0)": paddle.arange(3.0), "ones": paddle.ones([2]),
            "full_like int with 2.5": paddle.full_like(paddle.to_tensor([1, 2]), 2.5)}


@case
def numel_is_a_0d_int64_tensor(paddle):
    x = paddle.ones([2, 3])
    n = x.numel()
    return {"method": n, "function": paddle.numel(x), "is tensor": paddle.is_tensor(n), "int": int(n)}


@case
def sums_of_ints_and_bools_are_int64(paddle):
    return {"int32 sum": paddle.to_tensor([1, 2], dtype="int32").sum(),
            "bool sum": paddle.to_tensor([True, False, True]).sum(),
            "int64 sum": paddle.to_tensor([1, 2]).sum()}


@case
def where_promotes_floats(paddle):
    cond = paddle.to_tensor([True, False])
    x = paddle.to_tensor([1.5, 2.5])
    return [paddle.where(cond, x, paddle.to_tensor([1.0, 2.0], dtype="float64")),
            paddle.where(cond, x, 0.0)]


@case
def dtype_names(paddle):
    return [dtype_name(paddle.float32), dtype_name(paddle.int64), dtype_name(paddle.bool)]
