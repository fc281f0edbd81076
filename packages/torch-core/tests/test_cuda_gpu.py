"""The CUDA backend on a real GPU: every result is checked against the same computation on
the CPU (or NumPy), never against hard-coded values.

Runs only where ``torch.cuda.is_available()``; elsewhere the whole module is skipped
(test_cuda_cpu.py covers the machines without a GPU). The first run compiles the kernels
with NVRTC (later runs find them in the on-disk cache).
"""

import io
import math

import numpy as np
import pytest

import torch

if not torch.cuda.is_available():
    pytest.skip("no usable CUDA GPU", allow_module_level=True)

CUDA = torch.device("cuda", torch.cuda.current_device())
FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
ALL_DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]
# elementwise results: the CPU and the GPU may round the last bit differently
TOL = {
    torch.float64: dict(rtol=1e-12, atol=1e-12),
    torch.float32: dict(rtol=1e-5, atol=1e-5),
    torch.float16: dict(rtol=2e-3, atol=2e-3),
    torch.bfloat16: dict(rtol=1.6e-2, atol=1.6e-2),
}


def _rng(seed=0):
    return np.random.default_rng(seed)


def _values(shape, dtype, low=-3.0, high=3.0, seed=0):
    """A CPU tensor of `dtype` with random values (ints in a range the dtype holds)."""
    rng = _rng(seed)
    if dtype == torch.bool:
        return torch.from_numpy(rng.random(shape) < 0.5)
    if dtype.is_floating_point:
        return torch.from_numpy(rng.uniform(low, high, shape)).to(dtype)
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -100), min(info.max, 100)
    return torch.from_numpy(rng.integers(lo, hi + 1, shape)).to(dtype)


def _same(cuda_result, cpu_result, **tol):
    """`cuda_result` is on the GPU and matches `cpu_result` (exactly for ints and bools)."""
    assert cuda_result.device.type == "cuda", cuda_result.device
    got = cuda_result.cpu()
    assert got.dtype == cpu_result.dtype and got.shape == cpu_result.shape
    if cpu_result.dtype.is_floating_point:
        torch.testing.assert_close(got, cpu_result, equal_nan=True, **(tol or TOL[got.dtype]))
    else:
        assert torch.equal(got, cpu_result)


# ---------------------------------------------------------------- devices
def test_device_queries():
    n = torch.cuda.device_count()
    assert n >= 1 and 0 <= torch.cuda.current_device() < n
    props = torch.cuda.get_device_properties()
    major, minor = torch.cuda.get_device_capability()
    assert (props.major, props.minor) == (major, minor) and major >= 5
    assert isinstance(props.name, str) and props.name == torch.cuda.get_device_name(0)
    assert props.multi_processor_count > 0
    free, total = torch.cuda.mem_get_info()
    assert total == props.total_memory and 0 < free <= total
    assert props.name in repr(props) and f"major={major}" in repr(props)
    assert torch.cuda.is_bf16_supported() == (major >= 8)
    assert f"sm_{major}{minor}" in torch.cuda.get_arch_list()
    assert torch.cuda.is_initialized()
    with torch.cuda.device(0):
        assert torch.cuda.current_device() == 0
    x = torch.ones(2, device="cuda")
    assert x.is_cuda and x.device == CUDA and x.get_device() == CUDA.index
    with torch.cuda.device_of(x):
        assert torch.cuda.current_device() == CUDA.index
    torch.cuda.synchronize()


