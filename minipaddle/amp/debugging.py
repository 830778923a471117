"""paddle.amp.debugging: find where NaN/Inf first appear -- in which op, phase, layer and tensor.

    cfg = paddle.amp.debugging.TensorCheckerConfig(enable=True,
                                                   debug_mode=paddle.amp.debugging.DebugMode.CHECK_NAN_INF)
    paddle.amp.debugging.enable_tensor_checker(cfg)
    loss = model(x).mean(); loss.backward(); opt.step()
    paddle.amp.debugging.disable_tensor_checker()

or, for the whole program, `paddle.set_flags({"FLAGS_check_nan_inf": True})` (FLAGS_check_nan_inf_level
picks the mode). The checker listens on the instrument bus (framework/instrument.py), so it costs
nothing while off: "op" events give every op's outputs (phase forward), "backward_step" events the
gradients each grad node sends on (phase backward: op "<op>_grad", tensor "<input>@GRAD"), and
"optimizer_update" events the parameters after an update (phase optimizer). A report reads

    [PRECISION] [ERROR] in [device=cpu, op=log, phase=forward, layer=Net.head, tensor=log.out,
    dtype=float32, origin=produced], numel=6, num_nan=1, num_inf=1, num_zero=0, max=..., min=..., mean=...

min/max/mean are over the finite values. origin "produced": the op's inputs were finite, so this op
made the NaN; "propagated": it came in. CHECK_NAN_INF_AND_ABORT raises NanInfError at the first one
(after letting a recording `paddle.debug.record` trace see that op, so the trace marks the node);
CHECK_NAN_INF logs every one (logger "minipaddle.amp.debugging") and keeps them in `reports()`.
"""
from __future__ import annotations

import logging
import os
from enum import Enum

import numpy as np

from ..framework import instrument
from ..framework.errors import MinipaddleError, invalid_argument
from ..framework.flags import get_flags, set_flags

__all__ = ["DebugMode", "NanInfError", "TensorCheckerConfig", "check_numerics", "disable_tensor_checker",
           "enable_tensor_checker", "reports"]

logger = logging.getLogger("minipaddle.amp.debugging")
FLOAT16_MAX = 65504.0
MAX_REPORTS = 1000
# Paddle's op names for the same ops, so a skip list written for Paddle works here too.
_PADDLE_NAMES = {"elementwise_add": "add", "elementwise_sub": "subtract", "elementwise_mul": "multiply",
                 "elementwise_div": "divide", "elementwise_pow": "pow", "elementwise_max": "maximum",
                 "elementwise_min": "minimum", "matmul_v2": "matmul", "reduce_sum": "sum", "reduce_mean": "mean"}


class DebugMode(Enum):
    """What the checker does (Paddle's values; FLAGS_check_nan_inf_level takes 0-3)."""
    CHECK_NAN_INF_AND_ABORT = 0   # report the first tensor with NaN/Inf and raise NanInfError
    CHECK_NAN_INF = 1             # report every tensor with NaN/Inf and go on
    CHECK_ALL_FOR_OVERFLOW = 2    # also report float32 tensors with values outside float16's range
    CHECK_ALL = 3                 # report every checked tensor's statistics
    CHECK_ALL_AND_ABORT = 4       # report every tensor, raise at the first NaN/Inf
    DUMP_ALL = 5                  # as CHECK_ALL (with output_dir: written to files)


class NanInfError(MinipaddleError, RuntimeError):
    """A checked tensor holds NaN or Inf (DebugMode.CHECK_NAN_INF_AND_ABORT)."""

    def __init__(self, message: str, report: dict) -> None:
        super().__init__(message)
        self.report = report


