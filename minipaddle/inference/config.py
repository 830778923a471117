"""paddle.inference.Config: which saved model a Predictor runs, and the options it runs with.

    config = paddle.inference.Config("out/mnist.json", "out/mnist.pdiparams")   # Paddle 3's two files
    config = paddle.inference.Config("out/mnist")                               # or their common prefix
    config.disable_gpu(); config.switch_ir_optim(True); config.enable_mkldnn()
    print(config.summary())

Paddle's inference engine has many switches for GPUs, TensorRT, oneDNN, graph passes and memory.
On this CPU-only build none of them changes how the Program runs: each is accepted (so deployment
code runs unchanged) and recorded, and `summary()` shows what was asked for and what is in effect.
"""
from __future__ import annotations

import enum
import os

from ..framework.errors import invalid_argument
from ..framework.static import io as static_io

__all__ = ["Config", "PrecisionType", "PlaceType", "DataType"]


class PrecisionType(enum.IntEnum):
    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


class PlaceType(enum.IntEnum):
    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 3


class DataType(enum.IntEnum):
    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3
    INT8 = 4
    FLOAT16 = 5
    BOOL = 6
    FLOAT64 = 7
    BFLOAT16 = 8


# why a request does not take effect here
_CPU_ONLY = "this build runs every Program on the CPU"
_NOT_HERE = "not part of this build; the Program runs as saved"
_OWN_KERNELS = "this build's kernels are numpy and numba"


