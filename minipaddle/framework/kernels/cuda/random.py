"""Random numbers on the GPU: Philox4x32-10, a counter-based generator (kernels/philox.py).

A counter-based generator is a pure function: `philox(counter, key)` scrambles a 128-bit counter
with a 64-bit key through ten rounds of multiply-and-xor into four random 32-bit words. Element
group g of a draw uses counter g, so the numbers depend only on (key, element index) -- never on
how many blocks or threads the launch had, and no generator state lives on the GPU.

Each draw takes a fresh 64-bit key from the generator `paddle.seed` sets (creation.generator()).
The CPU's dropout family draws with the same functions and the same key (kernels/cpu/philox_draws.py),
so under one seed a dropout mask is the same on either device.

    uniform(shape, dtype, low, high)        normal(shape, dtype, mean, std)     (Box-Muller)
    dropout, alpha_dropout, rrelu           the registry's random ops, the CPU kernels' signatures

"""
from __future__ import annotations

import math

import numpy as np
from numba import cuda

from ..cpu import philox_draws
from .elementwise import multiply
from .launch import THREADS, blocks_for, device_function, launch, specialize

from .. import philox
from ..philox import LOW32, SHIFT32

# the generator's functions, compiled as device functions (kernels/philox.py: one definition, every device)
philox4x32 = cuda.jit(device=True)(philox.philox4x32)
unit24 = cuda.jit(device=True)(philox.unit24)
unit53 = cuda.jit(device=True)(philox.unit53)
box_muller = cuda.jit(device=True)(philox.box_muller)


