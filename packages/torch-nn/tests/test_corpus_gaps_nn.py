"""torch.nn gaps a corpus of real PyTorch programs found: the encoder-decoder
``nn.Transformer`` with ``TransformerDecoderLayer`` / ``TransformerDecoder`` and the causal
mask, and ``torch.nn.parallel``. The Transformer's outputs are checked against a NumPy
forward pass written from the paper's equations with the module's own weights.
"""

import math

import numpy as np
import pytest

import torch
from torch import nn

rng = np.random.RandomState(0)
NEG_INF = -np.inf


def _np(t):
    return t.detach().numpy()


def _t(a):
    return torch.tensor(a, dtype=torch.float64)


# ---------------------------------------------------------------- the NumPy oracle
def np_linear(x, lin):
    y = x @ _np(lin.weight).T
    return y if lin.bias is None else y + _np(lin.bias)


def np_layer_norm(x, norm):
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    y = (x - mean) / np.sqrt(var + norm.eps) * _np(norm.weight)
    return y if norm.bias is None else y + _np(norm.bias)


def np_additive(mask, shape):
    """A float (added) or bool (True: may not attend) mask as the additive mask."""
    if mask is None:
        return np.zeros(shape)
    m = _np(mask) if isinstance(mask, torch.Tensor) else mask
    return np.where(m, NEG_INF, 0.0) if m.dtype == bool else m


def np_mha(mha, q, k, v, attn_mask=None, key_padding_mask=None):
    """softmax(Q K^T / sqrt(d) + masks) V per head, then the output projection; (N, L, E)
    batch-first arrays."""
    e, h = mha.embed_dim, mha.num_heads
    d = e // h
    w = _np(mha.in_proj_weight)
    b = np.zeros(3 * e) if mha.in_proj_bias is None else _np(mha.in_proj_bias)
    qp, kp, vp = (
        x @ w[i * e : (i + 1) * e].T + b[i * e : (i + 1) * e] for i, x in enumerate((q, k, v))
    )
    n, lq, s = q.shape[0], q.shape[1], k.shape[1]

    def heads(x):
        return x.reshape(n, x.shape[1], h, d).transpose(0, 2, 1, 3)  # (N, H, L, d)

    scores = heads(qp) @ heads(kp).transpose(0, 1, 3, 2) / math.sqrt(d)
    scores = scores + np_additive(attn_mask, (lq, s))
    if key_padding_mask is not None:
        scores = scores + np_additive(key_padding_mask, (n, s))[:, None, None, :]
    scores = scores - scores.max(-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(-1, keepdims=True)
    out = (p @ heads(vp)).transpose(0, 2, 1, 3).reshape(n, lq, e)
    return np_linear(out, mha.out_proj)


def np_act(x, activation):
    if activation == "relu":
        return np.maximum(x, 0)
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def np_ff(layer, x, activation):
    return np_linear(np_act(np_linear(x, layer.linear1), activation), layer.linear2)


def np_encoder_layer(layer, x, activation, mask=None, kpm=None):
    def sa(a):
        return np_mha(layer.self_attn, a, a, a, mask, kpm)

    if layer.norm_first:
        x = x + sa(np_layer_norm(x, layer.norm1))
        return x + np_ff(layer, np_layer_norm(x, layer.norm2), activation)
    x = np_layer_norm(x + sa(x), layer.norm1)
    return np_layer_norm(x + np_ff(layer, x, activation), layer.norm2)


def np_decoder_layer(layer, x, mem, activation, tgt_mask=None, mem_mask=None, tgt_kpm=None,
                     mem_kpm=None):  # fmt: skip
    def sa(a):
        return np_mha(layer.self_attn, a, a, a, tgt_mask, tgt_kpm)

    def ca(a):
        return np_mha(layer.multihead_attn, a, mem, mem, mem_mask, mem_kpm)

    if layer.norm_first:
        x = x + sa(np_layer_norm(x, layer.norm1))
        x = x + ca(np_layer_norm(x, layer.norm2))
        return x + np_ff(layer, np_layer_norm(x, layer.norm3), activation)
    x = np_layer_norm(x + sa(x), layer.norm1)
    x = np_layer_norm(x + ca(x), layer.norm2)
    return np_layer_norm(x + np_ff(layer, x, activation), layer.norm3)


def _batch_first(x, batch_first):
    """An (N, L, E) view of a (L, N, E) / (N, L, E) array, for the oracle."""
    return x if batch_first else x.transpose(1, 0, 2)


def _causal(n):
    return np.triu(np.full((n, n), NEG_INF), 1)


# ---------------------------------------------------------------- the causal mask
@pytest.mark.parametrize("sz", [1, 3, 6])
def test_generate_square_subsequent_mask(sz):
    mask = nn.Transformer.generate_square_subsequent_mask(sz)
    assert mask.shape == (sz, sz)
    assert mask.dtype == torch.get_default_dtype()
    np.testing.assert_array_equal(_np(mask), _causal(sz))
    mask64 = nn.Transformer.generate_square_subsequent_mask(sz, dtype=torch.float64)
    assert mask64.dtype == torch.float64
    np.testing.assert_array_equal(_np(mask64), _causal(sz))
    assert nn.Transformer.generate_square_subsequent_mask(sz, device="cpu").device.type == "cpu"


def test_generate_square_subsequent_mask_from_an_instance():
    model = nn.Transformer(d_model=4, nhead=1, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=8)  # fmt: skip
    np.testing.assert_array_equal(_np(model.generate_square_subsequent_mask(3)), _causal(3))


# ---------------------------------------------------------------- TransformerDecoderLayer
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_decoder_layer_against_numpy(norm_first, activation, batch_first):
    torch.manual_seed(0)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation=activation,
                                       batch_first=batch_first, norm_first=norm_first,
                                       dtype=torch.float64)  # fmt: skip
    shape_t, shape_m = ((2, 4, 8), (2, 5, 8)) if batch_first else ((4, 2, 8), (5, 2, 8))
    tgt, mem = rng.randn(*shape_t), rng.randn(*shape_m)
    tgt_mask = _causal(4)
    mem_kpm = np.array([[False] * 5, [False, False, False, True, True]])
    out = layer(_t(tgt), _t(mem), tgt_mask=_t(tgt_mask),
                memory_key_padding_mask=torch.tensor(mem_kpm))  # fmt: skip
    expected = np_decoder_layer(layer, _batch_first(tgt, batch_first),
                                _batch_first(mem, batch_first), activation, tgt_mask=tgt_mask,
                                mem_kpm=mem_kpm)  # fmt: skip
    np.testing.assert_allclose(_np(out), _batch_first(expected, batch_first), rtol=1e-8,
                               atol=1e-10)  # fmt: skip
    # no masks
    out = layer(_t(tgt), _t(mem))
    expected = np_decoder_layer(layer, _batch_first(tgt, batch_first),
                                _batch_first(mem, batch_first), activation)  # fmt: skip
    np.testing.assert_allclose(_np(out), _batch_first(expected, batch_first), rtol=1e-8,
                               atol=1e-10)  # fmt: skip


