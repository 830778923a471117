"""paddle.io.DataLoader: batches from a dataset, loaded in the main process or by background workers.

    loader = paddle.io.DataLoader(dataset, batch_size=64, shuffle=True, num_workers=2)
    for images, labels in loader:      # lists of Tensors, as Paddle (return_list=True)
        ...

With `num_workers=0` each batch is loaded when asked for, in the main process (the simplest to
debug: an error is an ordinary traceback). With `num_workers > 0`, batch i goes to worker
i % num_workers, up to `prefetch_factor * num_workers` batches are in flight, and the main
process hands them out strictly in the order the batch sampler made them (reproducible given
paddle.seed: the sampler runs in the main process, and each worker's seed is drawn from paddle's
generator).

Threads or processes? `worker_mode` (an addition to Paddle's signature) chooses; the default is
"process". Measured on this project's 2-core machine with `tests/io/bench_workers.py`: 10 000
28x28 uint8 images, batch 64, shuffle; wall seconds per epoch, best of 5 interleaved rounds, and
CPU seconds used (main process + worker processes):

    workload                                       workers=0        2 threads         2 processes
    (a) numpy: pad+crop, resize 32, flip,          0.59 (0.59+0)    0.95 (1.24+0)     0.38 (0.06+0.66)
        ToTensor, Normalize (~60 us/sample)
    (b) pure-Python per-pixel loop (~105 us)       1.05 (1.05+0)    1.09 (1.08+0)     0.59 (0.03+1.11)

The machine is shared, so single runs vary by up to 2x; over a dozen runs the pattern held:
processes won whenever a core was free; threads gained nothing on a quiet machine (under heavy
outside load they sometimes came out ahead by getting more scheduler time, not by parallel work:
their CPU seconds equal workers=0's). Why: numpy on a 28x28
image spends its time in the interpreter, not in GIL-free C loops, so threads take turns on the
GIL, and in (a) they even burn twice the CPU fighting over it. Processes run truly in parallel
and leave the main process almost idle (0.03-0.06 s of an epoch) for the training step; they pay
~5-10 ms to fork the workers each epoch and ~0.2 ms to send a 200 KB batch through a pipe, small
next to the work. So: processes by default; `worker_mode="thread"` remains for datasets that wait
on I/O or cannot be forked. Thread workers share paddle's global generator, so only draws made
through the transforms' per-worker generator (`paddle.io.worker.sample_rng`) are reproducible there.
"""
from __future__ import annotations

import itertools
import time
import weakref

from ..framework import creation, instrument
from ..framework.errors import invalid_argument, invalid_type, precondition_not_met
from ..framework.place import Place, convert_place, current_place
from .collate import to_tensors
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequenceSampler
from .worker import IterationEnd, IterableFetcher, MapFetcher, WorkerFailure, make_pool

__all__ = ["DataLoader"]

DEFAULT_WORKER_MODE = "process"
_POLL_S = 1.0   # how often a waiting main process checks that thread workers are alive


