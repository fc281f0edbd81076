"""The order in which an op's saved tensors reach saved_tensors_hooks, as in PyTorch 2.13:
its binary ops pack (and unpack) the second operand first. pytorch/tutorials'
autograd_saved_tensors_hooks_tutorial prints "Packing" / "Unpacking" lines for ``a * b``
in this order."""

import pytest

import torch


def _order(fn, *inputs):
    names = {id(t): n for n, t in zip("ab", inputs)}
    packed, unpacked = [], []

    def pack(t):
        packed.append(next((names[id(x)] for x in inputs if t is x), "?"))
        return t

    def unpack(t):
        unpacked.append(next((names[id(x)] for x in inputs if t is x), "?"))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = fn(*inputs)
    out.sum().backward()
    return packed, unpacked


def _pair(shape_a=(3, 3), shape_b=(3, 3)):
    a = (torch.rand(shape_a) + 0.5).requires_grad_()
    b = (torch.rand(shape_b) + 1.5).requires_grad_()
    return a, b


@pytest.mark.parametrize(
    "fn",
    [
        torch.mul,
        torch.div,
        torch.mm,
        torch.matmul,
        torch.atan2,
        torch.maximum,
        torch.minimum,
        torch.fmod,
        torch.remainder,
    ],
)
def test_binary_ops_pack_the_second_operand_first(fn):
    assert _order(fn, *_pair()) == (["b", "a"], ["b", "a"])


def test_bmm_and_pow():
    assert _order(torch.bmm, *_pair((2, 3, 3), (2, 3, 3))) == (["b", "a"], ["b", "a"])
    packed, unpacked = _order(torch.pow, *_pair())
    assert packed[:2] == ["b", "a"] and unpacked[:2] == ["b", "a"]  # then the result


def test_the_tutorial_prints_other_then_self():
    a = torch.ones(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True) * 2
    seen = []
    with torch.autograd.graph.saved_tensors_hooks(
        lambda t: seen.append(("Packing", t.tolist())) or t,
        lambda t: seen.append(("Unpacking", t.tolist())) or t,
    ):
        y = a * b
    y.sum().backward()
    assert seen == [
        ("Packing", [2.0] * 5),
        ("Packing", [1.0] * 5),
        ("Unpacking", [2.0] * 5),
        ("Unpacking", [1.0] * 5),
    ]
    assert a.grad.tolist() == [2.0] * 5 and a.grad is not None


def test_saved_names_keep_their_meaning():
    a, b = _pair()
    y = a * b
    assert y.grad_fn._saved_self.equal(a) and y.grad_fn._saved_other.equal(b)
    z = a.mm(b)
    assert z.grad_fn._saved_self.equal(a) and z.grad_fn._saved_mat2.equal(b)