class Config:
    """Where the model is (`model_file` + `params_file`, or their prefix) and the engine's options."""

    Precision = PrecisionType

    def __init__(self, *args) -> None:
        self._model_file = self._params_file = self._model_dir = ""
        self._requested: dict[str, object] = {}     # option -> what the user asked for
        self._cpu_threads = 1
        self._ir_optim = True
        self._memory_optim = False
        self._glog_disabled = False
        self._use_feed_fetch_ops = False
        self._specify_input_names = True
        self._profile = False
        if len(args) == 1 and isinstance(args[0], Config):
            self.__dict__.update({k: (dict(v) if isinstance(v, dict) else v) for k, v in args[0].__dict__.items()})
        elif len(args) == 1:
            self.set_model(args[0])
        elif len(args) == 2:
            self.set_model(args[0], args[1])
        elif args:
            raise invalid_argument("inference.Config", f"takes a model prefix, or a model file and a params file; "
                                                       f"got {len(args)} arguments.")

    # ---- the model ---------------------------------------------------------------------------
    def set_model(self, model_dir_or_file, params_file=None) -> None:
        """`set_model("out/mnist")` (a prefix, or a folder holding one saved model) or
        `set_model("out/mnist.json", "out/mnist.pdiparams")`."""
        for what, value in (("model", model_dir_or_file), ("params_file", params_file)):
            if value is not None and not isinstance(value, (str, os.PathLike)):
                raise invalid_argument("inference.Config", f"{what} must be a path, got {type(value).__name__}.")
        first = os.fspath(model_dir_or_file)
        if params_file is not None:
            self._model_file, self._params_file, self._model_dir = first, os.fspath(params_file), ""
        elif os.path.isdir(first):
            self._model_dir, self._model_file, self._params_file = first, "", ""
        else:
            prefix = static_io.strip_suffix(first, (static_io.MODEL_SUFFIX, ".pdmodel", ".pdiparams"))
            self._model_file = static_io.model_path(prefix)
            self._params_file = static_io.params_path(prefix)
            self._model_dir = ""

    def set_prog_file(self, path: str) -> None:
        self._model_file = os.fspath(path)

    def set_params_file(self, path: str) -> None:
        self._params_file = os.fspath(path)

    def prog_file(self) -> str:
        return self._model_file

    def params_file(self) -> str:
        return self._params_file

    def model_dir(self) -> str:
        return self._model_dir

    def model_from_memory(self) -> bool:
        return False

    def set_model_buffer(self, *args, **kwargs) -> None:
        raise invalid_argument("Config.set_model_buffer", "models held in memory are not supported; save the "
                                                          "model to files and pass their paths.")

    def _files(self) -> tuple[str, str]:
        """(model file, params file); a folder must hold exactly one saved model."""
        if self._model_dir:
            models = sorted(f for f in os.listdir(self._model_dir) if f.endswith(static_io.MODEL_SUFFIX)
                            and os.path.exists(os.path.join(self._model_dir, f[:-5] + ".pdiparams")))
            if len(models) != 1:
                raise invalid_argument("create_predictor", f"the folder {self._model_dir!r} holds {len(models)} "
                                                           f"saved models ({models}), expected one.",
                                       hint="pass the model's prefix or its two files: Config('out/mnist.json', "
                                            "'out/mnist.pdiparams').")
            prefix = os.path.join(self._model_dir, models[0][:-5])
            return prefix + static_io.MODEL_SUFFIX, prefix + ".pdiparams"
        if not self._model_file or not self._params_file:
            raise invalid_argument("create_predictor", "the Config names no model.",
                                   hint="Config('out/mnist.json', 'out/mnist.pdiparams') or Config('out/mnist').")
        return self._model_file, self._params_file

    # ---- devices and engines: accepted, recorded, not in effect on the CPU ------------------------
    def enable_use_gpu(self, memory_pool_init_size_mb: int = 100, device_id: int = 0,
                       precision_mode=PrecisionType.Float32) -> None:
        self._requested["use_gpu"] = True
        self._requested["gpu_device_id"] = device_id

    def disable_gpu(self) -> None:
        self._requested["use_gpu"] = False

    def use_gpu(self) -> bool:
        return False

    def gpu_device_id(self) -> int:
        return int(self._requested.get("gpu_device_id", 0))

    def memory_pool_init_size_mb(self) -> int:
        return 0

    def enable_xpu(self, *args, **kwargs) -> None:
        self._requested["use_xpu"] = True

    def use_xpu(self) -> bool:
        return False

    def enable_custom_device(self, device_type: str = "", device_id: int = 0, *args) -> None:
        self._requested["custom_device"] = f"{device_type}:{device_id}"

    def enable_tensorrt_engine(self, *args, **kwargs) -> None:
        self._requested["tensorrt_engine"] = True

    def tensorrt_engine_enabled(self) -> bool:
        return False

    def enable_mkldnn(self) -> None:
        self._requested["enable_mkldnn"] = True

    def disable_mkldnn(self) -> None:
        self._requested["enable_mkldnn"] = False

    enable_onednn = enable_mkldnn
    disable_onednn = disable_mkldnn

    def mkldnn_enabled(self) -> bool:
        return False

    onednn_enabled = mkldnn_enabled

    def set_mkldnn_cache_capacity(self, capacity: int = 0) -> None:
        self._requested["mkldnn_cache_capacity"] = capacity

    def enable_mkldnn_bfloat16(self) -> None:
        self._requested["mkldnn_bfloat16"] = True

    def enable_mkldnn_int8(self, *args) -> None:
        self._requested["mkldnn_int8"] = True

    def enable_openvino_engine(self, *args, **kwargs) -> None:
        self._requested["use_openvino"] = True

    def enable_onnxruntime(self) -> None:
        self._requested["use_onnxruntime"] = True

    def disable_onnxruntime(self) -> None:
        self._requested["use_onnxruntime"] = False

    def onnxruntime_enabled(self) -> bool:
        return False

    def enable_cinn(self) -> None:
        self._requested["use_cinn_compiler"] = True

    def enable_low_precision_io(self, x: bool = True) -> None:
        self._requested["low_precision_io"] = bool(x)

    # ---- options that are recorded as given (they describe how the engine should run) -------------
    def switch_ir_optim(self, x: bool = True) -> None:
        self._ir_optim = bool(x)

    def ir_optim(self) -> bool:
        return self._ir_optim

    def switch_ir_debug(self, x: bool = True) -> None:
        self._requested["ir_debug"] = bool(x)

    def enable_memory_optim(self, x: bool = True) -> None:
        self._memory_optim = bool(x)

    def set_cpu_math_library_num_threads(self, n: int) -> None:
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise invalid_argument("Config.set_cpu_math_library_num_threads", f"expected an int >= 1, got {n!r}.")
        self._cpu_threads = n

    def cpu_math_library_num_threads(self) -> int:
        return self._cpu_threads

    def disable_glog_info(self) -> None:
        self._glog_disabled = True

    def glog_info_disabled(self) -> bool:
        return self._glog_disabled

    def switch_use_feed_fetch_ops(self, x: bool = True) -> None:
        self._use_feed_fetch_ops = bool(x)

    def use_feed_fetch_ops_enabled(self) -> bool:
        return self._use_feed_fetch_ops

    def switch_specify_input_names(self, x: bool = True) -> None:
        self._specify_input_names = bool(x)

    def specify_input_name(self) -> bool:
        return self._specify_input_names

    def enable_profile(self) -> None:
        self._profile = True

    def enable_new_ir(self, x: bool = True) -> None:
        self._requested["new_ir"] = bool(x)

    def new_ir_enabled(self) -> bool:
        return True   # the JSON Program is this build's one IR

    def enable_new_executor(self, x: bool = True) -> None:
        self._requested["new_executor"] = bool(x)

    def set_optim_cache_dir(self, path: str) -> None:
        self._requested["optim_cache_dir"] = os.fspath(path)

    def delete_pass(self, name: str) -> None:
        self._requested.setdefault("deleted_passes", []).append(name)

    def enable_save_optim_model(self, x: bool = True) -> None:
        self._requested["save_optimized_model"] = bool(x)

    def set_optimization_level(self, level: int = 2) -> None:
        self._requested["optimization_level"] = level

    # ---- what is in effect -----------------------------------------------------------------------
    def summary(self) -> str:
        """A table of the options, as Paddle's: each value is what is in effect here; where a request
        does not take effect on this build, the row says what was asked and why."""
        model = self._model_dir and [("model_dir", self._model_dir)] or [("model_file", self._model_file),
                                                                         ("params_file", self._params_file)]
        engine = [("cpu_math_thread", self._cpu_threads),
                  ("enable_mkldnn", self._note("enable_mkldnn", False, _OWN_KERNELS)),
                  ("use_openvino", self._note("use_openvino", False, _NOT_HERE))]
        device = [("use_gpu", self._note("use_gpu", False, _CPU_ONLY)),
                  ("use_xpu", self._note("use_xpu", False, _CPU_ONLY)),
                  ("use_tensorrt", self._note("tensorrt_engine", False, _NOT_HERE))]
        run = [("use_cinn_compiler", self._note("use_cinn_compiler", False, _NOT_HERE)),
               ("ir_optim", f"{_text(self._ir_optim)} (the Program runs as saved)" if self._ir_optim else "false"),
               ("memory_optim", _text(self._memory_optim)), ("enable_profile", _text(self._profile)),
               ("enable_log", _text(not self._glog_disabled))]
        return _table([model, engine, device, run])

    def _note(self, key: str, in_effect, why: str) -> str:
        asked = self._requested.get(key)
        if asked is None or asked == in_effect:
            return _text(in_effect)
        return f"{_text(in_effect)} (requested {_text(asked)}: {why})"

    def __repr__(self) -> str:
        return f"Config(model_file={self._model_file!r}, params_file={self._params_file!r})"


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _table(sections: list[list[tuple[str, object]]]) -> str:
    rows = [(k, str(v)) for section in sections for k, v in section]
    wk = max(len("Option"), *(len(k) for k, _ in rows))
    wv = max(len("Value"), *(len(v) for _, v in rows))
    rule = f"+-{'-' * wk}-+-{'-' * wv}-+"
    lines = [rule, f"| {'Option'.ljust(wk)} | {'Value'.ljust(wv)} |", rule]
    for section in sections:
        lines += [f"| {k.ljust(wk)} | {str(v).ljust(wv)} |" for k, v in section]
        lines.append(rule)
    return "\n".join(lines) + "\n"
