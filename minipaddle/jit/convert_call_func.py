"""convert_call: which callables converted code converts, and their converted twins.

`_jst.convert_call(f)(x)` asks `convert_callable(f)`: a user function or method gets its converted
twin (cached per function), a user Layer is called with its forward converted (hooks still run),
a `StaticFunction` is inlined; minipaddle / numpy / standard-library functions, builtins, lambdas
and `@not_to_static` functions are returned as they are.
"""
from __future__ import annotations

import inspect
import os
import types
import warnings
import weakref

from ..framework.errors import MinipaddleError
from .ast_transformer import convert_function

__all__ = ["convert_callable", "converted"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # minipaddle/
_CONVERTED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # function -> ConvertedFunction
_SKIP_MODULES = ("minipaddle", "numpy", "paddle", "torch", "scipy", "numba", "builtins", "math", "functools",
                 "itertools", "collections", "typing", "copy", "random")


def _is_user_function(fn) -> bool:
    if not isinstance(fn, types.FunctionType) or getattr(fn, "_jst_not_to_static", False):
        return False
    module = fn.__module__ or ""
    if module.split(".")[0] in _SKIP_MODULES or fn.__name__ == "<lambda>":
        return False
    path = fn.__code__.co_filename
    if path.startswith("<to_static:") or "site-packages" in path or fn.__code__.co_flags & inspect.CO_GENERATOR:
        return False
    return not os.path.abspath(path).startswith(_PACKAGE_DIR + os.sep)


def converted(fn: types.FunctionType):
    """`fn`'s ConvertedFunction, converted on first use."""
    conv = _CONVERTED.get(fn)
    if conv is None:
        conv = convert_function(fn)
        _CONVERTED[fn] = conv
    return conv


def _converted_or_none(fn):
    try:
        return converted(fn).function
    except MinipaddleError as e:  # source unavailable or unsupported syntax: call it as Python
        warnings.warn(f"to_static: {fn.__qualname__} is called as plain Python: {e}", stacklevel=3)
        return None


class _LayerCall:
    """Call a user Layer with its forward converted (hooks and the layer stack still run)."""

    def __init__(self, layer, forward) -> None:
        self.layer, self.forward = layer, forward

    def __call__(self, *args, **kwargs):
        layer = self.layer
        had = "forward" in layer.__dict__
        prev = layer.__dict__.get("forward")
        layer.__dict__["forward"] = types.MethodType(self.forward, layer)
        try:
            return layer(*args, **kwargs)
        finally:
            if had:
                layer.__dict__["forward"] = prev
            else:
                del layer.__dict__["forward"]


def convert_callable(func):
    """What `convert_call(func)` calls: a converted twin for user code, `func` itself otherwise."""
    from ..nn.layer.layers import Layer
    from .program_translator import StaticFunction
    if getattr(func, "_jst_not_to_static", False):
        return func
    if isinstance(func, StaticFunction):
        fn = converted(func._function).function
        return fn if func._instance is None else types.MethodType(fn, func._instance)
    if isinstance(func, types.FunctionType):
        return (_converted_or_none(func) or func) if _is_user_function(func) else func
    if isinstance(func, types.MethodType):
        inner = func.__func__
        if _is_user_function(inner):
            fn = _converted_or_none(inner)
            return func if fn is None else types.MethodType(fn, func.__self__)
        return func
    if isinstance(func, Layer):
        forward = _layer_forward(func)
        if forward is None:
            return func
        fn = _converted_or_none(forward)
        return func if fn is None else _LayerCall(func, fn)
    return func


def _layer_forward(layer):
    """The user-written forward function of `layer`'s class, or None (minipaddle's own layers)."""
    from .program_translator import StaticFunction
    attr = inspect.getattr_static(type(layer), "forward", None)
    if isinstance(attr, StaticFunction):
        return attr._function
    return attr if _is_user_function(attr) else None
