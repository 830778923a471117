"""nn.MultiHeadAttention, the Transformer layers and F.scaled_dot_product_attention: forward against numpy
and PyTorch, gradients against central differences (small sizes, float64), masks, caches and errors."""
from __future__ import annotations

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle import nn
from minipaddle.nn import functional as F
from tests.ops.opcheck import check_double_grad, check_grad, torch_or_skip


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape)


def _float64(make):
    """A layer built with float64 parameters (central differences need the precision)."""
    return make().to(dtype="float64")


def _np_attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d) + mask) v on [batch, heads, seq, dim] arrays."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores + mask
    scores = scores - scores.max(-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(-1, keepdims=True)
    return w @ v, w


def test_sdpa_takes_batch_seq_heads_dim_and_matches_torch_with_heads_first():
    torch = torch_or_skip()
    q, k, v = _rand(2, 5, 3, 4), _rand(2, 6, 3, 4, seed=1), _rand(2, 6, 3, 2, seed=2)
    mask = _rand(5, 6, seed=3)
    got = F.scaled_dot_product_attention(*(paddle.to_tensor(a) for a in (q, k, v)), attn_mask=paddle.to_tensor(mask))
    t = [torch.tensor(a).transpose(1, 2) for a in (q, k, v)]
    want = torch.nn.functional.scaled_dot_product_attention(*t, attn_mask=torch.tensor(mask)).transpose(1, 2)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


def test_sdpa_bool_mask_allows_true_positions_and_causal_sees_the_past():
    q = _rand(1, 4, 2, 3)
    mask = np.tril(np.ones((4, 4), bool))
    t = paddle.to_tensor(q)
    by_mask = F.scaled_dot_product_attention(t, t, t, attn_mask=paddle.to_tensor(mask))
    causal = F.scaled_dot_product_attention(t, t, t, is_causal=True)
    heads_first = q.transpose(0, 2, 1, 3)
    want, _ = _np_attention(heads_first, heads_first, heads_first, np.where(mask, 0.0, -np.inf))
    np.testing.assert_allclose(by_mask.numpy(), want.transpose(0, 2, 1, 3), rtol=1e-10)
    np.testing.assert_allclose(causal.numpy(), want.transpose(0, 2, 1, 3), rtol=1e-10)


def test_sdpa_grouped_query_heads_share_key_value_heads_in_order():
    q, kv = _rand(1, 3, 4, 2), _rand(1, 3, 2, 2, seed=1)
    got = F.scaled_dot_product_attention(paddle.to_tensor(q), paddle.to_tensor(kv), paddle.to_tensor(kv))
    repeated = paddle.to_tensor(np.repeat(kv, 2, axis=2))  # query heads 0, 1 use kv head 0; 2, 3 kv head 1
    want = F.scaled_dot_product_attention(paddle.to_tensor(q), repeated, repeated)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_sdpa_gradients_match_central_differences():
    mask = paddle.to_tensor(_rand(3, 3, seed=4))
    check_grad(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask),
               [_rand(1, 3, 2, 2), _rand(1, 3, 2, 2, seed=1), _rand(1, 3, 2, 2, seed=2)])
    check_grad(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
               [_rand(2, 3, 1, 2), _rand(2, 3, 1, 2, seed=1), _rand(2, 3, 1, 2, seed=2)])


def test_sdpa_double_grad():
    check_double_grad(lambda q: F.scaled_dot_product_attention(q, q, q), [_rand(1, 3, 1, 2)])


@pytest.mark.parametrize("shapes, message", [
    (([1, 3, 2, 4], [1, 3, 2, 5], [1, 3, 2, 5]), r"query's head_dim \(4\) must equal key's \(5\)"),
    (([1, 3, 3, 4], [1, 3, 2, 4], [1, 3, 2, 4]), "query has 3 heads and key 2"),
    (([3, 4], [3, 4], [3, 4]), r"query has shape \[3, 4\], expected \[batch, seq_len, num_heads, head_dim\]"),
    (([1, 3, 2, 4], [1, 5, 2, 4], [1, 4, 2, 4]), r"key's seq_len \(5\) must equal value's \(4\)"),
])
def test_sdpa_bad_shapes_name_the_api(shapes, message):
    q, k, v = (paddle.zeros(s) for s in shapes)
    with pytest.raises(paddle.errors.InvalidArgument, match="scaled_dot_product_attention.*" + message):
        F.scaled_dot_product_attention(q, k, v)


