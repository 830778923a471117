"""DataLoader with num_workers > 0, as threads and as processes: order, determinism, errors, deaths, timeouts.

Every test runs under a hard deadline (SIGALRM), so a loader that hangs fails the test instead of the suite.
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import PreconditionNotMet
from minipaddle.io import DataLoader, Dataset, IterableDataset, get_worker_info
from minipaddle.io.worker import sample_rng
from minipaddle.vision import transforms as T

MODES = ["thread", "process"]


@contextlib.contextmanager
def deadline(seconds: int = 20):
    def hung(signum, frame):
        raise TimeoutError(f"the DataLoader did not answer within {seconds} s")
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


class Numbers(Dataset):
    def __init__(self, n: int = 20, fail_at: int | None = None, slow_for=(), exit_at: int | None = None,
                 kill_at: int | None = None) -> None:
        self.n, self.fail_at, self.slow_for, self.exit_at, self.kill_at = n, fail_at, set(slow_for), exit_at, kill_at

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise ValueError(f"bad record {i}")
        if i == self.exit_at:
            os._exit(7)
        if i == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if i in self.slow_for:
            time.sleep(0.2)
        return np.float32(i), i


class RandomNoise(Dataset):
    """Each sample draws from the worker's generator, as a random transform does."""

    def __len__(self) -> int:
        return 16

    def __getitem__(self, i):
        return sample_rng().random(3).astype(np.float32), i


class ShardedStream(IterableDataset):
    """Splits range(n) between workers with get_worker_info, as Paddle's docs show."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


class WhoAmI(Dataset):
    def __len__(self) -> int:
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return np.array([info.id, info.num_workers, info.seed % 1000, os.getpid(), threading.get_ident() % 10**6])


def all_labels(loader) -> list[int]:
    return [int(v) for batch in loader for v in batch[1].numpy()]


@pytest.mark.parametrize("mode", MODES)
def test_workers_deliver_the_same_batches_in_the_same_order_as_the_main_process(mode):
    with deadline():
        expected = all_labels(DataLoader(Numbers(23), batch_size=4))
        got = all_labels(DataLoader(Numbers(23), batch_size=4, num_workers=2, worker_mode=mode))
    assert got == expected == list(range(23))


@pytest.mark.parametrize("mode", MODES)
def test_order_is_kept_when_one_worker_is_slow(mode):
    # batch 0 (worker 0) is slow, so batches from worker 1 arrive first; they must still come out in order
    with deadline():
        got = all_labels(DataLoader(Numbers(12, slow_for=[0, 1]), batch_size=2, num_workers=2, worker_mode=mode))
    assert got == list(range(12))


@pytest.mark.parametrize("mode", MODES)
def test_shuffled_random_loading_is_reproducible_with_paddle_seed(mode):
    def epoch():
        loader = DataLoader(RandomNoise(), batch_size=4, shuffle=True, num_workers=2, worker_mode=mode)
        return [(x.numpy().copy(), y.numpy().tolist()) for x, y in loader]
    with deadline():
        paddle.seed(42)
        a = epoch()
        paddle.seed(42)
        b = epoch()
        c = epoch()
    assert [y for _, y in a] == [y for _, y in b]
    for (xa, _), (xb, _) in zip(a, b):
        np.testing.assert_array_equal(xa, xb)
    assert not all(np.array_equal(xa, xc) for (xa, _), (xc, _) in zip(a, c))  # a new epoch, new draws


@pytest.mark.parametrize("mode", MODES)
def test_a_worker_exception_reaches_the_main_process_with_index_and_traceback(mode):
    loader = DataLoader(Numbers(20, fail_at=13), batch_size=4, num_workers=2, worker_mode=mode)
    with deadline(), pytest.raises(ValueError) as info:
        list(loader)
    text = str(info.value)
    assert "Caught ValueError in DataLoader worker 1" in text  # batch 3 -> worker 3 % 2
    assert "while loading sample 13 (batch 3)" in text
    assert "Original traceback in the worker" in text and "in __getitem__" in text
    assert 'raise ValueError(f"bad record {i}")' in text and "bad record 13" in text
    assert info.value.sample_index == 13
    with deadline():   # the loader is still usable: a fresh iteration starts new workers
        assert all_labels(DataLoader(Numbers(8), batch_size=4, num_workers=2, worker_mode=mode)) == list(range(8))


def test_a_worker_that_exits_is_detected_not_waited_on():
    loader = DataLoader(Numbers(20, exit_at=9), batch_size=4, num_workers=2, worker_mode="process")
    with deadline(), pytest.raises(PreconditionNotMet, match=r"worker 0 \(pid \d+\) exited unexpectedly "
                                                             r"\(exit code 7\)"):
        list(loader)


def test_a_killed_worker_is_detected():
    loader = DataLoader(Numbers(20, kill_at=5), batch_size=4, num_workers=2, worker_mode="process")
    with deadline(), pytest.raises(PreconditionNotMet, match="killed by signal SIGKILL"):
        list(loader)


@pytest.mark.parametrize("mode", MODES)
def test_timeout_raises_when_a_batch_takes_too_long(mode):
    loader = DataLoader(Numbers(4, slow_for=[0]), batch_size=1, num_workers=1, timeout=0.05, worker_mode=mode)
    with deadline(), pytest.raises(PreconditionNotMet, match="no batch from the workers within timeout=0.05 s"):
        list(loader)


@pytest.mark.parametrize("mode", MODES)
def test_worker_init_fn_errors_are_reported(mode):
    def init(worker_id):
        raise RuntimeError(f"cannot open shard {worker_id}")
    loader = DataLoader(Numbers(8), batch_size=2, num_workers=2, worker_init_fn=init, worker_mode=mode)
    with deadline(), pytest.raises(RuntimeError, match="cannot open shard 0") as info:
        list(loader)
    assert "while loading worker_init_fn" in str(info.value)


def test_a_batch_that_cannot_be_pickled_is_reported_from_the_worker():
    loader = DataLoader(Numbers(4), batch_size=2, num_workers=1, worker_mode="process",
                        collate_fn=lambda samples: {"f": lambda: None})
    with deadline(), pytest.raises(Exception, match="Caught .* in DataLoader worker 0"):
        list(loader)


@pytest.mark.parametrize("mode", MODES)
def test_worker_info_inside_workers(mode):
    paddle.seed(0)
    with deadline():
        rows = next(iter(DataLoader(WhoAmI(), batch_size=4, num_workers=2, worker_mode=mode))).numpy()
    # one batch of 4 went to worker 0 of 2
    assert rows[:, 0].tolist() == [0] * 4 and rows[:, 1].tolist() == [2] * 4
    if mode == "process":
        assert rows[0, 3] != os.getpid()
    else:
        assert rows[0, 4] != threading.get_ident() % 10**6


@pytest.mark.parametrize("mode", MODES)
def test_iterable_dataset_split_by_worker_info_gives_each_sample_once(mode):
    with deadline():
        loader = DataLoader(ShardedStream(10), batch_size=2, num_workers=2, worker_mode=mode)
        batches = [b.numpy().tolist() for b in loader]
    # round-robin over workers: w0 [0, 2], w1 [1, 3], w0 [4, 6], w1 [5, 7], w0 [8], w1 [9]
    assert batches == [[0, 2], [1, 3], [4, 6], [5, 7], [8], [9]]


@pytest.mark.parametrize("mode", MODES)
def test_iterating_twice_and_breaking_early(mode):
    loader = DataLoader(Numbers(10), batch_size=3, num_workers=2, worker_mode=mode)
    with deadline():
        for _ in loader:
            break
        assert all_labels(loader) == list(range(10))
        assert all_labels(loader) == list(range(10))


@pytest.mark.parametrize("mode", MODES)
def test_persistent_workers_serve_several_epochs(mode):
    loader = DataLoader(ShardedStream(6), batch_size=2, num_workers=2, worker_mode=mode, persistent_workers=True)
    with deadline():
        first = [b.numpy().tolist() for b in loader]
        second = [b.numpy().tolist() for b in loader]
    assert first == second == [[0, 2], [1, 3], [4], [5]]
    loader._persistent_iter.shutdown()


def test_worker_processes_are_gone_after_an_epoch():
    loader = DataLoader(Numbers(6), batch_size=2, num_workers=2, worker_mode="process")
    with deadline():
        it = iter(loader)
        workers = list(it._pool.workers)
        assert all(p.is_alive() for p in workers)
        list(it)
    assert not any(p.is_alive() for p in workers)


class Augmented(Dataset):
    """The same image every time, through random transforms: only the worker's generator varies it."""

    def __init__(self) -> None:
        self.image = np.arange(64, dtype=np.uint8).reshape(8, 8)
        self.transform = T.Compose([T.RandomCrop(6, padding=1), T.RandomHorizontalFlip()])

    def __len__(self) -> int:
        return 16

    def __getitem__(self, i):
        return self.transform(self.image)


