"""Turn a Paddle checkpoint (.pdparams, a pickle) into a plain .npz that minipaddle loads without pickle.

Run it with a Python that has Paddle installed (never minipaddle's venv), on a file you trust:

    /work/paddle-venv/bin/python tools/convert_paddle_checkpoint.py resnet18.pdparams resnet18.npz

then, with minipaddle:

    model = paddle.vision.models.resnet18()
    model.set_state_dict(dict(np.load("resnet18.npz")))     # the keys are Paddle's structured names

Loading the .pdparams unpickles it, which can run code: that is why it happens here, under Paddle, once,
and minipaddle itself only ever reads the arrays.
"""
from __future__ import annotations

import argparse
import sys

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pdparams", help="the Paddle checkpoint (a state dict saved by paddle.save)")
    parser.add_argument("npz", help="where to write the arrays")
    args = parser.parse_args()
    try:
        import paddle
    except ImportError:
        sys.exit("Paddle is not installed in this Python: run this script with Paddle's own venv.")
    if "minipaddle" in getattr(paddle, "__file__", ""):
        sys.exit("this is minipaddle, not Paddle: run the converter with Paddle's own venv")
    state = paddle.load(args.pdparams)
    if not isinstance(state, dict):
        sys.exit(f"{args.pdparams} holds a {type(state).__name__}, expected a state dict")
    arrays = {}
    for key, value in state.items():
        array = value.numpy() if hasattr(value, "numpy") else np.asarray(value)
        if array.dtype == object:
            sys.exit(f"{key!r} is not a numeric array")
        arrays[key] = array
    np.savez(args.npz, **arrays)
    print(f"{len(arrays)} arrays -> {args.npz}")


if __name__ == "__main__":
    main()