class TensorCheckerConfig:
    """What to check (Paddle's signature). debug_step=[start, end): check only in the calls number
    start .. end-1 of enable_tensor_checker with this config (one call per training step)."""

    def __init__(self, enable: bool, debug_mode: DebugMode = DebugMode.CHECK_NAN_INF_AND_ABORT,
                 output_dir: str | None = None, checked_op_list=None, skipped_op_list=None, debug_step=None,
                 stack_height_limit: int = 1) -> None:
        if not isinstance(debug_mode, DebugMode):
            raise invalid_argument("TensorCheckerConfig", f"debug_mode got {debug_mode!r}, expected a "
                                                          "paddle.amp.debugging.DebugMode.")
        if debug_step is not None and (not isinstance(debug_step, (list, tuple)) or len(debug_step) != 2
                                       or debug_step[0] > debug_step[1]):
            raise invalid_argument("TensorCheckerConfig", f"debug_step got {debug_step!r}, expected [start, end] "
                                                          "with start <= end.")
        self.enable = bool(enable)
        self.debug_mode = debug_mode
        self.output_dir = output_dir
        self.checked_op_list = _op_names("checked_op_list", checked_op_list)
        self.skipped_op_list = _op_names("skipped_op_list", skipped_op_list)
        self.debug_step = tuple(debug_step) if debug_step is not None else None
        self.stack_height_limit = stack_height_limit
        self.current_step_id = 0

    def update_and_check_step_id(self) -> bool:
        """Count one enable_tensor_checker call; True when this step is to be checked."""
        step = self.current_step_id
        self.current_step_id += 1
        if not self.enable:
            return False
        return self.debug_step is None or self.debug_step[0] <= step < self.debug_step[1]

    def wants(self, op: str) -> bool:
        """Is `op` (or, for a grad op "log_grad", its forward op) checked?"""
        base = op[:-5] if op.endswith("_grad") else op
        if self.skipped_op_list and (op in self.skipped_op_list or base in self.skipped_op_list):
            return False
        return not self.checked_op_list or op in self.checked_op_list or base in self.checked_op_list


def _op_names(arg: str, names) -> frozenset:
    if names is None:
        return frozenset()
    if isinstance(names, str) or not isinstance(names, (list, tuple, set, frozenset)):
        raise invalid_argument("TensorCheckerConfig", f"{arg} got {names!r}, expected a list of op names.")
    return frozenset(_PADDLE_NAMES.get(n, n) for n in names)


# ---- statistics ------------------------------------------------------------------------------------
def tensor_stats(a: np.ndarray) -> dict:
    """numel, NaN/Inf/zero counts, and min/max/mean of the finite values."""
    finite = np.isfinite(a)
    nan = int(np.isnan(a).sum())
    values = a[finite] if nan or not finite.all() else a.reshape(-1)
    stats = {"numel": int(a.size), "num_nan": nan, "num_inf": int(a.size - finite.sum()) - nan,
             "num_zero": int(a.size - np.count_nonzero(a))}
    if values.size:
        stats.update(max=float(values.max()), min=float(values.min()), mean=float(values.mean(dtype=np.float64)))
    else:
        stats.update(max=float("nan"), min=float("nan"), mean=float("nan"))
    return stats


def _all_finite(a: np.ndarray) -> bool:
    # One sum instead of an isfinite pass: NaN or Inf anywhere makes the sum NaN or Inf. A non-finite
    # sum of finite values (overflow) is sorted out by the caller's full count.
    with np.errstate(all="ignore"):
        return bool(np.isfinite(a.sum()))


