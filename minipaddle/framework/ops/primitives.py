"""Scalar primitives: elementwise math written once, as plain Python functions of scalars.

Each function here is the single definition of an elementwise op's math (Paddle's
Primitive API idea). numba compiles it into a CPU loop (kernels/cpu/elementwise.py) and a
CUDA kernel (the GPU backend) -- and you can call it on Python floats to check it by hand:

    >>> primitives.gelu(1.0)
    0.8413447460685429
"""
import math

SQRT_HALF = 0.7071067811865476
SQRT_2_OVER_PI = 0.7978845608028654


def add(x, y):
    return x + y


def subtract(x, y):
    return x - y


def multiply(x, y):
    return x * y


def divide(x, y):
    return x / y


def maximum(x, y):
    return x if x >= y or x != x else y   # a NaN on either side wins, as numpy's maximum


def minimum(x, y):
    return x if x <= y or x != x else y


def neg(x):
    return -x


def abs(x):  # noqa: A001 - the op's name
    return x if x >= 0 else -x


def exp(x):
    return math.exp(x)


def log(x):
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def log1p(x):
    return math.log1p(x) if x > -1 else (-math.inf if x == -1 else math.nan)


def sqrt(x):
    return math.sqrt(x) if x >= 0 else math.nan


def rsqrt(x):
    return 1.0 / math.sqrt(x) if x > 0 else (math.inf if x == 0 else math.nan)


def square(x):
    return x * x


def reciprocal(x):
    return 1.0 / x if x != 0 else math.copysign(math.inf, x)


def sin(x):
    return math.sin(x)


def cos(x):
    return math.cos(x)


def tanh(x):
    return math.tanh(x)


def erf(x):
    return math.erf(x)


def sign(x):
    return 1.0 if x > 0 else (-1.0 if x < 0 else 0.0 * x)


def floor(x):
    return math.floor(x)


def ceil(x):
    return math.ceil(x)


def round(x):  # noqa: A001 - Paddle rounds half away from zero
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)  # never exp of a large positive number
    return z / (1.0 + z)


def relu(x):
    return x if x > 0 or x != x else 0.0  # x != x: NaN stays NaN


def relu_grad(out, dout):
    return dout if out > 0 else 0.0  # a select, not dout * mask: an inf dout where out <= 0 gives 0


def leaky_relu(x, negative_slope):
    return x if x > 0 else x * negative_slope


def gelu(x):
    return 0.5 * x * (1.0 + math.erf(x * SQRT_HALF))


def gelu_tanh(x):
    return 0.5 * x * (1.0 + math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))


def elu(x, alpha):
    return x if x > 0 else alpha * (math.exp(x) - 1.0)


def softplus(x, beta, threshold):
    bx = beta * x
    if bx > threshold:
        return x
    # log1p(exp(bx)) without overflow for large bx
    return (max(bx, 0.0) + math.log1p(math.exp(-math.fabs(bx)))) / beta


def silu(x):
    # sigmoid written out: numba cannot call another plain-Python function
    if x >= 0:
        return x / (1.0 + math.exp(-x))
    z = math.exp(x)
    return x * z / (1.0 + z)


def relu6(x):
    if x >= 6.0:
        return 6.0
    if x > 0.0 or math.isnan(x):  # NaN passes through
        return x
    return 0.0


def clip(x, lo, hi):
    # NaN fails both tests and passes through, as in Paddle's ClipFunctor
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def hardsigmoid(x, slope, offset):
    y = slope * x + offset
    if y >= 1.0:
        return 1.0
    if y > 0.0 or math.isnan(y):
        return y
    return 0.0


def hardswish(x):
    if x >= 3.0:
        return x
    if x > -3.0 or math.isnan(x):
        return x * (x + 3.0) / 6.0
    return 0.0


def mish(x):
    sp = x if x > 20.0 else math.log1p(math.exp(x))  # softplus with Paddle's threshold of 20
    return x * math.tanh(sp)


def tanhshrink(x):
    return x - math.tanh(x)


def softsign(x):
    return x / (1.0 + math.fabs(x))
