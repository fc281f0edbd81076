"""The Optimizer base: parameter groups, options, zero_grad, step/closure, state_dict, repr."""

import copy
import io
import pickle

import numpy as np
import pytest

import torch
import torch.optim as optim
from torch.optim.optimizer import Optimizer, required


def _param(*values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


def _quadratic_step(opt, params, closure=False):
    """One step on sum(p^2 * weights): gradient 2 * weights * p."""

    def evaluate():
        opt.zero_grad()
        loss = 0
        for i, p in enumerate(params):
            loss = loss + (p * p).sum() * (i + 1)
        loss.backward()
        return loss

    if closure:
        return opt.step(evaluate)
    evaluate()
    return opt.step()


# ---- construction and parameter groups ----


def test_params_as_list_generator_and_groups():
    a, b = _param(1.0), _param(2.0)
    assert optim.SGD([a, b]).param_groups[0]["params"] == [a, b]
    assert optim.SGD(p for p in (a, b)).param_groups[0]["params"] == [a, b]
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert [g["momentum"] for g in opt.param_groups] == [0.9, 0.9]
    assert opt.param_groups[1]["params"] == [b]
    assert opt.defaults["lr"] == 0.1


def test_named_parameters():
    a, b = _param(1.0), _param(2.0)
    opt = optim.Adam([("weight", a), ("bias", b)])
    assert opt.param_groups[0]["params"] == [a, b]
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]


def test_param_group_errors():
    a = _param(1.0)
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        optim.SGD(a)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([])
    with pytest.raises(
        TypeError, match="can only optimize Tensors, but one of the params is float"
    ):
        optim.SGD([a, 1.0])
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([a * 2])
    with pytest.raises(ValueError, match="duplicate parameters"):
        optim.SGD([a, a])
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [a]}, {"params": [a]}])
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {a}}])
    opt = optim.SGD([a])
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([a])
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": a})


def test_non_leaf_that_retains_grad_is_accepted():
    x = _param(1.0, 2.0)
    y = x * 2
    y.retain_grad()
    assert optim.SGD([y]).param_groups[0]["params"] == [y]


def test_required_option():
    class Plain(Optimizer):
        def __init__(self, params, lr=required, momentum=0.5):
            super().__init__(params, dict(lr=lr, momentum=momentum))

    a, b = _param(1.0), _param(2.0)
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        Plain([a])
    opt = Plain([{"params": [a], "lr": 0.1}])
    assert opt.param_groups[0] == {"params": [a], "lr": 0.1, "momentum": 0.5}
    with pytest.raises(ValueError, match="required optimization parameter lr"):
        opt.add_param_group({"params": [b]})
    assert repr(required) == "<required parameter>"
    with pytest.raises(NotImplementedError):
        opt.step()


