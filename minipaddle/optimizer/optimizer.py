"""Optimizer: what every paddle.optimizer shares (param groups, learning rate, clipping, weight decay, state).

One `step()`, for each parameter group:
  1. collect `(param, grad)` for the parameters to update (stop_gradient=False and a grad present);
  2. clip the gradients (`grad_clip`);
  3. add weight decay: the parameter's own `regularizer`, else the group's, else the optimizer's;
  4. run the subclass's rule `_update(param, grad, lr, state, group)`: numpy math written in place on
     `param._data`, with `lr` = the optimizer's lr x the group's `learning_rate` x the parameter's
     `optimize_attr["learning_rate"]`.
On the GPU, steps 2 and 3 run as GPU ops and a subclass with `_gpu_ready = True` calls its fused GPU
kernel in step 4 (gpu_update.py); another optimizer refuses a GPU parameter with a clear error.
A subclass only says which accumulators it keeps (`_init_state`) and how it updates (`_update`):

    class SGD(Optimizer):
        def _update(self, param, grad, lr, state, group):
            p = param._data
            p -= lr * grad

Accumulators are named as Paddle names them (`linear_0.w_0_moment1_0`), so `state_dict()` looks like Paddle's.
"""
from __future__ import annotations

import re
import time
import warnings

import numpy as np

from ..framework import arrays, instrument
from ..framework.autograd import no_grad
from ..framework.dtype import BFLOAT16_NP
from ..framework.errors import invalid_argument, invalid_type, precondition_not_met, unimplemented
from ..framework.parameter import unique_name
from ..framework.registry import DEVICE_ARRAY_TYPES
from ..framework.tensor import Tensor
from ..framework.thread_modes import modes
from ..nn.clip import ClipGradBase
from ..nn.layer.layers import Layer
from ..regularizer import L2Decay, WeightDecayRegularizer
from . import gpu_update
from .lr import LRScheduler

__all__ = ["Optimizer"]

_GROUP_KEYS = ("params", "learning_rate", "weight_decay", "grad_clip")
_UNIQUE_SUFFIX = re.compile(r"_\d+$")


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)


def _check_learning_rate(api: str, learning_rate):
    if isinstance(learning_rate, LRScheduler):
        return learning_rate
    if not _is_number(learning_rate):
        raise invalid_argument(api, f"learning_rate must be a float or an LRScheduler, got "
                                    f"{type(learning_rate).__name__}.",
                               hint="e.g. learning_rate=0.01 or paddle.optimizer.lr.StepDecay(0.1, step_size=10).")
    if not np.isfinite(learning_rate):
        raise invalid_argument(api, f"learning_rate must be a finite number, got {learning_rate}: every update "
                                    "would make the parameters NaN or infinite.")
    if learning_rate < 0:
        raise invalid_argument(api, f"learning_rate must be >= 0, got {learning_rate}.")
    return float(learning_rate)


def _check_clip(api: str, grad_clip):
    if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
        raise invalid_argument(api, f"grad_clip must be a ClipGradByValue, ClipGradByNorm or ClipGradByGlobalNorm, "
                                    f"got {type(grad_clip).__name__}.")
    return grad_clip


def _to_regularizer(api: str, weight_decay):
    """Paddle's spellings: None, a float (the L2Decay coefficient) or an L1Decay/L2Decay."""
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if _is_number(weight_decay):
        return L2Decay(float(weight_decay))
    raise invalid_argument(api, f"weight_decay must be a float or a regularizer (L1Decay, L2Decay), got "
                                f"{type(weight_decay).__name__}.")


def _check_params(api: str, params, where: str) -> list:
    if isinstance(params, Tensor):
        params = [params]
    try:
        params = list(params)
    except TypeError:
        raise invalid_argument(api, f"{where} must be a list of Tensors, got {type(params).__name__}.") from None
    for p in params:
        if not isinstance(p, Tensor):
            raise invalid_argument(api, f"{where} must hold Tensors (Parameters), got a {type(p).__name__}.")
        if p._data.dtype.kind != "f" and p._data.dtype != BFLOAT16_NP:
            raise invalid_argument(api, f"parameter '{p.name}' has dtype {p._data.dtype}; only float tensors "
                                        "can be optimized.")
    return params


