"""The static Executor on a GPU place: the same Program trains to the CPU's numbers, fused kernels run as
generated CUDA kernels, control flow reads its predicate from the device, and fetches come back as numpy
arrays or GPU Tensors.

Runs under numba's CUDA simulator here (each GPU thread a Python thread), so shapes are tiny.
"""
from __future__ import annotations

import jsonschema
import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework import gpu
from minipaddle.framework.errors import Unimplemented
from minipaddle.framework.static.passes import buffer_reuse, fuse_elementwise, fused_source
from minipaddle.visualizer import load_schema


def _build(body, seed: int = 5):
    """(main, startup, what body returned), built in static mode with fresh unique names."""
    paddle.enable_static()
    try:
        with paddle.utils.unique_name.guard():
            main, startup = static.Program(), static.Program()
            main.random_seed = startup.random_seed = seed
            with static.program_guard(main, startup):
                out = body()
    finally:
        paddle.disable_static()
    return main, startup, out


def _mlp(make_optimizer, dtype="float64", activation=F.relu):
    def body():
        x = static.data("x", [None, 4], dtype)
        y = static.data("y", [None, 1], "int64")
        logits = static.nn.fc(activation(static.nn.fc(x, 5)), 3)
        loss = paddle.mean(F.cross_entropy(logits, y))
        make_optimizer().minimize(loss)
        return loss
    return _build(body)


BATCHES = [(np.random.default_rng(s).standard_normal((3, 4)), np.random.default_rng(s).integers(0, 3, (3, 1)))
           for s in range(2)]


def _train(place, main, startup, loss, dtype="float64"):
    """Two steps on `place`; the losses, every scope value read back with np.array, and the raw values."""
    scope = static.Scope()
    with static.scope_guard(scope):
        exe = static.Executor(place)
        exe.run(startup)
        losses = [exe.run(main, feed={"x": xs.astype(dtype), "y": ys}, fetch_list=[loss])[0] for xs, ys in BATCHES]
        values = {n: np.array(scope.find_var(n).get_tensor()) for n in scope.local_var_names()}
    return losses, values, dict(scope._vars)


OPTIMIZERS = {
    "sgd": lambda: paddle.optimizer.SGD(learning_rate=0.1),
    "adam": lambda: paddle.optimizer.Adam(learning_rate=0.05),
    "momentum_global_norm_clip_l2": lambda: paddle.optimizer.Momentum(
        learning_rate=0.1, momentum=0.9, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.5),
        weight_decay=paddle.regularizer.L2Decay(0.01)),
    "adamw_norm_clip": lambda: paddle.optimizer.AdamW(learning_rate=0.05, weight_decay=0.1,
                                                      grad_clip=paddle.nn.ClipGradByNorm(0.3)),
}


@pytest.mark.parametrize("case", OPTIMIZERS)
def test_training_on_the_gpu_equals_the_cpu(case):
    main, startup, loss = _mlp(OPTIMIZERS[case])
    cpu_losses, cpu_values, cpu_raw = _train(paddle.CPUPlace(), main, startup, loss)
    gpu_losses, gpu_values, gpu_raw = _train(paddle.CUDAPlace(0), main, startup, loss)
    assert type(gpu_losses[0]) is np.ndarray and gpu_losses[1] < gpu_losses[0]
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-10)
    assert gpu_values.keys() == cpu_values.keys() and "fc_0.w_0" in gpu_values
    for name, value in cpu_values.items():   # parameters, moments, beta powers, the learning rate
        np.testing.assert_allclose(gpu_values[name], value, rtol=1e-9, atol=1e-12, err_msg=name)
    assert gpu.is_device_array(gpu_raw["fc_0.w_0"]) and type(cpu_raw["fc_0.w_0"]) is np.ndarray
    accumulators = [n for n in gpu_raw if n.endswith(("moment1_0", "moment2_0", "velocity_0"))]
    assert len(accumulators) == {"sgd": 0, "momentum_global_norm_clip_l2": 4}.get(case, 8)  # 4 parameters
    assert all(gpu.is_device_array(gpu_raw[n]) for n in accumulators)
    assert all(type(gpu_raw[n]) is np.ndarray for n in gpu_raw if "pow_acc" in n)  # read by the host each step


def test_executor_without_a_place_runs_where_set_device_points():
    main, startup, loss = _mlp(lambda: paddle.optimizer.SGD(learning_rate=0.1))
    paddle.set_device("gpu")
    try:
        exe = static.Executor()
    finally:
        paddle.set_device("cpu")
    assert exe.place == paddle.CUDAPlace(0) and static.Executor().place == paddle.CPUPlace()
    scope = static.Scope()
    with static.scope_guard(scope):
        exe.run(startup)
        assert gpu.is_device_array(scope._vars["fc_0.w_0"])


