"""Every save format, as (save, load, fingerprint) for the integrity, atomicity and hostile-file tests.

`save_<format>(dir)` writes a small model and returns the prefix; `load_<format>(prefix)` reads it
back and returns a *fingerprint*: everything a user could observe of what was loaded (parameter
values and names, program, outputs on a fixed input), as plain comparable Python values. A file
"loads unchanged" when its fingerprint equals the one of the untouched save.
"""
from __future__ import annotations

import json
import os
import re

import numpy as np

import minipaddle as paddle
from minipaddle import nn, static
from minipaddle.static import InputSpec

X = np.linspace(-1.0, 1.0, 8, dtype="float32").reshape(2, 4)


class Net(nn.Layer):
    def __init__(self, hidden: int = 5) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, hidden)
        self.fc2 = nn.Linear(hidden, 3)

    def forward(self, x):
        return self.fc2(paddle.nn.functional.relu(self.fc1(x)))


def _arrays(d: dict) -> list:
    return sorted((str(k), np.asarray(v._data if hasattr(v, "_data") else v).dtype.str,
                   np.asarray(v._data if hasattr(v, "_data") else v).tobytes()) for k, v in d.items())


# ---- paddle.save ---------------------------------------------------------------------------------
def save_paddle(folder: str, seed: int = 1) -> str:
    paddle.seed(seed)
    path = os.path.join(folder, "model.pdparams")
    paddle.save({"state": Net().state_dict(), "epoch": 3, "lr": 0.1, "tags": ["a", None]}, path)
    return path


def load_paddle(path: str):
    obj = paddle.load(path)
    return _arrays(obj["state"]), obj["epoch"], obj["lr"], obj["tags"], [t.name for t in obj["state"].values()]


# ---- jit.save ------------------------------------------------------------------------------------
def save_jit_plain(folder: str, hidden: int = 5, seed: int = 1) -> str:
    """A plain Layer traced from an InputSpec, plus a @to_static method: <p>.json/.pdiparams and
    <p>.scores.json/.pdiparams."""
    paddle.seed(seed)
    prefix = os.path.join(folder, "net")
    paddle.jit.save(JitNet(hidden), prefix)
    return prefix


class JitNet(Net):
    @paddle.jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def forward(self, x):
        return self.fc2(paddle.nn.functional.relu(self.fc1(x)))

    @paddle.jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def scores(self, x):
        return paddle.nn.functional.softmax(self.forward(x))


def load_jit(prefix: str):
    layer = paddle.jit.load(prefix)
    layer.eval()
    out = layer(paddle.to_tensor(X)).numpy()
    scores = layer.scores(paddle.to_tensor(X)).numpy()
    program = json.dumps(layer._infer_program.to_dict(), sort_keys=True, default=str)
    return (_arrays(layer.state_dict()), out.tobytes(), scores.tobytes(), layer._output_structure,
            _unnumbered(program), list(layer._feed_names))


def _unnumbered(text: str) -> str:
    """Parameter names without their unique numbers (linear_34.w_0 -> linear.w_0): each model built
    in one process gets new ones, so two saves of equal models differ only there."""
    return re.sub(r"_\d+\.", ".", text)


# ---- static.save_inference_model / static.save ---------------------------------------------------
def _static_model():
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [None, 4], "float32")
            hidden = static.nn.fc(x, 5, activation="relu")
            logits = static.nn.fc(hidden, 3)
            loss = paddle.mean(logits)
            paddle.optimizer.Adam(0.01).minimize(loss)
        exe = static.Executor()
        exe.run(startup)
        exe.run(main, feed={"x": X}, fetch_list=[loss])
    finally:
        paddle.disable_static()
    return main, x, logits, exe


def save_inference(folder: str, seed: int = 1) -> str:
    paddle.seed(seed)
    main, x, logits, exe = _static_model()
    prefix = os.path.join(folder, "infer")
    static.save_inference_model(prefix, [x], [logits], exe, program=main)
    return prefix


def load_inference(prefix: str):
    paddle.enable_static()
    try:
        exe = static.Executor()
        program, feeds, fetches = static.load_inference_model(prefix, exe)
        out = exe.run(program, feed={feeds[0]: X}, fetch_list=fetches)[0]
        params = {v.name: static.global_scope().values()[v.name] for v in program.list_vars() if v.persistable}
    finally:
        paddle.disable_static()
    return (np.asarray(out).tobytes(), feeds, [f.name for f in fetches], _arrays(params),
            json.dumps(program.to_dict(), sort_keys=True, default=str))


def save_static(folder: str, seed: int = 1) -> str:
    paddle.seed(seed)
    main, _, _, _ = _static_model()
    prefix = os.path.join(folder, "state")
    static.save(main, prefix)
    return prefix


def load_static(prefix: str):
    return _arrays(static.load_program_state(prefix))


# ---- Model.save ----------------------------------------------------------------------------------
def make_model(hidden: int = 5, seed: int = 1):
    paddle.seed(seed)
    model = paddle.Model(Net(hidden), inputs=[InputSpec([None, 4], "float32", "x")])
    model.prepare(paddle.optimizer.Adam(0.01, parameters=model.parameters()), nn.MSELoss())
    return model


def train_a_step(model) -> None:
    model.train_batch([X], [np.zeros((2, 3), "float32")])


def save_model(folder: str, seed: int = 1) -> str:
    model = make_model(seed=seed)
    train_a_step(model)
    prefix = os.path.join(folder, "ckpt")
    model.save(prefix)
    return prefix


def load_model(prefix: str):
    model = make_model(seed=2)
    model.load(prefix)
    return model_fingerprint(model)


def model_fingerprint(model):
    """The network's state and the optimizer's, its keys with the parameters' unique numbers dropped
    (each new network is linear_7, linear_8, ...)."""
    opt = {_unnumbered(k): v for k, v in model._optimizer.state_dict().items() if k != "LR_Scheduler"}
    return _arrays(model.network.state_dict()), _arrays(opt)


FORMATS = {
    "paddle.save": (save_paddle, load_paddle),
    "jit.save": (save_jit_plain, load_jit),
    "save_inference_model": (save_inference, load_inference),
    "static.save": (save_static, load_static),
    "Model.save": (save_model, load_model),
}


def child_env() -> dict:
    """The environment for a child process that must import this very minipaddle (not an installed one)."""
    root = os.path.dirname(os.path.dirname(paddle.__file__))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}


def files_of(folder: str) -> list[str]:
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if not f.startswith("."))
