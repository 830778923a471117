"""paddle.nn: layers (class API), `nn.functional` (functional API), initializers, gradient clipping.

The class and functional APIs share the same ops: `nn.Linear` calls `nn.functional.linear`.
"""
from __future__ import annotations

from . import functional, initializer  # noqa: F401
from .clip import *  # noqa: F401,F403
from .layer.activation import *  # noqa: F401,F403
from .layer.common import *  # noqa: F401,F403
from .layer.container import *  # noqa: F401,F403
from .layer.conv import *  # noqa: F401,F403
from .layer.layers import Layer  # noqa: F401
from .layer.loss import *  # noqa: F401,F403
from .layer import loss  # noqa: F401,E402  (paddle.nn.loss.CrossEntropyLoss, as in Paddle)
from .layer.norm import *  # noqa: F401,F403
from .layer.pooling import *  # noqa: F401,F403
from .layer.rnn import *  # noqa: F401,F403
from .layer.transformer import *  # noqa: F401,F403
from .layer.vision import *  # noqa: F401,F403
from ..framework.parameter import Parameter, ParamAttr  # noqa: F401
from . import utils  # noqa: F401,E402  (paddle.nn.utils: weight_norm, clip_grad_norm_, ...)
