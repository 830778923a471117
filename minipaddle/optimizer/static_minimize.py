"""optimizer.minimize(loss) in static mode: backward + gradient clip + weight decay + update ops.

    opt = paddle.optimizer.Adam(learning_rate=0.01)
    opt.minimize(loss)          # inside program_guard: appends ops for the Program's trainable parameters

The update ops (`sgd`, `momentum`, `adam`, ...) run the optimizer class's own `_update` rule on the
parameter and accumulator arrays the Scope holds, so a static program trains exactly as eager
`opt.step()` does. Accumulators are persistable variables named as Paddle names them
(`linear_0.w_0_moment1_0`), initialized in the startup program; the learning rate is a
persistable variable the Executor sets from `optimizer.get_lr()` on every run, so LR schedulers
keep working.

It lives with the optimizers, above the core, because its ops run optimizer and nn.clip code:
importing paddle.optimizer registers them in the Executor's op table (framework/static/static_ops.py).
"""
from __future__ import annotations

import numpy as np

from ..framework import gpu
from ..framework.errors import invalid_argument, unimplemented
from ..framework.ops.elementwise import add, scale, sign
from ..framework.parameter import unique_name
from ..framework.static import builder
from ..framework.static.backward import append_backward
from ..framework.static.program import Block, Variable
from ..framework.static.static_ops import static_op
from ..framework.tensor import Tensor
from ..nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from ..regularizer import L1Decay, L2Decay
from . import gpu_update

UPDATE_OPS = ("sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad", "lamb")


def minimize_static(opt, loss: Variable, startup_program=None, parameters=None, no_grad_set=None):
    """Append backward, clip, regularization and update ops for `loss`; return (optimize_ops, params_grads)."""
    block = loss.block
    program = block.program
    gb = program.global_block()
    if parameters is not None:
        candidates = list(parameters)
    elif opt._parameter_list is None:   # made without parameters=, as Paddle's static examples do
        candidates = None               # every trainable parameter of the Program
    else:
        candidates = opt._all_params
    names = None if candidates is None else [p.name for p in candidates if p.name in gb.vars]
    params_grads = append_backward(loss, parameter_list=names, no_grad_set=no_grad_set)
    params_grads = [(p, g) for p, g in params_grads if not p.stop_gradient]
    groups = {p.name: (g, p) for g in opt._param_groups for p in g["params"]}
    startup = startup_program or builder.default_startup_program()
    start = len(gb.ops)
    with builder.block_guard(program, gb), builder.op_role("optimize"):
        lr_name = unique_name("learning_rate")
        gb.create_var(lr_name, (), np.float64, persistable=True)
        program._lr_sources.append((opt, lr_name))
        by_group: dict = {}
        for p, g in params_grads:
            group = groups.get(p.name, (opt._param_groups[0], p))[0]
            by_group.setdefault(id(group), (group, []))[1].append((p, g))
        for group, pairs in by_group.values():
            pairs = _clip(gb, group["grad_clip"], pairs)
            for p, g in pairs:
                eager_param = groups.get(p.name, (None, p))[1]
                g = _regularize(p, g, getattr(eager_param, "regularizer", None) or group["_regularizer"])
                _append_update(opt, gb, startup, group, p, eager_param, g, lr_name)
    return gb.ops[start:], params_grads


# ---- clip and weight decay ---------------------------------------------------------------
def _clip(block: Block, clip, pairs: list) -> list:
    """One clip op for the group's gradients (it runs the eager clip's own arithmetic)."""
    if clip is None or not pairs:
        return pairs
    if isinstance(clip, ClipGradByValue):
        op_type, attrs = "clip_by_value", {"min": clip.min, "max": clip.max}
    elif isinstance(clip, ClipGradByNorm):
        op_type, attrs = "clip_by_norm", {"clip_norm": clip.clip_norm}
    elif isinstance(clip, ClipGradByGlobalNorm):
        op_type, attrs = "clip_by_global_norm", {"clip_norm": clip.clip_norm, "auto_skip_clip": clip.auto_skip_clip}
    else:
        raise unimplemented("minimize", f"grad_clip {type(clip).__name__} has no static form.")
    attrs["need_clip"] = [bool(getattr(p, "need_clip", True)) for p, _ in pairs]
    outs = [block.create_var(block.program._unique_name(f"{g.name}_clipped"), g._data.shape, g._data.dtype)
            for _, g in pairs]
    block.append_op(op_type, {"Grad": [g.name for _, g in pairs]}, {"Out": [o.name for o in outs]}, attrs,
                    role="optimize")
    return [(p, o) for (p, _), o in zip(pairs, outs)]


