"""Collating: turning a list of samples into one batch, after `paddle.io.dataloader.collate`.

    default_collate_fn([(img0, 3), (img1, 7)])  ->  [Tensor [2, H, W], Tensor [2] int64]

The structure of a sample is kept: tuples/lists become lists of batched fields, dicts stay dicts
keyed the same. Leaves: numpy arrays and Tensors are stacked; Python ints become int64, Python
floats the default float dtype (float32), bools bool; numpy scalars keep their dtype; strings stay
lists of strings.

The DataLoader collates in two steps so workers can send plain numpy over a pipe:
`collate_numpy` builds the batch from numpy arrays, and `to_tensors` wraps them (no copy) in the
main process -- or, when the batch's place is the GPU (`paddle.set_device("gpu")`), copies each
field to the device once.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..framework import gpu
from ..framework.dtype import default_float
from ..framework.errors import invalid_argument
from ..framework.registry import DEVICE_ARRAY_TYPES
from ..framework.tensor import Tensor

__all__ = ["default_collate_fn", "default_convert_fn"]

_TENSOR_DTYPES = {np.dtype(n) for n in ("bool", "int8", "uint8", "int16", "int32", "int64",
                                        "float16", "float32", "float64")}


def _numbers_array(values: Sequence) -> np.ndarray:
    """numpy scalars keep their dtype; Python ints -> int64 and floats -> the default float, as Paddle."""
    array = np.array(values)
    if isinstance(values[0], np.generic):
        return array
    if array.dtype.kind in "iu":
        return array.astype(np.int64, copy=False)
    if array.dtype.kind == "f":
        return array.astype(default_float(), copy=False)
    return array


def _on_host(data):
    """A sample's storage on the host: a GPU array is copied back, host data (arrays, numpy scalars) is kept."""
    return gpu.to_host(data) if type(data) in DEVICE_ARRAY_TYPES else data


def _stack(op: str, arrays: list) -> np.ndarray:
    # np.array of a list of equal-shaped arrays stacks them, ~2x faster than np.stack for small samples
    try:
        out = np.array(arrays)
    except ValueError:
        out = None
    if out is None or out.dtype == object or out.ndim != arrays[0].ndim + 1:
        shapes = sorted({tuple(a.shape) for a in arrays})
        raise invalid_argument(op, f"samples in one batch have different shapes {shapes}; stacking needs one "
                                   "shape.", hint="resize/crop to one size in the transform, or pass a collate_fn.")
    return out


def collate_numpy(batch: Sequence):
    """The batch as numpy arrays (Tensors in the samples are read as their arrays)."""
    sample = batch[0]
    kind = type(sample)
    if kind is np.ndarray:
        return _stack("default_collate_fn", batch)
    if kind is Tensor:  # GPU samples (a TensorDataset of GPU tensors) are stacked on the host
        return _stack("default_collate_fn", [_on_host(t._data) for t in batch])
    if kind is tuple or kind is list:
        return _collate_fields(batch, len(sample))
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, (numbers.Number, np.generic)):
        return _numbers_array(batch)
    if isinstance(sample, np.ndarray):
        return _stack("default_collate_fn", batch)
    if isinstance(sample, Mapping):
        return {key: collate_numpy([d[key] for d in batch]) for key in sample}
    if isinstance(sample, Sequence):
        return _collate_fields(batch, len(sample))
    raise invalid_argument("default_collate_fn", f"cannot batch samples of type {type(sample).__name__}; expected "
                                                 "numbers, numpy arrays, Tensors, strings, or lists/tuples/dicts "
                                                 "of them.", hint="pass your own collate_fn to the DataLoader.")


def _collate_fields(batch: Sequence, n: int) -> list:
    if any(len(s) != n for s in batch):
        raise invalid_argument("default_collate_fn", f"samples in one batch have different numbers of fields "
                                                     f"({sorted({len(s) for s in batch})}), expected the same.")
    return [collate_numpy(fields) for fields in zip(*batch)]


def convert_numpy(sample):
    """One sample with no batching (DataLoader(batch_size=None)): numbers become 0-D arrays."""
    if isinstance(sample, np.ndarray):
        return sample.copy()  # the loader hands out its own storage, never a view into the dataset
    if isinstance(sample, Tensor):
        data = sample._data
        return gpu.to_host(data) if type(data) in DEVICE_ARRAY_TYPES else data.copy()
    if isinstance(sample, (numbers.Number, np.generic)) and not isinstance(sample, (str, bytes)):
        return _numbers_array([sample]).reshape(())
    if isinstance(sample, Mapping):
        return {key: convert_numpy(v) for key, v in sample.items()}
    if isinstance(sample, Sequence) and not isinstance(sample, (str, bytes)):
        return [convert_numpy(v) for v in sample]
    return sample


def to_tensors(data, on_gpu: bool = False):
    """Numpy arrays (and Tensors) in a collated structure become Tensors; tuples become lists, as Paddle.
    With `on_gpu`, each becomes a GPU tensor (one host-to-device copy per field, through a pinned host
    buffer: gpu.to_device_pinned; a GPU Tensor stays)."""
    if isinstance(data, np.ndarray):
        if data.dtype not in _TENSOR_DTYPES:
            raise invalid_argument("DataLoader", f"a batch field has numpy dtype {data.dtype}, which a Tensor cannot "
                                                 "hold.", hint="return numbers or numeric arrays from the dataset.")
        if on_gpu:
            return Tensor._wrap(gpu.to_device_pinned(data))
        return Tensor._wrap(data if data.flags.c_contiguous else np.ascontiguousarray(data))
    if isinstance(data, Tensor):
        return Tensor._wrap(gpu.to_device_pinned(data._data)) if on_gpu and type(data._data) is np.ndarray else data
    if isinstance(data, Mapping):
        return {key: to_tensors(v, on_gpu) for key, v in data.items()}
    if isinstance(data, (list, tuple)) and not hasattr(data, "_fields"):
        return [to_tensors(v, on_gpu) for v in data]
    return data


def tensors_to_numpy(data):
    """Tensors in a batch become their arrays, so a worker process can pickle the batch cheaply."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, Mapping):
        return {key: tensors_to_numpy(v) for key, v in data.items()}
    if isinstance(data, (list, tuple)) and not hasattr(data, "_fields"):
        return [tensors_to_numpy(v) for v in data]
    return data


def default_collate_fn(batch: Sequence):
    """Stack a list of samples into a batch of Tensors (see the module docstring for the rules)."""
    if not isinstance(batch, Sequence) or len(batch) == 0:
        raise invalid_argument("default_collate_fn", "batch must be a non-empty list of samples.")
    return to_tensors(collate_numpy(batch))


def default_convert_fn(sample):
    """One sample's numpy arrays and numbers as Tensors, with no batch dimension added."""
    return to_tensors(convert_numpy(sample))
