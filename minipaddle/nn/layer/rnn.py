"""Recurrent layers built from ops: SimpleRNN, LSTM, GRU, their cells, and the RNN / BiRNN wrappers.

Everything is ordinary ops (matmul, sigmoid, tanh, split, stack, ...), so autograd comes free and a
learner sees each gate in the debugger. Gate order and parameter names follow Paddle (and PyTorch):

    LSTMCell   weight_ih [4H, I]: gates i, f, g (the cell candidate), o
               c' = sigmoid(f) * c + sigmoid(i) * tanh(g);   h' = sigmoid(o) * tanh(c')
    GRUCell    weight_ih [3H, I]: gates r, z, c
               r = sigmoid(x_r + h_r);  z = sigmoid(x_z + h_z);  c = tanh(x_c + r * h_c)
               h' = z * h + (1 - z) * c                       (h_r, h_z, h_c include bias_hh)

One speed-up over stepping each cell call by call: the input projection x @ weight_ih^T + bias of
all time steps is one big matmul before the time loop; each step then only multiplies the hidden
state by weight_hh. A multi-layer network is a LayerList of RNN (or BiRNN) layers, so state dict
keys are Paddle's: `0.cell.weight_ih`, `1.cell_fw.bias_hh`, ... and also `weight_ih_l0`,
`weight_hh_l1_reverse`, ... which name the same parameters, as recent Paddle versions do.
"""
from __future__ import annotations

import math
from numbers import Integral

import numpy as np

from ...framework import arrays, gpu
from ...framework.dtype import convert_dtype
from ...framework.errors import invalid_argument
from ...framework.ops.activation import relu, sigmoid
from ...framework.ops.elementwise import tanh, where
from ...framework.ops.linalg import matmul
from ...framework.ops.manipulation import concat, split, squeeze, stack
from ...framework.tensor import Tensor
from ...framework.thread_modes import modes
from ..initializer import Constant, Uniform
from .container import LayerList
from .layers import Layer

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "BiRNN", "RNNBase", "SimpleRNN",
           "LSTM", "GRU"]


def _positive(layer: str, arg: str, value) -> int:
    if not isinstance(value, Integral) or isinstance(value, bool) or value <= 0:
        raise invalid_argument(layer, f"{arg} must be a positive int, got {value!r}.")
    return int(value)


def _map_states(fn, *structures):
    """fn applied leaf by leaf over states: a Tensor, or (nested) tuples/lists of them."""
    first = structures[0]
    if isinstance(first, (list, tuple)):
        return type(first)(_map_states(fn, *parts) for parts in zip(*structures))
    return fn(*structures)


def _flatten(structure) -> list:
    if isinstance(structure, (list, tuple)):
        return [t for part in structure for t in _flatten(part)]
    return [structure]


def _unstack(x: Tensor, axis: int) -> list[Tensor]:
    """x split along `axis` into its slices, that axis dropped (one split op, not one index op per slice)."""
    return [squeeze(part, axis) for part in split(x, x.shape[axis], axis)]


# ---- cells -----------------------------------------------------------------------------------------
class RNNCellBase(Layer):
    """Base of the cells: `forward(inputs, states) -> (outputs, new_states)` for one time step."""

    def get_initial_states(self, batch_ref: Tensor, shape=None, dtype=None, init_value: float = 0.0,
                           batch_dim_idx: int = 0):
        """States filled with `init_value`, shaped [batch, *state_shape]; batch is batch_ref's dim
        `batch_dim_idx`. The dtype defaults to batch_ref's."""
        batch_ref = _flatten(batch_ref)[0]
        batch = batch_ref.shape[batch_dim_idx]
        dtype = batch_ref._data.dtype if dtype is None else convert_dtype(dtype)
        shapes = self.state_shape if shape is None else shape

        def make(s):
            dims = [batch] + [d for d in s if d != -1]
            return Tensor._wrap(arrays.full(tuple(dims), init_value, dtype, like=batch_ref._data))  # its device

        if isinstance(shapes[0], (list, tuple)):
            return tuple(make(s) for s in shapes)
        return make(shapes)

    @property
    def state_shape(self):
        raise NotImplementedError(f"{type(self).__name__} must define state_shape to make initial states.")

    @property
    def state_dtype(self):
        raise NotImplementedError(f"{type(self).__name__} must define state_dtype.")

    def _project_inputs(self, inputs: Tensor) -> Tensor | None:
        """The input part of every step at once (our cells); None: the RNN calls the cell step by step."""
        return None