class _NeedClip:
    def __init__(self, need_clip: bool) -> None:
        self.need_clip = need_clip


def _run_clip(op, env: dict, clip) -> None:
    stubs = [_NeedClip(n) for n in op.attrs["need_clip"]]
    grads = [env[n] for n in op.inputs["Grad"]]
    if grads and gpu_update.on_gpu(grads[0]):  # the eager GPU clip: GPU ops, one number to the host
        grads = gpu_update.clipped(clip, stubs, grads)
    else:
        grads = clip._clip_arrays(stubs, grads)
    for name, g in zip(op.outputs["Out"], grads):
        env[name] = g


@static_op("clip_by_value")
def run_clip_by_value(executor, op, env: dict) -> None:
    _run_clip(op, env, ClipGradByValue(op.attrs["max"], op.attrs["min"]))


@static_op("clip_by_norm")
def run_clip_by_norm(executor, op, env: dict) -> None:
    _run_clip(op, env, ClipGradByNorm(op.attrs["clip_norm"]))


@static_op("clip_by_global_norm")
def run_clip_by_global_norm(executor, op, env: dict) -> None:
    _run_clip(op, env, ClipGradByGlobalNorm(op.attrs["clip_norm"], auto_skip_clip=op.attrs["auto_skip_clip"]))


def _regularize(p: Variable, g: Variable, reg) -> Variable:
    """grad + coeff * param (L2Decay) or grad + coeff * sign(param) (L1Decay), as ops."""
    if reg is None:
        return g
    if isinstance(reg, L2Decay):
        return add(g, scale(p, reg.coeff))
    if isinstance(reg, L1Decay):
        return add(g, scale(sign(p), reg.coeff))
    raise unimplemented("minimize", f"regularizer {type(reg).__name__} has no static form.")


# ---- update ops -----------------------------------------------------------------------------
def _plain_group(group: dict) -> dict:
    """The group's hyper-parameters that are plain data (what the update rule reads)."""
    skip = {"params", "_regularizer", "grad_clip", "learning_rate", "lr_ratio", "apply_decay_param_fun"}
    out = {}
    for k, v in group.items():
        if k in skip:
            continue
        if v is None or isinstance(v, (bool, int, float, str)):
            out[k] = v
    return out


def _append_update(opt, block: Block, startup, group: dict, p: Variable, eager_param, g: Variable,
                   lr_name: str) -> None:
    op_type = type(opt).__name__.lower()
    if op_type not in UPDATE_OPS:
        raise unimplemented("minimize", f"optimizer {type(opt).__name__} has no static update op.",
                            hint=f"static mode supports {', '.join(UPDATE_OPS)}.")
    shape, dtype = p._data.shape, p._data.dtype
    state = opt._init_state(Tensor._wrap(np.zeros(shape, dtype)), group)
    inputs = {"Param": [p.name], "Grad": [g.name], "LearningRate": [lr_name]}
    outputs = {"ParamOut": [p.name]}
    for kind, value in state.items():
        name = unique_name(f"{p.name}_{opt._kind_name(kind)}")
        block.create_var(name, value.shape, value.dtype, persistable=True)
        sb = startup.global_block()
        sb.create_var(name, value.shape, value.dtype, persistable=True)
        with builder.op_role("startup"):
            builder.constant(sb, value, name=name, declared=True)
        inputs[kind] = [name]
        outputs[f"{kind}_out"] = [name]
    attrs = {"optimizer": type(opt).__name__, "group": _plain_group(group),
             "group_lr": float(group["learning_rate"]), "param_lr": float(p.optimize_attr["learning_rate"])}
    if group.get("lr_ratio") is not None:
        attrs["lr_ratio"] = float(group["lr_ratio"](eager_param))
    decide = group.get("apply_decay_param_fun")
    if decide is not None:
        attrs["apply_decay"] = bool(decide(p.name))
    block.append_op(op_type, inputs, outputs, attrs, role="optimize")


