"""DataLoader num_workers tuning (Paddle's AuToTune for the data pipeline): time a few batches with each
candidate worker count and keep the fastest. `paddle.incubate.autotune.set_config({"dataloader": ...})`
switches it on (the settings live in framework/autotune.py); DataLoader.__init__ calls
`tuned_num_workers`, and the decision goes on the event bus like a kernel's, so the debugger shows it.
"""
from __future__ import annotations

import os
import time

from ..framework import autotune, instrument
from .dataset import Subset
from .sampler import BatchSampler


def tuned_num_workers(loader) -> int:
    """The hook DataLoader.__init__ calls: the loader's num_workers, or a measured better one."""
    global _tuning_loader
    enabled, tuning_steps, _ = autotune.dataloader_tuning()
    if not enabled or _tuning_loader:  # the trial loaders come through here too
        return loader.num_workers
    _tuning_loader = True
    try:
        return tune_num_workers(loader, tuning_steps)
    finally:
        _tuning_loader = False


_tuning_loader = False


def tune_num_workers(loader, tuning_steps: int = 500, candidates=None) -> int:
    """Time `tuning_steps` batches with each candidate num_workers; return the fastest (Paddle's AuToTune).

    Only a map-style dataset read by a batch sampler can be replayed on a subset; others keep their
    setting. More workers must be at least 25% faster per batch to win (they cost processes and memory).
    """
    from .dataloader import DataLoader
    if loader._iterable or loader.batch_sampler is None or not isinstance(loader.batch_sampler, BatchSampler):
        return loader.num_workers
    batch_size = loader.batch_sampler.batch_size
    n = min(len(loader.dataset), max(1, tuning_steps) * batch_size)
    subset = Subset(loader.dataset, list(range(n)))
    if candidates is None:
        cores = os.cpu_count() or 1
        candidates = sorted({0, loader.num_workers, *[w for w in (1, 2, 4, 8, 16) if w <= cores]})
    records, best, best_cost = [], loader.num_workers, None
    for workers in candidates:
        probe = DataLoader(subset, batch_size=batch_size, collate_fn=loader.collate_fn, num_workers=workers,
                           worker_mode=loader.worker_mode, worker_init_fn=loader.worker_init_fn)
        cost = _per_batch_ns(probe)
        records.append({"name": f"num_workers={workers}", "time_ns": cost})
        if best_cost is None or cost < best_cost * 0.75:
            best, best_cost = workers, cost
    if instrument.subscribers:
        instrument.emit(instrument.AutotuneEvent(
            op="DataLoader", key="num_workers", dtype=None, shape_class=None, shapes=[], candidates=records,
            winner=f"num_workers={best}", default=f"num_workers={loader.num_workers}", source="tuned",
            step=autotune.dataloader_tuning()[2]))
    return best


def _per_batch_ns(loader) -> int:
    """Mean time per batch after the first (which pays the workers' start-up)."""
    it = iter(loader)
    count, start = 0, None
    for _ in it:
        if start is None:
            start = time.perf_counter_ns()
        else:
            count += 1
    end = time.perf_counter_ns()
    return (end - start) // count if count else (end - start if start else 0)