def test_decoder_layer_all_masks_and_callable_activation():
    torch.manual_seed(1)
    act = torch.tanh
    layer = nn.TransformerDecoderLayer(6, 3, 10, dropout=0.0, activation=act,
                                       dtype=torch.float64)  # fmt: skip
    tgt, mem = rng.randn(3, 2, 6), rng.randn(4, 2, 6)
    tgt_mask = np.array([[0.0, -1.0, NEG_INF], [0.5, 0.0, NEG_INF], [0.0, 0.0, 0.0]])
    mem_mask = rng.rand(3, 4) > 0.7
    mem_mask[:, 0] = False  # every row keeps a key
    tgt_kpm = np.array([[False, False, True], [False, False, False]])
    mem_kpm = np.array([[False, True, False, False], [False, False, False, True]])
    out = layer(_t(tgt), _t(mem), tgt_mask=_t(tgt_mask), memory_mask=torch.tensor(mem_mask),
                tgt_key_padding_mask=torch.tensor(tgt_kpm),
                memory_key_padding_mask=torch.tensor(mem_kpm))  # fmt: skip

    def ff(layer, x, activation):
        return np_linear(np.tanh(np_linear(x, layer.linear1)), layer.linear2)

    x, m = tgt.transpose(1, 0, 2), mem.transpose(1, 0, 2)
    x = np_layer_norm(x + np_mha(layer.self_attn, x, x, x, tgt_mask, tgt_kpm), layer.norm1)
    x = np_layer_norm(x + np_mha(layer.multihead_attn, x, m, m, mem_mask, mem_kpm), layer.norm2)
    x = np_layer_norm(x + ff(layer, x, None), layer.norm3)
    np.testing.assert_allclose(_np(out), x.transpose(1, 0, 2), rtol=1e-8, atol=1e-10)


