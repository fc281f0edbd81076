"""Layers and functions built from core ops (Linear, Bilinear, Flatten, PixelShuffle,
distances, one_hot, ...) against NumPy, gradcheck, and the reprs of every layer."""

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F


def test_linear_forward_backward_against_numpy():
    torch.manual_seed(0)
    lin = nn.Linear(4, 3).double()
    x = np.random.RandomState(0).randn(5, 4)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    np.testing.assert_allclose(lin(torch.tensor(x)).detach().numpy(), x @ w.T + b)
    x3 = np.random.RandomState(1).randn(2, 5, 4)  # any leading dims
    np.testing.assert_allclose(lin(torch.tensor(x3)).detach().numpy(), x3 @ w.T + b)
    xt = torch.tensor(x, requires_grad=True)
    assert torch.autograd.gradcheck(F.linear, (xt, lin.weight, lin.bias))
    assert torch.autograd.gradcheck(lambda a, b: F.linear(a, b), (xt, lin.weight))
    lin(xt).sum().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), np.ones((5, 3)).T @ x)
    np.testing.assert_allclose(lin.bias.grad.numpy(), np.full(3, 5.0))


def test_linear_without_bias_and_input_needing_no_grad():
    lin = nn.Linear(3, 2, bias=False)
    assert lin.bias is None and list(lin.state_dict()) == ["weight"]
    x = torch.randn(4, 3)
    assert torch.allclose(lin(x), x @ lin.weight.t())
    lin2 = nn.Linear(3, 2)
    lin2(x).sum().backward()  # x needs no gradient: only the weight gradients
    assert x.grad is None and lin2.weight.grad.shape == (2, 3)


def test_linear_wrong_width_is_an_error():
    with pytest.raises(RuntimeError):
        nn.Linear(4, 3)(torch.ones(2, 5))


def test_bilinear():
    torch.manual_seed(0)
    m = nn.Bilinear(3, 4, 2).double()
    rng = np.random.RandomState(0)
    x1, x2 = rng.randn(5, 3), rng.randn(5, 4)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    expected = np.einsum("ni,kij,nj->nk", x1, w, x2) + b
    np.testing.assert_allclose(m(torch.tensor(x1), torch.tensor(x2)).detach().numpy(), expected)
    a = torch.tensor(x1, requires_grad=True)
    c = torch.tensor(x2, requires_grad=True)
    assert torch.autograd.gradcheck(F.bilinear, (a, c, m.weight, m.bias))


def test_identity_flatten_unflatten():
    x = torch.randn(2, 3, 4, 5)
    assert nn.Identity(54, unused="x")(x) is x
    assert nn.Flatten()(x).shape == (2, 60)
    assert nn.Flatten(0, 2)(x).shape == (24, 5)
    assert nn.Unflatten(1, (3, 20))(nn.Flatten()(x)).shape == (2, 3, 20)
    assert nn.Unflatten(-1, (5, -1))(torch.randn(2, 10)).shape == (2, 5, 2)
    with pytest.raises(TypeError):
        nn.Unflatten(1, 5)


def test_pixel_shuffle_round_trip_and_layout():
    x = torch.arange(2 * 8 * 2 * 3, dtype=torch.float64).reshape(2, 8, 2, 3)
    y = nn.PixelShuffle(2)(x)
    assert y.shape == (2, 2, 4, 6)
    xn = x.numpy()
    expected = xn.reshape(2, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 6)
    np.testing.assert_array_equal(y.numpy(), expected)
    assert torch.equal(nn.PixelUnshuffle(2)(y), x)
    with pytest.raises(RuntimeError):
        F.pixel_shuffle(torch.randn(1, 3, 2, 2), 2)


def test_normalize_cosine_pairwise():
    rng = np.random.RandomState(0)
    a, b = rng.randn(4, 5), rng.randn(4, 5)
    ta = torch.tensor(a, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    np.testing.assert_allclose(
        F.normalize(ta).detach().numpy(), a / np.linalg.norm(a, axis=1, keepdims=True)
    )
    np.testing.assert_allclose(
        F.normalize(ta, p=1, dim=0).detach().numpy(), a / np.abs(a).sum(0, keepdims=True)
    )
    cos = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    np.testing.assert_allclose(F.cosine_similarity(ta, tb).detach().numpy(), cos)
    np.testing.assert_allclose(nn.CosineSimilarity(dim=1)(ta, tb).detach().numpy(), cos)
    dist = np.linalg.norm(a - b + 1e-6, axis=1)
    np.testing.assert_allclose(F.pairwise_distance(ta, tb).detach().numpy(), dist)
    np.testing.assert_allclose(nn.PairwiseDistance()(ta, tb).detach().numpy(), dist)
    d1 = np.abs(a - b + 1e-6).sum(1, keepdims=True)
    np.testing.assert_allclose(F.pairwise_distance(ta, tb, p=1, keepdim=True).detach().numpy(), d1)
    for fn in (F.normalize, F.cosine_similarity, F.pairwise_distance):
        args = (ta,) if fn is F.normalize else (ta, tb)
        assert torch.autograd.gradcheck(fn, args)


def test_normalize_zero_vector_has_a_finite_gradient():
    x = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    F.normalize(x, eps=1e-3).sum().backward()  # x / eps near zero
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 1e3))