@pytest.mark.parametrize("mode", MODES)
def test_random_transforms_in_workers_are_reproducible_and_differ_between_samples(mode):
    def epoch():
        return np.concatenate([b.numpy() for b in DataLoader(Augmented(), batch_size=4, num_workers=2,
                                                                 worker_mode=mode)])
    with deadline():
        paddle.seed(5)
        a = epoch()
        paddle.seed(5)
        b = epoch()
    np.testing.assert_array_equal(a, b)
    assert len({x.tobytes() for x in a}) > 4


def test_stop_iteration_in_a_worker_is_an_error_not_an_early_end():
    class Ends(Numbers):
        def __getitem__(self, i):
            if i == 5:
                raise StopIteration
            return super().__getitem__(i)
    loader = DataLoader(Ends(12), batch_size=2, num_workers=2, worker_mode="process")
    with deadline(), pytest.raises(RuntimeError, match="raised StopIteration") as info:
        list(loader)
    assert "sample 5 (batch 2)" in str(info.value)


class Big(Dataset):
    def __len__(self) -> int:
        return 40

    def __getitem__(self, i):
        return np.zeros((256, 256), np.float32)   # 256 KB: a batch of 4 overflows a pipe's buffer


def test_abandoning_an_epoch_stops_workers_blocked_on_a_full_pipe_at_once():
    loader = DataLoader(Big(), batch_size=4, num_workers=2, worker_mode="process")
    with deadline():
        it = iter(loader)
        next(it)
        time.sleep(0.3)   # the workers fill their pipes with prefetched batches and block
        start = time.perf_counter()
        it.shutdown()
        took = time.perf_counter() - start
    assert not any(p.is_alive() for p in it._pool.workers)
    assert took < 0.4, f"shutdown took {took:.2f} s: a worker was only stopped by terminate()"