def test_add_param_group_joins_the_training():
    a, b = _param(1.0), _param(1.0)
    opt = optim.SGD([a], lr=0.1)
    group = {"params": b, "lr": 0.5}
    opt.add_param_group(group)
    assert opt.param_groups[1] is group and group["momentum"] == 0
    _quadratic_step(opt, [a, b])
    assert a.item() == pytest.approx(1 - 0.1 * 2)
    assert b.item() == pytest.approx(1 - 0.5 * 4)


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda p: optim.SGD(p, lr=-1.0), "Invalid learning rate: -1.0"),
        (lambda p: optim.SGD(p, momentum=-0.5), "Invalid momentum value: -0.5"),
        (lambda p: optim.SGD(p, weight_decay=-1), "Invalid weight_decay value: -1"),
        (lambda p: optim.SGD(p, nesterov=True), "Nesterov momentum requires a momentum"),
        (lambda p: optim.SGD(p, momentum=0.9, dampening=0.1, nesterov=True), "zero dampening"),
        (lambda p: optim.Adam(p, lr=float("nan")), "Invalid learning rate: nan"),
        (lambda p: optim.Adam(p, eps=-1e-8), "Invalid epsilon value: -1e-08"),
        (lambda p: optim.Adam(p, betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
        (lambda p: optim.AdamW(p, betas=(0.9, -0.1)), "Invalid beta parameter at index 1"),
        (lambda p: optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
        (lambda p: optim.Adagrad(p, initial_accumulator_value=-1), "initial_accumulator_value"),
        (lambda p: optim.Adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
        (lambda p: optim.Adamax(p, betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
        (lambda p: optim.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
        (lambda p: optim.RAdam(p, weight_decay=-0.1), "Invalid weight_decay value: -0.1"),
        (lambda p: optim.RMSprop(p, alpha=-0.5), "Invalid alpha value: -0.5"),
        (lambda p: optim.Rprop(p, etas=(1.5, 1.2)), "Invalid eta values: 1.5, 1.2"),
        (lambda p: optim.ASGD(p, lr=-0.1), "Invalid learning rate: -0.1"),
        (lambda p: optim.LBFGS(p, lr=-1), "Invalid learning rate: -1"),
    ],
)
def test_invalid_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make([_param(1.0)])


def test_differentiable_is_refused():
    with pytest.raises(NotImplementedError, match="differentiable"):
        optim.Adam([_param(1.0)], differentiable=True)


# ---- zero_grad ----


def test_zero_grad_sets_to_none_by_default():
    a, b = _param(1.0, 2.0), _param(3.0)
    opt = optim.SGD([a, b])
    (a.sum() * 3).backward()
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def test_zero_grad_in_place():
    a = _param(1.0, 2.0)
    opt = optim.SGD([a])
    (a.sum() * 3).backward()
    grad = a.grad
    opt.zero_grad(set_to_none=False)
    assert a.grad is grad and a.grad.tolist() == [0.0, 0.0]
    assert not a.grad.requires_grad


def test_zero_grad_detaches_a_grad_with_history():
    a = _param(1.0, 2.0)
    opt = optim.SGD([a])
    (a**3).sum().backward(create_graph=True)
    assert a.grad.grad_fn is not None
    opt.zero_grad(set_to_none=False)
    assert a.grad.grad_fn is None and a.grad.tolist() == [0.0, 0.0]


# ---- step ----


def test_step_runs_without_grad_and_keeps_leaves():
    a = _param(1.0, 2.0)
    opt = optim.Adam([a], lr=0.1)
    _quadratic_step(opt, [a])
    assert a.is_leaf and a.requires_grad and a.grad_fn is None
    assert opt.state[a]["exp_avg"].requires_grad is False
    assert torch.is_grad_enabled()


def test_closure_runs_with_grad_enabled_and_its_loss_is_returned():
    a = _param(1.0, 2.0)
    opt = optim.SGD([a], lr=0.1)
    seen = []

    def closure():
        seen.append(torch.is_grad_enabled())
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert seen == [True]
    assert loss.item() == 5.0
    np.testing.assert_allclose(a.detach().numpy(), [0.8, 1.6])
    with torch.no_grad():
        opt.step(closure)  # a closure inside a no_grad block still records
    assert seen == [True, True]
    assert opt.step() is None


def test_changing_lr_in_param_groups_takes_effect():
    a, b = _param(1.0), _param(1.0)
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.01}], lr=0.1)
    _quadratic_step(opt, [a, b])
    opt.param_groups[0]["lr"] = 0.2
    opt.param_groups[1]["momentum"] = 0.5  # options are read at each step
    x, y = 1 - 0.1 * 2, 1 - 0.01 * 4
    _quadratic_step(opt, [a, b])
    assert a.item() == pytest.approx(x - 0.2 * 2 * x)
    assert b.item() == pytest.approx(y - 0.01 * 4 * y)
    assert "momentum_buffer" in opt.state[b] and "momentum_buffer" not in opt.state[a]


def test_adam_groups_with_different_lrs():
    a, b = _param(1.0, -1.0), _param(2.0)
    opt = optim.Adam([{"params": [a], "lr": 0.1}, {"params": [b]}], lr=0.01)
    _quadratic_step(opt, [a, b])
    # the first Adam step moves each coordinate by lr * sign(gradient) (up to eps)
    np.testing.assert_allclose(a.detach().numpy(), [0.9, -0.9], rtol=1e-7)
    np.testing.assert_allclose(b.detach().numpy(), [1.99], rtol=1e-7)


def test_step_hooks():
    a = _param(1.0)
    opt = optim.SGD([a], lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o, args)))
    post = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", o)))
    _quadratic_step(opt, [a])
    assert calls == [("pre", opt, ()), ("post", opt)]
    pre.remove()
    post.remove()
    _quadratic_step(opt, [a])
    assert len(calls) == 2


def test_step_pre_hook_can_replace_the_arguments():
    a = _param(1.0)
    opt = optim.SGD([a], lr=0.1)
    seen = []

    def closure():
        seen.append(True)
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    opt.register_step_pre_hook(lambda o, args, kwargs: ((closure,), {}))
    assert opt.step().item() == 1.0
    assert seen == [True]


