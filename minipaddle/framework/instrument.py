"""The event bus every layer of minipaddle reports to: the debugger's recorder and the profiler listen here.

Each event is a small dataclass below, one per kind; its `kind` (a class attribute) names it. A
subscriber is a callable `fn(event)`, registered for the kinds it wants:

    unsubscribe = instrument.subscribe(print, kinds=("op",))   # OpEvent(op='add', ...)
    paddle.add(x, y)
    unsubscribe()

`subscribe(fn)` with no kinds hears every kind. `paddle.debug.record()` subscribes a recorder for
the span of a `with`; the profiler subscribes to the kinds it times.

Cheap when off: an emitter checks `if instrument.subscribers:` (anyone listening) before it
builds an event -- with nobody subscribed that one truthiness check is all the debugger costs.
Two sorts of emitter check their own kind instead, `if instrument.listeners[KIND]:`: the training
loop's (LOOP_KINDS: once per optimizer step or batch, so that a profiler timing only steps and
batches leaves `subscribers` empty and every op on the fast path), and an event that is costly to
compute (the optimizer measures grad and update norms only when someone wants OptimizerUpdate).

Events hold live objects (Tensors, GradNodes, the OpDef), not copies: a subscriber must summarize
what it keeps right away, since tensors change in place later (an optimizer step) and arrays are
freed. Times are `time.perf_counter_ns()`; a GPU op's OpEvent adds its time on the device,
measured with CUDA events (framework/kernel_launches.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable

from .errors import invalid_argument
from .thread_modes import modes

if TYPE_CHECKING:  # for the annotations only: the bus imports nothing it reports on
    from .tensor import Tensor


class Event:
    """The base of every event: `kind` names it ("op", "backward_step", ...)."""
    __slots__ = ()
    kind: ClassVar[str] = ""


# ---- eager ops and autograd -----------------------------------------------------------------------
@dataclass(slots=True)
class OpEvent(Event):
    """One eager op ran (framework/dispatch.py; a PyLayer call in autograd/py_layer.py)."""
    kind: ClassVar[str] = "op"
    op: str                     # the op's name ("matmul")
    opdef: Any                  # the registry's OpDef (kernels, attrs, inputs)
    layer: str | None           # path of the innermost nn.Layer running ("MLP.fc1"), see current_layer()
    inputs: tuple               # the Tensors as passed to the kernel
    outputs: tuple              # the wrapped results
    attrs: dict                 # the attributes the caller passed (defaults left out)
    kernel: Callable            # the kernel that ran (the recorder finds its name and why it was chosen)
    grad_node: Any              # the GradNode recorded for backward, or None
    start_ns: int               # around the kernel call only
    end_ns: int
    pylayer: type | None = None  # a PyLayer call: its class; then opdef is a PyLayerOp, kernel the user's
    #                              forward, grad_node a PyLayerNode ("<Class>_grad")
    device_time_ns: int | None = None  # a GPU op: its kernels' time on the device (CUDA events); else None
    launches: tuple = ()        # a GPU op: each kernel launch, kernel_launches.Launch(kernel, grid, block)


@dataclass(slots=True)
class PyLayerBegin(Event):
    """A PyLayer's forward starts; the ops it runs are reported, then PyLayerEnd, then its own OpEvent."""
    kind: ClassVar[str] = "pylayer_begin"
    pylayer: type


@dataclass(slots=True)
class PyLayerEnd(Event):
    """A PyLayer's forward ended (also when it raised)."""
    kind: ClassVar[str] = "pylayer_end"
    pylayer: type


@dataclass(slots=True)
class GradNodeEvent(Event):
    """A GradNode was recorded for the op about to be reported (same dispatch call)."""
    kind: ClassVar[str] = "grad_node"
    node: Any                   # node.op, node.next_edges: per input (node, output_index) or None
    op: str


@dataclass(slots=True)
class BackwardBegin(Event):
    """run_backward started (autograd/engine.py)."""
    kind: ClassVar[str] = "backward_begin"
    api: str                    # "backward" or "grad"
    outputs: list               # the tensors backward starts from
    retain_graph: bool
    create_graph: bool


@dataclass(slots=True)
class BackwardEnd(Event):
    """run_backward finished."""
    kind: ClassVar[str] = "backward_end"
    api: str


