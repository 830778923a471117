"""Recurrent layers: cells and SimpleRNN/LSTM/GRU against PyTorch with copied weights (every direction,
layer count and layout), gradients (vs PyTorch and central differences), sequence_length masking,
initial states, dropout between layers, parameter names and state dict keys, and every error."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.framework.errors import InvalidArgument

from ..ops.opcheck import check_grad, torch_or_skip

RNG = np.random.default_rng(11)
TORCH_NETS = {"SimpleRNN": "RNN", "LSTM": "LSTM", "GRU": "GRU"}


def _data(*shape, dtype="float32"):
    return RNG.uniform(-1, 1, shape).astype(dtype)


def _copy_into_torch(ours, theirs):
    """Copy our parameters into the PyTorch module; the names (weight_ih_l0, ...) and layouts agree."""
    torch = torch_or_skip()
    state = ours.state_dict()
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            p.copy_(torch.tensor(state[name].numpy()))


def _torch_net(kind, input_size, hidden, num_layers, bidirect, time_major, **extra):
    torch = torch_or_skip()
    cls = getattr(torch.nn, TORCH_NETS[kind])
    return cls(input_size, hidden, num_layers=num_layers, bidirectional=bidirect, batch_first=not time_major, **extra)


# ---- cells -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["SimpleRNNCell", "SimpleRNNCell-relu", "LSTMCell", "GRUCell"])
def test_cells_match_torch(kind):
    torch = torch_or_skip()
    name, _, act = kind.partition("-")
    ours = getattr(nn, name)(4, 6, **({"activation": act} if act else {}))
    theirs = {"SimpleRNNCell": lambda: torch.nn.RNNCell(4, 6, nonlinearity=act or "tanh"),
              "LSTMCell": lambda: torch.nn.LSTMCell(4, 6), "GRUCell": lambda: torch.nn.GRUCell(4, 6)}[name]()
    _copy_into_torch(ours, theirs)
    x, h, c = _data(3, 4), _data(3, 6), _data(3, 6)
    if name == "LSTMCell":
        y, (h1, c1) = ours(paddle.to_tensor(x), (paddle.to_tensor(h), paddle.to_tensor(c)))
        th, tc = theirs(torch.tensor(x), (torch.tensor(h), torch.tensor(c)))
        np.testing.assert_allclose(c1.numpy(), tc.detach().numpy(), atol=1e-6)
        zero_y, _ = ours(paddle.to_tensor(x))
        np.testing.assert_allclose(zero_y.numpy(), theirs(torch.tensor(x))[0].detach().numpy(), atol=1e-6)
    else:
        y, h1 = ours(paddle.to_tensor(x), paddle.to_tensor(h))
        th = theirs(torch.tensor(x), torch.tensor(h))
        zero_y, _ = ours(paddle.to_tensor(x))
        np.testing.assert_allclose(zero_y.numpy(), theirs(torch.tensor(x)).detach().numpy(), atol=1e-6)
    assert y is h1 and y.numpy().dtype == np.float32
    np.testing.assert_allclose(y.numpy(), th.detach().numpy(), atol=1e-6)


def test_cell_parameters_shapes_and_init():
    cell = nn.LSTMCell(5, 8)
    shapes = {name: p.shape for name, p in cell.named_parameters()}
    assert shapes == {"weight_ih": [32, 5], "weight_hh": [32, 8], "bias_ih": [32], "bias_hh": [32]}
    bound = 1 / np.sqrt(8)
    assert all(np.abs(p.numpy()).max() <= bound for p in cell.parameters())
    assert nn.GRUCell(5, 8).weight_ih.shape == [24, 5] and nn.SimpleRNNCell(5, 8).weight_hh.shape == [8, 8]
    fixed = nn.GRUCell(5, 8, bias_ih_attr=False, weight_hh_attr=False)
    assert fixed.bias_ih.stop_gradient and not fixed.bias_hh.stop_gradient
    np.testing.assert_array_equal(fixed.bias_ih.numpy(), np.zeros(24, "float32"))
    np.testing.assert_array_equal(fixed.weight_hh.numpy(), np.ones((24, 8), "float32"))


# ---- networks vs PyTorch -----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["SimpleRNN", "LSTM", "GRU"])
@pytest.mark.parametrize("num_layers,direction,time_major", [(1, "forward", False), (2, "bidirect", False),
                                                             (2, "forward", True), (1, "bidirectional", True)])
def test_networks_match_torch_outputs_states_and_grads(kind, num_layers, direction, time_major):
    torch = torch_or_skip()
    bidirect = direction != "forward"
    ours = getattr(nn, kind)(3, 5, num_layers=num_layers, direction=direction, time_major=time_major)
    theirs = _torch_net(kind, 3, 5, num_layers, bidirect, time_major)
    _copy_into_torch(ours, theirs)
    batch, steps, d = 2, 4, 2 if bidirect else 1
    x = _data(*((steps, batch, 3) if time_major else (batch, steps, 3)))
    h0, c0 = _data(num_layers * d, batch, 5), _data(num_layers * d, batch, 5)
    xt = paddle.to_tensor(x, stop_gradient=False)
    states = (paddle.to_tensor(h0), paddle.to_tensor(c0)) if kind == "LSTM" else paddle.to_tensor(h0)
    y, final = ours(xt, states)
    tx = torch.tensor(x, requires_grad=True)
    ty, tfinal = theirs(tx, (torch.tensor(h0), torch.tensor(c0)) if kind == "LSTM" else torch.tensor(h0))
    assert y.shape == list(ty.shape)
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), atol=2e-6)
    for a, b in zip(final if kind == "LSTM" else [final], tfinal if kind == "LSTM" else [tfinal]):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), atol=2e-6)
    cot = _data(*y.shape)
    (y * paddle.to_tensor(cot)).sum().backward()
    (ty * torch.tensor(cot)).sum().backward()
    np.testing.assert_allclose(xt.grad.numpy(), tx.grad.numpy(), atol=1e-5)
    ours_params = dict(ours.named_parameters())
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(ours_params[name].grad.numpy(), p.grad.numpy(), atol=1e-5, err_msg=name)


@pytest.mark.filterwarnings("ignore:LSTM with projections")
def test_lstm_projection_matches_torch():
    torch = torch_or_skip()
    ours = nn.LSTM(3, 6, num_layers=2, proj_size=4)
    theirs = torch.nn.LSTM(3, 6, num_layers=2, proj_size=4, batch_first=True)
    state = ours.state_dict()
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            src = name.replace("weight_hr", "weight_ho")
            p.copy_(torch.tensor(state[src].numpy().T if "weight_hr" in name else state[src].numpy()))
    x = _data(2, 5, 3)
    y, (h, c) = ours(paddle.to_tensor(x))
    ty, (th, tc) = theirs(torch.tensor(x))
    assert y.shape == [2, 5, 4] and h.shape == [2, 2, 4] and c.shape == [2, 2, 6]
    for a, b in ((y, ty), (h, th), (c, tc)):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), atol=2e-6)


def test_sequence_length_freezes_states_past_each_length():
    torch = torch_or_skip()
    ours = nn.LSTM(3, 4, direction="bidirect")
    theirs = _torch_net("LSTM", 3, 4, 1, True, False)
    _copy_into_torch(ours, theirs)
    x, lengths = _data(3, 5, 3), np.array([5, 2, 4])
    y, (h, c) = ours(paddle.to_tensor(x), sequence_length=paddle.to_tensor(lengths))
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), torch.tensor(lengths), batch_first=True,
                                                     enforce_sorted=False)
    t_out, (th, tc) = theirs(packed)
    ty, _ = torch.nn.utils.rnn.pad_packed_sequence(t_out, batch_first=True)
    np.testing.assert_allclose(h.numpy(), th.detach().numpy(), atol=2e-6)
    np.testing.assert_allclose(c.numpy(), tc.detach().numpy(), atol=2e-6)
    for i, n in enumerate(lengths):  # inside each sequence the outputs agree (past it Paddle does not zero them)
        np.testing.assert_allclose(y.numpy()[i, :n], ty.detach().numpy()[i, :n], atol=2e-6)


# ---- gradients ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "SimpleRNN"])
def test_gradients_match_central_differences(kind):
    net = getattr(nn, kind)(2, 3, direction="bidirect").to(dtype="float64")
    x = _data(2, 3, 2, dtype="float64")
    check_grad(lambda inputs: net(inputs)[0], [x])
    weight = net.weight_hh_l0_reverse  # a recurrent weight: perturbed in place for the differences
    out, _ = net(paddle.to_tensor(x))
    cot = _data(*out.shape, dtype="float64")
    (out * paddle.to_tensor(cot)).sum().backward()
    w0, eps = weight.numpy().copy(), 1e-6
    numeric = np.zeros_like(w0)
    for idx in np.ndindex(*w0.shape):
        for sign in (1, -1):
            weight._data[idx] = w0[idx] + sign * eps
            numeric[idx] += sign * float(np.sum(net(paddle.to_tensor(x))[0].numpy() * cot)) / (2 * eps)
        weight._data[idx] = w0[idx]
    np.testing.assert_allclose(weight.grad.numpy(), numeric, rtol=1e-5, atol=1e-8)


def test_cell_gradients_reach_the_states():
    cell = nn.LSTMCell(2, 3).to(dtype="float64")
    inputs = [_data(2, 2, dtype="float64"), _data(2, 3, dtype="float64"), _data(2, 3, dtype="float64")]
    check_grad(lambda x, h, c: cell(x, (h, c))[1][1], inputs)
    gru = nn.GRUCell(2, 3).to(dtype="float64")
    check_grad(lambda x, h: gru(x, h)[0], inputs[:2])


def test_float32_stays_float32_and_grads_reach_every_parameter():
    net = nn.GRU(4, 5, num_layers=2)
    y, h = net(paddle.to_tensor(_data(3, 6, 4)))
    assert y.numpy().dtype == np.float32 and h.numpy().dtype == np.float32
    y.mean().backward()
    assert all(p.grad is not None and p.grad.numpy().dtype == np.float32 for p in net.parameters())


# ---- structure -----------------------------------------------------------------------------------------
def test_state_dict_keys_look_like_paddles():
    net = nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    keys = list(net.state_dict())
    assert "0.cell_fw.weight_ih" in keys and "1.cell_bw.bias_hh" in keys
    assert "weight_ih_l0" in keys and "bias_hh_l1_reverse" in keys
    assert net.weight_hh_l1_reverse is net[1].cell_bw.weight_hh
    assert len(net.parameters()) == 2 * 2 * 4  # each parameter once, though it has two names
    assert net[0].cell_fw.weight_ih.shape == [16, 3] and net[1].cell_fw.weight_ih.shape == [16, 8]
    single = nn.GRU(3, 4)
    assert [k for k in single.state_dict() if k.startswith("0.")] == \
        ["0.cell.weight_ih", "0.cell.weight_hh", "0.cell.bias_ih", "0.cell.bias_hh"]
    clone = nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    clone.set_state_dict(net.state_dict())
    x = paddle.to_tensor(_data(2, 3, 3))
    np.testing.assert_array_equal(clone(x)[0].numpy(), net(x)[0].numpy())


def test_rnn_wrappers_run_a_custom_cell_step_by_step():
    class Accumulate(nn.RNNCellBase):
        """h' = h + x: the state is the running sum of the inputs."""

        def forward(self, inputs, states, gain=2.0):
            h = states + inputs
            return h * gain, h

        @property
        def state_shape(self):
            return (3,)

    calls = []
    cell = Accumulate()
    cell.register_forward_post_hook(lambda layer, inputs, outputs: calls.append(1))
    x = _data(2, 4, 3)
    out, final = nn.RNN(cell)(paddle.to_tensor(x))
    np.testing.assert_allclose(final.numpy(), x.sum(axis=1), atol=1e-6)
    np.testing.assert_allclose(out.numpy(), 2 * np.cumsum(x, axis=1), atol=1e-6)
    assert len(calls) == 4  # the cell's hooks fire at every step
    tripled, _ = nn.RNN(Accumulate())(paddle.to_tensor(x), gain=3.0)  # keyword arguments reach the cell
    np.testing.assert_allclose(tripled.numpy(), 3 * np.cumsum(x, axis=1), atol=1e-6)
    rev, rev_final = nn.RNN(Accumulate(), is_reverse=True)(paddle.to_tensor(x))
    np.testing.assert_allclose(rev.numpy(), 2 * np.cumsum(x[:, ::-1], axis=1)[:, ::-1], atol=1e-6)
    both, (fw, bw) = nn.BiRNN(nn.GRUCell(3, 2), nn.GRUCell(3, 2))(paddle.to_tensor(x))
    assert both.shape == [2, 4, 4] and fw.shape == [2, 2] and bw.shape == [2, 2]