def test_pdist():
    a = np.random.RandomState(1).randn(4, 3)
    got = F.pdist(torch.tensor(a)).numpy()
    expected = [np.linalg.norm(a[i] - a[j]) for i in range(4) for j in range(i + 1, 4)]
    np.testing.assert_allclose(got, expected)


def test_one_hot():
    t = torch.tensor([[0, 2], [1, 0]])
    out = F.one_hot(t)
    assert out.dtype == torch.int64 and out.shape == (2, 2, 3)
    assert out.tolist() == [[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [1, 0, 0]]]
    assert F.one_hot(torch.tensor([1]), num_classes=4).tolist() == [[0, 1, 0, 0]]
    with pytest.raises(RuntimeError):
        F.one_hot(torch.tensor([3]), 3)
    with pytest.raises(RuntimeError):
        F.one_hot(torch.tensor([1.0]), 3)


def test_local_response_norm():
    x = np.random.RandomState(2).randn(2, 5, 3)
    size, alpha, beta, k = 3, 1e-2, 0.75, 2.0
    sq = np.pad(x**2, ((0, 0), (1, 1), (0, 0)))
    div = (k + alpha / size * sum(sq[:, i : i + 5] for i in range(size))) ** beta
    got = nn.LocalResponseNorm(size, alpha, beta, k)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(got, x / div)


REPRS = {
    "ReLU()": lambda: nn.ReLU(),
    "ReLU(inplace=True)": lambda: nn.ReLU(inplace=True),
    "LeakyReLU(negative_slope=0.2, inplace=True)": lambda: nn.LeakyReLU(0.2, True),
    "PReLU(num_parameters=3)": lambda: nn.PReLU(3),
    "ELU(alpha=1.0)": lambda: nn.ELU(),
    "GELU(approximate='tanh')": lambda: nn.GELU("tanh"),
    "Hardtanh(min_val=-1.0, max_val=1.0)": lambda: nn.Hardtanh(),
    "Softplus(beta=1.0, threshold=20.0)": lambda: nn.Softplus(),
    "Softmax(dim=1)": lambda: nn.Softmax(dim=1),
    "Threshold(threshold=0.1, value=20)": lambda: nn.Threshold(0.1, 20),
    "GLU(dim=-1)": lambda: nn.GLU(),
    "Softshrink(0.5)": lambda: nn.Softshrink(),
    "Linear(in_features=3, out_features=4, bias=False)": lambda: nn.Linear(3, 4, bias=False),
    "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)": lambda: nn.Bilinear(
        2, 3, 4
    ),
    "Flatten(start_dim=1, end_dim=-1)": lambda: nn.Flatten(),
    "Unflatten(dim=1, unflattened_size=(2, 5))": lambda: nn.Unflatten(1, (2, 5)),
    "Conv1d(2, 3, kernel_size=(3,), stride=(1,))": lambda: nn.Conv1d(2, 3, 3),
    "Conv2d(2, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))": (
        lambda: nn.Conv2d(2, 4, 3, stride=2, padding=1)
    ),
    "Conv2d(2, 4, kernel_size=(3, 5), stride=(1, 1), padding=same, dilation=(2, 2), groups=2, "
    "bias=False, padding_mode=reflect)": lambda: nn.Conv2d(
        2, 4, (3, 5), padding="same", dilation=2, groups=2, bias=False, padding_mode="reflect"
    ),
    "ConvTranspose2d(2, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), "
    "output_padding=(1, 1))": lambda: nn.ConvTranspose2d(2, 4, 3, 2, 1, 1),
    "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)": (
        lambda: nn.MaxPool2d(2)
    ),
    "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))": lambda: nn.AvgPool1d(3),
    "AvgPool2d(kernel_size=2, stride=2, padding=0)": lambda: nn.AvgPool2d(2),
    "AdaptiveAvgPool2d(output_size=(3, None))": lambda: nn.AdaptiveAvgPool2d((3, None)),
    "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)": (
        lambda: nn.BatchNorm1d(3)
    ),
    "BatchNorm2d(3, eps=1e-05, momentum=None, affine=False, bias=False, "
    "track_running_stats=False)": lambda: nn.BatchNorm2d(
        3, momentum=None, affine=False, track_running_stats=False
    ),
    "LayerNorm((2, 3), eps=1e-05, elementwise_affine=False, bias=False)": (
        lambda: nn.LayerNorm([2, 3], elementwise_affine=False)
    ),
    "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)": lambda: nn.GroupNorm(2, 4),
    "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
    "track_running_stats=False)": lambda: nn.InstanceNorm2d(3),
    "Dropout(p=0.2, inplace=True)": lambda: nn.Dropout(0.2, True),
    "Dropout2d(p=0.5, inplace=False)": lambda: nn.Dropout2d(),
    "Embedding(10, 3, padding_idx=0, max_norm=1.0, scale_grad_by_freq=True, sparse=True)": (
        lambda: nn.Embedding(
            10, 3, padding_idx=0, max_norm=1.0, scale_grad_by_freq=True, sparse=True
        )
    ),
    "EmbeddingBag(10, 3, mode='sum', padding_idx=1)": (
        lambda: nn.EmbeddingBag(10, 3, mode="sum", padding_idx=1)
    ),
    "RNN(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5, bidirectional=True)": (
        lambda: nn.RNN(
            3,
            4,
            2,
            nonlinearity="relu",
            bias=False,
            batch_first=True,
            dropout=0.5,
            bidirectional=True,
        )  # fmt: skip
    ),
    "LSTM(3, 4, proj_size=2)": lambda: nn.LSTM(3, 4, proj_size=2),
    "GRUCell(3, 4, bias=False)": lambda: nn.GRUCell(3, 4, bias=False),
    "Upsample(scale_factor=2.0, mode='nearest')": lambda: nn.Upsample(scale_factor=2),
    "Upsample(size=(3, 4), mode='bilinear')": (
        lambda: nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True)
    ),
    "PixelShuffle(upscale_factor=2)": lambda: nn.PixelShuffle(2),
    "CrossEntropyLoss()": lambda: nn.CrossEntropyLoss(),
    "ZeroPad2d((1, 1, 1, 1))": lambda: nn.ZeroPad2d(1),
    "ConstantPad1d(padding=(2, 2), value=3.5)": lambda: nn.ConstantPad1d(2, 3.5),
    "ReflectionPad2d((1, 2, 3, 4))": lambda: nn.ReflectionPad2d((1, 2, 3, 4)),
    "MultiheadAttention(\n"
    "  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n"
    ")": lambda: nn.MultiheadAttention(8, 2),
}


