"""The profiler's memory view shows how much of what ops allocated on the CPU reused freed memory
(thread_modes.keep_freed_pages) and how much came as fresh pages from the OS (page faults)."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

ON_GLIBC = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"

# conv training steps; the profiler records 8 of them with profile_memory=True, prints the host numbers
STEPS = """
import json, minipaddle as paddle
paddle.seed(0)
net = paddle.nn.Sequential(paddle.nn.Conv2D(1, 6, 3), paddle.nn.ReLU(), paddle.nn.MaxPool2D(2),
                           paddle.nn.Flatten(), paddle.nn.Linear(6 * 13 * 13, 10))
opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=net.parameters())
x, y = paddle.randn([64, 1, 28, 28]), paddle.randint(0, 10, [64])
def step():
    loss = paddle.nn.functional.cross_entropy(net(x), y)
    loss.backward(); opt.step(); opt.clear_grad()
for _ in range(3):
    step()
prof = paddle.profiler.Profiler(profile_memory=True)
prof.start()
for _ in range(8):
    step()
prof.stop()
memory = prof.result.profile_section()["memory"]
print(json.dumps({"host": memory["host"], "allocated": memory["allocated_bytes"],
                  "summary": prof.result.summary_text()}))
"""


def _profile(env_extra: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.update(env_extra)
    out = subprocess.run([sys.executable, "-c", STEPS], capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not ON_GLIBC, reason="keep_freed_pages and mallinfo2 are glibc's")
def test_kept_pages_serve_almost_every_allocation_and_fresh_pages_show_when_not():
    kept = _profile({})
    host = kept["host"]
    assert host["keeps_freed_pages"] is True
    assert kept["allocated"] > 30 * 2**20          # eight steps of 64x6x26x26 activations and their grads
    assert host["reuse_rate"] > 0.9, host
    assert host["heap_free_bytes"] > 0
    assert "CPU memory (malloc)" in kept["summary"] and "allocated bytes served by reused memory" in kept["summary"]
    # every array above 64 KiB mapped fresh and returned at once: the same steps fault their bytes in
    fresh = _profile({"MALLOC_MMAP_THRESHOLD_": "65536", "MALLOC_TRIM_THRESHOLD_": "0"})["host"]
    assert fresh["keeps_freed_pages"] is False
    assert fresh["reuse_rate"] < 0.3, fresh
    assert fresh["page_faults"] > 20 * host["page_faults"]
    assert fresh["fresh_bytes"] == fresh["page_faults"] * os.sysconf("SC_PAGE_SIZE")


def test_without_profile_memory_there_are_no_host_numbers():
    import minipaddle as paddle
    prof = paddle.profiler.Profiler()
    prof.start()
    paddle.ones([4]) + 1
    prof.stop()
    assert prof.result.collector.host_memory is None
    assert prof.result.profile_section()["memory"] is None


def test_too_little_allocated_gives_no_reuse_share():
    from minipaddle.profiler.collector import MEASURABLE_BYTES, host_reuse
    host = {"fresh_bytes": 24 * 1024}
    assert host_reuse(host, MEASURABLE_BYTES - 1) is None        # the summary shows "-", the Profile tab no share
    assert host_reuse(host, 4 * MEASURABLE_BYTES) == 1.0 - 24 * 1024 / (4 * MEASURABLE_BYTES)
    assert host_reuse({"fresh_bytes": 10 * MEASURABLE_BYTES}, MEASURABLE_BYTES) == 0.0