def test_factories_and_the_default_device():
    for make in (
        lambda d: torch.zeros(3, 4, device=d),
        lambda d: torch.ones(5, dtype=torch.int32, device=d),
        lambda d: torch.full((2, 3), 2.5, device=d),
        lambda d: torch.arange(10, device=d),
        lambda d: torch.eye(4, device=d),
        lambda d: torch.tensor([[1.0, 2.0], [3.0, 4.0]], device=d),
        lambda d: torch.linspace(0, 1, 7, device=d),
    ):
        _same(make("cuda"), make("cpu"))
    like = torch.zeros_like(torch.ones(3, device="cuda"))
    assert like.device == CUDA and torch.equal(like.cpu(), torch.zeros(3))
    assert torch.empty(4, device="cuda").device == CUDA
    try:
        torch.set_default_device("cuda")
        assert torch.get_default_device() == CUDA
        assert torch.zeros(3).device == CUDA and torch.tensor([1, 2]).device == CUDA
    finally:
        torch.set_default_device(None)
    assert torch.zeros(3).device.type == "cpu"


# ---------------------------------------------------------------- memory
def test_memory_counters_follow_allocations():
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    nbytes = 256 * 2**20
    x = torch.empty(nbytes // 4, device="cuda")
    assert torch.cuda.memory_allocated() >= base + nbytes
    assert torch.cuda.max_memory_allocated() >= base + nbytes
    assert torch.cuda.memory_reserved() >= torch.cuda.memory_allocated()
    stats = torch.cuda.memory_stats()
    for key in (
        "allocated_bytes.all.current",
        "allocated_bytes.all.peak",
        "reserved_bytes.all.current",
        "reserved_bytes.all.peak",
        "num_alloc_retries",
        "num_ooms",
    ):
        assert key in stats
    assert stats["allocated_bytes.all.current"] == torch.cuda.memory_allocated()
    del x
    assert torch.cuda.memory_allocated() == base
    reserved = torch.cuda.memory_reserved()
    assert reserved >= nbytes  # the allocator keeps the block for reuse
    torch.cuda.reset_peak_memory_stats()
    assert torch.cuda.max_memory_allocated() == torch.cuda.memory_allocated()
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved() <= reserved - nbytes
    assert "allocated" in torch.cuda.memory_summary()


def test_out_of_memory_raises_and_allocation_still_works():
    ooms = torch.cuda.memory_stats()["num_ooms"]
    with pytest.raises(torch.cuda.OutOfMemoryError):
        torch.empty(2**50 // 4, device="cuda")  # a petabyte
    assert torch.cuda.memory_stats()["num_ooms"] >= ooms + 1
    assert issubclass(torch.cuda.OutOfMemoryError, RuntimeError)
    assert torch.ones(1000, device="cuda").sum().item() == 1000


# ---------------------------------------------------------------- streams and events
def test_events_time_work_and_streams_switch():
    x = torch.randn(4096, 4096, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        y = x + x
    end.record()
    end.synchronize()
    assert end.query() and start.elapsed_time(end) > 0

    default = torch.cuda.current_stream()
    assert default == torch.cuda.default_stream()
    s = torch.cuda.Stream()
    assert s != default and s.device == CUDA
    s.wait_stream(default)  # x and y were made on the default stream
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() == s
        z = y * 2
        done = s.record_event()
    assert torch.cuda.current_stream() == default
    default.wait_event(done)
    s.synchronize()
    assert s.query() and done.query()
    _same(z, (x.cpu() + x.cpu()) * 2)
    assert hash(s) == hash(torch.cuda.Stream._wrap(s.device_index, s.cuda_stream))
    high = torch.cuda.Stream(priority=-1)
    assert high.priority == -1 and isinstance(high.cuda_stream, int)


# ---------------------------------------------------------------- moving tensors
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trips_keep_every_value(dtype):
    base = _values((64, 48), dtype)
    for src in (base, base[::2, 1:], base.t(), base[:, 5]):  # contiguous and not
        on_gpu = src.to("cuda")
        assert on_gpu.device == CUDA and on_gpu.dtype == dtype and on_gpu.shape == src.shape
        assert torch.equal(on_gpu.cpu(), src)
        assert torch.equal(src.cuda().cpu(), src) and torch.equal(src.cuda(0).cpu(), src)
        # strided on the GPU, back to the CPU
        assert torch.equal(on_gpu.t().cpu(), src.t())
    g = base.cuda()
    assert g.cuda() is g and g.to("cuda") is g and g.to(CUDA) is g
    assert base.cpu() is base and g.cpu().device.type == "cpu"
    for other in (torch.float32, torch.int64, torch.float16):
        _same(base.to("cuda", other), base.to(other))  # cast and move at once
        assert torch.equal(g.to("cpu", other), base.to(other))
        assert torch.equal(g.to(other).cpu(), base.to(other))
    copy = g.to("cuda", copy=True)
    assert copy is not g and torch.equal(copy.cpu(), base)


def test_non_blocking_copies_from_pinned_memory():
    src = torch.randn(1 << 20)
    assert not src.is_pinned()
    pinned = src.pin_memory()
    assert pinned.is_pinned() and pinned.pin_memory() is pinned
    assert torch.equal(pinned, src)
    g = pinned.to("cuda", non_blocking=True)
    back = g.to("cpu", non_blocking=True)
    torch.cuda.synchronize()
    assert torch.equal(back, src)
    g2 = pinned.cuda(non_blocking=True)
    torch.cuda.current_stream().synchronize()
    assert torch.equal(g2.cpu(), src)
    with pytest.raises(RuntimeError):
        g.pin_memory()


# ---------------------------------------------------------------- random numbers
def test_manual_seed_reproduces_and_states_restore():
    torch.cuda.manual_seed(1234)
    a, b = torch.rand(1000, device="cuda"), torch.randn(1000, device="cuda")
    torch.cuda.manual_seed(1234)
    assert torch.equal(torch.rand(1000, device="cuda").cpu(), a.cpu())
    assert torch.equal(torch.randn(1000, device="cuda").cpu(), b.cpu())
    assert torch.cuda.initial_seed() == 1234
    torch.cuda.manual_seed_all(99)
    assert not torch.equal(torch.rand(1000, device="cuda").cpu(), a.cpu())
    state = torch.cuda.get_rng_state()
    assert state.dtype == torch.uint8 and state.device.type == "cpu"
    c = torch.rand(4096, device="cuda").cpu()
    torch.cuda.set_rng_state(state)
    assert torch.equal(torch.rand(4096, device="cuda").cpu(), c)
    assert len(torch.cuda.get_rng_state_all()) == torch.cuda.device_count()


def test_torch_manual_seed_seeds_the_gpus_too():
    torch.manual_seed(7)
    a = torch.randn(100, device="cuda").cpu()
    torch.manual_seed(7)
    assert torch.equal(torch.randn(100, device="cuda").cpu(), a)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_random_numbers_have_the_right_distribution(dtype):
    n = 1 << 22
    torch.cuda.manual_seed(2024)
    u = torch.rand(n, device="cuda", dtype=dtype).double().cpu()
    assert 0 <= u.min().item() and u.max().item() <= 1  # < 1 before rounding to dtype
    # 6 standard errors of the mean (the mean of n uniforms has std sqrt(1/12/n)); 16-bit
    # types round each draw, which shifts the mean by up to half a step
    half_step = {torch.float16: 2**-12, torch.bfloat16: 2**-9}.get(dtype, 0)
    assert abs(u.mean().item() - 0.5) < 6 * math.sqrt(1 / 12 / n) + half_step
    assert abs(u.std().item() - math.sqrt(1 / 12)) < 1e-3 + half_step
    z = torch.randn(n, device="cuda", dtype=dtype).double().cpu()
    assert abs(z.mean().item()) < 6 / math.sqrt(n) + half_step
    assert abs(z.std().item() - 1) < 6 * math.sqrt(0.5 / n) + 4 * half_step
    # a few draws more than 4 sigma out: the tails are there
    assert 0 < (z.abs() > 4).sum().item() < n * 1e-4


# ---------------------------------------------------------------- elementwise ops
def _pos(x):
    return x.abs() + 0.5


def _nnf():
    """torch.nn.functional (gelu, silu), from the torch-nn package."""
    return pytest.importorskip("torch.nn.functional")


UNARY = {
    "exp": torch.exp,
    "log": lambda x: torch.log(_pos(x)),
    "sqrt": lambda x: torch.sqrt(_pos(x)),
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "relu": torch.relu,
    "abs": torch.abs,
    "neg": torch.neg,
    "sin": torch.sin,
    "cos": torch.cos,
    "erf": torch.erf,
    "gelu": lambda x: _nnf().gelu(x),
    "silu": lambda x: _nnf().silu(x),
}
INT_UNARY = ("abs", "neg", "relu")
BINARY = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "pow": lambda a, b: torch.pow(_pos(a), b),
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "eq": torch.eq,
    "ne": torch.ne,
    "lt": torch.lt,
    "le": torch.le,
    "gt": torch.gt,
    "ge": torch.ge,
    "where": lambda a, b: torch.where(a > 0, a, b),
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2),
}
INT_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "eq", "lt", "ge", "where")
OP_DTYPES = FLOATS + [torch.int32, torch.int64]


