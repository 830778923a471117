"""Golden cases: dy2static and saving -- to_tensor inside to_static, jit.save of what a Layer has,
every @to_static method, Model.save for inference, Program.state_dict, static.save/load, the file
names Paddle 3 writes, paddle.hub from a local folder and paddle.inference's Predictor.

Parameters are set from numpy so both frameworks hold the same values; files go to a fresh
temporary folder that each case removes.
"""
import os
import shutil
import tempfile

import numpy as np

from .harness import case, outcome


def _fill(layer):
    """Give every parameter the same values in Paddle and minipaddle."""
    for i, p in enumerate(layer.parameters()):
        size = int(np.prod(p.shape))
        p.set_value(np.linspace(-1.0 + 0.1 * i, 1.0, size).reshape(p.shape).astype("float32"))
    return layer


def _x(rows=4, cols=3):
    return (np.arange(rows * cols, dtype="float32").reshape(rows, cols) % 5 - 2) / 2


def _files(folder):
    return sorted(os.listdir(folder))


@case
def to_tensor_of_a_numpy_argument_inside_to_static(paddle):
    @paddle.jit.to_static
    def double(x):
        t = paddle.to_tensor(x)
        return t * 2.0

    @paddle.jit.to_static
    def as_int64(x):
        return paddle.to_tensor(x, dtype="int64")

    x = _x()
    return {"double": double(x), "int64": as_int64(x * 2)}


def _dropout_net(paddle):
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 2)
            self.drop = paddle.nn.Dropout(0.5)

        @paddle.jit.to_static
        def forward(self, x):
            return self.drop(self.fc(x))

    return _fill(Net())


@case
def jit_save_of_a_layer_that_only_ran_in_train_mode(paddle):
    folder = tempfile.mkdtemp()
    try:
        net = _dropout_net(paddle)
        x = paddle.to_tensor(_x())
        net.train()
        net(x)
        paddle.jit.save(net, os.path.join(folder, "m"))          # no input_spec: the Program it has
        loaded = paddle.jit.load(os.path.join(folder, "m"))
        loaded.eval()
        return {"files": _files(folder), "loaded_eval": loaded(x), "eager_eval": net.eval()(x)}
    finally:
        shutil.rmtree(folder)


def _two_methods(paddle):
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(3, 2)

        @paddle.jit.to_static
        def forward(self, x):
            return self.fc(x)

        @paddle.jit.to_static
        def infer(self, x):
            return paddle.nn.functional.softmax(self.fc(x) * 2.0)

    return _fill(Net())


@case
def jit_save_of_every_to_static_method(paddle):
    folder = tempfile.mkdtemp()
    try:
        net = _two_methods(paddle)
        x = paddle.to_tensor(_x())
        net(x)
        net.infer(x)
        paddle.jit.save(net, os.path.join(folder, "m"))
        loaded = paddle.jit.load(os.path.join(folder, "m"))
        return {"files": _files(folder), "forward": loaded(x), "infer": loaded.infer(x)}
    finally:
        shutil.rmtree(folder)


@case(differs="Paddle 3.3.1's loaded (PIR) TranslatedLayer gives its parameters no gradient (grad None), so "
              "an optimizer step changes nothing; minipaddle's loaded model fine-tunes")
def fine_tuning_a_loaded_model(paddle):
    folder = tempfile.mkdtemp()
    try:
        net = _two_methods(paddle)
        x = paddle.to_tensor(_x())
        net(x)
        net.infer(x)
        paddle.jit.save(net, os.path.join(folder, "m"))
        loaded = paddle.jit.load(os.path.join(folder, "m"))
        opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=loaded.parameters())
        loaded(x)[:, 0].sum().backward()
        opt.step()
        return {"forward_after_a_step": loaded(x), "infer_after_a_step": loaded.infer(x)}
    finally:
        shutil.rmtree(folder)


@case
def jit_save_of_methods_refuses_what_it_cannot_save(paddle):
    folder = tempfile.mkdtemp()
    try:
        net = _two_methods(paddle)
        x = paddle.to_tensor(_x())
        net(x)
        never_called = outcome(lambda: paddle.jit.save(net, os.path.join(folder, "a")))
        net.infer(x)
        spec = [paddle.static.InputSpec([None, 3], "float32", "x")]
        spec_beside_methods = outcome(lambda: paddle.jit.save(net, os.path.join(folder, "b"), input_spec=spec))
        return {"never_called": never_called, "input_spec_beside_methods": spec_beside_methods}
    finally:
        shutil.rmtree(folder)


@case
def model_save_for_inference(paddle):
    folder = tempfile.mkdtemp()
    try:
        net = _fill(paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.ReLU(), paddle.nn.Linear(4, 2)))
        bare = paddle.Model(paddle.nn.Linear(3, 2))
        no_inputs = outcome(lambda: bare.save(os.path.join(folder, "bare"), training=False))
        model = paddle.Model(net, inputs=[paddle.static.InputSpec([None, 3], "float32", "x")])
        model.save(os.path.join(folder, "inference"), training=False)
        paddle.enable_static()
        exe = paddle.static.Executor(paddle.CPUPlace())
        program, feeds, fetches = paddle.static.load_inference_model(os.path.join(folder, "inference"), exe)
        (got,) = exe.run(program, feed={feeds[0]: _x()}, fetch_list=fetches)
        paddle.disable_static()
        return {"no_inputs_no_batch": no_inputs, "files": _files(folder), "feeds": feeds, "out": got}
    finally:
        paddle.disable_static()
        shutil.rmtree(folder)