def test_decoder_layer_defaults_and_structure():
    layer = nn.TransformerDecoderLayer(8, 2)
    assert layer.linear1.out_features == 2048 and layer.linear2.in_features == 2048
    assert (
        layer.dropout.p == 0.1 and layer.dropout1.p == layer.dropout2.p == layer.dropout3.p == 0.1
    )
    assert layer.norm_first is False and layer.self_attn.batch_first is False
    assert layer.norm1.eps == layer.norm2.eps == layer.norm3.eps == 1e-5
    assert layer.activation is torch.nn.functional.relu
    assert isinstance(layer.multihead_attn, nn.MultiheadAttention)
    names = [n for n, _ in layer.named_parameters()]
    assert names == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
        "self_attn.out_proj.bias", "multihead_attn.in_proj_weight",
        "multihead_attn.in_proj_bias", "multihead_attn.out_proj.weight",
        "multihead_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
        "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
        "norm3.weight", "norm3.bias",
    ]  # fmt: skip
    no_bias = nn.TransformerDecoderLayer(8, 2, 16, bias=False, layer_norm_eps=1e-3)
    assert not [n for n, _ in no_bias.named_parameters() if n.endswith("bias")]
    assert no_bias.norm3.eps == 1e-3
    gelu = nn.TransformerDecoderLayer(8, 2, 16, activation="gelu")
    assert gelu.activation is torch.nn.functional.gelu
    with pytest.raises(RuntimeError):
        nn.TransformerDecoderLayer(8, 2, activation="swish")


# ---------------------------------------------------------------- TransformerDecoder
def test_decoder_stack_against_numpy():
    torch.manual_seed(2)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, dtype=torch.float64)
    norm = nn.LayerNorm(8, dtype=torch.float64)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-0.5, 0.5)
    dec = nn.TransformerDecoder(layer, 3, norm=norm)
    assert dec.num_layers == 3 and len(dec.layers) == 3
    assert dec.layers[0] is not layer and dec.layers[0] is not dec.layers[1]  # deep copies
    with torch.no_grad():  # make the copies differ
        for i, lay in enumerate(dec.layers):
            lay.linear1.weight.mul_(1 + 0.1 * i)
    tgt, mem = rng.randn(4, 2, 8), rng.randn(5, 2, 8)
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    out = dec(_t(tgt), _t(mem), tgt_mask=tgt_mask)
    x, m = tgt.transpose(1, 0, 2), mem.transpose(1, 0, 2)
    for lay in dec.layers:
        x = np_decoder_layer(lay, x, m, "relu", tgt_mask=_causal(4))
    x = np_layer_norm(x, norm)
    np.testing.assert_allclose(_np(out), x.transpose(1, 0, 2), rtol=1e-8, atol=1e-10)
    # tgt_is_causal is a hint: with the causal mask the result is the same
    hinted = dec(_t(tgt), _t(mem), tgt_mask=tgt_mask, tgt_is_causal=True)
    np.testing.assert_allclose(_np(hinted), _np(out), rtol=1e-12, atol=1e-12)
    no_norm = nn.TransformerDecoder(layer, 1)
    assert no_norm.norm is None


# ---------------------------------------------------------------- nn.Transformer
def _small(**kw):
    kw = {"d_model": 8, "nhead": 2, "num_encoder_layers": 2, "num_decoder_layers": 2,
          "dim_feedforward": 16, "dropout": 0.0, "dtype": torch.float64, **kw}  # fmt: skip
    return nn.Transformer(**kw)


