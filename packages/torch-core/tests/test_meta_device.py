"""The meta device: tensors with shapes and dtypes but no memory.

It is the proof that no op path assumes the CPU: every registry op and every NN kernel
either runs on meta tensors (giving the shapes and dtypes the CPU gives) or raises
NotImplementedError naming the device. An op that read tensor memory behind the dispatch
table would crash here (a meta tensor's data pointer is null).
"""

import pytest

import torch
from torch import _nn_embedding, _nn_norms
from torch.testing._op_registry import OPS, Case

pytestmark = pytest.mark.ours_only  # PyTorch's meta kernels cover more ops than ours


def _meta(value):
    if isinstance(value, torch.Tensor):
        return value.to("meta")
    if isinstance(value, (list, tuple)):
        return type(value)(_meta(v) for v in value)
    if isinstance(value, dict):
        return {k: _meta(v) for k, v in value.items()}
    return value


def _tensors(result):
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (list, tuple)):
        return [t for r in result for t in _tensors(r)]
    return []


def _runs_or_says_not_implemented(call, meta_args, meta_kwargs, cpu_result, what):
    """Either the meta call gives meta tensors shaped as the CPU ones, or it raises
    NotImplementedError naming the meta device."""
    try:
        result = call(*meta_args, **meta_kwargs)
    except NotImplementedError as e:
        assert "meta" in str(e), f"{what}: {e}"
        return "raises"
    got, want = _tensors(result), _tensors(cpu_result)
    assert len(got) == len(want), f"{what}: {len(got)} results, the CPU gives {len(want)}"
    for g, w in zip(got, want):
        assert g.is_meta, f"{what}: a result on {g.device}"
        assert (g.shape, g.dtype) == (w.shape, w.dtype), f"{what}: {g.shape} {g.dtype}, want {w}"
    return "runs"


def _op_cases(op):
    ints = tuple(d for d in op.dtypes if not d.is_floating_point)[:1]
    for dtype in op.dtypes[:1] + ints:
        for sample in op.samples(dtype):
            yield Case(op, dtype, sample)


@pytest.mark.parametrize("op", [op for op in OPS if op.kind != "creation"], ids=lambda o: o.name)
def test_every_registry_op_runs_on_meta_or_raises_not_implemented(op):
    def on_meta(*args, **kwargs):  # the op's fixed tensor arguments go to meta too
        if op.fn is not None:
            return op.fn(*args, **kwargs)
        return getattr(torch, op.target)(*args, **_meta(op.fixed), **kwargs)

    for case in _op_cases(op):
        x = case.make()
        if not _tensors([x.args, list(x.kwargs.values())]):
            continue  # nothing to put on meta (tril_indices(3, 3), ...)
        try:
            cpu = case.call(x)
        except Exception:  # the sample is an error case on the CPU too
            continue
        _runs_or_says_not_implemented(on_meta, _meta(x.args), _meta(x.kwargs), cpu, repr(case))


def test_shape_inference_runs_on_meta():
    a, b = torch.empty(8, 1, 5, device="meta"), torch.empty(7, 5, dtype=torch.float64).to("meta")
    r = (a * b).exp().sum(-1, keepdim=True) @ torch.empty(1, 3, dtype=torch.float64).to("meta")
    assert r.is_meta and r.shape == (8, 7, 3) and r.dtype == torch.float64
    assert (torch.empty(4, 6, device="meta").t().reshape(2, 12).shape) == (2, 12)
    assert torch.empty(3, device="meta").to(torch.int32).dtype == torch.int32


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.zeros(2, 3, device="meta"),
        lambda: torch.ones(2, 3, dtype=torch.int64, device="meta"),
        lambda: torch.empty(2, 3, device="meta"),
        lambda: torch.full((2, 3), 7.0, device="meta"),
        lambda: torch.randn(2, 3, device="meta"),
        lambda: torch.arange(6, device="meta"),
        lambda: torch.eye(3, device="meta"),
        lambda: torch.zeros_like(torch.empty(2, 3, device="meta")),
        lambda: torch.full_like(torch.empty(2, 3, device="meta"), 2),
        lambda: torch.ones(2, 3).to("meta"),
    ],
)
def test_creation_on_meta(make):
    t = make()
    assert t.is_meta and t.device == torch.device("meta")


