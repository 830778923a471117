"""The op library: every operator's definition, backward rule and kernels, by family.

    elementwise   add, multiply, exp, ..., cast, where      (math in primitives.py)
    activation    relu, sigmoid, gelu, ...
    compare       equal, less_than, logical_and, isnan, ...
    reduction     sum, mean, max, var, norm, ...
    softmax       softmax, log_softmax
    manipulation  reshape, transpose, concat, ...
    indexing      __getitem__, gather, scatter, ...
    linalg        matmul, bmm, dot
    sorting       sort, argsort, topk
    cumulative    cumprod, logcumsumexp                      (cumsum: reduction)
    building      kron, diag, diagflat, meshgrid, repeat_interleave
    counting      unique, bincount, histogram, searchsorted, bucketize
    complex       complex, real, imag, conj, angle, is_complex
    special       lgamma, digamma, polygamma, atan

Ops of `paddle.nn.functional` (not in the top-level namespace): nn_ops (linear, dropout, embedding,
...), norm, conv, conv3d, pooling, pooling3d, loss, ctc (warpctc), patches (unfold, fold, pixel_shuffle),
sampling (affine_grid, grid_sample), viterbi (paddle.text's viterbi_decode).
Ops of `paddle.linalg` and `paddle.fft` (their public functions live in minipaddle/linalg.py and
minipaddle/fft.py): matrix (inv, det, slogdet, solve, triangular_solve, cholesky, ...), decomposition
(qr, svd, eig, eigh, pinv, lstsq, matrix_rank, cond, matrix_norm), fft.

`describe("matmul")` shows a learner everything about one op.
"""
from __future__ import annotations

import inspect

from ..registry import OPS, get_op
from . import (activation, building, compare, complex, conv, conv3d, counting, ctc, cumulative,  # noqa: F401
               decomposition, device, elementwise, fft, indexing, linalg, loss, manipulation, matrix, nn_ops, norm,
               patches, pooling, pooling3d, reduction, sampling, softmax, sorting, special, viterbi)
from .bfloat16 import register_bfloat16_kernels

FAMILIES = (elementwise, activation, compare, reduction, softmax, manipulation, indexing, linalg, sorting,
            cumulative, building, counting, complex, special)
NN_FAMILIES = (nn_ops, norm, conv, conv3d, pooling, pooling3d, loss, ctc, patches, sampling, viterbi)
register_bfloat16_kernels()  # after every family has registered its ops and kernels (bfloat16.py)
from ..kernels import cuda_registry  # noqa: E402,F401 - GPU kernels, named lazily: no numba.cuda import


def list_ops() -> list[str]:
    """Names of all registered ops."""
    return sorted(OPS)


def _source(fn) -> str | None:
    if fn is None:
        return None
    try:
        return inspect.getsource(inspect.unwrap(fn))
    except (TypeError, OSError):
        return None


class OpDescription(dict):
    """What `describe` returns: a dict that also prints readably."""

    def __repr__(self) -> str:
        lines = [f"op {self['name']}{self['signature']}"]
        lines.append(f"  infer_meta: {self['infer_meta'].__qualname__}")
        lines.append(f"  backward:   {self['backward_name'] or 'none (not differentiable)'}")
        lines.append("  kernels:")
        for k in self["kernels"]:
            mark = "*" if k["default"] else " "
            lines.append(f"   {mark} {k['backend']}/{k['dtype']:<8} {k['name']:<8} {k['location']}")
        if self["backward_source"]:
            lines.append("  backward source:")
            lines.extend("    " + ln for ln in self["backward_source"].rstrip().splitlines())
        return "\n".join(lines)

    _repr_pretty_ = lambda self, p, cycle: p.text(repr(self))  # noqa: E731


def describe(name: str) -> OpDescription:
    """Everything about one op: signature, infer_meta, backward rule source, kernels (* = default).

    >>> print(describe("multiply"))          # doctest: +SKIP
    """
    from ..registry import select_kernel
    op = get_op(name)
    attrs = ", ".join(f"{a.name}={a.default!r}" for a in op.attrs)
    signature = f"({', '.join(op.inputs)}{', ' if attrs else ''}{attrs}) -> {', '.join(op.outputs)}"
    kernels = []
    for key, bucket in sorted(op.kernels.items(), key=lambda kv: (kv[0].backend, str(kv[0].dtype))):
        chosen = select_kernel(op, key)
        for k in bucket:
            kernels.append({"backend": key.backend, "dtype": str(key.dtype), "name": k.name,
                            "priority": k.priority, "default": k is chosen,
                            "location": k.source_location(), "fn": k.fn})
    return OpDescription(
        name=op.name, signature=signature, inputs=list(op.inputs), outputs=list(op.outputs),
        attrs={a.name: a.default for a in op.attrs}, infer_meta=op.infer_meta,
        infer_meta_source=_source(op.infer_meta), backward=op.backward,
        backward_name=getattr(op.backward, "__qualname__", None),
        backward_source=_source(op.backward), saved_for_backward=list(op.save), kernels=kernels)


def public_api() -> dict:
    """name -> function for every op family's public functions."""
    api = {}
    for module in FAMILIES:
        for n in module.__all__:
            api[n] = getattr(module, n)
    return api
