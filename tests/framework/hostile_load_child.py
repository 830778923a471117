"""Run in a child process by test_save_hostile.py: load each (api, path) under an address-space limit
and report, as JSON on stdout, the error each raised and the peak memory each load added.

    python hostile_load_child.py LIMIT_MB '[["paddle.load", "/tmp/x.pdparams"], ...]'

The limit (RLIMIT_AS) is set after the imports, `LIMIT_MB` above what the process maps then, so a
load that believed a file's claims would fail with a MemoryError instead of swapping the machine.
The peak is VmHWM, reset before each load through /proc/self/clear_refs; every case runs once
unmeasured first (lazy imports and first-call setup are not what is measured).
"""
from __future__ import annotations

import json
import resource
import sys
import warnings


def _status(field: str) -> int:
    with open("/proc/self/status") as f:
        return int(f.read().split(f"{field}:")[1].split()[0]) // 1024   # MB


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _load(api: str, path: str):
    import minipaddle as paddle
    from minipaddle import static
    if api == "paddle.load":
        return paddle.load(path)
    if api == "jit.load":
        return paddle.jit.load(path)
    if api == "load_inference_model":
        paddle.enable_static()
        try:
            return static.load_inference_model(path, static.Executor())
        finally:
            paddle.disable_static()
    if api == "static.load":
        return static.load_program_state(path)
    if api == "Model.load":
        net = paddle.nn.Linear(4, 3)
        model = paddle.Model(net)
        model.prepare(paddle.optimizer.Adam(parameters=net.parameters()))
        return model.load(path)
    raise SystemExit(f"unknown api {api}")


def main() -> None:
    limit_mb = int(sys.argv[1])
    cases = json.loads(sys.argv[2])
    import minipaddle  # (imports before the limit: they are not what is measured)
    import minipaddle.static  # noqa: F401
    mapped = _status("VmSize")
    resource.setrlimit(resource.RLIMIT_AS, ((mapped + limit_mb) << 20, (mapped + limit_mb) << 20))
    for api, path in cases:   # a first pass: lazy imports and first-call setup are not what is measured
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _load(api, path)
        except BaseException:  # noqa: BLE001
            pass
    results = []
    for api, path in cases:
        _reset_peak()
        base = _status("VmRSS")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _load(api, path)
            error, message = None, ""
        except BaseException as err:  # noqa: BLE001 - reported to the parent, which judges it
            error, message = type(err).__name__, str(err)[:300]
        results.append({"api": api, "path": path, "error": error, "message": message,
                        "peak_mb": _status("VmHWM") - base})
    print(json.dumps({"minipaddle": minipaddle.__file__, "results": results}))


if __name__ == "__main__":
    main()