def _mha_numpy(attn, q, k, v, mask=None):
    def lin(layer, x):
        return x @ layer.weight.numpy().astype(np.float64) + layer.bias.numpy()

    def split(x):
        b, s, _ = x.shape
        return x.reshape(b, s, attn.num_heads, attn.head_dim).transpose(0, 2, 1, 3)
    out, w = _np_attention(split(lin(attn.q_proj, q)), split(lin(attn.k_proj, k)), split(lin(attn.v_proj, v)), mask)
    b, h, s, d = out.shape
    return lin(attn.out_proj, out.transpose(0, 2, 1, 3).reshape(b, s, h * d)), w


def test_multi_head_attention_matches_numpy_with_kdim_vdim_and_a_bool_mask():
    paddle.seed(0)
    attn = nn.MultiHeadAttention(8, 2, kdim=6, vdim=4, need_weights=True)
    q, k, v = _rand(2, 3, 8).astype("float32"), _rand(2, 5, 6, seed=1).astype("float32"), \
        _rand(2, 5, 4, seed=2).astype("float32")
    mask = np.ones((3, 5), bool)
    mask[:, 3:] = False
    out, weights = attn(paddle.to_tensor(q), paddle.to_tensor(k), paddle.to_tensor(v), attn_mask=paddle.to_tensor(mask))
    want, want_w = _mha_numpy(attn, q, k, v, np.where(mask, 0.0, -1e9))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(weights.numpy(), want_w, rtol=1e-4, atol=1e-6)
    assert np.all(weights.numpy()[..., 3:] == 0)


def test_multi_head_attention_matches_torch_with_the_same_weights():
    torch = torch_or_skip()
    paddle.seed(1)
    attn = nn.MultiHeadAttention(6, 3)
    ref = torch.nn.MultiheadAttention(6, 3, batch_first=True, dtype=torch.float64)
    with torch.no_grad():  # torch packs q, k, v as rows of one [3E, E] matrix, out = x W^T + b
        ref.in_proj_weight.copy_(torch.tensor(np.concatenate(
            [getattr(attn, n).weight.numpy().T for n in ("q_proj", "k_proj", "v_proj")])))
        ref.in_proj_bias.copy_(torch.tensor(np.concatenate(
            [getattr(attn, n).bias.numpy() for n in ("q_proj", "k_proj", "v_proj")])))
        ref.out_proj.weight.copy_(torch.tensor(attn.out_proj.weight.numpy().T))
        ref.out_proj.bias.copy_(torch.tensor(attn.out_proj.bias.numpy()))
    x = _rand(2, 4, 6, seed=5).astype("float32")
    want, _ = ref(*(torch.tensor(x, dtype=torch.float64),) * 3)
    np.testing.assert_allclose(attn(paddle.to_tensor(x)).numpy(), want.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_multi_head_attention_gradients_match_central_differences():
    paddle.seed(2)
    attn = _float64(lambda: nn.MultiHeadAttention(4, 2))
    mask = paddle.to_tensor(np.tril(np.ones((3, 3), bool)))
    check_grad(lambda x: attn(x, attn_mask=mask), [_rand(2, 3, 4)])
    check_grad(lambda q, kv: attn(q, kv, kv), [_rand(1, 2, 4), _rand(1, 3, 4, seed=1)])


def test_multi_head_attention_incremental_cache_equals_the_causal_run():
    paddle.seed(3)
    attn = nn.MultiHeadAttention(4, 2)
    x = paddle.to_tensor(_rand(1, 3, 4).astype("float32"))
    cache = attn.gen_cache(x)
    steps = []
    for i in range(3):
        out, cache = attn(x[:, i:i + 1], cache=cache)
        steps.append(out.numpy())
    full = attn(x, attn_mask=paddle.to_tensor(np.tril(np.ones((3, 3), bool))))
    np.testing.assert_allclose(np.concatenate(steps, 1), full.numpy(), rtol=1e-5, atol=1e-6)
    assert isinstance(cache, nn.MultiHeadAttention.Cache) and cache.k.shape == [1, 2, 3, 2]


def test_multi_head_attention_bad_arguments():
    with pytest.raises(paddle.errors.InvalidArgument, match=r"embed_dim \(6\) must be divisible by num_heads \(4\)"):
        nn.MultiHeadAttention(6, 4)
    with pytest.raises(paddle.errors.InvalidArgument, match="num_heads is 0, expected a positive int"):
        nn.MultiHeadAttention(6, 0)
    wrong_width = r"query has shape \[1, 3, 6\], expected \[batch, seq_len, 4\]"
    with pytest.raises(paddle.errors.InvalidArgument, match=wrong_width):
        nn.MultiHeadAttention(4, 2)(paddle.zeros([1, 3, 6]))
    with pytest.raises(paddle.errors.InvalidArgument, match="activation is 'swishy'"):
        nn.TransformerEncoderLayer(4, 2, 8, activation="swishy")


def test_encoder_layers_after_the_first_are_new_copies_of_its_configuration():
    paddle.seed(4)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu", normalize_before=True)
    encoder = nn.TransformerEncoder(layer, 3)
    assert encoder.layers[0] is layer
    assert all(lay.normalize_before and lay.activation is F.gelu for lay in encoder.layers)
    w0, w1 = encoder.layers[0].linear1.weight.numpy(), encoder.layers[1].linear1.weight.numpy()
    assert w0.shape == w1.shape and not np.allclose(w0, w1)


def test_encoder_layer_gradients_match_central_differences_post_and_pre_norm():
    for before in (False, True):
        paddle.seed(5)
        layer = _float64(lambda before=before: nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0,
                                                                          normalize_before=before))
        mask = paddle.to_tensor(np.tril(np.ones((3, 3), bool)))
        check_grad(lambda x, layer=layer, mask=mask: layer(x, src_mask=mask), [_rand(1, 3, 4)], rtol=1e-3, atol=1e-5)