def test_a_seed_draws_the_same_parameters_on_either_device():
    main, startup, loss = _mlp(lambda: paddle.optimizer.SGD(learning_rate=0.1))
    main.random_seed = startup.random_seed = 0   # the global generator, seeded the same way twice
    drawn = []
    for place in (paddle.CPUPlace(), paddle.CUDAPlace(0)):
        paddle.seed(11)
        scope = static.Scope()
        with static.scope_guard(scope):
            static.Executor(place).run(startup)
            drawn.append(np.array(scope.find_var("fc_0.w_0").get_tensor()))
    np.testing.assert_array_equal(drawn[0], drawn[1])


def test_fetch_as_gpu_tensors_and_scope_values():
    def body():
        x = static.data("x", [None, 3], "float32")
        return static.nn.fc(x, 2)
    main, startup, out = _build(body)
    scope = static.Scope()
    with static.scope_guard(scope):
        exe = static.Executor(paddle.CUDAPlace(0))
        exe.run(startup)
        xs = np.arange(6, dtype=np.float32).reshape(2, 3)
        (t,) = exe.run(main, feed={"x": xs}, fetch_list=[out], return_numpy=False)
        (a,) = exe.run(main, feed={"x": xs}, fetch_list=[out])
        w = np.array(scope.find_var("fc_0.w_0").get_tensor())
        b = np.array(scope.find_var("fc_0.b_0").get_tensor())
        assert scope.find_var("fc_0.w_0").get_tensor().shape() == [3, 2]
        ones = np.ones((3, 2), np.float32)
        scope.var("fc_0.w_0").get_tensor().set(ones, paddle.CPUPlace())     # a host value: copied on the next run
        assert type(scope._vars["fc_0.w_0"]) is np.ndarray
        (c,) = exe.run(main, feed={"x": xs}, fetch_list=[out])
        assert gpu.is_device_array(scope._vars["fc_0.w_0"])
        scope.var("fc_0.b_0").get_tensor().set(np.zeros(2, np.float32), paddle.CUDAPlace(0))
        assert gpu.is_device_array(scope._vars["fc_0.b_0"])
    assert isinstance(t, paddle.Tensor) and t.place.is_gpu_place() and t.shape == [2, 2]
    np.testing.assert_allclose(t.numpy(), xs @ w + b, rtol=1e-6)
    np.testing.assert_array_equal(a, t.numpy())
    np.testing.assert_allclose(c, xs @ ones + b, rtol=1e-6)


def test_an_op_without_a_gpu_kernel_is_a_clear_error():
    def body():
        x = static.data("x", [2, 2], "float32")
        return paddle.kron(x, x)
    main, startup, out = _build(body)
    exe = static.Executor(paddle.CUDAPlace(0))
    with pytest.raises(Unimplemented, match=r"kron.*no GPU kernel"):
        exe.run(main, feed={"x": np.ones((2, 2), np.float32)}, fetch_list=[out])
    (cpu,) = static.Executor(paddle.CPUPlace()).run(main, feed={"x": np.ones((2, 2), np.float32)}, fetch_list=[out])
    assert cpu.shape == (4, 4)


# ---- control flow -------------------------------------------------------------------------------------
def test_cond_and_while_loop_read_their_predicate_on_the_gpu():
    def body():
        x = static.data("x", [3], "float64")
        picked = static.nn.cond(paddle.sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
        i = paddle.full([1], 0, "int64")
        _, doubled = static.nn.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a * 2.0], [i, x])
        return picked, doubled
    main, _, outs = _build(body)
    for xs in (np.array([1.0, 2.0, -0.5]), np.array([-1.0, 0.5, -3.0])):
        on_cpu = static.Executor(paddle.CPUPlace()).run(main, feed={"x": xs}, fetch_list=list(outs))
        on_gpu = static.Executor(paddle.CUDAPlace(0)).run(main, feed={"x": xs}, fetch_list=list(outs))
        np.testing.assert_array_equal(on_gpu[0], xs * 2.0 if xs.sum() > 0 else xs - 1.0)
        np.testing.assert_array_equal(on_gpu[1], xs * 8.0)
        for g, c in zip(on_gpu, on_cpu):
            np.testing.assert_array_equal(g, c)


