"""Import stays light: numba loads on the first op that needs a numba kernel, never at import."""
from __future__ import annotations

import subprocess
import sys


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_import_does_not_load_numba_or_compile_anything():
    out = _run("import sys, minipaddle; print('numba' in sys.modules)")
    assert out == "False"


def test_numba_kernel_loads_on_first_use():
    code = ("import sys, minipaddle as paddle; paddle.erf(paddle.to_tensor([0.5])); "
            "print('numba' in sys.modules)")
    assert _run(code) == "True"
