"""append_backward and gradients: grad ops built from the same backward rules eager autograd runs.

Walking the forward ops from the loss back to the inputs, each op's rule `op.backward(node, *douts)`
is *run under the static builder*: `node.x`, `node.out` and the douts are Variables, so every op
the rule calls appends a grad op -- one set of rules serves both modes. Gradients of a variable
used twice are summed with `add` ops; broadcast gradients are summed back to the input's shape.

A rule that needs a shape the program does not know yet (a -1 batch dim, e.g. `mean` dividing by
the element count) cannot be written out symbolically: that op gets one `backward_rule` op
instead, which runs the very same rule eagerly when the Executor reaches it. Differentiating a
`backward_rule` op again (double grad) appends a `backward_rule_grad` op, which replays the rule
under eager autograd and differentiates it. `cond` / `while` get `cond_grad` / `while_grad` ops
with grad sub-blocks (control_flow_grad.py).
"""
from __future__ import annotations


from .. import arrays
from ..autograd.context import BackwardContext
from ..errors import invalid_argument, unimplemented
from ..registry import get_op
from . import builder, control_flow_grad
from .grad_vars import total_grad, wants_grad, zeros_like
from .static_ops import CONSTANT_OPS, STATIC_OPS, static_op
from .program import Block, Operator, Variable, var_names



class _StaticNode(BackwardContext):
    """A backward rule's `ctx` while append_backward writes grad ops: saved Variables and attrs, as
    attributes. `edges` holds, per input, None where no gradient is wanted."""

    def __init__(self, opdef, attrs: dict, saved: dict, edges: list, input_metas: list, out_metas: list) -> None:
        self.__dict__.update(opdef.attr_defaults)
        self.__dict__.update(attrs)
        self.__dict__.update(saved)
        self.op, self.attrs, self.saved = opdef, attrs, saved
        self._wanted = [edge is not None for edge in edges]
        self._input_metas, self._out_metas = input_metas, out_metas
        self.read_unknown_shape = False

    @property
    def name(self) -> str:
        return f"{self.op.name}_grad"

    def needs_grad(self, i: int) -> bool:
        return self._wanted[i]

    def _metas(self, metas):
        if any(-1 in shape for shape, _ in metas):
            self.read_unknown_shape = True
        return metas

    @property
    def input_metas(self):
        return self._metas(self._input_metas)

    @property
    def out_metas(self):
        return self._metas(self._out_metas)


class _Fallback(Exception):
    """The rule cannot be written as static ops; run it at run time instead."""


def _in_out_names(op: Operator, opdef) -> tuple[list[str], list[str]]:
    if opdef.variadic:
        ins = list(op.inputs[opdef.inputs[0]])
    else:
        ins = [op.inputs[slot][0] for slot in opdef.inputs]
    outs = op.output_names()
    return ins, outs


def _relevant_ops(block: Block, target_names: list[str]) -> list[int]:
    """Indices of the ops the targets depend on, last first."""
    last = -1
    for i, op in enumerate(block.ops):
        if any(n in target_names for n in op.output_names()):
            last = i
    need = set(target_names)
    chosen = []
    for i in range(last, -1, -1):
        op = block.ops[i]
        if any(n in need for n in op.output_names()):
            chosen.append(i)
            need.update(op.input_names())
    return chosen


def _sum_to_shape(g: Variable, shape: tuple) -> Variable:
    """Reduce a broadcast gradient to its input's shape (-1 dims are taken to match)."""
    from ..ops.reduction import sum as reduce_sum
    gshape = g._data.shape
    if gshape == tuple(shape):
        return g
    lead = len(gshape) - len(shape)
    if lead < 0:
        raise _Fallback
    if lead:
        g = reduce_sum(g, axis=list(range(lead)))
    ones = [i for i, n in enumerate(shape) if n == 1 and g._data.shape[i] != 1]
    if ones:
        g = reduce_sum(g, axis=ones, keepdim=True)
    return g


def _emit_symbolic(block: Block, op: Operator, opdef, in_vars, out_vars, douts, edges) -> list:
    """Run the rule under the builder; raise _Fallback when it cannot be done with known shapes."""
    saved = {}
    for key, (kind, index) in opdef._save_index.items():
        saved[key] = in_vars[index] if kind == "input" else out_vars[index]
    node = _StaticNode(opdef, op.attrs, saved, edges,
                       [(v._data.shape, v._data.dtype) for v in in_vars],
                       [(v._data.shape, v._data.dtype) for v in out_vars])
    douts = [d if d is not None else zeros_like(block, o) for d, o in zip(douts, out_vars)]
    result = opdef.backward(node, *douts)
    if node.read_unknown_shape:
        raise _Fallback
    if type(result) is not tuple:
        result = (result,)
    grads = []
    from ..ops.elementwise import cast
    for pos, var in enumerate(in_vars):
        g = result[pos] if edges[pos] is not None and pos < len(result) else None
        if g is not None:
            g = builder.as_variable(block, g)
            g = _sum_to_shape(g, var._data.shape)
            if g._data.dtype != var._data.dtype:
                g = cast(g, var._data.dtype)
        grads.append(g)
    return grads


