"""Dynamic-to-static: convert eager code to a static Program (to_static), run it, save and load it.

    program_translator.py   to_static, StaticFunction, ConcreteProgram, ProgramTranslator
    ast_transformer.py      source -> transformers -> converted function (+ line map)
    convert_call_func.py    which callables converted code converts (convert_call)
    transformers/           one module per AST transformer
    convert_operators.py    the runtime helpers converted code calls (convert_ifelse, ...)
    error.py                errors mapped back to the user's source line
    run_program.py          run a forward Program in dygraph (autograd records through it)
    input_spec.py           InputSpec
    io.py                   jit.save / jit.load (one format with static.save_inference_model)
    translated_layer.py     TranslatedLayer: a loaded Program as an nn.Layer
    traced_layer.py         TracedLayer: a Program recorded by tracing (no control flow)
    jit_ops.py              jit_stop_gradient (after a no_grad block) and jit_print (print of Variables)
"""
from . import jit_ops  # noqa: F401,E402 - registers the jit ops, so saved programs holding them load
