"""nn.Layer: the base class of every model piece (Paddle's `paddle.nn.Layer`).

A Layer owns Parameters, buffers (state that is not trained, e.g. BatchNorm's running mean) and
sublayers, all registered by plain attribute assignment (`self.fc = Linear(4, 2)`). Calling a
layer runs forward pre-hooks, `forward`, then post-hooks, and pushes the layer's path
(`MLP.encoder.fc1`) on this thread's `modes.layer_stack` (framework/thread_modes.py) so every
op knows which layer it ran under.
"""
from __future__ import annotations

import re
import warnings
import weakref
from collections import OrderedDict
from typing import Callable, Iterator

import numpy as np

from ...framework import gpu
from ...framework.dtype import convert_dtype, get_default_dtype, to_paddle_dtype
from ...framework.errors import invalid_argument, invalid_type, precondition_not_met
from ...framework.ops.elementwise import cast
from ...framework.parameter import Parameter, ParamAttr, create_parameter, unique_name
from ...framework.place import Place, convert_place, require
from ...framework.registry import DEVICE_ARRAY_TYPES
from ...framework.tensor import Tensor
from ...framework.thread_modes import modes

__all__ = ["Layer"]


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


class HookRemoveHelper:
    """Returned by register_forward_*_hook; `remove()` unregisters the hook."""

    def __init__(self, hooks: OrderedDict, key: int) -> None:
        self._hooks, self._key = hooks, key

    def remove(self) -> None:
        self._hooks.pop(self._key, None)


_hook_ids = iter(range(1 << 62))


def _transform(t: Tensor, place: "Place | None", dtype: "np.dtype | None") -> None:
    """Cast `t`'s float storage to `dtype` where it lives, then move it to `place`; `t` keeps its identity."""
    data = t._data
    on_gpu = type(data) in DEVICE_ARRAY_TYPES
    if dtype is not None and data.dtype != dtype and to_paddle_dtype(data.dtype).is_floating_point:
        if on_gpu:
            data = cast(Tensor._wrap(data), dtype)._data
        else:
            data = data.astype(dtype)
        t._grad = None
    if place is not None and place.is_gpu_place() != on_gpu:
        data = gpu.to_device(data) if place.is_gpu_place() else gpu.to_host(data)
    if data is not t._data:
        t._data = data
        t._bump_version()


def _assign(target: Tensor, array) -> None:
    """Copy `array` (host or device) into `target`'s storage in place, cast to its dtype (set_state_dict)."""
    values = (gpu.to_host(array) if type(array) in DEVICE_ARRAY_TYPES else array).astype(target._data.dtype, copy=False)
    if type(target._data) in DEVICE_ARRAY_TYPES:
        target._data.copy_to_device(gpu.to_device(values))
    else:
        target._data[...] = values
    target._bump_version()


