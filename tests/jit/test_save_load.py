"""jit.save / jit.load: the round trip gives the same outputs, trains, keeps structured names; the files
are the static format (static.load_inference_model reads them); bad files give clear errors."""
from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest

import minipaddle as paddle
import minipaddle.nn.functional as F
from minipaddle import nn, static
from minipaddle.jit import io as jit_io
from minipaddle.jit.translated_layer import TranslatedLayer
from minipaddle.framework.static import io as static_io
from minipaddle.static import InputSpec

SPEC = [InputSpec([None, 4], "float32", "x")]


class MLP(nn.Layer):
    def __init__(self, dropout: float = 0.0) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.drop = nn.Dropout(dropout)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


def data(n=6, seed=0):
    rng = np.random.default_rng(seed)
    return paddle.to_tensor(rng.standard_normal((n, 4)).astype("float32")), paddle.to_tensor(
        rng.integers(0, 3, (n,)).astype("int64"))


def test_round_trip_same_outputs_names_and_static_reader(tmp_path):
    paddle.seed(0)
    net = MLP()
    path = str(tmp_path / "mlp")
    jit_io.save(net, path, input_spec=SPEC)
    assert sorted(os.listdir(tmp_path)) == ["mlp.json", "mlp.pdiparams"]   # Paddle 3's names
    loaded = jit_io.load(path)
    assert isinstance(loaded, TranslatedLayer) and isinstance(loaded, nn.Layer)
    x, _ = data()
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6)
    assert list(loaded.state_dict()) == list(net.state_dict()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    for (k, a), b in zip(loaded.state_dict().items(), net.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    assert loaded.input_names == ["x"]
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        program, feeds, fetches = static.load_inference_model(path, exe)
        out, = exe.run(program, feed={feeds[0]: x.numpy()}, fetch_list=fetches)
    np.testing.assert_allclose(out, net(x).numpy(), rtol=1e-6)


def test_loaded_model_fine_tunes_with_the_eager_models_gradients(tmp_path):
    paddle.seed(1)
    net = MLP()
    jit_io.save(net, str(tmp_path / "m"), input_spec=SPEC)
    loaded = jit_io.load(str(tmp_path / "m"))
    loaded.train()
    x, y = data(8, seed=2)
    F.cross_entropy(loaded(x), y).backward()
    F.cross_entropy(net(x), y).backward()
    for a, b in zip(loaded.parameters(), net.parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-7)
    loaded.clear_gradients()
    opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=loaded.parameters())
    losses = []
    for _ in range(30):
        loss = F.cross_entropy(loaded(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
    # the fine-tuned model saves again and loads back with its new weights
    jit_io.save(loaded, str(tmp_path / "tuned"))
    again = jit_io.load(str(tmp_path / "tuned"))
    np.testing.assert_allclose(again(x).numpy(), loaded.eval()(x).numpy(), rtol=1e-6)
    assert list(again.state_dict()) == list(net.state_dict())


def test_dropout_model_trains_with_its_training_program_and_infers_with_the_saved_one(tmp_path):
    paddle.seed(2)
    net = MLP(dropout=0.5)
    net.train()
    jit_io.save(net, str(tmp_path / "d"), input_spec=SPEC)
    assert net.training  # the layer's mode is restored after tracing
    loaded = jit_io.load(str(tmp_path / "d"))
    assert loaded.training  # a Layer starts in train mode, as Paddle's TranslatedLayer does
    loaded.eval()
    x, _ = data(64)
    np.testing.assert_allclose(loaded(x).numpy(), net.eval()(x).numpy(), rtol=1e-6)
    ops = [op.type for op in loaded.program().global_block().ops]
    assert "dropout" not in ops
    loaded.train()
    assert "dropout" in [op.type for op in loaded.program().global_block().ops]
    a, b = loaded(x).numpy(), loaded(x).numpy()
    assert not np.allclose(a, b)  # a fresh mask each call


def test_batch_norm_buffers_are_saved_as_buffers_with_a_training_program(tmp_path):
    paddle.seed(3)
    net = nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1D(5), nn.ReLU())
    x, _ = data(16)
    net.train()
    net(x)  # move the running statistics off their initial values
    mean = net[1]._mean.numpy().copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # train mode traces now: no fallback to announce
        jit_io.save(net, str(tmp_path / "bn"), input_spec=SPEC)
    np.testing.assert_array_equal(net[1]._mean.numpy(), mean)  # saving does not touch the statistics
    loaded = jit_io.load(str(tmp_path / "bn")).eval()
    assert list(loaded.state_dict()) == list(net.state_dict())
    assert {n for n, p in loaded.named_parameters() if not p.stop_gradient} == {"0.weight", "0.bias", "1.weight",
                                                                                   "1.bias"}
    np.testing.assert_array_equal(loaded.state_dict()["1._mean"].numpy(), mean)
    np.testing.assert_allclose(loaded(x).numpy(), net.eval()(x).numpy(), rtol=1e-5, atol=1e-6)


def test_tuple_outputs_and_functions_with_closure_parameters(tmp_path):
    lin = nn.Linear(4, 2)

    def two_heads(x):
        h = lin(x)
        return paddle.tanh(h), h * 2.0
    jit_io.save(two_heads, str(tmp_path / "f"), input_spec=SPEC)
    loaded = jit_io.load(str(tmp_path / "f"))
    x, _ = data()
    a, b = loaded(x)
    assert isinstance(loaded(x), tuple)
    np.testing.assert_allclose(a.numpy(), np.tanh(lin(x).numpy()), rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), 2 * lin(x).numpy(), rtol=1e-6)
    assert sorted(loaded.state_dict()) == sorted([lin.weight.name, lin.bias.name])


def test_output_spec_keeps_chosen_outputs_and_skip_prune_keeps_every_op(tmp_path):
    lin = nn.Linear(4, 2)

    def two_heads(x):
        h = lin(x)
        return paddle.tanh(h), h * 2.0
    jit_io.save(two_heads, str(tmp_path / "o"), input_spec=SPEC, output_spec=[1])
    loaded = jit_io.load(str(tmp_path / "o"))
    x, _ = data()
    np.testing.assert_allclose(loaded(x).numpy(), 2 * lin(x).numpy(), rtol=1e-6)
    assert "tanh" not in [op.type for op in loaded.program().global_block().ops]  # pruned away
    jit_io.save(two_heads, str(tmp_path / "k"), input_spec=SPEC, output_spec=[1], skip_prune_program=True)
    assert "tanh" in [op.type for op in jit_io.load(str(tmp_path / "k")).program().global_block().ops]
    with pytest.raises(ValueError, match="output_spec holds 2; expected indices of the model's 2"):
        jit_io.save(two_heads, str(tmp_path / "o"), input_spec=SPEC, output_spec=[2])


class _ConcreteProgram:
    def __init__(self, main_program, inputs, outputs, parameters):
        self.main_program, self.inputs, self.outputs, self.parameters = main_program, inputs, outputs, parameters


class _FakeStaticFunction:
    """The contract jit.save uses from @to_static: get_concrete_program(*specs) -> main_program, inputs,
    outputs, parameters. This stand-in builds a Program with a `cond` op (a data-dependent branch)."""

    def __init__(self, layer):
        self.layer = layer

    def get_concrete_program(self, *specs):
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data(specs[0].name, list(specs[0].shape), specs[0].dtype)
            h = self.layer(x)
            out = static.nn.cond(paddle.sum(x) > 0, lambda: h * 2.0, lambda: paddle.tanh(h))
        return _ConcreteProgram(main, [x], [out], self.layer.parameters()), None


def test_a_converted_function_with_a_cond_saves_loads_and_trains(tmp_path):
    lin = nn.Linear(4, 3)
    jit_io.save(_FakeStaticFunction(lin), str(tmp_path / "c"), input_spec=SPEC)
    loaded = jit_io.load(str(tmp_path / "c"))
    assert "cond" in [op.type for op in loaded.program().global_block().ops]
    x = paddle.to_tensor(np.abs(data()[0].numpy()))
    for inp, expected in ((x, 2 * lin(x).numpy()), (-x, np.tanh(lin(-x).numpy()))):
        np.testing.assert_allclose(loaded(inp).numpy(), expected, rtol=1e-6)
    loaded.train()
    loaded(-x).sum().backward()
    lin(-x).tanh().sum().backward()
    np.testing.assert_allclose(loaded.parameters()[0].grad.numpy(), lin.weight.grad.numpy(), rtol=1e-5)


def test_reads_a_model_written_by_static_save_inference_model(tmp_path):
    lin = nn.Linear(4, 2)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xv = static.data("x", [None, 4], "float32")
        out = F.sigmoid(lin(xv))
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        static.save_inference_model(str(tmp_path / "s"), [xv], [out], exe, program=main)
    loaded = jit_io.load(str(tmp_path / "s"))
    x, _ = data()
    np.testing.assert_allclose(loaded(x).numpy(), F.sigmoid(lin(x)).numpy(), rtol=1e-6)
    assert sorted(loaded.state_dict()) == sorted([lin.weight.name, lin.bias.name])


def test_save_errors(tmp_path):
    net = MLP()
    with pytest.raises(ValueError, match="input_spec is needed"):
        jit_io.save(net, str(tmp_path / "a"))
    with pytest.raises(ValueError, match="path must be a file prefix"):
        jit_io.save(net, str(tmp_path), input_spec=SPEC)
    with pytest.raises(ValueError, match=r"unknown config\(s\) \['bogus'\]"):
        jit_io.save(net, str(tmp_path / "a"), input_spec=SPEC, bogus=1)
    with pytest.raises(ValueError, match="input_spec\\[0\\] is a str"):
        jit_io.save(net, str(tmp_path / "a"), input_spec=["x"])
    with pytest.raises(ValueError, match="returned dict"):
        jit_io.save(lambda x: {"y": x * 2.0}, str(tmp_path / "a"), input_spec=SPEC)


@pytest.fixture
def saved(tmp_path):
    with warnings.catch_warnings():
        jit_io.save(MLP(), str(tmp_path / "m"), input_spec=SPEC)
    return tmp_path


def test_load_errors_for_missing_corrupted_and_mismatched_files(saved):
    path = str(saved / "m")
    with pytest.raises(KeyError, match="no model file"):
        jit_io.load(str(saved / "nothing"))
    with pytest.raises(ValueError, match=r"unsupported config\(s\) \['model_filename'\]"):
        jit_io.load(path, model_filename="m.pdmodel")
    good_json = (saved / "m.json").read_text()
    (saved / "m.json").write_text("{not json")
    with pytest.raises(ValueError, match="m.json' is not valid JSON"):
        jit_io.load(path)
    meta = json.loads(good_json)
    meta["jit"]["output_structure"] = "tuple"      # an edit the JSON parser cannot see
    (saved / "m.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="m.json' does not match its sha256"):
        jit_io.load(path)
    (saved / "m.json").write_text(good_json)
    good = (saved / "m.pdiparams").read_bytes()
    (saved / "m.pdiparams").write_bytes(good[:100])
    with pytest.raises(ValueError, match=r"m.pdiparams'.*(truncated|damaged)"):
        jit_io.load(path)
    damaged = bytearray(good)
    damaged[-200] ^= 0xFF                           # one flipped byte inside an array
    (saved / "m.pdiparams").write_bytes(bytes(damaged))
    with pytest.raises(ValueError, match="m.pdiparams'"):
        jit_io.load(path)
    names = list(meta["params"])
    other = paddle.framework.io.write_arrays("test", str(saved / "m.pdiparams"),
                                             {k: np.zeros((1,), "float32") for k in names})
    with pytest.raises(ValueError, match="m.pdiparams' is not the file its save's manifest lists"):
        jit_io.load(path)
    meta = json.loads(good_json)       # a tamperer who also rewrites the manifest and the checksum
    meta["files"][".pdiparams"] = other
    meta["sha256"] = static_io._checksum(meta)
    (saved / "m.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match=r"is float32\[1\], the model expects float32\[\d"):
        jit_io.load(path)
    (saved / "m.pdiparams").write_bytes(good)
    meta = json.loads(good_json)
    meta["feed"] = ["not_a_var"]
    del meta["sha256"]
    (saved / "m.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="m.json' carries no sha256"):
        jit_io.load(path)
    meta["sha256"] = static_io._checksum(meta)
    (saved / "m.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="names variables the program lacks"):
        jit_io.load(path)


def test_calling_a_loaded_model_wrongly(saved):
    loaded = jit_io.load(str(saved / "m"))
    with pytest.raises(ValueError, match="got 2 inputs, the loaded model takes 1"):
        loaded(paddle.ones([2, 4]), paddle.ones([2, 4]))
    with pytest.raises(ValueError, match=r"input 'x' has shape \[2, 5\], expected \[-1, 4\]"):
        loaded(paddle.ones([2, 5]))
    with pytest.raises(ValueError, match="expected a Tensor"):
        loaded([1.0, 2.0, 3.0, 4.0])


class Finetune(nn.Layer):
    """A loaded model as the backbone of a new one."""

    def __init__(self, backbone) -> None:
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(3, 2)

    def forward(self, x):
        return self.head(F.relu(self.backbone(x)))


def test_a_loaded_model_inside_a_new_model_converts_traces_and_saves(tmp_path):
    paddle.seed(4)
    jit_io.save(_FakeStaticFunction(nn.Linear(4, 3)), str(tmp_path / "backbone"), input_spec=SPEC)  # has a cond
    first, second = jit_io.load(str(tmp_path / "backbone")), jit_io.load(str(tmp_path / "backbone"))
    assert {p.name for p in first.parameters()}.isdisjoint(p.name for p in second.parameters())
    model = Finetune(first)
    x = paddle.to_tensor(np.abs(data()[0].numpy()))
    eager = [model(x).numpy(), model(-x).numpy()]
    jit_io.save(model, str(tmp_path / "whole"), input_spec=SPEC)  # traced: the backbone's ops are copied in
    whole = jit_io.load(str(tmp_path / "whole"))
    assert list(whole.state_dict()) == list(model.state_dict())  # backbone.<its names>, head.weight, head.bias
    assert list(model.state_dict())[-1] == "head.bias"
    assert "cond" in [op.type for op in whole.program().global_block().ops]
    np.testing.assert_allclose(whole(x).numpy(), eager[0], rtol=1e-6)
    np.testing.assert_allclose(whole(-x).numpy(), eager[1], rtol=1e-6)
    model.train()
    model(-x).sum().backward()
    eager_grads = [p.grad.numpy().copy() for p in model.parameters()]
    model.clear_gradients()
    paddle.jit.to_static(model)
    np.testing.assert_allclose(model(-x).numpy(), eager[1], rtol=1e-6)
    assert "cond" in [op.type for op in model.forward.main_program.global_block().ops]
    model(-x).sum().backward()  # through the converted outer Program into the loaded parameters
    for p, g in zip(model.parameters(), eager_grads):
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-5, atol=1e-7)


class ConvertedDropout(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 6)
        self.drop = nn.Dropout(0.5)
        self.out = nn.Linear(6, 2)

    def forward(self, x):
        return self.out(self.drop(F.relu(self.fc(x))))


def test_a_to_static_layer_saves_its_eval_program_and_its_train_variant(tmp_path):
    net = paddle.jit.to_static(ConvertedDropout(), input_spec=SPEC)
    x, _ = data(32)
    net.train()
    net(x)  # the last Program built is the training one: jit.save must still save the eval one
    jit_io.save(net, str(tmp_path / "d"))
    assert net.training
    loaded = jit_io.load(str(tmp_path / "d")).eval()
    # (atol: the converted forward computes the 4-wide product in its fused loop, the loaded one by BLAS)
    np.testing.assert_allclose(loaded(x).numpy(), net.eval()(x).numpy(), rtol=1e-6, atol=1e-7)
    assert "dropout" in [op.type for op in loaded.train().program().global_block().ops]


def test_a_to_static_layer_that_only_ran_in_train_mode_saves_that_program_for_inference(tmp_path):
    net = paddle.jit.to_static(ConvertedDropout())
    x, _ = data()
    net.train()
    net(x)
    jit_io.save(net, str(tmp_path / "t"))       # as Paddle: the Program it has, switched to inference
    loaded = jit_io.load(str(tmp_path / "t")).eval()
    assert "dropout" not in [op.type for op in loaded.program().global_block().ops]   # inference: no dropout
    np.testing.assert_allclose(loaded(x).numpy(), net.eval()(x).numpy(), rtol=1e-6)
    assert "dropout" in [op.type for op in loaded.train().program().global_block().ops]


def test_saving_a_to_static_layer_that_never_ran_and_has_no_input_spec(tmp_path):
    with pytest.raises(ValueError, match=r"no Program for forward\(\): it was never called and has no input_spec"):
        jit_io.save(paddle.jit.to_static(ConvertedDropout()), str(tmp_path / "n"))
    assert os.listdir(tmp_path) == []


def test_saving_a_to_static_layer_without_any_input_spec(tmp_path):
    net = paddle.jit.to_static(ConvertedDropout())
    x, _ = data()
    net.train()
    net(x)
    net.eval()
    net(x)  # now Programs for both modes exist (for this batch shape): they are what gets saved
    jit_io.save(net.train(), str(tmp_path / "n"))
    loaded = jit_io.load(str(tmp_path / "n")).eval()
    np.testing.assert_allclose(loaded(x).numpy(), net.eval()(x).numpy(), rtol=1e-6)
    assert "dropout" in [op.type for op in loaded.train().program().global_block().ops]


def test_a_to_static_function_with_a_data_dependent_while_round_trips_and_trains(tmp_path):
    paddle.seed(5)
    lin = nn.Linear(4, 4)

    @paddle.jit.to_static(input_spec=SPEC)
    def grow(x):
        h = paddle.abs(x) + 0.1
        while paddle.sum(h) < 60.0:   # the trip count depends on x's values
            h = h * 1.5 + F.sigmoid(lin(h))
        return h

    jit_io.save(grow, str(tmp_path / "grow"))
    loaded = jit_io.load(str(tmp_path / "grow"))
    assert "while" in [op.type for op in loaded.program().global_block().ops]
    small, big = paddle.full([2, 4], 0.01), paddle.full([2, 4], 3.0)
    for x in (small, big):
        np.testing.assert_allclose(loaded(x).numpy(), grow.dygraph_function(x).numpy(), rtol=1e-5)
    loaded.train()
    loaded(small).sum().backward()
    grow.dygraph_function(small).sum().backward()
    assert len(loaded.parameters()) == 2
    for p in loaded.parameters():
        ref = lin.weight.grad if p.shape == [4, 4] else lin.bias.grad
        np.testing.assert_allclose(p.grad.numpy(), ref.numpy(), rtol=1e-4, atol=1e-6)


class TwoMethods(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)

    @paddle.jit.to_static
    def forward(self, x):
        return self.fc(x)

    @paddle.jit.to_static
    def infer(self, x):
        return F.softmax(self.fc(x) * 2.0)


def test_every_to_static_method_is_saved_under_its_name_and_loads_as_a_method(tmp_path):
    net = TwoMethods()
    x, _ = data()
    net(x)
    net.infer(x)
    jit_io.save(net, str(tmp_path / "m"))
    assert sorted(os.listdir(tmp_path)) == ["m.infer.json", "m.infer.pdiparams", "m.json", "m.pdiparams"]
    loaded = jit_io.load(str(tmp_path / "m"))
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded.infer(x).numpy(), net.infer(x).numpy(), rtol=1e-6)
    assert list(loaded.state_dict()) == ["fc.weight", "fc.bias"]          # one set of parameters for both
    assert "softmax" in [op.type for op in loaded.program("infer").global_block().ops]
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=loaded.parameters())
    before = loaded(x).numpy()
    (loaded.infer(x)[:, 0].sum()).backward()                              # fine-tune through the method
    opt.step()
    assert not np.allclose(loaded(x).numpy(), before)                      # forward sees the update
    jit_io.save(loaded, str(tmp_path / "again"))                           # and a re-save keeps the method
    again = jit_io.load(str(tmp_path / "again"))
    np.testing.assert_allclose(again.infer(x).numpy(), loaded.infer(x).numpy(), rtol=1e-6)
    program, feeds, fetches = static.load_inference_model(str(tmp_path / "m.infer"), static.Executor())
    assert feeds == ["x"]                                                  # each method file is a plain model


def test_a_method_never_called_or_an_input_spec_beside_methods_is_refused_before_writing(tmp_path):
    net = TwoMethods()
    x, _ = data()
    net(x)
    with pytest.raises(ValueError, match=r"no Program for infer\(\): it was never called"):
        jit_io.save(net, str(tmp_path / "m"))
    net.infer(x)
    with pytest.raises(ValueError, match=r"other @to_static methods \['infer'\], so input_spec must be None"):
        jit_io.save(net, str(tmp_path / "m"), input_spec=SPEC)
    assert os.listdir(tmp_path) == []


def test_to_tensor_of_a_numpy_argument_inside_to_static(tmp_path):
    @paddle.jit.to_static
    def double(x):
        t = paddle.to_tensor(x)
        return t * 2.0 + paddle.to_tensor([x.shape[0] * 0.0, 1.0, 2.0], dtype="float32")

    a = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_allclose(double(a).numpy(), a * 2 + [0.0, 1.0, 2.0])
    assert double(a).stop_gradient

    @paddle.jit.to_static
    def as_int(x):
        return paddle.to_tensor(x, dtype="int64"), paddle.to_tensor([x, x])

    ints, pair = as_int(a)
    assert ints.dtype == paddle.int64 and pair.shape == [2, 2, 3]
    jit_io.save(double, str(tmp_path / "d"), input_spec=[InputSpec([None, 3], "float32", "x")])
    np.testing.assert_allclose(jit_io.load(str(tmp_path / "d"))(paddle.to_tensor(a)).numpy(), a * 2 + [0, 1, 2])


def test_a_model_saved_with_the_older_file_names_still_loads(tmp_path):
    """minipaddle wrote <path>.pdmodel.json + .pdiparams.npz + .pdinfo.json before it took Paddle 3's names."""
    net = paddle.jit.to_static(ConvertedDropout(), input_spec=SPEC)
    x, _ = data()
    jit_io.save(net, str(tmp_path / "new"))
    meta = json.loads((tmp_path / "new.json").read_text())
    info = meta.pop("jit")
    del meta["sha256"], meta["files"]      # older files had neither checksum nor manifest
    meta["version"] = 1
    (tmp_path / "old.pdmodel.json").write_text(json.dumps(meta))
    (tmp_path / "old.pdinfo.json").write_text(json.dumps(info))
    np.savez(tmp_path / "old.pdiparams.npz", **paddle.load(str(tmp_path / "new.pdiparams"), return_numpy=True))
    old = jit_io.load(str(tmp_path / "old"))
    assert list(old.state_dict()) == list(net.state_dict())
    assert "dropout" in [op.type for op in old.program().global_block().ops]     # the training variant too
    np.testing.assert_allclose(old.eval()(x).numpy(), net.eval()(x).numpy(), rtol=1e-6)
