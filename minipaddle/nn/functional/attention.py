"""Attention as Paddle 3.3.1 computes it on the CPU: `F.scaled_dot_product_attention`, and the mask
conversion `nn.MultiHeadAttention` and the Transformer layers share.

Scaled dot-product attention is softmax(q k^T / sqrt(d) + mask) v, written here with registered ops
(matmul, softmax, transpose, ...), so its gradient and double gradient come from theirs and the
debugger shows each step:

    q, k, v: [batch, seq, heads, head_dim]          (Paddle's layout for this function)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)   # [batch, seq, heads, head_dim]

Note the layout: `scaled_dot_product_attention` takes [batch, seq_len, num_heads, head_dim] (PyTorch's
takes heads before seq_len); `nn.MultiHeadAttention` works on [batch, seq_len, embed_dim] and splits
heads itself into [batch, heads, seq, head_dim].
"""
from __future__ import annotations

import numpy as np

from ...framework.errors import invalid_argument
from ...framework.tensor import Tensor

__all__ = ["scaled_dot_product_attention"]


def convert_attention_mask(attn_mask: Tensor | None, dtype) -> Tensor | None:
    """Paddle's `_convert_attention_mask`: a bool (or int) mask keeps True (1) positions and adds -1e9
    at False (0) ones; a float mask is added as it is (0 keeps, -inf drops), cast to `dtype`."""
    import minipaddle as paddle
    if attn_mask is None:
        return None
    if not isinstance(attn_mask, Tensor):
        raise invalid_argument("attn_mask", f"got {type(attn_mask).__name__}, expected a Tensor (bool, int or float).")
    if attn_mask.dtype == dtype:
        return attn_mask
    kind = attn_mask._data.dtype.kind
    if kind in "biu":
        return (paddle.cast(attn_mask, dtype) - 1.0) * 1e9
    return paddle.cast(attn_mask, dtype)


def _check_qkv(query, key, value) -> None:
    api = "scaled_dot_product_attention"
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise invalid_argument(api, f"{name} is {type(t).__name__}, expected a Tensor.")
        if t.ndim not in (3, 4):
            raise invalid_argument(api, f"{name} has shape {t.shape}, expected [batch, seq_len, num_heads, head_dim] "
                                        "or [seq_len, num_heads, head_dim].")
    if not query.ndim == key.ndim == value.ndim:
        raise invalid_argument(api, f"query, key and value have {query.ndim}, {key.ndim} and {value.ndim} dims; "
                                    "expected the same number.")
    q, k, v = query.shape, key.shape, value.shape
    if q[-1] != k[-1]:
        raise invalid_argument(api, f"query's head_dim ({q[-1]}) must equal key's ({k[-1]}).")
    if k[-3] != v[-3]:
        raise invalid_argument(api, f"key's seq_len ({k[-3]}) must equal value's ({v[-3]}).")
    if query.ndim == 4 and not q[0] == k[0] == v[0]:
        raise invalid_argument(api, f"query, key and value have batch sizes {q[0]}, {k[0]}, {v[0]}; expected one.")


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, training: bool = True,
                                 backend: str | None = None, scale: float | None = None, enable_gqa: bool = True,
                                 name: str | None = None) -> Tensor:
    """softmax(q k^T * scale + mask) v on [batch, seq_len, num_heads, head_dim] tensors (Paddle's layout).

    attn_mask: bool (True attends) or float (added to the scores), broadcastable to
    [batch, num_heads, seq_q, seq_k]; ignored when `is_causal` (as Paddle's CPU path does), where
    position i attends to 0..i. `scale` defaults to head_dim ** -0.5. With `enable_gqa`, key and value
    may have fewer heads than query (grouped-query attention): each is repeated to match.

        >>> q = paddle.rand([2, 5, 4, 8])           # batch 2, 5 positions, 4 heads of 8
        >>> F.scaled_dot_product_attention(q, q, q, is_causal=True).shape
        [2, 5, 4, 8]
    """
    import minipaddle as paddle
    from .common import dropout
    from .activation import softmax
    api = "scaled_dot_product_attention"
    _check_qkv(query, key, value)
    batched = query.ndim == 4
    if not batched:
        query, key, value = query.unsqueeze(0), key.unsqueeze(0), value.unsqueeze(0)
    q_heads, k_heads, v_heads = query.shape[2], key.shape[2], value.shape[2]
    if enable_gqa:
        if k_heads == 0 or q_heads % k_heads != 0:
            raise invalid_argument(api, f"query has {q_heads} heads and key {k_heads}; with enable_gqa the query's "
                                        "heads must be a multiple of the key's.")
        if k_heads != v_heads:
            raise invalid_argument(api, f"key has {k_heads} heads and value {v_heads}; expected the same number.")
    elif not q_heads == k_heads == v_heads:
        raise invalid_argument(api, f"query, key and value have {q_heads}, {k_heads}, {v_heads} heads; expected the "
                                    "same number (or enable_gqa=True).")
    if attn_mask is not None:
        if not isinstance(attn_mask, Tensor):
            raise invalid_argument(api, f"attn_mask is {type(attn_mask).__name__}, expected a Tensor.")
        if attn_mask.dtype == paddle.bool:
            attn_mask = paddle.where(attn_mask, paddle.to_tensor(0.0, dtype=query.dtype),
                                     paddle.to_tensor(-np.inf, dtype=query.dtype))
    repeats = q_heads // k_heads if k_heads else 1
    if repeats > 1:  # each key/value head serves `repeats` query heads, side by side
        key = paddle.repeat_interleave(key, repeats, axis=2)
        value = paddle.repeat_interleave(value, repeats, axis=2)

    q = paddle.transpose(query, [0, 2, 1, 3])   # [batch, heads, seq, head_dim]
    k = paddle.transpose(key, [0, 2, 1, 3])
    v = paddle.transpose(value, [0, 2, 1, 3])
    head_dim = query.shape[-1]
    scale = scale or (head_dim ** -0.5 if head_dim != 0 else 1.0)
    scores = paddle.matmul(q * scale, k, transpose_y=True)   # [batch, heads, seq_q, seq_k]
    if is_causal:  # Paddle's CPU path: -1e4 above the diagonal, the given mask ignored
        scores = scores + paddle.triu(paddle.full(scores.shape, -1e4, dtype=scores.dtype), diagonal=1)
    elif attn_mask is not None:
        scores = scores + attn_mask
    weights = softmax(scores)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=training, mode="upscale_in_train")
    out = paddle.transpose(paddle.matmul(weights, v), [0, 2, 1, 3])
    return out if batched else out.squeeze(0)
