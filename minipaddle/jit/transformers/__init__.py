"""The AST transformer pipeline of `to_static`, one module per transformer, in Paddle's order.

`transform(func_node)` rewrites a parsed function in place:

    early_return        `if c: return a` + rest -> the rest moves into the else
    no_grad             names a `with paddle.no_grad():` block assigns stop gradients after it
    loop (for->while)   `for` over range / enumerate / a sequence becomes an index `while`
    return_transformer  one exit: returns become `__return_value = ...` + a flag
    break_continue      `break` / `continue` become flags the loop test and guards read
    logical             `and` / `or` / `not` -> convert_logical_* (short-circuit kept)
    loop                `while` -> convert_while_loop(cond_fn, body_fn, loop_vars)
    ifelse              `if` -> convert_ifelse(pred, true_fn, false_fn, names)
    create_variable     (called by loop / ifelse) names first bound in control flow get UndefinedVar
    shape, index, assert, print, cast, call   the small runtime hooks
"""
from __future__ import annotations

import ast

from .assert_transformer import AssertTransformer
from .break_continue import BreakContinueTransformer
from .call import CallTransformer
from .cast import CastTransformer
from .early_return import EarlyReturnTransformer
from .ifelse import IfElseTransformer
from .index import IndexTransformer
from .logical import LogicalTransformer
from .no_grad import NoGradTransformer
from .loop import ForToWhileTransformer, LoopTransformer
from .print_transformer import PrintTransformer
from .return_transformer import ReturnTransformer
from .shape import TensorShapeTransformer

__all__ = ["transform"]


def transform(func: ast.FunctionDef) -> ast.FunctionDef:
    """Run every transformer over `func` (a parsed `def`), in order; returns it."""
    func.decorator_list = []
    _strip_annotations(func)
    EarlyReturnTransformer().visit(func)
    NoGradTransformer().visit(func)
    ForToWhileTransformer().visit(func)
    ReturnTransformer().visit(func)
    BreakContinueTransformer().visit(func)
    LogicalTransformer().visit(func)
    # the small hooks run before loop/ifelse wrap code into functions, so they see user code only once
    TensorShapeTransformer().visit(func)
    IndexTransformer().visit(func)
    AssertTransformer().visit(func)
    PrintTransformer().visit(func)
    CastTransformer().visit(func)
    CallTransformer().visit(func)
    LoopTransformer().visit(func)
    IfElseTransformer().visit(func)
    return func


def _strip_annotations(func: ast.FunctionDef) -> None:
    """Type hints play no part in conversion (Paddle's TypeHintTransformer drops them too)."""
    func.returns = None
    args = func.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
