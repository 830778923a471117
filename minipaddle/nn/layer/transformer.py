"""Multi-head attention and the Transformer (Vaswani et al., 2017), layer for layer as Paddle 3.3.1 builds them.

    attn = nn.MultiHeadAttention(embed_dim=16, num_heads=4)
    out = attn(x)                                     # self-attention, x: [batch, seq, 16]
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32)
    encoder = nn.TransformerEncoder(layer, num_layers=2)

The same sublayers, names and parameter shapes as Paddle (`q_proj`, `k_proj`, `v_proj`, `out_proj`,
`linear1`, `linear2`, `norm1`..`norm3`, `self_attn`, `cross_attn`), so `state_dict()` keys match and a
Paddle checkpoint loads with `set_state_dict`. Linear weights are [in, out], as in all of Paddle.

Masks (`attn_mask`, `src_mask`, ...) broadcast to [batch, num_heads, seq_q, seq_k]: a bool mask is True
where attention is allowed (an int mask 1), a float mask is added to the scores (0 allows, -inf
forbids); `Transformer.generate_square_subsequent_mask(n)` makes the causal float mask.
"""
from __future__ import annotations

import collections
import copy

import numpy as np

from ...framework.errors import invalid_argument
from ...framework.parameter import ParamAttr
from .. import functional as F
from ..functional.attention import convert_attention_mask
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]


def _check_positive(api: str, **values) -> None:
    for name, v in values.items():
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v <= 0:
            raise invalid_argument(api, f"{name} is {v!r}, expected a positive int.")


def _param_attrs(api: str, attr, n: int) -> list:
    """Paddle's _convert_param_attr_to_list: one attr per sublayer group (a list of n, or one repeated;
    a named ParamAttr gets the suffixes _0, _1, ... so the names stay unique)."""
    if isinstance(attr, (list, tuple)):
        if len(attr) != n:
            raise invalid_argument(api, f"got {len(attr)} attrs in a list, expected {n}.")
        return [False if a is False else (None if a is True else a) for a in attr]
    if isinstance(attr, bool):
        return [None if attr else False] * n
    if isinstance(attr, ParamAttr) and attr.name:
        out = []
        for i in range(n):
            a = copy.deepcopy(attr)
            a.name = f"{attr.name}_{i}"
            out.append(a)
        return out
    return [attr] * n


def _activation(api: str, name: str):
    fn = getattr(F, name, None) if isinstance(name, str) else None
    if fn is None or not callable(fn):
        raise invalid_argument(api, f"activation is {name!r}, expected the name of a function in "
                                    "paddle.nn.functional ('relu', 'gelu', ...).")
    return fn


