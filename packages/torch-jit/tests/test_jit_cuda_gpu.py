"""torch.jit's fusion groups on a real GPU: a traced (or compiled) function of CUDA tensors runs
each group as one generated kernel (csrc/cuda_fused.cpp) and gives eager CUDA's numbers.

Runs only where ``torch.cuda.is_available()`` (tools/gpu_check.sh runs it on the GPU
machine); test_jit_fusion.py holds the same functions on the CPU.
"""

import pytest

import torch

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)

from test_jit_fusion import OPS, GeluMLP, LSTMCell  # noqa: E402  (this folder's CPU tests)

import torch.jit  # noqa: E402

CUDA = torch.device("cuda", torch.cuda.current_device())
# one kernel against several: FMA contraction and libm may round the last bits differently
TOL = {torch.float32: dict(rtol=1e-5, atol=1e-5), torch.float64: dict(rtol=1e-12, atol=1e-12)}


@pytest.fixture
def calls(monkeypatch):
    """Counts the fused kernel's runs that did not answer None."""
    count = [0]
    kernel = torch._C._fused_elementwise

    def counted(*args):
        out = kernel(*args)
        count[0] += out is not None
        return out

    monkeypatch.setattr(torch._C, "_fused_elementwise", counted)
    return count


def _trace(fn, args):
    return torch.jit.trace(fn, args, check_trace=False)  # (NaN outputs fail the check)


def _check(fn, args, calls, dtype=torch.float32, trace=_trace):
    compiled = trace(fn, args)
    with torch.no_grad():
        compiled(*args)  # (torch.compile traces on its first call)
        before = calls[0]
        got = compiled(*args)
        expected = fn(*args)
    assert calls[0] > before, "the fused kernel did not run"
    for g, e in zip(*(t if isinstance(t, tuple) else (t,) for t in (got, expected))):
        assert g.device == CUDA
        torch.testing.assert_close(g, e, equal_nan=True, **TOL[dtype])


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(OPS))
def test_each_op_fused_on_cuda_equals_eager(name, dtype, calls):
    torch.manual_seed(0)
    x, y = (torch.randn(37, 29, dtype=dtype).to(CUDA) for _ in range(2))
    _check(lambda a, b: OPS[name](a, b), (x, y), calls, dtype)


def test_gelu_mlp_and_lstm_cell_on_cuda(calls):
    torch.manual_seed(0)
    mlp = GeluMLP().to(CUDA)
    _check(mlp, (torch.randn(64, 16, device=CUDA),), calls)
    cell = LSTMCell().to(CUDA)
    args = tuple(torch.randn(32, n, device=CUDA) for n in (8, 12, 12))
    _check(cell, args, calls)


def test_torch_compile_fuses_on_cuda(calls):
    torch.manual_seed(0)
    x = torch.randn(1000, 33, device=CUDA)
    _check(
        lambda a: torch.tanh(a * 0.7 + 1.0) * torch.sigmoid(a),
        (x,),
        calls,
        trace=lambda fn, args: torch.compile(fn),
    )
