"""Elementwise fusion: a DAG of elementwise ops becomes one `fused_elementwise` op whose kernels are
generated from the ops' scalar primitives: a numba loop for the CPU and a numba.cuda kernel for the GPU,
both written from the same description (the op's `steps`) by kernels/cpu/fused.py.

Unfused, `gelu(x * a) + b` makes three passes over memory and two temporaries; fused, each element
is loaded once, goes through multiply -> gelu -> add in registers, and is stored once. Ops group
when they are elementwise ops the generator knows (fused_codegen.RULES) -- except those whose SIMD numpy
kernel beats their scalar libm math in a loop (fused_codegen.SLOW_IN_LOOP: float64 exp, tanh, sigmoid, ...,
and log; float32 tanh, erf, exp, sigmoid, gelu have vectorizable math, fast_math.FAST_F32) -- produce the
same shape and float dtype, have the same role (forward / backward / optimize), and one reads another's result. The
fused op takes the place of the group's last op, so a group never grows past an outside op that
reads one of its results earlier; results read outside the group (or fetched) are the fused op's
outputs, the rest live only in registers. A 2-D `matmul` with a small contracted dim (K <= 16) whose
product only the group reads joins it too: the loop computes the product (kernels/cpu/fused_product.py),
so `relu_grad(h, dout @ W^T)` behind a 10-class output layer is one loop and not a GEMM call and a loop.

The fused op has no backward rule of its own: fusion runs on whole training programs, *after*
`append_backward` / `minimize` -- forward and backward ops alike are fused, each with its own role.
`append_backward` on a fused program gives a grad op that raises a clear error when it runs.

    fused, report = fuse_elementwise(main, fetch_list=[loss])
    op = next(op for op in fused.global_block().ops if op.type == "fused_elementwise")
    print(fused_source(op))          # the generated CPU loop
    print(fused_cuda_source(op))     # the generated CUDA kernel (writing it needs no GPU)
"""
from __future__ import annotations

import numpy as np

from ...errors import unimplemented
from ...kernels.cpu import fused_product
from ...kernels.cpu.fused import fused_cuda_source, fused_source, loop_shape, row_sum_shape
from ...kernels.cpu.fused_codegen import fusable_type, generate_cuda_source, generate_source, slow_in_loop
from ...kernels.cuda_registry import register_fused_elementwise
from ...registry import OPS, KernelKey, LazyKernel, add_kernel, get_op, new_meta, register_op, select_kernel
from ..program import Block, Operator, Program
from .common import (CONSTANT_OPS, block_fetched, fetch_names, is_persistable, op_reads, protected, prune_vars,
                     readers, run_pass, scalar_constant, writers)
from .epilogue import split_linear_bias
from .recompute import recompute_in_backward
from .report import PassReport, op_ref

FUSED_OP = "fused_elementwise"


# ---- the fused op in the registry: the Executor runs it like any op --------------------------
def fused_meta(*xs, kernel_name="", source="", cuda_source="", expression="", input_kinds=(), steps=(), outputs=(),
               dtype=None, row_sums=(), row_dims=1, row_axes=(), row_keepdim=False, product=()):
    shape = loop_shape(xs, input_kinds, product)
    shape = () if shape is None else tuple(shape)
    metas = [new_meta(shape, np.dtype(dtype)) for _ in outputs]
    metas += [new_meta(row_sum_shape(shape, row_dims, row_axes, row_keepdim), np.dtype(dtype)) for _ in row_sums]
    return metas[0] if len(metas) == 1 else tuple(metas)


def fused_grad(node, *douts):
    raise unimplemented(FUSED_OP, "a fused op has no backward rule: fusion runs after append_backward, "
                                  "on forward and backward ops alike.",
                        hint="call append_backward / minimize on the program before apply_passes.")


if FUSED_OP not in OPS:
    register_op(FUSED_OP, inputs=("X",), outputs=("Out",), infer_meta=fused_meta, backward=fused_grad,
                variadic=True, attrs={"kernel_name": (str, ""), "source": (str, ""), "cuda_source": (str, ""),
                                      "expression": (str, ""),
                                      "input_kinds": (list, []), "steps": (list, []), "outputs": (list, []),
                                      "dtype": (np.dtype, None), "row_sums": (list, []), "row_dims": (int, 1),
                                      "row_axes": (list, []), "row_keepdim": (bool, False), "product": (list, [])},
                doc="elementwise ops fused into one generated numba loop (static passes: fusion)")
    add_kernel(FUSED_OP, "cpu", ("float32", "float64"),
               LazyKernel("minipaddle.framework.kernels.cpu.fused:fused_elementwise_kernel"), name="numba")
    register_fused_elementwise()  # the GPU kernel (kernels/cuda/fused.py), named lazily: no numba.cuda import


