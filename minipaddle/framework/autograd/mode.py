"""Whether ops record a graph: `paddle.no_grad`, `enable_grad`, `set_grad_enabled`.

The flag is a module global read on every op call, so keep reading it as cheap as
`mode.grad_enabled`.
"""
from __future__ import annotations

import functools

grad_enabled = True


def is_grad_enabled() -> bool:
    return grad_enabled


class _GradMode:
    """Context manager and decorator that sets the grad mode and restores it afterwards."""

    _value = True

    def __enter__(self) -> None:
        global grad_enabled
        self._prev = grad_enabled
        grad_enabled = self._value

    def __exit__(self, *exc) -> None:
        global grad_enabled
        grad_enabled = self._prev

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
        global grad_enabled
        self._value = bool(mode)
        self._prev = grad_enabled
        grad_enabled = self._value  # takes effect now, as in Paddle and PyTorch

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        global grad_enabled
        grad_enabled = self._prev
