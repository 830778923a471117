"""Ops that make values from nothing: fill_constant, assign_value, uniform_random, gaussian_random,
truncated_gaussian_random.

They fill parameters in the startup program and constants in the main program. They have no
inputs (so no kernel key to pick a registry kernel by); the Executor runs them through the
`STATIC_OPS` table (static_ops.py), as it runs control flow. `initializer_op` turns an `nn.initializer` object
into one of these ops, as Paddle's initializers append ops to the startup program.

They always draw on the host; a GPU Executor copies what they made to the device (executor.py's
`_to_device_after`), so a seed gives the same parameters on either device.
"""
from __future__ import annotations

import math

import numpy as np

from ..creation import generator
from ..errors import invalid_argument
from .static_ops import CONSTANT_OPS, STATIC_OPS, static_op  # noqa: F401  (registered here; read elsewhere)

def _shape(op, env) -> tuple:
    """The attr shape; -1 dims come from the `like` input when the op has one, or the whole shape from a
    `ShapeTensor` input, or the -1 dims from a `ShapeTensorList` (one 1-element Variable per -1 dim)."""
    shape = tuple(op.attrs["shape"])
    if op.inputs.get("ShapeTensor"):
        return _dims(op, np.asarray(env[op.inputs["ShapeTensor"][0]]).reshape(-1).tolist())
    if op.inputs.get("ShapeTensorList"):
        given = iter(op.inputs["ShapeTensorList"])
        return _dims(op, [int(np.asarray(env[next(given)]).reshape(-1)[0]) if d == -1 else d for d in shape])
    if -1 in shape:
        like = op.inputs.get("like")
        if not like:
            raise invalid_argument(op.type, f"shape {list(shape)} has an unknown (-1) dim and no 'like' input.")
        ref = env[like[0]].shape
        shape = tuple(r if d == -1 else d for d, r in zip(shape, ref))
    return shape


def _dims(op, dims: list) -> tuple:
    if any(int(d) < 0 for d in dims):
        raise invalid_argument(op.type, f"the shape computed at run time is {dims}, expected non-negative dims.")
    return tuple(int(d) for d in dims)


@static_op("fill_any_like", constant=True)
def run_fill_any_like(executor, op, env) -> None:
    """Paddle's fill_any_like: `value` in the shape of X (known at run time), dtype `dtype`."""
    x = env[op.inputs["X"][0]]
    env[op.outputs["out"][0]] = np.full(x.shape, op.attrs["value"], np.dtype(op.attrs["dtype"]))


@static_op("shape", constant=True)
def run_shape(executor, op, env) -> None:
    """Paddle's shape op: the run-time shape of Input as an int32 vector."""
    env[op.outputs["out"][0]] = np.array(env[op.inputs["Input"][0]].shape, np.int32)


def _rng(op):
    """The op's own `seed` attr; else the program's `random_seed` (mixed with the op's position, so two
    parameters of one shape differ); else the generator `paddle.seed` sets."""
    seed = op.attrs.get("seed", 0)
    if seed:
        return np.random.default_rng(seed)
    program_seed = op.block.program.random_seed
    if program_seed:
        return np.random.default_rng([program_seed, op.block.idx, op.block.ops.index(op)])
    return generator()


@static_op("fill_constant", constant=True)
def run_fill_constant(executor, op, env) -> None:
    env[op.outputs["out"][0]] = np.full(_shape(op, env), op.attrs["value"], np.dtype(op.attrs["dtype"]))


@static_op("assign_value", constant=True)
def run_assign_value(executor, op, env) -> None:
    values = np.asarray(op.attrs["values"], dtype=np.dtype(op.attrs["dtype"]))
    env[op.outputs["out"][0]] = values.reshape(op.attrs["shape"]).copy()


@static_op("uniform_random", constant=True)
def run_uniform_random(executor, op, env) -> None:
    a = op.attrs
    values = _rng(op).uniform(a["min"], a["max"], size=_shape(op, env))
    env[op.outputs["out"][0]] = values.astype(np.dtype(a["dtype"]))


@static_op("gaussian_random", constant=True)
def run_gaussian_random(executor, op, env) -> None:
    a = op.attrs
    values = _rng(op).normal(a["mean"], a["std"], size=_shape(op, env))
    env[op.outputs["out"][0]] = values.astype(np.dtype(a["dtype"]))


@static_op("truncated_gaussian_random", constant=True)
def run_truncated_gaussian_random(executor, op, env) -> None:
    a = op.attrs
    rng = _rng(op)
    lo, hi = a["mean"] + a["a"] * a["std"], a["mean"] + a["b"] * a["std"]
    values = rng.normal(a["mean"], a["std"], size=_shape(op, env))
    bad = (values < lo) | (values > hi)
    while bad.any():  # redraw the few outside [lo, hi], as nn.initializer.TruncatedNormal does
        values[bad] = rng.normal(a["mean"], a["std"], size=int(bad.sum()))
        bad = (values < lo) | (values > hi)
    env[op.outputs["out"][0]] = values.astype(np.dtype(a["dtype"]))


def initializer_op(init, shape: tuple, dtype: np.dtype) -> tuple[str, dict]:
    """(op type, attrs) of the startup op that does what initializer `init` does to a new parameter.

    Constant -> fill_constant; Uniform, XavierUniform, KaimingUniform -> uniform_random; Normal,
    XavierNormal, KaimingNormal -> gaussian_random; TruncatedNormal -> truncated_gaussian_random;
    anything else (Assign, a user's own) is drawn once now and stored by assign_value.
    """
    from .. import initializer as I
    base = {"shape": tuple(shape), "dtype": np.dtype(dtype), "seed": 0}
    fan_in, fan_out = I._fans(tuple(shape))
    kind = type(init)
    if kind is I.Constant:
        return "fill_constant", {"shape": tuple(shape), "dtype": np.dtype(dtype), "value": float(init.value)}
    if kind is I.Uniform:
        return "uniform_random", base | {"min": float(init.low), "max": float(init.high)}
    if kind is I.Normal:
        return "gaussian_random", base | {"mean": float(init.mean), "std": float(init.std)}
    if kind is I.TruncatedNormal:
        return "truncated_gaussian_random", base | {"mean": float(init.mean), "std": float(init.std),
                                                    "a": float(init.a), "b": float(init.b)}
    if kind is I.XavierUniform:
        limit = init.gain * math.sqrt(6.0 / ((init.fan_in or fan_in) + (init.fan_out or fan_out)))
        return "uniform_random", base | {"min": -limit, "max": limit}
    if kind is I.XavierNormal:
        std = init.gain * math.sqrt(2.0 / ((init.fan_in or fan_in) + (init.fan_out or fan_out)))
        return "gaussian_random", base | {"mean": 0.0, "std": std}
    if kind in (I.KaimingUniform, I.KaimingNormal):
        gain = I.calculate_gain(init.nonlinearity, init.negative_slope)
        fi = init.fan_in or fan_in
        if kind is I.KaimingUniform:
            limit = gain * math.sqrt(3.0 / fi)
            return "uniform_random", base | {"min": -limit, "max": limit}
        return "gaussian_random", base | {"mean": 0.0, "std": gain / math.sqrt(fi)}
    from ..parameter import Parameter
    holder = Parameter(np.zeros(shape, dtype), name="initializer_scratch")
    init(holder)
    return "assign_value", {"shape": tuple(shape), "dtype": np.dtype(dtype), "values": holder._data}