def _emit_runtime_rule(block: Block, op: Operator, opdef, in_vars, out_vars, douts, edges) -> list:
    """One `backward_rule` op that runs the eager rule when the Executor reaches it."""
    program = block.program
    grads, grad_names = [], []
    for pos, var in enumerate(in_vars):
        if edges[pos] is None:
            grads.append(None)
            grad_names.append("")
            continue
        g = block.create_var(program._unique_name(f"{var.name}@GRAD"), var._data.shape, var._data.dtype,
                             stop_gradient=False)
        grads.append(g)
        grad_names.append(g.name)
    block.append_op("backward_rule",
                    {"X": [v.name for v in in_vars], "Out": [v.name for v in out_vars],
                     "OutGrad": [d.name if d is not None else "" for d in douts]},
                    {"XGrad": grad_names}, {"forward_type": op.type, "forward_attrs": dict(op.attrs)},
                    source=op.source, role="backward")
    return grads


def _emit_op_grad(block: Block, op: Operator, douts: list, edges: list) -> list:
    opdef = get_op(op.type)
    in_names, out_names = _in_out_names(op, opdef)
    in_vars = [block._find_var_recursive(n) for n in in_names]
    out_vars = [block._find_var_recursive(n) for n in out_names]
    n_ops, n_vars = len(block.ops), len(block.vars)
    try:
        return _emit_symbolic(block, op, opdef, in_vars, out_vars, douts, edges)
    except Exception:  # noqa: BLE001 - anything the rule cannot do symbolically runs eagerly at run time
        block._remove_ops(n_ops)
        for name in list(block.vars)[n_vars:]:
            del block.vars[name]
        return _emit_runtime_rule(block, op, opdef, in_vars, out_vars, douts, edges)


def _run_backward(block: Block, targets: list[Variable], seeds: list, no_grad: set, api: str) -> dict:
    """Emit grad ops for `targets` (seeded with `seeds`, None = ones); return name -> [grad Variable]."""
    grads: dict = {}
    with builder.block_guard(block.program, block), builder.op_role("backward"):
        for t, seed in zip(targets, seeds):
            if seed is None:
                seed = builder.fill_constant(block, t._data.shape, t._data.dtype, 1.0,
                                             name=block.program._unique_name(f"{t.name}@GRAD"), like=t)
            grads.setdefault(t.name, []).append(seed)
    _backward_ops(block, block, grads, [t.name for t in targets], no_grad, api)
    return grads


def _backward_ops(src: Block, dest: Block, grads: dict, target_names: list[str], no_grad: set, api: str) -> None:
    """Walk `src`'s ops the targets depend on, last first, appending their grad ops to `dest`
    (`src` itself, or a grad sub-block of a control-flow op); `grads` maps name -> [grad Variable]."""
    with builder.block_guard(dest.program, dest), builder.op_role("backward"):
        for i in _relevant_ops(src, target_names):
            op = src.ops[i]
            if not any(n in grads for n in op.output_names()) or op.type in CONSTANT_OPS:
                continue
            if op.type == "cond":
                pairs = control_flow_grad.emit_cond_grad(dest, op, grads, no_grad, api, _backward_ops)
            elif op.type == "while":
                pairs = control_flow_grad.emit_while_grad(dest, op, grads, no_grad, api, _backward_ops)
            elif op.type == "backward_rule":
                pairs = _emit_backward_rule_grad(dest, op, grads, no_grad)
            elif op.type in STATIC_OPS or op.sub_blocks:
                raise unimplemented(api, f"op '{op.type}' has no static backward: it is a run-time "
                                         f"{'grad' if op.role == 'backward' else op.role} op, and differentiating "
                                         "it again (double grad through it) is not supported.",
                                    hint="differentiate the forward program only; double grad works through "
                                         "symbolic grad ops (shapes known at build time).")
            else:
                pairs = _regular_op_grad(dest, op, grads, no_grad)
            for n, g in pairs:
                grads.setdefault(n, []).append(g)


def _regular_op_grad(dest: Block, op: Operator, grads: dict, no_grad: set) -> list:
    opdef = get_op(op.type)
    if opdef.backward is None:
        return []
    in_names, out_names = _in_out_names(op, opdef)
    edges = []
    for pos, n in enumerate(in_names):
        v = dest._find_var_recursive(n)
        ok = pos in opdef.differentiable_inputs and not v.stop_gradient and n not in no_grad
        edges.append(True if ok else None)
    if all(e is None for e in edges):
        return []
    douts = [total_grad(dest, grads, n) for n in out_names]
    return [(n, g) for n, g in zip(in_names, _emit_op_grad(dest, op, douts, edges)) if g is not None]


