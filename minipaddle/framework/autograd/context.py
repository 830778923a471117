"""BackwardContext: what an op's backward rule receives, the one contract every grad node keeps.

A backward rule is `rule(ctx, *douts) -> grads`: given the gradients of the op's outputs, it
returns the gradients of the op's inputs. Three classes hand a rule its `ctx`:

    GradNode       autograd/node.py        eager autograd: saved values are Tensors
    _StaticNode    static/backward.py      append_backward: saved values are Variables, and
                                           every op the rule calls appends a grad op
    _RuntimeNode   static/backward.py      a Program's `backward_rule` op: Tensors again, at run time

Because the rule is written with minipaddle ops and reads only what this contract names, one
rule serves all three, and its result is differentiable again (double grad).
"""
from __future__ import annotations

from typing import Any


class BackwardContext:
    """The contract of a backward rule's first argument, `ctx`.

    A rule may read:

        ctx.<name>          a saved value by its input or output name, as listed in the op's
                            `register_op(save=...)`, or an attr by its name (an attr the caller
                            left out reads its default): `ctx.x`, `ctx.out`, `ctx.axis`
        ctx.attrs           the attrs the caller passed, a dict (to hand on to a grad op)
        ctx.input_metas     per input: (shape, dtype), e.g. to reshape a gradient back
        ctx.out_metas       per output: (shape, dtype)
        ctx.needs_grad(i)   whether input i wants a gradient

    and returns one gradient (or None) per input, a tuple when the op has several inputs.
    For an input that needs no gradient (a stop_gradient tensor, an integer index) the rule may
    return None and skip the work; whatever it returns there is dropped. The engine sums a
    broadcast gradient back to its input's shape and casts it to the input's dtype, so a rule
    need not.

        def multiply_grad(ctx, dout):
            dx = dout * ctx.y if ctx.needs_grad(0) else None
            dy = dout * ctx.x if ctx.needs_grad(1) else None
            return dx, dy
    """

    __slots__ = ()

    attrs: dict[str, Any]
    input_metas: tuple
    out_metas: tuple

    def needs_grad(self, i: int) -> bool:
        """Whether input `i` wants a gradient; the rule may return None for it when it does not."""
        raise NotImplementedError
