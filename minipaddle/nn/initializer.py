"""paddle.nn.initializer: Constant, Normal, XavierUniform, KaimingNormal, ... (callables that fill a
Parameter in place).

    init = paddle.nn.initializer.Normal(mean=0.0, std=0.02)
    w = paddle.create_parameter([4, 3], "float32", attr=paddle.ParamAttr(initializer=init))

The implementation lives in the core, minipaddle/framework/initializer.py, which creates parameters.
"""
from __future__ import annotations

from ..framework.initializer import (Assign, Constant, Dirac, Initializer, KaimingNormal, KaimingUniform, Normal,
                                     Orthogonal, TruncatedNormal, Uniform, XavierNormal, XavierUniform,
                                     calculate_gain)

__all__ = ["Initializer", "Constant", "Normal", "Uniform", "TruncatedNormal", "XavierNormal", "XavierUniform",
           "KaimingNormal", "KaimingUniform", "Assign", "Orthogonal", "Dirac", "calculate_gain"]
