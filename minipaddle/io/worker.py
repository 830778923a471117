"""DataLoader workers: what runs in each background worker, and the thread and process pools that host them.

A worker receives tasks `(epoch, batch_index, indices)`, loads and collates that batch with a
fetcher, and sends back `(worker_id, epoch, batch_index, payload)`. The payload is the batch
(as numpy, so a process can pickle it cheaply), `IterationEnd` when an iterable dataset's
stream is over, or a `WorkerFailure` carrying the exception's type, the sample index and the
original traceback text, which the main process re-raises. A worker never dies of a dataset's
exception; a worker that dies anyway (killed, os._exit, a crash in native code) is noticed by the
pool at once (process sentinels) and reported, never waited on forever.

Each worker gets its own seed (base seed + worker id, the base drawn from paddle.seed's generator),
its own `numpy.random.Generator` for random transforms (`sample_rng()`), and in a process also
reseeds paddle, numpy's global and Python's `random`, so loading is reproducible given paddle.seed.
"""
from __future__ import annotations

import multiprocessing as mp
import multiprocessing.connection
import os
import pickle
import queue
import random
import signal
import threading
import traceback
from typing import Any

import numpy as np

from ..framework import creation
from ..framework.errors import precondition_not_met
from .collate import collate_numpy, convert_numpy, tensors_to_numpy

__all__ = ["WorkerInfo", "get_worker_info"]


class WorkerInfo:
    """What a worker knows about itself: `id`, `num_workers`, `dataset` (its own copy) and `seed`."""

    def __init__(self, id: int, num_workers: int, dataset, seed: int) -> None:  # noqa: A002 - Paddle's name
        self.id = id
        self.num_workers = num_workers
        self.dataset = dataset
        self.seed = seed

    def __repr__(self) -> str:
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


_local = threading.local()   # thread-local, so thread workers each see their own info and generator


def get_worker_info() -> WorkerInfo | None:
    """Inside a DataLoader worker: its WorkerInfo (use it to split an IterableDataset). Elsewhere: None."""
    return getattr(_local, "info", None)


def sample_rng() -> np.random.Generator:
    """The generator random transforms draw from: the worker's own inside a worker, else paddle.seed's."""
    rng = getattr(_local, "rng", None)
    return creation.generator() if rng is None else rng


# ---- fetchers: load and collate one batch -----------------------------------------------------------
def _mark(exc: BaseException, sample_index, what: str) -> None:
    """Attach the failing sample's index to an exception (kept as a note in the printed traceback)."""
    if getattr(exc, "_minipaddle_sample", None) is None:
        exc._minipaddle_sample = sample_index
        exc.add_note(f"(DataLoader: raised while {what})")


class MapFetcher:
    """Reads `dataset[i]` for each index of a batch, then collates (or converts one sample)."""

    def __init__(self, dataset, auto_collate: bool, collate_fn) -> None:
        self.dataset = dataset
        self.auto_collate = auto_collate
        self.collate_fn = collate_fn

    def fetch(self, indices):
        try:
            return self._fetch(indices)
        except StopIteration as e:   # would end the epoch silently: the sampler, not the dataset, decides that
            error = RuntimeError(f"dataset.__getitem__ raised StopIteration ({e!r}); a map-style dataset must "
                                 "return a sample for every index its sampler gives.")
            sample = getattr(e, "_minipaddle_sample", indices)
            _mark(error, sample, f"loading sample {sample}")
            raise error from e

    def _fetch(self, indices):
        if not self.auto_collate:
            try:
                sample = self.dataset[indices]
            except Exception as e:
                _mark(e, indices, f"loading sample {indices}")
                raise
            return self.collate_fn(sample) if self.collate_fn is not None else convert_numpy(sample)
        if not isinstance(indices, (list, tuple)):
            indices = list(indices)
        samples = []
        try:
            for i in indices:
                samples.append(self.dataset[i])
        except Exception as e:
            _mark(e, indices[len(samples)], f"loading sample {indices[len(samples)]}")
            raise
        return _collate(self.collate_fn, samples, indices)


class IterableFetcher:
    """Reads the next `batch_size` samples of an iterable dataset's stream; StopIteration when it is over."""

    def __init__(self, dataset, auto_collate: bool, collate_fn, batch_size: int | None, drop_last: bool) -> None:
        self.iterator = iter(dataset)
        self.auto_collate = auto_collate
        self.collate_fn = collate_fn
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.count = 0   # samples read so far from this stream

    def fetch(self, _indices=None):
        if not self.auto_collate:
            sample = self._next()
            return self.collate_fn(sample) if self.collate_fn is not None else convert_numpy(sample)
        samples = []
        for _ in range(self.batch_size):
            try:
                samples.append(self._next())
            except StopIteration:
                break
        if not samples or (self.drop_last and len(samples) < self.batch_size):
            raise StopIteration
        return _collate(self.collate_fn, samples, f"stream samples {self.count - len(samples)}..{self.count - 1}")

    def _next(self):
        try:
            sample = next(self.iterator)
        except StopIteration:
            raise
        except Exception as e:
            _mark(e, self.count, f"loading sample {self.count} of the stream")
            raise
        self.count += 1
        return sample