def _trains_as_on_the_cpu(head):
    """fc -> head(x, h) -> cross entropy -> SGD.minimize, trained two steps on each device: the same
    losses and scope values. Returns the GPU run's raw scope."""
    def body():
        x = static.data("x", [None, 4], "float64")
        y = static.data("y", [None, 1], "int64")
        loss = paddle.mean(F.cross_entropy(head(x, static.nn.fc(x, 3)), y))
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
        return loss
    main, startup, loss = _build(body)
    cpu_losses, cpu_values, _ = _train(paddle.CPUPlace(), main, startup, loss)
    gpu_losses, gpu_values, gpu_raw = _train(paddle.CUDAPlace(0), main, startup, loss)
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-10)
    for name, value in cpu_values.items():
        np.testing.assert_allclose(gpu_values[name], value, rtol=1e-9, atol=1e-12, err_msg=name)
    return gpu_raw


def test_training_through_cond_on_the_gpu_equals_the_cpu():
    _trains_as_on_the_cpu(lambda x, h: static.nn.cond(paddle.sum(x) > 0, lambda: F.relu(h), lambda: h * 0.5))


def test_training_through_while_loop_on_the_gpu_equals_the_cpu():
    """The while loop's grad sums its steps' gradients with GPU kernels and makes its zeros on the device."""
    def looped(x, h):
        i = paddle.full([1], 0, "int64")
        return static.nn.while_loop(lambda i, a: i < 2, lambda i, a: [i + 1, F.relu(a) * 0.9 + h], [i, h])[1]
    assert gpu.is_device_array(_trains_as_on_the_cpu(looped)["fc_0.w_0"])


# ---- fused kernels ------------------------------------------------------------------------------------
def _shared_then_two(a, b):
    t = a * b
    return [t + 1.0, F.relu(t) * a]


FUSED_CASES = [  # (dtype, outputs from the inputs, input shapes, the input kinds fusion picks)
    ("float32", lambda a, b: [F.gelu(a * b) + b], [[4, 6], [6]], ["a", "r"]),
    ("float64", lambda a, b: [F.relu(a - b) * 2.0], [[3, 5], [3, 5]], ["a", "a"]),
    ("float64", lambda a, s: [paddle.clip(a * s, -0.5, 0.5) + 1.0], [[2, 3, 4], [1]], ["a", "s"]),
    ("float32", lambda a, c: [F.sigmoid(a) * c - a], [[4, 3], [4, 1]], ["a", "b"]),
    ("float64", _shared_then_two, [[3, 4], [3, 4]], ["a", "a"]),
]


@pytest.mark.parametrize("dtype,fn,shapes,kinds", FUSED_CASES, ids=["row", "full", "scalar", "column", "two_outs"])
def test_the_generated_cuda_kernel_equals_the_cpu_loop_and_the_unfused_ops(dtype, fn, shapes, kinds):
    from minipaddle.framework.kernels.cuda import fused as cuda_fused
    main, _, outs = _build(lambda: fn(*[static.data(f"x{i}", s, dtype) for i, s in enumerate(shapes)]))
    fused, _ = fuse_elementwise(main, fetch_list=outs)
    (op,) = [op for op in fused.global_block().ops if op.type == "fused_elementwise"]
    assert op.attrs["input_kinds"] == kinds and len(op.outputs["Out"]) == len(outs)
    feed = {f"x{i}": np.random.default_rng(i).standard_normal(s).astype(dtype) for i, s in enumerate(shapes)}
    unfused = static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=outs)
    cpu_loop = static.Executor(paddle.CPUPlace()).run(fused, feed=feed, fetch_list=outs)
    unfused_gpu = static.Executor(paddle.CUDAPlace(0)).run(main, feed=feed, fetch_list=outs)
    on_gpu = static.Executor(paddle.CUDAPlace(0)).run(fused, feed=feed, fetch_list=outs)
    assert fused_source(op, device="gpu") in cuda_fused._BY_SOURCE   # the generated kernel ran, no fallback
    tol = 2e-6 if dtype == "float32" else 1e-13
    for g, c, u, ug in zip(on_gpu, cpu_loop, unfused, unfused_gpu):
        assert g.dtype == np.dtype(dtype)
        np.testing.assert_allclose(g, c, rtol=tol, atol=tol)
        np.testing.assert_allclose(g, u, rtol=tol, atol=tol)
        np.testing.assert_allclose(g, ug, rtol=tol, atol=tol)


