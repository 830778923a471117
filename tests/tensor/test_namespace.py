"""paddle.tensor and its submodules name the very functions paddle.<name> names."""
from __future__ import annotations

import importlib
import inspect

import pytest

import minipaddle as paddle
import minipaddle.tensor as T

SUBMODULES = ("attribute", "creation", "linalg", "logic", "manipulation", "math", "random", "search", "stat")


@pytest.mark.parametrize("sub", SUBMODULES)
def test_every_name_is_a_real_function_of_the_top_level(sub):
    module = importlib.import_module(f"minipaddle.tensor.{sub}")
    assert module.__all__
    for name in module.__all__:
        fn = getattr(module, name)
        assert fn is getattr(paddle, name), name
        assert fn is getattr(T, name), name
        assert inspect.isfunction(fn) and fn.__module__.startswith("minipaddle.framework"), name


def test_paddle_tensor_reaches_the_paths_learners_use():
    assert paddle.tensor.mm is paddle.mm
    assert paddle.tensor.math.add is paddle.add
    assert paddle.tensor.linalg.matmul is paddle.matmul
    assert paddle.tensor.creation.to_tensor is paddle.to_tensor
    assert sorted(T.__all__) == sorted(set(T.__all__))   # no name in two submodules
