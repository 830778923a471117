"""thread_modes.keep_freed_pages: glibc's malloc keeps freed large arrays' pages for the next step,
unless the user chose malloc's thresholds themselves or the C library is not glibc."""
from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from minipaddle.framework import thread_modes

ON_GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
CHECK = ("import minipaddle.framework.kernels.cpu.conv_fast; from minipaddle.framework import thread_modes as t; "
         "print(t._malloc_prepared, t.keep_freed_pages())")


def _run(env_extra: dict) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, env=env,
                          check=True).stdout.strip()


@pytest.mark.skipif(not ON_GLIBC, reason="mallopt is glibc's")
def test_the_conv_kernels_set_it_once_on_import():
    assert _run({}) == "[True] True"  # set on import, the second call answers from memory


def test_a_users_own_malloc_thresholds_stand():
    assert _run({"MALLOC_TRIM_THRESHOLD_": "131072"}) == "[False] False"


def test_it_answers_the_same_every_time():
    assert thread_modes.keep_freed_pages() == thread_modes.keep_freed_pages()
