"""paddle.inference: Config + create_predictor run a saved model through Paddle's handle API."""
from __future__ import annotations

import os

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import inference
from minipaddle.framework.errors import InvalidArgument, NotFound, PreconditionNotMet

SPEC = [paddle.static.InputSpec([None, 4], "float32", "x")]


@pytest.fixture
def saved(tmp_path):
    paddle.seed(3)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 3))
    net.eval()
    paddle.jit.save(net, str(tmp_path / "mlp"), input_spec=SPEC)
    x = np.random.default_rng(0).random((5, 4)).astype("float32")
    return str(tmp_path / "mlp"), net, x


def _predict(config, x):
    predictor = inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    handle.reshape(list(x.shape))
    handle.copy_from_cpu(x)
    assert predictor.run() is None
    return predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()


def test_the_two_files_or_their_prefix_run_the_model(saved):
    prefix, net, x = saved
    expected = net(paddle.to_tensor(x)).numpy()
    for config in (inference.Config(prefix + ".json", prefix + ".pdiparams"), inference.Config(prefix),
                   inference.Config(os.path.dirname(prefix))):
        np.testing.assert_allclose(_predict(config, x), expected, rtol=1e-6)
    predictor = inference.create_predictor(inference.Config(prefix))
    assert predictor.get_input_names() == ["x"] and predictor.get_output_names() == ["fetch_name_0"]
    (out,) = predictor.run([paddle.to_tensor(x)])                      # Paddle 3's newer form
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    output = predictor.get_output_handle("fetch_name_0")
    assert output.shape() == [5, 3] and output.type() == inference.DataType.FLOAT32


def test_every_reader_of_the_files_agrees(saved, tmp_path):
    prefix, net, x = saved
    model = paddle.Model(net, inputs=SPEC)
    model.save(str(tmp_path / "hapi"), training=False)
    a = _predict(inference.Config(str(tmp_path / "hapi")), x)
    exe = paddle.static.Executor()
    program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
    (b,) = exe.run(program, feed={feeds[0]: x}, fetch_list=fetches)
    np.testing.assert_allclose(a, b, rtol=1e-6)


def test_engine_options_are_accepted_recorded_and_summarised(saved):
    prefix, net, x = saved
    config = inference.Config(prefix + ".json", prefix + ".pdiparams")
    config.enable_use_gpu(256, 0)
    config.enable_mkldnn()
    config.switch_ir_optim(False)
    config.set_cpu_math_library_num_threads(4)
    config.enable_memory_optim()
    config.enable_tensorrt_engine(workspace_size=1 << 30, precision_mode=inference.PrecisionType.Half)
    config.disable_glog_info()
    assert not config.use_gpu() and not config.mkldnn_enabled() and not config.ir_optim()
    assert config.cpu_math_library_num_threads() == 4
    summary = config.summary()
    assert "| model_file" in summary and prefix + ".json" in summary
    assert "use_gpu" in summary and "false (requested true: this build runs every Program on the CPU)" in summary
    assert "| ir_optim" in summary and "| cpu_math_thread" in summary
    np.testing.assert_allclose(_predict(config, x), net(paddle.to_tensor(x)).numpy(), rtol=1e-6)
    config.disable_gpu()
    assert "use_gpu" in config.summary() and "requested" not in config.summary().split("use_gpu")[1].split("\n")[0]


def test_predictors_keep_their_own_state(saved):
    prefix, net, x = saved
    first = inference.create_predictor(inference.Config(prefix))
    second = first.clone()
    first.get_input_handle("x").copy_from_cpu(x)
    first.run()
    with pytest.raises(PreconditionNotMet, match=r"input\(s\) \['x'\] have no data"):
        second.run()
    with pytest.raises(PreconditionNotMet, match="holds no data yet"):
        second.get_output_handle("fetch_name_0").copy_to_cpu()


def test_clear_errors(saved, tmp_path):
    prefix, net, x = saved
    predictor = inference.create_predictor(inference.Config(prefix))
    with pytest.raises(PreconditionNotMet, match=r"no input 'image'.*\['x'\]"):
        predictor.get_input_handle("image")
    with pytest.raises(PreconditionNotMet, match="no output 'out'"):
        predictor.get_output_handle("out")
    handle = predictor.get_input_handle("x")
    handle.reshape([2, 4])
    with pytest.raises(InvalidArgument, match=r"reshaped to \[2, 4\], the data has shape \[5, 4\]"):
        handle.copy_from_cpu(x)
    with pytest.raises(InvalidArgument, match="expected a numpy array"):
        handle.copy_from_cpu([1.0, 2.0])
    handle.reshape([5, 4])
    handle.copy_from_cpu(x.astype("float64"))
    with pytest.raises(InvalidArgument, match="feed 'x' has dtype float64, expected float32"):
        predictor.run()
    with pytest.raises(NotFound, match="no model file"):
        inference.create_predictor(inference.Config(str(tmp_path / "nothing")))
    with pytest.raises(InvalidArgument, match="names no model"):
        inference.create_predictor(inference.Config())
    with pytest.raises(InvalidArgument, match="expected a paddle.inference.Config"):
        inference.create_predictor(prefix)
    with open(prefix + ".pdiparams", "r+b") as f:
        f.seek(40)
        f.write(b"\x00" * 16)
    with pytest.raises(InvalidArgument, match="mlp.pdiparams'"):
        inference.create_predictor(inference.Config(prefix))
