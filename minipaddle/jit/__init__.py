"""paddle.jit: dynamic-to-static conversion, save and load.

    @paddle.jit.to_static
    def f(x):
        return x * 2 if x.mean() > 0 else x - 1

The implementation lives in minipaddle/framework/jit/.
"""
from __future__ import annotations

import importlib

from ..framework.jit.program_translator import (ProgramTranslator, StaticFunction, declarative, enable_to_static,
                                                not_to_static, to_static)

__all__ = ["to_static", "not_to_static", "enable_to_static", "ProgramTranslator", "declarative", "StaticFunction",
           "save", "load", "TracedLayer", "TranslatedLayer", "InputSpec"]

# save / load / TracedLayer / TranslatedLayer / InputSpec come from their own modules, loaded on first use
_LAZY = {"save": "io", "load": "io", "TranslatedLayer": "translated_layer", "TracedLayer": "traced_layer",
         "InputSpec": "input_spec"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'minipaddle.jit' has no attribute '{name}'")
    try:
        mod = importlib.import_module(f"minipaddle.framework.jit.{module}")
    except ModuleNotFoundError as e:
        raise AttributeError(f"paddle.jit.{name} is not available yet ({e}).") from None
    return getattr(mod, name)
