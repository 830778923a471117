"""paddle.einsum: Einstein summation, expanded into the ops you already know.

Like Paddle's PHI einsum, this has no kernel of its own. It works in three steps:

1. **parse** the equation into one list of labels per operand and one for the output
   (`'bij,bjk->bik'`; implicit output `'ij,jk'` = the labels seen once, sorted; `...` stands for
   broadcast dims; a label repeated in one operand, `'ii->i'`, takes a diagonal);
2. **plan**: check every label has one size across the operands (a size of 1 broadcasts);
3. **execute** with the functional ops: a diagonal is a transpose + reshape + strided slice, a
   label no one else needs is summed away, and two operands are contracted by one batched matmul
   after transposing each to [batch, free, contracted] and reshaping it to 3-D:

       'bij,bjk->bik'   matmul([b, i, j], [b, j, k])
       'ij,ij->'        matmul([ij], [ij])                      a dot product
       'bhqd,bhkd->bhqk'  transpose + reshape to [bh, q, d] @ [bh, d, k], reshape back

So the gradient of einsum is the gradient of those ops, and the debugger shows each of them.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import prod

from ..framework.errors import invalid_argument
from ..framework.ops.common import as_tensor
from ..framework.ops.linalg import matmul
from ..framework.ops.manipulation import broadcast_to, reshape, transpose
from ..framework.ops.reduction import sum
from ..framework.tensor import Tensor

ELLIPSIS_LABELS = "0123456789"   # stand-ins for the dims '...' covers (never letters, so they cannot clash)


# ---- 1. parse ----------------------------------------------------------------------
@dataclass(frozen=True)
class Equation:
    """The equation with every operand's dims labelled: inputs[i][d] is the label of dim d of operand i."""
    inputs: tuple[tuple[str, ...], ...]
    output: tuple[str, ...]


def _split_labels(term: str, where: str) -> tuple[list[str], list[str] | None]:
    """'ab...c' -> (['a', 'b'], ['c']): the labels before and after '...' (None after: no ellipsis)."""
    if term.count("...") > 1 or term.replace("...", "").count("."):
        raise invalid_argument("einsum", f"{where} {term!r} has a '.' outside a single '...'.")
    head, dots, tail = term.partition("...")
    for label in head + tail:
        if not label.isalpha():
            raise invalid_argument("einsum", f"{where} {term!r} has the character {label!r}; labels are letters.")
    return list(head), (list(tail) if dots else None)


