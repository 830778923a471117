"""What a traced training loop adds to a saved notebook, and what one live update costs.

    python benchmarks/notebook_size.py [--iterations 50] [--out traced.ipynb] [--json out.json]

The loop: an MLP of 6 x [Linear(-> 32), Tanh] + Linear(32, 4) on a 64 x 16 batch, cross-entropy,
Adam, recorded with `paddle.debug.record()`'s default options. The trace's MIME bundle (what
`display(rec.trace)` shows) goes into a real .ipynb written by nbformat, next to an empty notebook
of the same cell: the difference is what the trace adds. Printed:

    notebook MB     what the trace adds to the saved notebook (the document gzip'ed, as trace_bundle
                    writes a training run; and as plain JSON text, compress=False)
    document MB     the trace document as compact JSON (Trace.to_json)
    bundle parts    the size of each MIME type in the bundle
    live update ms  one update of LiveTrace on the finished recording: building the document and
                    the bundle it sends, while the recorder is on (cold: the first update; warm: the
                    median update after one more training step)

Target (issue 13): a 50-iteration trace adds at most 2 MB to the notebook.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def record_training(iterations: int):
    """The recorder (still recording) of `iterations` training steps, and a function that runs one more."""
    import minipaddle as paddle
    import minipaddle.nn.functional as F
    from minipaddle import nn
    paddle.seed(0)
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((64, 16)).astype("float32"))
    y = paddle.to_tensor(rng.integers(0, 4, 64))
    layers, width = [], 16
    for _ in range(6):
        layers += [nn.Linear(width, 32), nn.Tanh()]
        width = 32
    net = nn.Sequential(*layers, nn.Linear(32, 4))
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())

    def step() -> None:
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    rec = paddle.debug.record().start()
    for _ in range(iterations):
        step()
    return rec, step


def notebook_bytes(outputs: list, path: Path | None = None) -> int:
    """The size of a one-cell notebook holding `outputs` (display_data bundles), as nbformat writes it."""
    import nbformat
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("with paddle.debug.record() as rec:\n    train()\nrec.trace")
    cell.outputs = [nbformat.v4.new_output("display_data", data=bundle) for bundle in outputs]
    nb.cells.append(cell)
    text = nbformat.writes(nb)
    if path is not None:
        path.write_text(text, encoding="utf-8")
        nbformat.read(str(path), as_version=4)  # it reads back
    return len(text.encode("utf-8"))


def live_update_ms(rec, step) -> dict:
    """One LiveTrace update (the document and the bundle it sends) on the recording: cold and warm."""
    from minipaddle.notebook.live import LiveTrace

    class Handle:
        def update(self, bundle, raw=True, metadata=None):
            self.bundle = bundle

    live = LiveTrace(rec, display=lambda *a, **k: Handle())
    live.handle = Handle()
    timings = {}
    started = time.perf_counter()
    live.refresh()
    timings["cold"] = (time.perf_counter() - started) * 1e3
    warm = []
    for _ in range(5):
        step()  # one more training step, then the next update
        started = time.perf_counter()
        live.refresh()
        warm.append((time.perf_counter() - started) * 1e3)
    timings["warm"] = statistics.median(warm)
    timings["sent_MB"] = sum(len(v) for v in live.handle.bundle.values()) / 1e6
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--out", type=Path, default=None, help="also write the notebook here")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    from minipaddle.notebook.display import trace_bundle
    rec, step = record_training(args.iterations)
    trace = rec.trace
    started = time.perf_counter()
    bundle = trace_bundle(trace)
    bundle_ms = (time.perf_counter() - started) * 1e3
    added = notebook_bytes([bundle], args.out) - notebook_bytes([])
    added_plain = notebook_bytes([trace_bundle(trace, compress=False)]) - notebook_bytes([])
    live = live_update_ms(rec, step)  # while the recorder is still on, as in a training loop
    rec.stop()
    result = {"iterations": args.iterations, "steps": len(trace.steps), "notebook_MB": added / 1e6,
              "notebook_MB_plain_json": added_plain / 1e6,
              "document_MB": len(trace.to_json()) / 1e6,
              "bundle_MB": {mime: len(value) / 1e6 for mime, value in bundle.items()},
              "bundle_ms": bundle_ms, "live_update_ms": live}
    print(f"{args.iterations} iterations, {result['steps']} steps")
    print(f"notebook MB   {result['notebook_MB']:.3f}   (target <= 2); "
          f"with the document as plain JSON text (compress=False): {result['notebook_MB_plain_json']:.3f}")
    print(f"document MB   {result['document_MB']:.3f}")
    print("bundle parts  " + ", ".join(f"{k} {v:.3f} MB" for k, v in result["bundle_MB"].items()))
    print(f"bundle ms     {bundle_ms:.0f}")
    live = result["live_update_ms"]
    print(f"live update   cold {live['cold']:.0f} ms, warm {live['warm']:.0f} ms, sends {live['sent_MB']:.3f} MB")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
