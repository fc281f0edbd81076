"""gradcheck's and gradgradcheck's keywords each do what they say, or raise TypeError."""

import pytest

import torch
from torch.autograd import Function, gradcheck, gradgradcheck
from torch.autograd.gradcheck import GradcheckError

F64 = torch.float64


def leaf(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=F64, generator=g).requires_grad_()


class NoisyGrad(Function):
    """x * 3 whose backward adds a tiny random error: not reentrant."""

    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return g * (3 + torch.rand(g.shape, dtype=g.dtype) * 1e-9)


class Float32Grad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return (g * 2).to(torch.float32)


class WrongGrad(Function):
    """sin(x) with the derivative of -cos(x)'s sign flipped at one place."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.cos() * 1.01


def test_nondet_tol():
    x = leaf(4)
    with pytest.raises(GradcheckError, match="not reentrant"):
        gradcheck(NoisyGrad.apply, (x,))
    assert gradcheck(NoisyGrad.apply, (x,), nondet_tol=1e-6)


def test_function_gradients_take_their_inputs_dtype_and_shape():
    # the engine converts a custom Function's gradient to its input's dtype (as PyTorch's
    # does) and sums a broadcast one back to the input's shape; other shapes are errors
    x = leaf(3)
    (g,) = torch.autograd.grad(Float32Grad.apply(x).sum(), x)
    assert g.dtype == F64 and torch.equal(g, torch.full((3,), 2.0, dtype=F64))
    assert gradcheck(Float32Grad.apply, (x,), check_grad_dtypes=True, atol=1e-4)

    class Broadcast(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g.expand(2, *g.shape)

    (g,) = torch.autograd.grad(Broadcast.apply(x).sum(), x)
    assert torch.equal(g, torch.full((3,), 2.0, dtype=F64))

    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g[:2]

    with pytest.raises(RuntimeError, match="invalid gradient at index 0"):
        torch.autograd.grad(WrongShape.apply(x).sum(), x)


def test_batched_grad_matches_rows():
    x = leaf(2, 3)
    y = (x.exp() * torch.arange(3.0, dtype=F64)).sum(0)
    gos = torch.randn(4, 3, dtype=F64)
    (batched,) = torch.autograd.grad(y, x, gos, retain_graph=True, is_grads_batched=True)
    assert batched.shape == (4, 2, 3)
    for b in range(4):
        (row,) = torch.autograd.grad(y, x, gos[b], retain_graph=True)
        assert torch.allclose(batched[b], row)
    assert gradcheck(lambda x: x.exp().sum(0), (x,), check_batched_grad=True)


def test_fast_mode_catches_a_wrong_gradient():
    x = leaf(5)
    assert gradcheck(torch.sin, (x,), fast_mode=True)
    with pytest.raises(GradcheckError, match="fast mode"):
        gradcheck(WrongGrad.apply, (x,), fast_mode=True)
    z = torch.randn(3, dtype=torch.complex128).requires_grad_()
    assert gradcheck(lambda z: z * z.conj() + z.exp(), (z,), fast_mode=True)


class IgnoresGradOutput(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return torch.full_like(g, 2.0)


def test_backward_must_scale_with_grad_output():
    with pytest.raises(GradcheckError, match="not multiplied by grad_output|Jacobian mismatch"):
        gradcheck(IgnoresGradOutput.apply, (leaf(3),))


def test_raise_exception_false_returns_false():
    assert gradcheck(WrongGrad.apply, (leaf(3),), raise_exception=False) is False


def test_gradgradcheck_non_contiguous_grad_outputs():
    assert gradgradcheck(lambda x: x.sin() * x, (leaf(3, 2),), gen_non_contig_grad_outputs=True)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"check_batched_forward_grad": True},
        {"masked": True},
        {"no_such_option": 1},
    ],
)
def test_unsupported_options_raise_type_error(kwargs):
    if not torch.__version__.startswith("0.1") and "no_such_option" not in kwargs:
        pytest.skip("PyTorch has batched forward-mode AD and masked tensors")
    with pytest.raises(TypeError):
        gradcheck(torch.sin, (leaf(2),), **kwargs)
