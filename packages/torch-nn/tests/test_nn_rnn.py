"""RNN, LSTM, GRU and their cells against a NumPy step-by-step reference (multi-layer,
bidirectional, batch_first, initial states, packed sequences), gradcheck, and bad input."""

import numpy as np
import pytest

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

OURS = torch.__version__.startswith("0.1")


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_cell(mode, x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    gi = x @ w_ih.T + (0 if b_ih is None else b_ih)
    gh = h @ w_hh.T + (0 if b_hh is None else b_hh)
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        return (h if w_hr is None else h @ w_hr.T), c
    if mode == "GRU":
        ir, iz, in_ = np.split(gi, 3, axis=-1)
        hr, hz, hn = np.split(gh, 3, axis=-1)
        r, z = _sigmoid(ir + hr), _sigmoid(iz + hz)
        n = np.tanh(in_ + r * hn)
        return (1 - z) * n + z * h, None
    pre = gi + gh
    return (np.maximum(pre, 0) if mode == "RNN_RELU" else np.tanh(pre)), None


def _w(m, name):
    t = getattr(m, name, None)
    return None if t is None else t.detach().numpy()


def _mode(m):
    if isinstance(m, nn.LSTM):
        return "LSTM"
    if isinstance(m, nn.GRU):
        return "GRU"
    return "RNN_RELU" if m.nonlinearity == "relu" else "RNN_TANH"


def np_rnn(m, x, h0=None, c0=None):
    """x: (T, B, I) -> out (T, B, D*H_out), h_n, c_n, following the module's weights."""
    mode = _mode(m)
    dirs = 2 if m.bidirectional else 1
    hout = m.proj_size if getattr(m, "proj_size", 0) else m.hidden_size
    T, B = x.shape[:2]
    if h0 is None:
        h0 = np.zeros((m.num_layers * dirs, B, hout))
    if c0 is None:
        c0 = np.zeros((m.num_layers * dirs, B, m.hidden_size))
    layer_in, hn, cn = x, [], []
    for layer in range(m.num_layers):
        outs = []
        for d in range(dirs):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            args = [_w(m, n + sfx) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            w_hr = _w(m, "weight_hr" + sfx)
            h, c = h0[layer * dirs + d], c0[layer * dirs + d]
            out = np.zeros((T, B, hout))
            for t in range(T - 1, -1, -1) if d else range(T):
                h, c2 = np_cell(mode, layer_in[t], h, c, *args, w_hr)
                c = c2 if c2 is not None else c
                out[t] = h
            outs.append(out)
            hn.append(h)
            cn.append(c)
        layer_in = np.concatenate(outs, -1)
    return layer_in, np.stack(hn), np.stack(cn)


CONFIGS = [
    (nn.RNN, {}),
    (nn.RNN, {"nonlinearity": "relu", "num_layers": 2}),
    (nn.RNN, {"bias": False, "bidirectional": True}),
    (nn.LSTM, {}),
    (nn.LSTM, {"num_layers": 2, "bidirectional": True}),
    (nn.LSTM, {"batch_first": True, "bias": False}),
    (nn.LSTM, {"proj_size": 2, "bidirectional": True}),
    (nn.GRU, {}),
    (nn.GRU, {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    (nn.GRU, {"bias": False}),
]
IDS = [
    f"{c.__name__}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for c, kw in CONFIGS
]


def _make(cls, kw, seed=0):
    torch.manual_seed(seed)
    return cls(3, 4, **kw).double()


@pytest.mark.parametrize("cls,kw", CONFIGS, ids=IDS)
def test_forward_matches_numpy_reference(cls, kw):
    m = _make(cls, kw)
    rng = np.random.RandomState(1)
    T, B = 5, 3
    x = rng.randn(T, B, 3)
    dirs = 2 if kw.get("bidirectional") else 1
    L = kw.get("num_layers", 1)
    hsize = kw.get("proj_size", 4)
    h0 = rng.randn(L * dirs, B, hsize)
    c0 = rng.randn(L * dirs, B, 4)
    ref_out, ref_h, ref_c = np_rnn(m, x, h0, c0)
    xin = torch.tensor(x.transpose(1, 0, 2) if kw.get("batch_first") else x)
    hx = (torch.tensor(h0), torch.tensor(c0)) if cls is nn.LSTM else torch.tensor(h0)
    out, hn = m(xin, hx)
    if kw.get("batch_first"):
        out = out.transpose(0, 1)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-10, atol=1e-12)
    if cls is nn.LSTM:
        hn, cn = hn
        np.testing.assert_allclose(cn.detach().numpy(), ref_c, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hn.detach().numpy(), ref_h, rtol=1e-10, atol=1e-12)


@pytest.mark.filterwarnings("ignore:LSTM with projections is not supported:UserWarning")
@pytest.mark.parametrize("cls,kw", CONFIGS, ids=IDS)
def test_default_initial_state_is_zero_and_float32_works(cls, kw):
    m = _make(cls, kw)
    x = np.random.RandomState(2).randn(4, 2, 3)
    ref_out, _, _ = np_rnn(m, x)
    xin = torch.tensor(x.transpose(1, 0, 2) if kw.get("batch_first") else x)
    out = m(xin)[0]
    if kw.get("batch_first"):
        out = out.transpose(0, 1)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-10, atol=1e-12)
    out32 = m.float()(xin.float())[0]
    assert out32.dtype == torch.float32
    if kw.get("batch_first"):
        out32 = out32.transpose(0, 1)
    np.testing.assert_allclose(out32.detach().numpy(), ref_out, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls,kw", CONFIGS, ids=IDS)
def test_gradcheck_inputs_states_and_weights(cls, kw):
    m = _make(cls, kw)
    rng = np.random.RandomState(3)
    dirs = 2 if kw.get("bidirectional") else 1
    L = kw.get("num_layers", 1)
    x = torch.tensor(rng.randn(3, 2, 3), requires_grad=True)
    h0 = torch.tensor(rng.randn(L * dirs, 2, kw.get("proj_size", 4)), requires_grad=True)
    c0 = torch.tensor(rng.randn(L * dirs, 2, 4), requires_grad=True)
    names = [n for n, _ in m.named_parameters()]
    weights = [p.detach().clone().requires_grad_() for p in m.parameters()]
    for n in names:  # the weights become inputs of the checked function
        delattr(m, n)

    def run(x, h0, c0, *ws):
        for n, w in zip(names, ws):
            setattr(m, n, w)
        if kw.get("batch_first"):
            x = x.transpose(0, 1)
        out, h = m(x, (h0, c0) if cls is nn.LSTM else h0)
        hs = h if isinstance(h, tuple) else (h,)
        return (out, *hs)

    assert torch.autograd.gradcheck(run, (x, h0, c0, *weights))


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_sequences_match_per_sequence_reference(cls, enforce_sorted):
    torch.manual_seed(0)
    m = cls(3, 4, num_layers=2, bidirectional=True).double()
    rng = np.random.RandomState(4)
    lengths = [5, 4, 2] if enforce_sorted else [2, 5, 4]
    x = rng.randn(5, 3, 3)
    packed = pack_padded_sequence(torch.tensor(x), lengths, enforce_sorted=enforce_sorted)
    out, hn = m(packed)
    assert isinstance(out, nn.utils.rnn.PackedSequence)
    padded, out_lengths = pad_packed_sequence(out)
    assert out_lengths.tolist() == lengths
    if cls is nn.LSTM:
        hn, cn = hn
    for b, n in enumerate(lengths):
        ref_out, ref_h, ref_c = np_rnn(m, x[:n, b : b + 1])
        np.testing.assert_allclose(padded[:n, b].detach().numpy(), ref_out[:, 0], rtol=1e-10)
        assert not padded[n:, b].detach().numpy().any()
        np.testing.assert_allclose(hn[:, b].detach().numpy(), ref_h[:, 0], rtol=1e-10)
        if cls is nn.LSTM:
            np.testing.assert_allclose(cn[:, b].detach().numpy(), ref_c[:, 0], rtol=1e-10)


def test_packed_sequence_gradcheck():
    torch.manual_seed(0)
    m = nn.LSTM(2, 3, bidirectional=True).double()
    x = torch.randn(4, 3, 2, dtype=torch.float64, requires_grad=True)

    def run(x):
        out, (h, c) = m(pack_padded_sequence(x, [4, 1, 3], enforce_sorted=False))
        return pad_packed_sequence(out)[0], h, c

    assert torch.autograd.gradcheck(run, (x,))


def test_unbatched_input():
    m = _make(nn.GRU, {"num_layers": 2})
    x = torch.randn(5, 3, dtype=torch.float64)
    out, h = m(x)
    assert out.shape == (5, 4) and h.shape == (2, 4)
    ref_out, ref_h, _ = np_rnn(m, x.numpy()[:, None])
    np.testing.assert_allclose(out.detach().numpy(), ref_out[:, 0], rtol=1e-10)
    lstm = _make(nn.LSTM, {})
    out, (h, c) = lstm(x, (torch.zeros(1, 4, dtype=torch.float64),) * 2)
    assert h.shape == (1, 4) and c.shape == (1, 4)


def test_parameter_names_shapes_and_init_bounds():
    torch.manual_seed(0)
    m = nn.LSTM(3, 8, num_layers=2, bidirectional=True)
    names = [n for n, _ in m.named_parameters()]
    assert names[:4] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0"]
    assert names[4] == "weight_ih_l0_reverse" and names[-1] == "bias_hh_l1_reverse"
    assert m.weight_ih_l1.shape == (32, 16) and m.weight_hh_l0.shape == (32, 8)
    bound = 1 / np.sqrt(8)
    for p in m.parameters():
        assert float(p.detach().abs().max()) <= bound
    assert repr(m) == "LSTM(3, 8, num_layers=2, bidirectional=True)"
    assert (
        repr(nn.GRU(3, 4, batch_first=True, bias=False))
        == "GRU(3, 4, bias=False, batch_first=True)"
    )


def test_bad_input_raises():
    m = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        m(torch.randn(5, 2, 7))
    with pytest.raises(ValueError, match="2D or 3D"):
        m(torch.randn(5, 2, 3, 1))
    with pytest.raises(RuntimeError, match="Expected hidden\\[0\\] size"):
        m(torch.randn(5, 2, 3), (torch.zeros(1, 3, 4), torch.zeros(1, 2, 4)))
    with pytest.raises(RuntimeError):
        nn.GRU(3, 4)(torch.randn(5, 2, 3), torch.zeros(2, 2, 4))
    with pytest.raises(ValueError):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError):
        nn.LSTM(3, 4, proj_size=4)


def test_dropout_argument_warning_for_one_layer():
    with pytest.warns(UserWarning, match="dropout"):
        nn.GRU(3, 4, dropout=0.5)


@pytest.mark.parametrize(
    "cls,mode", [(nn.RNNCell, "RNN_TANH"), (nn.LSTMCell, "LSTM"), (nn.GRUCell, "GRU")]
)
def test_cells_match_reference_and_gradcheck(cls, mode):
    torch.manual_seed(0)
    cell = cls(3, 4).double()
    rng = np.random.RandomState(5)
    x, h, c = rng.randn(2, 3), rng.randn(2, 4), rng.randn(2, 4)
    args = [_w(cell, n) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    ref_h, ref_c = np_cell(mode, x, h, c, *args)
    if cls is nn.LSTMCell:
        got_h, got_c = cell(torch.tensor(x), (torch.tensor(h), torch.tensor(c)))
        np.testing.assert_allclose(got_c.detach().numpy(), ref_c, rtol=1e-10)
    else:
        got_h = cell(torch.tensor(x), torch.tensor(h))
    np.testing.assert_allclose(got_h.detach().numpy(), ref_h, rtol=1e-10)
    xt = torch.tensor(x, requires_grad=True)
    ht = torch.tensor(h, requires_grad=True)
    ct = torch.tensor(c, requires_grad=True)
    if cls is nn.LSTMCell:
        assert torch.autograd.gradcheck(lambda a, b, d: cell(a, (b, d)), (xt, ht, ct))
    else:
        assert torch.autograd.gradcheck(cell, (xt, ht))
    one = cell(torch.tensor(x[0]))  # unbatched, zero state
    assert (one[0] if isinstance(one, tuple) else one).shape == (4,)


def test_rnn_cell_relu_and_repr():
    cell = nn.RNNCell(3, 4, nonlinearity="relu", bias=False)
    assert repr(cell) == "RNNCell(3, 4, bias=False, nonlinearity=relu)"
    assert bool((cell(torch.randn(2, 3)) >= 0).all())
