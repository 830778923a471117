"""Datasets, after `paddle.io`: what a DataLoader reads samples from.

Two kinds, as in Paddle:
  - a map-style `Dataset` answers `dataset[i]` and `len(dataset)`; a sampler chooses the indices;
  - an `IterableDataset` is a stream (`iter(dataset)`), read in order; no sampler, no len needed.

    class Squares(paddle.io.Dataset):
        def __len__(self): return 10
        def __getitem__(self, i): return np.float32(i), np.float32(i * i)

Also here: TensorDataset, ComposeDataset, ChainDataset, Subset and random_split.
"""
from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence

import numpy as np

from ..framework import creation
from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ComposeDataset", "ChainDataset", "ConcatDataset",
           "Subset", "random_split"]


class Dataset:
    """A map-style dataset: subclasses define `__getitem__(idx)` and `__len__()`."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"'{type(self).__name__}' must implement __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"'{type(self).__name__}' must implement __len__")


class IterableDataset(Dataset):
    """A stream of samples: subclasses define `__iter__()`.

    With `num_workers > 0` every worker iterates its own copy of the dataset, so each sample
    would come once per worker; split the stream inside `__iter__` with
    `paddle.io.get_worker_info()` (its `id` and `num_workers`), as in Paddle.
    """

    def __iter__(self) -> Iterator:
        raise NotImplementedError(f"'{type(self).__name__}' must implement __iter__")

    def __getitem__(self, idx):
        raise invalid_argument("IterableDataset", "an IterableDataset has no __getitem__; iterate over it instead.")

    __len__ = None   # a stream has no len(): len() raises TypeError and list(dataset) still works


class TensorDataset(Dataset):
    """Samples are rows of tensors that share their first dimension: sample i is `(t[i] for t in tensors)`."""

    def __init__(self, tensors: Sequence[Tensor]) -> None:
        if not isinstance(tensors, (list, tuple)) or not tensors:
            raise invalid_argument("TensorDataset", f"tensors got {type(tensors).__name__}, expected a non-empty "
                                                    "list of Tensors.")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise invalid_argument("TensorDataset", f"tensors[{i}] is a {type(t).__name__}, expected a Tensor.",
                                       hint="wrap numpy arrays with paddle.to_tensor first.")
            if t.ndim == 0 or t.shape[0] != tensors[0].shape[0]:
                raise invalid_argument("TensorDataset", f"tensors[{i}] has shape {t.shape}; every tensor must have "
                                                        f"the same first dimension ({tensors[0].shape[0]}).")
        self.tensors = list(tensors)

    def __getitem__(self, index):
        # Rows as numpy views wrapped in Tensors: no autograd bookkeeping for reading data.
        return tuple(Tensor._wrap(t._data[index]) for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


def _to_fields(sample) -> list:
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Zips map-style datasets of equal length: sample i holds the fields of every dataset's sample i."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise invalid_argument("ComposeDataset", "datasets is empty, expected at least one dataset.")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise invalid_argument("ComposeDataset", f"datasets[{i}] is an IterableDataset, expected "
                                                         "map-style datasets.")
            if len(d) != len(self.datasets[0]):
                raise invalid_argument("ComposeDataset", f"datasets[{i}] has {len(d)} samples, expected "
                                                         f"{len(self.datasets[0])} like datasets[0].")

    def __len__(self) -> int:
        return len(self.datasets[0])

    def __getitem__(self, idx):
        fields = []
        for d in self.datasets:
            fields.extend(_to_fields(d[idx]))
        return tuple(fields)


class ChainDataset(IterableDataset):
    """Chains iterable datasets: all of the first's samples, then all of the second's, ..."""

    def __init__(self, datasets: Sequence[IterableDataset]) -> None:
        self.datasets = list(datasets)
        for i, d in enumerate(self.datasets):
            if not isinstance(d, IterableDataset):
                raise invalid_argument("ChainDataset", f"datasets[{i}] is a {type(d).__name__}, expected an "
                                                       "IterableDataset.")

    def __iter__(self):
        for d in self.datasets:
            yield from d


class ConcatDataset(Dataset):
    """Concatenates map-style datasets: indices run through the first, then the second, ..."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise invalid_argument("ConcatDataset", "datasets is empty, expected at least one dataset.")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, idx):
        if idx < 0:
            idx += len(self)
        if not 0 <= idx < len(self):
            raise IndexError(f"ConcatDataset: index {idx} is out of range for {len(self)} samples")
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if which == 0 else int(self.cumulative_sizes[which - 1])
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def _split_lengths(n: int, lengths: Sequence[float]) -> list[int]:
    """Absolute lengths, or fractions summing to 1 turned into lengths (the remainder dealt round-robin)."""
    if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in lengths):
        if any(x < 0 for x in lengths) or sum(lengths) != n:
            raise invalid_argument("random_split", f"lengths {list(lengths)} sum to {sum(lengths)}, expected the "
                                                   f"dataset's length {n} (and no negative length).")
        return [int(x) for x in lengths]
    if not all(isinstance(x, (int, float, np.number)) and 0 <= x <= 1 for x in lengths) \
            or not math.isclose(sum(lengths), 1.0, abs_tol=1e-6):
        raise invalid_argument("random_split", f"lengths {list(lengths)} are neither ints summing to {n} nor "
                                               "fractions in [0, 1] summing to 1.")
    sizes = [int(math.floor(n * f)) for f in lengths]
    for i in range(n - sum(sizes)):
        sizes[i % len(sizes)] += 1
    return sizes


def random_split(dataset: Dataset, lengths: Sequence[float], generator=None) -> list[Subset]:
    """Split `dataset` into non-overlapping random Subsets: `random_split(ds, [800, 200])` or `[0.8, 0.2]`.

    The permutation comes from `generator` (a `numpy.random.Generator`) or, by default, from the
    generator `paddle.seed` sets, so a split is reproducible.
    """
    sizes = _split_lengths(len(dataset), lengths)
    rng = generator if generator is not None else creation.generator()
    if not isinstance(rng, np.random.Generator):
        raise invalid_argument("random_split", f"generator got {type(generator).__name__}, expected a "
                                               "numpy.random.Generator or None.")
    order = rng.permutation(len(dataset)).tolist()
    subsets, start = [], 0
    for size in sizes:
        subsets.append(Subset(dataset, order[start:start + size]))
        start += size
    return subsets
