"""paddle.set_flags / paddle.get_flags: named global switches, as Paddle's FLAGS_* (gflags).

    paddle.set_flags({"FLAGS_check_nan_inf": True})     # check every op's outputs for NaN/Inf
    paddle.get_flags("FLAGS_check_nan_inf")             # {'FLAGS_check_nan_inf': True}

A flag is declared once with `define_flag(name, default, doc, on_change)`; `on_change(value)` runs
when set_flags changes it, so a flag can switch a feature on (the NaN/Inf checker) instead of being
polled on a hot path. A package above the core that acts on a flag registers itself with
`on_flag_change(name, fn)` (the core imports nothing above it): minipaddle/__init__.py wires the NaN/Inf
flags to minipaddle.amp.debugging, loaded when a flag first changes.

Flags defined here:
    FLAGS_check_nan_inf        bool  check op outputs, gradients and updated parameters for NaN/Inf
                                     (minipaddle.amp.debugging does the checking)
    FLAGS_check_nan_inf_level  int   what the check does, Paddle's levels (= DebugMode values):
                                     0 abort at the first NaN/Inf, 1 report NaN/Inf and go on,
                                     2 also report float32 values outside float16's range, 3 report all
    FLAGS_allocator_strategy   str   "auto_growth" (default): GPU arrays come from a caching pool;
                                     "naive_best_fit": each from numba (read when the GPU is first used)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .errors import invalid_argument

__all__ = ["define_flag", "get_flags", "on_flag_change", "set_flags"]


@dataclass
class Flag:
    name: str
    default: Any
    doc: str
    on_change: Callable[[Any], None] | None = None
    choices: tuple | None = None
    value: Any = None


_FLAGS: dict[str, Flag] = {}
_LISTENERS: dict[str, list[Callable[[Any], None]]] = {}


def on_flag_change(name: str, fn: Callable[[Any], None]) -> None:
    """Call `fn(value)` whenever set_flags changes flag `name` (after the flag's own on_change)."""
    _flag(name)
    _LISTENERS.setdefault(name, []).append(fn)


def define_flag(name: str, default: Any, doc: str, on_change: Callable[[Any], None] | None = None,
                choices: tuple | None = None) -> None:
    """Declare flag `name` (its type is the default's type; `choices` limits its values)."""
    _FLAGS[name] = Flag(name, default, doc, on_change, choices, default)


def set_flags(flags: dict) -> None:
    """Set flags from a {name: value} dict; values are converted to the flag's type (bool, int, ...)."""
    if not isinstance(flags, dict):
        raise invalid_argument("set_flags", f"flags got {type(flags).__name__}, expected a dict "
                                            "{'FLAGS_name': value}.")
    converted = {_flag(name).name: _convert(_flag(name), value) for name, value in flags.items()}
    for name, value in converted.items():  # every value checked before any is set
        flag = _FLAGS[name]
        changed = value != flag.value
        flag.value = value
        if changed:
            if flag.on_change is not None:
                flag.on_change(value)
            for listener in _LISTENERS.get(name, ()):
                listener(value)


def get_flags(flags: str | list | tuple) -> dict:
    """{name: value} for one flag name or a list of them."""
    names = [flags] if isinstance(flags, str) else flags
    if not isinstance(names, (list, tuple)):
        raise invalid_argument("get_flags", f"flags got {type(flags).__name__}, expected a flag name or a list "
                                            "of names.")
    return {name: _flag(name).value for name in names}


def _flag(name) -> Flag:
    flag = _FLAGS.get(name) if isinstance(name, str) else None
    if flag is None:
        raise invalid_argument("set_flags", f"unknown flag {name!r}; expected one of {sorted(_FLAGS)}.")
    return flag


def _convert(flag: Flag, value):
    value = _convert_type(flag, value)
    if flag.choices is not None and value not in flag.choices:
        raise invalid_argument("set_flags", f"{flag.name} got {value!r}, expected one of {list(flag.choices)}.",
                               hint=flag.doc)
    return value


def _convert_type(flag: Flag, value):
    kind = type(flag.default)
    if kind is bool and isinstance(value, (bool, int)) and value in (0, 1):
        return bool(value)  # Paddle's examples pass 1 / 0 for boolean flags
    if kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind not in (bool, int) and isinstance(value, kind):
        return value
    raise invalid_argument("set_flags", f"{flag.name} got {value!r}, expected a {kind.__name__}.",
                           hint=flag.doc)


define_flag("FLAGS_allocator_strategy", "auto_growth", "how GPU memory is allocated, read when the GPU is first "
            "used: 'auto_growth' caches freed blocks for reuse (framework/device_memory.py), 'naive_best_fit' "
            "asks numba for every array", choices=("auto_growth", "naive_best_fit"))
define_flag("FLAGS_check_nan_inf", False, "check op outputs, gradients and updates for NaN/Inf (True/False)")
define_flag("FLAGS_check_nan_inf_level", 0, "0 abort at the first NaN/Inf, 1 report and go on, 2 also report "
                                            "float16 overflow, 3 report every tensor",
            choices=(0, 1, 2, 3))