def test_a_fused_training_program_with_buffer_reuse_trains_as_on_the_cpu():
    from minipaddle.framework.static.passes.buffer_reuse import BufferPool
    main, startup, loss = _mlp(lambda: paddle.optimizer.Adam(learning_rate=0.05),
                               activation=lambda h: F.relu(h * 2.0 + 0.5) - h)   # chains forward and backward
    fused, report = fuse_elementwise(main, fetch_list=[loss])
    assert report.fused
    assert any(op.attrs.get("row_sums") for op in fused.global_block().ops)  # a bias gradient summed with its loop
    planned, _ = buffer_reuse(fused, fetch_list=[loss], batch_size=3)
    cpu_losses, cpu_values, _ = _train(paddle.CPUPlace(), main, startup, loss)
    gpu_losses, gpu_values, _ = _train(paddle.CUDAPlace(0), planned, startup, loss)
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-10)
    for name, value in cpu_values.items():
        np.testing.assert_allclose(gpu_values[name], value, rtol=1e-9, atol=1e-12, err_msg=name)
    exe = static.Executor(paddle.CUDAPlace(0))
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        for xs, ys in BATCHES:
            exe.run(planned, feed={"x": xs, "y": ys}, fetch_list=[loss])
    (pool,) = exe._pools.values()
    assert isinstance(pool, BufferPool) and pool.backend == "gpu" and pool.steps
    assert pool.allocated > 0 and pool.reused > 0   # the second step writes into the first step's buffers


def test_a_fused_conv_bias_and_its_gradient_sum_train_on_the_gpu_as_on_the_cpu():
    def body():
        x = static.data("x", [None, 2, 5, 5], "float32")
        h = F.relu(paddle.nn.Conv2D(2, 3, 3, padding=1)(x))
        loss = paddle.mean(h * h)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
        return loss
    main, startup, loss = _build(body)
    fused, _ = fuse_elementwise(main, fetch_list=[loss])
    kinds = [op.attrs["input_kinds"] for op in fused.global_block().ops if op.type == "fused_elementwise"]
    assert ["a", "p"] in kinds                                              # the bias, one value per channel
    assert any(op.attrs.get("row_axes") == [1, 2] for op in fused.global_block().ops)   # its gradient's sum
    xs = np.random.default_rng(0).standard_normal((4, 2, 5, 5)).astype(np.float32)
    results = []
    for place, program in ((paddle.CPUPlace(), main), (paddle.CUDAPlace(0), fused)):
        with static.scope_guard(static.Scope()):
            exe = static.Executor(place)
            exe.run(startup)
            results.append([exe.run(program, feed={"x": xs}, fetch_list=[loss])[0] for _ in range(2)])
    np.testing.assert_allclose(np.array(results[1], dtype=float), np.array(results[0], dtype=float), rtol=1e-5)
    assert results[0][1] < results[0][0]   # it trained


@pytest.mark.parametrize("n_in", [3, 24])   # 3: the first layer's product is in a loop too (no full-size input)
def test_a_skinny_product_in_the_fused_loop_trains_on_the_gpu_as_on_the_cpu(n_in, monkeypatch):
    from minipaddle.framework.kernels.cuda import fused as cuda_fused

    def unfused(*args, **kwargs):
        raise AssertionError("the generated CUDA kernel should have run")
    monkeypatch.setattr(cuda_fused, "run_unfused", unfused)

    def body():
        x = static.data("x", [None, n_in], "float32")
        y = static.data("y", [None], "int64")
        h = F.relu(paddle.nn.Linear(n_in, 12)(x))
        loss = F.cross_entropy(paddle.nn.Linear(12, 5)(h), y)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
        return loss
    main, startup, loss = _build(body)
    fused, _ = fuse_elementwise(main, fetch_list=[loss])
    products = [op.attrs["product"] for op in fused.global_block().ops if op.attrs.get("product")]
    assert [5, False, True] in products                     # relu_grad(h, dout @ W^T): K = 5 classes
    assert ([n_in, False, False] in products) == (n_in <= 16)
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((7, n_in)).astype(np.float32), "y": rng.integers(0, 5, 7)}
    results = []
    for place, program in ((paddle.CPUPlace(), main), (paddle.CUDAPlace(0), fused)):
        with static.scope_guard(static.Scope()):
            exe = static.Executor(place)
            exe.run(startup)
            results.append([exe.run(program, feed=feed, fetch_list=[loss])[0] for _ in range(3)])
    np.testing.assert_allclose(np.array(results[1], dtype=float), np.array(results[0], dtype=float), rtol=1e-5)
    assert results[0][2] < results[0][0]   # it trained


