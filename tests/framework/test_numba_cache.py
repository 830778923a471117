"""A read-only install with an unwritable HOME still runs numba ops (issue 16 item 9).

Each test copies the package somewhere numba cannot cache beside the sources (a *file* named
`__pycache__` in every directory: creating the directory fails even for root, who ignores permission
bits), points HOME at /dev/null (so ~/.cache cannot be made either) and runs a numba kernel in a fresh
interpreter. Without minipaddle's fallback numba raises "cannot cache function ... no locator available".
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import minipaddle

PACKAGE = Path(minipaddle.__file__).resolve().parent
CHILD = """
import warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import numpy as np
    import minipaddle
    from minipaddle.framework.kernels import numba_cache
    from minipaddle.framework.kernels.cpu.softmax import softmax_numba
    out = softmax_numba(np.zeros((2, 4), np.float32))
assert np.allclose(out, 0.25), out
messages = [str(w.message) for w in caught if "numba cannot cache" in str(w.message)]
print("STATUS", numba_cache.status)
print("WARNINGS", len(messages))
for m in messages:
    print("MESSAGE", m)
"""

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not Path("/dev/null").exists(),
                                reason="the read-only install is simulated with Linux paths")


def _read_only_install(root: Path) -> Path:
    site = root / "site"
    shutil.copytree(PACKAGE, site / "minipaddle",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "labextension"))
    for directory in [site / "minipaddle", *(p for p in (site / "minipaddle").rglob("*") if p.is_dir())]:
        (directory / "__pycache__").write_text("not a directory: nothing can be cached here")
    return site


def _run(site: Path, tmpdir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
    env.update(HOME="/dev/null", TMPDIR=str(tmpdir), PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=tmpdir, env=env, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    return {"status": next(line.split()[1] for line in lines if line.startswith("STATUS")),
            "warnings": int(next(line.split()[1] for line in lines if line.startswith("WARNINGS"))),
            "messages": [line for line in lines if line.startswith("MESSAGE")]}


def test_a_read_only_install_caches_kernels_in_a_private_temporary_directory(tmp_path):
    site = _read_only_install(tmp_path)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    result = _run(site, tmpdir)
    cache = tmpdir / f"minipaddle-numba-cache-{os.getuid()}"
    assert result["status"] == "temporary" and result["warnings"] == 1
    assert str(cache) in result["messages"][0]
    assert (cache.stat().st_mode & 0o777) == 0o700
    assert any(p.suffix == ".nbi" for p in cache.rglob("*")), "the compiled kernel was cached there"
    again = _run(site, tmpdir)  # the next process reads the cache
    assert again["status"] == "temporary"


def test_with_no_writable_place_numba_compiles_without_a_cache(tmp_path):
    site = _read_only_install(tmp_path)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    # a planted file under the private directory's name: never used as a cache (it could hold pickles)
    (tmpdir / f"minipaddle-numba-cache-{os.getuid()}").write_text("planted")
    result = _run(site, tmpdir)
    assert result["status"] == "off" and result["warnings"] == 1
    assert "every process compiles its kernels again" in result["messages"][0]


def test_a_writable_install_leaves_numba_alone():
    from minipaddle.framework.kernels import numba_cache
    assert numba_cache.status in ("default", "user")
