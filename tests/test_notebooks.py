"""Every tutorial notebook runs top to bottom without an error, as d2l's do in CI."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((REPO_ROOT / "tutorials").glob("*.ipynb"))


def _load_runner():
    # tools/ is a folder of scripts, not a package: load the runner that `make demo` uses by path
    spec = importlib.util.spec_from_file_location("run_notebooks", REPO_ROOT / "tools" / "run_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_without_error(path: Path) -> None:
    runner = _load_runner()
    from nbclient.exceptions import CellExecutionError
    try:
        runner.run_notebook(path)
    except CellExecutionError as exc:
        pytest.fail(f"{path.name}: a cell raised\n{runner.error_text(exc)}", pytrace=False)
