"""Bad input raises a Python exception of PyTorch's type, never a crash or a
wrong result; our messages (ours_only) name the op, the shapes and the dtypes."""

import importlib

import pytest

import torch


def _autograd_installed():
    try:
        importlib.import_module("torch.autograd")
    except ImportError:
        return False
    return True


def _ones(*shape, dtype=torch.float32):
    return torch.ones(*shape, dtype=dtype)


INDEX_ERRORS = {
    "getitem": lambda: _ones(3)[5],
    "getitem-neg": lambda: _ones(3)[-4],
    "setitem": lambda: _ones(3).__setitem__(3, 0.0),
    "too-many-indices": lambda: _ones(3)[0, 0],
    "select": lambda: _ones(3).select(0, 5),
    "sum-dim": lambda: _ones(3).sum(5),
    "amax-dim": lambda: _ones(2, 3).amax((0, 2)),
    "transpose-dim": lambda: _ones(3).transpose(0, 5),
    "unsqueeze-dim": lambda: _ones(2, 3).unsqueeze(5),
    "squeeze-dim": lambda: _ones(2, 3).squeeze(2),
    "size-dim": lambda: _ones(2, 3).size(2),
    "stride-dim": lambda: _ones(2, 3).stride(-3),
    "argmax-empty": lambda: _ones(0, 3).argmax(),
}

TYPE_ERRORS = {
    "add-str": lambda: torch.add(_ones(3), "a"),
    "exp-str": lambda: torch.exp("a"),
    "zeros-str": lambda: torch.zeros("a"),
    "zeros-float-size": lambda: torch.zeros(2.5),
    "view-str": lambda: _ones(3).view("a"),
    "reshape-float": lambda: _ones(4).reshape(2.5),
    "dtype-str": lambda: torch.ones(2, dtype="float32"),
    "tensor-str": lambda: torch.tensor([1, "a"]),
    "transpose-str": lambda: _ones(2, 2).transpose("a", 1),
    "sum-dtype": lambda: _ones(2).sum(dtype="int"),
    "unknown-kwarg": lambda: torch.add(_ones(2), _ones(2), beta=2),
    "missing-arg": lambda: torch.add(_ones(2)),
    "len-0d": lambda: len(torch.tensor(1.0)),
    "mm-list": lambda: torch.mm(_ones(2, 2), [[1.0, 2.0], [3.0, 4.0]]),
}

RUNTIME_ERRORS = {
    "broadcast": lambda: _ones(2, 3) + _ones(4),
    "broadcast-inplace": lambda: _ones(3).add_(_ones(2, 3)),
    "view-numel": lambda: _ones(2, 3).view(4, 2),
    "view-two-minus-one": lambda: _ones(2, 3).view(-1, -1),
    "reshape-numel": lambda: _ones(3).reshape(2, 2),
    "expand-smaller": lambda: _ones(2).expand(3),
    "expand-fewer-dims": lambda: _ones(2, 3).expand(3),
    "permute-repeat": lambda: _ones(2, 3).permute(0, 0),
    "permute-length": lambda: _ones(2, 3).permute(0),
    "narrow-range": lambda: _ones(3).narrow(0, 2, 5),
    "unfold-size": lambda: _ones(2, 3).unfold(1, 4, 1),
    "as-strided-bounds": lambda: _ones(2).as_strided((3,), (1,)),
    "diagonal-same-dims": lambda: _ones(3, 3).diagonal(0, 1, 1),
    "t-3d": lambda: _ones(2, 3, 4).t(),
    "negative-size": lambda: torch.empty(-1),
    "huge-alloc": lambda: torch.empty(2**62, dtype=torch.int8),
    "mean-int": lambda: torch.tensor([1, 2]).mean(),
    "sub-bool": lambda: torch.tensor([True]) - torch.tensor([False]),
    "neg-bool": lambda: -torch.tensor([True]),
    "bitwise-float": lambda: torch.bitwise_and(_ones(2), _ones(2)),
    "out-cast": lambda: torch.add(_ones(2), _ones(2), out=torch.empty(2, dtype=torch.int64)),
    "inplace-cast": lambda: torch.tensor([1, 2]).mul_(1.5),
    "int-pow-negative": lambda: torch.tensor([2]) ** -1,
    "int-div-zero": lambda: torch.tensor([1]) // 0,
    "where-condition": lambda: torch.where(_ones(2), _ones(2), _ones(2)),
    "item-many": lambda: _ones(2).item(),
    "internal-overlap": lambda: _ones(3, 1).expand(3, 4).mul_(2),
    "matmul-shapes": lambda: _ones(2, 3) @ _ones(4, 5),
    "mm-dtypes": lambda: torch.mm(_ones(2, 2), _ones(2, 2, dtype=torch.float64)),
    "std-int": lambda: torch.tensor([1, 2]).std(),
    "multinomial-neg": lambda: torch.multinomial(torch.tensor([-1.0, 1.0]), 1),
}


