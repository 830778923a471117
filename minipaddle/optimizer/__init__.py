"""paddle.optimizer: optimizers that update parameters from their gradients, and `lr` schedulers.

    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    loss.backward()
    opt.step()
    opt.clear_grad()
"""
from __future__ import annotations

from . import lr  # noqa: F401
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .lamb import Lamb
from .lbfgs import LBFGS  # noqa: F401 - paddle.optimizer.LBFGS
from .momentum import Momentum
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .sgd import SGD
from . import static_minimize  # noqa: F401 - registers the static update and clip ops with the Executor

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "RMSProp", "Adagrad", "Adadelta", "Adamax", "Lamb",
           "lr"]