def _collate(collate_fn, samples: list, where):
    try:
        return collate_fn(samples) if collate_fn is not None else collate_numpy(samples)
    except Exception as e:
        _mark(e, where, f"collating samples {where}")
        raise


# ---- what travels back from a worker ------------------------------------------------------------------
class IterationEnd:
    """A worker's answer when its iterable dataset's stream is over."""


class _PlainRepr(str):
    def __repr__(self) -> str:   # KeyError prints repr(message); keep the traceback readable
        return str(self)


class WorkerFailure:
    """An exception raised in a worker, as picklable text plus its type."""

    def __init__(self, worker_id: int, batch_index: int, exc: BaseException) -> None:
        self.worker_id = worker_id
        self.pid = os.getpid()
        self.batch_index = batch_index
        self.sample_index = getattr(exc, "_minipaddle_sample", None)
        self.type_name = type(exc).__name__
        self.traceback = "".join(traceback.format_exception(exc))
        self.exc_type = type(exc)
        try:
            pickle.loads(pickle.dumps(self.exc_type))
        except Exception:   # a class that cannot travel (defined in a closure): re-raise as RuntimeError
            self.exc_type = RuntimeError

    def exception(self) -> BaseException:
        where = f"sample {self.sample_index} (batch {self.batch_index})" if self.sample_index is not None \
            else f"batch {self.batch_index}" if self.batch_index >= 0 else "worker_init_fn"
        message = (f"Caught {self.type_name} in DataLoader worker {self.worker_id} (pid {self.pid}) while loading "
                   f"{where}.\nOriginal traceback in the worker:\n{self.traceback}")
        try:
            err = self.exc_type(_PlainRepr(message) if issubclass(self.exc_type, KeyError) else message)
        except Exception:
            err = RuntimeError(message)
        err.sample_index = self.sample_index
        return err


# ---- the loop every worker runs -------------------------------------------------------------------------
def worker_loop(spec: dict, worker_id: int, seed: int, get_task, put_result, in_process: bool) -> None:
    """Serve tasks until a None task arrives. `spec` says how to build this worker's fetcher."""
    _local.info = WorkerInfo(worker_id, spec["num_workers"], spec["dataset"], seed)
    _local.rng = np.random.default_rng(seed)
    if in_process:   # a process owns its globals: make them per-worker too
        creation.seed(seed % 2**63)
        np.random.seed(seed % 2**32)
        random.seed(seed)
    init_failure = None
    if spec["worker_init_fn"] is not None:
        try:
            spec["worker_init_fn"](worker_id)
        except Exception as e:
            init_failure = WorkerFailure(worker_id, -1, e)
    fetcher, epoch = None, None
    while True:
        task = get_task()
        if task is None:
            return
        task_epoch, batch_index, indices = task
        try:
            if init_failure is not None:
                payload = init_failure
            else:
                if task_epoch != epoch:   # a new epoch: an iterable dataset starts its stream again
                    fetcher, epoch = _make_fetcher(spec), task_epoch
                payload = fetcher.fetch(indices)
                if in_process:
                    payload = tensors_to_numpy(payload)
        except StopIteration:
            payload = IterationEnd()
        except Exception as e:
            payload = WorkerFailure(worker_id, batch_index, e)
        put_result((worker_id, task_epoch, batch_index, payload))


def _make_fetcher(spec: dict):
    if spec["iterable"]:
        return IterableFetcher(spec["dataset"], spec["auto_collate"], spec["collate_fn"], spec["batch_size"],
                               spec["drop_last"])
    return MapFetcher(spec["dataset"], spec["auto_collate"], spec["collate_fn"])


def _process_main(spec: dict, worker_id: int, seed: int, task_conn, result_conn, parent_ends: list) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the main process's to handle
    for conn in parent_ends:   # fork copied the main process's pipe ends: drop them, so that when the
        conn.close()           # main process closes its ends, a worker blocked on a pipe sees it at once

    def put(message) -> None:
        try:
            result_conn.send(message)
        except OSError:
            raise
        except Exception as e:   # the batch cannot be pickled (a lambda, an open file, ...)
            wid, ep, b, _ = message
            result_conn.send((wid, ep, b, WorkerFailure(wid, b, e)))

    try:
        worker_loop(spec, worker_id, seed, task_conn.recv, put, in_process=True)
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass   # the main process went away or closed our pipes: stop quietly