@pytest.mark.parametrize("name", INDEX_ERRORS)
def test_index_errors(name):
    with pytest.raises(IndexError):
        INDEX_ERRORS[name]()


@pytest.mark.parametrize("name", TYPE_ERRORS)
def test_type_errors(name):
    with pytest.raises(TypeError):
        TYPE_ERRORS[name]()


@pytest.mark.parametrize("name", RUNTIME_ERRORS)
def test_runtime_errors(name):
    with pytest.raises(RuntimeError):
        RUNTIME_ERRORS[name]()


@pytest.mark.parametrize(
    "make",
    [lambda t: t.t(), lambda t: t[:, 1:3], lambda t: t.expand(2, 2, 4)[:, 0]],
    ids=["transposed", "sliced", "expanded"],
)
def test_view_on_incompatible_strides_suggests_reshape(make):
    t = make(torch.ones(2, 4))
    with pytest.raises(RuntimeError, match="reshape"):
        t.view(-1)
    assert t.reshape(-1).shape == (t.numel(),)


def test_errors_leave_the_inputs_unchanged():
    a = torch.tensor([1, 2])
    with pytest.raises(RuntimeError):
        a.mul_(1.5)
    b = torch.ones(3)
    with pytest.raises(RuntimeError):
        b.add_(torch.ones(2, 3))
    assert a.tolist() == [1, 2] and b.tolist() == [1.0, 1.0, 1.0]
    assert a._version == 0 and b._version == 0


# --- our messages ----------------------------------------------------------------
# The exception types above are PyTorch's; the contents below are this project's
# contract: the op name, the shapes as tuples, the dtypes by their torch names.