@pytest.mark.parametrize("expected", sorted(REPRS))
def test_layer_repr(expected):
    assert repr(REPRS[expected]()) == expected


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")
def test_transformer_encoder_layer_repr_and_keys():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    text = repr(layer)
    assert text.startswith("TransformerEncoderLayer(\n  (self_attn): MultiheadAttention(\n")
    assert "  (linear1): Linear(in_features=8, out_features=16, bias=True)\n" in text
    assert "  (norm2): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)\n" in text
    assert list(layer.state_dict()) == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
        "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
        "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias",
    ]  # fmt: skip
    enc = nn.TransformerEncoder(layer, 3)
    assert len(enc.layers) == 3 and enc.layers[0] is not layer
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight


def test_batchnorm_buffers_and_state_dict_keys():
    bn = nn.BatchNorm2d(3)
    assert list(bn.state_dict()) == [
        "weight", "bias", "running_mean", "running_var", "num_batches_tracked",
    ]  # fmt: skip
    assert bn.num_batches_tracked.dtype == torch.int64
    assert list(nn.BatchNorm1d(3, affine=False, track_running_stats=False).state_dict()) == []


def test_conv_constructor_checks():
    with pytest.raises(ValueError):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError):
        nn.Conv2d(2, 4, 3, padding="same", stride=2)
    with pytest.raises(ValueError):
        nn.Conv2d(2, 4, 3, padding_mode="mirror")
    with pytest.raises(ValueError):
        nn.Conv2d(2, 4, 3, padding="full")
    c = nn.Conv2d(4, 6, (3, 5), groups=2)
    assert c.weight.shape == (6, 2, 3, 5) and c.bias.shape == (6,)
    t = nn.ConvTranspose2d(4, 6, 3, groups=2)
    assert t.weight.shape == (4, 3, 3, 3)


def test_embedding_from_pretrained_and_checks():
    w = torch.arange(6.0).reshape(3, 2)
    emb = nn.Embedding.from_pretrained(w)
    assert emb.weight.requires_grad is False and torch.equal(emb.weight, w)
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad
    with pytest.raises(AssertionError):
        nn.Embedding(3, 2, padding_idx=5)
    assert nn.Embedding(3, 2, padding_idx=-1).padding_idx == 2