def _named_grad(block: Block, grads: dict, name: str, claimed: set, forward_names: set) -> Variable | None:
    """The gradient of `name`, named `name@GRAD` (renamed when it is a fresh temp, else assigned)."""
    with builder.block_guard(block.program, block), builder.op_role("backward"):
        g = total_grad(block, grads, name)
        if g is None:
            return None
        wanted = f"{name}@GRAD"
        if g.name == wanted:
            return g
        if g.name in claimed or g.name in forward_names:
            from ..ops.elementwise import assign
            g = assign(g)
        if wanted in block.vars:  # a second append_backward on the same program
            wanted = block.program._unique_name(wanted)
        block._rename_var(g.name, wanted)
        claimed.add(wanted)
        grads[name] = [g]
        return g


def _target_block(api: str, targets: list) -> Block:
    for t in targets:
        if not isinstance(t, Variable):
            raise invalid_argument(api, f"got a {type(t).__name__}, expected a static Variable.",
                                   hint="in eager mode use loss.backward() or paddle.grad().")
    block = targets[0].block
    if block.idx != 0:
        raise unimplemented(api, "the target is inside a control-flow sub-block; differentiate a variable of "
                                 "the global block.")
    return block


def append_backward(loss: Variable, parameter_list=None, no_grad_set=None, callbacks=None,
                    checkpoints=None, distop_context=None) -> list[tuple[Variable, Variable]]:
    """Append the grad ops of `loss` to its program; return [(parameter, parameter@GRAD)].

    `parameter_list` (Variables or names) limits which parameters are returned (default: every
    trainable parameter the loss depends on); nothing flows through `no_grad_set`.
    """
    block = _target_block("append_backward", [loss])
    forward_names = set(block.vars)
    no_grad = set(var_names("append_backward", "no_grad_set", no_grad_set or ()))
    grads = _run_backward(block, [loss], [None], no_grad, "append_backward")
    if parameter_list is None:
        params = [v for v in block.program.all_parameters() if not v.stop_gradient]
    else:
        params = []
        for p in parameter_list:
            name = p if isinstance(p, str) else getattr(p, "name", None)
            params.append(block.var(name))
    claimed: set = set()
    out = []
    for p in params:
        g = _named_grad(block, grads, p.name, claimed, forward_names)
        if g is not None:
            out.append((p, g))
    return out


def gradients(targets, inputs, target_gradients=None, no_grad_set=None) -> list:
    """Grad Variables of `inputs` (one per input, None where unreachable) for sum(targets * target_gradients)."""
    targets = list(targets) if isinstance(targets, (list, tuple)) else [targets]
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    block = _target_block("gradients", targets + inputs)
    if target_gradients is None:
        seeds = [None] * len(targets)
    else:
        seeds = list(target_gradients) if isinstance(target_gradients, (list, tuple)) else [target_gradients]
        if len(seeds) != len(targets):
            raise invalid_argument("gradients", f"got {len(seeds)} target_gradients for {len(targets)} targets.")
    forward_names = set(block.vars)
    no_grad = set(var_names("gradients", "no_grad_set", no_grad_set or ()))
    grads = _run_backward(block, targets, seeds, no_grad, "gradients")
    claimed: set = set()
    return [_named_grad(block, grads, x.name, claimed, forward_names) for x in inputs]


# ---- the run-time rule ------------------------------------------------------------------------
class _RuntimeNode(BackwardContext):
    """A backward rule's `ctx` in a `backward_rule` op, holding concrete Tensors: the eager rule runs on
    it unchanged. `edges` holds, per input, None where no gradient is wanted."""

    def __init__(self, opdef, attrs, saved, edges, input_metas, out_metas) -> None:
        self.__dict__.update(opdef.attr_defaults)
        self.__dict__.update(attrs)
        self.__dict__.update(saved)
        self.op, self.attrs, self.saved = opdef, attrs, saved
        self._wanted = [edge is not None for edge in edges]
        self.input_metas, self.out_metas = input_metas, out_metas

    @property
    def name(self) -> str:
        return f"{self.op.name}_grad"

    def needs_grad(self, i: int) -> bool:
        return self._wanted[i]


