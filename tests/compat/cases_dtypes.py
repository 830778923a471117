"""Golden cases: complex64 / complex128 and bfloat16 -- creation, math, promotion, comparisons, gradients.

Complex values are returned as their real and imaginary parts (the golden files hold plain JSON);
bfloat16 values as float32 (Paddle's `.numpy()` of a bfloat16 tensor gives its raw bits as uint16,
minipaddle's an `ml_dtypes.bfloat16` array: `_b` reads both the same way).

Paddle reports a missing kernel as RuntimeError, minipaddle as Unimplemented (a NotImplementedError,
which is a RuntimeError): `_refused` names the error by the builtin classes a user would catch.
"""
import numpy as np

from .harness import case, dtype_name, outcome


def _c(t):
    """A complex tensor as dtype, real part and imaginary part."""
    arr = np.asarray(t.numpy())
    return {"dtype": dtype_name(t.dtype), "real": np.real(arr).copy(), "imag": np.imag(arr).copy()}


def _b(t):
    """A bfloat16 (or any real) tensor as dtype and float32 values."""
    return {"dtype": dtype_name(t.dtype), "values": t.astype("float32").numpy()}


def _refused(fn):
    """What fn() gives; an error as the first of TypeError, ValueError, RuntimeError it is."""
    try:
        return fn()
    except (TypeError, ValueError, RuntimeError) as e:
        kind = next(k for k in (TypeError, ValueError, RuntimeError) if isinstance(e, k))
        return {"raises": kind.__name__}


def _z(paddle):
    return paddle.to_tensor([1 + 2j, 3 - 4j])


# ---- complex: creation ---------------------------------------------------------------
@case
def complex_to_tensor_dtypes(paddle):
    return {"python list": _c(_z(paddle)),
            "python scalar": _c(paddle.to_tensor(2j)),
            "mixed float and complex": _c(paddle.to_tensor([1.5, 2j])),
            "numpy complex128": _c(paddle.to_tensor(np.array([1 + 2j]))),
            "numpy complex64": _c(paddle.to_tensor(np.array([1j], dtype=np.complex64))),
            "ints as complex64": _c(paddle.to_tensor([1, 2], dtype="complex64")),
            "dtype objects": [dtype_name(paddle.complex64), dtype_name(paddle.complex128)]}


@case
def complex_from_real_and_imag(paddle):
    x32 = paddle.to_tensor([1.0, 2.0])
    y32 = paddle.to_tensor([3.0, 4.0])
    return {"float32": _c(paddle.complex(x32, y32)),
            "float64": _c(paddle.complex(x32.astype("float64"), y32.astype("float64"))),
            "mixed float32 and float64": _refused(lambda: paddle.complex(x32, y32.astype("float64"))),
            "int64": _refused(lambda: paddle.complex(paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4])))}


@case
def complex_zeros_ones_full(paddle):
    return {"zeros": _c(paddle.zeros([2], dtype="complex64")),
            "ones": _c(paddle.ones([2], dtype="complex128")),
            "full complex value": _c(paddle.full([2], 1 + 2j, dtype="complex64")),
            "full real value": _c(paddle.full([2], 3, dtype="complex64")),
            "full complex value, no dtype": _c(paddle.full([2], 1 + 2j))}


@case
def complex_astype(paddle):
    z = _z(paddle)
    f = paddle.to_tensor([1.0, 2.0])
    return {"float32 -> complex64": _c(f.astype("complex64")),
            "complex64 -> float32 keeps the real part": z.astype("float32"),
            "complex64 -> complex128": _c(z.astype(paddle.complex128)),
            "complex64 -> int64": z.astype("int64")}


# ---- complex: math -------------------------------------------------------------------
@case
def complex_elementwise_math(paddle):
    z = _z(paddle)
    w = paddle.to_tensor([0.5 - 1j, 2 + 0.25j])
    return {"add": _c(z + w), "subtract": _c(z - w), "multiply": _c(z * w), "divide": _c(z / w),
            "neg": _c(-z), "exp": _c(paddle.exp(z)), "log": _c(paddle.log(z)), "sqrt": _c(paddle.sqrt(z)),
            "pow 2": _c(paddle.pow(z, 2)), "pow 0.5": _c(paddle.pow(z, 0.5)), "** 2.5": _c(z ** 2.5),
            "square": _c(paddle.square(z)), "reciprocal": _c(paddle.reciprocal(z)), "sign": _c(paddle.sign(z)),
            "sin": _c(paddle.sin(z)), "tanh": _c(paddle.tanh(z)), "log1p": _c(paddle.log1p(z))}


