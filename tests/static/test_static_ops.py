"""The second op table (framework/static/static_ops.py): who registers what, and what the passes read."""
from __future__ import annotations

import minipaddle.static  # noqa: F401  (registers every static op)
from minipaddle.framework.static.static_ops import CONSTANT_OPS, SIDE_EFFECT_OPS, STATIC_OPS


def test_update_ops_are_marked_as_side_effects_where_they_are_registered():
    import minipaddle.optimizer  # noqa: F401 - paddle.optimizer registers its update ops when it loads
    for name in ("sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad", "lamb"):
        assert name in STATIC_OPS and name in SIDE_EFFECT_OPS
    assert "fill_constant" in STATIC_OPS and "fill_constant" in CONSTANT_OPS
    assert "fill_constant" not in SIDE_EFFECT_OPS and not SIDE_EFFECT_OPS & CONSTANT_OPS
    assert {"cond", "while"} <= set(STATIC_OPS)