class Layer:
    """Base class for layers. Subclasses call `super().__init__()` and define `forward`.

    >>> class MLP(paddle.nn.Layer):                          # doctest: +SKIP
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc1 = paddle.nn.Linear(4, 8)
    ...     def forward(self, x):
    ...         return paddle.nn.functional.relu(self.fc1(x))
    """

    training = True
    _name_in_parent = None  # the attribute name this layer was last registered under
    _parent = None          # weakref to the layer it was last registered in

    def __init__(self, name_scope: str | None = None, dtype="float32") -> None:
        d = self.__dict__
        d["_parameters"] = OrderedDict()
        d["_sub_layers"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistable_buffer_names"] = set()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_post_hooks"] = OrderedDict()
        d["_full_name"] = unique_name(name_scope or _snake(type(self).__name__))
        d["_dtype"] = convert_dtype(dtype)
        d["training"] = True

    def _check_init(self, what: str) -> None:
        if "_parameters" not in self.__dict__:
            raise precondition_not_met(type(self).__name__, f"cannot {what} before Layer.__init__ ran.",
                                       hint="call super().__init__() first in your __init__.")

    # ---- calling ---------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.forward is not defined; a Layer subclass must "
                                  "implement forward().")

    def __call__(self, *inputs, **kwargs):
        if "_parameters" not in self.__dict__:
            self._check_init("call the layer")
        if self._forward_pre_hooks:
            for hook in list(self._forward_pre_hooks.values()):
                result = hook(self, inputs)
                if result is not None:
                    inputs = result if isinstance(result, tuple) else (result,)
        stack = modes.layer_stack  # this thread's running layers (framework/thread_modes.py)
        stack.append([self, None])  # the path string is made only if someone asks (current_layer)
        try:
            outputs = self.forward(*inputs, **kwargs)
        finally:
            stack.pop()
        if self._forward_post_hooks:
            for hook in list(self._forward_post_hooks.values()):
                result = hook(self, inputs, outputs)
                if result is not None:
                    outputs = result
        return outputs

    def _path_under(self, caller: "Layer | None", caller_path: str | None) -> str:
        """This layer's path as seen from the layer now calling it: walk up the registration
        parents until the caller, so a layer reached through a LayerList is `Model.layers.0`."""
        if caller is None:
            return type(self).__name__
        names, layer = [], self
        while layer is not caller:
            parent = layer._parent() if layer._parent is not None else None
            if parent is None:  # not registered under the caller: name it after itself
                names = [self._name_in_parent or self._full_name]
                break
            names.append(layer._name_in_parent)
            layer = parent
        return caller_path + "." + ".".join(reversed(names))

    def register_forward_pre_hook(self, hook: Callable) -> HookRemoveHelper:
        """`hook(layer, inputs)` runs before forward; a non-None return replaces the inputs."""
        return self._add_hook(self._forward_pre_hooks, hook, "register_forward_pre_hook")

    def register_forward_post_hook(self, hook: Callable) -> HookRemoveHelper:
        """`hook(layer, inputs, outputs)` runs after forward; a non-None return replaces the outputs."""
        return self._add_hook(self._forward_post_hooks, hook, "register_forward_post_hook")

    def _add_hook(self, hooks: OrderedDict, hook: Callable, api: str) -> HookRemoveHelper:
        self._check_init("register a hook")
        if not callable(hook):
            raise invalid_argument(api, f"got {type(hook).__name__}, expected a callable.")
        key = next(_hook_ids)
        hooks[key] = hook
        return HookRemoveHelper(hooks, key)

    # ---- registration by attribute ---------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        if isinstance(value, Parameter):
            self._check_init(f"assign parameter '{name}'")
            self._forget(name)
            d["_parameters"][name] = value
        elif isinstance(value, Layer):
            self._check_init(f"assign sublayer '{name}'")
            self._forget(name)
            value.__dict__["_name_in_parent"] = name
            value.__dict__["_parent"] = weakref.ref(self)
            d["_sub_layers"][name] = value
        elif "_parameters" in d and name in d["_parameters"]:
            if value is not None:
                raise invalid_argument(type(self).__name__, f"'{name}' is a parameter; assign a Parameter or "
                                                            f"None, got {type(value).__name__}.")
            d["_parameters"][name] = None
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise invalid_argument(type(self).__name__, f"'{name}' is a buffer; assign a Tensor or None, "
                                                            f"got {type(value).__name__}.")
            d["_buffers"][name] = value
        elif "_sub_layers" in d and name in d["_sub_layers"]:
            if value is not None:
                raise invalid_argument(type(self).__name__, f"'{name}' is a sublayer; assign a Layer or None, "
                                                            f"got {type(value).__name__}.")
            d["_sub_layers"][name] = None
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        d = self.__dict__
        for store in ("_parameters", "_sub_layers", "_buffers"):
            d[store].pop(name, None)
        d.pop(name, None)

    def __getattr__(self, name: str):
        d = self.__dict__
        for store in ("_parameters", "_sub_layers", "_buffers"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        d = self.__dict__
        for store in ("_parameters", "_sub_layers", "_buffers"):
            if store in d and name in d[store]:
                del d[store][name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers) | set(self._buffers))

    def add_sublayer(self, name: str, sublayer: "Layer") -> "Layer":
        if not isinstance(sublayer, Layer):
            raise invalid_argument("add_sublayer", f"got {type(sublayer).__name__}, expected a Layer.")
        setattr(self, str(name), sublayer)
        return sublayer

    def add_parameter(self, name: str, parameter: Parameter | None) -> Parameter | None:
        if parameter is not None and not isinstance(parameter, Parameter):
            raise invalid_argument("add_parameter", f"got {type(parameter).__name__}, expected a Parameter "
                                                    "(make one with create_parameter).")
        self._check_init("add a parameter")
        self._forget(name)
        self._parameters[name] = parameter
        return parameter

    def register_buffer(self, name: str, tensor: Tensor | None, persistable: bool = True) -> None:
        """Keep `tensor` as state that is saved (if persistable) but never trained."""
        self._check_init("register a buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise invalid_argument("register_buffer", f"got {type(tensor).__name__}, expected a Tensor or None.")
        if not isinstance(name, str) or not name or "." in name:
            raise invalid_argument("register_buffer", f"name must be a non-empty string without '.', got {name!r}.")
        self._forget(name)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names.discard(name)
        else:
            self._non_persistable_buffer_names.add(name)

    def create_parameter(self, shape, attr=None, dtype=None, is_bias: bool = False,
                         default_initializer=None) -> Parameter | None:
        """A new Parameter named after this layer (`linear_0.w_0`); None when attr is False. Without a
        dtype it takes paddle.get_default_dtype(), as Paddle's does (not the Layer's own dtype)."""
        attr = ParamAttr._to_attr(attr)
        if attr is None:
            return None
        kind = "b" if is_bias else "w"
        name = attr.name or unique_name(f"{self._full_name}.{kind}")
        return create_parameter(shape, dtype if dtype is not None else get_default_dtype(), name=name, attr=attr,
                                is_bias=is_bias, default_initializer=default_initializer)

    # ---- walking the tree ------------------------------------------------------------
    def named_sublayers(self, prefix: str = "", include_self: bool = False,
                        layers_set: set | None = None) -> Iterator[tuple[str, "Layer"]]:
        if layers_set is None:
            layers_set = set()
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for name, layer in self._sub_layers.items():
            if layer is None or id(layer) in layers_set:
                continue
            path = f"{prefix}.{name}" if prefix else name
            layers_set.add(id(layer))
            yield path, layer
            yield from layer.named_sublayers(path, False, layers_set)

    def sublayers(self, include_self: bool = False) -> list["Layer"]:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self) -> Iterator[tuple[str, "Layer"]]:
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self) -> Iterator["Layer"]:
        for _, layer in self.named_children():
            yield layer

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True) -> Iterator[tuple[str, Parameter]]:
        seen = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for path, layer in layers:
            for name, p in layer._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{path}.{name}" if path else name), p

    def parameters(self, include_sublayers: bool = True) -> list[Parameter]:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix: str = "", include_sublayers: bool = True) -> Iterator[tuple[str, Tensor]]:
        seen = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for path, layer in layers:
            for name, b in layer._buffers.items():
                if b is not None and id(b) not in seen:
                    seen.add(id(b))
                    yield (f"{path}.{name}" if path else name), b

    def buffers(self, include_sublayers: bool = True) -> list[Tensor]:
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn: Callable[["Layer"], None]) -> "Layer":
        """Call `fn(layer)` on every sublayer, then on self (e.g. to re-initialize weights)."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    def full_name(self) -> str:
        return self._full_name

    # ---- modes, grads, dtype ---------------------------------------------------------
    def train(self) -> "Layer":
        for layer in self.sublayers(include_self=True):
            layer.__dict__["training"] = True
        return self

    def eval(self) -> "Layer":
        for layer in self.sublayers(include_self=True):
            layer.__dict__["training"] = False
        return self

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        for p in self.parameters():
            if not p.stop_gradient:
                p.clear_grad(set_to_zero)

    def to(self, device=None, dtype=None, blocking=None, non_blocking=None) -> "Layer":
        """Move every parameter and buffer (and a parameter's grad) to `device` ('cpu', 'gpu', 'gpu:0' or a
        Place) and/or cast the float ones to `dtype`, in place: each Parameter stays the same object, so an
        optimizer that holds it keeps working (build the optimizer's state after moving, as Paddle advises).

        >>> model.to("gpu")            # doctest: +SKIP
        """
        if device is not None and not isinstance(device, (str, Place)):
            raise invalid_argument("Layer.to", f"device must be a str ('cpu', 'gpu:0') or a Place, got "
                                               f"{type(device).__name__}.")
        for name, flag in (("blocking", blocking), ("non_blocking", non_blocking)):
            if flag is not None and not isinstance(flag, bool):
                raise invalid_argument("Layer.to", f"{name} must be True, False or None, got {flag!r}.")
        place = None if device is None else require(convert_place(device), "Layer.to")
        np_dtype = None if dtype is None else convert_dtype(dtype)
        if np_dtype is not None and not to_paddle_dtype(np_dtype).is_floating_point:  # float16/bfloat16/32/64
            raise invalid_argument("Layer.to", f"dtype must be a float type, got {np_dtype}.")
        for t in list(self.parameters()) + list(self.buffers()):
            _transform(t, place, np_dtype)
            if t._grad is not None:
                _transform(t._grad, place, np_dtype)
        if np_dtype is not None:
            for layer in self.sublayers(include_self=True):
                layer.__dict__["_dtype"] = np_dtype
        return self

    def cuda(self, device=None) -> "Layer":
        """Move every parameter and buffer to the GPU (`device`: None for the current one, an int or a CUDAPlace)."""
        if device is None:
            device = "gpu"
        elif isinstance(device, int) and not isinstance(device, bool):
            device = f"gpu:{device}"
        elif not (isinstance(device, Place) and device.is_gpu_place()):
            raise invalid_type("Layer.cuda", f"device must be an int, a CUDAPlace or None, got "
                                             f"{type(device).__name__}.")
        return self.to(device=device)

    def cpu(self) -> "Layer":
        """Move every parameter and buffer to the CPU."""
        return self.to(device="cpu")

    def float(self) -> "Layer":
        return self.to(dtype="float32")

    # ---- state -----------------------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers: bool = True, structured_name_prefix: str = "",
                   use_hook: bool = True) -> OrderedDict:
        """Parameters and persistable buffers by structured name (`fc1.weight`, `bn._mean`)."""
        out = OrderedDict() if destination is None else destination
        layers = (self.named_sublayers(include_self=True) if include_sublayers else [("", self)])
        for path, layer in layers:
            for name, p in layer._parameters.items():
                if p is not None:
                    out[structured_name_prefix + (f"{path}.{name}" if path else name)] = p
            for name, b in layer._buffers.items():
                if b is not None and name not in layer._non_persistable_buffer_names:
                    out[structured_name_prefix + (f"{path}.{name}" if path else name)] = b
        return out

    def set_state_dict(self, state_dict: dict, use_structured_name: bool = True) -> tuple[list, list]:
        """Load values by name. Every shape/dtype mismatch is reported at once and nothing is loaded;
        missing and unexpected keys are warned about and returned as (missing_keys, unexpected_keys)."""
        if not isinstance(state_dict, dict):
            raise invalid_argument("set_state_dict", f"got {type(state_dict).__name__}, expected a dict.")
        own = self.state_dict()
        if not use_structured_name:
            own = OrderedDict((t.name, t) for t in own.values())
        problems, updates = [], []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            array = value._data if isinstance(value, Tensor) else np.asarray(value)
            if tuple(array.shape) != target._data.shape:
                problems.append(f"'{key}': got shape {list(array.shape)}, expected {list(target._data.shape)}")
            elif array.dtype.kind not in "fiub" or (array.dtype.kind != "f" and target._data.dtype.kind == "f"
                                                    and array.dtype.kind != "i"):
                problems.append(f"'{key}': got dtype {array.dtype}, expected {target._data.dtype}")
            else:
                updates.append((target, array))
        if problems:
            raise invalid_argument("set_state_dict", f"{len(problems)} entr{'y' if len(problems) == 1 else 'ies'} "
                                   "do not fit this layer, nothing was loaded: " + "; ".join(problems) + ".")
        for target, array in updates:
            _assign(target, array)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if missing:
            warnings.warn(f"set_state_dict: {len(missing)} key(s) not in the state dict, left unchanged: "
                          f"{missing}", stacklevel=2)
        if unexpected:
            warnings.warn(f"set_state_dict: {len(unexpected)} key(s) in the state dict match nothing in "
                          f"{type(self).__name__}: {unexpected}", stacklevel=2)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    # ---- display ---------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        for name, layer in self._sub_layers.items():
            body = repr(layer).replace("\n", "\n  ")
            lines.append(f"  ({name}): {body}")
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n" + "\n".join(lines) + "\n)"