# ---- grouping --------------------------------------------------------------------------------
def _input_kind(shape: tuple, out_shape: tuple) -> str | None:
    """'a': the output's own shape, 's': one element, 'r': a row repeated along the leading dims (a bias:
    read in place, x[j] in an inner loop), 'p': one value per channel, (C, 1, 1) against (N, C, H, W) (a
    conv bias: expanded to its row C x H x W, then read as a row), 'b': another broadcast (expanded
    first); None: cannot be fused."""
    if shape == out_shape:
        return "a"
    if len(shape) > len(out_shape):
        return None
    if -1 not in shape and int(np.prod(shape)) == 1:
        return "s"
    row = _without_leading_ones(shape)
    tail = out_shape[len(out_shape) - len(row):]
    if row and -1 not in row and len(row) < len(out_shape) and tail == row:
        return "r"
    if row and len(row) < len(out_shape) and -1 not in tail and row[0] == tail[0] and all(d == 1 for d in row[1:]):
        return "p"
    tail = out_shape[len(out_shape) - len(shape):]
    if all(d == 1 or (d == t and d != -1) for d, t in zip(shape, tail)):
        return "b"
    return None


def _signature(block: Block, written: dict, op: Operator) -> tuple | None:
    """(shape, dtype, role) of a fusable op, else None."""
    outs = op.output_names()
    if not fusable_type(op.type) or op.sub_blocks or len(outs) != 1 or len(written[outs[0]]) != 1:
        return None
    out = block._find_var_recursive(outs[0])
    if out is None or out.persistable or out._data.dtype.name not in ("float32", "float64"):
        return None
    shape, dtype = out._data.shape, out._data.dtype
    if slow_in_loop(op.type, dtype) and select_kernel(get_op(op.type), KernelKey("cpu", dtype)).name != "numba":
        return None  # numpy's SIMD kernel beats this op's scalar libm math in a loop (see fused_codegen.SLOW_IN_LOOP)
    for n in op.input_names():
        v = block._find_var_recursive(n)
        if v is None or v._data.dtype != dtype or _input_kind(v._data.shape, shape) is None:
            return None
    return (shape, dtype, op.role)


def _valid(members: set, p: int, ops: list, written: dict, read_by: dict) -> bool:
    """Can `members` run as one op at position p (the last member)?"""
    for m in members:
        for n in ops[m].output_names():
            if any(r not in members and r <= p for r in read_by.get(n, ())):
                return False  # an outside op reads this result before the fused op would run
        for n in ops[m].input_names():
            if any(m < w <= p and w not in members for w in written.get(n, ())):
                return False  # an input is written again between its reader and the fused op
    return True


def _groups(block: Block, written: dict, read_by: dict) -> list[list[int]]:
    ops = block.ops
    sig: dict[int, tuple] = {}
    group_of: dict[int, int] = {}
    groups: list[set] = []
    for i, op in enumerate(ops):
        s = _signature(block, written, op)
        if s is None:
            continue
        sig[i] = s
        cands = {group_of[w] for n in op.input_names() for w in written.get(n, ())
                 if w in group_of and sig[w] == s}
        chosen = None
        if cands and _valid(set().union(*(groups[g] for g in cands)) | {i}, i, ops, written, read_by):
            chosen = sorted(cands)
        else:
            chosen = next(([g] for g in sorted(cands) if _valid(groups[g] | {i}, i, ops, written, read_by)), None)
        if chosen:
            keep = chosen[0]
            for g in chosen[1:]:
                groups[keep] |= groups[g]
                for m in groups[g]:
                    group_of[m] = keep
                groups[g] = set()
            groups[keep].add(i)
            group_of[i] = keep
        else:
            group_of[i] = len(groups)
            groups.append({i})
    return [sorted(g) for g in groups if g]


