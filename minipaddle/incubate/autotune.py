"""paddle.incubate.autotune.set_config: turn on kernel and DataLoader tuning (framework/autotune.py).

    paddle.incubate.autotune.set_config({
        "kernel": {"enable": True, "tuning_range": [1, 10]},     # steps whose new shapes are timed
        "dataloader": {"enable": True, "tuning_steps": 500},     # batches timed per num_workers tried
    })
    paddle.incubate.autotune.set_config("autotune.json")        # the same, from a JSON file
    paddle.incubate.autotune.set_config()                       # everything on, with the defaults

`status()` says where tuning stands (step id, cache size, hit rate); the decisions themselves are
"autotune" events on the instrument bus, and `paddle.debug.record` keeps them in the trace.
"""
from __future__ import annotations

import json
import warnings

from ..framework import autotune as _tuner
from ..framework.autotune import cache_entries, status  # noqa: F401
from ..framework.errors import invalid_argument

__all__ = ["set_config", "status", "cache_entries"]

_SECTIONS = ("kernel", "layout", "dataloader")


def set_config(config: dict | str | None = None) -> None:
    """Configure kernel, layout and dataloader tuning; a str is the path of a JSON file.

    kernel:     enable (bool), tuning_range ([start, end) step ids; default [1, 10]),
                cache_dir (minipaddle's addition: where decisions persist; None keeps them in memory)
    layout:     accepted for Paddle compatibility (a warning when enabled): tensors stay NCHW; the
                channels-last conv2d is one of the kernel tuner's candidates instead
    dataloader: enable (bool), tuning_steps (batches timed per candidate num_workers; default 500)
    """
    if config is None:
        config = {name: {"enable": True} for name in _SECTIONS}
    elif isinstance(config, str):
        try:
            with open(config) as f:
                config = json.load(f)
        except (OSError, ValueError) as exc:
            raise invalid_argument("autotune.set_config",
                                   f"could not read the JSON config {config!r}: {exc}.") from None
    if not isinstance(config, dict):
        raise invalid_argument("autotune.set_config", f"config got {type(config).__name__}, expected a dict, "
                                                      "the path of a JSON file, or None.")
    unknown = sorted(set(config) - set(_SECTIONS))
    if unknown:
        raise invalid_argument("autotune.set_config", f"unknown section(s) {unknown}; expected some of "
                                                      f"{list(_SECTIONS)}.")
    if "kernel" in config:
        _set_kernel(_section(config, "kernel", ("enable", "tuning_range", "cache_dir")))
    if "layout" in config:
        if _section(config, "layout", ("enable",)).get("enable"):
            warnings.warn("autotune: layout tuning is not implemented in minipaddle; tensors stay NCHW. The "
                          "channels-last conv2d is a candidate the kernel tuner times per shape instead "
                          "(benchmarks/conv_layout.py measures what a whole-network NHWC layout could gain).",
                          stacklevel=2)
    if "dataloader" in config:
        section = _section(config, "dataloader", ("enable", "tuning_steps"))
        steps = section.get("tuning_steps", 500)
        if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
            raise invalid_argument("autotune.set_config", f"dataloader.tuning_steps got {steps!r}, expected an "
                                                          "int >= 1.")
        _tuner.configure_dataloader(_flag(section, "dataloader"), steps)


def _section(config: dict, name: str, keys: tuple) -> dict:
    section = config[name]
    if not isinstance(section, dict):
        raise invalid_argument("autotune.set_config", f"{name} got {section!r}, expected a dict such as "
                                                      f"{{'enable': True}}.")
    unknown = sorted(set(section) - set(keys))
    if unknown:
        raise invalid_argument("autotune.set_config", f"{name}: unknown key(s) {unknown}; expected some of "
                                                      f"{list(keys)}.")
    return section


def _flag(section: dict, name: str) -> bool:
    enable = section.get("enable", False)
    if not isinstance(enable, bool):
        raise invalid_argument("autotune.set_config", f"{name}.enable got {enable!r}, expected True or False.")
    return enable


def _set_kernel(section: dict) -> None:
    tuning_range = section.get("tuning_range", [1, 10])
    if (not isinstance(tuning_range, (list, tuple)) or len(tuning_range) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in tuning_range)
            or tuning_range[0] > tuning_range[1]):
        raise invalid_argument("autotune.set_config", f"kernel.tuning_range got {tuning_range!r}, expected "
                                                      "[start, end] with 0 <= start <= end.",
                               hint="tuning happens in the steps start, start+1, ..., end-1.")
    cache_dir = section.get("cache_dir", "default")
    _tuner.configure_kernel(_flag(section, "kernel"), tuple(tuning_range), cache_dir=cache_dir)
