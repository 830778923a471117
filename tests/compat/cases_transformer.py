"""Golden cases: nn.MultiHeadAttention, the Transformer layers and F.scaled_dot_product_attention --
state_dict keys and shapes, and outputs and gradients with every parameter set from a fixed init."""
import numpy as np

from .harness import case, outcome


def _fill(paddle, layer, salt=0.0):
    """Every parameter from a fixed formula of its position, through set_state_dict (both sides alike)."""
    state = {}
    for i, (key, value) in enumerate(layer.state_dict().items()):
        n = int(np.prod(value.shape))
        values = np.sin(np.arange(n) * 0.37 + i * 1.3 + salt) * 0.3
        if key.endswith("norm1.weight") or key.endswith("norm2.weight") or key.endswith("norm3.weight") \
                or key.endswith("norm.weight"):
            values = 1.0 + values * 0.5
        state[key] = paddle.to_tensor(values.reshape(list(value.shape)).astype("float32"))
    layer.set_state_dict(state)
    return layer


def _data(paddle, shape, salt=0.0, stop_gradient=True):
    n = int(np.prod(shape))
    values = (np.cos(np.arange(n) * 0.53 + salt) * 1.5).reshape(shape).astype("float32")
    return paddle.to_tensor(values, stop_gradient=stop_gradient)


def _keys_and_shapes(layer):
    return [[key, [int(s) for s in value.shape]] for key, value in layer.state_dict().items()]


@case
def state_dict_keys_and_shapes(paddle):
    nn = paddle.nn
    return {"MultiHeadAttention kdim vdim": _keys_and_shapes(nn.MultiHeadAttention(8, 2, kdim=6, vdim=4)),
            "TransformerEncoderLayer": _keys_and_shapes(nn.TransformerEncoderLayer(8, 2, 16)),
            "TransformerEncoder 2 layers + norm": _keys_and_shapes(
                nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8))),
            "TransformerDecoderLayer": _keys_and_shapes(nn.TransformerDecoderLayer(8, 2, 16)),
            "TransformerDecoder": _keys_and_shapes(nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2)),
            "Transformer": _keys_and_shapes(nn.Transformer(8, 2, 2, 1, 16)),
            "no bias": _keys_and_shapes(nn.MultiHeadAttention(4, 2, bias_attr=False))}


@case
def multi_head_attention_values_and_masks(paddle):
    nn = paddle.nn
    attn = _fill(paddle, nn.MultiHeadAttention(8, 2, kdim=6, vdim=4, need_weights=True))
    q = _data(paddle, [2, 3, 8], stop_gradient=False)
    k, v = _data(paddle, [2, 4, 6], 1.0), _data(paddle, [2, 4, 4], 2.0)
    out, weights = attn(q, k, v)
    bool_mask = paddle.to_tensor(np.array([[True, True, False, False], [True, True, True, False],
                                           [True, True, True, True]]))
    float_mask = paddle.to_tensor(np.array([[0.0, -np.inf, 0.0, -1.0]] * 3, "float32"))
    int_mask = paddle.to_tensor(np.array([[[[1, 0, 1, 1]]], [[[1, 1, 0, 1]]]], "int64"))
    return {"out": out, "weights": weights,
            "bool mask": attn(q, k, v, attn_mask=bool_mask)[1],
            "float mask": attn(q, k, v, attn_mask=float_mask)[0],
            "int mask per batch": attn(q, k, v, attn_mask=int_mask)[1]}


@case
def multi_head_attention_gradients(paddle):
    nn = paddle.nn
    attn = _fill(paddle, nn.MultiHeadAttention(6, 3))
    x = _data(paddle, [2, 4, 6], stop_gradient=False)
    mask = paddle.to_tensor(np.tril(np.ones((4, 4), bool)))
    out = attn(x, attn_mask=mask)
    (out * _data(paddle, [2, 4, 6], 3.0)).sum().backward()
    return {"out": out, "x.grad": x.grad, "q_proj.weight.grad": attn.q_proj.weight.grad,
            "out_proj.bias.grad": attn.out_proj.bias.grad}


@case
def multi_head_attention_dropout(paddle):
    nn = paddle.nn
    attn = _fill(paddle, nn.MultiHeadAttention(4, 2, dropout=1.0))
    x = _data(paddle, [1, 3, 4])
    attn.train()
    all_dropped = attn(x)            # every weight dropped: only out_proj's bias is left
    attn.eval()
    return {"train, p=1": all_dropped, "eval": attn(x)}


@case
def multi_head_attention_caches(paddle):
    nn = paddle.nn
    attn = _fill(paddle, nn.MultiHeadAttention(4, 2))
    x = _data(paddle, [1, 3, 4])
    cache = attn.gen_cache(x)                       # an empty Cache, one position added per call
    steps = []
    for i in range(3):
        out, cache = attn(x[:, i:i + 1, :], attn_mask=None, cache=cache)
        steps.append(out)
    memory = _data(paddle, [1, 5, 4], 1.0)
    static = attn.gen_cache(memory, memory, type=nn.MultiHeadAttention.StaticCache)
    cross, same = attn(x, memory, memory, None, static)
    return {"incremental outputs": steps, "cache k shape": cache.k.shape, "cache type": type(cache).__name__,
            "static": cross, "static kept": same is static,
            "full causal last row": attn(x, attn_mask=paddle.to_tensor(np.tril(np.ones((3, 3), bool))))[:, 2]}