def np_transformer(model, src, tgt, activation="relu", src_mask=None, tgt_mask=None,
                   mem_mask=None, src_kpm=None, tgt_kpm=None, mem_kpm=None):  # fmt: skip
    x = src
    for lay in model.encoder.layers:
        x = np_encoder_layer(lay, x, activation, src_mask, src_kpm)
    mem = np_layer_norm(x, model.encoder.norm)
    y = tgt
    for lay in model.decoder.layers:
        y = np_decoder_layer(lay, y, mem, activation, tgt_mask, mem_mask, tgt_kpm, mem_kpm)
    return np_layer_norm(y, model.decoder.norm)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"batch_first": True},
        {"norm_first": True, "activation": "gelu"},
        {"bias": False, "layer_norm_eps": 1e-3},
    ],
)
def test_transformer_against_numpy(kw):
    torch.manual_seed(3)
    model = _small(**kw)
    bf = kw.get("batch_first", False)
    act = kw.get("activation", "relu")
    src = rng.randn(*((2, 5, 8) if bf else (5, 2, 8)))
    tgt = rng.randn(*((2, 4, 8) if bf else (4, 2, 8)))
    src_kpm = np.array([[False] * 5, [False, False, False, True, True]])
    tgt_kpm = np.array([[False] * 4, [False, False, False, True]])
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    out = model(_t(src), _t(tgt), tgt_mask=tgt_mask, src_key_padding_mask=torch.tensor(src_kpm),
                tgt_key_padding_mask=torch.tensor(tgt_kpm),
                memory_key_padding_mask=torch.tensor(src_kpm))  # fmt: skip
    assert out.shape == tgt.shape
    expected = np_transformer(model, _batch_first(src, bf), _batch_first(tgt, bf), act,
                              tgt_mask=_causal(4), src_kpm=src_kpm, tgt_kpm=tgt_kpm,
                              mem_kpm=src_kpm)  # fmt: skip
    np.testing.assert_allclose(_np(out), _batch_first(expected, bf), rtol=1e-8, atol=1e-10)

    plain = model(_t(src), _t(tgt))
    expected = np_transformer(model, _batch_first(src, bf), _batch_first(tgt, bf), act)
    np.testing.assert_allclose(_np(plain), _batch_first(expected, bf), rtol=1e-8, atol=1e-10)


def test_transformer_src_and_memory_masks_against_numpy():
    torch.manual_seed(4)
    model = _small()
    src, tgt = rng.randn(5, 1, 8), rng.randn(3, 1, 8)
    src_mask = _causal(5)
    mem_mask = np.zeros((3, 5), bool)
    mem_mask[:, 3:] = True
    out = model(_t(src), _t(tgt), src_mask=_t(src_mask), memory_mask=torch.tensor(mem_mask),
                tgt_mask=nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64),
                tgt_is_causal=True, src_is_causal=True)  # fmt: skip
    expected = np_transformer(
        model, src.transpose(1, 0, 2), tgt.transpose(1, 0, 2), src_mask=src_mask,
        tgt_mask=_causal(3), mem_mask=mem_mask,
    )  # fmt: skip
    np.testing.assert_allclose(_np(out), expected.transpose(1, 0, 2), rtol=1e-8, atol=1e-10)


def test_transformer_unbatched():
    torch.manual_seed(5)
    model = _small()
    src, tgt = rng.randn(5, 8), rng.randn(3, 8)
    out = model(_t(src), _t(tgt))
    assert out.shape == (3, 8)
    expected = np_transformer(model, src[None], tgt[None])[0]
    np.testing.assert_allclose(_np(out), expected, rtol=1e-8, atol=1e-10)


