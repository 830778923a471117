"""paddle.summary: Paddle's table, and parameter counts and sizes checked by hand."""
from __future__ import annotations

import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument


class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = paddle.nn.Linear(4, 8)      # 4*8 + 8 = 40 params
        self.act = paddle.nn.ReLU()
        self.fc2 = paddle.nn.Linear(8, 3)      # 8*3 + 3 = 27 params, the 3 bias values frozen
        self.fc2.bias.stop_gradient = True

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def _key(layer) -> str:
    return f"{type(layer).__name__}-{int(layer.full_name().split('_')[-1]) + 1}"


def test_counts_and_table(capsys):
    net = Net()
    info = paddle.summary(net, (2, 4))
    assert info == {"total_params": 67, "trainable_params": 64}
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "-" * 75
    assert lines[1] == f"{'Layer (type)':^15} {'Input Shape':^20} {'Output Shape':^20} {'Param #':^15}"
    assert lines[2] == "=" * 75
    rows = [line.split() for line in lines[3:6]]
    assert rows[0] == [_key(net.fc1), "[[2,", "4]]", "[2,", "8]", "40"]
    assert rows[1] == [_key(net.act), "[[2,", "8]]", "[2,", "8]", "0"]
    assert rows[2] == [_key(net.fc2), "[[2,", "8]]", "[2,", "3]", "27"]
    assert lines[6] == "=" * 75                               # the Net itself has no row (it has sublayers)
    assert lines[7:10] == ["Total params: 67", "Trainable params: 64", "Non-trainable params: 3"]
    assert lines[11:15] == ["Input size (MB): 0.00", "Forward/backward pass size (MB): 0.00",
                            "Params size (MB): 0.00", "Estimated Total Size (MB): 0.00"]


def test_sizes_in_megabytes(capsys):
    net = paddle.nn.Sequential(paddle.nn.Linear(1024, 512))
    info = paddle.summary(net, (256, 1024))
    assert info["total_params"] == 1024 * 512 + 512
    out = capsys.readouterr().out
    assert "Params size (MB): 2.00" in out                   # 524800 * 4 bytes
    assert "Input size (MB): 1.00" in out                    # 256*1024 * 4 bytes
    assert "Forward/backward pass size (MB): 1.00" in out    # 2 * 256*512 * 4 bytes
    assert "Estimated Total Size (MB): 4.00" in out
    assert "524,800" in out                                  # Param # with thousands separators


def test_input_size_spellings_and_given_input(capsys):
    net = Net()
    expected = {"total_params": 67, "trainable_params": 64}
    assert paddle.summary(net, [(None, 4)]) == expected       # None batch becomes 1
    assert "[[1, 4]]" in capsys.readouterr().out
    assert paddle.summary(net, (-1, 4)) == expected
    assert paddle.summary(paddle.nn.Linear(4, 2), 4) == {"total_params": 10, "trainable_params": 10}
    assert paddle.summary(net, input=paddle.rand([3, 4])) == expected
    assert "[[3, 4]]" in capsys.readouterr().out


def test_multiple_inputs_and_dtypes(capsys):
    class TwoInputs(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = paddle.nn.Embedding(10, 3)
            self.fc = paddle.nn.Linear(5, 3)

        def forward(self, ids, feats):
            return self.emb(ids).sum(axis=1) + self.fc(feats)

    net = TwoInputs()
    info = paddle.summary(net, [(2, 6), (2, 5)], dtypes=["int64", "float32"])
    assert info == {"total_params": 30 + 18, "trainable_params": 48}
    out = capsys.readouterr().out
    assert "[[2, 6]]" in out and "[2, 6, 3]" in out and "[[2, 5]]" in out


def test_bad_arguments():
    with pytest.raises(InvalidArgument, match="input_size and input cannot both be None"):
        paddle.summary(Net())
    with pytest.raises(InvalidArgument, match="only the batch dim may be None"):
        paddle.summary(Net(), (None, None))
    with pytest.raises(InvalidArgument, match="dims must be positive"):
        paddle.summary(Net(), (2, 0))
    with pytest.raises(InvalidArgument, match="input is a str"):
        paddle.summary(Net(), input="x")
