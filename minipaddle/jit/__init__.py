"""paddle.jit: dynamic-to-static conversion, save and load.

    @paddle.jit.to_static
    def f(x):
        return x * 2 if x.mean() > 0 else x - 1

jit sits above nn (a converted Layer, a loaded TranslatedLayer are Layers) and builds on the
core's static IR: to_static records the same ops into a Program that the Executor runs.

    program_translator.py   to_static, StaticFunction, ConcreteProgram, ProgramTranslator
    ast_transformer.py      source -> transformers -> converted function (+ line map)
    convert_call_func.py    which callables converted code converts (convert_call)
    transformers/           one module per AST transformer
    convert_operators.py    the runtime helpers converted code calls (convert_ifelse, ...)
    error.py                errors mapped back to the user's source line
    partial_program.py      a converted signature's optimized Programs: forward + backward (PartialProgram),
                            the forward alone for calls needing no gradient (ForwardProgram)
    run_program_op.py       the run_program op: both Programs run (framework/static/run_plan.py) as one eager op
    run_program.py          a forward Program run op by op in dygraph (the fallback), or a ForwardProgram run
    input_spec.py           InputSpec
    io.py                   jit.save / jit.load (one format with static.save_inference_model)
    translated_layer.py     TranslatedLayer: a loaded Program as an nn.Layer
    traced_layer.py         TracedLayer: a Program recorded by tracing (no control flow)
    jit_ops.py              jit_stop_gradient (after a no_grad block) and jit_print (print of Variables)
"""
from __future__ import annotations

import importlib

from . import jit_ops  # noqa: F401 - registers the jit ops, so saved programs holding them load
from .program_translator import (ProgramTranslator, StaticFunction, declarative, enable_to_static, not_to_static,
                                 to_static)

__all__ = ["to_static", "not_to_static", "enable_to_static", "ProgramTranslator", "declarative", "StaticFunction",
           "save", "load", "TracedLayer", "TranslatedLayer", "InputSpec"]

# save / load / TracedLayer / TranslatedLayer / InputSpec come from their own modules, loaded on first use
_LAZY = {"save": "io", "load": "io", "TranslatedLayer": "translated_layer", "TracedLayer": "traced_layer",
         "InputSpec": "input_spec"}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'minipaddle.jit' has no attribute '{name}'")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