class _BuiltinCell(RNNCellBase):
    """What SimpleRNNCell, LSTMCell and GRUCell share: one step is `_step(_project_inputs(x), states)`,
    which lets an RNN project the inputs of all steps in one matmul before its time loop."""

    def forward(self, inputs: Tensor, states=None):
        if not isinstance(inputs, Tensor) or inputs.ndim != 2 or inputs.shape[-1] != self.input_size:
            shape = inputs.shape if isinstance(inputs, Tensor) else type(inputs).__name__
            raise invalid_argument(type(self).__name__, f"inputs have shape {shape}, expected [batch, "
                                                        f"input_size={self.input_size}].")
        if states is None:
            states = self.get_initial_states(inputs)
        else:
            self._check_states(states, inputs.shape[0])
        return self._step(self._project_inputs(inputs), states)

    def _check_states(self, states, batch: int) -> None:
        shapes = self.state_shape if isinstance(self.state_shape[0], (list, tuple)) else (self.state_shape,)
        given = _flatten(states)
        if len(given) != len(shapes):
            raise invalid_argument(type(self).__name__, f"states must be {len(shapes)} tensor(s), got {len(given)}.")
        for i, (t, shape) in enumerate(zip(given, shapes)):
            want = [batch, *shape]
            if not isinstance(t, Tensor) or t.shape != want:
                got = t.shape if isinstance(t, Tensor) else type(t).__name__
                raise invalid_argument(type(self).__name__, f"state {i} has shape {got}, expected {want} "
                                                            "([batch, hidden]).")


def _cell_parameters(cell: RNNCellBase, gates: int, input_size: int, hidden_size: int, hh_size: int,
                     attrs: tuple) -> None:
    """weight_ih, weight_hh, bias_ih, bias_hh, drawn from Uniform(-1/sqrt(H), 1/sqrt(H)) as in Paddle.
    An attr of False gives, as in Paddle, a constant (1 for weights, 0 for biases) that is not trained."""
    std = 1.0 / math.sqrt(hidden_size)
    specs = (("weight_ih", [gates * hidden_size, input_size], False), ("weight_hh", [gates * hidden_size, hh_size],
             False), ("bias_ih", [gates * hidden_size], True), ("bias_hh", [gates * hidden_size], True))
    for (name, shape, is_bias), attr in zip(specs, attrs):
        if attr is False:
            param = cell.create_parameter(shape, None, is_bias=is_bias,
                                          default_initializer=Constant(0.0 if is_bias else 1.0))
            param.stop_gradient = True
        else:
            param = cell.create_parameter(shape, attr, is_bias=is_bias, default_initializer=Uniform(-std, std))
        setattr(cell, name, param)
    cell.input_size = input_size
    cell.hidden_size = hidden_size


