"""paddle.distributed in one process: rank 0 of a world of 1."""
from __future__ import annotations

import minipaddle as paddle


def test_parallel_env_and_rank_queries():
    env = paddle.distributed.ParallelEnv()
    assert (env.rank, env.world_size, env.nranks, env.local_rank, env.device_id) == (0, 1, 1, 0, 0)
    assert paddle.distributed.get_rank() == 0 and paddle.distributed.get_world_size() == 1
    assert paddle.distributed.init_parallel_env() is None and not paddle.distributed.is_initialized()


def test_data_parallel_forwards_and_keeps_the_models_state_dict_names():
    net = paddle.nn.Linear(2, 2)
    dp = paddle.DataParallel(net)
    assert dp._layers is net and paddle.distributed.DataParallel is paddle.DataParallel
    assert [n for n, _ in dp.named_parameters()] == ["_layers.weight", "_layers.bias"]
    assert list(dp.state_dict()) == ["weight", "bias"]
    x = paddle.ones([3, 2])
    assert (dp(x).numpy() == net(x).numpy()).all()
    dp.set_state_dict({"weight": paddle.zeros([2, 2]), "bias": paddle.ones([2])})
    assert net(x).numpy().tolist() == [[1.0, 1.0]] * 3
