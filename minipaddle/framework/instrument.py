"""The event bus every layer of minipaddle reports to: the debugger's recorder listens here.

Subscribers are callables `fn(event: dict)`. The dispatch path checks `subscribers` once
per op call; with none registered that one truthiness check is all the debugger costs
when it is off. `paddle.debug.record()` subscribes a recorder for the span of a `with`.

    unsubscribe = instrument.subscribe(print)   # every event, as a dict
    paddle.add(x, y)
    unsubscribe()

Events are plain dicts with a "kind". They hold live objects (Tensors, GradNodes, the OpDef),
not copies: a subscriber must summarize what it keeps right away, since tensors change in
place later (an optimizer step) and arrays are freed. Times are `time.perf_counter_ns()`.

kind "op" -- one eager op ran (framework/dispatch.py)
    op          str             the op's name ("matmul")
    opdef       OpDef           the registry entry (kernels, attrs, inputs)
    layer       str | None      path of the innermost nn.Layer running ("MLP.fc1"), see current_layer()
    inputs      tuple[Tensor]   as passed to the kernel
    outputs     tuple[Tensor]   the wrapped results
    attrs       dict            the attributes the caller passed (defaults left out)
    kernel      callable        the kernel function that ran (the recorder finds its name and why it was chosen)
    grad_node   GradNode | None the node recorded for backward, if any
    start_ns, end_ns  int       around the kernel call only
    pylayer     type            only for a PyLayer call (autograd/py_layer.py): its class; then opdef is a
                                PyLayerOp, kernel the user's forward, grad_node a PyLayerNode ("<Class>_grad")
kind "pylayer_begin" / "pylayer_end" -- a PyLayer's forward starts / ends (also when it raises); the ops it
                       runs are reported in between, then the PyLayer's own "op" event
    pylayer     type            the PyLayer class
kind "grad_node" -- a GradNode was recorded for the op about to be reported (same dispatch call)
    node        GradNode        node.op, node.next_edges: per input (node, output_index) or None
    op          str
kind "backward_begin" / "backward_end" -- run_backward started / finished (autograd/engine.py)
    api         str             "backward" or "grad"
    outputs     list[Tensor]    (begin only) the tensors backward starts from
    retain_graph, create_graph  bool (begin only)
kind "backward_step" -- one node of the backward graph ran
    node        GradNode | AccumulateGrad
    grads_in    list[Tensor | None]  per output of the forward op: the summed incoming gradient
    grads_out   list[Tensor | None]  per input of the forward op: the gradient sent on (after
                                     reducing broadcasts); [] for an AccumulateGrad
    tensor      Tensor | None   AccumulateGrad run by backward(): the leaf, whose .grad was just
                                updated (None under paddle.grad, which leaves .grad alone)
    start_ns, end_ns  int
    Ops that the backward rule runs are reported as "op" events before their "backward_step".
kind "hook" -- a tensor hook (Tensor.register_hook) ran during backward
    node, index                 the (node, output index) the hook is attached to
    hook        callable
    grad        Tensor          the gradient the hook saw
    result      Tensor | None   what the hook returned (None: the gradient is unchanged)
kind "optimizer_update" -- an optimizer updated one parameter (minipaddle/optimizer)
    optimizer   str             the optimizer's class name ("SGD")
    param       Parameter | str the parameter (or its name)
    tensor      Parameter       optional: the parameter itself, when `param` is its name
    lr          float           the learning rate used for it
    grad_norm   float           L2 norm of the gradient applied
    update_norm float           L2 norm of the change to the parameter
kind "autotune" -- a kernel (or DataLoader num_workers) choice was measured or read from the cache;
    fields: op, key, dtype, shape_class, shapes, candidates [{name, time_ns, error}], winner, default,
    source ("tuned" / "cache"), step -- see minipaddle/framework/autotune.py
kind "pass_applied" -- a static-graph pass ran (framework/static/passes)
    pass, report, before, after    the pass name, its PassReport, the programs before and after
kind "program_built" -- a Program was built for the user (jit.to_static's concrete program); a recorder
                       adds it to the trace's programs
    program     Program
    role        str             "dy2static", "main", "inference", ...
    name        str             a label ("to_static: Net.forward")
    origin      dict | None     see minipaddle.visualizer.program.dy2static_origin
kind "executor_run_begin" -- static.Executor.run starts running a program (framework/static/executor.py)
    executor    Executor
    program     Program         the program about to run
    feed        dict[str, ndarray]  the checked feeds
    fetch       list[str]       the names to fetch
kind "executor_op" -- the Executor ran one op of a block (also ops of cond / while sub-blocks, once per run
                      of the sub-block; a control-flow op is reported after the ops of its sub-blocks)
    program     Program
    block       int             the block's index
    index       int             the op's index in its block
    op          Operator
    outputs     dict[str, ndarray]  the values the op wrote (before the Executor frees temporaries)
    start_ns, end_ns  int
kind "executor_run_end" -- Executor.run finished (also when it raised)
    program     Program
    fetch       dict[str, ndarray]  the fetched values ({} after an error)
    error       str | None      the error's message when the run raised
    With no subscriber the Executor checks `subscribers` once per run and runs its plain loop.
kind "nan_inf" -- a recorded tensor holds NaN or Inf (emitted by the recorder for others to hear)
    tensor      Tensor          the tensor
    origin      str             "produced" / "propagated" (an op's output, from clean / bad inputs),
                                "input" (an op's input already held it), "backward" (a gradient),
                                "update" (a parameter after an optimizer update)
    op          str | None      the op (grad node, hook, optimizer) behind it; None for an input
    layer       str | None
    nan_count, inf_count  int
    first       bool            True for the first occurrence in the recording
    recorder    object          the recorder that found it (it ignores its own events)
"""
from __future__ import annotations

from typing import Callable

from .thread_modes import modes

subscribers: list[Callable[[dict], None]] = []
# Those that want "optimizer_update" events: the optimizer measures grad and update norms (a copy
# of each parameter and two numba reductions) only when one of them listens.
update_subscribers: list[Callable[[dict], None]] = []


def subscribe(fn: Callable[[dict], None], updates: bool = True) -> Callable[[], None]:
    """Register `fn`; returns a function that unregisters it. `updates=False`: `fn` does not need
    optimizer_update events (the profiler, the autotuner), so nobody pays for them on its behalf."""
    subscribers.append(fn)
    if updates:
        update_subscribers.append(fn)

    def unsubscribe() -> None:
        if fn in subscribers:
            subscribers.remove(fn)
        if fn in update_subscribers:
            update_subscribers.remove(fn)
    return unsubscribe


def emit(event: dict) -> None:
    """Send `event` to every subscriber (a copy of the list: one may unsubscribe while called)."""
    for fn in list(subscribers):
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

