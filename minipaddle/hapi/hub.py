"""paddle.hub: load a model that a repository's `hubconf.py` offers -- from a local folder.

A repository shares models by a `hubconf.py` at its top: every public function is an entry point
that returns a Layer, and an optional `dependencies = ["numpy", ...]` lists the modules it needs.

    repo/hubconf.py:
        import paddle
        dependencies = ["numpy"]
        def mlp(hidden=16):
            '''A two-layer perceptron.'''
            return paddle.nn.Sequential(paddle.nn.Linear(4, hidden), paddle.nn.ReLU(), paddle.nn.Linear(hidden, 2))

    paddle.hub.list("repo", source="local")               # ['mlp']
    paddle.hub.help("repo", "mlp", source="local")        # 'A two-layer perceptron.'
    net = paddle.hub.load("repo", "mlp", source="local", hidden=32)

Paddle downloads `source='github'` / `'gitee'` repositories first; this build has no network code and
reads local folders only. A hubconf written for Paddle says `import paddle`: while it is imported here,
`paddle` (and `paddle.nn`, ...) are minipaddle's own modules, so the Layers it builds are minipaddle's.
A hubconf is Python code and runs when loaded: load only repositories you trust.
"""
from __future__ import annotations

import builtins
import contextlib
import importlib
import importlib.abc
import importlib.util
import os
import sys
from typing import Any

from ..framework.errors import invalid_argument, precondition_not_met, unimplemented

__all__ = ["list", "help", "load"]

MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
_SOURCES = ("github", "gitee", "local")


def _repo(api: str, repo_dir, source: str) -> str:
    if source not in _SOURCES:
        raise invalid_argument(api, f'unknown source: "{source}". Allowed values: "github" | "gitee" | "local".')
    if source != "local":
        raise unimplemented(api, f"source={source!r} downloads the repository {repo_dir!r}; this build has no "
                                 "network access and only reads local repositories.",
                            hint="clone or copy the repository, then pass its folder with source='local'.")
    if not isinstance(repo_dir, (str, os.PathLike)):
        raise invalid_argument(api, f"repo_dir must be a folder path, got {type(repo_dir).__name__}.")
    repo_dir = os.fspath(repo_dir)
    if not os.path.isfile(os.path.join(repo_dir, MODULE_HUBCONF)):
        raise precondition_not_met(api, f"no {MODULE_HUBCONF} in {repo_dir!r}.",
                                   hint="repo_dir is the folder that holds the repository's hubconf.py.")
    return repo_dir


class _PaddleAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """While a hubconf is imported, `import paddle` / `import paddle.nn` give minipaddle's modules."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "paddle" or fullname.startswith("paddle."):
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("minipaddle" + spec.name[len("paddle"):])

    def exec_module(self, module) -> None:
        pass  # already a loaded minipaddle module


@contextlib.contextmanager
def _paddle_is_minipaddle():
    saved = {k: v for k, v in sys.modules.items() if k == "paddle" or k.startswith("paddle.")}
    for k in saved:
        del sys.modules[k]
    finder = _PaddleAlias()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for k in [k for k in sys.modules if k == "paddle" or k.startswith("paddle.")]:
            del sys.modules[k]
        sys.modules.update(saved)


def _import_hubconf(api: str, repo_dir: str):
    """Import <repo_dir>/hubconf.py as a fresh module (its folder on sys.path meanwhile, as in Paddle)."""
    spec = importlib.util.spec_from_file_location("hubconf", os.path.join(repo_dir, MODULE_HUBCONF))
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)
    try:
        with _paddle_is_minipaddle():
            spec.loader.exec_module(module)
    except ImportError as e:
        raise precondition_not_met(api, f"importing {os.path.join(repo_dir, MODULE_HUBCONF)!r} failed: {e}.",
                                   hint="install what it imports, or fix the repository.") from e
    finally:
        sys.path.remove(repo_dir)
    return module


def _entry(api: str, module, model):
    if not isinstance(model, str):
        raise invalid_argument(api, f"model must be the name (a str) of a function in hubconf.py, got "
                                    f"{type(model).__name__}.")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise precondition_not_met(api, f"hubconf.py has no callable {model!r}.",
                                   hint=f"its entry points: {_entries(module)}.")
    return fn


def _entries(module) -> builtins.list[str]:
    return [name for name in dir(module) if callable(getattr(module, name)) and not name.startswith("_")]


def list(repo_dir: str, source: str = "github", force_reload: bool = False) -> builtins.list[str]:  # noqa: A001
    """The entry points (public callables) of the repository's hubconf.py."""
    return _entries(_import_hubconf("hub.list", _repo("hub.list", repo_dir, source)))


def help(repo_dir: str, model: str, source: str = "github", force_reload: bool = False) -> str | None:  # noqa: A001
    """The docstring of entry point `model`."""
    module = _import_hubconf("hub.help", _repo("hub.help", repo_dir, source))
    return _entry("hub.help", module, model).__doc__


def load(repo_dir: str, model: str, source: str = "github", force_reload: bool = False, **kwargs: Any):
    """Call entry point `model` of the repository's hubconf.py with **kwargs and return what it builds."""
    module = _import_hubconf("hub.load", _repo("hub.load", repo_dir, source))
    missing = [m for m in (getattr(module, VAR_DEPENDENCY, None) or [])
               if m.split(".")[0] != "paddle" and importlib.util.find_spec(m) is None]   # paddle: minipaddle
    if missing:
        raise precondition_not_met("hub.load", f"missing dependencies: {', '.join(missing)}.",
                                   hint="hubconf.py lists them in `dependencies`; install them first.")
    fn = _entry("hub.load", module, model)
    with _paddle_is_minipaddle():   # an entry point may import paddle.* lazily
        return fn(**kwargs)