@dataclass(slots=True)
class BackwardStep(Event):
    """One node of the backward graph ran. Ops its backward rule runs come as OpEvents before it."""
    kind: ClassVar[str] = "backward_step"
    node: Any                   # GradNode | AccumulateGrad
    grads_in: list              # per output of the forward op: the summed incoming gradient (or None)
    grads_out: list             # per input of the forward op: the gradient sent on (after reducing
    #                             broadcasts); [] for an AccumulateGrad
    tensor: Tensor | None = None  # AccumulateGrad run by backward(): the leaf whose .grad was just
    #                               updated (None under paddle.grad, which leaves .grad alone)
    start_ns: int = 0
    end_ns: int = 0


@dataclass(slots=True)
class HookEvent(Event):
    """A tensor hook (Tensor.register_hook) ran during backward."""
    kind: ClassVar[str] = "hook"
    node: Any                   # with index: the (node, output index) the hook is attached to
    index: int
    hook: Callable
    grad: Tensor                # the gradient the hook saw
    result: Tensor | None       # what the hook returned (None: the gradient is unchanged)


# ---- training loop: optimizer and data -----------------------------------------------------------
@dataclass(slots=True)
class OptimizerStepBegin(Event):
    """Optimizer.step starts (minipaddle/optimizer)."""
    kind: ClassVar[str] = "optimizer_step_begin"
    optimizer: Any              # the Optimizer
    start_ns: int


@dataclass(slots=True)
class OptimizerStepEnd(Event):
    """Optimizer.step ended (also when it raised)."""
    kind: ClassVar[str] = "optimizer_step_end"
    optimizer: Any
    start_ns: int
    end_ns: int


@dataclass(slots=True)
class OptimizerUpdate(Event):
    """An optimizer updated one parameter. Emitted only while someone subscribes to this kind:
    measuring the norms costs a copy of each parameter and two reductions."""
    kind: ClassVar[str] = "optimizer_update"
    optimizer: str              # the optimizer's class name ("SGD")
    param: Any                  # the parameter, or its name
    lr: float                   # the learning rate used for it
    grad_norm: float            # L2 norm of the gradient applied
    update_norm: float          # L2 norm of the change to the parameter
    tensor: Any = None          # the parameter itself, when `param` is its name


@dataclass(slots=True)
class DataLoaderNextBegin(Event):
    """A DataLoader iterator is asked for its next batch (minipaddle/io/dataloader.py)."""
    kind: ClassVar[str] = "dataloader_next_begin"
    loader: Any                 # the DataLoader
    start_ns: int


@dataclass(slots=True)
class DataLoaderNextEnd(Event):
    """The batch is there -- or the epoch ended (`exhausted`: the iterator raised StopIteration)."""
    kind: ClassVar[str] = "dataloader_next_end"
    loader: Any
    start_ns: int
    end_ns: int
    exhausted: bool = False


# ---- kernels and static graphs ------------------------------------------------------------------
@dataclass(slots=True)
class AutotuneEvent(Event):
    """A kernel (or DataLoader num_workers) choice was measured or read from the cache (framework/autotune.py)."""
    kind: ClassVar[str] = "autotune"
    op: str
    key: str
    dtype: str | None
    shape_class: str | None
    shapes: list
    candidates: list            # [{name, time_ns, error}]
    winner: str
    default: str
    source: str                 # "tuned" / "cache"
    step: int


@dataclass(slots=True)
class PassApplied(Event):
    """A static-graph pass ran (framework/static/passes)."""
    kind: ClassVar[str] = "pass_applied"
    pass_name: str
    report: Any                 # its PassReport
    before: Any                 # the Programs before and after
    after: Any


@dataclass(slots=True)
class ProgramBuilt(Event):
    """A Program was built for the user (jit.to_static's concrete program); a recorder adds it to the trace."""
    kind: ClassVar[str] = "program_built"
    program: Any
    role: str                   # "dy2static", "main", "inference", ...
    name: str                   # a label ("to_static: Net.forward")
    origin: dict | None = None  # see minipaddle.visualizer.program.dy2static_origin


@dataclass(slots=True)
class ExecutorRunBegin(Event):
    """static.Executor.run starts running a program (framework/static/executor.py)."""
    kind: ClassVar[str] = "executor_run_begin"
    executor: Any
    program: Any                # the program about to run
    feed: dict                  # name -> ndarray, the checked feeds
    fetch: list                 # the names to fetch


