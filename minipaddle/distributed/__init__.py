"""paddle.distributed, single-process: minipaddle runs one process on one device, so it is always rank 0
of a world of 1. These names exist so data-parallel code written for Paddle runs unchanged here:

    paddle.distributed.init_parallel_env()          # nothing to set up
    rank = paddle.distributed.get_rank()            # 0
    sampler = paddle.io.DistributedBatchSampler(ds, batch_size=32, shuffle=True)   # every sample, rank 0's share
    model = paddle.DataParallel(model)              # the model itself: nothing to all-reduce
"""
from __future__ import annotations

from .parallel import DataParallel

__all__ = ["DataParallel", "ParallelEnv", "get_rank", "get_world_size", "init_parallel_env", "is_initialized"]


class ParallelEnv:
    """The parallel environment of this process: rank 0 of 1 (Paddle reads PADDLE_TRAINER_ID & co.;
    minipaddle has no multi-process training, so it never is anything else)."""

    @property
    def rank(self) -> int:
        return 0

    @property
    def world_size(self) -> int:
        return 1

    @property
    def nranks(self) -> int:   # Paddle's older name for world_size
        return 1

    @property
    def local_rank(self) -> int:   # Paddle's older name for rank
        return 0

    @property
    def device_id(self) -> int:
        return 0

    dev_id = device_id

    @property
    def current_endpoint(self) -> str:
        return ""

    @property
    def trainer_endpoints(self) -> list[str]:
        return [""]

    def __repr__(self) -> str:
        return "ParallelEnv(rank=0, world_size=1)"


def get_rank(group=None) -> int:
    """This process's rank: always 0 (one process)."""
    return 0


def get_world_size(group=None) -> int:
    """How many processes train together: always 1."""
    return 1


def init_parallel_env() -> None:
    """Paddle starts its collective communication here; one process has nothing to start."""
    return None


def is_initialized() -> bool:
    return False