# ---- building the fused op -------------------------------------------------------------------
def _fused_op(block: Block, members: list[int], written: dict, read_by: dict, fetched,
              inlined: set, min_ops: int, absorbed: list) -> Operator | None:
    ops = block.ops
    member_set = set(members)
    temps = {ops[m].output_names()[0]: f"t{j}" for j, m in enumerate(members)}
    shape = block._find_var_recursive(ops[members[-1]].output_names()[0])._data.shape
    inputs: list[str] = []
    steps = []
    for m in members:
        op = ops[m]
        args = []
        for n in op.input_names():   # (a product's operands stay arrays: no literal)
            value = None if n in temps or op.type == "matmul" else scalar_constant(block, written, n)
            if value is not None:  # a one-element constant becomes a literal in the loop
                args.append(f"={float(value)!r}")
                inlined.add(n)
            elif n not in temps:
                if n not in inputs:
                    inputs.append(n)
                args.append(f"x{inputs.index(n)}")
            else:
                args.append(temps[n])
        attrs = dict(get_op(op.type).attr_defaults, **op.attrs)
        steps.append({"type": op.type, "attrs": attrs, "args": args, "out": temps[op.output_names()[0]]})
    kinds = [_input_kind(block._find_var_recursive(n)._data.shape, shape) for n in inputs]
    product = _product(block, [ops[m] for m in members], inputs, kinds, shape)
    lengths = [_row_length(block._find_var_recursive(n)._data.shape, k, shape) for n, k in zip(inputs, kinds)]
    row = next((n for n in lengths if n), None)
    kinds = ["b" if n and n != row else k for k, n in zip(kinds, lengths)]  # one inner loop: others expanded
    if "a" not in kinds and not product:
        return None  # the loop takes its length from a full-size input (or the product's operands)
    outputs = [n for n in temps if (fetched is None and not read_by.get(n)) or (fetched and n in fetched)
               or any(r not in member_set for r in read_by.get(n, ()))]
    dtype = block._find_var_recursive(outputs[0] if outputs else inputs[0])._data.dtype
    if not outputs:
        return None
    stored = [temps[n] for n in outputs]
    last = ops[members[-1]]
    sums, row_dims, row_axes, keepdim = _row_sums(block, outputs, shape, members[-1], last.role, written, read_by)
    if sums and row and row != int(np.prod(shape[len(shape) - row_dims:])):
        sums = []  # one inner loop: a bias row of another length than the sums' rows
    if len(members) < min_ops and not sums:
        return None
    row_sums = [outputs.index(ops[i].input_names()[0]) for i in sums]
    kernel_name, source = generate_source(steps, kinds, stored, dtype, row_sums, product)
    _, cuda_source = generate_cuda_source(steps, kinds, stored, dtype, product)  # one description, two kernels
    expression = "; ".join(fused_product.expression(s["out"], s["args"], product) if s["type"] == "matmul" else
                           f"{s['out']} = {s['type']}({', '.join(a.lstrip('=') for a in s['args'])})" for s in steps)
    expression += "".join(f"; row_sum({stored[j]})" for j in row_sums)
    attrs = {"kernel_name": kernel_name, "source": source, "cuda_source": cuda_source, "expression": expression,
             "input_kinds": kinds, "steps": steps, "outputs": stored, "dtype": dtype}
    if product:
        attrs["product"] = product
    if sums:
        attrs.update(row_sums=row_sums, row_dims=row_dims, row_axes=row_axes, row_keepdim=keepdim)
        absorbed.extend(sums)
    outs = outputs + [ops[i].output_names()[0] for i in sums]
    return Operator(block, FUSED_OP, {"X": inputs}, {"Out": outs}, attrs, source=ops[members[0]].source,
                    role=last.role)


def _product(block: Block, members: list, inputs: list, kinds: list, shape: tuple) -> list:
    """[K, transpose_x, transpose_y] of the group's matmul (its operands' kinds set to 'L' and 'R' in
    `kinds`), or [] when the group has none."""
    op = next((op for op in members if op.type == "matmul"), None)
    if op is None:
        return []
    product = _skinny(block, op, shape)
    kinds[inputs.index(op.inputs["x"][0])], kinds[inputs.index(op.inputs["y"][0])] = "L", "R"
    return product