# ---- fill kernels: thread t handles group t (4 elements, or 2 in float64), grid-stride -----------
@cuda.jit(cache=True)
def uniform_fill(out, low, span, key0, key1):
    n = out.size
    per_group = 2 if out.itemsize == 8 else 4  # float64: 53-bit uniforms, two words each
    for group in range(cuda.grid(1), (n + per_group - 1) // per_group, cuda.gridsize(1)):
        w0, w1, w2, w3 = philox4x32(np.uint64(group) & LOW32, np.uint64(group) >> SHIFT32, np.uint64(0),
                                    np.uint64(0), key0, key1)
        base = group * per_group
        if per_group == 2:
            out[base] = low + span * unit53(w0, w1)
            if base + 1 < n:
                out[base + 1] = low + span * unit53(w2, w3)
        else:
            out[base] = low + span * unit24(w0)
            if base + 1 < n:
                out[base + 1] = low + span * unit24(w1)
            if base + 2 < n:
                out[base + 2] = low + span * unit24(w2)
            if base + 3 < n:
                out[base + 3] = low + span * unit24(w3)


@cuda.jit(cache=True)
def normal_fill(out, mean, std, key0, key1):
    n = out.size
    per_group = 2 if out.itemsize == 8 else 4  # float64: 53-bit uniforms, two words each
    for group in range(cuda.grid(1), (n + per_group - 1) // per_group, cuda.gridsize(1)):
        w0, w1, w2, w3 = philox4x32(np.uint64(group) & LOW32, np.uint64(group) >> SHIFT32, np.uint64(0),
                                    np.uint64(0), key0, key1)
        base = group * per_group
        if per_group == 2:
            z0, z1 = box_muller(unit53(w0, w1), unit53(w2, w3))
            out[base] = mean + std * z0
            if base + 1 < n:
                out[base + 1] = mean + std * z1
        else:
            z0, z1 = box_muller(unit24(w0), unit24(w1))
            z2, z3 = box_muller(unit24(w2), unit24(w3))
            out[base] = mean + std * z0
            if base + 1 < n:
                out[base + 1] = mean + std * z1
            if base + 2 < n:
                out[base + 2] = mean + std * z2
            if base + 3 < n:
                out[base + 3] = mean + std * z3


def _with_uniforms(x, out, aux, s0, s1, s2, s3, key0, key1):
    """out[i], aux[i] = element(u_i, x[i], s0..s3) for a uniform u_i per element (4 per Philox call)."""
    n = out.size
    for group in range(cuda.grid(1), (n + 3) // 4, cuda.gridsize(1)):
        w0, w1, w2, w3 = philox4x32(np.uint64(group) & LOW32, np.uint64(group) >> SHIFT32, np.uint64(0),
                                    np.uint64(0), key0, key1)
        base = group * 4
        out[base], aux[base] = element(unit24(w0), x[base], s0, s1, s2, s3)  # noqa: F821 - bound per op
        if base + 1 < n:
            out[base + 1], aux[base + 1] = element(unit24(w1), x[base + 1], s0, s1, s2, s3)  # noqa: F821
        if base + 2 < n:
            out[base + 2], aux[base + 2] = element(unit24(w2), x[base + 2], s0, s1, s2, s3)  # noqa: F821
        if base + 3 < n:
            out[base + 3], aux[base + 3] = element(unit24(w3), x[base + 3], s0, s1, s2, s3)  # noqa: F821


# ---- what one element of each random op does with its uniform u ---------------------------------
def dropout_element(u, x, p, scale, unused_a, unused_b):
    """Kept (u >= p, as Paddle's kernel) elements are scaled; the mask is 0 or scale."""
    mask = scale if u >= p else 0.0
    return x * mask, mask


def alpha_dropout_element(u, x, p, a, fill_kept, fill_dropped):
    if u >= p:
        return x * a + fill_kept, a
    return fill_dropped, 0.0


def rrelu_element(u, x, lower, upper, unused_a, unused_b):
    noise = 1.0 if x >= 0 else lower + (upper - lower) * u
    return x * noise, noise


_KERNELS: dict = {}


def _kernel(element):
    kernel = _KERNELS.get(element.__name__)
    if kernel is None:
        names = {"element": device_function(element)}
        kernel = _KERNELS[element.__name__] = specialize(_with_uniforms, element.__name__.replace("_element", "_draw"),
                                                         names)
    return kernel


new_key = philox_draws.new_key


def _draw(element, x, s0=0.0, s1=0.0, s2=0.0, s3=0.0, key=None, blocks=None):
    out = cuda.device_array(x.shape, x.dtype)
    aux = cuda.device_array(x.shape, x.dtype)
    n = x.size
    if n:
        key0, key1 = key or new_key()
        t = np.float32 if x.dtype == np.float16 else np.dtype(x.dtype).type
        kernel = _kernel(element)
        launch(kernel, blocks or blocks_for(math.ceil(n / 4)), THREADS, x.reshape(n), out.reshape(n), aux.reshape(n),
               t(s0), t(s1), t(s2), t(s3), key0, key1)
    return out, aux


# ---- public: fills, and the registry's random ops ---------------------------------------------------
def uniform(shape, dtype, low=0.0, high=1.0, key=None, blocks=None):
    """A new device array of uniform numbers in [low, high). `key`: a Philox key (else a fresh one)."""
    out = cuda.device_array(tuple(shape), np.dtype(dtype))
    n = out.size
    if n:
        key0, key1 = key or new_key()
        groups = math.ceil(n / (2 if out.dtype.itemsize == 8 else 4))
        launch(uniform_fill, blocks or blocks_for(groups), THREADS, out.reshape(n), float(low),
               float(high) - float(low), key0, key1)
    return out


def normal(shape, dtype, mean=0.0, std=1.0, key=None, blocks=None):
    """A new device array of normal numbers N(mean, std^2) (Box-Muller)."""
    out = cuda.device_array(tuple(shape), np.dtype(dtype))
    n = out.size
    if n:
        key0, key1 = key or new_key()
        groups = math.ceil(n / (2 if out.dtype.itemsize == 8 else 4))
        launch(normal_fill, blocks or blocks_for(groups), THREADS, out.reshape(n), float(mean), float(std), key0, key1)
    return out


def dropout(x, p=0.5, axis=None, mode="upscale_in_train"):
    """(out, mask): the mask is 0 where dropped, 1 / (1 - p) (upscale_in_train) or 1 where kept."""
    scale = 1.0 / (1.0 - p) if mode == "upscale_in_train" and p < 1 else 1.0
    if axis is None:
        return _draw(dropout_element, x, p, scale)
    mask_shape = tuple(n if i in axis else 1 for i, n in enumerate(x.shape))
    # draw the mask alone (its first output, "x * mask" of an uninitialized array, is not used) ...
    _, mask = _draw(dropout_element, cuda.device_array(mask_shape, x.dtype), p, scale)
    return multiply(x, mask), mask  # ... and broadcast it over the other axes


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def alpha_dropout(x, p=0.5):
    """Dropped elements become SELU's saturation value; an affine map keeps mean 0 and variance 1."""
    alpha_p = -SELU_ALPHA * SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    return _draw(alpha_dropout_element, x, p, a, b, a * alpha_p + b)


def rrelu(x, lower=0.125, upper=1.0 / 3.0, training=True):
    """(out, noise): slopes ~ U(lower, upper) for x < 0 while training, their mean otherwise."""
    if training:
        return _draw(rrelu_element, x, lower, upper)
    middle = (lower + upper) / 2
    return _draw(rrelu_element, x, middle, middle)
