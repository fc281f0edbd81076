"""torch.jit.trace: the recorded graph runs like eager (values and gradients), for a spread
of core ops and for the example models; warnings, checks and the ScriptModule contract."""

import warnings

import pytest
from jit_models import MLP, AttentionModel, BatchNormNet, MnistNet, RNNModel, TransformerModel

import torch
import torch.jit
from torch import nn
from torch.nn import functional as F

# (name, function, input shapes): each is traced on one set of inputs and run on another
OPS = [
    ("add_mul", lambda a, b: a + b * 2 - 1, [(3, 4), (3, 4)]),
    ("div_pow", lambda a, b: (a / (b.abs() + 1)) ** 2, [(3, 4), (3, 4)]),
    ("unary", lambda a: a.exp().log1p().sqrt().tanh().sigmoid().neg().abs(), [(5,)]),
    ("matmul", lambda a, b: a @ b, [(3, 4), (4, 2)]),
    ("bmm", lambda a, b: torch.bmm(a, b).relu(), [(2, 3, 4), (2, 4, 5)]),
    ("reductions", lambda a: a.sum(0) + a.mean(1, keepdim=True).squeeze(1)[0], [(4, 4)]),
    ("softmax", lambda a: F.softmax(a, -1) + F.log_softmax(a, 0), [(3, 5)]),
    ("views", lambda a: a.view(a.size(0), -1).t().reshape(-1, 2).transpose(0, 1), [(2, 3, 4)]),
    ("permute_cat", lambda a, b: torch.cat([a.permute(1, 0), b.t()], 0), [(3, 2), (3, 2)]),
    ("stack_chunk", lambda a: torch.stack(a.chunk(2, 1), 0).sum(0), [(3, 4)]),
    ("indexing", lambda a: a[1:, ::2] * a[0, 1] + a[1:, None, 0].squeeze(1)[:, None], [(4, 4)]),
    ("where_clamp", lambda a, b: torch.where(a > b, a, b).clamp(-0.5, 0.5), [(6,), (6,)]),
    ("activations", lambda a: F.gelu(a) + F.silu(a) + F.leaky_relu(a, 0.1) + F.elu(a), [(7,)]),
    ("norms", lambda a: F.layer_norm(a, (4,)) + F.normalize(a, dim=1), [(3, 4)]),
    ("shape_math", lambda a: a.reshape(a.shape[0] * a.shape[1], a.shape[2] // 1), [(2, 3, 4)]),
    ("creation", lambda a: a + torch.ones(a.size(1)) * torch.arange(a.size(1)).float(), [(2, 5)]),
]


@pytest.mark.parametrize("name,fn,shapes", OPS, ids=[o[0] for o in OPS])
def test_op_trace_matches_eager_values_and_gradients(name, fn, shapes):
    torch.manual_seed(0)
    example = [torch.randn(*s) for s in shapes]
    traced = torch.jit.trace(fn, tuple(example))
    inputs = [torch.randn(*s, requires_grad=True) for s in shapes]
    twins = [t.detach().clone().requires_grad_() for t in inputs]
    got, expected = traced(*inputs), fn(*twins)
    torch.testing.assert_close(got, expected)
    got.sum().backward()
    expected.sum().backward()
    for a, b in zip(inputs, twins):
        torch.testing.assert_close(a.grad, b.grad)


def _run_both(model, args):
    traced = torch.jit.trace(model, args)
    with torch.no_grad():
        torch.testing.assert_close(traced(*args), model(*args))
    return traced


def test_module_trace_keeps_the_parameters_and_trains():
    torch.manual_seed(0)
    model = MLP()
    traced = _run_both(model, (torch.randn(4, 6),))
    assert list(traced.state_dict()) == list(model.state_dict())
    assert all(a is b for a, b in zip(traced.parameters(), model.parameters()))
    # the training loop doesn't change: backward reaches the module's parameters
    opt = torch.optim.SGD(traced.parameters(), lr=0.1)
    x, y = torch.randn(8, 6), torch.randn(8, 4)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = F.mse_loss(traced(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert model.fc1.weight.grad is not None
    traced.eval()
    assert not traced.training and not model.fc1.training
    traced.train()
    assert model.fc1.training


def test_graph_and_code_are_readable():
    traced = torch.jit.trace(MLP(), torch.randn(2, 6))
    text = str(traced.graph)
    assert text.startswith("graph(%0 : Float(2, 6)")
    assert "F.linear(%0, %fc1.weight, %fc1.bias)" in text
    assert "torch.tanh" in text and "test_jit_trace.py" not in text.split("\n")[0]
    assert "jit_models.py" in text  # each node names the model line that called it
    code = traced.code
    assert code.startswith("def forward(self, v0):")
    assert "torch.nn.functional.linear(v0, self.fc1.weight, self.fc1.bias)" in code


@pytest.mark.parametrize(
    "make,args",
    [
        (MnistNet, lambda: (torch.randn(2, 1, 28, 28),)),
        (BatchNormNet, lambda: (torch.randn(2, 3, 6, 6),)),
        (AttentionModel, lambda: (torch.randint(0, 30, (2, 5)),)),
    ],
    ids=["mnist", "batchnorm", "attention"],
)
def test_models_trace_and_backward(make, args):
    torch.manual_seed(0)
    model = make().eval()
    example = args()
    traced = _run_both(model, example)
    traced(*example).sum().backward()
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad) or isinstance(
        model, AttentionModel
    )


@pytest.mark.parametrize("rnn_type", ["LSTM", "GRU"])
def test_rnn_language_model_trace(rnn_type):
    torch.manual_seed(0)
    model = RNNModel(rnn_type, 30, 8, 10, 2).eval()
    tokens = torch.randint(0, 30, (5, 3))
    hidden = model.init_hidden(3)
    traced = torch.jit.trace(model, (tokens, hidden))
    assert f"nn.{rnn_type}" in str(traced.graph)
    out, h = traced(tokens, hidden)
    ref_out, ref_h = model(tokens, hidden)
    torch.testing.assert_close(out, ref_out)
    torch.testing.assert_close(h, ref_h)
    out.sum().backward()
    assert model.rnn.weight_hh_l1.grad is not None
    # another sequence length and batch: the recurrent layer is one node, nothing baked in
    tokens2 = torch.randint(0, 30, (7, 2))
    torch.testing.assert_close(
        traced(tokens2, model.init_hidden(2))[0], model(tokens2, model.init_hidden(2))[0]
    )


def test_transformer_model_trace():
    torch.manual_seed(0)
    model = TransformerModel(30, 16, 2, 24, 2).eval()
    src = torch.randint(0, 30, (6, 2))
    _run_both(model, (src,))


def test_sizes_stay_symbolic():
    def f(x):
        return x.view(x.size(0) * 2, -1)

    traced = torch.jit.trace(f, torch.randn(4, 6))
    assert "operator.mul" in str(traced.graph)
    assert traced(torch.randn(6, 6)).shape == (12, 3)


def test_tracer_warning_on_python_values():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x * 3

    with pytest.warns(torch.jit.TracerWarning, match="Python bool"):
        torch.jit.trace(f, torch.ones(3))

    def g(x):
        return x * x.max().item()

    with pytest.warns(torch.jit.TracerWarning, match="Python number"):
        torch.jit.trace(g, torch.ones(3))


def test_check_trace_warns_when_the_graph_disagrees():
    state = {"n": 0}

    def f(x):
        state["n"] += 1
        return x + state["n"]  # a Python side effect the graph freezes

    with pytest.warns(torch.jit.TracerWarning, match="does not match"):
        torch.jit.trace(f, torch.ones(2))


def test_dropout_in_training_passes_check_trace():
    model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5)).train()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.jit.trace(model, torch.randn(4, 3))


def test_strict_refuses_list_outputs():
    def f(x):
        return [x, x + 1]

    with pytest.raises(RuntimeError, match="strict=False"):
        torch.jit.trace(f, torch.ones(2))
    out = torch.jit.trace(f, torch.ones(2), strict=False)(torch.zeros(2))
    assert isinstance(out, list) and out[1].tolist() == [1.0, 1.0]


def test_trace_module_several_methods_and_is_tracing():
    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            seen.append(torch.jit.is_tracing())
            return self.lin(x)

        def double(self, x):
            return self.lin(x) * 2

    seen = []
    m = Two()
    traced = torch.jit.trace_module(m, {"forward": torch.ones(1, 2), "double": torch.ones(1, 2)})
    x = torch.randn(3, 2)
    torch.testing.assert_close(traced.double(x), m.double(x))
    assert seen[0] and not torch.jit.is_tracing()


def test_traced_function_inside_a_trace_is_inlined():
    inner = torch.jit.trace(lambda a: a.relu() * 2, torch.randn(3))
    outer = torch.jit.trace(lambda a: inner(a) + 1, torch.randn(3))
    assert "relu" in str(outer.graph)
    x = torch.randn(3)
    torch.testing.assert_close(outer(x), x.relu() * 2 + 1)


def test_wrong_number_of_inputs():
    traced = torch.jit.trace(MLP(), torch.randn(2, 6))
    with pytest.raises(RuntimeError, match="expected 1 tensor"):
        traced(torch.randn(2, 6), torch.randn(2, 6))


def test_runtime_error_names_the_source_line():
    traced = torch.jit.trace(lambda a, b: a @ b, (torch.randn(2, 3), torch.randn(3, 2)))
    with pytest.raises(RuntimeError) as info:
        traced(torch.randn(2, 3), torch.randn(4, 2))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "torch.matmul" in notes or "__matmul__" in notes


def test_setitem_and_in_place_ops_are_recorded():
    def f(x):
        y = x.clone()
        y[0] = y[1] * 2
        y[:, 1] += 1
        y.mul_(3)
        return y

    traced = torch.jit.trace(f, torch.randn(3, 2))
    assert "Tensor.__setitem__" in str(traced.graph) and "Tensor.mul_" in str(traced.graph)
    x = torch.randn(3, 2)
    torch.testing.assert_close(traced(x), f(x))


def test_keyword_example_inputs():
    class KW(nn.Module):
        def forward(self, x, scale=None):
            return x * scale

    traced = torch.jit.trace(
        KW(), example_kwarg_inputs={"x": torch.ones(2), "scale": torch.ones(2) * 3}
    )
    assert traced(x=torch.ones(2), scale=torch.ones(2) * 2).tolist() == [2.0, 2.0]


class _Gate(nn.Module):
    def forward(self, x):
        return x.sigmoid() * 2


class _Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.dg, self.linear, self.bn = _Gate(), nn.Linear(4, 4), nn.BatchNorm1d(4)
        self.unused = nn.ReLU()

    def forward(self, x, h):
        return torch.tanh(self.dg(self.linear(x)) + self.bn(h))


def test_submodules_called_in_the_trace_are_traced_modules_of_their_own():
    # PyTorch's TracedModule tree: traced.child.code / .graph for every submodule the trace
    # ran; the parameters stay the original tensors
    cell = _Cell()
    x, h = torch.rand(3, 4), torch.rand(3, 4)
    traced = torch.jit.trace(cell, (x, h))
    for name in ("dg", "linear", "bn"):
        assert isinstance(getattr(traced, name), torch.jit.ScriptModule), name
    assert "sigmoid" in traced.dg.code and "linear" in traced.linear.code
    assert "batch_norm" in str(traced.bn.graph)
    assert isinstance(traced.unused, nn.ReLU)  # never called: nothing to trace
    assert traced.linear.weight is cell.linear.weight
    assert sorted(traced.state_dict()) == sorted(cell.state_dict())
    y = torch.rand(3, 4)
    torch.testing.assert_close(traced.dg(y), cell.dg(y))
    torch.testing.assert_close(traced(x, h), cell(x, h))  # (both in training mode)
    traced.eval()
    assert not cell.linear.training and not traced.linear.training


def test_tracing_a_submodule_again_leaves_its_buffers():
    cell = _Cell()
    x, h = torch.rand(3, 4), torch.rand(3, 4)
    # the trace runs the module once and its check twice more (the graph, then eager again),
    # each a batch-norm update; the children's own traces must add none
    ref = _Cell()
    ref.load_state_dict(cell.state_dict())
    for _ in range(3):
        ref(x, h)
    torch.jit.trace(cell, (x, h))
    torch.testing.assert_close(cell.bn.running_mean, ref.bn.running_mean)
    torch.testing.assert_close(cell.bn.running_var, ref.bn.running_var)
    assert cell.bn.num_batches_tracked.item() == ref.bn.num_batches_tracked.item() == 3


def test_a_function_closing_over_a_modules_parameters_traces_them_as_constants():
    # the parameters are no inputs of the function: they are frozen into the trace (a
    # recorded detach() of them recursed without end)
    torch.manual_seed(0)
    fc = nn.Linear(6, 4)

    def f(x):
        return torch.tanh(fc(x)) * 2

    x = torch.randn(3, 6)
    traced = torch.jit.trace(f, (x,))
    assert "prim::Constant" in str(traced.graph)
    y = torch.randn(5, 6)
    torch.testing.assert_close(traced(y), f(y))