def test_subclass_calling_super_step_runs_hooks_once():
    class Clipped(optim.SGD):
        def step(self, closure=None):
            return super().step(closure)

    a = _param(1.0)
    opt = Clipped([a], lr=0.1)
    calls = []
    opt.register_step_pre_hook(lambda *args: calls.append(1))
    _quadratic_step(opt, [a])
    assert calls == [1] and a.item() == pytest.approx(0.8)


# ---- repr ----


def test_repr_lists_each_group_options_sorted():
    opt = optim.SGD([{"params": [_param(1.0)]}, {"params": [_param(2.0)], "lr": 0.5}], lr=0.1)
    assert repr(opt) == (
        "SGD (\n"
        "Parameter Group 0\n"
        "    dampening: 0\n    differentiable: False\n    foreach: None\n    fused: None\n"
        "    lr: 0.1\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
        "    weight_decay: 0\n"
        "\n"
        "Parameter Group 1\n"
        "    dampening: 0\n    differentiable: False\n    foreach: None\n    fused: None\n"
        "    lr: 0.5\n    maximize: False\n    momentum: 0\n    nesterov: False\n"
        "    weight_decay: 0\n"
        ")"
    )


# ---- state_dict ----


def test_state_dict_layout():
    a, b, c = _param(1.0, 2.0), _param(3.0), _param(4.0)
    opt = optim.Adam([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, amsgrad=True)
    _quadratic_step(opt, [a, b, c])
    sd = opt.state_dict()
    assert sorted(sd) == ["param_groups", "state"]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.5 and sd["param_groups"][0]["betas"] == (0.9, 0.999)
    assert sorted(sd["state"]) == [0, 1, 2]
    assert list(sd["state"][0]) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]
    assert sd["state"][0]["step"].item() == 1.0 and sd["state"][0]["step"].dtype == torch.float32
    assert sd["state"][2]["exp_avg"] is opt.state[c]["exp_avg"]
    assert opt.param_groups[0]["params"] == [a, b]  # the optimizer's own groups are untouched


def test_state_dict_of_a_fresh_optimizer():
    a = _param(1.0)
    assert optim.SGD([a]).state_dict()["state"] == {}
    # Adagrad creates its accumulators at construction
    sd = optim.Adagrad([a], initial_accumulator_value=0.5).state_dict()
    assert sd["state"][0]["sum"].tolist() == [0.5] and sd["state"][0]["step"].item() == 0


def _save_and_load(obj):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer)


RESUME_CASES = [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1)),
    ("Adadelta", dict()),
    ("Adamax", dict(lr=0.1)),
    ("NAdam", dict(lr=0.1)),
    ("RAdam", dict(lr=0.1)),
    ("RMSprop", dict(centered=True, momentum=0.5)),
    ("Rprop", dict()),
    ("ASGD", dict(t0=1)),
    ("LBFGS", dict(history_size=3, max_iter=2)),
    ("LBFGS", dict(max_iter=2, line_search_fn="strong_wolfe")),
]


@pytest.mark.parametrize("name,kwargs", RESUME_CASES, ids=[c[0] for c in RESUME_CASES])
def test_resume_from_state_dict_is_bit_identical(name, kwargs):
    rng = np.random.default_rng(3)
    starts = [rng.normal(size=(2, 3)), rng.normal(size=3)]

    def train(params, opt, steps):
        for _ in range(steps):
            _quadratic_step(opt, params, closure=True)

    def build(values):
        params = [torch.tensor(v, requires_grad=True) for v in values]
        groups = [{"params": params}]
        if name != "LBFGS":  # LBFGS takes one group only
            groups = [{"params": params[:1]}, {"params": params[1:], "lr": 0.05}]
        return params, getattr(optim, name)(groups, **kwargs)

    whole, whole_opt = build(starts)
    train(whole, whole_opt, 6)

    first, first_opt = build(starts)
    train(first, first_opt, 3)
    saved = _save_and_load(first_opt.state_dict())
    resumed, resumed_opt = build([p.detach().numpy() for p in first])
    resumed_opt.load_state_dict(saved)
    train(resumed, resumed_opt, 3)

    for p, q in zip(whole, resumed):
        assert torch.equal(p, q), name


def test_load_state_dict_restores_options_and_state():
    a = _param(1.0, 2.0)
    opt = optim.SGD([a], lr=0.1, momentum=0.9)
    _quadratic_step(opt, [a])
    sd = opt.state_dict()
    b = _param(1.0, 2.0)
    other = optim.SGD([b], lr=0.5)
    other.load_state_dict(sd)
    assert other.param_groups[0]["lr"] == 0.1 and other.param_groups[0]["momentum"] == 0.9
    assert other.param_groups[0]["params"][0] is b
    assert torch.equal(other.state[b]["momentum_buffer"], opt.state[a]["momentum_buffer"])
    other.param_groups[0]["lr"] = 0.3  # the loaded groups are copies
    assert sd["param_groups"][0]["lr"] == 0.1


