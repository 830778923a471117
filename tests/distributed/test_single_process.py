"""paddle.distributed in one process: rank 0 of a world of 1."""
from __future__ import annotations

import minipaddle as paddle


def test_parallel_env_and_rank_queries():
    env = paddle.distributed.ParallelEnv()
    assert (env.rank, env.world_size, env.nranks, env.local_rank, env.device_id) == (0, 1, 1, 0, 0)
    assert paddle.distributed.get_rank() == 0 and paddle.distributed.get_world_size() == 1
    assert paddle.distributed.init_parallel_env() is None and not paddle.distributed.is_initialized()
