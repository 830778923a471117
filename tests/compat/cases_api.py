"""Golden cases: names learners' Paddle code reaches for -- paddle.mm, the paddle.tensor namespace,
paddle.device, paddle.distributed (one process), DistributedBatchSampler, flops and small Tensor methods."""
from .harness import case, outcome


@case
def mm_and_the_tensor_namespace(paddle):
    a = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    b = paddle.to_tensor([[0.5, 1.0], [2.0, -1.0]])
    return {"paddle.mm": paddle.mm(a, b), "paddle.tensor.mm": paddle.tensor.mm(a, b),
            "Tensor.mm": a.mm(b),
            "linalg.matmul": paddle.tensor.linalg.matmul(a, b), "math.sum": paddle.tensor.math.sum(a),
            "manipulation.reshape": paddle.tensor.manipulation.reshape(a, [4]),
            "creation.full": paddle.tensor.creation.full([2], 3.0), "logic.equal": paddle.tensor.logic.equal(a, b),
            "search.argmax": paddle.tensor.search.argmax(a), "stat.mean": paddle.tensor.stat.mean(a),
            "math.add": paddle.tensor.math.add(a, b), "math.multiply": paddle.tensor.math.multiply(a, b)}


@case
def framework_param_attr_and_nn_loss(paddle):
    attr = paddle.framework.ParamAttr(initializer=paddle.nn.initializer.Constant(0.25))
    fc = paddle.nn.Linear(2, 1, weight_attr=attr)
    loss_fn = paddle.nn.loss.MSELoss()
    return {"same ParamAttr": paddle.framework.ParamAttr is paddle.ParamAttr,
            "same loss class": paddle.nn.loss.CrossEntropyLoss is paddle.nn.CrossEntropyLoss,
            "weight": fc.weight,
            "mse": loss_fn(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([0.0, 0.0]))}


@case
def device_functions(paddle):
    place = paddle.device.set_device("cpu")
    return {"set_device": str(place), "get_device": paddle.device.get_device(),
            "paddle.get_device": paddle.get_device(),
            "device_count is int": isinstance(paddle.device.cuda.device_count(), int),
            "is_compiled_with_cuda is bool": isinstance(paddle.device.is_compiled_with_cuda(), bool),
            "paddle.is_compiled_with_cuda is bool": isinstance(paddle.is_compiled_with_cuda(), bool)}


@case
def parameter_value_is_the_parameter(paddle):
    fc = paddle.nn.Linear(2, 2)
    v = fc.weight.value()
    v.set_value(paddle.ones([2, 2]))
    return {"same object": v is fc.weight, "stop_gradient": v.stop_gradient, "weight": fc.weight}


@case
def reciprocal(paddle):
    x = paddle.to_tensor([1.0, 2.0, 4.0, -0.5], stop_gradient=False)
    y = x.reciprocal()
    y.sum().backward()
    return {"method": y, "function": paddle.reciprocal(x), "grad": x.grad}


@case
def dist(paddle):
    x = paddle.to_tensor([[1.0, 2.0], [4.0, -3.0]], stop_gradient=False)
    y = paddle.to_tensor([0.0, 1.0])
    results = {f"p={p}": x.dist(y, p=p) for p in (2, 1, 3, 0, float("inf"), float("-inf"))}
    paddle.dist(x, y).backward()
    results["grad p=2"] = x.grad
    return results


@case
def reshape_in_place(paddle):
    z = paddle.arange(6.0)
    r = paddle.reshape_(z, [2, 3])
    return {"same object": r is z, "z": z}


@case
def add_n(paddle):
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = paddle.to_tensor([3.0, 4.0])
    total = paddle.add_n([a, b, a])
    total.sum().backward()
    return {"list": total, "single": paddle.add_n(b), "grad": a.grad,
            "mismatched shapes": outcome(lambda: paddle.add_n([a, paddle.ones([3])]))}


@case
def distributed_batch_sampler(paddle):
    class Numbers(paddle.io.Dataset):
        def __getitem__(self, idx):
            return idx

        def __len__(self):
            return 10

    DBS = paddle.io.DistributedBatchSampler
    shuffled = DBS(Numbers(), batch_size=4, shuffle=True)
    shuffled.set_epoch(1)
    return {"plain": [list(DBS(Numbers(), batch_size=3)), len(DBS(Numbers(), batch_size=3))],
            "drop_last": [list(DBS(Numbers(), batch_size=3, drop_last=True)),
                          len(DBS(Numbers(), batch_size=3, drop_last=True))],
            "rank 1 of 2": [list(DBS(Numbers(), batch_size=3, num_replicas=2, rank=1)),
                            len(DBS(Numbers(), batch_size=3, num_replicas=2, rank=1))],
            "rank 0 of 3": list(DBS(Numbers(), batch_size=2, num_replicas=3, rank=0)),
            "shuffled epoch 1": list(shuffled), "shuffled next epoch": list(shuffled),
            "in a DataLoader": [b.numpy().tolist() for b in
                                paddle.io.DataLoader(Numbers(), batch_sampler=DBS(Numbers(), batch_size=4))]}


@case
def parallel_env_is_rank_0_of_1(paddle):
    env = paddle.distributed.ParallelEnv()
    return {"rank": env.rank, "world_size": env.world_size, "nranks": env.nranks, "local_rank": env.local_rank,
            "get_rank": paddle.distributed.get_rank(), "get_world_size": paddle.distributed.get_world_size()}


@case
def run_check_returns_none(paddle):
    return paddle.utils.run_check()


@case(differs="Paddle 3.3.1's flops() raises TypeError for any network with sublayers (int() of a shape-[1] "
              "tensor); minipaddle counts LeNet as Paddle's own docs say: 347560")
def flops_of_lenet(paddle):
    return outcome(lambda: paddle.flops(paddle.vision.models.LeNet(), [1, 1, 28, 28]))


@case
def data_parallel_in_one_process(paddle):
    paddle.distributed.init_parallel_env()
    net = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5)))
    model = paddle.DataParallel(net)
    return {"named_parameters": [n for n, _ in model.named_parameters()], "state_dict": list(model.state_dict()),
            "output": model(paddle.ones([1, 2])), "wraps": model._layers is net}