def test_transformer_structure_and_init():
    torch.manual_seed(6)
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=16)  # fmt: skip
    assert (model.d_model, model.nhead, model.batch_first) == (8, 2, False)
    assert isinstance(model.encoder, nn.TransformerEncoder)
    assert isinstance(model.decoder, nn.TransformerDecoder)
    assert isinstance(model.encoder.norm, nn.LayerNorm) and isinstance(
        model.decoder.norm, nn.LayerNorm
    )
    assert list(model.state_dict()) == [
        "encoder.layers.0.self_attn.in_proj_weight", "encoder.layers.0.self_attn.in_proj_bias",
        "encoder.layers.0.self_attn.out_proj.weight", "encoder.layers.0.self_attn.out_proj.bias",
        "encoder.layers.0.linear1.weight", "encoder.layers.0.linear1.bias",
        "encoder.layers.0.linear2.weight", "encoder.layers.0.linear2.bias",
        "encoder.layers.0.norm1.weight", "encoder.layers.0.norm1.bias",
        "encoder.layers.0.norm2.weight", "encoder.layers.0.norm2.bias", "encoder.norm.weight",
        "encoder.norm.bias", "decoder.layers.0.self_attn.in_proj_weight",
        "decoder.layers.0.self_attn.in_proj_bias", "decoder.layers.0.self_attn.out_proj.weight",
        "decoder.layers.0.self_attn.out_proj.bias",
        "decoder.layers.0.multihead_attn.in_proj_weight",
        "decoder.layers.0.multihead_attn.in_proj_bias",
        "decoder.layers.0.multihead_attn.out_proj.weight",
        "decoder.layers.0.multihead_attn.out_proj.bias", "decoder.layers.0.linear1.weight",
        "decoder.layers.0.linear1.bias", "decoder.layers.0.linear2.weight",
        "decoder.layers.0.linear2.bias", "decoder.layers.0.norm1.weight",
        "decoder.layers.0.norm1.bias", "decoder.layers.0.norm2.weight",
        "decoder.layers.0.norm2.bias", "decoder.layers.0.norm3.weight",
        "decoder.layers.0.norm3.bias", "decoder.norm.weight", "decoder.norm.bias",
    ]  # fmt: skip
    # every matrix is Xavier-uniform: |w| <= sqrt(6 / (fan_in + fan_out))
    for name, p in model.named_parameters():
        if p.dim() > 1:
            bound = math.sqrt(6.0 / (p.shape[0] + p.shape[1]))
            assert float(p.detach().abs().max()) <= bound, name
            assert float(p.detach().abs().max()) > 0.5 * bound, name
    two = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=3,
                         dim_feedforward=16, layer_norm_eps=1e-4, norm_first=True,
                         batch_first=True)  # fmt: skip
    assert len(two.encoder.layers) == 2 and len(two.decoder.layers) == 3
    assert two.batch_first and two.decoder.layers[2].self_attn.batch_first
    assert two.decoder.layers[0].norm_first and two.encoder.layers[0].norm_first
    assert two.encoder.norm.eps == two.decoder.layers[1].norm2.eps == 1e-4
    # the layers are initialised independently
    w0, w1 = two.encoder.layers[0].linear1.weight, two.encoder.layers[1].linear1.weight
    assert not torch.equal(w0, w1)


def test_transformer_custom_encoder_decoder():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 1)
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 1)
    model = nn.Transformer(d_model=8, nhead=2, custom_encoder=enc, custom_decoder=dec)
    assert model.encoder is enc and model.decoder is dec
    src, tgt = torch.randn(5, 2, 8), torch.randn(3, 2, 8)
    assert torch.equal(model(src, tgt), dec(tgt, enc(src)))


def test_transformer_input_checks():
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=16)  # fmt: skip
    with pytest.raises(RuntimeError):
        model(torch.randn(5, 2, 8), torch.randn(3, 3, 8))  # batch sizes differ
    with pytest.raises(RuntimeError):
        model(torch.randn(5, 2, 8), torch.randn(3, 2, 6))  # not d_model features
    bf = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                        dim_feedforward=16, batch_first=True)  # fmt: skip
    with pytest.raises(RuntimeError):
        bf(torch.randn(2, 5, 8), torch.randn(3, 5, 8))


def test_transformer_trains():
    torch.manual_seed(7)
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                           dim_feedforward=16, dropout=0.0)  # fmt: skip
    src, tgt = torch.randn(5, 2, 8), torch.randn(3, 2, 8)
    mask = model.generate_square_subsequent_mask(3)
    out = model(src, tgt, tgt_mask=mask)
    out.pow(2).mean().backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.shape == p.shape, name
    # a causal target: output position 0 depends only on target position 0
    tgt2 = tgt.clone()
    tgt2[1:] += 1.0
    out2 = model(src, tgt2, tgt_mask=mask)
    np.testing.assert_allclose(_np(out2[0]), _np(out[0]), rtol=1e-5, atol=1e-6)
    assert not np.allclose(_np(out2[1:]), _np(out[1:]))


def test_subclass_like_word_language_model():
    # pytorch/examples' word_language_model subclasses nn.Transformer and replaces the decoder
    class TransformerModel(nn.Transformer):
        def __init__(self, ntoken, ninp, nhead, nhid, nlayers):
            super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                             num_encoder_layers=nlayers)  # fmt: skip
            self.input_emb = nn.Embedding(ntoken, ninp)
            self.decoder = nn.Linear(ninp, ntoken)

        def forward(self, src):
            mask = torch.log(torch.tril(torch.ones(len(src), len(src))))
            return self.decoder(self.encoder(self.input_emb(src), mask=mask))

    model = TransformerModel(11, 8, 2, 16, 2).eval()
    out = model(torch.randint(11, (6, 3)))
    assert out.shape == (6, 3, 11)