@case
def complex_abs_is_real(paddle):
    z = _z(paddle)
    return {"abs": paddle.abs(z), "abs complex128": paddle.abs(z.astype("complex128"))}


@case
def complex_sum_mean_matmul(paddle):
    z = _z(paddle)
    m = paddle.to_tensor([[1 + 1j, 2], [0, 1 - 1j]])
    return {"sum": _c(z.sum()), "mean": _c(z.mean()), "matmul": _c(paddle.matmul(m, m)),
            "matmul float32 @ complex64": _c(paddle.matmul(paddle.ones([2, 2]), m)),
            "cumsum": _c(paddle.cumsum(z)), "concat": _c(paddle.concat([z, z])), "slice": _c(z[1:]),
            "reshape": _c(z.reshape([2, 1]))}


@case
def complex_real_imag_conj_angle(paddle):
    z = _z(paddle)
    return {"real": paddle.real(z), "imag": paddle.imag(z), "conj": _c(paddle.conj(z)), "angle": paddle.angle(z),
            "methods": [z.real(), z.imag(), _c(z.conj())], "is_complex": [z.is_complex(), paddle.is_complex(z),
                                                                         paddle.is_complex(paddle.ones([1]))]}


@case
def complex_type_promotion(paddle):
    z = _z(paddle)
    f32 = paddle.to_tensor([1.0, 2.0])
    return {"float32 + complex64": _c(f32 + z), "complex64 + float32": _c(z + f32),
            "paddle.add(float32, complex64)": _c(paddle.add(f32, z)),
            "float64 + complex64": _c(f32.astype("float64") + z),
            "int64 + complex64": _c(paddle.to_tensor([1, 2]) + z),
            "int32 + complex64": _c(paddle.to_tensor([1, 2], dtype="int32") + z),
            "bool + complex64": _c(paddle.to_tensor([True, False]) + z),
            "float16 + complex64": _c(f32.astype("float16") + z),
            "complex64 + complex128": _c(z + z.astype("complex128")),
            "0-D complex64 + float32": _c(paddle.to_tensor(1 + 1j) + f32),
            "0-D float64 + complex64": _c(paddle.to_tensor(1.0, dtype="float64") + z),
            "complex128 + float32": _c(z.astype("complex128") + f32),
            "int64 * complex64": _c(paddle.to_tensor([1, 2]) * z),
            "float32 - complex64": _c(f32 - z), "float32 / complex64": _c(f32 / z)}


@case
def complex_with_python_numbers(paddle):
    z = _z(paddle)
    f32 = paddle.to_tensor([1.5, 2.5])
    return {"complex64 * 2.5": _c(z * 2.5), "complex64 + 1j": _c(z + 1j), "float32 + 1j": _c(f32 + 1j),
            "float64 + 1j": _c(f32.astype("float64") + 1j), "int64 + 1j": _c(paddle.to_tensor([1, 2]) + 1j),
            "float32 * (1+2j)": _c(f32 * (1 + 2j)), "float16 + 1j": _c(f32.astype("float16") + 1j)}


@case
def complex_comparisons(paddle):
    """equal / not_equal compare both parts; the orderings compare the real parts, then the imaginary ones
    (numpy's lexicographic order, which Paddle's CPU kernels follow)."""
    a = paddle.to_tensor([1 + 2j, 1 + 2j, 1 + 2j, 2 - 5j])
    b = paddle.to_tensor([1 + 3j, 1 + 1j, 0 + 9j, 1 + 0j])
    return {"equal": a == b, "equal self": paddle.equal(a, a), "not_equal": paddle.not_equal(a, b),
            "less_than": paddle.less_than(a, b), "less_equal": a <= b, "greater_than": a > b,
            "greater_equal": paddle.greater_equal(a, b)}


