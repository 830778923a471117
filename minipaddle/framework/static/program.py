"""The static IR, after Paddle's ProgramDesc: Program -> Blocks -> Operators and Variables.

A `Program` is plain data: a list of `Block`s (block 0 is the global block; control-flow ops
own sub-blocks that name their parent). A block holds `Variable`s by name and an ordered list of
`Operator`s. An operator names the op it runs (`type`, a registry op or a static-only op such as
`cond`), its input and output *slots* (slot name -> list of variable names), its attributes and,
for control flow, the indices of its sub-blocks. Because ops refer to variables only by name,
a pass is a plain `Program -> Program` function and `program.clone()` is a deep copy of data.

    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [None, 4], "float32")
        y = paddle.nn.functional.relu(x)
    print(main)
"""
from __future__ import annotations

import copy
import math
from typing import Any, Iterable

import numpy as np

from ..errors import invalid_argument, not_found, precondition_not_met
from ..tensor import Tensor

# ---- Variables --------------------------------------------------------------------------


class VarMeta:
    """What a Variable's `_data` is in a Program: a shape (-1 for unknown dims) and a dtype.

    Op APIs and `infer_meta` functions read `x._data.shape` / `.dtype` / `.ndim`; a VarMeta
    answers those like an array would, so the same op code builds Programs.
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: Iterable[int], dtype) -> None:
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return -1 if -1 in self.shape else int(math.prod(self.shape))

    base = None  # never a view of another array (manipulation.view_of asks)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-D variable")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"VarMeta({list(self.shape)}, {self.dtype})"

    def _no_values(self, *args, **kwargs):
        raise precondition_not_met("static", "a Variable in a static Program has no values while the program "
                                             "is being built.",
                                   hint="run the program with paddle.static.Executor and fetch the variable.")

    __array__ = tolist = item = copy = astype = reshape = _no_values


class Variable(Tensor):
    """A named value in a Block: shape (-1 = unknown), dtype, persistable, stop_gradient.

    A Variable is a Tensor to the op library (so `x + y`, `x @ w`, `x[0]`, `paddle.mean(x)` build
    ops), but it holds no values: the Executor computes them.
    """

    def __init__(self, block: "Block", name: str, shape, dtype, persistable: bool = False,
                 stop_gradient: bool = True, is_data: bool = False, is_parameter: bool = False) -> None:
        self._data = VarMeta(shape, dtype)
        self._name = name
        self.block = block
        self.persistable = bool(persistable)
        self.stop_gradient = bool(stop_gradient)
        self.is_data = bool(is_data)
        self.is_parameter = bool(is_parameter)
        self.optimize_attr = {"learning_rate": 1.0}
        self.regularizer = None
        self.need_clip = True

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self.block._rename_var(self._name, value)

    @property
    def trainable(self) -> bool:
        return not self.stop_gradient

    @property
    def program(self) -> "Program":
        return self.block.program

    def numpy(self):
        self._data._no_values()

    def item(self, *index):
        self._data._no_values()

    def __array__(self, dtype=None, copy=None):
        self._data._no_values()

    def __float__(self) -> float:
        self._data._no_values()

    def __bool__(self) -> bool:
        raise precondition_not_met(
            "static", f"the truth value of Variable '{self._name}' is unknown while the program is built.",
            hint="use paddle.static.nn.cond(pred, true_fn, false_fn) for a branch on a Variable.")

    def backward(self, grad_tensor=None, retain_graph: bool = False) -> None:
        raise precondition_not_met("backward", "a static Variable has no eager graph.",
                                   hint="use paddle.static.append_backward(loss) or optimizer.minimize(loss).")

    def to_dict(self) -> dict:
        return {"name": self._name, "shape": list(self._data.shape), "dtype": str(self._data.dtype),
                "persistable": self.persistable, "stop_gradient": self.stop_gradient, "is_data": self.is_data,
                "is_parameter": self.is_parameter}

    def __repr__(self) -> str:
        flags = [f for f, on in (("persistable", self.persistable), ("data", self.is_data),
                                 ("param", self.is_parameter), ("stop_gradient", self.stop_gradient)) if on]
        return f"var {self._name} : {self._data.dtype}{list(self._data.shape)}" + (
            f"  ({', '.join(flags)})" if flags else "")

    __str__ = __repr__


# ---- Operators ---------------------------------------------------------------------------


def var_names(api: str, what: str, items) -> list[str]:
    """The names in `items` (a Variable, a name, or a list of them); anything else is an error."""
    if isinstance(items, (Variable, str)):
        items = [items]
    out = []
    for item in items:
        if isinstance(item, Variable):
            out.append(item.name)
        elif isinstance(item, str):
            out.append(item)
        else:
            raise invalid_argument(api, f"{what} holds a {type(item).__name__}, expected Variables or their names.")
    return out


class Operator:
    """One op in a Block: type, slots of variable names, attrs, sub-blocks, the user's source line."""

    def __init__(self, block: "Block", type: str, inputs: dict[str, list[str]], outputs: dict[str, list[str]],  # noqa: A002
                 attrs: dict | None = None, sub_blocks: Iterable[int] = (), source: str | None = None,
                 role: str = "forward") -> None:
        self.block = block
        self.type = type
        self.inputs = {k: list(v) for k, v in inputs.items()}
        self.outputs = {k: list(v) for k, v in outputs.items()}
        self.attrs = dict(attrs or {})
        self.sub_blocks = list(sub_blocks)
        self.source = source
        self.role = role   # "forward" | "backward" | "optimize": what built it (Paddle's op_role)

    def input_names(self) -> list[str]:
        return [n for names in self.inputs.values() for n in names if n]

    def output_names(self) -> list[str]:
        return [n for names in self.outputs.values() for n in names if n]

    def input(self, slot: str) -> list[str]:
        return self.inputs[slot]

    def output(self, slot: str) -> list[str]:
        return self.outputs[slot]

    def attr(self, name: str):
        return self.attrs[name]

    def _rename(self, old: str, new: str) -> None:
        for slots in (self.inputs, self.outputs):
            for names in slots.values():
                for i, n in enumerate(names):
                    if n == old:
                        names[i] = new

    def to_dict(self) -> dict:
        return {"type": self.type, "inputs": self.inputs, "outputs": self.outputs,
                "attrs": {k: encode_attr(self.type, k, v) for k, v in self.attrs.items()},
                "sub_blocks": self.sub_blocks, "source": self.source, "role": self.role}

    def __repr__(self) -> str:
        outs = ", ".join(f"{k}={v}" for k, v in self.outputs.items())
        ins = ", ".join(f"{k}={v}" for k, v in self.inputs.items())
        shown = {k: _short(v) for k, v in self.attrs.items()}
        attrs = ", ".join(f"{k}={v}" for k, v in shown.items())
        text = f"{{{outs}}} = {self.type}(inputs={{{ins}}}"
        if attrs:
            text += f", {attrs}"
        if self.sub_blocks:
            text += f", sub_blocks={self.sub_blocks}"
        return text + ")"

    __str__ = __repr__


