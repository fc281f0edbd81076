"""The Module API: registration, traversal, state_dict, hooks, conversions, printing.

Runs under real PyTorch too (the oracle for the behaviour); checks of our own message
wording are skipped there."""

import collections
import copy
import io
import pickle

import numpy as np
import pytest

import torch
import torch.nn as nn

OURS = torch.__version__.startswith("0.1")
ours_only = pytest.mark.skipif(not OURS, reason="checks this project's own messages")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(3, 2)
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("scratch", torch.ones(2), persistent=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


# ---------------------------------------------------------------- Parameter
def test_parameter_is_a_leaf_that_requires_grad_and_shares_memory():
    data = torch.zeros(3)
    p = nn.Parameter(data)
    assert isinstance(p, torch.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    with torch.no_grad():
        p[0] = 5
    assert data[0].item() == 5
    assert not nn.Parameter(torch.zeros(2), requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)


def test_parameter_repr_and_ops_return_plain_tensors():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    frozen = nn.Parameter(torch.tensor([1.0]), requires_grad=False)
    assert repr(frozen) == "Parameter containing:\ntensor([1.])"
    assert type(p * 2) is torch.Tensor


def test_parameter_deepcopy_and_pickle():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    p.grad = torch.tensor([0.5, 0.5])
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q.requires_grad
    assert q.data_ptr() != p.data_ptr() and torch.equal(q, p)
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is nn.Parameter and torch.equal(r, p) and r.requires_grad


def test_parameter_round_trips_through_torch_save():
    buf = io.BytesIO()
    torch.save({"p": nn.Parameter(torch.arange(3.0))}, buf)
    buf.seek(0)
    loaded = torch.load(buf)["p"]
    assert type(loaded) is nn.Parameter and loaded.requires_grad
    assert loaded.tolist() == [0.0, 1.0, 2.0]


def test_buffer_marks_a_tensor_for_registration():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Buffer(torch.ones(2))
            self.b = nn.Buffer(torch.zeros(1), persistent=False)

    m = M()
    assert set(dict(m.named_buffers())) == {"a", "b"}
    assert list(m.state_dict()) == ["a"]


# ---------------------------------------------------------------- registration
def test_setattr_registers_parameters_buffers_and_modules():
    net = Net()
    assert list(net._parameters) == []
    assert list(net._modules) == ["fc1", "act", "fc2"]
    assert list(net._buffers) == ["steps", "scratch"]
    assert [n for n, _ in net.named_parameters()] == [
        "fc1.weight",
        "fc1.bias",
        "fc2.weight",
        "fc2.bias",
    ]
    assert [n for n, _ in net.named_buffers()] == ["steps", "scratch"]
    assert net.fc1.weight is net._modules["fc1"]._parameters["weight"]
    net.extra = nn.Parameter(torch.ones(1))
    assert "extra" in net._parameters
    net.extra = None
    assert net._parameters["extra"] is None
    del net.extra
    assert "extra" not in net._parameters
    net.steps = torch.tensor([3.0])  # reassigning a buffer keeps it a buffer
    assert net._buffers["steps"].item() == 3


def test_assigning_wrong_types_raises_type_error():
    net = Net()
    with pytest.raises(TypeError, match="cannot assign"):
        net.fc1.weight = torch.ones(3, 4)
    with pytest.raises(TypeError, match="cannot assign"):
        net.fc1 = 3
    with pytest.raises(TypeError):
        net.register_buffer("x", 3)
    with pytest.raises(KeyError, match="attribute 'fc1' already exists"):
        net.register_buffer("fc1", torch.ones(1))
    with pytest.raises(KeyError):
        net.register_parameter("a.b", None)
    with pytest.raises(KeyError):
        net.add_module("", nn.ReLU())
    with pytest.raises(TypeError):
        net.add_module("x", "not a module")


def test_assigning_before_init_raises_attribute_error():
    class Bad(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_missing_attribute_message():
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nope'"):
        _ = Net().nope


def test_dir_lists_members():
    names = dir(Net())
    assert {"fc1", "fc2", "steps", "forward", "training"} <= set(names)


def test_shared_parameters_are_listed_once():
    a = nn.Linear(2, 2)
    seq = nn.Sequential(a, nn.ReLU(), a)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert len(list(seq.named_modules(remove_duplicate=False))) == 4


def test_children_modules_and_non_recursive_members():
    net = Net()
    assert [type(m).__name__ for m in net.children()] == ["Linear", "ReLU", "Linear"]
    assert [type(m).__name__ for m in net.modules()] == ["Net", "Linear", "ReLU", "Linear"]
    assert list(net.parameters(recurse=False)) == []
    assert len(list(net.fc1.parameters(recurse=False))) == 2
    assert [n for n, _ in net.named_parameters(prefix="model")][0] == "model.fc1.weight"


def test_get_submodule_parameter_buffer():
    net = nn.Sequential(collections.OrderedDict(block=Net()))
    assert net.get_submodule("block.fc2") is net.block.fc2
    assert net.get_submodule("") is net
    assert net.get_parameter("block.fc1.bias") is net.block.fc1.bias
    assert net.get_buffer("block.steps") is net.block.steps
    with pytest.raises(AttributeError):
        net.get_submodule("block.nope")
    with pytest.raises(AttributeError):
        net.get_parameter("block.steps")


def test_apply_visits_children_first():
    order = []
    Net().apply(lambda m: order.append(type(m).__name__))
    assert order == ["Linear", "ReLU", "Linear", "Net"]


# ---------------------------------------------------------------- modes and conversions
def test_train_eval_recurse():
    net = Net()
    assert net.training and net.fc1.training
    assert net.eval() is net
    assert not net.training and not net.fc1.training
    net.train()
    assert net.fc2.training
    with pytest.raises(ValueError):
        net.train("yes")


def test_double_float_to_convert_floating_members_only():
    net = Net()
    net.register_buffer("count", torch.tensor(3))
    x = torch.randn(2, 4)
    expected = net(x).detach()
    assert net.double() is net
    assert net.fc1.weight.dtype == torch.float64
    assert isinstance(net.fc1.weight, nn.Parameter) and net.fc1.weight.requires_grad
    assert net.steps.dtype == torch.float64
    assert net.count.dtype == torch.int64
    np.testing.assert_allclose(
        net(x.double()).detach().numpy(), expected.numpy(), rtol=1e-5, atol=1e-6
    )
    net.to(torch.float32)
    assert net.fc1.weight.dtype == torch.float32
    net.to(dtype=torch.float64).float()
    assert net.fc2.bias.dtype == torch.float32
    assert net.cpu() is net
    with pytest.raises(TypeError):
        net.to(torch.int64)


def test_to_converts_grads_too():
    lin = nn.Linear(2, 2)
    lin(torch.ones(1, 2)).sum().backward()
    lin.double()
    assert lin.weight.grad.dtype == torch.float64


def test_dtype_change_keeps_the_parameter_objects_an_optimizer_holds():
    lin = nn.Linear(3, 1)
    weight, bias = lin.weight, lin.bias
    opt = torch.optim.SGD(lin.parameters(), lr=0.5)
    lin.double()
    assert lin.weight is weight and lin.bias is bias and weight.dtype == torch.float64
    x = torch.ones(1, 3, dtype=torch.float64)
    before = lin(x).item()
    lin(x).sum().backward()
    opt.step()  # d out / d w = x, d out / d b = 1: the output drops by lr * (3 + 1)
    assert lin(x).item() == pytest.approx(before - 0.5 * 4)


def test_zero_grad_and_requires_grad_():
    net = Net()
    net(torch.randn(3, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_share_memory_moves_parameters_in_place():
    net = nn.Linear(2, 2)
    weight, values = net.weight, net.weight.detach().clone()
    assert not weight.is_shared()
    assert net.share_memory() is net
    assert net.weight is weight and weight.is_shared() and net.bias.is_shared()
    assert torch.equal(weight.detach(), values)


# ---------------------------------------------------------------- state_dict
def test_state_dict_keys_order_and_detach():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == ["steps", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert not sd["fc1.weight"].requires_grad
    assert sd["fc1.weight"].data_ptr() == net.fc1.weight.data_ptr()
    assert sd._metadata[""] == {"version": 1}
    assert "fc1" in sd._metadata
    kept = net.state_dict(keep_vars=True)
    assert kept["fc1.weight"] is net.fc1.weight


def test_state_dict_round_trip_through_torch_save():
    a, b = Net(), Net()
    with torch.no_grad():
        a.steps.fill_(7)
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    result = b.load_state_dict(torch.load(buf))
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    for (name, p), q in zip(a.state_dict().items(), b.state_dict().values()):
        assert torch.equal(p, q), name
    x = torch.randn(2, 4)
    assert torch.equal(a(x), b(x))


def test_load_state_dict_copies_in_place():
    net = nn.Linear(2, 2)
    weight = net.weight
    net.load_state_dict({"weight": torch.ones(2, 2), "bias": torch.zeros(2)})
    assert net.weight is weight and net.weight.sum().item() == 4


def test_load_state_dict_strict_lists_missing_and_unexpected():
    net = Net()
    sd = net.state_dict()
    del sd["fc1.bias"]
    sd["fc3.weight"] = torch.zeros(1)
    sd["extra"] = torch.zeros(1)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    msg = str(info.value)
    assert "Error(s) in loading state_dict for Net" in msg
    assert 'Missing key(s) in state_dict: "fc1.bias"' in msg
    assert '"fc3.weight"' in msg and '"extra"' in msg
    assert msg.index("Missing") < msg.index("Unexpected")


def test_load_state_dict_non_strict_returns_keys():
    net = Net()
    sd = net.state_dict()
    del sd["fc2.weight"]
    sd["bogus"] = torch.zeros(1)
    missing, unexpected = net.load_state_dict(sd, strict=False)
    assert missing == ["fc2.weight"] and unexpected == ["bogus"]


def test_load_state_dict_lists_each_shape_mismatch_even_when_not_strict():
    net = Net()
    sd = net.state_dict()
    sd["fc1.weight"] = torch.zeros(5, 4)
    sd["fc2.bias"] = torch.zeros(7)
    for strict in (True, False):
        with pytest.raises(RuntimeError) as info:
            net.load_state_dict(sd, strict=strict)
        msg = str(info.value)
        assert "size mismatch for fc1.weight: copying a param with shape torch.Size([5, 4])" in msg
        assert "the shape in current model is torch.Size([3, 4])" in msg
        assert "size mismatch for fc2.bias" in msg


def test_load_state_dict_rejects_non_mappings():
    with pytest.raises(TypeError, match="dict-like"):
        Net().load_state_dict([1, 2])


def test_load_state_dict_assign_takes_the_tensors():
    net = nn.Linear(2, 2)
    w = torch.ones(2, 2)
    net.load_state_dict({"weight": w, "bias": torch.zeros(2)}, assign=True)
    assert isinstance(net.weight, nn.Parameter) and net.weight.data_ptr() == w.data_ptr()


def test_non_persistent_buffers_stay_out_of_state_dict():
    net = Net()
    assert "scratch" not in net.state_dict()
    net.load_state_dict(net.state_dict())  # and are not missing


def test_state_dict_hooks():
    net = nn.Linear(2, 2)
    seen = []
    net.register_state_dict_pre_hook(lambda m, prefix, keep_vars: seen.append(prefix))
    net.state_dict(prefix="x.")
    assert seen == ["x."]
    calls = []
    net.register_load_state_dict_post_hook(lambda m, keys: calls.append(list(keys.missing_keys)))
    net.load_state_dict({"weight": torch.zeros(2, 2)}, strict=False)
    assert calls == [["bias"]]


def test_whole_module_deepcopy_and_pickle():
    net = Net()
    clone = copy.deepcopy(net)
    assert clone.fc1.weight is not net.fc1.weight
    assert torch.equal(clone.fc1.weight, net.fc1.weight)
    assert isinstance(clone.fc1.weight, nn.Parameter)
    restored = pickle.loads(pickle.dumps(net))
    x = torch.randn(2, 4)
    assert torch.equal(restored(x), net(x))


# ---------------------------------------------------------------- calling and hooks
def test_module_reused_twice_accumulates_gradients():
    lin = nn.Linear(3, 3, bias=False)
    x = torch.randn(2, 3)
    out = lin(lin(x)).sum()
    out.backward()
    w = lin.weight.detach().numpy()
    xn = x.numpy()
    # d/dW sum(x W^T W^T) = (first use) + (second use)
    g = np.ones((2, 3))
    h = xn @ w.T
    expected = g.T @ h + (g @ w).T @ xn
    np.testing.assert_allclose(lin.weight.grad.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_same_relu_object_used_several_times():
    relu = nn.ReLU()
    x = torch.tensor([-1.0, 2.0], requires_grad=True)
    y = relu(x) + relu(x * 3)
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 4.0]


def test_forward_pre_hook_can_replace_the_input():
    lin = nn.Linear(2, 2)
    seen = []
    handle = lin.register_forward_pre_hook(lambda m, args: seen.append(args) or (args[0] * 0,))
    out = lin(torch.ones(1, 2))
    assert len(seen) == 1 and isinstance(seen[0], tuple)
    assert torch.allclose(out, lin.bias.detach().unsqueeze(0))
    handle.remove()
    lin(torch.ones(1, 2))
    assert len(seen) == 1


def test_forward_hook_seed_example():
    """The alpha-2 notes' example: model.conv2.register_forward_hook(inspect_forward)."""
    model = nn.Sequential(collections.OrderedDict(conv1=nn.Linear(4, 4), conv2=nn.Linear(4, 2)))
    calls = []

    def inspect_forward(module, input, output):
        calls.append((module, input, output))

    model.conv2.register_forward_hook(inspect_forward)
    x = torch.randn(3, 4)
    out = model(x)
    ((module, input, output),) = calls
    assert module is model.conv2
    assert isinstance(input, tuple) and input[0].shape == (3, 4)
    assert output is out


def test_forward_hook_can_replace_output_and_kwargs_forms():
    lin = nn.Linear(2, 2)
    lin.register_forward_hook(lambda m, args, out: out * 0)
    assert not lin(torch.ones(1, 2)).any()

    class Scale(nn.Module):
        def forward(self, x, *, factor=1.0):
            return x * factor

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": 3.0}), with_kwargs=True)
    got = []
    m.register_forward_hook(lambda mod, args, kwargs, out: got.append(kwargs), with_kwargs=True)
    assert m(torch.ones(1)).item() == 3.0
    assert got == [{"factor": 3.0}]


def test_hooks_prepend_order():
    lin = nn.Identity()
    order = []
    lin.register_forward_hook(lambda *a: order.append("a"))
    lin.register_forward_hook(lambda *a: order.append("b"), prepend=True)
    lin(torch.ones(1))
    assert order == ["b", "a"]


@pytest.mark.filterwarnings("ignore:Using a non-full backward hook:FutureWarning")
def test_backward_hook_seed_example():
    """model.conv2.register_backward_hook(inspect_backward) with (module, grad_input,
    grad_output): called once in backward with the module and tuples of gradients."""
    model = nn.Sequential(collections.OrderedDict(conv1=nn.Linear(4, 3), conv2=nn.Linear(3, 2)))
    calls = []

    def inspect_backward(module, grad_input, grad_output):
        calls.append((module, grad_input, grad_output))

    model.conv2.register_backward_hook(inspect_backward)
    x = torch.randn(5, 4)
    model(x).sum().backward()
    ((module, grad_input, grad_output),) = calls
    assert module is model.conv2
    assert isinstance(grad_input, tuple) and isinstance(grad_output, tuple)
    assert grad_output[0].shape == (5, 2) and bool((grad_output[0] == 1).all())
    if OURS:  # here: the full-hook semantics (PyTorch's legacy hook sees the last op's inputs)
        w = model.conv2.weight.detach()
        expected = (torch.ones(5, 2) @ w).numpy()
        np.testing.assert_allclose(grad_input[0].numpy(), expected, rtol=1e-6)


def test_full_backward_hook_values_and_replacement():
    lin = nn.Linear(3, 2)
    x = torch.randn(4, 3, requires_grad=True)
    seen = []

    def hook(module, grad_input, grad_output):
        seen.append((grad_input, grad_output))
        return (grad_input[0] * 2,)

    lin.register_full_backward_hook(hook)
    out = lin(x)
    g = torch.randn(4, 2)
    out.backward(g)
    ((grad_input, grad_output),) = seen
    assert torch.allclose(grad_output[0], g)
    expected = g @ lin.weight.detach()
    assert torch.allclose(grad_input[0], expected, atol=1e-6)
    assert torch.allclose(x.grad, 2 * expected, atol=1e-6)
    # the parameter gradients are not affected by the replacement
    assert torch.allclose(lin.weight.grad, g.t() @ x.detach(), atol=1e-6)


def test_full_backward_hook_when_input_needs_no_grad():
    lin = nn.Linear(3, 2)
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go)))
    with pytest.warns(UserWarning, match="[Ff]ull backward hook"):
        lin(torch.randn(2, 3)).sum().backward()
    ((gi, go),) = seen
    assert gi == (None,)
    assert go[0].shape == (2, 2)


def test_full_backward_hook_per_call_when_reused():
    lin = nn.Linear(2, 2)
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append(go[0].clone()))
    x = torch.randn(1, 2, requires_grad=True)
    lin(lin(x)).sum().backward()
    assert len(seen) == 2


def test_full_backward_pre_hook_can_replace_grad_output():
    lin = nn.Linear(2, 2)
    lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
    x = torch.randn(3, 2, requires_grad=True)
    lin(x).sum().backward()
    assert not x.grad.any() and not lin.weight.grad.any()


def test_hook_handles_remove_and_context_manager():
    lin = nn.Linear(2, 2)
    seen = []
    with lin.register_forward_hook(lambda *a: seen.append(1)):
        lin(torch.ones(1, 2))
    lin(torch.ones(1, 2))
    assert seen == [1]


def test_global_forward_hook():
    seen = []
    handle = nn.modules.module.register_module_forward_hook(
        lambda m, i, o: seen.append(type(m).__name__)
    )
    try:
        nn.Sequential(nn.ReLU())(torch.ones(1))
    finally:
        handle.remove()
    nn.ReLU()(torch.ones(1))
    assert seen == ["ReLU", "Sequential"]


def test_forward_must_be_defined():
    with pytest.raises(NotImplementedError):
        nn.Module()(torch.ones(1))


# ---------------------------------------------------------------- printing
def test_repr_nested_with_extra_repr():
    assert repr(Net()) == (
        "Net(\n"
        "  (fc1): Linear(in_features=4, out_features=3, bias=True)\n"
        "  (act): ReLU()\n"
        "  (fc2): Linear(in_features=3, out_features=2, bias=True)\n"
        ")"
    )

    class WithExtra(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = nn.Sequential(nn.Tanh())

        def extra_repr(self):
            return "size=3\nmode=fast"

    assert repr(WithExtra()) == (
        "WithExtra(\n  size=3\n  mode=fast\n  (inner): Sequential(\n    (0): Tanh()\n  )\n)"
    )
    assert repr(nn.Module()) == "Module()"


@ours_only
def test_linear_wrong_width_names_the_layer_and_shapes():
    lin = nn.Linear(4, 3)
    with pytest.raises(RuntimeError) as info:
        lin(torch.ones(2, 5))
    msg = str(info.value)
    assert "Linear(in_features=4, out_features=3, bias=True)" in msg
    assert "expected input with last dimension 4, got shape [2, 5]" in msg