def _skinny(block: Block, op: Operator, shape: tuple) -> list | None:
    """[K, transpose_x, transpose_y] when `op` is a 2-D matmul of output `shape` whose contracted dim K
    is known and at most fused_product.SMALL_K, else None."""
    if op.type != "matmul" or len(shape) != 2 or shape[1] == -1:
        return None
    x, y, out = (block._find_var_recursive(n) for n in (op.inputs["x"][0], op.inputs["y"][0], op.output_names()[0]))
    if x is None or y is None or op.inputs["x"][0] == op.inputs["y"][0]:
        return None
    xs, ys = tuple(x._data.shape), tuple(y._data.shape)
    tx, ty = bool(op.attrs.get("transpose_x")), bool(op.attrs.get("transpose_y"))
    if len(xs) != 2 or len(ys) != 2 or tuple(out._data.shape) != tuple(shape) or \
            not x._data.dtype == y._data.dtype == out._data.dtype:
        return None
    k = xs[0] if tx else xs[1]
    if k == -1 or k > fused_product.SMALL_K or (ys[1] if ty else ys[0]) != k:
        return None
    return [int(k), tx, ty]


def _with_product(block: Block, members: list[int], written: dict, read_by: dict, fetched) -> list[int]:
    """`members` and the skinny matmul whose product only they read, where one can run in their loop."""
    ops = block.ops
    member_set, last = set(members), ops[members[-1]]
    out = block._find_var_recursive(last.output_names()[0])._data
    operands = {n for m in members for n in ops[m].input_names()}
    for n in sorted(operands):
        for w in written.get(n, ()):
            op = ops[w]
            if w in member_set or len(written[n]) != 1 or op.role != last.role or protected(block, n, fetched) or \
                    any(r not in member_set for r in read_by.get(n, ())) or set(op.input_names()) & operands or \
                    any(v in member_set for name in op.input_names() for v in written.get(name, ())):
                continue  # (its operands must come from outside the group: the loop reads them as inputs)
            if _skinny(block, op, out.shape) is not None and out.dtype == block._find_var_recursive(n)._data.dtype \
                    and _valid(member_set | {w}, members[-1], ops, written, read_by):
                return sorted(member_set | {w})
    return members


def _row_length(shape: tuple, kind: str, out_shape: tuple) -> int:
    """How long a row ('r') or plane ('p') input's row is in the loop (C x H x W for a conv bias); else 0."""
    if kind not in ("r", "p"):
        return 0
    return int(np.prod(out_shape[len(out_shape) - len(_without_leading_ones(shape)):]))


def _without_leading_ones(shape: tuple) -> tuple:
    """A row or plane input's own dims: (1, 1, 8) -> (8,), (1, 3, 1, 1) -> (3, 1, 1)."""
    row = tuple(shape)
    while row and row[0] == 1:
        row = row[1:]
    return row


def _row_sums(block: Block, outputs: list, shape: tuple, p: int, role: str, written: dict,
              read_by: dict) -> tuple[list[int], int, list[int], bool]:
    """The `sum` ops (their indices) over the leading dims of the fused op's outputs that it can compute in
    the same pass (a bias gradient); how many trailing dims the loop keeps (from the first axis a sum
    keeps: a row), which of those the sum reduces after the loop (a conv bias: H and W), and whether
    it keeps the reduced dims as 1s -- the same for all of them."""
    found, kept = [], None
    for name in outputs:
        for r in sorted(read_by.get(name, ())):
            op = block.ops[r]
            if r <= p or op.type != "sum" or op.role != role or not shape or \
                    op.attrs.get("dtype") not in (None, block._find_var_recursive(name)._data.dtype):
                continue
            axis = op.attrs.get("axis")
            axes = sorted({a % len(shape) for a in ((axis,) if isinstance(axis, int) else (axis or ()))})
            lead = next((k for k in range(len(shape)) if k not in axes), len(shape))
            within = [a - lead for a in axes if a > lead]
            if lead == 0 or lead == len(shape) or -1 in shape[lead:]:
                continue
            out = op.output_names()[0]
            how = (lead, within, bool(op.attrs.get("keepdim")))
            if kept not in (None, how) or len(written.get(out, ())) != 1 or is_persistable(block, out):
                continue
            kept = how
            found.append(r)
    return (found, len(shape) - kept[0], kept[1], kept[2]) if kept else ([], 1, [], False)


def _unread_constants(program: Program, block: Block, ops: list, inlined: set, fetched) -> set[int]:
    """ids of the constant ops whose values now live inside kernels and that nothing else reads."""
    still_read = {n for op in ops for n in op_reads(program, op)}
    gone = {n for n in inlined if n not in still_read and not protected(block, n, fetched)}
    return {id(op) for op in ops if op.type in CONSTANT_OPS and set(op.output_names()) <= gone}