@lru_cache(maxsize=256)   # a model calls the same few equations over and over
def parse(equation: str, ndims: tuple[int, ...]) -> Equation:
    """Label every dim of every operand and of the output (the ellipsis dims right-aligned)."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise invalid_argument("einsum", f"the equation {equation!r} names {len(terms)} operand(s) but "
                                         f"{len(ndims)} were given.")
    split = [_split_labels(term, f"operand {i}'s term") for i, term in enumerate(terms)]
    covered = []   # how many dims each operand's '...' stands for
    for i, ((head, tail), ndim) in enumerate(zip(split, ndims)):
        letters = len(head) + len(tail or [])
        if ndim < letters or (tail is None and ndim != letters):
            raise invalid_argument("einsum", f"operand {i} has {ndim} dims but its term {terms[i]!r} labels {letters}.")
        covered.append(ndim - letters)
    widest = max(covered)
    if widest > len(ELLIPSIS_LABELS):
        raise invalid_argument("einsum", f"'...' covers {widest} dims; at most {len(ELLIPSIS_LABELS)} are supported.")
    # right-aligned, as in broadcasting: an operand's '...' dims are the last ones of the widest '...'
    inputs = [head + list(ELLIPSIS_LABELS[widest - n:widest]) + (tail or []) for (head, tail), n in zip(split, covered)]
    broadcast = list(ELLIPSIS_LABELS[:widest])
    output = _explicit_output(rhs, broadcast, inputs) if arrow else _implicit_output(inputs, broadcast)
    return Equation(tuple(map(tuple, inputs)), tuple(output))


def _implicit_output(inputs: list[list[str]], broadcast: list[str]) -> list[str]:
    """No '->': the broadcast dims, then every letter that appears exactly once, in alphabetical order."""
    counts: dict[str, int] = {}
    for labels in inputs:
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
    return broadcast + sorted(label for label, n in counts.items() if n == 1 and label.isalpha())


def _explicit_output(rhs: str, broadcast: list[str], inputs: list[list[str]]) -> list[str]:
    head, tail = _split_labels(rhs, "the output")
    output = head + (broadcast if tail is not None else []) + (tail or [])
    seen = {label for labels in inputs for label in labels}
    for label in output:
        if output.count(label) > 1:
            raise invalid_argument("einsum", f"the output {rhs!r} names the label {label!r} twice.")
        if label not in seen:
            raise invalid_argument("einsum", f"the output label {label!r} is in no operand's term.")
    if tail is None and broadcast:
        raise invalid_argument("einsum", f"the operands have '...' dims but the output {rhs!r} has no '...'.",
                               hint="write '...' in the output, or sum those dims explicitly.")
    return output


# ---- 2. plan -----------------------------------------------------------------------
def label_sizes(eq: Equation, shapes: list[list[int]]) -> dict[str, int]:
    """Each label's size; the same label must have the same size everywhere (or 1, which broadcasts)."""
    sizes: dict[str, int] = {}
    first_seen: dict[str, str] = {}
    for i, (labels, shape) in enumerate(zip(eq.inputs, shapes)):
        for d, (label, size) in enumerate(zip(labels, shape)):
            known = sizes.get(label)
            if known is None or known == 1:
                sizes[label], first_seen[label] = size, f"operand {i} dim {d}"
            elif size not in (1, known):
                shown = "'...'" if label in ELLIPSIS_LABELS else f"'{label}'"
                raise invalid_argument("einsum", f"the label {shown} has size {known} in {first_seen[label]} "
                                                 f"but size {size} in operand {i} dim {d}.",
                                       hint="one label must have one size in every operand (or size 1).")
    return sizes


# ---- 3. execute --------------------------------------------------------------------
def permuted(x: Tensor, perm: list[int]) -> Tensor:
    """transpose, left out when it would not move anything (fewer nodes for the debugger to show)."""
    return x if perm == sorted(perm) else transpose(x, perm)


def reshaped(x: Tensor, shape: list[int]) -> Tensor:
    return x if list(x.shape) == list(shape) else reshape(x, shape)


def take_diagonal(x: Tensor, labels: list[str]) -> tuple[Tensor, list[str]]:
    """Fold every repeated label of one operand into one dim holding the diagonal ('ii' -> 'i')."""
    while len(set(labels)) < len(labels):
        label = next(lb for lb in labels if labels.count(lb) > 1)
        first, second = [d for d, lb in enumerate(labels) if lb == label][:2]
        others = [d for d in range(len(labels)) if d not in (first, second)]
        n = x.shape[first]
        x = permuted(x, others + [first, second])
        x = reshaped(x, [x.shape[d] for d in range(len(others))] + [n * n])
        x = x[..., ::n + 1]   # the flattened n x n block's diagonal: every (n + 1)-th element
        labels = [labels[d] for d in others] + [label]
    return x, labels


def sum_labels(x: Tensor, labels: list[str], drop: set[str]) -> tuple[Tensor, list[str]]:
    """Sum away the dims whose labels are in `drop`."""
    axes = [d for d, label in enumerate(labels) if label in drop]
    if not axes:
        return x, labels
    return sum(x, axis=axes), [label for label in labels if label not in drop]