def _check_int(name: str, value, minimum: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise invalid_argument("DataLoader", f"{name} got {value!r}, expected an int >= {minimum}.")
    return value


def _check_dataset(dataset, iterable: bool, batch_sampler) -> None:
    """A map-style dataset needs __getitem__ (and __len__ to be sampled); else a clear error now, not a
    raw TypeError from a worker at the first batch."""
    if iterable:
        return
    missing = [name for name in ("__getitem__", "__len__") if not hasattr(dataset, name)]
    if batch_sampler is not None and missing == ["__len__"]:
        return  # the batch sampler gives the indices
    if missing:
        raise invalid_type("DataLoader", f"dataset must be a paddle.io.Dataset (with __getitem__ and __len__) or "
                                         f"an IterableDataset, got {type(dataset).__name__} without "
                                         f"{' and '.join(missing)}.",
                           hint="wrap your data: paddle.io.TensorDataset([x, y]), or subclass paddle.io.Dataset.")


class DataLoader:
    """Iterates over `dataset` in batches (see the module docstring). Paddle's signature and defaults.

    Batches land on `places` (its first place), by default on the current device: after
    `paddle.set_device("gpu")` each field is copied to the GPU once, in the main process (workers
    send numpy). use_buffer_reader and use_shared_memory are accepted for compatibility: worker
    processes send batches through a pipe.
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list: bool = True, batch_sampler=None,
                 batch_size: int | None = 1, shuffle: bool = False, drop_last: bool = False, collate_fn=None,
                 num_workers: int = 0, use_buffer_reader: bool = True, prefetch_factor: int = 2,
                 use_shared_memory: bool = True, timeout: float = 0, worker_init_fn=None,
                 persistent_workers: bool = False, *, worker_mode: str | None = None) -> None:
        self.dataset = dataset
        self.feed_list = feed_list
        self.places = places
        self.return_list = return_list
        if not return_list and not feed_list:
            raise invalid_argument("DataLoader", "return_list=False needs a feed_list to name the fields.",
                                   hint="leave return_list=True to get lists of Tensors.")
        self.num_workers = _check_int("num_workers", num_workers, 0)
        self.prefetch_factor = _check_int("prefetch_factor", prefetch_factor, 1)
        if not isinstance(timeout, (int, float)) or timeout < 0:
            raise invalid_argument("DataLoader", f"timeout got {timeout!r}, expected a number >= 0 (0: wait "
                                                 "forever).")
        self.timeout = timeout
        self.collate_fn = collate_fn
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = persistent_workers
        self.use_buffer_reader = use_buffer_reader
        self.use_shared_memory = use_shared_memory
        mode = DEFAULT_WORKER_MODE if worker_mode is None else worker_mode
        if mode not in ("process", "thread"):
            raise invalid_argument("DataLoader", f"worker_mode got {worker_mode!r}, expected 'process' or 'thread'.")
        self.worker_mode = mode
        self._iterable = isinstance(dataset, IterableDataset)
        _check_dataset(dataset, self._iterable, batch_sampler)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.auto_collate_batch = batch_sampler is not None or batch_size is not None
        self.batch_sampler = self._make_batch_sampler(batch_sampler, batch_size, shuffle, drop_last)
        self._persistent_iter = None
        from .worker_tuning import tuned_num_workers  # with dataloader tuning on, num_workers is measured
        self.num_workers = tuned_num_workers(self)

    def _make_batch_sampler(self, batch_sampler, batch_size, shuffle, drop_last):
        if self._iterable:
            if shuffle:
                raise invalid_argument("DataLoader", "shuffle=True with an IterableDataset, which is read in order.",
                                       hint="shuffle inside the dataset's __iter__, or use a map-style Dataset.")
            if batch_sampler is not None:
                raise invalid_argument("DataLoader", "batch_sampler with an IterableDataset, which has no indices.")
            if batch_size is not None:
                _check_int("batch_size", batch_size, 1)
            return None
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise invalid_argument("DataLoader", "batch_size, shuffle and drop_last must be left at their "
                                                     "defaults when a batch_sampler is given (it decides them).")
            return batch_sampler
        if batch_size is None:
            self._sample_sampler = RandomSampler(self.dataset) if shuffle else SequenceSampler(self.dataset)
            return None
        return BatchSampler(dataset=self.dataset, shuffle=shuffle, batch_size=_check_int("batch_size", batch_size, 1),
                            drop_last=drop_last)

    def __len__(self) -> int:
        if self._iterable:
            raise invalid_argument("DataLoader", "an IterableDataset has no length, so neither has its DataLoader.")
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.dataset)

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._persistent_iter is None:
                self._persistent_iter = _MultiWorkerIter(self)
            else:
                self._persistent_iter._start_epoch()
            return self._persistent_iter
        return _MultiWorkerIter(self)

    def __call__(self):
        return self.__iter__()

    # ---- shared by the iterators ----
    def _index_iter(self):
        """What each fetch is given: a batch of indices, one index (batch_size=None), or nothing (iterable)."""
        if self._iterable:
            return itertools.repeat(None)
        if self.batch_sampler is not None:
            return iter(self.batch_sampler)
        return iter(self._sample_sampler)

    def _fetch_spec(self, num_workers: int) -> dict:
        return {"dataset": self.dataset, "iterable": self._iterable, "auto_collate": self.auto_collate_batch,
                "collate_fn": self.collate_fn, "batch_size": self.batch_size, "drop_last": self.drop_last,
                "num_workers": num_workers, "worker_init_fn": self.worker_init_fn}

    def _batch_place(self) -> Place:
        """Where batches go: the first of `places` when given, else the current device (read per batch)."""
        places = self.places
        if isinstance(places, (list, tuple)):
            places = places[0] if places else None
        return current_place() if places is None else convert_place(places)

    def _finish(self, data):
        data = to_tensors(data, self._batch_place().is_gpu_place())
        if self.return_list:
            return data
        fields = data if isinstance(data, list) else [data]
        names = [v if isinstance(v, str) else v.name for v in self.feed_list]
        if len(names) != len(fields):
            raise invalid_argument("DataLoader", f"feed_list names {len(names)} fields, but a batch has "
                                                 f"{len(fields)}.")
        return dict(zip(names, fields))


def _reported_next(loader: DataLoader, next_batch):
    """`next_batch()` between DataLoaderNextBegin and DataLoaderNextEnd events (the profiler's Dataloader
    phase and reader_cost); the end of an epoch is reported with `exhausted=True`."""
    start = time.perf_counter_ns()
    instrument.emit(instrument.DataLoaderNextBegin(loader, start))
    exhausted = False
    try:
        return next_batch()
    except StopIteration:
        exhausted = True
        raise
    finally:
        instrument.emit(instrument.DataLoaderNextEnd(loader, start, time.perf_counter_ns(), exhausted))


class _SingleProcessIter:
    """num_workers=0: load each batch on demand in the main process."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._indices = loader._index_iter()
        spec = loader._fetch_spec(0)
        self._fetcher = IterableFetcher(loader.dataset, spec["auto_collate"], loader.collate_fn, loader.batch_size,
                                        loader.drop_last) if loader._iterable \
            else MapFetcher(loader.dataset, spec["auto_collate"], loader.collate_fn)

    def __iter__(self):
        return self

    def __next__(self):
        if instrument.listeners["dataloader_next_begin"] or instrument.listeners["dataloader_next_end"]:
            return _reported_next(self._loader, self._next_batch)
        return self._next_batch()

    def _next_batch(self):
        indices = next(self._indices)
        return self._loader._finish(self._fetcher.fetch(indices))

    def __len__(self) -> int:
        return len(self._loader)


class _MultiWorkerIter:
    """num_workers > 0: batches are loaded ahead by a pool of workers and handed out in order."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        n = loader.num_workers
        base = int(creation.generator().integers(0, 2**62))
        self._pool = make_pool(loader.worker_mode, loader._fetch_spec(n), [base + i for i in range(n)])
        self._finalizer = weakref.finalize(self, self._pool.shutdown)
        self._epoch = -1
        self._start_epoch()

    def _start_epoch(self) -> None:
        if not self._finalizer.alive:
            raise precondition_not_met("DataLoader", "its workers were shut down after an error.",
                                       hint="create the DataLoader again.")
        self._epoch += 1
        self._indices = self._loader._index_iter()
        self._sent = 0          # batch indices handed to workers so far
        self._next = 0          # the batch index to yield next
        self._owner = {}        # batch index -> worker id, while in flight
        self._done = {}         # batch index -> payload that arrived early
        self._active = list(range(self._loader.num_workers))   # workers whose stream is not over
        self._turn = 0
        for _ in range(self._loader.prefetch_factor * self._loader.num_workers):
            self._send_one()

    def _send_one(self) -> None:
        """Give the next batch to the next active worker, round-robin: decided only by what was consumed."""
        if not self._active:
            return
        indices = next(self._indices, StopIteration)
        if indices is StopIteration:
            return
        worker = self._active[self._turn % len(self._active)]
        self._turn += 1
        self._pool.send(worker, (self._epoch, self._sent, indices))
        self._owner[self._sent] = worker
        self._sent += 1

    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def __next__(self):
        if instrument.listeners["dataloader_next_begin"] or instrument.listeners["dataloader_next_end"]:
            return _reported_next(self._loader, self._next_batch)
        return self._next_batch()

    def _next_batch(self):
        while self._next < self._sent:
            payload = self._wait_for(self._next)
            worker = self._owner.pop(self._next)
            self._next += 1
            if isinstance(payload, IterationEnd):
                if worker in self._active:
                    self._active.remove(worker)
            self._send_one()
            if isinstance(payload, WorkerFailure):
                self.shutdown()
                raise payload.exception()
            if not isinstance(payload, IterationEnd):
                return self._loader._finish(payload)
        if not self._loader.persistent_workers:
            self.shutdown()
        raise StopIteration

    def _wait_for(self, batch_index: int):
        deadline = time.monotonic() + self._loader.timeout if self._loader.timeout else None
        while batch_index not in self._done:
            wait = _POLL_S if deadline is None else min(_POLL_S, max(deadline - time.monotonic(), 0.0))
            try:
                message = self._pool.recv(wait)
            except Exception:
                self.shutdown()
                raise
            if message is None:
                if deadline is not None and time.monotonic() >= deadline:
                    self.shutdown()
                    raise precondition_not_met("DataLoader", f"no batch from the workers within timeout="
                                                             f"{self._loader.timeout} s (waiting for batch "
                                                             f"{batch_index}).")
                continue
            worker, epoch, index, payload = message
            if index == -1 and isinstance(payload, WorkerFailure):   # the worker itself broke
                self.shutdown()
                raise payload.exception()
            if epoch == self._epoch:   # answers to an abandoned epoch are dropped
                self._done[index] = payload
        return self._done.pop(batch_index)

    def shutdown(self) -> None:
        self._finalizer()