@dataclass(slots=True)
class ExecutorOp(Event):
    """The Executor ran one op of a block (also ops of cond / while sub-blocks, once per run of the
    sub-block; a control-flow op is reported after the ops of its sub-blocks)."""
    kind: ClassVar[str] = "executor_op"
    program: Any
    block: int                  # the block's index
    index: int                  # the op's index in its block
    op: Any                     # the Operator
    outputs: dict               # name -> ndarray the op wrote (before the Executor frees temporaries)
    start_ns: int
    end_ns: int


@dataclass(slots=True)
class ExecutorRunEnd(Event):
    """Executor.run finished (also when it raised)."""
    kind: ClassVar[str] = "executor_run_end"
    program: Any
    fetch: dict                 # the fetched values ({} after an error)
    error: str | None           # the error's message when the run raised


@dataclass(slots=True)
class NanInf(Event):
    """A recorded tensor holds NaN or Inf (emitted by the recorder for others to hear)."""
    kind: ClassVar[str] = "nan_inf"
    tensor: Tensor
    origin: str                 # "produced" / "propagated" (an op's output, from clean / bad inputs), "input"
    #                             (an op's input already held it), "backward" (a gradient), "update" (a parameter)
    op: str | None              # the op (grad node, hook, optimizer) behind it; None for an input
    layer: str | None
    nan_count: int
    inf_count: int
    first: bool                 # the first occurrence in the recording
    recorder: Any               # the recorder that found it (it ignores its own events)


EVENT_TYPES: dict[str, type] = {cls.kind: cls for cls in (
    OpEvent, PyLayerBegin, PyLayerEnd, GradNodeEvent, BackwardBegin, BackwardEnd, BackwardStep, HookEvent,
    OptimizerStepBegin, OptimizerStepEnd, OptimizerUpdate, DataLoaderNextBegin, DataLoaderNextEnd,
    AutotuneEvent, PassApplied, ProgramBuilt, ExecutorRunBegin, ExecutorOp, ExecutorRunEnd, NanInf)}

# The training loop's kinds, checked per kind by their emitters (see the module's docstring).
LOOP_KINDS = frozenset({"optimizer_step_begin", "optimizer_step_end", "dataloader_next_begin", "dataloader_next_end"})

# ---- subscribing ------------------------------------------------------------------------------------
# Each subscription that hears a kind outside LOOP_KINDS: the emitters' one check ("anyone listening?").
subscribers: list[Callable[[Event], None]] = []
# kind -> the functions subscribed to it, in subscription order.
listeners: dict[str, list[Callable[[Event], None]]] = {kind: [] for kind in EVENT_TYPES}


def subscribe(fn: Callable[[Event], None], kinds: Iterable[str] | None = None) -> Callable[[], None]:
    """Register `fn` for the events of `kinds` (every kind when None); returns a function that unregisters it.

        stop = instrument.subscribe(on_step, kinds=("optimizer_step_begin", "optimizer_step_end"))
    """
    chosen = tuple(EVENT_TYPES) if kinds is None else tuple(kinds)
    unknown = [k for k in chosen if k not in EVENT_TYPES]
    if unknown:
        raise invalid_argument("instrument.subscribe", f"unknown event kind(s) {unknown}.",
                               hint=f"the kinds are {sorted(EVENT_TYPES)}.")
    counted = not LOOP_KINDS.issuperset(chosen)
    if counted:
        subscribers.append(fn)
    for kind in chosen:
        listeners[kind].append(fn)
    subscribed = [True]

    def unsubscribe() -> None:
        if not subscribed[0]:  # a second call does nothing
            return
        subscribed[0] = False
        if counted:
            subscribers.remove(fn)
        for kind in chosen:
            listeners[kind].remove(fn)
    return unsubscribe


def emit(event: Event) -> None:
    """Send `event` to those subscribed to its kind (a copy of the list: one may unsubscribe while called)."""
    for fn in list(listeners[event.kind]):
        fn(event)


# The nn.Layers whose forward is running in this thread, innermost last, each as [layer, path], are
# `modes.layer_stack` (thread_modes.py). Layer.__call__ pushes [layer, None]; the path ("MLP.fc1") is
# worked out only when someone asks, so calling a layer with nobody listening stays cheap.


def current_layer() -> str | None:
    """The path of the innermost layer running in this thread ("MLP.encoder.fc1"), or None outside any layer."""
    layer_stack = modes.layer_stack
    if not layer_stack:
        return None
    if layer_stack[-1][1] is None:
        caller, caller_path = None, None
        for entry in layer_stack:
            if entry[1] is None:
                entry[1] = entry[0]._path_under(caller, caller_path)
            caller, caller_path = entry[0], entry[1]
    return layer_stack[-1][1]

