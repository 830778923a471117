"""Samplers, after `paddle.io`: which sample indices a DataLoader reads, and how they are grouped into batches.

A Sampler yields indices into a map-style dataset; a BatchSampler groups them into lists:

    paddle.io.BatchSampler(dataset, shuffle=True, batch_size=4)   # -> [7, 2, 9, 0], [4, 1, ...], ...

Random samplers draw from the generator `paddle.seed` sets (read when iteration starts), so
`paddle.seed(0)` makes the order of every epoch reproducible.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ..framework import creation
from ..framework.errors import invalid_argument
from ..framework.tensor import Tensor

__all__ = ["Sampler", "SequenceSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "DistributedBatchSampler",
           "BatchSampler"]


def _positive_int(op: str, name: str, value) -> int:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
        raise invalid_argument(op, f"{name} got {value!r}, expected a positive int.")
    return int(value)


class Sampler:
    """Base class: subclasses yield indices from `__iter__` and may define `__len__`."""

    def __init__(self, data_source=None) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"'{type(self).__name__}' must implement __iter__")


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1, in order."""

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices in random order: a permutation, or `num_samples` draws with replacement.

    generator: None (the generator paddle.seed sets), a `numpy.random.Generator`, or, as in Paddle,
    an iterator that yields the indices itself.
    """

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise invalid_argument("RandomSampler", f"replacement got {replacement!r}, expected a bool.")
        if num_samples is not None and not replacement:
            raise invalid_argument("RandomSampler", "num_samples was given while replacement=False.",
                                   hint="without replacement every index comes once; pass replacement=True.")
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        _positive_int("RandomSampler", "num_samples", self.num_samples)

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        if self.generator is not None and not isinstance(self.generator, np.random.Generator):
            for _, index in zip(range(self.num_samples), self.generator):
                yield index
            return
        rng = self.generator if self.generator is not None else creation.generator()
        n = len(self.data_source)
        if self.replacement:
            yield from rng.integers(0, n, self.num_samples).tolist()
        else:
            yield from rng.permutation(n).tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order each epoch."""

    def __init__(self, indices: Sequence[int]) -> None:
        super().__init__(None)
        if len(indices) == 0:
            raise invalid_argument("SubsetRandomSampler", "indices is empty, expected at least one index.")
        self.indices = list(indices)

    def __iter__(self) -> Iterator[int]:
        for i in creation.generator().permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """`num_samples` indices drawn with probability proportional to `weights` (which need not sum to 1)."""

    def __init__(self, weights, num_samples: int, replacement: bool = True) -> None:
        super().__init__(None)
        if isinstance(weights, Tensor):
            weights = weights.numpy()
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1 or w.size == 0:
            raise invalid_argument("WeightedRandomSampler", f"weights has shape {list(w.shape)}, expected a "
                                                            "non-empty 1-D sequence.")
        if not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise invalid_argument("WeightedRandomSampler", "weights must be finite, non-negative and not all 0.")
        if not isinstance(replacement, bool):
            raise invalid_argument("WeightedRandomSampler", f"replacement got {replacement!r}, expected a bool.")
        self.num_samples = _positive_int("WeightedRandomSampler", "num_samples", num_samples)
        if not replacement and self.num_samples > np.count_nonzero(w):
            raise invalid_argument("WeightedRandomSampler", f"num_samples ({self.num_samples}) is more than the "
                                                            f"{np.count_nonzero(w)} non-zero weights, which "
                                                            "replacement=False cannot draw.")
        self.weights = w
        self.replacement = replacement

    def __iter__(self) -> Iterator[int]:
        p = self.weights / self.weights.sum()
        rng = creation.generator()
        yield from rng.choice(len(p), self.num_samples, replace=self.replacement, p=p).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups indices into lists of `batch_size`: give a dataset (with `shuffle`) or a sampler, not both.

    The last, shorter batch is kept unless `drop_last=True`.
    """

    def __init__(self, dataset=None, sampler: Sampler | None = None, shuffle: bool = False,
                 batch_size: int = 1, drop_last: bool = False) -> None:
        super().__init__(dataset)
        if (dataset is None) == (sampler is None):
            raise invalid_argument("BatchSampler", "expected exactly one of dataset and sampler, got "
                                                   f"{'both' if dataset is not None else 'neither'}.")
        if not isinstance(shuffle, bool) or not isinstance(drop_last, bool):
            raise invalid_argument("BatchSampler", f"shuffle ({shuffle!r}) and drop_last ({drop_last!r}) must be "
                                                   "bools.")
        if sampler is not None and shuffle:
            raise invalid_argument("BatchSampler", "shuffle=True with a sampler: the sampler decides the order.",
                                   hint="pass a RandomSampler instead, or the dataset with shuffle=True.")
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        self.sampler = sampler
        self.shuffle = shuffle
        self.batch_size = _positive_int("BatchSampler", "batch_size", batch_size)
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class DistributedBatchSampler(BatchSampler):
    """Batches of this rank's share of the dataset, as Paddle splits it across `num_replicas` processes.

    minipaddle runs one process (rank 0 of 1, see paddle.distributed), so by default every sample is
    this rank's; `num_replicas` and `rank` can be given to see another rank's share. As in Paddle the
    dataset is padded (from its start) to a multiple of num_replicas, each rank takes whole batches in
    turn, and with `shuffle=True` epoch e is shuffled by numpy's RandomState(e): call `set_epoch(e)`
    each epoch for a new order (the same order on every rank, as data parallelism needs).
    """

    def __init__(self, dataset, batch_size: int, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = False, drop_last: bool = False) -> None:
        api = "DistributedBatchSampler"
        if not isinstance(shuffle, bool) or not isinstance(drop_last, bool):
            raise invalid_argument(api, f"shuffle ({shuffle!r}) and drop_last ({drop_last!r}) must be bools.")
        from ..distributed import ParallelEnv
        env = ParallelEnv()
        self.dataset = dataset
        self.data_source = dataset
        self.batch_size = _positive_int(api, "batch_size", batch_size)
        self.nranks = env.nranks if num_replicas is None else _positive_int(api, "num_replicas", num_replicas)
        self.local_rank = env.local_rank if rank is None else rank
        if not isinstance(self.local_rank, int) or not 0 <= self.local_rank < self.nranks:
            raise invalid_argument(api, f"rank got {rank!r}, expected an int with 0 <= rank < num_replicas "
                                        f"({self.nranks}).")
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.epoch = 0
        self.num_samples = -(-len(dataset) // self.nranks)
        self.total_size = self.num_samples * self.nranks

    def _indices(self) -> list[int]:
        n = len(self.dataset)
        indices = list(range(n))
        padding = self.total_size - n
        indices += (indices * -(-padding // max(n, 1)))[:padding]   # pad from the start, as Paddle does
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks == 1:
            return indices
        mine, step = [], self.batch_size * self.nranks
        last = self.total_size % step               # the tail is shared out evenly, not by batches
        for start in range(self.local_rank * self.batch_size, len(indices) - last, step):
            mine.extend(indices[start:start + self.batch_size])
        tail = indices[len(indices) - last:]
        share = last // self.nranks
        mine.extend(tail[self.local_rank * share:(self.local_rank + 1) * share])
        return mine

    def __iter__(self) -> Iterator[list[int]]:
        batch = []
        for index in self._indices():
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return self.num_samples // self.batch_size
        return -(-self.num_samples // self.batch_size)

    def set_epoch(self, epoch: int) -> None:
        """Shuffle the next epoch with RandomState(epoch): the same order on every rank."""
        self.epoch = epoch
