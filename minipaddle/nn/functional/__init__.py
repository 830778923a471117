"""paddle.nn.functional: the functional API. Each function calls one or a few registered ops."""
from __future__ import annotations

from .activation import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from . import vision  # noqa: F401,E402
