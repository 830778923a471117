"""The core: Tensor, dtypes, places, the op registry and dispatch, autograd, kernels."""
from . import errors  # noqa: F401
from .tensor import Tensor  # noqa: F401
from . import ops  # noqa: F401  (registers every op)
from .ops import tensor_methods  # noqa: F401  (operators and methods on Tensor)
from .parameter import ParamAttr  # noqa: F401,E402  (paddle.framework.ParamAttr, as in Paddle)
