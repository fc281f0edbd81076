"""clamp's and the norms' gradients where PyTorch defines them by convention: clamp passes
the gradient through where min <= x <= max (bounds included), a norm's gradient at a zero
vector is 0. Expected values are PyTorch 2.13's; away from those points, finite
differences (gradcheck) are the oracle."""

import math

import pytest

import torch
import torch.nn.functional as F
from torch.autograd import gradcheck

NAN = math.nan
X = [-1.0, 0.0, 1.0, 2.0, -2.0, NAN]


def grads(fn, *values):
    xs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    fn(*xs).sum().backward()
    return [x.grad.tolist() for x in xs]


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        (lambda x: torch.clamp(x, -1, 1), [1, 1, 1, 0, 0, 0]),
        (lambda x: torch.clip(x, -1, 1), [1, 1, 1, 0, 0, 0]),
        (lambda x: x.clamp(min=0.0), [0, 1, 1, 1, 0, 0]),
        (lambda x: torch.clamp_min(x, 0), [0, 1, 1, 1, 0, 0]),
        (lambda x: x.clamp_max(0), [1, 1, 0, 0, 1, 0]),
        (lambda x: torch.clamp(x, 1, 0), [0, 0, 0, 0, 0, 0]),  # min > max: all max
        (lambda x: (x * 1).clamp_(-1, 1), [1, 1, 1, 0, 0, 0]),
        (lambda x: (x * 1).clip_(-1, 1), [1, 1, 1, 0, 0, 0]),
        (lambda x: (x * 1).clamp_min_(0), [0, 1, 1, 1, 0, 0]),
    ],
)
def test_clamp_scalar_bounds(fn, expected):
    assert grads(fn, X) == [expected]


def test_clamp_values_unchanged():
    x = torch.tensor(X)
    assert torch.equal(torch.clamp(x, -1, 1)[:5], torch.tensor([-1.0, 0, 1, 1, -1]))
    assert torch.isnan(torch.clamp(x.requires_grad_(), -1, 1)[5])


@pytest.mark.parametrize(
    ("x", "lo", "hi", "expected"),
    [
        (X, [-1.0, -1, 0, 3, -2, 0], [1.0, 0, 0, 2, -3, 1],
         [[1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0]]),
        ([0.0, 5, -5, 0.5], [1.0] * 4, [0.0] * 4, [[0] * 4, [0] * 4, [1] * 4]),  # min > max
        ([0.0, 5, -5, 1], [1.0] * 4, [1.0] * 4, [[0, 0, 0, 1], [0] * 4, [0, 1, 0, 0]]),
        ([0.0, 5], [NAN, 1], [1.0, NAN], [[0, 0], [0, 0], [0, 0]]),
    ],
)  # fmt: skip
def test_clamp_tensor_bounds(x, lo, hi, expected):
    assert grads(torch.clamp, x, lo, hi) == expected


def test_clamp_one_tensor_bound():
    assert grads(lambda x, lo: torch.clamp(x, min=lo), [0.0, 1, 2], [1.0] * 3) == [
        [0, 1, 1],
        [1, 0, 0],
    ]
    assert grads(lambda x, hi: torch.clamp(x, max=hi), [0.0, 1, 2], [1.0] * 3) == [
        [1, 1, 0],
        [0, 0, 1],
    ]


def test_clamp_gradcheck_away_from_bounds():
    x = torch.tensor([-2.0, -0.3, 0.4, 2.5], dtype=torch.float64, requires_grad=True)
    lo = torch.tensor([-1.0, -1.0, 0.0, 0.0], dtype=torch.float64, requires_grad=True)
    hi = torch.tensor([1.0, 1.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    assert gradcheck(torch.clamp, (x, lo, hi))
    assert gradcheck(lambda x: torch.clamp(x, -1, 1) ** 2, (x,))


ZEROS = [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: x.norm(),
        lambda x: x.norm(1),
        lambda x: x.norm(3),
        lambda x: x.norm(0.5),
        lambda x: x.norm(math.inf),
        lambda x: torch.norm(x, p="fro"),
        lambda x: torch.linalg.vector_norm(x),
        lambda x: torch.linalg.vector_norm(x, 3),
        lambda x: torch.linalg.norm(x),
        lambda x: torch.linalg.matrix_norm(x.reshape(1, 3)),
        lambda x: torch.dist(x, torch.zeros(3, dtype=torch.float64)),
        lambda x: torch.dist(x, torch.zeros(3, dtype=torch.float64), 3),
    ],
)
def test_norm_gradient_at_zero_is_zero(fn):
    assert grads(fn, ZEROS) == [[0.0, 0.0, 0.0]]


def test_norm_zero_rows_and_0d():
    # one zero row beside a non-zero one: 0 for the zero row, x / |x| for the other
    g = grads(lambda x: x.norm(dim=1), [[0.0, 0.0], [3.0, 4.0]])[0]
    assert g[0] == [0.0, 0.0] and g[1] == pytest.approx([0.6, 0.8])
    g = grads(lambda x: torch.linalg.vector_norm(x, dim=1, keepdim=True), [[0.0, 0], [3, 4]])
    assert g[0][0] == [0.0, 0.0] and g[0][1] == pytest.approx([0.6, 0.8])
    assert grads(lambda x: torch.linalg.vector_norm(x), 0.0) == [0.0]


def test_norm_double_backward_at_zero():
    x = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(x.norm(), x, create_graph=True)
    assert g.tolist() == [0.0, 0.0, 0.0] and g.requires_grad
    (gg,) = torch.autograd.grad(g.sum(), x, allow_unused=True)
    assert gg is None or not torch.isnan(gg).any()


def test_norm_gradcheck_away_from_zero():
    x = torch.tensor([[0.5, -1.5, 2.0], [0.0, 0.0, 0.0]], dtype=torch.float64)
    x = (x + torch.tensor([[0.0], [0.7]], dtype=torch.float64)).requires_grad_()
    assert gradcheck(lambda x: x.norm(dim=1), (x,))
    assert gradcheck(lambda x: x.norm(p=3, dim=1), (x,))
    assert gradcheck(lambda x: torch.linalg.vector_norm(x, 2.5, dim=0), (x,))
    assert gradcheck(lambda x: torch.linalg.matrix_norm(x), (x,))
    y = torch.randn(2, 3, dtype=torch.float64)
    assert gradcheck(lambda x: torch.dist(x, y), (x,))


def test_normalize_and_pairwise_distance_at_zero():
    # F.normalize divides by max(|x|, eps): 1/eps at a zero vector, as in PyTorch
    assert grads(lambda x: F.normalize(x, dim=0), [0.0, 0.0]) == [[1e12, 1e12]]
    assert grads(lambda x: F.normalize(x, p=1, dim=0), [0.0, 0.0]) == [[1e12, 1e12]]
    g = grads(lambda x, y: F.pairwise_distance(x, y), [[0.0, 0.0]], [[0.0, 0.0]])
    assert g[0][0] == pytest.approx([0.5**0.5] * 2) and g[1][0] == pytest.approx([-(0.5**0.5)] * 2)


def test_dist_values():
    a, b = torch.tensor([1.0, 2.0, 4.0]), torch.tensor([0.0, 0.0, 0.0])
    assert torch.dist(a, b).item() == pytest.approx(21**0.5)
    assert torch.dist(a, b, 1).item() == 7.0
    assert a.dist(b, math.inf).item() == 4.0
