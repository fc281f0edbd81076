"""torch.jit's fused elementwise programs on a real GPU (csrc/cuda_fused.cpp): each program is
one generated kernel, and its results equal the same program run by the CPU's fused kernel
(csrc/fused.cpp), which the jit's tests hold equal to eager.

Runs only where ``torch.cuda.is_available()``; test_cuda_fake_driver.py checks the kernel's
compilation and launch on machines without a GPU.
"""

import numpy as np
import pytest

import torch

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)

CUDA = torch.device("cuda", torch.cuda.current_device())
# fused.h's op codes, in order
OPS = """add sub mul div maximum minimum
    addc subc rsubc mulc divc rdivc powc leaky_relu clamp_lo clamp_hi
    neg abs relu sigmoid tanh exp log sqrt rsqrt reciprocal erf gelu gelu_tanh silu sin cos
    """.split()
CODE = {name: i for i, name in enumerate(OPS)}
# the CPU's kernels and CUDA's libm may differ in the last bits
TOL = {torch.float32: dict(rtol=2e-6, atol=2e-6), torch.float64: dict(rtol=1e-13, atol=1e-13)}
POSITIVE = {"log", "sqrt", "rsqrt", "powc"}  # ops whose inputs are kept above 0 here


def _both(code, consts, inputs, outputs):
    """The program's outputs on the GPU (moved back) and on the CPU."""
    got = torch._C._fused_elementwise(code, consts, [t.to(CUDA) for t in inputs], outputs)
    want = torch._C._fused_elementwise(code, consts, inputs, outputs)
    assert got is not None and want is not None
    assert all(g.device == CUDA for g in got)
    return [g.cpu() for g in got], want


def _values(shape, dtype, seed, positive=False):
    rng = np.random.default_rng(seed)
    low = 0.1 if positive else -3.0
    return torch.from_numpy(rng.uniform(low, 3.0, shape)).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("op", OPS)
def test_each_op_equals_the_cpu_kernel(op, dtype):
    x = _values((257, 33), dtype, 0, positive=op in POSITIVE)
    y = _values((257, 33), dtype, 1, positive=True)
    x[0, :4] = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0], dtype=dtype)
    c = {"powc": 2.5, "leaky_relu": 0.2, "clamp_lo": -0.5, "clamp_hi": 0.5}.get(op, 0.75)
    got, want = _both([CODE[op], 2, 0, 1], [c], [x, y], [2])
    torch.testing.assert_close(got[0], want[0], equal_nan=True, **TOL[dtype])


def test_a_chain_with_broadcast_strided_inputs_and_two_outputs():
    # r3 = tanh(x * 0.5 + b), r5 = sigmoid(r3) * t: b broadcasts over rows, t is transposed
    code = [CODE["mulc"], 3, 0, 0, CODE["add"], 4, 3, 1, CODE["tanh"], 5, 4, 0]
    code += [CODE["sigmoid"], 3, 5, 0, CODE["mul"], 4, 3, 2]
    consts = [0.5, 0.0, 0.0, 0.0, 0.0]
    x = _values((64, 300), torch.float32, 2)
    b = _values((300,), torch.float32, 3)
    t = _values((300, 64), torch.float32, 4).t()
    got, want = _both(code, consts, [x, b, t], [4, 5])
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, **TOL[torch.float32])
    # a 0-d input, and inputs of three dims that do not merge
    s = torch.tensor(1.5, dtype=torch.float64)
    u = _values((5, 1, 7), torch.float64, 5)
    v = _values((6, 7), torch.float64, 6)[::2]
    got, want = _both([CODE["mul"], 3, 0, 1, CODE["add"], 4, 3, 2], [0.0, 0.0], [s, u, v], [4])
    assert got[0].shape == (5, 3, 7)
    torch.testing.assert_close(got[0], want[0], **TOL[torch.float64])


def test_empty_and_one_element():
    code = [CODE["exp"], 2, 0, 0, CODE["add"], 3, 2, 1]
    x, y = torch.randn(0, 5), torch.randn(5)
    got = torch._C._fused_elementwise(code, [0.0, 0.0], [x.to(CUDA), y.to(CUDA)], [3])
    assert got[0].shape == (0, 5) and got[0].device == CUDA
    got, want = _both(code, [0.0, 0.0], [torch.randn(1, 1), torch.randn(1)], [3])
    torch.testing.assert_close(got[0], want[0], **TOL[torch.float32])


def test_offsets_beyond_32_bits():
    # a view whose elements lie 2^30 floats apart: its offsets need 64-bit index math
    big = torch.zeros(2**31 + 8, device=CUDA)
    big[:: 2**30] = torch.tensor([1.0, 2.0, 3.0], device=CUDA)
    x = big[:: 2**30]
    (got,) = torch._C._fused_elementwise([CODE["mulc"], 1, 0, 0], [2.0], [x], [1])
    assert got.cpu().tolist() == [2.0, 4.0, 6.0]
    del big
    torch.cuda.empty_cache()