@case
def complex_refused_ops(paddle):
    """Ops that have no complex kernel in Paddle have none here: maxima, rounding, sorting, activations."""
    z = _z(paddle)
    return {name: _refused(fn) for name, fn in (
        ("maximum", lambda: paddle.maximum(z, z)), ("max", lambda: paddle.max(z)),
        ("relu", lambda: paddle.nn.functional.relu(z)),
        ("floor", lambda: paddle.floor(z)), ("rsqrt", lambda: paddle.rsqrt(z)), ("sort", lambda: paddle.sort(z)),
        ("argmax", lambda: paddle.argmax(z)), ("floor_divide", lambda: z // z))}


@case
def complex_repr(paddle):
    """The values as Paddle prints them (the first line, with the dtype, is left out)."""
    z = _z(paddle)
    m = paddle.to_tensor([[1.0 + 1j, 2.0], [3, 4]], dtype="complex128")
    w = paddle.to_tensor([4 + 2j, -8 + 6j])
    return [str(t).split("\n", 1)[1] for t in (z, m, w, paddle.to_tensor(1.0 + 1j))]


# ---- complex: gradients ----------------------------------------------------------------
def _leaf(paddle, values):
    return paddle.to_tensor(values, stop_gradient=False)


@case
def complex_grad_convention(paddle):
    """For a real loss L of z = a + ib, z.grad is dL/da + i dL/db (PyTorch's convention too)."""
    out = {}
    for name, loss in (("abs(z).sum()", lambda z: paddle.abs(z).sum()),
                       ("(z * z.conj()).real().sum()", lambda z: (z * z.conj()).real().sum()),
                       ("(z * z).real().sum()", lambda z: (z * z).real().sum()),
                       ("(z * z).imag().sum()", lambda z: (z * z).imag().sum()),
                       ("angle(z).sum()", lambda z: paddle.angle(z).sum())):
        z = _leaf(paddle, [1 + 2j, 3 - 4j])
        loss(z).backward()
        out[name] = _c(z.grad)
    return out


@case
def complex_grads_through_math(paddle):
    out = {}
    w = paddle.to_tensor([0.5 - 1j, 2 + 0.25j])
    for name, f in (("exp", paddle.exp), ("log", paddle.log), ("sqrt", paddle.sqrt),
                    ("divide", lambda z: z / w), ("multiply", lambda z: z * w), ("pow 3", lambda z: z ** 3),
                    ("pow 2.5", lambda z: paddle.pow(z, 2.5)), ("mean", lambda z: z.mean() * w),
                    ("conj", lambda z: z.conj() * w), ("sin", paddle.sin), ("square", paddle.square)):
        z = _leaf(paddle, [1 + 2j, 3 - 4j])
        paddle.abs(f(z)).sum().backward()
        out[name] = _c(z.grad)
    return out


@case
def complex_matmul_grad(paddle):
    x = _leaf(paddle, [[1 + 1j, 2 - 1j], [0.5j, 1 - 1j]])
    y = _leaf(paddle, [[2 - 1j], [1 + 3j]])
    paddle.abs(paddle.matmul(x, y)).sum().backward()
    return {"x.grad": _c(x.grad), "y.grad": _c(y.grad)}


@case
def real_inputs_get_real_grads_through_complex(paddle):
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = paddle.to_tensor([3.0, -1.0], stop_gradient=False)
    f = paddle.to_tensor([0.5, 1.5], stop_gradient=False)
    z = paddle.complex(a, b)
    paddle.abs(z * z + f).sum().backward()
    return {"a.grad": a.grad, "b.grad": b.grad, "f.grad": f.grad}


# ---- bfloat16 ----------------------------------------------------------------------------
def _bf(paddle):
    return paddle.to_tensor([1.5, 2.25, 3.0], dtype="bfloat16")


@case
def bfloat16_creation_and_astype(paddle):
    f = paddle.to_tensor([1.0, 2.0, 3.3])
    return {"dtype object": dtype_name(paddle.bfloat16), "to_tensor": _b(_bf(paddle)),
            "astype rounds to 8 bits of mantissa": _b(f.astype("bfloat16")),
            "and back to float32": f.astype("bfloat16").astype("float32"),
            "zeros": _b(paddle.zeros([2], dtype="bfloat16")), "full 1.1": _b(paddle.full([2], 1.1, dtype="bfloat16")),
            "0-D": _b(paddle.to_tensor(1.0, dtype="bfloat16")), "item": float(_bf(paddle)[0].item())}


@case
def bfloat16_math(paddle):
    """The ops Paddle's CPU build has bfloat16 kernels for (minipaddle computes them in float32, rounded)."""
    x = _bf(paddle)
    return {"multiply": _b(x * x), "divide": _b(x / 3), "log": _b(paddle.log(x)), "neg": _b(-x),
            "sum": _b(x.sum()), "plus a Python float": _b(x + 1.7), "floor": _b(paddle.floor(x)),
            "equal": x == x, "less_than": x < x * 2, "sort": _b(paddle.sort(-x))}


@case(differs="Paddle's CPU build has no bfloat16 kernel for add, exp, sqrt, mean or matmul (its GPU build has); "
              "minipaddle computes them in float32 and rounds the result to bfloat16")
def bfloat16_ops_paddle_cpu_lacks(paddle):
    x = _bf(paddle)
    return {"add": _refused(lambda: _b(x + x)), "exp": _refused(lambda: _b(paddle.exp(x))),
            "sqrt": _refused(lambda: _b(paddle.sqrt(x))), "mean": _refused(lambda: _b(x.mean())),
            "matmul": _refused(lambda: _b(paddle.matmul(x.reshape([1, 3]), x.reshape([3, 1]))))}


@case(differs="Paddle's .numpy() of a bfloat16 tensor gives its raw bits as uint16 (16320 for 1.5); minipaddle "
              "gives an ml_dtypes.bfloat16 array holding the values")
def bfloat16_numpy(paddle):
    x = _bf(paddle)
    return {"dtype": str(x.numpy().dtype), "values": x.numpy().tolist()}


@case
def bfloat16_type_promotion(paddle):
    x = _bf(paddle)
    f = paddle.to_tensor([1.0, 2.0, 3.3])
    return {"bfloat16 + float32": _b(x + f), "bfloat16 + float16": _b(x + f.astype("float16")),
            "bfloat16 + float64": _b(x + f.astype("float64")), "bfloat16 + complex64": _c(x + f.astype("complex64")),
            "int64 + bfloat16": outcome(lambda: paddle.to_tensor([1, 2, 3]) + x)}


@case
def bfloat16_refused_ops(paddle):
    x = _bf(paddle)
    return {"prod": _refused(lambda: paddle.prod(x)), "cumsum": _refused(lambda: paddle.cumsum(x)),
            "max": _refused(lambda: paddle.max(x)), "var": _refused(lambda: paddle.var(x)),
            "topk": _refused(lambda: paddle.topk(x, 1))}


@case
def bfloat16_grads_are_bfloat16(paddle):
    x = paddle.to_tensor([1.5, 2.25, 3.0], dtype="bfloat16", stop_gradient=False)
    (x * x).sum().backward()
    y = paddle.to_tensor([1.5, 2.25, 3.0], dtype="bfloat16", stop_gradient=False)
    (y * y * y).sum().backward()
    return {"d sum(x*x)": _b(x.grad), "d sum(y*y*y)": _b(y.grad)}


@case
def dtype_predicates(paddle):
    tensors = {"bfloat16": paddle.to_tensor([1.0], dtype="bfloat16"), "complex64": paddle.to_tensor([1j]),
               "float32": paddle.to_tensor([1.0]), "int64": paddle.to_tensor([1]), "bool": paddle.to_tensor([True])}
    return {name: [paddle.is_floating_point(t), paddle.is_complex(t), t.is_floating_point(), t.is_complex(),
                   t.is_integer(), paddle.tensor.attribute.is_integer(t)] for name, t in tensors.items()}


@case
def layer_parameters_follow_the_default_dtype(paddle):
    """Parameters a layer creates without a dtype take paddle.get_default_dtype(), even when the
    Layer itself was made with dtype='float32'."""
    class Own(paddle.nn.Layer):
        def __init__(self):
            super().__init__(dtype="float32")
            self.w = self.create_parameter([3])
    paddle.set_default_dtype("float64")
    try:
        layers = {"Conv2D": paddle.nn.Conv2D(1, 2, 3), "Conv2DTranspose": paddle.nn.Conv2DTranspose(1, 2, 3),
                  "Linear": paddle.nn.Linear(2, 3), "BatchNorm2D": paddle.nn.BatchNorm2D(3),
                  "LayerNorm": paddle.nn.LayerNorm(3), "Embedding": paddle.nn.Embedding(3, 2),
                  "LSTM": paddle.nn.LSTM(2, 3), "own Layer(dtype='float32')": Own()}
        return {name: sorted({str(p.dtype) for p in layer.parameters()}) for name, layer in layers.items()}
    finally:
        paddle.set_default_dtype("float32")