# ---- pools -------------------------------------------------------------------------------------------
class ThreadPool:
    """Workers as daemon threads: no start-up cost and no pickling, but they share the GIL."""

    def __init__(self, spec: dict, seeds: list[int]) -> None:
        self.tasks = [queue.SimpleQueue() for _ in seeds]
        self.results: queue.SimpleQueue = queue.SimpleQueue()
        self.workers = [threading.Thread(target=self._run, args=(spec, i, s), daemon=True,
                                         name=f"minipaddle-dataloader-{i}") for i, s in enumerate(seeds)]
        for t in self.workers:
            t.start()

    def _run(self, spec: dict, worker_id: int, seed: int) -> None:
        try:
            worker_loop(spec, worker_id, seed, self.tasks[worker_id].get, self.results.put, in_process=False)
        except BaseException as e:   # noqa: B036 - report even SystemExit, so the main thread never waits forever
            self.results.put((worker_id, None, -1, WorkerFailure(worker_id, -1, e)))

    def send(self, worker_id: int, task) -> None:
        self.tasks[worker_id].put(task)

    def recv(self, timeout: float):
        try:
            return self.results.get(timeout=timeout)
        except queue.Empty:
            for i, t in enumerate(self.workers):
                if not t.is_alive():
                    raise precondition_not_met("DataLoader", f"worker thread {i} stopped unexpectedly.") from None
            return None

    def shutdown(self) -> None:
        for q in self.tasks:
            q.put(None)


class ProcessPool:
    """Workers as forked processes: true parallelism; batches come back pickled through a pipe each.

    fork (not spawn) so datasets defined in a notebook cell work without being importable.
    """

    def __init__(self, spec: dict, seeds: list[int]) -> None:
        ctx = mp.get_context("fork")
        self.task_conns, self.result_conns, self.workers = [], [], []
        for i, seed in enumerate(seeds):
            task_r, task_w = ctx.Pipe(duplex=False)
            result_r, result_w = ctx.Pipe(duplex=False)
            parent_ends = self.task_conns + self.result_conns + [task_w, result_r]
            p = ctx.Process(target=_process_main, args=(spec, i, seed, task_r, result_w, parent_ends),
                            daemon=True, name=f"minipaddle-dataloader-{i}")
            p.start()
            task_r.close()    # the parent keeps only its own ends, so a dead child shows as EOF
            result_w.close()
            self.task_conns.append(task_w)
            self.result_conns.append(result_r)
            self.workers.append(p)
        self._sentinels = {p.sentinel: i for i, p in enumerate(self.workers)}

    def send(self, worker_id: int, task) -> None:
        try:
            self.task_conns[worker_id].send(task)
        except (BrokenPipeError, ConnectionResetError):
            raise self._died(worker_id) from None

    def recv(self, timeout: float):
        ready = mp.connection.wait(self.result_conns + list(self._sentinels), timeout)
        if not ready:
            return None
        for obj in ready:
            if obj in self._sentinels:
                continue
            try:
                return obj.recv()
            except (EOFError, ConnectionResetError):
                raise self._died(self.result_conns.index(obj)) from None
        worker_id = self._sentinels[ready[0]]
        if self.result_conns[worker_id].poll():   # it sent its last answer before it exited, or the pipe's EOF
            try:
                return self.result_conns[worker_id].recv()
            except (EOFError, ConnectionResetError):
                pass
        raise self._died(worker_id)

    def _died(self, worker_id: int) -> Exception:
        p = self.workers[worker_id]
        p.join(timeout=1.0)
        code = p.exitcode
        how = f"killed by signal {signal.Signals(-code).name}" if code is not None and code < 0 \
            else f"exit code {code}"
        return precondition_not_met("DataLoader", f"worker {worker_id} (pid {p.pid}) exited unexpectedly ({how}).",
                                    hint="out of memory, a crash in native code, or os._exit/sys.exit in the "
                                         "dataset; run with num_workers=0 to see the error directly.")

    def shutdown(self) -> None:
        for conn in self.task_conns:
            try:
                conn.send(None)
            except OSError:
                pass
        for conn in self.result_conns + self.task_conns:
            conn.close()   # a worker blocked sending a batch gets BrokenPipeError and exits
        for p in self.workers:
            p.join(timeout=0.5)
            if p.is_alive():
                p.terminate()
                p.join(timeout=1.0)


def make_pool(mode: str, spec: dict, seeds: list[int]) -> Any:
    return ProcessPool(spec, seeds) if mode == "process" else ThreadPool(spec, seeds)
