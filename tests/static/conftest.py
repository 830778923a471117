"""Every static test starts and ends in eager mode with fresh default programs and scope."""
from __future__ import annotations

import pytest

import minipaddle as paddle
from minipaddle.framework.static import builder, executor
from minipaddle.framework.static.program import Program


@pytest.fixture(autouse=True)
def fresh_static_state():
    builder._main_program, builder._startup_program = Program(), Program()
    executor._global_scope = executor.Scope()
    yield
    paddle.disable_static()
