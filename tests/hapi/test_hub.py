"""paddle.hub: list / help / load read a local repository's hubconf.py as Paddle does; no network."""
from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import InvalidArgument, PreconditionNotMet, Unimplemented

HUBCONF = '''
import paddle
import paddle.nn as nn
from paddle.nn import functional as F

from models.blocks import make_mlp     # a module of the repository itself

dependencies = ["numpy", "paddle"]


def mlp(hidden=16, pretrained=False):
    """A two-layer perceptron: 4 features -> 2 classes."""
    return make_mlp(hidden)


def tiny_linear():
    """One Linear layer."""
    return nn.Linear(3, 2)


def _private():
    return None
'''

BLOCKS = '''
import paddle


def make_mlp(hidden):
    return paddle.nn.Sequential(paddle.nn.Linear(4, hidden), paddle.nn.ReLU(), paddle.nn.Linear(hidden, 2))
'''


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "blocks.py").write_text(textwrap.dedent(BLOCKS))
    (tmp_path / "hubconf.py").write_text(textwrap.dedent(HUBCONF))
    yield str(tmp_path)
    for name in [m for m in sys.modules if m == "models" or m.startswith("models.")]:
        del sys.modules[name]


def test_list_help_and_load_a_local_repository(repo):
    assert paddle.hub.list(repo, source="local") == ["make_mlp", "mlp", "tiny_linear"]   # as Paddle: public callables
    assert paddle.hub.help(repo, "mlp", source="local") == "A two-layer perceptron: 4 features -> 2 classes."
    net = paddle.hub.load(repo, "mlp", source="local", hidden=8)
    assert isinstance(net, paddle.nn.Layer)                     # a minipaddle Layer: `import paddle` meant minipaddle
    assert net[0].weight.shape == [4, 8]
    out = net(paddle.to_tensor(np.ones((3, 4), "float32")))
    assert out.shape == [3, 2]
    assert "paddle" not in sys.modules or sys.modules["paddle"] is not paddle   # the alias is gone afterwards


def test_sources_other_than_local_say_this_build_reads_local_folders_only(repo):
    with pytest.raises(Unimplemented, match="only reads local repositories"):
        paddle.hub.load("lyuwenyu/paddlehub_demo:main", "MM", source="github")
    with pytest.raises(Unimplemented, match="source='gitee'"):
        paddle.hub.list("owner/repo", source="gitee")
    with pytest.raises(Unimplemented, match="source='github'"):   # Paddle's default source is github
        paddle.hub.load(repo, "mlp")
    with pytest.raises(InvalidArgument, match='unknown source: "ftp"'):
        paddle.hub.list(repo, source="ftp")


def test_clear_errors_for_a_bad_repository_or_entry(repo, tmp_path_factory):
    empty = str(tmp_path_factory.mktemp("empty"))
    with pytest.raises(PreconditionNotMet, match="no hubconf.py in"):
        paddle.hub.load(empty, "mlp", source="local")
    with pytest.raises(PreconditionNotMet, match=r"no callable 'resnet'.*\['make_mlp', 'mlp', 'tiny_linear'\]"):
        paddle.hub.load(repo, "resnet", source="local")
    with pytest.raises(InvalidArgument, match="model must be the name"):
        paddle.hub.help(repo, 3, source="local")


def test_missing_dependencies_are_named(tmp_path):
    (tmp_path / "hubconf.py").write_text("dependencies = ['numpy', 'no_such_module_xyz']\n\ndef m():\n    return 1\n")
    with pytest.raises(PreconditionNotMet, match="missing dependencies: no_such_module_xyz"):
        paddle.hub.load(str(tmp_path), "m", source="local")
    (tmp_path / "hubconf.py").write_text("import no_such_module_xyz\n")
    with pytest.raises(PreconditionNotMet, match="importing .*hubconf.py' failed"):
        paddle.hub.list(str(tmp_path), source="local")