def _apply_rule(op: Operator, grad_names: list[str], xs: list, outs: list, douts: list) -> list:
    """Run the forward op's eager rule on Tensors `xs`, `outs`, `douts`; one gradient Tensor (or None)
    per input with a name in `grad_names`, summed to the input's shape and cast to its dtype."""
    from ..autograd.engine import _sum_to_shape as eager_sum_to_shape
    from ..ops.elementwise import cast
    opdef = get_op(op.attrs["forward_type"])
    saved = {}
    for key, (kind, index) in opdef._save_index.items():
        saved[key] = xs[index] if kind == "input" else outs[index]
    node = _RuntimeNode(opdef, op.attrs["forward_attrs"], saved, [True if n else None for n in grad_names],
                        [(a._data.shape, a._data.dtype) for a in xs], [(a._data.shape, a._data.dtype) for a in outs])
    result = opdef.backward(node, *douts)
    if type(result) is not tuple:
        result = (result,)
    grads = []
    for pos, name in enumerate(grad_names):
        g = result[pos] if name and pos < len(result) else None
        if g is not None:
            want = xs[pos]._data
            if g._data.shape != want.shape:
                g = eager_sum_to_shape(opdef.name, g, want.shape)
            if g._data.dtype != want.dtype:
                g = cast(g, want.dtype)
        grads.append(g)
    return grads


@static_op("backward_rule")
def run_backward_rule(executor, op: Operator, env: dict) -> None:
    from ..tensor import Tensor
    xs = [Tensor._wrap(env[n]) for n in op.inputs["X"]]
    outs = [Tensor._wrap(env[n]) for n in op.inputs["Out"]]
    douts = [Tensor._wrap(env[n] if n else arrays.zeros_like(o._data))
             for n, o in zip(op.inputs["OutGrad"], outs)]
    for name, x, g in zip(op.outputs["XGrad"], xs, _apply_rule(op, op.outputs["XGrad"], xs, outs, douts)):
        if name:
            env[name] = arrays.zeros_like(x._data) if g is None else g._data


# ---- double grad through a run-time rule ------------------------------------------------------
_RULE_SLOTS = ("X", "Out", "OutGrad")


def _emit_backward_rule_grad(dest: Block, op: Operator, grads: dict, no_grad: set) -> list:
    """A `backward_rule_grad` op: at run time it replays the rule under eager autograd and
    differentiates it (the rule is written with minipaddle ops, so it is differentiable)."""
    ddx = [total_grad(dest, grads, n) if n else None for n in op.outputs["XGrad"]]
    if all(d is None for d in ddx):
        return []
    wrt = {slot: [n if n and wants_grad(dest, n, no_grad) else "" for n in op.inputs[slot]] for slot in _RULE_SLOTS}
    if not any(n for names in wrt.values() for n in names):
        return []
    pairs, outs = [], {}
    for slot in _RULE_SLOTS:
        outs[slot + "@GRAD"] = []
        for n in wrt[slot]:
            if not n:
                outs[slot + "@GRAD"].append("")
                continue
            v = dest._find_var_recursive(n)
            g = dest.create_var(dest.program._unique_name(f"{n}@GRAD"), v._data.shape, v._data.dtype,
                                stop_gradient=False)
            outs[slot + "@GRAD"].append(g.name)
            pairs.append((n, g))
    inputs = {slot: list(op.inputs[slot]) for slot in _RULE_SLOTS}
    inputs["XGradGrad"] = [d.name if d is not None else "" for d in ddx]
    dest.append_op("backward_rule_grad", inputs, outs, dict(op.attrs, x_grads=list(op.outputs["XGrad"])),
                   source=op.source, role="backward")
    return pairs


@static_op("backward_rule_grad")
def run_backward_rule_grad(executor, op: Operator, env: dict) -> None:
    from ..autograd import grad as eager_grad
    from ..thread_modes import modes
    from ..tensor import Tensor
    tensors = {}
    for slot in _RULE_SLOTS:
        tensors[slot] = []
        for n, g in zip(op.inputs[slot], op.outputs[slot + "@GRAD"]):
            t = Tensor._wrap(env[n]) if n else None
            if t is not None:
                t.stop_gradient = not g
            tensors[slot].append(t)
    outs = tensors["Out"]
    douts = [t if t is not None else Tensor._wrap(arrays.zeros_like(o._data))
             for t, o in zip(tensors["OutGrad"], outs)]
    prev, modes.grad_enabled = modes.grad_enabled, True
    try:
        results = _apply_rule(op, op.attrs["x_grads"], tensors["X"], outs, douts)
        pairs = [(r, env[d]) for r, d in zip(results, op.inputs["XGradGrad"])
                 if r is not None and d and not r.stop_gradient]  # a rule result may not depend on them
        wrt = [(t, g) for slot in _RULE_SLOTS for t, g in zip(tensors[slot], op.outputs[slot + "@GRAD"]) if g]
        got = eager_grad([r for r, _ in pairs], [t for t, _ in wrt], [Tensor._wrap(d) for _, d in pairs],
                         allow_unused=True) if pairs else [None] * len(wrt)
    finally:
        modes.grad_enabled = prev
    for (t, name), g in zip(wrt, got):
        env[name] = arrays.zeros_like(t._data) if g is None else g._data
