"""paddle.profiler: where a training step spends its time (ops, phases, kernels, memory, numba JIT).

    from minipaddle import profiler
    with profiler.Profiler(scheduler=(1, 4), with_flops=True) as prof:
        for step in range(5):
            train_step()
            prof.step()
    prof.summary(op_detail=True)

Tables as Paddle prints them (summary.py), Chrome trace JSON for Perfetto (chrome_trace.py), and a
`profile` section of the trace document for the notebook extension (section.py). `%paddle_profile`
(minipaddle/notebook/profile_magic.py) runs a statement under a Profiler and shows all three.
"""
from .chrome_trace import export_chrome_tracing
from .profiler import Profiler, ProfileResult, ProfilerTarget
from .record_event import RecordEvent, TracerEventType
from .scheduler import ProfilerState, make_scheduler
from .summary import SortedKeys, SummaryView

__all__ = ["Profiler", "ProfileResult", "ProfilerTarget", "ProfilerState", "RecordEvent", "SortedKeys",
           "SummaryView", "TracerEventType", "export_chrome_tracing", "make_scheduler"]