class SimpleRNNCell(_BuiltinCell):
    """Elman cell: h' = act(x @ weight_ih^T + bias_ih + h @ weight_hh^T + bias_hh), act tanh or relu."""

    def __init__(self, input_size: int, hidden_size: int, activation: str = "tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        super().__init__()
        input_size = _positive("SimpleRNNCell", "input_size", input_size)
        hidden_size = _positive("SimpleRNNCell", "hidden_size", hidden_size)
        if activation not in ("tanh", "relu"):
            raise invalid_argument("SimpleRNNCell", f"activation must be 'tanh' or 'relu', got {activation!r}.")
        _cell_parameters(self, 1, input_size, hidden_size, hidden_size,
                         (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        self.activation = activation
        self._activation_fn = tanh if activation == "tanh" else relu

    def _project_inputs(self, inputs: Tensor) -> Tensor:
        # both biases are added unchanged at every step: add them once, to the projected inputs
        return matmul(inputs, self.weight_ih, transpose_y=True) + (self.bias_ih + self.bias_hh)

    def _step(self, projected: Tensor, h: Tensor):
        h = self._activation_fn(projected + matmul(h, self.weight_hh, transpose_y=True))
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        act = "" if self.activation == "tanh" else f", activation={self.activation}"
        return f"{self.input_size}, {self.hidden_size}{act}"


class LSTMCell(_BuiltinCell):
    """Long short-term memory cell; states (h, c). With proj_size > 0, h is projected by weight_ho
    ([hidden_size, proj_size]) and weight_hh is [4 * hidden_size, proj_size]."""

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size: int = 0, name=None) -> None:
        super().__init__()
        input_size = _positive("LSTMCell", "input_size", input_size)
        hidden_size = _positive("LSTMCell", "hidden_size", hidden_size)
        if not isinstance(proj_size, Integral) or not 0 <= proj_size < hidden_size:
            raise invalid_argument("LSTMCell", f"proj_size must be an int in [0, hidden_size={hidden_size}), "
                                               f"got {proj_size!r}.")
        _cell_parameters(self, 4, input_size, hidden_size, proj_size or hidden_size,
                         (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))
        self.proj_size = int(proj_size)
        if proj_size:
            std = 1.0 / math.sqrt(hidden_size)
            self.weight_ho = self.create_parameter([hidden_size, proj_size], weight_hh_attr,
                                                   default_initializer=Uniform(-std, std))

    def _project_inputs(self, inputs: Tensor) -> Tensor:
        return matmul(inputs, self.weight_ih, transpose_y=True) + (self.bias_ih + self.bias_hh)

    def _step(self, projected: Tensor, states):
        h, c = states
        gates = projected + matmul(h, self.weight_hh, transpose_y=True)
        i, f, g, o = split(gates, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * tanh(g)
        h = sigmoid(o) * tanh(c)
        if self.proj_size:
            h = matmul(h, self.weight_ho)
        return h, (h, c)

    @property
    def state_shape(self):
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}" + (f", proj_size={self.proj_size}" if self.proj_size else "")


class GRUCell(_BuiltinCell):
    """Gated recurrent unit cell (gates r, z, c; the reset gate applies after h @ weight_hh^T + bias_hh)."""

    def __init__(self, input_size: int, hidden_size: int, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        super().__init__()
        input_size = _positive("GRUCell", "input_size", input_size)
        hidden_size = _positive("GRUCell", "hidden_size", hidden_size)
        _cell_parameters(self, 3, input_size, hidden_size, hidden_size,
                         (weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr))

    def _project_inputs(self, inputs: Tensor) -> Tensor:
        return matmul(inputs, self.weight_ih, transpose_y=True) + self.bias_ih

    def _step(self, projected: Tensor, h: Tensor):
        h_gates = matmul(h, self.weight_hh, transpose_y=True) + self.bias_hh
        x_r, x_z, x_c = split(projected, 3, axis=-1)
        h_r, h_z, h_c = split(h_gates, 3, axis=-1)
        r = sigmoid(x_r + h_r)
        z = sigmoid(x_z + h_z)
        c = tanh(x_c + r * h_c)
        h = (h - c) * z + c
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}"


# ---- running a cell over time --------------------------------------------------------------------
def _step_masks(sequence_length, steps: int, batch: int, like) -> list[Tensor]:
    """Per time step, a [batch, 1] bool mask: True where the step is inside that sequence; on the
    device of the array `like` (the inputs')."""
    if not isinstance(sequence_length, Tensor):
        sequence_length = Tensor._wrap(np.asarray(sequence_length))
    lengths = gpu.to_host(sequence_length._data)
    if lengths.shape != (batch,) or lengths.dtype.kind not in "iu":
        raise invalid_argument("RNN", f"sequence_length has shape {list(lengths.shape)} and dtype {lengths.dtype}, "
                                      f"expected an int tensor of shape [{batch}] (one length per sequence).")
    inside = np.arange(steps)[:, None] < lengths[None, :]        # [steps, batch]
    return [Tensor._wrap(arrays.placed_like(inside[t][:, None], like)) for t in range(steps)]


def _run_rnn(cell: RNNCellBase, inputs: Tensor, initial_states, sequence_length, time_major: bool,
             is_reverse: bool, **kwargs):
    """Run `cell` over the time axis of `inputs`; return (outputs stacked over time, final states).

    Past a sequence's length (sequence_length) the states stop changing, as in Paddle. `kwargs` go to
    every call of the cell."""
    if not isinstance(inputs, Tensor) or inputs.ndim != 3:
        shape = inputs.shape if isinstance(inputs, Tensor) else type(inputs).__name__
        raise invalid_argument("RNN", f"inputs have shape {shape}, expected 3-D "
                                      f"[{'time, batch' if time_major else 'batch, time'}, input_size].")
    time_axis = 0 if time_major else 1
    steps, batch = inputs.shape[time_axis], inputs.shape[1 - time_axis]
    if steps == 0:
        raise invalid_argument("RNN", f"inputs of shape {inputs.shape} have no time steps.")
    if initial_states is None:
        states = cell.get_initial_states(inputs, batch_dim_idx=1 - time_axis)
    else:
        states = initial_states
        if isinstance(cell, _BuiltinCell):
            cell._check_states(states, batch)
    masks = None if sequence_length is None else _step_masks(sequence_length, steps, batch, inputs._data)
    hooked = cell._forward_pre_hooks or cell._forward_post_hooks
    projected = None if hooked or kwargs else cell._project_inputs(inputs)  # our cells: every step's input part at once
    step_inputs = _unstack(inputs if projected is None else projected, time_axis)
    outputs = [None] * steps
    stack_ = modes.layer_stack  # the steps' ops belong to the cell's layer path
    stack_.append([cell, None])
    try:
        for t in (range(steps - 1, -1, -1) if is_reverse else range(steps)):
            if projected is None:
                out, new_states = cell(step_inputs[t], states, **kwargs)
            else:
                out, new_states = cell._step(step_inputs[t], states)
            if masks is not None:
                keep = masks[t]
                new_states = _map_states(lambda new, old, keep=keep: where(keep, new, old), new_states, states)
            states = new_states
            outputs[t] = out
    finally:
        stack_.pop()
    return stack(outputs, axis=time_axis), states


class RNN(Layer):
    """Runs a cell over a sequence: `outputs, final_states = RNN(cell)(inputs, initial_states)`."""

    def __init__(self, cell: RNNCellBase, is_reverse: bool = False, time_major: bool = False) -> None:
        super().__init__()
        if not isinstance(cell, Layer):
            raise invalid_argument("RNN", f"cell must be an RNNCellBase layer, got {type(cell).__name__}.")
        self.cell = cell
        self.is_reverse = is_reverse
        self.time_major = time_major

    def forward(self, inputs: Tensor, initial_states=None, sequence_length=None, **kwargs):
        return _run_rnn(self.cell, inputs, initial_states, sequence_length, self.time_major, self.is_reverse,
                        **kwargs)


class BiRNN(Layer):
    """A forward and a backward RNN over the same inputs; outputs concatenated on the last axis,
    final states as (states_fw, states_bw)."""

    def __init__(self, cell_fw: RNNCellBase, cell_bw: RNNCellBase, time_major: bool = False) -> None:
        super().__init__()
        if getattr(cell_fw, "input_size", None) != getattr(cell_bw, "input_size", None):
            raise invalid_argument("BiRNN", f"the forward cell's input size ({getattr(cell_fw, 'input_size', None)}) "
                                            f"differs from the backward cell's "
                                            f"({getattr(cell_bw, 'input_size', None)}).")
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        self.time_major = time_major

    def forward(self, inputs: Tensor, initial_states=None, sequence_length=None, **kwargs):
        if initial_states is None:
            states_fw = states_bw = None
        elif isinstance(initial_states, (list, tuple)) and len(initial_states) == 2:
            states_fw, states_bw = initial_states
        else:
            raise invalid_argument("BiRNN", "initial_states must be a pair (states_fw, states_bw).")
        out_fw, states_fw = _run_rnn(self.cell_fw, inputs, states_fw, sequence_length, self.time_major, False,
                                     **kwargs)
        out_bw, states_bw = _run_rnn(self.cell_bw, inputs, states_bw, sequence_length, self.time_major, True,
                                     **kwargs)
        return concat([out_fw, out_bw], axis=-1), (states_fw, states_bw)


# ---- multi-layer networks ------------------------------------------------------------------------
class RNNBase(LayerList):
    """The stack of RNN / BiRNN layers behind SimpleRNN, LSTM and GRU.

    forward(inputs, initial_states=None, sequence_length=None) -> (outputs, final_states), where each
    state tensor is [num_layers * num_directions, batch, hidden] (index layer * num_directions +
    direction), and LSTM's states are the pair (h, c). Dropout (upscale_in_train) is applied to the
    inputs of every layer after the first while training.
    """

    _cells = {"LSTM": LSTMCell, "GRU": GRUCell, "RNN_TANH": SimpleRNNCell, "RNN_RELU": SimpleRNNCell}

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, direction: str = "forward",
                 time_major: bool = False, dropout: float = 0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size: int = 0) -> None:
        super().__init__()
        name = type(self).__name__
        if direction not in ("forward", "bidirect", "bidirectional"):
            raise invalid_argument(name, f"direction must be 'forward' or 'bidirect' (or 'bidirectional'), "
                                         f"got {direction!r}.")
        num_layers = _positive(name, "num_layers", num_layers)
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            raise invalid_argument(name, f"dropout must be a probability in [0, 1], got {dropout!r}.")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.dropout, self.time_major = num_layers, float(dropout), time_major
        self.proj_size = proj_size
        self.num_directions = 1 if direction == "forward" else 2
        self.state_components = 2 if mode == "LSTM" else 1
        kwargs = {"weight_ih_attr": weight_ih_attr, "weight_hh_attr": weight_hh_attr, "bias_ih_attr": bias_ih_attr,
                  "bias_hh_attr": bias_hh_attr}
        if mode == "LSTM":
            kwargs["proj_size"] = proj_size
        elif mode.startswith("RNN"):
            kwargs["activation"] = "relu" if mode == "RNN_RELU" else "tanh"
        cell_cls = self._cells[mode]
        layer_input = input_size
        for _ in range(num_layers):
            if self.num_directions == 1:
                self.append(RNN(cell_cls(layer_input, hidden_size, **kwargs), False, time_major))
            else:
                self.append(BiRNN(cell_cls(layer_input, hidden_size, **kwargs),
                                  cell_cls(layer_input, hidden_size, **kwargs), time_major))
            layer_input = (proj_size or hidden_size) * self.num_directions
        self._name_flat_parameters()

    def _name_flat_parameters(self) -> None:
        """weight_ih_l0, bias_hh_l1_reverse, ...: the cells' parameters under PyTorch-style names too."""
        for k, layer in enumerate(self):
            cells = [layer.cell] if self.num_directions == 1 else [layer.cell_fw, layer.cell_bw]
            for cell, suffix in zip(cells, ("", "_reverse")):
                for pname in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_ho"):
                    param = cell._parameters.get(pname)
                    if param is not None:
                        setattr(self, f"{pname}_l{k}{suffix}", param)

    def _state_list(self, initial_states, batch: int) -> list:
        """initial_states as one entry per layer: a state, or a (fw, bw) pair for a BiRNN."""
        name = type(self).__name__
        components = initial_states if self.state_components == 2 else (initial_states,)
        if not isinstance(components, (list, tuple)) or len(components) != self.state_components:
            what = "a pair (h, c)" if self.state_components == 2 else "a Tensor"
            raise invalid_argument(name, f"initial_states must be {what}, got {type(initial_states).__name__}.")
        per_component = []
        for i, t in enumerate(components):
            hidden = self.hidden_size if i == 1 else (self.proj_size or self.hidden_size)
            want = [self.num_layers * self.num_directions, batch, hidden]
            if not isinstance(t, Tensor) or t.shape != want:
                got = t.shape if isinstance(t, Tensor) else type(t).__name__
                raise invalid_argument(name, f"initial state {i} has shape {got}, expected {want} "
                                             "([num_layers * num_directions, batch, hidden]).")
            per_component.append(_unstack(t, 0))
        states = per_component[0] if self.state_components == 1 else list(zip(*per_component))
        if self.num_directions == 2:
            states = list(zip(states[::2], states[1::2]))
        return states

    def forward(self, inputs: Tensor, initial_states=None, sequence_length=None):
        name = type(self).__name__
        if not isinstance(inputs, Tensor) or inputs.ndim != 3 or inputs.shape[-1] != self.input_size:
            shape = inputs.shape if isinstance(inputs, Tensor) else type(inputs).__name__
            raise invalid_argument(name, f"inputs have shape {shape}, expected "
                                         f"[{'time, batch' if self.time_major else 'batch, time'}, "
                                         f"input_size={self.input_size}].")
        batch = inputs.shape[1 if self.time_major else 0]
        states = [None] * self.num_layers if initial_states is None else self._state_list(initial_states, batch)
        final_states = []
        for i, layer in enumerate(self):
            if i > 0 and self.dropout > 0:
                from ..functional import dropout
                inputs = dropout(inputs, self.dropout, training=self.training, mode="upscale_in_train")
            inputs, final = layer(inputs, states[i], sequence_length)
            final_states.append(final)
        flat = _flatten(final_states)  # layer by layer, direction by direction, then (h, c)
        if self.state_components == 1:
            return inputs, stack(flat)
        return inputs, tuple(stack(flat[i::self.state_components]) for i in range(self.state_components))

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.num_directions == 2:
            text += ", direction=bidirect"
        if self.time_major:
            text += ", time_major=True"
        if self.dropout:
            text += f", dropout={self.dropout}"
        return text


class SimpleRNN(RNNBase):
    """Multi-layer Elman RNN: `y, h = SimpleRNN(16, 32, num_layers=2)(x)`; h is [layers * dirs, batch, 32]."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, direction: str = "forward",
                 time_major: bool = False, dropout: float = 0.0, activation: str = "tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        if activation not in ("tanh", "relu"):
            raise invalid_argument("SimpleRNN", f"activation must be 'tanh' or 'relu', got {activation!r}.")
        super().__init__("RNN_TANH" if activation == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         direction, time_major, dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
        self.activation = activation


class LSTM(RNNBase):
    """Multi-layer LSTM: `y, (h, c) = LSTM(16, 32, num_layers=2, direction="bidirect")(x)`."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, direction: str = "forward",
                 time_major: bool = False, dropout: float = 0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size: int = 0, name=None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr, proj_size)


class GRU(RNNBase):
    """Multi-layer GRU: `y, h = GRU(16, 32)(x)`."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, direction: str = "forward",
                 time_major: bool = False, dropout: float = 0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