def _short(value) -> str:
    if isinstance(value, np.dtype):
        return str(value)
    if isinstance(value, np.ndarray):
        if value.size <= 8:
            return np.array2string(value, separator=", ")
        return f"<ndarray {value.dtype}{list(value.shape)}>"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---- Blocks ------------------------------------------------------------------------------


class Block:
    """Variables by name and an ordered op list; `parent_idx` links a sub-block to its parent (-1: none)."""

    def __init__(self, program: "Program", idx: int, parent_idx: int = -1) -> None:
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.vars: dict[str, Variable] = {}
        self.ops: list[Operator] = []

    @property
    def parent_block(self) -> "Block | None":
        return None if self.parent_idx < 0 else self.program.blocks[self.parent_idx]

    def var(self, name: str) -> Variable:
        """The variable `name` in this block (not its parents), or a NotFound error."""
        if not isinstance(name, str):
            raise invalid_argument("Block.var", f"name must be a str, got {type(name).__name__}.")
        v = self.vars.get(name)
        if v is None:
            raise not_found("Block.var", f"block {self.idx} has no variable {name!r}.",
                            hint=f"it has {len(self.vars)} variables; see block.vars.")
        return v

    def has_var(self, name: str) -> bool:
        return name in self.vars

    def _find_var_recursive(self, name: str) -> Variable | None:
        block: Block | None = self
        while block is not None:
            v = block.vars.get(name)
            if v is not None:
                return v
            block = block.parent_block
        return None

    def create_var(self, name: str, shape, dtype, **flags) -> Variable:
        v = Variable(self, name, shape, dtype, **flags)
        self.vars[name] = v
        self.program._bump()
        return v

    def create_parameter(self, name: str, shape, dtype, trainable: bool = True) -> Variable:
        return self.create_var(name, shape, dtype, persistable=True, stop_gradient=not trainable,
                               is_parameter=True)

    def append_op(self, type: str, inputs: dict, outputs: dict, attrs: dict | None = None,  # noqa: A002
                  sub_blocks: Iterable[int] = (), source: str | None = None, role: str = "forward") -> Operator:
        op = Operator(self, type, inputs, outputs, attrs, sub_blocks, source, role)
        self.ops.append(op)
        self.program._bump()
        return op

    def _remove_ops(self, start: int, end: int | None = None) -> None:
        del self.ops[start:end]
        self.program._bump()

    def _rename_var(self, old: str, new: str) -> None:
        if old == new:
            return
        if new in self.vars:
            raise invalid_argument("rename", f"block {self.idx} already has a variable {new!r}.")
        v = self.vars.pop(old)
        v._name = new
        self.vars[new] = v
        for block in self.program.blocks:
            for op in block.ops:
                op._rename(old, new)
        self.program._bump()

    def all_parameters(self) -> list[Variable]:
        return [v for v in self.vars.values() if v.is_parameter]

    def to_string(self) -> str:
        head = f"block {self.idx}" + (f" (parent {self.parent_idx})" if self.parent_idx >= 0 else "") + " {"
        lines = [head]
        lines += [f"  {v!r}" for v in self.vars.values()]
        if self.vars and self.ops:
            lines.append("")
        lines += [f"  {op!r}" for op in self.ops]
        lines.append("}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_string()


# ---- Programs ----------------------------------------------------------------------------


class Program:
    """A whole static graph: `blocks[0]` is the global block; control flow adds sub-blocks."""

    def __init__(self) -> None:
        self.blocks: list[Block] = [Block(self, 0)]
        self.current_block_idx = 0
        self.random_seed = 0
        self._version = 0            # bumped on every change: the Executor re-plans when it moves
        self._name_counter = 0
        self._lr_sources: list = []  # (optimizer, lr var name): the Executor writes the current lr each run
        self._is_test = False

    def _bump(self) -> None:
        self._version += 1

    def global_block(self) -> Block:
        return self.blocks[0]

    def current_block(self) -> Block:
        return self.blocks[self.current_block_idx]

    def block(self, index: int) -> Block:
        return self.blocks[index]

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    def _create_block(self, parent_idx: int | None = None) -> Block:
        parent = self.current_block_idx if parent_idx is None else parent_idx
        block = Block(self, len(self.blocks), parent)
        self.blocks.append(block)
        self.current_block_idx = block.idx
        self._bump()
        return block

    def _unique_name(self, prefix: str) -> str:
        """A name no block of this program uses yet: `relu_0.tmp_0` style."""
        while True:
            name = f"{prefix}.tmp_{self._name_counter}"
            self._name_counter += 1
            if all(name not in b.vars for b in self.blocks):
                return name

    def all_parameters(self) -> list[Variable]:
        return self.global_block().all_parameters()

    def list_vars(self):
        for block in self.blocks:
            yield from block.vars.values()

    def num_ops(self) -> int:
        return sum(len(b.ops) for b in self.blocks)

    # ---- the values of its persistable variables (they live in a Scope) -------------------------
    def state_dict(self, mode: str = "all", scope=None) -> dict:
        """{name: value} of the persistable variables: mode 'param' (parameters), 'opt' (optimizer
        state, learning rate) or 'all'. Values are the scope's own (`np.array(v)` reads one), so they
        show later training, as Paddle's do."""
        from .executor import global_scope
        if mode not in ("all", "param", "opt"):
            raise invalid_argument("Program.state_dict", f"mode must be 'all', 'param' or 'opt', got {mode!r}.")
        scope = scope or global_scope()
        found = scope.values()
        for opt, lr_name in self._lr_sources:   # the lr the Executor writes on each run: the optimizer's now
            if lr_name not in found:
                scope._set(lr_name, np.array(opt.get_lr(), dtype=np.float64))
                found[lr_name] = True
        out = {}
        for var in self.list_vars():
            if not var.persistable or (mode == "param" and not var.is_parameter) or (
                    mode == "opt" and var.is_parameter):
                continue
            if var.name not in found:
                raise precondition_not_met("Program.state_dict", f"persistable variable {var.name!r} has no value "
                                                                 "in the scope.",
                                           hint="run the startup program with an Executor first.")
            out[var.name] = scope.find_var(var.name).get_tensor()
        return out

    def set_state_dict(self, state_dict: dict, scope=None) -> None:
        """Set persistable variables from {name: value} (Tensors, numpy arrays or what state_dict gave).
        Every value is checked against its variable (dtype, shape) before any is set."""
        from .executor import global_scope
        from .io import check_value
        api = "Program.set_state_dict"
        if not isinstance(state_dict, dict):
            raise invalid_argument(api, f"state_dict must be a dict of name -> value, got {type(state_dict).__name__}.")
        gb = self.global_block()
        checked = {}
        for name, value in state_dict.items():
            var = gb.vars.get(name)
            if var is None or not var.persistable:
                raise not_found(api, f"the program has no persistable variable {name!r}.",
                                hint="keys are variable names, as program.state_dict() lists them.")
            array = np.array(value._data if isinstance(value, Tensor) else value)
            checked[name] = check_value(api, var, array, f"state_dict[{name!r}]").copy()
        scope = scope or global_scope()
        for name, array in checked.items():
            scope._set(name, array)

    # ---- copies and text ------------------------------------------------------------------
    def clone(self, for_test: bool = False) -> "Program":
        """A deep copy (variables and ops are data). for_test=True drops backward and optimizer ops
        and switches training-only ops (dropout, batch_norm) to inference, as Paddle's clone does."""
        new = Program.from_dict(self.to_dict(encode=False), _decode=False)
        new.random_seed = self.random_seed
        new._lr_sources = list(self._lr_sources)
        if for_test:
            new._is_test = True
            for block in new.blocks:
                block.ops = [op for op in block.ops if op.role == "forward"]
                for op in block.ops:
                    if op.type == "dropout":
                        _dropout_for_test(op)
                    if "training" in op.attrs:
                        op.attrs["training"] = False
                    if "is_test" in op.attrs:
                        op.attrs["is_test"] = True
                    for flag in ("save_scope", "save_step_scopes"):  # no grad op will read them
                        if flag in op.attrs:
                            op.attrs[flag] = False
            new._lr_sources = []
        return new

    def to_string(self, throw_on_error: bool = True, with_details: bool = False) -> str:
        return "\n".join(b.to_string() for b in self.blocks)

    def __repr__(self) -> str:
        return self.to_string()

    __str__ = __repr__

    def to_dict(self, encode: bool = True) -> dict:
        """The program as JSON-able data (attrs encoded so dtypes, tuples, slices, arrays survive)."""
        blocks = []
        for b in self.blocks:
            ops = [op.to_dict() if encode else _raw_op_dict(op) for op in b.ops]
            blocks.append({"idx": b.idx, "parent_idx": b.parent_idx,
                           "vars": [v.to_dict() | {"optimize_attr": dict(v.optimize_attr), "need_clip": v.need_clip}
                                    for v in b.vars.values()],
                           "ops": ops})
        return {"format": "minipaddle.program", "version": 1, "blocks": blocks}

    @classmethod
    def from_dict(cls, data: dict, _decode: bool = True) -> "Program":
        """Rebuild a Program from `to_dict()`'s data; a clear error if it is not such data."""
        if not isinstance(data, dict) or data.get("format") != "minipaddle.program":
            raise invalid_argument("Program.from_dict", "the data is not a minipaddle program "
                                                        "(no 'format': 'minipaddle.program' key).")
        prog = cls()
        prog.blocks = []
        try:
            for bd in data["blocks"]:
                block = Block(prog, int(bd["idx"]), int(bd["parent_idx"]))
                for vd in bd["vars"]:
                    v = Variable(block, vd["name"], vd["shape"], vd["dtype"], vd["persistable"], vd["stop_gradient"],
                                 vd.get("is_data", False), vd.get("is_parameter", False))
                    v.optimize_attr = dict(vd.get("optimize_attr", {"learning_rate": 1.0}))
                    v.need_clip = vd.get("need_clip", True)
                    block.vars[v.name] = v
                for od in bd["ops"]:
                    attrs = od["attrs"]
                    if _decode:
                        attrs = {k: decode_attr(a) for k, a in attrs.items()}
                    else:
                        attrs = copy.deepcopy(attrs)
                    block.ops.append(Operator(block, od["type"], od["inputs"], od["outputs"], attrs,
                                              od.get("sub_blocks", ()), od.get("source"), od.get("role", "forward")))
                prog.blocks.append(block)
        except (KeyError, TypeError, ValueError) as e:
            raise invalid_argument("Program.from_dict", f"the program data is malformed ({type(e).__name__}: {e}).",
                                   hint="the file may be corrupted or written by another tool.") from None
        if not prog.blocks:
            raise invalid_argument("Program.from_dict", "the program data has no blocks.")
        prog._name_counter = sum(len(b.vars) for b in prog.blocks)
        return prog


def _dropout_for_test(op: Operator) -> None:
    """Dropout at inference, as Paddle's is_test dropout: the identity ('upscale_in_train', the default)
    or x * (1 - p) ('downscale_in_infer'); its mask (read only by the gradient) goes."""
    keep = 1.0 if op.attrs.get("mode", "upscale_in_train") == "upscale_in_train" else 1.0 - float(op.attrs["p"])
    op.type = "scale"
    op.outputs = {"out": op.outputs["out"]}
    op.attrs = {"scale": keep, "bias": 0.0, "bias_after_scale": True}


def _raw_op_dict(op: Operator) -> dict:
    return {"type": op.type, "inputs": op.inputs, "outputs": op.outputs, "attrs": op.attrs,
            "sub_blocks": op.sub_blocks, "source": op.source, "role": op.role}


# ---- attribute encoding (JSON has no tuples, dtypes, slices or arrays) -------------------------


def encode_attr(op: str, name: str, value: Any):
    """An attribute as JSON data; tagged dicts keep what JSON would lose."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return f if math.isfinite(f) else {"__float__": repr(f)}
    if isinstance(value, tuple):
        return {"__tuple__": [encode_attr(op, name, v) for v in value]}
    if isinstance(value, list):
        return [encode_attr(op, name, v) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[encode_attr(op, name, k), encode_attr(op, name, v)] for k, v in value.items()]}
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return {"__dtype__": str(np.dtype(value))}
    if isinstance(value, np.ndarray):
        return {"__ndarray__": encode_attr(op, name, value.tolist()), "dtype": str(value.dtype),
                "shape": list(value.shape)}
    if isinstance(value, slice):
        return {"__slice__": [encode_attr(op, name, v) for v in (value.start, value.stop, value.step)]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    from ..dtype import DType
    if isinstance(value, DType):
        return {"__dtype__": str(value).replace("paddle.", "")}
    raise invalid_argument("Program.to_dict", f"op '{op}' has attribute {name!r} of type {type(value).__name__}, "
                                              "which cannot be written as JSON.",
                           hint="only numbers, strings, lists, tuples, dtypes, slices and arrays serialize.")


def decode_attr(value: Any):
    if isinstance(value, list):
        return [decode_attr(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__tuple__" in value:
        return tuple(decode_attr(v) for v in value["__tuple__"])
    if "__dict__" in value:
        return {decode_attr(k): decode_attr(v) for k, v in value["__dict__"]}
    if "__dtype__" in value:
        return np.dtype(value["__dtype__"])
    if "__ndarray__" in value:
        return np.array(decode_attr(value["__ndarray__"]), dtype=value["dtype"]).reshape(value["shape"])
    if "__slice__" in value:
        return slice(*(decode_attr(v) for v in value["__slice__"]))
    if "__ellipsis__" in value:
        return Ellipsis
    if "__float__" in value:
        return float(value["__float__"])
    raise invalid_argument("Program.from_dict", f"unknown attribute encoding {sorted(value)}.")