R, IE, TE = RuntimeError, IndexError, TypeError
MESSAGES = [
    ("add", R, lambda: torch.add(_ones(2, 3), _ones(4)), ["add", "(2, 3)", "(4,)"]),
    ("mul-operator", R, lambda: _ones(2, 3) * _ones(4), ["mul", "(2, 3)", "(4,)"]),
    ("add_-inplace", R, lambda: _ones(3).add_(_ones(2, 3)), ["add_", "(3,)", "(2, 3)"]),
    (
        "where",
        R,
        lambda: torch.where(torch.ones(2, dtype=torch.bool), _ones(3), _ones(4)),
        ["where", "(3,)", "(4,)"],
    ),
    ("mm", R, lambda: torch.mm(_ones(2, 3), _ones(4, 5)), ["mm", "(2, 3)", "(4, 5)"]),
    ("matmul", R, lambda: _ones(2, 3) @ _ones(4, 5), ["matmul", "(2, 3)", "(4, 5)"]),
    (
        "bmm",
        R,
        lambda: torch.bmm(_ones(2, 3, 4), _ones(3, 4, 5)),
        ["bmm", "(2, 3, 4)", "(3, 4, 5)"],
    ),
    (
        "dot-dtypes",
        R,
        lambda: torch.dot(_ones(3), _ones(3, dtype=torch.float64)),
        ["dot", "float32", "float64"],
    ),
    ("bitwise-dtype", R, lambda: torch.bitwise_and(_ones(2), _ones(2)), ["bitwise_and", "float32"]),
    ("mean-dtype", R, lambda: torch.tensor([1, 2]).mean(), ["mean", "int64"]),
    (
        "out-cast",
        R,
        lambda: torch.add(_ones(2), _ones(2), out=torch.empty(2, dtype=torch.int64)),
        ["add", "float32", "int64"],
    ),
    ("inplace-cast", R, lambda: torch.tensor([1, 2]).exp_(), ["exp_", "float32", "int64"]),
    ("view", R, lambda: _ones(2, 3).t().view(6), ["view", "(3, 2)", "reshape"]),
    ("view-numel", R, lambda: _ones(2, 3).view(4, 2), ["view", "(2, 3)", "(4, 2)"]),
    ("reshape-numel", R, lambda: _ones(3).reshape(2, 2), ["reshape", "(3,)", "(2, 2)"]),
    ("expand", R, lambda: _ones(2).expand(3), ["expand", "(2,)", "(3,)"]),
    ("sum-dim", IE, lambda: _ones(2, 3).sum(5), ["sum", "5", "(2, 3)"]),
    ("transpose-dim", IE, lambda: _ones(3).transpose(0, 5), ["transpose", "5"]),
    ("select", IE, lambda: _ones(3, 2).select(0, 5), ["select", "5", "(3, 2)"]),
    ("getitem", IE, lambda: _ones(3)[5], ["5", "3"]),
    ("add-str", TE, lambda: torch.add(_ones(3), "a"), ["add", "str"]),
]
IDS = [m[0] for m in MESSAGES]


@pytest.mark.parametrize("name, kind, fn, needles", MESSAGES, ids=IDS)
def test_message_cases_raise_pytorchs_type(name, kind, fn, needles):
    with pytest.raises(kind):
        fn()


@pytest.mark.ours_only
@pytest.mark.parametrize("name, kind, fn, needles", MESSAGES, ids=IDS)
def test_message_names_op_shapes_and_dtypes(name, kind, fn, needles):
    with pytest.raises(kind) as info:
        fn()
    message = str(info.value)
    for needle in needles:
        assert needle in message, f"{needle!r} missing from {message!r}"


@pytest.mark.ours_only
@pytest.mark.skipif(_autograd_installed(), reason="torch-autograd is installed")
@pytest.mark.parametrize(
    "ask",
    [
        lambda: torch.zeros(2, requires_grad=True),
        lambda: torch.tensor([1.0], requires_grad=True),
        lambda: torch.zeros(2).requires_grad_(),
        lambda: setattr(torch.zeros(2), "requires_grad", True),
    ],
    ids=["factory", "tensor", "requires_grad_", "attribute"],
)
def test_requires_grad_without_autograd_names_the_package(ask):
    with pytest.raises((ImportError, RuntimeError), match="torch-autograd"):
        ask()


def test_requires_grad_false_is_always_fine():
    t = torch.zeros(2, requires_grad=False)
    t.requires_grad_(False)
    assert t.requires_grad is False


@pytest.mark.ours_only
def test_the_core_gates_exactly_the_ops_that_can_carry_a_gradient():
    gates = torch._C._grad_gates
    # the entry points users reach are the gates themselves (nothing swaps them later)
    assert torch.add is gates["add"] and torch.Tensor.__dict__["exp_"] is gates["Tensor.exp_"]
    assert gates["subtract"] is gates["sub"]  # an alias shares its op's gate
    assert torch.Tensor.add(torch.ones(2), 1).tolist() == [2.0, 2.0]  # binds like a method
    # bool or integer results, creation and queries have none
    for name in ("eq", "Tensor.__lt__", "isnan", "bitwise_and", "Tensor.__and__", "_all",
                 "empty", "Tensor.numel", "Tensor.item", "manual_seed"):  # fmt: skip
        assert name not in gates, name
    with pytest.raises(TypeError):
        type(gates["add"])(torch.add, None)  # gates are made by the core only