def test_meta_tensors_print_and_refuse_to_give_values():
    t = torch.empty(2, 3, dtype=torch.int64, device="meta")
    assert repr(t) == "tensor(..., device='meta', size=(2, 3), dtype=torch.int64)"
    for read in (t.tolist, lambda: t[0, 0].item(), t.cpu, lambda: t.to("cpu")):
        with pytest.raises(NotImplementedError, match="meta tensor; no data"):
            read()
    with pytest.raises(TypeError, match="meta"):
        t.numpy()
    with pytest.raises(RuntimeError, match="same device"):
        torch.ones(2, 3) + t
    assert (torch.ones(()) + t).is_meta  # a CPU number joins any device


def _nn_calls():
    x4, w4 = torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3)
    x3, seq = torch.randn(2, 3, 10), torch.randn(5, 4)
    idx = torch.tensor([[1, 0, 3], [2, 2, 1]])
    return {
        "conv1d": (torch.conv1d, (x3, torch.randn(4, 3, 3)), {"padding": 1}),
        "conv2d": (torch.conv2d, (x4, w4, torch.randn(4)), {"stride": 2}),
        "conv3d": (torch.conv3d, (torch.randn(1, 2, 4, 4, 4), torch.randn(3, 2, 2, 2, 2)), {}),
        "conv_transpose2d": (torch.conv_transpose2d, (x4, torch.randn(3, 2, 3, 3)), {}),
        "max_pool2d": (torch.max_pool2d, (x4, 2), {}),
        "max_pool1d": (torch.max_pool1d, (x3, 3), {"stride": 1}),
        "avg_pool2d": (torch.avg_pool2d, (x4, 3), {"padding": 1}),
        "adaptive_avg_pool2d": (torch.adaptive_avg_pool2d, (x4, (3, 5)), {}),
        "adaptive_max_pool2d": (torch.adaptive_max_pool2d, (x4, 3), {}),
        "softmax": (torch.softmax, (x4, 1), {}),
        "log_softmax": (torch.log_softmax, (seq, -1), {}),
        "layer_norm": (torch.layer_norm, (x4, (8, 8)), {}),
        "group_norm": (torch.group_norm, (torch.randn(2, 4, 5), 2), {}),
        "batch_norm": (_nn_norms.batch_norm, (x4, torch.zeros(3), torch.ones(3)), {}),
        "batch_norm_train": (
            _nn_norms.batch_norm, (x4, None, None, torch.ones(3), torch.zeros(3), True), {}
        ),
        "nll_loss": (torch.nll_loss, (torch.randn(4, 5).log_softmax(1), idx[0].repeat(2)[:4]), {}),
        "cross_entropy": (torch.cross_entropy, (torch.randn(4, 5), torch.tensor([0, 4, 2, 1])), {}),
        "embedding": (_nn_embedding.embedding, (idx, seq), {}),
        "embedding_bag": (_nn_embedding.embedding_bag, (idx, seq), {"mode": "sum"}),
        "dropout": (torch.dropout, (x4, 0.5, True), {}),
        "interpolate_nearest": (torch.interpolate, (x4,), {"scale_factor": 2}),
        "interpolate_bilinear": (
            torch.interpolate, (x4,), {"size": (5, 7), "mode": "bilinear"}
        ),
        "pad_constant": (torch.pad, (x4, (1, 2, 0, 1)), {"value": 0.5}),
        "pad_reflect": (torch.pad, (x4, (2, 2, 1, 1)), {"mode": "reflect"}),
        "lstm_cell": (torch._C._lstm_cell, tuple(torch.randn(2, n) for n in (16, 4, 4, 4, 4)), {}),
        "adam_update": (
            torch._C._adam_update_,
            (*(torch.rand(6) for _ in range(4)), None, 0.9, 0.999, 1e-3, 1e-8),
            {},
        ),
    }  # fmt: skip


@pytest.mark.parametrize("name", list(_nn_calls()))
def test_every_nn_kernel_runs_on_meta_or_raises_not_implemented(name):
    fn, args, kwargs = _nn_calls()[name]
    cpu = fn(*args, **kwargs)
    _runs_or_says_not_implemented(fn, _meta(args), _meta(kwargs), cpu, name)