def test_dropout_between_layers_only_while_training():
    net = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = paddle.to_tensor(_data(2, 5, 3))
    net.eval()
    first, _ = net(x)
    np.testing.assert_array_equal(first.numpy(), net(x)[0].numpy())
    no_dropout = nn.LSTM(3, 4, num_layers=2)
    no_dropout.set_state_dict(net.state_dict())
    np.testing.assert_allclose(no_dropout(x)[0].numpy(), first.numpy(), atol=1e-7)
    net.train()
    paddle.seed(1)
    a = net(x)[0].numpy()
    paddle.seed(2)
    b = net(x)[0].numpy()
    assert not np.allclose(a, b) and not np.allclose(a, first.numpy())
    layer0_only = nn.LSTM(3, 4, num_layers=1)  # the first layer's input is never dropped
    layer0_only.set_state_dict({k: v for k, v in net.state_dict().items() if k.startswith("0.") or k.endswith("_l0")})
    net.train()
    h_first_layer = net(x)[1][0].numpy()[0]
    np.testing.assert_allclose(h_first_layer, layer0_only(x)[1][0].numpy()[0], atol=1e-6)


# ---- errors ------------------------------------------------------------------------------------------
def test_errors_name_what_was_got_and_expected():
    net = nn.GRU(3, 4, num_layers=2)
    with pytest.raises(InvalidArgument, match=r"GRU: inputs have shape \[2, 5, 6\], expected \[batch, time, "
                                              r"input_size=3\]"):
        net(paddle.to_tensor(_data(2, 5, 6)))
    with pytest.raises(InvalidArgument, match=r"initial state 0 has shape \[1, 2, 4\], expected \[2, 2, 4\]"):
        net(paddle.to_tensor(_data(2, 5, 3)), paddle.to_tensor(_data(1, 2, 4)))
    with pytest.raises(InvalidArgument, match=r"initial_states must be a pair \(h, c\)"):
        nn.LSTM(3, 4)(paddle.to_tensor(_data(2, 5, 3)), paddle.to_tensor(_data(1, 2, 4)))
    with pytest.raises(InvalidArgument, match="direction must be 'forward' or 'bidirect'"):
        nn.LSTM(3, 4, direction="backward")
    with pytest.raises(InvalidArgument, match="activation must be 'tanh' or 'relu', got 'gelu'"):
        nn.SimpleRNN(3, 4, activation="gelu")
    with pytest.raises(InvalidArgument, match="hidden_size must be a positive int, got 0"):
        nn.LSTMCell(3, 0)
    with pytest.raises(InvalidArgument, match="proj_size must be an int in"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(InvalidArgument, match="dropout must be a probability"):
        nn.GRU(3, 4, dropout=1.5)
    with pytest.raises(InvalidArgument, match=r"LSTMCell: inputs have shape \[2, 5\], expected \[batch, "
                                              r"input_size=3\]"):
        nn.LSTMCell(3, 4)(paddle.to_tensor(_data(2, 5)))
    with pytest.raises(InvalidArgument, match=r"LSTMCell: state 1 has shape \[2, 5\], expected \[2, 4\]"):
        nn.LSTMCell(3, 4)(paddle.to_tensor(_data(2, 3)), (paddle.to_tensor(_data(2, 4)), paddle.to_tensor(_data(2, 5))))
    with pytest.raises(InvalidArgument, match=r"GRUCell: state 0 has shape \[3, 4\], expected \[2, 4\]"):
        nn.RNN(nn.GRUCell(3, 4))(paddle.to_tensor(_data(2, 5, 3)), paddle.to_tensor(_data(3, 4)))
    with pytest.raises(InvalidArgument, match=r"sequence_length has shape \[3\] .* expected an int tensor of "
                                              r"shape \[2\]"):
        net(paddle.to_tensor(_data(2, 5, 3)), sequence_length=paddle.to_tensor(np.array([1, 2, 3])))
    with pytest.raises(InvalidArgument, match=r"RNN: inputs have shape \[2, 3\], expected 3-D"):
        nn.RNN(nn.GRUCell(3, 4))(paddle.to_tensor(_data(2, 3)))
    with pytest.raises(InvalidArgument, match="input size"):
        nn.BiRNN(nn.GRUCell(3, 4), nn.GRUCell(2, 4))