def _inputs(dtype, seed):
    """(a, b) pairs on the CPU: same shape, broadcast, transposed, sliced."""
    a = _values((33, 65), dtype, seed=seed)
    b = _values((33, 65), dtype, seed=seed + 1)
    yield a, b
    yield _values((7, 1, 65), dtype, seed=seed), _values((1, 5, 65), dtype, seed=seed + 1)
    yield _values((65, 33), dtype, seed=seed).t(), b  # transposed
    yield _values((33, 130), dtype, seed=seed)[:, ::2], _values((40, 65), dtype)[3:36]  # sliced
    yield _values((1 << 18) + 3, dtype, seed=seed), _values((1 << 18) + 3, dtype, seed=seed + 1)


@pytest.mark.parametrize("dtype", OP_DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_match_the_cpu(name, dtype):
    if not dtype.is_floating_point and name not in INT_UNARY:
        pytest.skip("a floating-point function")
    op = UNARY[name]
    for a, _ in _inputs(dtype, 1):
        _same(op(a.cuda()), op(a))


@pytest.mark.parametrize("dtype", OP_DTYPES, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_match_the_cpu(name, dtype):
    if not dtype.is_floating_point and name not in INT_BINARY:
        pytest.skip("a floating-point function")
    op = BINARY[name]
    for a, b in _inputs(dtype, 2):
        _same(op(a.cuda(), b.cuda()), op(a, b))


@pytest.mark.parametrize("dtype", OP_DTYPES, ids=str)
def test_cpu_scalars_in_place_and_out(dtype):
    a, b = _values((17, 31), dtype, seed=3), _values((17, 31), dtype, seed=4)
    s = torch.tensor(3 if not dtype.is_floating_point else 2.5)  # a 0-d CPU tensor
    ga, gb = a.cuda(), b.cuda()
    _same(ga * s, a * s)
    _same(s + ga, s + a)
    _same(ga - 2, a - 2)
    _same(torch.maximum(ga, s.to(dtype)), torch.maximum(a, s.to(dtype)))
    ga.add_(gb)
    _same(ga, a + b)
    ga.mul_(s)
    _same(ga, (a + b) * s)
    out = torch.empty(17, 31, dtype=dtype, device="cuda")
    r = torch.sub(gb, ga, out=out)
    assert r is out
    _same(out, torch.sub(b, (a + b) * s))
    strided = torch.zeros(31, 17, dtype=dtype, device="cuda").t()  # a non-contiguous target
    strided.copy_(gb)
    _same(strided, b)
    mask = torch.empty(17, 31, dtype=torch.bool, device="cuda")
    torch.gt(gb, ga, out=mask)
    _same(mask, b > (a + b) * s)


def test_mixing_devices_raises_naming_both():
    g = torch.ones(3, device="cuda")
    for call in (
        lambda: g + torch.ones(3),
        lambda: torch.ones(3) * g,
        lambda: torch.mm(torch.ones(3, 3, device="cuda"), torch.ones(3, 3)),
        lambda: torch.where(torch.ones(3, dtype=torch.bool), g, g),
    ):
        with pytest.raises(RuntimeError) as info:
            call()
        message = str(info.value)
        assert "cuda" in message and "cpu" in message, message


# ---------------------------------------------------------------- reductions
RED_TOL = {
    torch.float64: dict(rtol=1e-10, atol=1e-10),
    torch.float32: dict(rtol=1e-4, atol=1e-4),
    torch.float16: dict(rtol=1e-2, atol=1e-2),
    torch.bfloat16: dict(rtol=5e-2, atol=5e-2),
}


@pytest.mark.parametrize("dtype", OP_DTYPES, ids=str)
def test_reductions_match_the_cpu(dtype):
    x = _values((37, 129, 5), dtype, seed=5)
    near_one = _values((37, 129, 5), torch.float64, 0.98, 1.02, seed=6).to(dtype)
    if dtype.is_floating_point:
        # distinct values, so that argmax has one answer
        order = _rng(7).permutation(x.numel()).reshape(x.shape)
        x = torch.from_numpy(order / x.numel()).to(dtype)  # sums fit in float16
    else:
        x = torch.from_numpy(_rng(7).permutation(x.numel()).reshape(x.shape)).to(dtype)
        near_one = _values((37, 129, 5), dtype, -1, 1, seed=6).clamp(-1, 1)  # ints: -1..1
    g, gn = x.cuda(), near_one.cuda()
    tol = RED_TOL.get(dtype, {})
    for dims in (None, 0, 1, 2, -1, (0, 2)):
        kw = {} if dims is None else {"dim": dims}
        _same(torch.sum(g, **kw), torch.sum(x, **kw), **tol)
        _same(torch.amax(g, **kw), torch.amax(x, **kw))
        _same(torch.amin(g, **kw), torch.amin(x, **kw))
        if dtype.is_floating_point:
            _same(torch.mean(g, **kw), torch.mean(x, **kw), **tol)
        if dims is None or isinstance(dims, int):
            _same(torch.prod(gn, **kw), torch.prod(near_one, **kw), **tol)
            _same(torch.argmax(g, **kw), torch.argmax(x, **kw))
            _same(torch.all(g > 0, **kw), torch.all(x > 0, **kw))
            _same(torch.any(g > 1000, **kw), torch.any(x > 1000, **kw))
    _same(g.sum(dim=1, keepdim=True), x.sum(dim=1, keepdim=True), **tol)
    _same(g.transpose(0, 2).sum(0), x.transpose(0, 2).sum(0), **tol)  # strided input
    assert g.sum().item() == pytest.approx(x.sum().item(), rel=1e-2)


# ---------------------------------------------------------------- matrix products
def test_tf32_is_off_by_default():
    assert torch.backends.cuda.matmul.allow_tf32 is False


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_matrix_products_match_the_cpu(dtype):
    def values(shape, seed):
        return _values(shape, torch.float64, -1, 1, seed).to(dtype)

    # error bound: k products of numbers in [-1, 1], accumulated at least in float32,
    # then rounded to dtype (float32 with TF32 off)
    eps = {torch.float64: 2e-16, torch.float32: 1.2e-7, torch.float16: 1e-3,
           torch.bfloat16: 8e-3}[dtype]  # fmt: skip

    def check(got, a_b, k):
        # the oracle: the same product in float64 on the CPU, rounded to dtype
        want = a_b.to(dtype)
        atol = 4 * eps * max(1.0, math.sqrt(k)) * max(1.0, want.abs().max().item())
        _same(got, want, rtol=4 * eps, atol=atol)

    a, b = values((65, 129), 1), values((129, 33), 2)
    check(torch.mm(a.cuda(), b.cuda()), a.double() @ b.double(), 129)
    check(a.cuda() @ b.cuda(), a.double() @ b.double(), 129)
    check(torch.mm(a.t().cuda(), a.cuda()), a.double().t() @ a.double(), 65)  # transposed
    at = values((129, 65), 3).t()  # a non-contiguous operand
    check(torch.matmul(at.cuda(), b.cuda()), at.double() @ b.double(), 129)
    x, y = values((4, 17, 33), 4), values((4, 33, 9), 5)
    check(torch.bmm(x.cuda(), y.cuda()), torch.bmm(x.double(), y.double()), 33)
    c = values((65, 33), 6)
    want = 0.5 * c.double() + 2.0 * (a.double() @ b.double())
    check(torch.addmm(c.cuda(), a.cuda(), b.cuda(), beta=0.5, alpha=2.0), want, 129)
    u, v = values((2, 3, 17, 33), 7), values((33, 5), 8)
    check(torch.matmul(u.cuda(), v.cuda()), torch.matmul(u.double(), v.double()), 33)
    w = values((33,), 9)
    check(torch.matmul(u.cuda(), w.cuda()), torch.matmul(u.double(), w.double()), 33)


# ---------------------------------------------------------------- autograd
def test_gradients_on_the_gpu_equal_the_cpus():
    pytest.importorskip("torch.autograd")
    rng = _rng(11)

    def leaves(device):
        out = []
        for shape in ((32, 8), (8, 16), (16,), (16, 4)):
            t = torch.from_numpy(rng.standard_normal(shape)).to(device)
            out.append(t.requires_grad_())
        return out

    def loss(x, w1, b1, w2):
        h = torch.tanh(x @ w1 + b1)
        return ((h @ w2).sigmoid() ** 2).mean() + torch.erf(h).sum() * 1e-3

    state = rng.bit_generator.state
    cpu = leaves("cpu")
    rng.bit_generator.state = state
    gpu = leaves("cuda")
    loss(*cpu).backward()
    out = loss(*gpu)
    assert out.device == CUDA
    out.backward()
    for c, g in zip(cpu, gpu):
        assert g.grad.device == CUDA
        _same(g.grad, c.grad)


def test_gradients_flow_back_through_device_moves():
    pytest.importorskip("torch.autograd")
    w = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
    y = (w.cuda() * 2).sin().sum()
    y.backward()
    assert w.grad.device.type == "cpu"
    torch.testing.assert_close(w.grad, 2 * torch.cos(2 * w.detach()))
    g = torch.randn(4, device="cuda", dtype=torch.float64, requires_grad=True)
    (g.cpu() ** 2).sum().backward()
    _same(g.grad, 2 * g.detach().cpu())


def test_modules_move_to_the_gpu():
    nn = pytest.importorskip("torch.nn")
    torch.manual_seed(0)
    layer = nn.Linear(8, 4)
    x = torch.randn(3, 8)
    want = layer(x)
    layer.cuda()
    assert layer.weight.device == CUDA and layer.bias.device == CUDA
    _same(layer(x.cuda()).detach(), want.detach())
    layer.to("cpu")
    assert layer.weight.device.type == "cpu"


# ---------------------------------------------------------------- saving and loading
def test_save_a_gpu_tensor_and_load_it_anywhere():
    x = _values((6, 7), torch.float32, seed=12).cuda()
    buf = io.BytesIO()
    torch.save({"x": x, "t": x.t()}, buf)
    for location, device in (("cpu", "cpu"), ("cuda", "cuda"), (None, "cuda")):
        buf.seek(0)
        kw = {} if location is None else {"map_location": location}
        loaded = torch.load(buf, **kw)
        assert loaded["x"].device.type == device
        assert torch.equal(loaded["x"].cpu(), x.cpu())
        assert torch.equal(loaded["t"].cpu(), x.t().cpu())