def test_the_debugger_records_a_gpu_run_and_shows_both_kernel_sources():
    main, startup, loss = _mlp(lambda: paddle.optimizer.SGD(learning_rate=0.1),
                               activation=lambda h: F.relu(h * 2.0 + 0.5) - h)
    fused, _ = fuse_elementwise(main, fetch_list=[loss])
    exe = static.Executor(paddle.CUDAPlace(0))
    with static.scope_guard(static.Scope()), paddle.debug.record() as rec:
        exe.run(startup)
        (value,) = exe.run(fused, feed={"x": BATCHES[0][0], "y": BATCHES[0][1]}, fetch_list=[loss])
    doc = rec.trace.to_dict()
    jsonschema.Draft202012Validator(load_schema()).validate(doc)
    run = doc["program_runs"][-1]
    np.testing.assert_allclose(run["fetch"][loss.name]["values"], [float(value)], rtol=1e-12)
    step = next(s for s in run["steps"] if s["type"] == "fused_elementwise")
    assert all(out["values"] is not None for out in step["outputs"].values())   # read back from the device
    program = next(p for p in doc["programs"] if p["id"] == run["program"])
    op = next(op for op in program["blocks"][0]["ops"] if op["type"] == "fused_elementwise")
    assert "@njit" in op["attrs"]["source"] and "@cuda.jit" in op["attrs"]["cuda_source"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_every_primitive_in_the_generated_cuda_kernel_equals_its_gpu_op_kernel(dtype):
    from minipaddle.framework.kernels.cpu import fused as cpu_fused, fused_codegen
    from minipaddle.framework.kernels.cuda import fused as cuda_fused
    rules = fused_codegen.RULES
    unary = [t for t, (fn, names) in rules.items() if t not in fused_codegen.BINARY_OPS and not names]
    with_attrs = [("leaky_relu", {"negative_slope": 0.2}), ("elu", {"alpha": 0.7}),
                  ("softplus", {"beta": 2.0, "threshold": 3.0}), ("hardsigmoid", {"slope": 0.3, "offset": 0.4}),
                  ("hardtanh", {"min": 0.5, "max": 1.2}), ("clip", {"min": None, "max": 1.1}),
                  ("gelu", {"approximate": True}), ("scale", {"scale": 2.0, "bias": 0.5, "bias_after_scale": False})]
    calls = [(t, {}, ["x0"]) for t in unary] + [(t, a, ["x0"]) for t, a in with_attrs]
    calls += [(t, {}, ["x0", "x1"]) for t in sorted(fused_codegen.BINARY_OPS)]
    calls += [("elementwise_pow", {}, ["x0", "=2.0"])]
    steps = [{"type": t, "attrs": a, "args": args, "out": f"t{i}"} for i, (t, a, args) in enumerate(calls)]
    outputs = [s["out"] for s in steps]
    rng = np.random.default_rng(1)
    x, y = rng.uniform(0.1, 2.0, 64).astype(dtype), rng.uniform(0.5, 1.5, 64).astype(dtype)
    name, source = fused_codegen.generate_cuda_source(steps, ["a", "a"], outputs, dtype)
    got = cuda_fused.fused_elementwise_kernel(gpu.to_device(x), gpu.to_device(y), cuda_source=source,
                                              input_kinds=["a", "a"], steps=steps, outputs=outputs, dtype=dtype)
    assert source in cuda_fused._BY_SOURCE
    assert (cpu_fused.cache_dir() / f"{name}.py").read_text() == source   # a file: numba caches its machine code
    want = cpu_fused.run_unfused([gpu.to_device(x), gpu.to_device(y)], steps, outputs, np.dtype(dtype), backend="gpu",
                                 constant=lambda v, dt: gpu.to_device(np.array([v], dt)))
    tol = 1e-6 if dtype == "float32" else 1e-12
    for step, g, w in zip(steps, got, want):
        assert g.dtype == np.dtype(dtype)
        np.testing.assert_allclose(gpu.to_host(g), gpu.to_host(w), rtol=tol, atol=tol, err_msg=step["type"])


def test_inputs_that_do_not_fit_the_kernel_run_the_unfused_gpu_ops():
    def body():
        a = static.data("a", [None, 8], "float32")
        b = static.data("b", [None, 8], "float32")
        return paddle.square(a) * F.relu(b) + 1.5
    main, _, out = _build(body)
    fused, _ = fuse_elementwise(main, fetch_list=[out])
    exe = static.Executor(paddle.CUDAPlace(0))
    for shape_a in [(5, 8), (1, 8)]:                       # (1, 8) broadcasts against b's (5, 8) at run time
        feed = {"a": np.random.default_rng(2).standard_normal(shape_a).astype(np.float32),
                "b": np.random.default_rng(3).standard_normal((5, 8)).astype(np.float32)}
        (want,) = static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=[out])
        (got,) = exe.run(fused, feed=feed, fetch_list=[out])
        assert got.shape == want.shape == (5, 8)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
