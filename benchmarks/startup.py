"""Start-up cost: `import minipaddle`, and the first call of a numba-built kernel in a new process.

    python benchmarks/startup.py [--runs 7] [--json out.json]

Every figure is measured inside a fresh subprocess (so nothing is already imported) and is the
median over `--runs` processes:

    import minipaddle          time of the import statement alone (target <= 0.6 s);
                               `import numpy`, `import numba` and `import torch` for comparison
    first kernel call          a numba-built op (sigmoid, gelu or erf: the first whose default
                               float32 kernel is a numba one) with numba's on-disk cache already
                               warm, in a process where numba has started (imported, and a trivial
                               cached @njit function on an array called): time from before the
                               op's first call to after it (target <= 30 ms). Also shown: the same
                               call as the very first numba work of a process, which pays numba's
                               start-up too. A process that compiled instead of loading from the
                               cache would take seconds.
    numba's one-time start-up  import numba + the first call of a trivial cached @njit function:
                               what any numba program pays once per process
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
IMPORT_TARGET_S = 0.6
FIRST_CALL_TARGET_MS = 30.0

# Run in a fresh interpreter; each prints one number of seconds.
TIME_IMPORT = """
import sys, time
sys.path.insert(0, {root!r})
start = time.perf_counter()
import {module}
print(time.perf_counter() - start)
"""

TIME_FIRST_OP = """
import sys, time
sys.path.insert(0, {root!r})
sys.path.insert(0, {folder!r})
import minipaddle as paddle
if {warm_numba!r}:  # numba's one-time start-up, paid before the op's first call
    import numpy
    import trivial_kernel
    trivial_kernel.add_one(numpy.ones(2))
op = getattr(paddle, {op!r})
x = paddle.to_tensor([0.5] * 16, dtype="float32")
numba_imported_before = "numba" in sys.modules
start = time.perf_counter()
op(x)
elapsed = time.perf_counter() - start
print(numba_imported_before, "numba" in sys.modules, elapsed)
"""

TRIVIAL_KERNEL = """
from numba import njit


@njit(cache=True)
def add_one(x):
    return x + 1
"""

TIME_FIRST_NJIT = """
import sys, time
sys.path.insert(0, {folder!r})
import numpy
start = time.perf_counter()
import trivial_kernel  # imports numba
trivial_kernel.add_one(numpy.ones(2))
print(time.perf_counter() - start)
"""


def run_fresh(code: str) -> list[str]:
    """Run `code` in a new interpreter; return the words of the last line it printed."""
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.strip().splitlines()[-1].split()


def seconds(code: str) -> float:
    return float(run_fresh(code)[-1])


def median_seconds(code: str, runs: int) -> float:
    return statistics.median(seconds(code) for _ in range(runs))


# Candidates for "a numba-built op", in order of preference; the first whose default float32 CPU
# kernel is a numba one is measured (an op whose default is numpy would measure nothing of numba).
NUMBA_OP_CANDIDATES = ("sigmoid", "gelu", "erf")

FIND_NUMBA_OP = """
import sys
sys.path.insert(0, {root!r})
import minipaddle as paddle
from minipaddle.framework.ops import describe
for name in {candidates!r}:
    if hasattr(paddle, name) and any(k["default"] and k["backend"] == "cpu" and k["dtype"] == "float32"
                                     and "numba" in k["name"] for k in describe(name)["kernels"]):
        print(name)
        break
else:
    print("erf")
"""


def numba_op_name() -> str:
    return run_fresh(FIND_NUMBA_OP.format(root=str(REPO_ROOT), candidates=NUMBA_OP_CANDIDATES))[0]


def measure(runs: int) -> dict:
    root = str(REPO_ROOT)
    results: dict = {"import_s": {}}
    for module in ("minipaddle", "numpy", "numba", "torch"):
        if module == "minipaddle" or importlib.util.find_spec(module) is not None:
            results["import_s"][module] = median_seconds(TIME_IMPORT.format(root=root, module=module), runs)

    results["first_op"] = numba_op_name()
    with tempfile.TemporaryDirectory(prefix="minipaddle-startup-") as folder:
        (Path(folder) / "trivial_kernel.py").write_text(textwrap.dedent(TRIVIAL_KERNEL))
        first_njit = TIME_FIRST_NJIT.format(folder=folder)
        seconds(first_njit)  # fills the trivial kernel's cache
        results["numba_startup_s"] = median_seconds(first_njit, runs)

        def first_op(warm_numba: bool) -> str:
            return TIME_FIRST_OP.format(root=root, folder=folder, op=results["first_op"], warm_numba=warm_numba)
        # the first run fills numba's cache if it was cold; it also tells whether minipaddle imports
        # numba eagerly or leaves that to the first kernel call
        before, after, _ = run_fresh(first_op(False))
        results["numba_imported_by_import_minipaddle"] = before == "True"
        results["numba_imported_by_first_call"] = before == "False" and after == "True"
        results["first_op_call_s"] = median_seconds(first_op(True), runs)
        results["first_op_call_cold_numba_s"] = median_seconds(first_op(False), runs)
    return results


def table(results: dict, runs: int) -> str:
    load = os.getloadavg()[0]
    lines = [f"median over {runs} fresh processes; {os.cpu_count()} cores, load average {load:.2f}",
             f"{'what':48}{'time':>12}{'target':>12}", "-" * 72]
    for module, s in results["import_s"].items():
        target = f"<= {IMPORT_TARGET_S} s" if module == "minipaddle" else ""
        verdict = ("  ok" if s <= IMPORT_TARGET_S else "  MISSED") if target else ""
        lines.append(f"{'import ' + module:48}{s * 1000:>9.0f} ms{target:>12}{verdict}")
    startup_ms = results["numba_startup_s"] * 1000
    lines.append(f"{'numba start-up: import + first cached @njit call':48}{startup_ms:>9.0f} ms")
    ms = results["first_op_call_s"] * 1000
    verdict = "  ok" if ms <= FIRST_CALL_TARGET_MS else "  MISSED"
    label = f"first paddle.{results['first_op']}(x), after start-up"
    lines.append(f"{label:48}{ms:>9.1f} ms{'<= ' + str(int(FIRST_CALL_TARGET_MS)) + ' ms':>12}{verdict}")
    cold_ms = results["first_op_call_cold_numba_s"] * 1000
    lines.append(f"{'  the same call as the first numba work':48}{cold_ms:>9.0f} ms")
    if results["numba_imported_by_first_call"]:
        lines.append("  (`import minipaddle` leaves importing numba to the first numba kernel)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Start-up cost of minipaddle and of its first kernel call.")
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per figure")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    results = measure(args.runs)
    print(table(results, args.runs))
    if args.json:
        results["targets"] = {"import_minipaddle_s": IMPORT_TARGET_S, "first_op_call_ms": FIRST_CALL_TARGET_MS}
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