def _static_fc(paddle):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.utils.unique_name.guard(), paddle.static.program_guard(main, startup):   # fc_0, whatever ran before
        x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
        weight = paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.5))
        pred = paddle.static.nn.fc(x, 2, weight_attr=weight)
        loss = paddle.mean(pred * pred)
        paddle.optimizer.Adam(learning_rate=0.1).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return main, x, pred, loss, exe


@case
def program_state_dict_and_static_save_load(paddle):
    folder = tempfile.mkdtemp()
    paddle.enable_static()
    try:
        main, x, pred, loss, exe = _static_fc(paddle)
        modes = {mode: sorted(main.state_dict(mode)) for mode in ("all", "param", "opt")}
        shapes = {k: list(np.array(v).shape) for k, v in main.state_dict("param").items()}
        bad_mode = outcome(lambda: main.state_dict("weights"))
        main.set_state_dict(main.state_dict(), paddle.static.global_scope())
        feed = {"x": _x()}
        exe.run(main, feed=feed, fetch_list=[pred])                       # one step: state 1
        paddle.static.save(main, os.path.join(folder, "state"))
        after_save = [exe.run(main, feed=feed, fetch_list=[pred, loss]) for _ in range(3)]
        paddle.static.load(main, os.path.join(folder, "state"), exe)       # back to state 1, Adam's moments too
        after_load = [exe.run(main, feed=feed, fetch_list=[pred, loss]) for _ in range(3)]
        return {"keys": modes, "param_shapes": shapes, "bad_mode": bad_mode, "files": _files(folder),
                "after_save": after_save, "after_load": after_load}
    finally:
        paddle.disable_static()
        shutil.rmtree(folder)


@case
def save_inference_model_file_names(paddle):
    folder = tempfile.mkdtemp()
    paddle.enable_static()
    try:
        main, x, pred, loss, exe = _static_fc(paddle)
        paddle.static.save_inference_model(os.path.join(folder, "fc"), [x], [pred], exe, program=main)
        program, feeds, fetches = paddle.static.load_inference_model(os.path.join(folder, "fc"), exe)
        (out,) = exe.run(program, feed={feeds[0]: _x()}, fetch_list=fetches)
        return {"files": _files(folder), "feeds": feeds, "out": out}
    finally:
        paddle.disable_static()
        shutil.rmtree(folder)


HUBCONF = '''import paddle

dependencies = ["numpy"]


def tiny(out_features=2):
    """One Linear layer: 3 features in."""
    return paddle.nn.Linear(3, out_features)


def _helper():
    return None
'''


@case
def hub_from_a_local_folder(paddle):
    folder = tempfile.mkdtemp()
    try:
        with open(os.path.join(folder, "hubconf.py"), "w") as f:
            f.write(HUBCONF)
        net = paddle.hub.load(folder, "tiny", source="local", out_features=5)
        return {"list": paddle.hub.list(folder, source="local"),
                "help": paddle.hub.help(folder, "tiny", source="local"),
                "weight_shape": list(net.weight.shape), "is_layer": isinstance(net, paddle.nn.Layer),
                "unknown_source": outcome(lambda: paddle.hub.list(folder, source="ftp")),
                "unknown_entry": outcome(lambda: paddle.hub.load(folder, "huge", source="local"))}
    finally:
        shutil.rmtree(folder)


@case
def inference_predictor_runs_a_saved_model(paddle):
    folder = tempfile.mkdtemp()
    try:
        net = _fill(paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Tanh(), paddle.nn.Linear(4, 2)))
        prefix = os.path.join(folder, "net")
        paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec([None, 3], "float32", "x")])
        config = paddle.inference.Config(prefix + ".json", prefix + ".pdiparams")
        config.disable_gpu()
        config.switch_ir_optim(False)
        config.set_cpu_math_library_num_threads(2)
        predictor = paddle.inference.create_predictor(config)
        handle = predictor.get_input_handle(predictor.get_input_names()[0])
        handle.reshape([4, 3])
        handle.copy_from_cpu(_x())
        predictor.run()
        output = predictor.get_output_handle(predictor.get_output_names()[0])
        return {"inputs": predictor.get_input_names(), "outputs": predictor.get_output_names(),
                "out": output.copy_to_cpu(), "out_shape": output.shape(), "eager": net(paddle.to_tensor(_x())),
                "use_gpu": config.use_gpu(), "ir_optim": config.ir_optim(),
                "threads": config.cpu_math_library_num_threads(),
                "unknown_input": outcome(lambda: predictor.get_input_handle("image"))}
    finally:
        shutil.rmtree(folder)