def _check_all_params(api: str, params: list) -> list:
    seen: set = set()
    for p in params:
        reg = getattr(p, "regularizer", None)
        if reg is not None and not isinstance(reg, WeightDecayRegularizer):
            raise invalid_argument(api, f"parameter '{p.name}' has regularizer {reg!r}; expected an L1Decay or "
                                        "L2Decay.")
        if id(p) in seen:
            raise invalid_argument(api, f"parameter '{p.name}' is given more than once; it would be updated "
                                        "twice per step.")
        seen.add(id(p))
    return params


def _static_mode() -> bool:
    """Whether ops build a Program (paddle.enable_static(), or inside program_guard)."""
    from ..framework.static import builder
    return not builder.in_dynamic_mode() or builder.in_static_mode()


class Optimizer:
    """Base class of the optimizers; use a subclass such as SGD or Adam.

    Args (Paddle's): learning_rate (float or LRScheduler); parameters (a list of Tensors, or a list
    of dicts `{"params": [...], "learning_rate": scale, "weight_decay": ..., <hyper-parameter>: ...}`,
    where a group's learning_rate multiplies the optimizer's); weight_decay (float = L2 coefficient,
    or L1Decay/L2Decay); grad_clip (ClipGradByValue/ByNorm/ByGlobalNorm); name (prefixes accumulator names).
    """

    _accumulator_kinds: tuple = ()  # names of the per-parameter accumulators, e.g. ("velocity",)

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None, name=None) -> None:
        api = type(self).__name__
        self._learning_rate = _check_learning_rate(api, learning_rate)
        if parameters is None and _static_mode():
            parameters = ()   # as in Paddle's static examples: minimize(loss) trains the Program's parameters
        elif parameters is None:
            raise invalid_argument(api, "parameters is None; in dynamic graph mode an optimizer must be told "
                                        "which parameters to update.", hint="pass parameters=model.parameters().")
        if isinstance(parameters, dict):
            raise invalid_argument(api, "parameters must be a list, got a dict.",
                                   hint="for parameter groups pass a list of dicts: [{'params': [...]}, ...].")
        if isinstance(parameters, Tensor):
            raise invalid_argument(api, "parameters must be a list of Tensors, got a single Tensor.",
                                   hint="wrap it in a list: parameters=[w].")
        if isinstance(parameters, Layer):
            raise invalid_type(api, f"parameters must be a list of Tensors, got the layer "
                                    f"{type(parameters).__name__} itself.",
                               hint="pass its parameters: parameters=model.parameters().")
        if not hasattr(parameters, "__iter__"):
            raise invalid_type(api, f"parameters must be a list of Tensors, got {type(parameters).__name__}.",
                               hint="pass parameters=model.parameters().")
        self._parameter_list = list(parameters)
        if not self._parameter_list and parameters != ():
            raise invalid_argument(api, "parameters is an empty list: there is nothing to optimize.")
        # None: made in static mode without parameters=, so minimize(loss) takes the Program's trainable ones
        self._parameter_list = self._parameter_list if parameters != () else None
        self._name = name
        self.regularization = _to_regularizer(api, weight_decay)
        self._grad_clip = _check_clip(api, grad_clip)
        self._default_dict = {"weight_decay": self.regularization, "grad_clip": self._grad_clip,
                              **getattr(self, "_hyper", {})}
        if self._parameter_list is None:
            self._param_groups = [self._make_group(api, {"params": []}, "parameters")]
        elif all(isinstance(g, dict) for g in self._parameter_list):
            self._param_groups = [self._make_group(api, dict(g), f"parameters[{i}]['params']")
                                  for i, g in enumerate(self._parameter_list)]
        elif any(isinstance(g, dict) for g in self._parameter_list):
            raise invalid_argument(api, "parameters mixes Tensors and dicts; give either a list of Tensors or a "
                                        "list of parameter-group dicts.")
        else:
            self._param_groups = [self._make_group(api, {"params": self._parameter_list}, "parameters")]
        self._all_params = _check_all_params(api, [p for g in self._param_groups for p in g["params"]])
        self._accumulators: dict = {}       # id(param) -> {kind: ndarray}, made at the parameter's first update
        self._accumulator_names: dict = {}  # id(param) -> {kind: "linear_0.w_0_moment1_0"}
        self._accumulators_holder: dict = {}  # loaded by set_state_dict, not yet claimed: base name -> (name, array)
        self.clear_gradients = self.clear_grad

    def _make_group(self, api: str, group: dict, where: str) -> dict:
        """A parameter group with every setting filled in (defaults from the optimizer)."""
        if "params" not in group:
            raise invalid_argument(api, f"a parameter group has no 'params' key (keys: {sorted(group)}).")
        unknown = set(group) - set(_GROUP_KEYS) - set(self._default_dict)
        if unknown:
            raise invalid_argument(api, f"parameter group has unknown keys {sorted(unknown)}; allowed: "
                                        f"{sorted(set(_GROUP_KEYS) | set(self._default_dict))}.")
        full = {"learning_rate": 1.0, **self._default_dict, **group}
        full["params"] = _check_params(api, group["params"], where)
        scale = full["learning_rate"]
        if not _is_number(scale) or scale < 0:
            raise invalid_argument(api, f"a group's learning_rate is a scale of the optimizer's and must be a "
                                        f"number >= 0, got {scale!r}.")
        full["learning_rate"] = float(scale)
        full["grad_clip"] = _check_clip(api, full["grad_clip"])
        full["_regularizer"] = self._group_regularizer(api, full)
        return full

    def _group_regularizer(self, api: str, group: dict):
        """The regularizer a group's weight_decay means (AdamW overrides: its decay is decoupled)."""
        group["weight_decay"] = _to_regularizer(api, group["weight_decay"])
        return group["weight_decay"]

    # ---- the learning rate ---------------------------------------------------------------
    def get_lr(self) -> float:
        """The current learning rate (the scheduler's value when one is used)."""
        lr = self._learning_rate
        return lr if type(lr) is float else float(lr())

    def set_lr(self, value: float) -> None:
        """Set a float learning rate by hand; not allowed when an LRScheduler drives it."""
        if isinstance(self._learning_rate, LRScheduler):
            raise precondition_not_met("set_lr", "the learning rate is driven by an LRScheduler; setting it by hand "
                                                 "would conflict with the scheduler.",
                                       hint="call scheduler.step(), or set_lr_scheduler() to replace it.")
        if not _is_number(value):
            raise invalid_argument("set_lr", f"value must be a float, got {type(value).__name__}.")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler: LRScheduler) -> None:
        if not isinstance(scheduler, LRScheduler):
            raise invalid_argument("set_lr_scheduler", f"scheduler must be an LRScheduler, got "
                                                       f"{type(scheduler).__name__}.")
        self._learning_rate = scheduler

    # ---- one step ------------------------------------------------------------------------
    def step(self) -> None:
        """Update every parameter that has a gradient, once (recording no graph, as under no_grad).

        Reported on the bus as OptimizerStepBegin / OptimizerStepEnd when someone listens (the profiler's
        Optimization phase)."""
        listeners = instrument.listeners
        if not (listeners["optimizer_step_begin"] or listeners["optimizer_step_end"]):
            self._apply_all()
            return
        start = time.perf_counter_ns()
        instrument.emit(instrument.OptimizerStepBegin(self, start))
        try:
            self._apply_all()
        finally:
            instrument.emit(instrument.OptimizerStepEnd(self, start, time.perf_counter_ns()))

    def _apply_all(self) -> None:
        if self._parameter_list is None:
            raise precondition_not_met("step", f"this {type(self).__name__} was made in static mode without "
                                               "parameters=, so it only updates a Program (via minimize(loss)).",
                                       hint="in dynamic mode pass parameters=model.parameters().")
        lr = self._learning_rate
        base_lr = lr if type(lr) is float else float(lr())
        prev_mode = modes.grad_enabled  # cheaper than `with no_grad()` on this hot path
        modes.grad_enabled = False
        try:
            for group in self._param_groups:
                params, grads = [], []
                for p in group["params"]:
                    g = p._grad
                    if g is not None and not p.stop_gradient:
                        params.append(p)
                        grads.append(g._data)
                if params:
                    self._apply_group(group, params, grads, base_lr)
        finally:
            modes.grad_enabled = prev_mode

    def _apply_group(self, group: dict, params: list, grads: list, base_lr: float) -> None:
        clip = group["grad_clip"]
        if clip is not None:
            on_gpu = type(grads[0]) in DEVICE_ARRAY_TYPES
            grads = gpu_update.clipped(clip, params, grads) if on_gpu else clip._clip_arrays(params, grads)
        lr = base_lr * group["learning_rate"]
        decay = group["_regularizer"]
        states = self._accumulators
        update = self._update
        emit = instrument.listeners["optimizer_update"]
        for p, g in zip(params, grads):
            if g.shape != p._data.shape:
                raise invalid_argument(type(self).__name__, f"parameter '{p.name}' has shape {list(p._data.shape)} "
                                                            f"but its grad has shape {list(g.shape)}.")
            reg = getattr(p, "regularizer", None) or decay  # the parameter's own regularizer wins
            if reg is not None:
                g = gpu_update.regularized(reg, p._data, g) if type(g) in DEVICE_ARRAY_TYPES else reg._apply(p._data, g)
            attr = getattr(p, "optimize_attr", None)
            p_lr = lr if attr is None else lr * attr["learning_rate"]
            state = states.get(id(p))  # keyed by id: Tensor.__hash__ is a Python-level call
            if state is None:
                state = self._create_state(p, group)
            if emit:
                before = self._capture_before(p, g)
            update(p, g, p_lr, state, group)
            p._bump_version()
            if emit:
                self._emit_update(p, g, p_lr, before)

    def _update(self, param: Tensor, grad: np.ndarray, lr: float, state: dict, group: dict) -> None:
        raise unimplemented(type(self).__name__, "the Optimizer base class has no update rule.",
                            hint="use a subclass such as paddle.optimizer.SGD or Adam.")

    def _init_state(self, param: Tensor, group: dict) -> dict:
        """The accumulators of one parameter, freshly made: {kind: ndarray}."""
        return {}

    # ---- reporting updates (only while an instrument subscriber listens) ------------------------
    def _capture_before(self, p: Tensor, g: np.ndarray) -> tuple:
        """(the parameter's values before its update, the squared norm of the gradient `g`).

        The values go into one reused scratch buffer (as big as the biggest parameter, kept once
        someone listened): a fresh 800 KB copy per weight per step would be handed back to the OS and
        faulted in again each time. Copy and gradient norm are one compiled call for float arrays.
        """
        data, g = gpu_update.host(p._data), gpu_update.host(g)  # a GPU update is reported from host copies
        scratch = self.__dict__.get("_before_scratch")
        if scratch is None or scratch.dtype != data.dtype or scratch.size < data.size:
            scratch = self._before_scratch = np.empty(data.size, data.dtype)
        before = scratch[:data.size]
        if _fast_norms(data, g):
            return before, _norm_kernels().copy_and_square_sum(data.reshape(-1), before, g.reshape(-1))
        np.copyto(before.reshape(data.shape), data)
        return before, None

    def _emit_update(self, p: Tensor, g: np.ndarray, lr: float, before: tuple) -> None:
        """Report the update of `p`: the norms of the gradient and of the change since `before`."""
        values, grad_sq = before
        data = gpu_update.host(p._data)
        if grad_sq is not None:
            update_sq = _norm_kernels().diff_square_sum(data.reshape(-1), values)
        else:
            grad_sq = _square_sum(g.reshape(-1))
            delta = np.subtract(data.reshape(-1), values, out=values)
            update_sq = _square_sum(delta)
        instrument.emit(instrument.OptimizerUpdate(type(self).__name__, p.name, float(lr), float(np.sqrt(grad_sq)),
                                                   float(np.sqrt(update_sq)), tensor=p))

    # ---- accumulators and their state dict -------------------------------------------------
    def _kind_name(self, kind: str) -> str:
        return kind if self._name is None else f"{self._name}_{kind}"

    def _create_state(self, p: Tensor, group: dict) -> dict:
        gpu_update.check_supported(self, p)
        if p._data.dtype == BFLOAT16_NP:  # as Paddle: a bfloat16 parameter's accumulators are float32 (in
            # bfloat16, Adam's beta2_pow 0.999 would round to 1 and its bias correction to 0: no update)
            state = self._init_state(Tensor._wrap(p._data.astype(np.float32)), group)
        else:
            state = self._init_state(p, group)
        names = {}
        for kind, arr in state.items():
            base = f"{p.name}_{self._kind_name(kind)}"
            loaded = self._accumulators_holder.pop(base, None)
            if loaded is None:
                names[kind] = unique_name(base)
            else:
                names[kind] = loaded[0]
                self._load_into(arr, loaded[1], loaded[0])
        self._accumulators[id(p)] = state
        self._accumulator_names[id(p)] = names
        return state

    @staticmethod
    def _load_into(arr: np.ndarray, value: np.ndarray, name: str) -> None:
        if tuple(value.shape) != tuple(arr.shape):
            raise invalid_argument("set_state_dict", f"'{name}' has shape {list(value.shape)}, but this optimizer's "
                                                     f"accumulator has shape {list(arr.shape)}.")
        gpu_update.load_into(arr, value)

    def state_dict(self) -> dict:
        """Accumulators by their Paddle names (copies), plus "LR_Scheduler" when a scheduler is used."""
        out = {}
        for p in self._all_params:
            state = self._accumulators.get(id(p), {})
            names = self._accumulator_names.get(id(p))
            for kind, arr in state.items():
                out[names[kind]] = _named_tensor(arrays.copy(arr), names[kind])  # where the accumulator lives
        for name, value in self._accumulators_holder.values():  # loaded but not used yet: keep them
            out[name] = _named_tensor(value.copy(), name)
        if isinstance(self._learning_rate, LRScheduler):
            out["LR_Scheduler"] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict: dict) -> None:
        """Load what `state_dict()` returned: accumulators are matched to parameters by name
        (`linear_0.w_0_moment1_0`; the trailing unique number may differ) and loaded now, or at the
        parameter's first update."""
        if not isinstance(state_dict, dict):
            raise invalid_argument("set_state_dict", f"expected a dict, got {type(state_dict).__name__}.")
        if isinstance(self._learning_rate, LRScheduler) and "LR_Scheduler" in state_dict:
            self._learning_rate.set_state_dict(state_dict["LR_Scheduler"])
        holder = {}
        for name, value in state_dict.items():
            if name in ("LR_Scheduler", "master_weights"):
                continue
            data = gpu_update.host(value._data) if isinstance(value, Tensor) else np.asarray(value)
            holder[_UNIQUE_SUFFIX.sub("", name)] = (name, data)
        expected = {f"{p.name}_{self._kind_name(k)}" for p in self._all_params for k in self._kinds()}
        unmatched = [base for base in holder if base not in expected]
        if unmatched and len(unmatched) == len(holder):
            raise invalid_argument(
                "set_state_dict", f"none of the {len(holder)} accumulators in the state dict (e.g. "
                                  f"'{holder[unmatched[0]][0]}') belongs to this optimizer's parameters "
                                  f"({', '.join(p.name for p in self._all_params[:3])}, ...).",
                hint="accumulators are matched by parameter name: build the model the same way (same layer "
                     "names) before loading, or start the optimizer fresh.")
        if unmatched:
            warnings.warn(f"set_state_dict: {len(unmatched)} entries match no parameter of this optimizer and are "
                          f"ignored, e.g. '{holder[unmatched[0]][0]}'.", stacklevel=2)
        for base in unmatched:
            del holder[base]
        for p in self._all_params:  # parameters already stepped: load now
            for kind, arr in self._accumulators.get(id(p), {}).items():
                loaded = holder.pop(f"{p.name}_{self._kind_name(kind)}", None)
                if loaded is not None:
                    self._load_into(arr, loaded[1], loaded[0])
                    self._accumulator_names[id(p)][kind] = loaded[0]
        self._accumulators_holder = {base: (name, np.array(data)) for base, (name, data) in holder.items()}

    set_dict = set_state_dict

    def _kinds(self) -> tuple:
        return self._accumulator_kinds

    # ---- gradients -----------------------------------------------------------------------
    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Zero every parameter's gradient (Tensor.clear_grad: the next backward replaces the zeros), or
        drop it with set_to_zero=False."""
        for p in self._all_params:
            if not p.stop_gradient:
                p.clear_grad(set_to_zero)

    def minimize(self, loss: Tensor, startup_program=None, parameters=None, no_grad_set=None):
        """Backward (when `loss` still has its graph) and one update; returns `(optimize_ops, params_grads)`.

        Paddle's dygraph style `loss.backward(); opt.minimize(loss)` works too: a graph already
        walked by backward() is not walked again.
        """
        if not isinstance(loss, Tensor):
            raise invalid_argument("minimize", f"loss must be a Tensor, got {type(loss).__name__}.")
        if getattr(loss, "block", None) is not None:  # a static Variable: append backward + update ops
            from .static_minimize import minimize_static
            return minimize_static(self, loss, startup_program, parameters, no_grad_set)
        if self._parameter_list is None:
            self.step()   # raises: this optimizer was made for a Program
        node = loss._node
        if node is not None and not node.freed:
            loss.backward()
        chosen = None if parameters is None else {id(p) for p in _check_params("minimize", parameters, "parameters")}
        skip = set()
        for item in no_grad_set or ():
            skip.add(item if isinstance(item, str) else id(item))
        params_grads = []
        lr = self.get_lr()
        with no_grad():
            for group in self._param_groups:
                params, grads = [], []
                for p in group["params"]:
                    if (p.stop_gradient or p._grad is None or (chosen is not None and id(p) not in chosen)
                            or id(p) in skip or p.name in skip):
                        continue
                    params.append(p)
                    grads.append(p._grad._data)
                    params_grads.append((p, p._grad))
                if params:
                    self._apply_group(group, params, grads, lr)
        return [], params_grads

    def __repr__(self) -> str:
        return f"{type(self).__name__}(learning_rate={self._learning_rate!r}, {len(self._all_params)} parameters)"


def _fast_norms(data: np.ndarray, g: np.ndarray) -> bool:
    """Whether the compiled norms take these arrays (contiguous float32/float64)."""
    return (data.dtype.char in "fd" and g.dtype.char in "fd" and data.flags.c_contiguous
            and g.flags.c_contiguous)


_kernels = None


def _norm_kernels():
    global _kernels
    if _kernels is None:  # numba loads when an update is first reported, never at import
        from ..visualizer import summary_kernels
        _kernels = summary_kernels
    return _kernels


def _square_sum(flat: np.ndarray) -> float:
    """Sum of |x|**2 of a 1-D array (np.linalg.norm's way, squared: one BLAS dot for real ones)."""
    if flat.dtype.kind == "c":
        return float(np.vdot(flat, flat).real)
    return float(np.dot(flat, flat))


def _named_tensor(data: np.ndarray, name: str) -> Tensor:
    t = Tensor._wrap(data)
    t.name = name
    return t