def contract(a: Tensor, a_labels: list[str], b: Tensor, b_labels: list[str], keep: set[str],
             sizes: dict[str, int]) -> tuple[Tensor, list[str]]:
    """Combine two operands by one batched matmul (or a broadcast multiply when nothing is summed)."""
    a, a_labels = sum_labels(a, a_labels, set(a_labels) - set(b_labels) - keep)
    b, b_labels = sum_labels(b, b_labels, set(b_labels) - set(a_labels) - keep)
    a, b = _broadcast_shared(a, a_labels, b, b_labels, sizes)
    batch = [lb for lb in a_labels if lb in b_labels and lb in keep]
    summed = [lb for lb in a_labels if lb in b_labels and lb not in keep]
    a_free = [lb for lb in a_labels if lb not in b_labels]
    b_free = [lb for lb in b_labels if lb not in a_labels]
    a = permuted(a, [a_labels.index(lb) for lb in batch + a_free + summed])
    b = permuted(b, [b_labels.index(lb) for lb in batch + summed + b_free])
    n_batch, m, k, n = (prod(sizes[lb] for lb in group) for group in (batch, a_free, summed, b_free))
    if not summed:   # an outer / elementwise product: no matmul needed
        out = reshaped(a, [n_batch, m, 1]) * reshaped(b, [n_batch, 1, n])
    elif batch:
        out = matmul(reshaped(a, [n_batch, m, k]), reshaped(b, [n_batch, k, n]))
    else:   # no batch: a side with no free dims is a vector, so a full contraction is one dot product
        out = matmul(reshaped(a, [m, k] if a_free else [k]), reshaped(b, [k, n] if b_free else [k]))
    labels = batch + a_free + b_free
    return reshaped(out, [sizes[lb] for lb in labels]), labels


def _broadcast_shared(a: Tensor, a_labels: list[str], b: Tensor, b_labels: list[str], sizes: dict[str, int]):
    """A label both operands share but one has at size 1: expand that operand to the full size."""
    def expanded(x: Tensor, labels: list[str]) -> Tensor:
        full = [sizes[lb] if lb in a_labels and lb in b_labels else x.shape[d] for d, lb in enumerate(labels)]
        return broadcast_to(x, full) if full != list(x.shape) else x
    return expanded(a, a_labels), expanded(b, b_labels)


def execute(eq: Equation, operands: list[Tensor], sizes: dict[str, int]) -> Tensor:
    """Diagonals first, then labels only one operand has and nobody needs, then left-to-right pairs."""
    pending = []
    for x, labels in zip(operands, eq.inputs):
        pending.append(take_diagonal(x, list(labels)))
    x, labels = pending[0]
    for i in range(1, len(pending)):
        later = {lb for _, lbs in pending[i + 1:] for lb in lbs}
        y, y_labels = pending[i]
        x, labels = contract(x, labels, y, y_labels, set(eq.output) | later, sizes)
    x, labels = sum_labels(x, labels, set(labels) - set(eq.output))
    full = [sizes[lb] for lb in labels]   # a size-1 broadcast dim of a lone operand takes the full size
    if full != list(x.shape):
        x = broadcast_to(x, full)
    return permuted(x, [labels.index(lb) for lb in eq.output])


def einsum(equation: str, *operands: Tensor) -> Tensor:
    """Einstein summation over the operands' labelled dims.

    >>> a, b = paddle.rand([2, 3, 4]), paddle.rand([2, 4, 5])
    >>> paddle.einsum('bij,bjk->bik', a, b).shape         # a batched matmul
    [2, 3, 5]
    >>> paddle.einsum('ii', paddle.eye(3))                # the trace: 3.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise invalid_argument("einsum", f"equation got {type(equation).__name__}, expected a string like 'ij,jk->ik'.")
    if not operands:
        raise invalid_argument("einsum", "no operands were given.")
    ts = [as_tensor("einsum", f"operands[{i}]", t) for i, t in enumerate(operands)]
    for i, t in enumerate(ts[1:], 1):
        if t._data.dtype != ts[0]._data.dtype:
            raise invalid_argument("einsum", f"operand 0 has dtype {ts[0]._data.dtype} but operand {i} has "
                                             f"{t._data.dtype}; "
                                             "expected one dtype.", hint="cast with .astype(...) first.")
    eq = parse(equation, tuple(t._data.ndim for t in ts))
    sizes = label_sizes(eq, [list(t.shape) for t in ts])
    out = execute(eq, ts, sizes)
    return out.clone() if out is ts[0] else out   # 'ij->ij' still gives a new tensor


__all__ = ["einsum"]