def test_transformer_decoder_output_at_a_position_ignores_later_targets():
    paddle.seed(6)
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    src = paddle.to_tensor(_rand(1, 4, 8).astype("float32"))
    tgt = _rand(1, 3, 8).astype("float32")
    mask = model.generate_square_subsequent_mask(3)
    out = model(src, paddle.to_tensor(tgt), tgt_mask=mask).numpy()
    changed = tgt.copy()
    changed[:, 2] += 5.0
    out2 = model(src, paddle.to_tensor(changed), tgt_mask=mask).numpy()
    np.testing.assert_allclose(out[:, :2], out2[:, :2], rtol=1e-5, atol=1e-6)
    assert not np.allclose(out[:, 2], out2[:, 2])


def test_generate_square_subsequent_mask():
    mask = nn.Transformer(4, 2, 1, 1, 8).generate_square_subsequent_mask(3).numpy()
    np.testing.assert_array_equal(mask, np.triu(np.full((3, 3), -np.inf, "float32"), 1))
    with pytest.raises(paddle.errors.InvalidArgument, match="length is -1"):
        nn.Transformer(4, 2, 1, 1, 8).generate_square_subsequent_mask(-1)


def test_sdpa_dropout_only_while_training():
    q = paddle.to_tensor(_rand(1, 4, 1, 3))
    plain = F.scaled_dot_product_attention(q, q, q).numpy()
    off = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5, training=False).numpy()
    np.testing.assert_array_equal(plain, off)
    paddle.seed(0)
    dropped = F.scaled_dot_product_attention(q, q, q, dropout_p=0.999999, training=True).numpy()
    np.testing.assert_allclose(dropped, 0.0)


def test_transformer_weight_and_bias_attr_lists():
    model = nn.Transformer(4, 2, 1, 1, 8, bias_attr=[False, None])  # encoder: no attention bias, FFN bias
    keys = list(model.state_dict())
    assert "encoder.layers.0.self_attn.q_proj.bias" not in keys and "encoder.layers.0.linear1.bias" in keys
    assert "decoder.layers.0.cross_attn.q_proj.bias" not in keys and "decoder.layers.0.linear1.bias" in keys
    with pytest.raises(paddle.errors.InvalidArgument, match="weight_attr is a list of 4, expected 1, 2 or 3"):
        nn.Transformer(4, 2, 1, 1, 8, weight_attr=[None] * 4)
