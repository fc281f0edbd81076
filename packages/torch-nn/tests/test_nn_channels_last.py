"""Channels-last models: Module.to(memory_format=...) and the layers on NHWC-strided inputs,
checked against the same computation on contiguous tensors (runs under PyTorch too)."""

import pytest

import torch
import torch.nn.functional as F
from torch import nn

CL, CL3 = torch.channels_last, torch.channels_last_3d


def nhwc(shape):
    n, c, h, w = shape
    return (h * w * c, 1, w * c, c)


def test_module_to_channels_last():
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4, 2))
    params = list(m.parameters())
    assert m.to(memory_format=CL) is m
    assert list(m.parameters()) == params  # converted in place: the same Parameters
    w = m[0].weight
    assert isinstance(w, nn.Parameter) and w.shape == (4, 3, 3, 3)
    assert w.stride() == nhwc(w.shape) and w.is_contiguous(memory_format=CL)
    # the others keep their layout
    for p in (m[0].bias, m[1].weight, m[1].bias, m[1].running_mean, m[1].running_var):
        assert p.stride() == (1,)
    assert m[3].weight.stride() == (4, 1)
    m.to(memory_format=torch.contiguous_format)
    assert m[0].weight.stride() == (27, 9, 3, 1)


def test_module_to_with_dtype_and_format():
    conv = nn.Conv2d(2, 3, 2).to(torch.float64, memory_format=CL)
    assert conv.weight.dtype == torch.float64 and conv.weight.stride() == (8, 1, 4, 2)
    conv = nn.Conv2d(2, 3, 2).to("cpu", torch.float64, memory_format=CL)
    assert conv.weight.stride() == (8, 1, 4, 2)
    assert nn.Conv2d(2, 3, 2).to(memory_format=torch.preserve_format).weight.stride() == (
        8,
        4,
        2,
        1,
    )


def test_module_to_3d():
    conv = nn.Conv3d(2, 3, 2).to(memory_format=CL3)
    assert conv.weight.stride() == (16, 1, 8, 4, 2)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        nn.Conv3d(2, 3, 2).to(memory_format=CL)
    with pytest.raises(RuntimeError, match="required rank 5 tensor"):
        nn.Conv2d(2, 3, 2).to(memory_format=CL3)
    with pytest.raises(TypeError):
        nn.Conv2d(2, 3, 2).to(memory_format="channels_last")


def _copy_model(model, fmt):
    import copy

    twin = copy.deepcopy(model)
    return twin.to(memory_format=fmt) if fmt is not None else twin


def _run(model, x, target):
    out = model(x)
    loss = ((out - target) ** 2).mean()
    loss.backward()
    return out, {n: p.grad for n, p in model.named_parameters()}


@pytest.mark.parametrize("train", [True, False])
def test_cnn_channels_last_matches_contiguous(train):
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 4, 3, stride=2, groups=2),
        nn.AvgPool2d(1),
        nn.AdaptiveAvgPool2d((2, 2)),
        nn.Flatten(),
        nn.Linear(16, 5),
    )
    model.train(train)
    x = torch.randn(2, 3, 12, 12)
    target = torch.randn(2, 5)
    ref = _copy_model(model, None)
    out0, grads0 = _run(ref, x, target)
    cl_model = _copy_model(model, CL)
    xc = x.contiguous(memory_format=CL)
    assert xc.stride() == nhwc(x.shape)
    out1, grads1 = _run(cl_model, xc, target)
    torch.testing.assert_close(out1, out0, atol=1e-5, rtol=1e-5)
    assert grads0.keys() == grads1.keys()
    for name in grads0:
        torch.testing.assert_close(grads1[name], grads0[name], atol=1e-5, rtol=1e-4)
        p = dict(cl_model.named_parameters())[name]
        assert grads1[name].shape == p.shape
        assert grads1[name].stride() == p.stride()  # the parameter's own layout
    if train:  # running statistics alike
        torch.testing.assert_close(cl_model[1].running_mean, ref[1].running_mean)
        torch.testing.assert_close(cl_model[1].running_var, ref[1].running_var)


def test_input_gradient_channels_last():
    torch.manual_seed(1)
    conv = nn.Conv2d(3, 4, 3, padding=1)
    x0 = torch.randn(2, 3, 7, 7, requires_grad=True)
    x1 = x0.detach().contiguous(memory_format=CL).requires_grad_()
    conv(x0).sum().backward()
    conv.zero_grad()
    conv(x1).sum().backward()
    torch.testing.assert_close(x1.grad, x0.grad)
    assert x1.grad.stride() == x1.stride()


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.conv2d(x, torch.ones(2, 3, 3, 3), stride=2, padding=1),
        lambda x: F.conv_transpose2d(x, torch.ones(3, 2, 2, 2), stride=2),
        lambda x: F.max_pool2d(x, 3, 2, padding=1),
        lambda x: F.max_pool2d(x, 2, return_indices=True)[1].float(),
        lambda x: F.avg_pool2d(x, 2, ceil_mode=True),
        lambda x: F.adaptive_max_pool2d(x, (3, 2)),
        lambda x: F.batch_norm(x, torch.zeros(3), torch.ones(3), training=False),
        lambda x: F.batch_norm(x, None, None, training=True),
        lambda x: F.group_norm(x, 3),
        lambda x: F.instance_norm(x),
        lambda x: F.layer_norm(x, (8,)),
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
        lambda x: F.interpolate(x, size=(5, 5), mode="nearest"),
        lambda x: F.pad(x, (1, 2, 0, 1), mode="reflect"),
        lambda x: F.unfold(x, 2),
        lambda x: F.pixel_shuffle(x[:, :1].repeat(1, 4, 1, 1), 2),
        lambda x: F.dropout2d(x, training=False),
        lambda x: F.softmax(x, dim=1),
        lambda x: F.linear(x, torch.ones(4, 8)),
    ],
)
def test_functional_values_on_channels_last(fn):
    torch.manual_seed(2)
    x = torch.randn(2, 3, 6, 8)
    torch.testing.assert_close(fn(x.contiguous(memory_format=CL)), fn(x))


def test_conv3d_channels_last_3d():
    torch.manual_seed(3)
    conv = nn.Conv3d(3, 4, 2)
    x = torch.randn(2, 3, 4, 5, 6)
    out0 = conv(x)
    conv.to(memory_format=CL3)
    out1 = conv(x.contiguous(memory_format=CL3))
    torch.testing.assert_close(out1, out0, atol=1e-5, rtol=1e-5)
    bn = nn.BatchNorm3d(3)
    torch.testing.assert_close(bn(x.contiguous(memory_format=CL3)), bn(x), atol=1e-5, rtol=1e-5)


def test_optimizer_step_keeps_layout():
    conv = nn.Conv2d(3, 4, 3).to(memory_format=CL)
    opt = torch.optim.SGD(conv.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(2, 3, 6, 6).contiguous(memory_format=CL)
    for _ in range(2):
        opt.zero_grad()
        conv(x).square().mean().backward()
        opt.step()
    assert conv.weight.is_contiguous(memory_format=CL)
