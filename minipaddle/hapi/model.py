"""paddle.Model: the high-level training API (Paddle's hapi) around a network, a loss, an optimizer, metrics.

    model = paddle.Model(net)
    model.prepare(paddle.optimizer.Adam(parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    model.fit(train_ds, eval_ds, epochs=2, batch_size=64, verbose=1)
    model.evaluate(test_ds)          # {'loss': [0.21], 'acc': 0.94}
    model.predict(test_ds)           # one list per network output, one array per batch

Each batch from a DataLoader is flattened to a list; its first `len(inputs)` fields go to the
network, the rest are labels for the loss and metrics. Without `inputs` specs, the number of
inputs is the number of required positional arguments of `network.forward`.

Underneath, `fit` is the loop a learner would write by hand — for each batch: forward, loss,
backward, optimizer.step(), optimizer.clear_grad(), metric.update() — with callbacks around it
(progress bar, checkpoints, early stopping, learning-rate schedules, logging).

One difference from Paddle: the 'loss' that `evaluate` returns (and EarlyStopping sees after each
eval) is the mean over the whole evaluation set, weighted by batch size; Paddle reports the last
batch's loss there.
"""
from __future__ import annotations

import inspect
import math
import numbers
import os
import warnings

import numpy as np

from ..framework.autograd import no_grad
from ..framework.creation import to_tensor
from ..framework.errors import invalid_argument, precondition_not_met, unimplemented
from ..framework.tensor import Tensor
from ..metric.metrics import Metric
from .callbacks import EarlyStopping, config_callbacks
from .summary import summary

__all__ = ["Model"]


def _to_list(value) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _flatten(data) -> list:
    if isinstance(data, (list, tuple)):
        return [leaf for item in data for leaf in _flatten(item)]
    if isinstance(data, dict):
        return [leaf for item in data.values() for leaf in _flatten(item)]
    return [data]


def _as_tensor(x) -> Tensor:
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, numbers.Number, list)):
        return to_tensor(x)
    raise invalid_argument("Model", f"a batch field is a {type(x).__name__}; expected a Tensor or numpy array.")


def _to_numpy(t) -> np.ndarray:
    # A copy: the caller may keep it across batches while the tensor's buffer is reused.
    return np.array(t.numpy() if isinstance(t, Tensor) else t, copy=True)


def _len(loader):
    try:
        return len(loader)
    except Exception:  # an iterable without a length (IterableDataset, a generator)
        return None


