"""torch.autograd.forward_ad: dual tensors' tangents against closed forms, finite
differences and reverse mode, custom Functions with jvp, gradcheck's forward check and the
errors PyTorch raises."""

import math

import pytest

import torch
import torch.autograd.forward_ad as fwAD

D = torch.float64


def _gen(seed):
    return torch.Generator().manual_seed(seed)


def test_tangents_match_closed_forms():
    x = torch.randn(5, dtype=D, generator=_gen(0))
    v = torch.randn(5, dtype=D, generator=_gen(1))
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        y = d.sin() * d + d.exp().sum()
        got = fwAD.unpack_dual(y).tangent
    want = (x.cos() * x + x.sin()) * v + (x.exp() * v).sum()
    torch.testing.assert_close(got, want)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, w: torch.tanh(x @ w).sum(0),
        lambda x, w: torch.softmax(x @ w, -1) * 3,
        lambda x, w: (x.unsqueeze(-1) * w).norm(dim=1),
        lambda x, w: torch.nn.functional.layer_norm(x @ w, (4,)),
    ],
)
def test_tangents_match_finite_differences_with_two_duals(fn):
    x = torch.randn(3, 5, dtype=D, generator=_gen(2))
    w = torch.randn(5, 4, dtype=D, generator=_gen(3))
    tx, tw = torch.randn_like(x), torch.randn_like(w)
    with fwAD.dual_level():
        got = fwAD.unpack_dual(fn(fwAD.make_dual(x, tx), fwAD.make_dual(w, tw))).tangent
    eps = 1e-6
    want = (fn(x + eps * tx, w + eps * tw) - fn(x - eps * tx, w - eps * tw)) / (2 * eps)
    torch.testing.assert_close(got, want, rtol=1e-6, atol=1e-7)


def test_duals_keep_reverse_mode_and_tensors_without_duals_have_no_tangent():
    w = torch.randn(4, dtype=D, generator=_gen(4), requires_grad=True)
    t = torch.randn(4, dtype=D, generator=_gen(5))
    plain = torch.randn(4, dtype=D, generator=_gen(6))
    with fwAD.dual_level():
        dw = fwAD.make_dual(w, t)
        out = (dw * dw).sum()
        assert fwAD.unpack_dual(dw).tangent is t
        assert fwAD.unpack_dual(plain * 2).tangent is None
        torch.testing.assert_close(fwAD.unpack_dual(out).tangent, 2 * (w * t).sum())
    out.backward()  # backward still reaches w through the dual
    torch.testing.assert_close(w.grad, 2 * w.detach())
    assert fwAD.unpack_dual(out).tangent is None  # the level is closed


def test_custom_function_with_only_jvp():
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.result = torch.exp(x)
            return ctx.result

        @staticmethod
        def jvp(ctx, tangent):
            return tangent * ctx.result

    x = torch.randn(3, 3, dtype=D, generator=_gen(7))
    v = torch.randn(3, 3, dtype=D, generator=_gen(8))
    with fwAD.dual_level():
        y = Exp.apply(fwAD.make_dual(x, v)) * 2
        torch.testing.assert_close(fwAD.unpack_dual(y).tangent, 2 * v * x.exp())
    assert torch.autograd.gradcheck(
        Exp.apply,
        (x.clone().requires_grad_(),),
        check_forward_ad=True,
        check_backward_ad=False,
        check_undefined_grad=False,
        check_batched_grad=False,
    )


def test_gradcheck_forward_mode_catches_a_wrong_jvp():
    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def jvp(ctx, tangent):
            return tangent  # the derivative is 2x

    x = torch.randn(4, dtype=D, generator=_gen(9), requires_grad=True)
    from torch.autograd.gradcheck import GradcheckError

    with pytest.raises(GradcheckError, match="forward mode"):
        torch.autograd.gradcheck(Wrong.apply, (x,), check_forward_ad=True, check_backward_ad=False)
    # both modes on an ordinary function
    assert torch.autograd.gradcheck(lambda t: t.sin() * t, (x,), check_forward_ad=True)


def test_errors_as_pytorch():
    x = torch.randn(3)
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(x, torch.randn(3))
    with fwAD.dual_level() as level:
        assert level == 0
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(x, torch.randn(4))
    assert fwAD.unpack_dual(x) == (x, None)


def test_jvp_of_a_scalar_function_matches_the_derivative():
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor(0.3, dtype=D), torch.tensor(1.0, dtype=D))
        got = fwAD.unpack_dual(torch.atan(d) ** 2).tangent
    assert got.item() == pytest.approx(2 * math.atan(0.3) / (1 + 0.09), rel=1e-12)
