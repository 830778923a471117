"""Whether ops record a graph: `paddle.no_grad`, `enable_grad`, `set_grad_enabled`.

The flag is one per thread (framework/thread_modes.py: `grad_enabled()` / `set_grad()`), as in
PyTorch, so a `no_grad` inference thread does not stop another thread's training from recording.
A new thread starts with grad enabled, whatever the thread that started it had.
"""
from __future__ import annotations

import functools
import sys
import types

from ..thread_modes import grad_enabled, set_grad


def is_grad_enabled() -> bool:
    return grad_enabled()


class _GradMode:
    """Context manager and decorator that sets the grad mode and restores it afterwards."""

    _value = True

    def __enter__(self) -> None:
        self._prev = grad_enabled()
        set_grad(self._value)

    def __exit__(self, *exc) -> None:
        set_grad(self._prev)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):  # noqa: N801 - Paddle's name
    """`with paddle.no_grad():` or `@paddle.no_grad()`: ops record no graph."""
    _value = False


class enable_grad(_GradMode):  # noqa: N801 - Paddle's name
    """Turn recording back on inside a `no_grad` region."""
    _value = True


class set_grad_enabled(_GradMode):  # noqa: N801 - Paddle's name
    """`paddle.set_grad_enabled(False)`: a context manager; called plainly it sets the mode."""

    def __init__(self, mode: bool) -> None:
        self._value = bool(mode)
        self._prev = grad_enabled()
        set_grad(self._value)  # takes effect now, as in Paddle and PyTorch

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        set_grad(self._prev)


class _ModeModule(types.ModuleType):
    """Lets `mode.grad_enabled` (read or assigned, as older code does) mean this thread's flag."""

    @property
    def grad_enabled(self) -> bool:
        return grad_enabled()

    @grad_enabled.setter
    def grad_enabled(self, value: bool) -> None:
        set_grad(bool(value))


sys.modules[__name__].__class__ = _ModeModule