def run_update(executor, op, env: dict) -> None:
    """Run the optimizer's eager `_update` on the scope's arrays (in place). On a GPU Executor the
    parameter, gradient and accumulators are device arrays, so `_update` runs the optimizer's fused GPU
    kernel (kernels/cuda/optimizer.py), exactly as eager `opt.step()` on GPU parameters does."""
    from .. import optimizer as optim   # the package: the class named in the op
    a = op.attrs
    cls = getattr(optim, a["optimizer"], None)
    if cls is None:
        raise invalid_argument(op.type, f"unknown optimizer {a['optimizer']!r}.")
    group = dict(a["group"])
    group["lr_ratio"] = (lambda _p, r=a["lr_ratio"]: r) if "lr_ratio" in a else None
    group["apply_decay_param_fun"] = (lambda _n, d=a["apply_decay"]: d) if "apply_decay" in a else None
    pname = op.inputs["Param"][0]
    param = Tensor._wrap(env[pname])
    param.name = pname
    state = {k: env[v[0]] for k, v in op.inputs.items() if k not in ("Param", "Grad", "LearningRate")}
    lr = float(env[op.inputs["LearningRate"][0]]) * a["group_lr"] * a["param_lr"]
    grad = env[op.inputs["Grad"][0]]
    if gpu_update.on_gpu(param._data):
        _place_gpu_state(executor, op, cls, param._data, state, group, env)
    if grad.shape != param._data.shape:
        raise invalid_argument(op.type, f"parameter '{pname}' has shape {list(param._data.shape)} but its grad has "
                                        f"shape {list(grad.shape)}.")
    cls._update(None, param, grad, lr, state, group)


def _place_gpu_state(executor, op, cls, data, state: dict, group: dict, env: dict) -> None:
    """Put each accumulator where the optimizer's GPU update wants it: on the device, except what its GPU
    state keeps on the host (Adam's beta powers: one number each, read by the host every step). The
    Executor is told (`host_names`), so it does not copy those back to the device on the next run."""
    if not getattr(cls, "_gpu_ready", False):
        raise unimplemented(op.type, f"parameter '{op.inputs['Param'][0]}' lives on the GPU, and "
                                     f"{cls.__name__} has no GPU update yet.",
                            hint="use an optimizer with a GPU update (SGD, Momentum, Adam, AdamW), or run the "
                                 "program with a CPU Executor.")
    on_host = _gpu_host_state(cls, data, group)
    for kind, value in state.items():
        name = op.inputs[kind][0]
        if kind in on_host and gpu_update.on_gpu(value):
            state[kind] = env[name] = gpu_update.host(value)
            executor.host_names.add(name)
        elif kind not in on_host and type(value) is np.ndarray:
            state[kind] = env[name] = gpu.to_device(value)


_HOST_STATE: dict = {}  # (optimizer class, amsgrad) -> the state kinds its GPU update keeps on the host


def _gpu_host_state(cls, data, group: dict) -> frozenset:
    key = (cls, bool(group.get("amsgrad")))
    if key not in _HOST_STATE:  # ask the optimizer once: its GPU state for a one-element parameter
        probe = Tensor._wrap(gpu.to_device(np.zeros(1, np.dtype(data.dtype))))
        try:
            state = cls._init_state(None, probe, group)
        except (AttributeError, TypeError):  # an _init_state that reads the optimizer itself: all on the device
            state = {}
        _HOST_STATE[key] = frozenset(k for k, v in state.items() if not gpu_update.on_gpu(v))
    return _HOST_STATE[key]


for _name in UPDATE_OPS:
    static_op(_name, side_effect=True)(run_update)