class MultiHeadAttention(Layer):
    """Attention from `num_heads` heads in parallel, each on its `embed_dim // num_heads` slice.

    forward(query, key=None, value=None, attn_mask=None, cache=None): query [batch, seq_q, embed_dim],
    key [batch, seq_k, kdim], value [batch, seq_k, vdim] (None: the query: self-attention). Returns
    the output [batch, seq_q, embed_dim]; with `need_weights=True` also the attention weights
    [batch, num_heads, seq_q, seq_k]; with a `cache` also the new cache.
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, kdim: int | None = None,
                 vdim: int | None = None, need_weights: bool = False, weight_attr=None, bias_attr=None) -> None:
        super().__init__()
        _check_positive("MultiHeadAttention", embed_dim=embed_dim, num_heads=num_heads)
        if embed_dim % num_heads:
            raise invalid_argument("MultiHeadAttention", f"embed_dim ({embed_dim}) must be divisible by num_heads "
                                                         f"({num_heads}).")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.need_weights = need_weights
        self.head_dim = embed_dim // num_heads
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _split_heads(self, x):
        """[batch, seq, embed_dim] -> [batch, num_heads, seq, head_dim]."""
        import minipaddle as paddle
        x = paddle.reshape(x, [0, 0, self.num_heads, self.head_dim])
        return paddle.transpose(x, [0, 2, 1, 3])

    def compute_kv(self, key, value):
        """Project keys and values and split them into heads: each [batch, num_heads, seq, head_dim]."""
        return self._split_heads(self.k_proj(key)), self._split_heads(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002 (Paddle's argument name)
        """A cache for incremental decoding: `StaticCache` holds projected key/value computed once (a
        decoder's cross-attention); `Cache` grows by one position per call (its self-attention), empty
        when `value` is None."""
        import minipaddle as paddle
        if type is MultiHeadAttention.StaticCache:
            k, v = self.compute_kv(key, value)
            return self.StaticCache(k, v)
        if value is None:
            shape = [key.shape[0], self.num_heads, 0, self.head_dim]
            return self.Cache(paddle.zeros(shape, key.dtype), paddle.zeros(shape, key.dtype))
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        import minipaddle as paddle
        key = query if key is None else key
        value = query if value is None else value
        if query.ndim != 3 or query.shape[-1] != self.embed_dim:
            raise invalid_argument("MultiHeadAttention", f"query has shape {query.shape}, expected "
                                                         f"[batch, seq_len, {self.embed_dim}].")
        q = self._split_heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = paddle.concat([cache.k, k], axis=2)
            v = paddle.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        # the scaled dot product, step by step (so the debugger shows the scores and the weights)
        scores = paddle.matmul(q * (self.head_dim ** -0.5), k, transpose_y=True)  # [batch, heads, seq_q, seq_k]
        if attn_mask is not None:
            scores = scores + convert_attention_mask(attn_mask, scores.dtype)
        weights = F.softmax(scores)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode="upscale_in_train")
        out = paddle.matmul(weights, v)                                   # [batch, heads, seq_q, head_dim]
        out = paddle.transpose(out, [0, 2, 1, 3])
        out = paddle.reshape(out, [0, 0, out.shape[2] * out.shape[3]])   # heads side by side again
        out = self.out_proj(out)
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


class TransformerEncoderLayer(Layer):
    """Self-attention then a feed-forward net, each with a residual connection and LayerNorm:
    after each (post-norm, the paper's) or, with `normalize_before=True`, before each (pre-norm)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: float | None = None, act_dropout: float | None = None,
                 normalize_before: bool = False, weight_attr=None, bias_attr=None,
                 layer_norm_eps: float = 1e-5) -> None:
        self._config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        api = "TransformerEncoderLayer"
        _check_positive(api, d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _param_attrs(api, weight_attr, 2)
        bias_attrs = _param_attrs(api, bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[1], bias_attr=bias_attrs[1])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[1], bias_attr=bias_attrs[1])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(api, activation)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, incremental_cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, incremental_cache)

    def gen_cache(self, src):
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """`num_layers` encoder layers in a row (the first is `encoder_layer`, the others new ones with its
    configuration and their own weights), then `norm` if given."""

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: LayerNorm | None = None) -> None:
        super().__init__()
        _check_positive("TransformerEncoder", num_layers=num_layers)
        self.layers = LayerList([encoder_layer if i == 0 else type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = convert_attention_mask(src_mask, src.dtype)
        output = src
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, src_mask=src_mask)
            else:
                output, new_cache = layer(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """Masked self-attention, attention over the encoder's output (`memory`), then a feed-forward
    net; each with a residual connection and LayerNorm (after, or before with `normalize_before`)."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: float | None = None, act_dropout: float | None = None,
                 normalize_before: bool = False, weight_attr=None, bias_attr=None,
                 layer_norm_eps: float = 1e-5) -> None:
        self._config = {k: v for k, v in locals().items() if k not in ("self", "__class__")}
        super().__init__()
        api = "TransformerDecoderLayer"
        _check_positive(api, d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weight_attrs = _param_attrs(api, weight_attr, 3)
        bias_attrs = _param_attrs(api, bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[0],
                                            bias_attr=bias_attrs[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weight_attrs[1],
                                             bias_attr=bias_attrs[1])
        self.linear1 = Linear(d_model, dim_feedforward, weight_attrs[2], bias_attr=bias_attrs[2])
        self.dropout = Dropout(act_dropout, mode="upscale_in_train")
        self.linear2 = Linear(dim_feedforward, d_model, weight_attrs[2], bias_attr=bias_attrs[2])
        self.norm1 = LayerNorm(d_model, layer_norm_eps)
        self.norm2 = LayerNorm(d_model, layer_norm_eps)
        self.norm3 = LayerNorm(d_model, layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode="upscale_in_train")
        self.dropout2 = Dropout(dropout, mode="upscale_in_train")
        self.dropout3 = Dropout(dropout, mode="upscale_in_train")
        self.activation = _activation(api, activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = convert_attention_mask(memory_mask, memory.dtype)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = residual + self.dropout1(tgt)
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = residual + self.dropout2(tgt)
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        incremental_cache = self.self_attn.gen_cache(memory, type=self.self_attn.Cache)
        static_cache = self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache)
        return incremental_cache, static_cache


class TransformerDecoder(Layer):
    """`num_layers` decoder layers in a row (copies of `decoder_layer`'s configuration), then `norm`."""

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: LayerNorm | None = None) -> None:
        super().__init__()
        _check_positive("TransformerDecoder", num_layers=num_layers)
        self.layers = LayerList([decoder_layer if i == 0 else type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = convert_attention_mask(memory_mask, memory.dtype)
        output = tgt
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=None)
            else:
                output, new_cache = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                                          cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip: bool = False):
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attr(api: str, attr, name: str) -> tuple:
    """Transformer's weight_attr / bias_attr lists: 1, 2 or 3 entries shared out to the encoder's
    two groups and the decoder's three, as Paddle does."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], list(attr)
    raise invalid_argument(api, f"{name} is a list of {len(attr)}, expected 1, 2 or 3 entries.")


class Transformer(Layer):
    """An encoder (`num_encoder_layers` layers + LayerNorm) and a decoder (`num_decoder_layers` + LayerNorm).

    forward(src, tgt, src_mask=None, tgt_mask=None, memory_mask=None): src [batch, src_len, d_model],
    tgt [batch, tgt_len, d_model] (already embedded); returns [batch, tgt_len, d_model].
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation: str = "relu",
                 attn_dropout: float | None = None, act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr=None, bias_attr=None, custom_encoder: Layer | None = None,
                 custom_decoder: Layer | None = None) -> None:
        super().__init__()
        api = "Transformer"
        _check_positive(api, d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
        encoder_weight, decoder_weight = _split_attr(api, weight_attr, "weight_attr")
        encoder_bias, decoder_bias = _split_attr(api, bias_attr, "bias_attr")
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, encoder_weight, encoder_bias)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, decoder_weight, decoder_bias)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model = d_model
        self.nhead = nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = convert_attention_mask(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = convert_attention_mask(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """The causal mask [length, length]: 0 on and below the diagonal, -inf above (position i sees 0..i).

            >>> nn.Transformer(16, 2, 1, 1, 32).generate_square_subsequent_mask(3)
            [[0., -inf, -inf], [0., 0., -inf], [0., 0., 0.]]
        """
        import minipaddle as paddle
        if isinstance(length, paddle.Tensor):
            length = int(length.item())
        if not isinstance(length, (int, np.integer)) or isinstance(length, bool) or length < 0:
            raise invalid_argument("Transformer.generate_square_subsequent_mask",
                                   f"length is {length!r}, expected a non-negative int.")
        return paddle.triu(paddle.full([length, length], -np.inf, dtype=paddle.get_default_dtype()), 1)