def _check_int(api: str, name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise invalid_argument(api, f"{name} must be an int >= {minimum}, got {value!r}.")
    return value


def _required_args(forward) -> int:
    """How many inputs forward takes: its required positional arguments (at least 1)."""
    try:
        params = inspect.signature(forward).parameters.values()
    except (TypeError, ValueError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return max(1, sum(1 for p in params if p.kind in kinds and p.default is inspect.Parameter.empty))


def _set_optimizer_state(optimizer, state: dict) -> None:
    """optimizer.set_state_dict(state), restoring the optimizer's own state if that raises part way."""
    before = {k: (np.array(v._data) if isinstance(v, Tensor) else v) for k, v in optimizer.state_dict().items()}
    try:
        optimizer.set_state_dict(state)
    except Exception:
        optimizer.set_state_dict(before)
        raise


def _rename_accumulators(opt_state: dict, renames: dict[str, str]) -> dict:
    """Optimizer state is keyed by parameter name (`linear_0.w_0_moment1_0`). A network built again gets
    new unique names (`linear_2.w_0`), so rename each key from the saved parameter's name to the
    current one, matched through the structured keys of the two state dicts."""
    if not renames or all(old == new for old, new in renames.items()):
        return opt_state
    olds = sorted(renames, key=len, reverse=True)

    def rename(key):
        if key in renames:
            return renames[key]
        for old in olds:
            if isinstance(key, str) and key.startswith(old + "_"):
                return renames[old] + key[len(old):]
        return key

    out = {}
    for key, value in opt_state.items():
        if key == "master_weights" and isinstance(value, dict):
            value = {rename(k): v for k, v in value.items()}
        out[key if key == "LR_Scheduler" else rename(key)] = value
    return out


class Model:
    """Wraps `network` (a paddle.nn.Layer) with fit / evaluate / predict / save / load / summary.

    inputs / labels: optional InputSpec-like objects (with .shape, .dtype, .name) describing the
    network's inputs and the labels; they set how many fields of a batch are inputs, and give
    `summary()` its input shapes.
    """

    def __init__(self, network, inputs=None, labels=None) -> None:
        from ..nn.layer.layers import Layer
        if not isinstance(network, Layer):
            raise invalid_argument("Model", f"network must be a paddle.nn.Layer, got {type(network).__name__}.")
        self.network = network
        self._inputs = _to_list(inputs) or [None] * _required_args(network.forward)
        self._labels = _to_list(labels)
        self._optimizer = None
        self._loss = None
        self._metrics: list[Metric] = []
        self._accumulate = 1
        self.stop_training = False
        self.mode = "train"

    # ---- set up ----------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None) -> None:
        """Choose the optimizer, the loss (a Layer or any callable `loss(*outputs, *labels)`) and metrics."""
        if optimizer is not None and not (callable(getattr(optimizer, "step", None))
                                          and callable(getattr(optimizer, "clear_grad", None))):
            raise invalid_argument("Model.prepare", f"optimizer must be a paddle.optimizer.Optimizer, got "
                                                    f"{type(optimizer).__name__}.")
        if loss is not None and not callable(loss):
            raise invalid_argument("Model.prepare", f"'loss' must be a paddle.nn.Layer or a callable, got "
                                                    f"{type(loss).__name__}.")
        metrics = _to_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise invalid_argument("Model.prepare", f"{type(m).__name__} is not a subclass of "
                                                        "paddle.metric.Metric.")
        level = amp_configs.get("level", "O1") if isinstance(amp_configs, dict) else amp_configs
        if level not in (None, "O0"):
            raise unimplemented("Model.prepare", f"amp_configs={amp_configs!r}: mixed precision is not "
                                                 "supported in this build.", hint="leave amp_configs=None.")
        self._optimizer = optimizer
        self._loss = loss
        self._metrics = metrics

    def parameters(self, *args, **kwargs) -> list:
        """The network's parameters (what an optimizer should update)."""
        return self.network.parameters(*args, **kwargs)

    def _metrics_name(self) -> list[str]:
        names = ["loss"] if self._loss is not None else []
        for m in self._metrics:
            names.extend(_to_list(m.name()))
        return names

    def _require(self, api: str, optimizer: bool = False, loss: bool = False) -> None:
        if optimizer and self._optimizer is None:
            raise precondition_not_met(api, "the model has no optimizer.",
                                       hint="call model.prepare(optimizer, loss, metrics) first.")
        if loss and self._loss is None:
            raise precondition_not_met(api, "the model has no loss.",
                                       hint="call model.prepare(optimizer, loss, metrics) first.")

    # ---- one batch -------------------------------------------------------------------
    def _update_metrics(self, outputs, labels) -> list:
        results = []
        with no_grad():
            for metric in self._metrics:
                outs = metric.compute(*(_to_list(outputs) + labels))
                results.append(metric.update(*[_to_numpy(o) for o in _to_list(outs)]))
        return results

    def _forward_loss(self, inputs, labels):
        inputs = [_as_tensor(x) for x in _to_list(inputs)]
        labels = [_as_tensor(y) for y in _to_list(labels)]
        self._input_info = [(list(x.shape), x.dtype) for x in inputs]   # what save(training=False) falls back on
        outputs = self.network(*inputs)
        losses = _to_list(self._loss(*(_to_list(outputs) + labels))) if self._loss is not None else []
        return outputs, labels, losses

    def train_batch(self, inputs, labels=None, update: bool = True):
        """One training step on one batch. Returns the losses as numpy arrays, and ([losses], [metric
        values]) when metrics are set."""
        self._require("Model.train_batch", optimizer=True, loss=True)
        self.network.train()
        self.mode = "train"
        outputs, labels, losses = self._forward_loss(inputs, labels)
        final_loss = losses[0]
        for extra in losses[1:]:
            final_loss = final_loss + extra
        final_loss.backward()
        if update:
            self._optimizer.step()
            self._optimizer.clear_grad()
        metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(loss) for loss in losses]
        return (losses, metrics) if metrics else losses

    def eval_batch(self, inputs, labels=None):
        """Forward one batch without gradients; returns losses and/or metric values as train_batch does."""
        self.network.eval()
        self.mode = "eval"
        with no_grad():
            outputs, labels, losses = self._forward_loss(inputs, labels)
        metrics = self._update_metrics(outputs, labels)
        losses = [_to_numpy(loss) for loss in losses]
        if self._loss is not None and metrics:
            return losses, metrics
        return losses if self._loss is not None else metrics

    def predict_batch(self, inputs) -> list[np.ndarray]:
        """The network's outputs on one batch, as a list of numpy arrays."""
        self.network.eval()
        self.mode = "test"
        with no_grad():
            outputs = self.network(*[_as_tensor(x) for x in _to_list(inputs)])
        return [_to_numpy(o) for o in _to_list(outputs)]

    # ---- loops -----------------------------------------------------------------------
    def _loader(self, data, batch_size: int, shuffle: bool, drop_last: bool, num_workers: int, what: str):
        from ..io import DataLoader, Dataset, IterableDataset
        if isinstance(data, Dataset):
            shuffle = shuffle and not isinstance(data, IterableDataset)
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                              num_workers=num_workers)
        if data is None or isinstance(data, (str, bytes, Tensor, np.ndarray)) or not hasattr(data, "__iter__"):
            raise invalid_argument("Model", f"{what} must be a paddle.io.Dataset or a DataLoader (an iterable of "
                                            f"batches), got {type(data).__name__}.",
                                   hint="wrap arrays with paddle.io.TensorDataset([x, y]).")
        return data

    def _run_one_epoch(self, loader, cbks, mode: str, max_steps: int | None = None):
        logs: dict = {}
        outputs = []
        n_inputs = len(self._inputs)
        total = _len(loader)
        loss_sum, seen = None, 0
        for step, data in enumerate(loader):
            data = _flatten(data)
            if not data or not hasattr(data[0], "shape") or not data[0].shape:
                raise invalid_argument(f"Model.{'fit' if mode == 'train' else mode}", "a batch must hold arrays "
                                       f"with a batch dimension, got {[type(d).__name__ for d in data]}.")
            batch_size = int(data[0].shape[0])
            cbks.on_batch_begin(mode, step, logs)
            if mode == "predict":
                outputs.append(self.predict_batch(data[:n_inputs]))
            else:
                ins, labels = data[:n_inputs], data[n_inputs:]
                if mode == "train":
                    last = total is not None and step + 1 == total
                    outs = self.train_batch(ins, labels, (step + 1) % self._accumulate == 0 or last)
                else:
                    outs = self.eval_batch(ins, labels)
                losses = (outs[0] if self._metrics else outs) if self._loss is not None else None
                if losses is not None:
                    values = np.array([float(np.mean(v)) for v in losses])
                    if mode == "eval":  # the mean over the evaluation set so far
                        loss_sum = values * batch_size + (0.0 if loss_sum is None else loss_sum)
                        seen += batch_size
                        values = loss_sum / seen
                    logs["loss"] = [float(v) for v in values]
                for metric in self._metrics:
                    result = metric.accumulate()
                    logs.update(zip(_to_list(metric.name()), _to_list(result)))
            logs["step"] = step
            logs["batch_size"] = batch_size
            cbks.on_batch_end(mode, step, logs)
            if max_steps is not None and step + 1 >= max_steps:
                break
        for metric in self._metrics:
            metric.reset()
        return (logs, outputs) if mode == "predict" else logs

    def fit(self, train_data=None, eval_data=None, batch_size: int = 1, epochs: int = 1, eval_freq: int = 1,
            log_freq: int = 10, save_dir: str | None = None, save_freq: int = 1, verbose: int = 2,
            drop_last: bool = False, shuffle: bool = True, num_workers: int = 0, callbacks=None,
            accumulate_grad_batches: int = 1, num_iters: int | None = None) -> None:
        """Train for `epochs` over `train_data` (a Dataset or a DataLoader), evaluating on `eval_data`
        every `eval_freq` epochs and saving to `save_dir` every `save_freq` epochs."""
        if train_data is None:
            raise invalid_argument("Model.fit", "train_data must be given.")
        self._require("Model.fit", optimizer=True, loss=True)
        for name, value in (("batch_size", batch_size), ("epochs", epochs), ("eval_freq", eval_freq),
                            ("log_freq", log_freq), ("save_freq", save_freq),
                            ("accumulate_grad_batches", accumulate_grad_batches)):
            _check_int("Model.fit", name, value)
        if num_iters is not None:
            _check_int("Model.fit", "num_iters", num_iters)
        train_loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers, "train_data")
        eval_loader = (None if eval_data is None else
                       self._loader(eval_data, batch_size, False, False, num_workers, "eval_data"))
        self._accumulate = accumulate_grad_batches
        steps = _len(train_loader)
        if num_iters is not None and steps:
            epochs = math.ceil(num_iters / steps)
            steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, batch_size=batch_size, epochs=epochs, steps=steps,
                                log_freq=log_freq, save_freq=save_freq, save_dir=save_dir, verbose=verbose,
                                metrics=self._metrics_name())
        if eval_loader is None and any(isinstance(c, EarlyStopping) for c in cbks):
            warnings.warn("EarlyStopping needs validation data (eval_data).", stacklevel=2)
        self.stop_training = False
        remaining = num_iters
        logs: dict = {}
        cbks.on_begin("train")
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train", max_steps=remaining)
            cbks.on_epoch_end(epoch, logs)
            if remaining is not None:
                remaining -= logs.get("step", -1) + 1
            if eval_loader is not None and epoch % eval_freq == 0:
                self._evaluate_with(eval_loader, cbks)
            if self.stop_training or (remaining is not None and remaining <= 0):
                break
        cbks.on_end("train", logs)

    def _evaluate_with(self, loader, cbks, max_steps: int | None = None) -> dict:
        steps = _len(loader)
        if max_steps is not None and steps is not None:
            steps = min(steps, max_steps)
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval", max_steps=max_steps)
        cbks.on_end("eval", logs)
        return logs

    def evaluate(self, eval_data, batch_size: int = 1, log_freq: int = 10, verbose: int = 2, num_workers: int = 0,
                 callbacks=None, num_iters: int | None = None) -> dict:
        """Loss (mean over the set) and metrics on `eval_data`: {'loss': [value], 'acc': value, ...}."""
        if self._loss is None and not self._metrics:
            raise precondition_not_met("Model.evaluate", "there is nothing to evaluate: no loss and no metrics.",
                                       hint="call model.prepare(loss=..., metrics=...) first.")
        _check_int("Model.evaluate", "batch_size", batch_size)
        _check_int("Model.evaluate", "log_freq", log_freq)
        if num_iters is not None:
            _check_int("Model.evaluate", "num_iters", num_iters)
        loader = self._loader(eval_data, batch_size, False, False, num_workers, "eval_data")
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        logs = self._evaluate_with(loader, cbks, max_steps=num_iters)
        return {k: logs[k] for k in self._metrics_name() if k in logs}

    def predict(self, test_data, batch_size: int = 1, num_workers: int = 0, stack_outputs: bool = False,
                verbose: int = 1, callbacks=None) -> list:
        """Run the network over `test_data`: a list with one entry per network output, each a list of
        per-batch arrays (or, with stack_outputs=True, one array stacked over all batches)."""
        _check_int("Model.predict", "batch_size", batch_size)
        loader = self._loader(test_data, batch_size, False, False, num_workers, "test_data")
        cbks = config_callbacks(callbacks, model=self, verbose=verbose, mode="test")
        cbks.on_begin("predict", {"steps": _len(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        outputs = [list(per_output) for per_output in zip(*outputs)]
        if stack_outputs:
            outputs = [np.vstack(per_output) for per_output in outputs]
        cbks.on_end("predict", logs)
        return outputs

    # ---- files -----------------------------------------------------------------------
    def save(self, path: str, training: bool = True) -> None:
        """Save the network's state to `path.pdparams` and the optimizer's to `path.pdopt`; with
        training=False, an inference model instead: `path.json` + `path.pdiparams` (what
        `paddle.jit.save` writes; `paddle.jit.load`, `static.load_inference_model` and
        `paddle.inference` read it).

        The two files are one save: both are written to temporary files first, then renamed,
        `.pdopt` last, and `.pdopt` records the digest of the `.pdparams` it belongs with, so a crash
        mid-save leaves the old pair (and `load` refuses a mixed one)."""
        from ..framework.io import save_in_unit
        from ..framework.save_unit import SaveUnit
        if not training:
            self._save_inference_model(os.fspath(path))
            return
        save_dir, prefix = os.path.split(os.fspath(path))
        if not prefix:
            raise invalid_argument("Model.save", f"path should end with a file prefix, got {path!r} (a directory).",
                                   hint="e.g. model.save('checkpoints/mnist') writes mnist.pdparams and "
                                        "mnist.pdopt.")
        if save_dir:
            os.makedirs(save_dir, exist_ok=True)
        opt_state = self._optimizer.state_dict() if self._optimizer is not None else None
        with SaveUnit("Model.save") as unit:
            params_digest = save_in_unit(unit, self.network.state_dict(), f"{path}.pdparams")
            if opt_state:
                save_in_unit(unit, opt_state, f"{path}.pdopt", manifest={".pdparams": params_digest})
            else:
                unit.remove(f"{path}.pdopt")   # an older one belongs with the older parameters

    def _save_inference_model(self, path: str) -> None:
        from ..jit.input_spec import InputSpec
        from ..jit.io import save as jit_save
        if not os.path.basename(path):
            raise invalid_argument("Model.save", f"path should end with a file prefix, got {path!r} (a directory).",
                                   hint="e.g. model.save('inference/mnist', training=False) writes mnist.json and "
                                        "mnist.pdiparams.")
        specs = list(self._inputs)
        if not specs or not all(isinstance(s, InputSpec) for s in specs):
            seen = getattr(self, "_input_info", None)
            if not seen:
                raise precondition_not_met("Model.save", "saving an inference model needs the input shapes: the "
                                                         "Model has no 'inputs' and has not run a batch yet.",
                                           hint="paddle.Model(net, inputs=[paddle.static.InputSpec([None, 784], "
                                                "'float32', 'x')]), or train/evaluate before saving.")
            specs = [InputSpec([None] + shape[1:], dtype) for shape, dtype in seen]   # any batch size
        was_training = self.network.training
        self.network.eval()
        try:
            jit_save(self.network, path, input_spec=specs)
        finally:
            if was_training:
                self.network.train()

    def load(self, path: str, skip_mismatch: bool = False, reset_optimizer: bool = False) -> None:
        """Load `path.pdparams` (and `path.pdopt` unless reset_optimizer) into the network and optimizer.

        A missing or differently shaped parameter raises, or with skip_mismatch=True is skipped with a
        warning (and the optimizer state is then not loaded). Both files are read and checked (each
        array's sha256, and that `.pdopt` belongs with this `.pdparams`) before the network or the
        optimizer changes: a damaged or mismatched file changes nothing.
        """
        from ..framework.io import load_verified
        path = os.fspath(path)
        base, ext = os.path.splitext(path)
        if ext in (".pdparams", ".pdopt", ".pdmodel"):
            path = base
        elif ext and not os.path.exists(f"{path}.pdparams"):
            raise invalid_argument("Model.load", f"unknown suffix {ext!r} in {path!r}, expected none or .pdparams.")
        if not os.path.exists(f"{path}.pdparams"):
            raise invalid_argument("Model.load", f"no parameters file {path + '.pdparams'!r}.",
                                   hint="pass the prefix given to model.save, e.g. 'checkpoints/final'.")
        state, _, params_digest = load_verified("Model.load", f"{path}.pdparams")
        if not isinstance(state, dict):
            raise invalid_argument("Model.load", f"{path + '.pdparams'!r} holds a {type(state).__name__}, not a "
                                                 "state dict.")
        pairs = []
        for key, param in self.network.state_dict().items():
            problem = self._mismatch(key, param, state)
            if problem is None:
                pairs.append((param, state[key]))
            elif skip_mismatch:
                warnings.warn(f"Skip loading for {key}. {problem}", stacklevel=2)
                reset_optimizer = True
            else:
                raise invalid_argument("Model.load", problem, hint="pass skip_mismatch=True to load the rest.")
        opt_path = f"{path}.pdopt"
        if self._optimizer is not None and not reset_optimizer and os.path.exists(opt_path):
            opt_state, manifest, _ = load_verified("Model.load", opt_path)
            if manifest is not None and manifest.get(".pdparams") != params_digest:
                raise invalid_argument("Model.load", f"{opt_path!r} does not belong with {path + '.pdparams'!r}: "
                                                     "they come from different saves (a save interrupted between "
                                                     "its renames, or a file copied in from elsewhere).",
                                       hint="save again, or pass reset_optimizer=True to load the parameters "
                                            "alone.")
            if not isinstance(opt_state, dict):
                raise invalid_argument("Model.load", f"{opt_path!r} holds a {type(opt_state).__name__}, not an "
                                                     "optimizer state dict.")
            renames = {value.name: param.name for param, value in pairs if isinstance(value, Tensor)}
            _set_optimizer_state(self._optimizer, _rename_accumulators(opt_state, renames))
        for param, value in pairs:   # last: everything above has been read and checked
            param.set_value(value)

    @staticmethod
    def _mismatch(key: str, param, state: dict) -> str | None:
        if key not in state:
            return f"{key} is not found in the providing file."
        value = state[key]
        if list(np.shape(value)) != list(param.shape):
            return f"{key} receives a shape {list(np.shape(value))}, but the expected shape is {list(param.shape)}."
        kind = (value._data if isinstance(value, Tensor) else np.asarray(value)).dtype.kind
        if kind not in "biufc":   # checked now: nothing may fail once the values are being set
            return f"{key} holds {kind!r}-kind data (text?), not numbers."
        return None

    def summary(self, input_size=None, dtype=None) -> dict:
        """paddle.summary of the network; input shapes from `input_size` or the Model's input specs."""
        if input_size is None:
            if not all(hasattr(spec, "shape") for spec in self._inputs):
                raise invalid_argument("Model.summary", "input_size is needed: the Model has no input specs "
                                                        "with shapes.", hint="e.g. model.summary((1, 28 * 28)).")
            input_size = [tuple(spec.shape) for spec in self._inputs]
            input_size = input_size[0] if len(input_size) == 1 else input_size
        return summary(self.network, input_size, dtypes=dtype)