@case
def encoder_layer_post_and_pre_norm(paddle):
    nn = paddle.nn
    out = {}
    src = _data(paddle, [2, 3, 8])
    mask = paddle.to_tensor(np.array([[True, True, False]] * 3))
    for before in (False, True):
        for act in ("relu", "gelu"):
            layer = _fill(paddle, nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=act,
                                                             normalize_before=before))
            out[f"normalize_before={before} {act}"] = layer(src, src_mask=mask)
    layer = _fill(paddle, nn.TransformerEncoderLayer(8, 2, 16))    # default dropout 0.1, off in eval
    layer.eval()
    out["eval with dropout 0.1"] = layer(src)
    return out


@case
def encoder_gradients(paddle):
    nn = paddle.nn
    encoder = _fill(paddle, nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2,
                                                  norm=nn.LayerNorm(8)))
    src = _data(paddle, [2, 3, 8], stop_gradient=False)
    out = encoder(src)
    (out * _data(paddle, [2, 3, 8], 5.0)).sum().backward()
    return {"out": out, "src.grad": src.grad,
            "layers.1.linear1.weight.grad": encoder.layers[1].linear1.weight.grad,
            "layers.0.self_attn.k_proj.weight.grad": encoder.layers[0].self_attn.k_proj.weight.grad}


@case
def decoder_and_transformer(paddle):
    nn = paddle.nn
    model = _fill(paddle, nn.Transformer(8, 2, 2, 2, 16, dropout=0.0))
    src = _data(paddle, [2, 4, 8], stop_gradient=False)
    tgt = _data(paddle, [2, 3, 8], 1.0)
    tgt_mask = model.generate_square_subsequent_mask(3)
    memory_mask = paddle.to_tensor(np.array([[True, True, True, False]] * 3))
    out = model(src, tgt, tgt_mask=tgt_mask, memory_mask=memory_mask)
    out.sum().backward()
    decoder_layer = _fill(paddle, nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, normalize_before=True), 0.5)
    return {"transformer": out, "src.grad": src.grad, "mask": tgt_mask,
            "pre-norm decoder layer": decoder_layer(tgt, _data(paddle, [2, 4, 8], 2.0), tgt_mask=tgt_mask)}


@case
def scaled_dot_product_attention_values(paddle):
    F = paddle.nn.functional
    q, k, v = _data(paddle, [2, 3, 2, 4]), _data(paddle, [2, 5, 2, 4], 1.0), _data(paddle, [2, 5, 2, 3], 2.0)
    bool_mask = paddle.to_tensor(np.array([[True, False, True, True, False]] * 3))
    float_mask = _data(paddle, [2, 1, 3, 5], 3.0)
    square = _data(paddle, [2, 4, 2, 4], 4.0)
    return {"plain": F.scaled_dot_product_attention(q, k, v),
            "bool mask": F.scaled_dot_product_attention(q, k, v, attn_mask=bool_mask),
            "float mask": F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask),
            "causal": F.scaled_dot_product_attention(square, square, square, is_causal=True),
            "causal ignores the mask": F.scaled_dot_product_attention(square, square, square,
                                                                      attn_mask=paddle.zeros([4, 4]), is_causal=True),
            "scale": F.scaled_dot_product_attention(q, k, v, scale=0.1),
            "unbatched": F.scaled_dot_product_attention(q[0], k[0], v[0]),
            "grouped query heads": F.scaled_dot_product_attention(_data(paddle, [1, 3, 4, 4]), k[:1, :, :1],
                                                                  v[:1, :, :1]),
            "dropout, not training": F.scaled_dot_product_attention(q, k, v, dropout_p=0.5, training=False)}


@case
def scaled_dot_product_attention_gradients(paddle):
    F = paddle.nn.functional
    q = _data(paddle, [1, 3, 2, 4], stop_gradient=False)
    k = _data(paddle, [1, 3, 2, 4], 1.0, stop_gradient=False)
    v = _data(paddle, [1, 3, 2, 4], 2.0, stop_gradient=False)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    (out * _data(paddle, [1, 3, 2, 4], 3.0)).sum().backward()
    return {"out": out, "q.grad": q.grad, "k.grad": k.grad, "v.grad": v.grad}


@case
def attention_errors(paddle):
    F = paddle.nn.functional
    q = _data(paddle, [1, 3, 2, 4])
    return {"head_dim differs": outcome(lambda: F.scaled_dot_product_attention(q, _data(paddle, [1, 3, 2, 5]),
                                                                              _data(paddle, [1, 3, 2, 5]))),
            "mask of the wrong size": outcome(lambda: F.scaled_dot_product_attention(
                q, q, q, attn_mask=paddle.zeros([3, 4]))),
            "mha embed_dim differs": outcome(lambda: paddle.nn.MultiHeadAttention(4, 2)(_data(paddle, [1, 3, 6])))}