def fuse_elementwise(program: Program, fetch_list=None, min_ops: int = 2) -> tuple[Program, PassReport]:
    """`program` with chains of elementwise ops fused into generated kernels; the input is unchanged."""
    return run_pass("fuse_elementwise", _fuse, program, fetch_names(fetch_list), min_ops=min_ops)


def _fuse(program: Program, report: PassReport, fetched, min_ops: int) -> None:
    fused: list = []
    recomputed: list = []
    epilogues: list = []
    products: list = []
    for block in program.blocks:  # sub-blocks too: a branch's or loop body's chains fuse the same way
        block_fetch = block_fetched(program, block, fetched)
        origin = {id(op): (i, op) for i, op in enumerate(block.ops)}  # the report names ops as the pass found them
        recomputed += recompute_in_backward(block, block_fetch)
        splits = split_linear_bias(block, block_fetch, _signature) if min_ops <= 2 else []  # (add + reader: 2 ops)
        for linear, _, bias_add in splits:
            origin[id(bias_add)] = origin[id(linear)]   # the linear is gone: its bias add fused, its product added
        epilogues += [linear.output_names()[0] for linear, _, _ in splits]
        fused += _fuse_block(program, block, report, block_fetch, min_ops, origin)
        ids = {id(product) for _, product, _ in splits}
        products += [op_ref(block.idx, j, op) for j, op in enumerate(block.ops) if id(op) in ids]
    report.fused = fused
    report.added = [f["into"] for f in fused] + products
    n_from = sum(len(f["from"]) for f in fused)
    in_loop = [f["kernel"] for f in fused if f["product"]]
    report.details = {"vars_removed": prune_vars(program), "kernels": [f["kernel"] for f in fused],
                      "recomputed": recomputed, "epilogues": epilogues, "products_in_loop": in_loop}
    report.summary = f"fused {n_from} op(s) into {len(fused)} generated kernel(s)"
    if products:  # (a split whose product a loop then took in is counted below instead)
        report.summary += f"; {len(products)} linear bias add(s) moved into the loop after the product"
    if in_loop:
        report.summary += (f"; {len(in_loop)} kernel(s) compute a matmul with K <= {fused_product.SMALL_K} "
                           "in the loop")
    if recomputed:
        report.summary += f"; the backward recomputes {len(recomputed)} cheap forward value(s) instead of keeping them"


def _fuse_block(program: Program, block: Block, report: PassReport, fetched, min_ops: int, origin: dict) -> list:
    written, read_by = writers(block), readers(block)
    replaced: dict[int, Operator] = {}
    dropped: set[int] = set()
    sources: dict[int, list[int]] = {}
    inlined: set[str] = set()
    for members in _groups(block, written, read_by):
        if any(is_persistable(block, n) for m in members for n in block.ops[m].output_names()):
            continue
        absorbed: list[int] = []  # sum ops over the group's results it computes in the same pass
        grown = _with_product(block, members, written, read_by, fetched)
        op = _fused_op(block, grown, written, read_by, fetched, inlined, min_ops, absorbed)
        if op is None and grown != members:  # (the group may still fuse without the product)
            absorbed, grown = [], members
            op = _fused_op(block, members, written, read_by, fetched, inlined, min_ops, absorbed)
        if op is None:
            continue
        members = grown
        replaced[members[-1]] = op
        dropped.update(members[:-1] + absorbed)
        sources[members[-1]] = members + absorbed
    old_ops = block.ops
    new_ops = [replaced.get(i, op) for i, op in enumerate(old_ops) if i not in dropped]
    unread = _unread_constants(program, block, new_ops, inlined, fetched)
    block.ops = [op for op in new_ops if id(op) not in unread]
    position = {id(op): j for j, op in enumerate(block.ops)}
    b = block.idx

    def found(ops) -> list:  # refs into the block as the pass found it (not the ops its first steps made)
        return [op_ref(b, *origin[id(op)]) for op in ops if id(op) in origin]
    fused = [{"into": op_ref(b, position[id(op)], op), "from": found(old_ops[m] for m in sources[i]),
              "expression": op.attrs["expression"], "kernel": op.attrs["kernel_name"],
              "product": op.attrs.get("product")}
             for i, op in sorted(replaced.items())]
    removed = {ref["index"]: ref for ref in [r for f in fused for r in f["from"]] +
               found(op for op in old_ops if id(op) in unread)}
    report.removed += [removed[i] for i in sorted(removed)]
    return fused


__all__ = ["fuse_elementwise", "fused_source", "fused_cuda_source", "FUSED_OP"]
