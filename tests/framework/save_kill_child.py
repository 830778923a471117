"""Run in a child process by test_save_unit.py: save a model over an older save, to be killed midway.

    python save_kill_child.py jit|model PREFIX HIDDEN SEED [KILL_AT_RENAME]

With KILL_AT_RENAME = k the child SIGKILLs itself just before its k-th rename (a crash between the
renames of one save); without it the parent kills it while it writes.
"""
from __future__ import annotations

import os
import signal
import sys

sys.path.insert(0, os.path.dirname(__file__))

import save_formats  # noqa: E402  (the same models the parent saved)

import minipaddle as paddle  # noqa: E402


def _kill_before_rename(k: int) -> None:
    real = os.replace
    count = [0]

    def replace(src, dst):
        count[0] += 1
        if count[0] == k:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(src, dst)
    os.replace = replace


def main() -> None:
    kind, prefix, hidden, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if len(sys.argv) > 5:
        _kill_before_rename(int(sys.argv[5]))
    if kind == "jit":
        paddle.seed(seed)
        paddle.jit.save(save_formats.JitNet(hidden), prefix)
    else:
        model = save_formats.make_model(hidden, seed)
        save_formats.train_a_step(model)
        model.save(prefix)
    print("saved", flush=True)


if __name__ == "__main__":
    main()