# ---- the checker ------------------------------------------------------------------------------------
class _Checker:
    """The instrument subscriber: checks what each event carries, reports, and raises in abort modes."""

    KINDS = ("op", "backward_begin", "backward_step", "backward_end", "optimizer_update")

    def __init__(self, config: TensorCheckerConfig) -> None:
        self.config = config
        self.backward_depth = 0
        self.node_layer: dict[int, str | None] = {}   # id(grad node) -> layer path of its forward op
        self.fn = self.on_event

    def on_event(self, e: instrument.Event) -> None:
        kind = e.kind
        if kind == "op":
            if e.grad_node is not None:
                if len(self.node_layer) > 100_000:
                    self.node_layer.clear()
                self.node_layer[id(e.grad_node)] = e.layer
            if self.backward_depth == 0:  # ops that backward rules run are checked as the node's grads
                self._check_op(e)
        elif kind == "backward_step":
            self._check_backward(e)
        elif kind == "optimizer_update":
            self._check_update(e)
        elif kind == "backward_begin":
            self.backward_depth += 1
        elif kind == "backward_end":
            self.backward_depth = max(0, self.backward_depth - 1)

    def _check_op(self, e: instrument.Event) -> None:
        op = e.op
        if not self.config.wants(op):
            return
        names = e.opdef.outputs
        for i, t in enumerate(e.outputs):
            name = names[i] if i < len(names) else str(i)
            self._check(t._data, e, op, "forward", e.layer, f"{op}.{name}",
                        lambda: [x._data for x in e.inputs if hasattr(x, "_data")])

    def _check_backward(self, e: instrument.Event) -> None:
        node = e.node
        op = getattr(node, "op", None)
        if op is None:  # an AccumulateGrad: its gradient was checked where it was sent from
            return
        name = f"{op.name}_grad"
        if not self.config.wants(name):
            return
        layer = self.node_layer.get(id(node))
        for i, g in enumerate(e.grads_out):
            if g is None:
                continue
            slot = op.inputs[i] if i < len(op.inputs) and not op.variadic else f"{op.inputs[0]}[{i}]"
            self._check(g._data, e, name, "backward", layer, f"{slot}@GRAD",
                        lambda: [g._data for g in e.grads_in if g is not None])

    def _check_update(self, e: instrument.Event) -> None:
        param = e.tensor
        if param is None:
            param = e.param
        if not hasattr(param, "_data"):
            return
        op = e.optimizer.lower()
        if self.config.wants(op):
            grad = getattr(param, "grad", None)  # the update's other input: a NaN there was propagated
            self._check(param._data, e, op, "optimizer", None, getattr(param, "name", "param"),
                        lambda: [] if grad is None else [grad._data])

    def _check(self, a: np.ndarray, event: dict, op: str, phase: str, layer, tensor: str, inputs) -> None:
        if a.dtype.kind not in "fc" or a.size == 0:
            return
        mode = self.config.debug_mode
        report_all = mode in (DebugMode.CHECK_ALL, DebugMode.CHECK_ALL_AND_ABORT, DebugMode.DUMP_ALL)
        finite = _all_finite(a)
        if finite and not report_all and mode is not DebugMode.CHECK_ALL_FOR_OVERFLOW:
            return  # the common case: one sum and back
        stats = tensor_stats(a)
        bad = stats["num_nan"] + stats["num_inf"] > 0
        overflow = (mode is DebugMode.CHECK_ALL_FOR_OVERFLOW and a.dtype == np.float32 and not bad
                    and max(abs(stats["max"]), abs(stats["min"])) > FLOAT16_MAX)
        if not (bad or overflow or report_all):
            return
        origin = None
        if bad:
            origin = "propagated" if any(not _all_finite(x) for x in inputs() if x.dtype.kind in "fc") else "produced"
        report = {"op": op, "phase": phase, "layer": layer, "tensor": tensor, "dtype": a.dtype.name,
                  "shape": list(a.shape), "origin": origin, **stats}
        level = "ERROR" if bad else ("WARNING" if overflow else "INFO")
        message = _format(report, level)
        _remember(report)
        self._write(message)
        if bad and mode in (DebugMode.CHECK_NAN_INF_AND_ABORT, DebugMode.CHECK_ALL_AND_ABORT):
            self._deliver_to_later_subscribers(event)
            raise NanInfError(message + " Hint: the checker stopped at the first NaN/Inf (DebugMode."
                                        f"{mode.name}); use DebugMode.CHECK_NAN_INF to report all and go on.",
                              report)
        logger.log(logging.INFO if level == "INFO" else logging.WARNING, message)

    def _write(self, message: str) -> None:
        out = self.config.output_dir
        if out:
            os.makedirs(out, exist_ok=True)
            with open(os.path.join(out, f"worker_cpu.{os.getpid()}.log"), "a") as f:
                f.write(message + "\n")

    def _deliver_to_later_subscribers(self, event: instrument.Event) -> None:
        """Raising stops instrument.emit; subscribers after this one (a recorder) still get the event,
        so a trace shows the op that failed and marks its NaN."""
        subscribers = list(instrument.listeners[event.kind])
        if self.fn in subscribers:
            for fn in subscribers[subscribers.index(self.fn) + 1:]:
                fn(event)