def test_load_state_dict_casts_state_to_the_parameter_dtype():
    a = _param(1.0, 2.0)
    opt = optim.Adam([a])
    _quadratic_step(opt, [a])
    b = torch.tensor([1.0, 2.0], dtype=torch.float32, requires_grad=True)
    other = optim.Adam([b])
    other.load_state_dict(opt.state_dict())
    assert other.state[b]["exp_avg"].dtype == torch.float32
    assert other.state[b]["step"].dtype == torch.float32 and other.state[b]["step"].item() == 1


def test_load_state_dict_accepts_a_plain_number_step_and_missing_options():
    a = _param(1.0, 2.0)
    opt = optim.Adam([a], lr=0.1)
    _quadratic_step(opt, [a])
    sd = copy.deepcopy(opt.state_dict())
    sd["state"][0]["step"] = 1
    del sd["param_groups"][0]["amsgrad"]  # e.g. saved before the option existed
    b = _param(*a.tolist())
    other = optim.Adam([b], lr=0.1)
    other.load_state_dict(sd)
    assert isinstance(other.state[b]["step"], torch.Tensor)
    assert other.param_groups[0]["amsgrad"] is False
    _quadratic_step(opt, [a])
    _quadratic_step(other, [b])
    assert torch.equal(a, b)


def test_load_state_dict_errors():
    opt = optim.SGD([_param(1.0), _param(2.0)])
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict({"state": {}, "param_groups": [{"params": [0], "lr": 0.1}]})


def test_pickle():
    a = _param(1.0, 2.0)
    opt = optim.Adam([a], lr=0.1)
    _quadratic_step(opt, [a])
    clone = pickle.loads(pickle.dumps(opt))
    (p,) = clone.param_groups[0]["params"]
    assert torch.equal(p, a) and p is not a
    assert torch.equal(clone.state[p]["exp_avg"], opt.state[a]["exp_avg"])
    _quadratic_step(clone, [p])  # the hook tables and flags are rebuilt
    _quadratic_step(opt, [a])
    assert torch.equal(p, a)


# ---- what the shared step loop checks ----

# PyTorch's messages; SGD and Adagrad take sparse gradients.
SPARSE_ERRORS = {
    "Adam": "Adam does not support sparse gradients, please consider SparseAdam instead",
    "AdamW": "Adam does not support sparse gradients, please consider SparseAdam instead",
    "Adamax": "Adamax does not support sparse gradients",
    "NAdam": "NAdam does not support sparse gradients",
    "RAdam": "RAdam does not support sparse gradients",
    "RMSprop": "RMSprop does not support sparse gradients",
    "Rprop": "Rprop does not support sparse gradients",
    "Adadelta": "Adadelta does not support sparse gradients",
    "ASGD": "ASGD does not support sparse gradients",
    "SGD": None,
    "Adagrad": None,
}


@pytest.mark.parametrize("name", sorted(SPARSE_ERRORS))
def test_sparse_gradients(name, monkeypatch):
    a = _param(1.0, 2.0)
    opt = getattr(optim, name)([a], lr=0.1)
    a.grad = torch.tensor([1.0, -1.0], dtype=torch.float64)
    # No tensor here is sparse: make every one look sparse to reach the check.
    monkeypatch.setattr(torch.Tensor, "is_sparse", property(lambda self: True))
    message = SPARSE_ERRORS[name]
    if message is None:
        opt.step()
        # both move by lr * sign(g) at their first step (Adagrad: up to its eps)
        assert a.tolist() == pytest.approx([0.9, 2.1], rel=1e-9)
    else:
        with pytest.raises(RuntimeError) as error:
            opt.step()
        assert str(error.value) == message
        assert a.tolist() == [1.0, 2.0]


def test_sgd_without_momentum_keeps_no_state():
    a = _param(1.0, 2.0)
    opt = optim.SGD([a], lr=0.1)
    _quadratic_step(opt, [a])
    assert opt.state_dict()["state"] == {} and len(opt.state) == 0
    opt.param_groups[0]["momentum"] = 0.5
    _quadratic_step(opt, [a])
    assert list(opt.state_dict()["state"][0]) == ["momentum_buffer"]
