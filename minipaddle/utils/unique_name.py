"""paddle.utils.unique_name: the names given to layers' parameters and a Program's variables.

    with paddle.utils.unique_name.guard():     # fc_0, learning_rate_0, ... again from 0 inside
        build_program()
"""
from __future__ import annotations

from ..framework.parameter import unique_name as generate
from ..framework.parameter import unique_name_guard as guard

__all__ = ["generate", "guard"]