def _format(r: dict, level: str) -> str:
    where = (f"device=cpu, op={r['op']}, phase={r['phase']}, layer={r['layer'] or '-'}, tensor={r['tensor']}, "
             f"dtype={r['dtype']}" + (f", origin={r['origin']}" if r["origin"] else ""))
    return (f"[PRECISION] [{level}] in [{where}], numel={r['numel']}, num_nan={r['num_nan']}, "
            f"num_inf={r['num_inf']}, num_zero={r['num_zero']}, max={r['max']:.6e}, min={r['min']:.6e}, "
            f"mean={r['mean']:.6e}")


_reports: list[dict] = []


def _remember(report: dict) -> None:
    if len(_reports) < MAX_REPORTS:
        _reports.append(report)


def reports(clear: bool = False) -> list[dict]:
    """The reports made so far (at most MAX_REPORTS), oldest first; clear=True empties the list."""
    out = list(_reports)
    if clear:
        _reports.clear()
    return out


# ---- switching it on and off -----------------------------------------------------------------------
_config: TensorCheckerConfig | None = None   # set by enable_tensor_checker; else the flags decide
_checker: _Checker | None = None
_unsubscribe = None


def enable_tensor_checker(checker_config: TensorCheckerConfig) -> None:
    """Check every op from now on with `checker_config` (one call counts one debug step)."""
    global _config
    if not isinstance(checker_config, TensorCheckerConfig):
        raise invalid_argument("enable_tensor_checker", f"got {type(checker_config).__name__}, expected a "
                                                        "paddle.amp.debugging.TensorCheckerConfig.")
    if checker_config.update_and_check_step_id():
        _config = checker_config
        level = min(checker_config.debug_mode.value, 3)
        set_flags({"FLAGS_check_nan_inf_level": level, "FLAGS_check_nan_inf": True})
        flags_changed()
    else:
        disable_tensor_checker()


def disable_tensor_checker() -> None:
    """Stop checking (also what FLAGS_check_nan_inf=False does)."""
    global _config
    _config = None
    set_flags({"FLAGS_check_nan_inf": False})
    flags_changed()


def flags_changed() -> None:
    """(Re)install or remove the checker after FLAGS_check_nan_inf or its level changed."""
    global _checker, _unsubscribe
    flags = get_flags(["FLAGS_check_nan_inf", "FLAGS_check_nan_inf_level"])
    if _unsubscribe is not None:
        _unsubscribe()
        _checker = _unsubscribe = None
    if flags["FLAGS_check_nan_inf"]:
        config = _config or TensorCheckerConfig(True, DebugMode(flags["FLAGS_check_nan_inf_level"]))
        _checker = _Checker(config)
        _unsubscribe = instrument.subscribe(_checker.fn, kinds=_Checker.KINDS)


def check_numerics(tensor, op_type: str, var_name: str,
                   debug_mode: DebugMode = DebugMode.CHECK_NAN_INF_AND_ABORT):
    """Check one tensor now; returns (stats [num_nan, num_inf, num_zero], values [max, min, mean]) as
    Tensors, and raises NanInfError in the abort modes when it holds NaN/Inf."""
    from ..framework.tensor import Tensor
    a = np.asarray(tensor._data if isinstance(tensor, Tensor) else tensor)
    s = tensor_stats(a)
    bad = s["num_nan"] + s["num_inf"] > 0
    if bad:
        report = {"op": op_type, "phase": "check_numerics", "layer": None, "tensor": var_name,
                  "dtype": a.dtype.name, "shape": list(a.shape), "origin": None, **s}
        message = _format(report, "ERROR")
        _remember(report)
        if debug_mode in (DebugMode.CHECK_NAN_INF_AND_ABORT, DebugMode.CHECK_ALL_AND_ABORT):
            raise NanInfError(message, report)
        logger.warning(message)
    stats = Tensor._wrap(np.array([s["num_nan"], s["num_inf"], s["num_zero"]], dtype=np.int64))
    values = Tensor._wrap(np.array([s["max"], s["min"], s["mean"]], dtype=np.float32))
    return stats, values
