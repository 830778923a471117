"""Record what real Paddle does for every golden case in tests/compat/cases_*.py.

Run it with a Python that has Paddle installed (never minipaddle's venv: CI does not need Paddle):

    python3 -m venv /work/paddle-venv && /work/paddle-venv/bin/pip install paddlepaddle==3.3.1
    /work/paddle-venv/bin/python tools/record_paddle_goldens.py            # every theme
    /work/paddle-venv/bin/python tools/record_paddle_goldens.py indexing   # one theme

Each theme's results go to tests/compat/goldens/<theme>.json, which is committed; the tests in
tests/compat/ run the same case functions with minipaddle and compare against these files.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.compat import harness  # noqa: E402  (after the path is set)

PADDLE_VERSION = "3.3.1"


def record_theme(paddle, theme: str) -> dict:
    module = importlib.import_module(f"tests.compat.cases_{theme}")
    results = {}
    for c in harness.cases_in(module):
        paddle.disable_static()
        paddle.seed(0)
        results[c.name] = c(paddle)
    paddle.disable_static()
    return {"paddle_version": paddle.__version__, "theme": theme, "cases": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("themes", nargs="*", default=list(harness.THEMES), help="themes to record (default: all)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    try:
        import paddle
    except ImportError:
        sys.exit("Paddle is not installed in this Python. Make its own venv (see this script's docstring) and run "
                 "the script with that venv's python.")
    if paddle.__version__ != PADDLE_VERSION:
        sys.exit(f"goldens are recorded with Paddle {PADDLE_VERSION}; this Python has {paddle.__version__}")
    if "minipaddle" in getattr(paddle, "__file__", ""):
        sys.exit("this is minipaddle, not Paddle: run the recorder with Paddle's own venv")
    os.makedirs(harness.GOLDEN_DIR, exist_ok=True)
    for theme in args.themes:
        doc = record_theme(paddle, theme)
        with open(harness.golden_path(theme), "w", encoding="utf-8") as f:
            f.write(harness.dumps(doc) + "\n")
        print(f"{theme}: {len(doc['cases'])} cases -> {os.path.relpath(harness.golden_path(theme), ROOT)}")


if __name__ == "__main__":
    main()
