"""Elementwise fusion: which ops fuse, the generated kernel (printable, cached on disk, equal to the
unfused ops), its fallback, and what a fused program cannot do (append_backward)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import static
from minipaddle.framework.errors import Unimplemented
from minipaddle.framework.kernels.cpu import fused, fused_codegen
from minipaddle.framework.static.passes import apply_passes, fuse_elementwise, fused_source

from .programs import CASES, run_case


def _fused_ops(program):
    return [op for op in program.global_block().ops if op.type == "fused_elementwise"]


def test_gelu_chain_becomes_one_kernel_with_printable_source():
    case = CASES["gelu_forward"]()
    out, report = fuse_elementwise(case.main, case.fetch)
    (op,) = _fused_ops(out)
    # the linear's bias add joins the loop (the GEMM epilogue): the product, then one kernel
    assert [o.type for o in out.global_block().ops] == ["matmul", "fused_elementwise"]
    assert op.attrs["input_kinds"] == ["a", "r"] and report.details["epilogues"] == [case.main.global_block().ops[0]
                                                                                      .output_names()[0]]
    assert op.outputs["Out"] == [v.name for v in reversed(case.fetch)]  # gelu's result is fetched too
    source = fused_source(op)
    assert source == op.attrs["source"]
    assert '@njit(cache=True, nogil=True, error_model="numpy")' in source
    assert f"def {op.attrs['kernel_name']}(" in source
    assert "def prim_gelu_fast(x):" in source and "erf_f32(x * np.float32(0.7071067811865476))" in source
    assert "def erf_f32(x):" in source                     # float32: vectorizable erf, no libm call
    assert "math.erf" not in source
    assert "np.float32(prim_leaky_relu(t0, np.float32(0.1)))" in source
    assert "t0 = np.float32(prim_add(x0[i], x1[j]))" in source   # the bias row, read in place
    assert op.attrs["expression"].startswith("t0 = add(x0, x1); t1 = gelu(t0)")
    (entry,) = report.fused
    assert len(entry["from"]) == 11 and entry["into"]["type"] == "fused_elementwise"
    compile(source, "<fused>", "exec")                     # the source is a valid module


def test_fused_program_matches_torch():
    torch = pytest.importorskip("torch")   # tests.ops.opcheck.torch_or_skip's rule (not importable from here)
    case = CASES["gelu_forward"]()
    out, _ = fuse_elementwise(case.main, case.fetch)
    rng = np.random.default_rng(0)
    feed = case.feed(rng)
    exe, scope = static.Executor(), static.Scope()
    exe.run(case.startup, scope=scope)
    clipped, g = exe.run(out, feed=feed, fetch_list=case.fetch, scope=scope)
    w, b = (np.asarray(scope.find_var(p.name).get_tensor()) for p in case.main.all_parameters())
    h = torch.tensor(feed["x"]) @ torch.tensor(w) + torch.tensor(b)
    tg = torch.nn.functional.gelu(h)
    want = tg * torch.nn.functional.relu6(tg) + tg * tg * 0.1 - torch.nn.functional.leaky_relu(h, 0.1) / 3.0
    np.testing.assert_allclose(g, tg.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(clipped, torch.clamp(want, -2.0, 2.0).numpy(), rtol=1e-5, atol=1e-6)


def test_every_primitive_in_the_generated_loop_equals_its_op_kernel():
    unary = [t for t, (fn, names) in fused_codegen.RULES.items() if t not in fused_codegen.BINARY_OPS and not names]
    steps = [{"type": t, "attrs": {}, "args": ["x0"], "out": f"t{i}"} for i, t in enumerate(unary)]
    with_attrs = [("leaky_relu", {"negative_slope": 0.2}), ("elu", {"alpha": 0.7}),
                  ("softplus", {"beta": 2.0, "threshold": 3.0}), ("hardsigmoid", {"slope": 0.3, "offset": 0.4}),
                  ("hardtanh", {"min": 0.5, "max": 1.2}), ("clip", {"min": None, "max": 1.1}),
                  ("gelu", {"approximate": True}), ("scale", {"scale": 2.0, "bias": 0.5, "bias_after_scale": False})]
    steps += [{"type": t, "attrs": a, "args": ["x0"], "out": f"t{len(steps) + i}"}
              for i, (t, a) in enumerate(with_attrs)]
    binary = sorted(fused_codegen.BINARY_OPS)
    steps += [{"type": t, "attrs": {}, "args": ["x0", "x1"], "out": f"t{len(steps) + i}"}
              for i, t in enumerate(binary)]
    outputs = [s["out"] for s in steps]
    rng = np.random.default_rng(1)
    x = rng.uniform(0.1, 2.0, 64)
    y = rng.uniform(0.5, 1.5, 64)
    name, source = fused_codegen.generate_source(steps, ["a", "a"], outputs, np.float64)
    got = fused.fused_elementwise_kernel(x, y, kernel_name=name, source=source, input_kinds=["a", "a"],
                                         steps=steps, outputs=outputs, dtype=np.float64)
    want = fused.run_unfused([x, y], steps, outputs, np.dtype(np.float64))
    for step, g, w in zip(steps, got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14, err_msg=step["type"])


def test_fallback_runs_the_ops_when_full_inputs_broadcast_at_run_time():
    main = static.Program()
    with static.program_guard(main):
        a = static.data("a", [None, 8], "float32")
        b = static.data("b", [None, 8], "float32")
        out = paddle.square(a) * F.relu(b) + 1.5
    fused_main, _ = fuse_elementwise(main, [out])
    assert len(_fused_ops(fused_main)) == 1
    rng = np.random.default_rng(2)
    exe = static.Executor()
    for shape_a in [(5, 8), (1, 8)]:                       # (1, 8) broadcasts against b's (5, 8)
        feed = {"a": rng.standard_normal(shape_a).astype(np.float32),
                "b": rng.standard_normal((5, 8)).astype(np.float32)}
        (want,) = exe.run(main, feed=feed, fetch_list=[out])
        (got,) = exe.run(fused_main, feed=feed, fetch_list=[out])
        assert got.shape == want.shape == (5, 8)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_an_outside_reader_in_between_splits_the_group():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 4], "float32")
        h = paddle.sqrt(x * x + 1.0) * 2.0
        total = paddle.sum(h)                              # reads h before tanh runs
        out = F.relu(h) - 1.0
    fused_main, report = fuse_elementwise(main, [out, total])
    types = [op.type for op in fused_main.global_block().ops]
    assert types == ["fused_elementwise", "sum", "fused_elementwise"]
    first, second = _fused_ops(fused_main)
    assert first.outputs["Out"] == [h.name] and second.inputs["X"] == [h.name]
    feed = {"x": np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)}
    exe = static.Executor()
    for w, g in zip(exe.run(main, feed=feed, fetch_list=[out, total]),
                    exe.run(fused_main, feed=feed, fetch_list=[out, total])):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_forward_and_backward_ops_fuse_separately():
    case = CASES["gelu_mlp_train"]()
    out, report = apply_passes(case.main, case.fetch)
    roles = {op.role for op in _fused_ops(out)}
    assert roles == {"forward", "backward"}
    before = apply_passes(case.main, case.fetch, passes=["algebraic", "constant_folding", "cse", "dce"])[0]
    for entry in report["fuse_elementwise"].fused:
        sources = {before.global_block().ops[r["index"]].role for r in entry["from"]}
        assert sources == {out.global_block().ops[entry["into"]["index"]].role}


def _transcendental_program(dtype: str):
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 8], dtype)
        out = paddle.tanh(x * 2.0 + 1.0) * F.sigmoid(x) - paddle.exp(x) + paddle.erf(x) * F.silu(x) + x ** 3.0
    return main, out


def test_float64_libm_ops_are_left_out():
    main, out = _transcendental_program("float64")
    fused_main, report = fuse_elementwise(main, [out])
    types = [op.type for op in fused_main.global_block().ops]
    assert {"tanh", "sigmoid", "exp"} <= set(types)   # numba would call libm per element
    assert all(not fused_codegen.slow_in_loop(s["type"], np.float64) for op in _fused_ops(fused_main)
               for s in op.attrs["steps"])


def test_float32_transcendental_ops_fuse_into_one_vectorizable_kernel():
    main, out = _transcendental_program("float32")
    fused_main, _ = fuse_elementwise(main, [out])
    (op,) = _fused_ops(fused_main)
    assert [o.type for o in fused_main.global_block().ops] == ["fused_elementwise"]
    source = fused_source(op)
    for name in ("tanh_f32", "exp_f32", "erf_f32", "prim_pow_3"):
        assert f"def {name}(" in source
    assert "math.tanh" not in source and "math.exp" not in source
    xs = np.random.default_rng(0).uniform(-5, 5, (64, 8)).astype(np.float32)
    xs[0, :6] = [0.0, -100.0, 100.0, 1e-3, -12.0, 12.0]   # tails: exp overflows, tanh/erf saturate
    exe = static.Executor()
    with np.errstate(over="ignore"):  # exp(100) overflows to inf in float32, as numpy says
        (want,) = exe.run(main, feed={"x": xs}, fetch_list=[out])
    (got,) = exe.run(fused_main, feed={"x": xs}, fetch_list=[out])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)  # float32 rounding of x ** 3 ~ 125


def test_no_fusion_for_integers_single_ops_or_unknown_ops():
    main = static.Program()
    with static.program_guard(main):
        i = static.data("i", [None, 3], "int64")
        x = static.data("x", [None, 3], "float32")
        outs = [i + i * 2, paddle.exp(x), F.softmax(x) * 2.0]
    fused_main, report = fuse_elementwise(main, outs)
    assert not report.fused and [op.type for op in fused_main.global_block().ops] == [
        op.type for op in main.global_block().ops]


def test_append_backward_on_a_fused_program_raises_clearly():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [None, 3], "float32")
        x.stop_gradient = False
        loss = paddle.mean(F.relu(x) * paddle.square(x))
    fused_main, _ = apply_passes(main, [loss], passes=["fusion"])
    loss = fused_main.global_block().var(loss.name)
    with static.program_guard(fused_main, startup):
        static.append_backward(loss, parameter_list=[fused_main.global_block().var("x")])
    with pytest.raises(Unimplemented, match="fused op has no backward rule.*Hint: call append_backward"):
        static.Executor().run(fused_main, feed={"x": np.ones((2, 3), np.float32)}, fetch_list=[loss])


def test_fusion_keeps_training_equal_over_steps():
    case = CASES["gelu_mlp_train"]()
    out, _ = fuse_elementwise(case.main, case.fetch)
    for w, g in zip(run_case(case, case.main, seed=5), run_case(case, out, seed=5)):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)


def test_a_new_process_loads_the_compiled_kernel_from_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MINIPADDLE_FUSED_CACHE", str(tmp_path))
    steps = [{"type": "multiply", "attrs": {}, "args": ["x0", "=0.123456789"], "out": "t0"},
             {"type": "sigmoid", "attrs": {}, "args": ["t0"], "out": "t1"}]
    name, source = fused_codegen.generate_source(steps, ["a"], ["t1"], np.float64)
    fused._KERNELS.pop(name, None)
    fn = fused.load_kernel(name, source)
    fn(np.ones(4), np.empty(4))
    assert (tmp_path / f"{name}.py").read_text() == source
    assert sum(fn.stats.cache_misses.values()) == 1        # compiled here, written to the cache
    script = textwrap.dedent(f"""
        import numpy as np
        from minipaddle.framework.kernels.cpu import fused
        fn = fused.load_kernel({name!r}, open({str(tmp_path / (name + '.py'))!r}).read())
        out = np.empty(4)
        fn(np.ones(4), out)
        print(sum(fn.stats.cache_hits.values()), sum(fn.stats.cache_misses.values()), out[0])
    """)
    env = dict(os.environ, MINIPADDLE_FUSED_CACHE=str(tmp_path))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    hits, misses, value = result.stdout.split()
    assert (hits, misses) == ("1", "0"), result.stderr
    assert float(value) == pytest.approx(1.0 / (1.0 + np.exp(-0.123456789)))


def test_a_bias_row_is_read_in_place_by_an_inner_loop():
    main = static.Program()
    with static.program_guard(main):
        x = static.data("x", [None, 3, 8], "float32")
        w = static.data("w", [8, 8], "float32")
        b = static.data("b", [8], "float32")
        rb = static.data("rb", [3, 8], "float32")       # another row length: expanded, not read in place
        h = paddle.matmul(x, w) + b
        out = F.gelu(h * 0.5 + rb, approximate=True) * h
    fused_main, _ = fuse_elementwise(main, [out])
    (op,) = _fused_ops(fused_main)
    kinds = dict(zip(op.inputs["X"], op.attrs["input_kinds"]))
    assert kinds[b.name] == "r" and kinds[rb.name] == "b"
    source = fused_source(op)
    assert "for j in range(row):" in source and "[j]" in source
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((5, 3, 8)).astype(np.float32), "w": rng.standard_normal((8, 8)).astype(np.float32),
            "b": rng.standard_normal(8).astype(np.float32), "rb": rng.standard_normal((3, 8)).astype(np.float32)}
    exe = static.Executor()
    (want,) = exe.run(main, feed=feed, fetch_list=[out])
    (got,) = exe.run(fused_main, feed=feed, fetch_list=[out])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
