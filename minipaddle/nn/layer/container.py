"""Containers: Sequential, LayerList, LayerDict, ParameterList (Paddle's names and behaviour)."""
from __future__ import annotations

from collections import OrderedDict

from ...framework.errors import invalid_argument
from ...framework.parameter import Parameter
from .layers import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList"]


def _view(container: Layer, items: list) -> Layer:
    """A slice of a container: holds the same layers without re-registering them, so they keep
    their place (and layer path) in the model they belong to."""
    for name, layer in items:
        container._sub_layers[name] = layer
    return container


class Sequential(Layer):
    """Runs its sublayers in order: `Sequential(Linear(4, 8), ReLU(), Linear(8, 2))`.

    Also accepts `(name, layer)` pairs, so sublayers get readable names in the state dict.
    """

    def __init__(self, *layers) -> None:
        super().__init__()
        if len(layers) == 1 and isinstance(layers[0], (list, tuple)) and layers[0] \
                and all(isinstance(x, (list, tuple)) for x in layers[0]):
            layers = tuple(layers[0])
        for i, item in enumerate(layers):
            if isinstance(item, (list, tuple)):
                if len(item) != 2 or not isinstance(item[1], Layer):
                    raise invalid_argument("Sequential", f"argument {i} should be a Layer or a (name, Layer) "
                                                         f"pair, got {item!r}.")
                self.add_sublayer(str(item[0]), item[1])
            elif isinstance(item, Layer):
                self.add_sublayer(str(i), item)
            else:
                raise invalid_argument("Sequential", f"argument {i} is a {type(item).__name__}, expected a Layer.")

    def forward(self, x):
        for layer in self._sub_layers.values():
            x = layer(x)
        return x

    def __getitem__(self, index):
        items = list(self._sub_layers.items())
        if isinstance(index, slice):
            return _view(Sequential(), items[index])
        if isinstance(index, str):
            return self._sub_layers[index]
        if not -len(items) <= index < len(items):
            raise IndexError(f"Sequential: index {index} is out of range for {len(items)} layers.")
        return items[index][1]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())


class LayerList(Layer):
    """A list of layers whose parameters the parent layer sees: `LayerList([Linear(4, 4) for _ in range(3)])`."""

    def __init__(self, sublayers=None) -> None:
        super().__init__()
        for layer in sublayers or ():
            self.append(layer)

    def _index(self, i: int) -> int:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"LayerList: index {i} is out of range for {n} layers.")
        return i + n if i < 0 else i

    def __getitem__(self, i):
        layers = list(self._sub_layers.values())
        if isinstance(i, slice):
            return _view(LayerList(), [(str(k), layer) for k, layer in enumerate(layers[i])])
        return layers[self._index(i)]

    def __setitem__(self, i: int, layer: Layer) -> None:
        setattr(self, str(self._index(i)), layer)

    def __delitem__(self, i) -> None:
        layers = list(self._sub_layers.values())
        if isinstance(i, slice):
            del layers[i]
        else:
            del layers[self._index(i)]
        self._sub_layers.clear()
        for layer in layers:
            self.append(layer)

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, layer: Layer) -> "LayerList":
        if not isinstance(layer, Layer):
            raise invalid_argument("LayerList.append", f"got {type(layer).__name__}, expected a Layer.")
        self.add_sublayer(str(len(self)), layer)
        return self

    def insert(self, index: int, layer: Layer) -> None:
        layers = list(self._sub_layers.values())
        layers.insert(index, layer)
        self._sub_layers.clear()
        for item in layers:
            self.append(item)

    def extend(self, layers) -> "LayerList":
        for layer in layers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """An ordered dict of named layers: `LayerDict({"conv": Conv2D(1, 4, 3), "act": ReLU()})`."""

    def __init__(self, sublayers=None) -> None:
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key: str) -> Layer:
        return self._sub_layers[key]

    def __setitem__(self, key: str, layer: Layer) -> None:
        self.add_sublayer(key, layer)

    def __delitem__(self, key: str) -> None:
        del self._sub_layers[key]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key: str) -> bool:
        return key in self._sub_layers

    def clear(self) -> None:
        self._sub_layers.clear()

    def pop(self, key: str) -> Layer:
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers) -> None:
        items = sublayers.items() if isinstance(sublayers, (dict, OrderedDict, LayerDict)) else sublayers
        for key, layer in items:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    """A list of Parameters registered on the layer: `ParameterList([create_parameter([2], "float32")])`."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        for p in parameters or ():
            self.append(p)

    def __getitem__(self, i: int) -> Parameter:
        return list(self._parameters.values())[i]

    def __setitem__(self, i: int, p: Parameter) -> None:
        self.add_parameter(str(i), p)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter: Parameter) -> "ParameterList":
        self.add_parameter(str(len(self)), parameter)
        return self