# ---------------------------------------------------------------- torch.nn.parallel
def test_data_parallel_calls_the_module():
    import torch.nn.parallel

    assert nn.parallel.DataParallel is nn.DataParallel
    torch.manual_seed(8)
    m = nn.Linear(3, 2)
    dp = nn.DataParallel(m)
    assert dp.module is m and dp.device_ids == []
    x = torch.randn(4, 3)
    assert torch.equal(dp(x), m(x))
    assert torch.equal(dp(input=x), m(x))
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert [p is q for p, q in zip(dp.parameters(), m.parameters())] == [True, True]
    dp(x).sum().backward()
    np.testing.assert_allclose(_np(m.weight.grad), np.tile(_np(x).sum(0), (2, 1)), rtol=1e-6)
    assert nn.DataParallel(m, device_ids=[0], output_device=0, dim=1).device_ids == []


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only behaviour")
def test_data_parallel_function_needs_a_gpu():
    from torch.nn.parallel import data_parallel

    with pytest.raises(RuntimeError):
        data_parallel(nn.Linear(3, 2), torch.randn(4, 3))


def test_distributed_data_parallel_needs_a_process_group():
    from torch.nn.parallel import DistributedDataParallel

    assert issubclass(DistributedDataParallel, nn.Module)
    with pytest.raises(ValueError):
        DistributedDataParallel(nn.Linear(3, 2))


def test_torch_level_activation_and_dropout_forms():
    x = torch.tensor([-1.0, 0.5, 2.0])
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    expected = [scale * alpha * (math.exp(-1.0) - 1), scale * 0.5, scale * 2.0]
    assert torch.selu(x).tolist() == pytest.approx(expected, rel=1e-6)
    y = x.clone()
    assert torch.selu_(y) is y and y.tolist() == pytest.approx(expected, rel=1e-6)
    assert torch.celu(x, 2.0).tolist() == pytest.approx([2 * math.expm1(-0.5), 0.5, 2.0], 1e-6)
    assert torch.threshold(x, 0.6, -5.0).tolist() == [-5.0, -5.0, 2.0]
    slope = (1 / 8 + 1 / 3) / 2
    assert torch.rrelu(x).tolist() == pytest.approx([-slope, 0.5, 2.0], rel=1e-6)
    z = torch.ones(1000)
    assert torch.dropout_(z, 0.5, True) is z and set(z.tolist()) <= {0.0, 2.0}
    f = torch.feature_dropout(torch.ones(6, 10, 4), 0.5, True)
    assert all(len(set(row.tolist())) == 1 for row in f.reshape(60, 4))  # whole channels
    assert torch.equal(torch.feature_dropout(torch.ones(2, 3), 0.5, False), torch.ones(2, 3))


# ---------------------------------------------- RNNs' final states: stacked per layer/direction
# (the sequence-models tutorial prints an LSTM's (h_n, c_n): grad_fn=<StackBackward0> in
# PyTorch 2.13). h_n[k] is the last step's output of the last layer, forward direction.
def test_rnn_final_states_are_stacked():
    torch.manual_seed(0)
    out, (h, c) = nn.LSTM(3, 4, num_layers=2)(torch.randn(5, 2, 3))
    assert h.grad_fn.name() == "StackBackward0" and c.grad_fn.name() == "StackBackward0"
    assert h.shape == (2, 2, 4) and c.shape == (2, 2, 4)
    np.testing.assert_allclose(_np(h[-1]), _np(out[-1]), rtol=1e-6)
    gru = nn.GRU(3, 4, bidirectional=True)
    out, h = gru(torch.randn(5, 2, 3))
    assert h.grad_fn.name() == "StackBackward0" and h.shape == (2, 2, 4)
    np.testing.assert_allclose(_np(h[0]), _np(out[-1, :, :4]), rtol=1e-6)
    np.testing.assert_allclose(_np(h[1]), _np(out[0, :, 4:]), rtol=1e-6)
    h.sum().backward()
    assert all(p.grad is not None for p in gru.parameters())
