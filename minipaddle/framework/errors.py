"""Error types a user sees, named after Paddle's (`paddle.base.core` error classes).

Each error message says which op or argument, what was got, what was expected and,
where it helps, a hint. Build them with `invalid_argument(op, message, hint=...)`.
"""
from __future__ import annotations


class MinipaddleError(Exception):
    """Base class of every error minipaddle raises on purpose."""


class InvalidArgument(MinipaddleError, ValueError):
    """An argument has the wrong shape, dtype, value or type."""


class InvalidType(MinipaddleError, TypeError):
    """Two arguments' dtypes do not combine, e.g. float32 + int64 (Paddle's InvalidType)."""


class Unimplemented(MinipaddleError, NotImplementedError):
    """The combination asked for exists in Paddle but not (yet) here, e.g. a missing kernel."""


class PreconditionNotMet(MinipaddleError, RuntimeError):
    """The call is valid but the state is not, e.g. backward through a freed graph."""


class ResourceExhausted(MinipaddleError, MemoryError):
    """An op needs more memory than the machine has (Paddle's ResourceExhausted, a MemoryError)."""


class Unavailable(MinipaddleError, RuntimeError):
    """A resource the call needs is not there, e.g. a GPU on a machine without one (Paddle's Unavailable)."""


class NotFound(MinipaddleError, KeyError):
    """A named thing (op, kernel, variable) does not exist."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def _format(kind: str, op: str, message: str, hint: str | None) -> str:
    text = f"{kind}: {op}: {message}"
    if hint:
        text += f" Hint: {hint}"
    return text


def invalid_argument(op: str, message: str, hint: str | None = None) -> InvalidArgument:
    """`raise invalid_argument("matmul", "x's last dim (3) must equal y's first dim (4).")`"""
    return InvalidArgument(_format("InvalidArgument", op, message, hint))


def invalid_type(op: str, message: str, hint: str | None = None) -> InvalidType:
    return InvalidType(_format("InvalidType", op, message, hint))


def unimplemented(op: str, message: str, hint: str | None = None) -> Unimplemented:
    return Unimplemented(_format("Unimplemented", op, message, hint))


def precondition_not_met(op: str, message: str, hint: str | None = None) -> PreconditionNotMet:
    return PreconditionNotMet(_format("PreconditionNotMet", op, message, hint))


def resource_exhausted(op: str, message: str, hint: str | None = None) -> ResourceExhausted:
    return ResourceExhausted(_format("ResourceExhausted", op, message, hint))


def unavailable(op: str, message: str, hint: str | None = None) -> Unavailable:
    return Unavailable(_format("Unavailable", op, message, hint))


def not_found(op: str, message: str, hint: str | None = None) -> NotFound:
    return NotFound(_format("NotFound", op, message, hint))
