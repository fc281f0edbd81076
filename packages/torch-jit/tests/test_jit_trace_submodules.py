"""torch.jit.trace of a module: every submodule's forward runs once, in the parent's single
run, and its own traced graph (``traced.child``) comes from the ops recorded inside that
call. The oracle is one eager forward of an identical copy: the state a trace leaves behind
(batch-norm statistics, the random generator, Python-side counters, hook calls) is what
one forward leaves (PyTorch 2.13 gives the same with ``check_trace=False``; its check runs
the module again, as ours does)."""

import copy
import io
import warnings

import pytest

import torch
import torch.jit
from torch import nn
from torch.nn import functional as F


def _trace(model, *args, **kw):
    kw.setdefault("check_trace", False)
    return torch.jit.trace(model, args if len(args) != 1 else args[0], **kw)


class _Counted(nn.Module):
    """Counts its forward calls (a side effect no graph records)."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.inner(x)


class _Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(6, 6)
        self.bn = nn.BatchNorm1d(6)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(F.relu(self.bn(self.lin(x))))


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = _Block()
        self.noisy = _Counted(nn.Dropout(0.3))
        self.head = nn.Linear(6, 3)

    def forward(self, x):
        h = self.block(x)
        h = h + torch.randn_like(h) * 0.1  # a draw in the parent itself
        return self.head(self.noisy(h))


def _pair():
    torch.manual_seed(0)
    a = _Net()
    return a, copy.deepcopy(a)


def _stats(m):
    return {k: v.clone() for k, v in m.state_dict().items()}


def test_trace_leaves_the_state_of_one_eager_forward():
    traced_model, eager_model = _pair()
    x = torch.randn(8, 6)
    torch.manual_seed(123)
    eager_model(x)
    rng_eager = torch.get_rng_state()
    torch.manual_seed(123)
    traced = _trace(traced_model, x)
    rng_traced = torch.get_rng_state()

    assert torch.equal(rng_traced, rng_eager)  # each dropout drew once, as in eager
    got, want = _stats(traced_model), _stats(eager_model)
    assert got.keys() == want.keys()
    for k in want:
        assert torch.equal(got[k], want[k]), k
    assert traced_model.block.bn.num_batches_tracked.item() == 1
    assert traced_model.noisy.calls == eager_model.noisy.calls == 1
    assert isinstance(traced, torch.jit.ScriptModule)


def test_the_check_run_keeps_the_random_state_of_one_forward():
    traced_model, eager_model = _pair()
    x = torch.randn(8, 6)
    torch.manual_seed(5)
    eager_model(x)
    rng_eager = torch.get_rng_state()
    torch.manual_seed(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (dropout: the check's outputs differ, it warns)
        torch.jit.trace(traced_model, x)
    assert torch.equal(torch.get_rng_state(), rng_eager)
    # the check runs the Python module once more (PyTorch's runs it twice more)
    assert traced_model.noisy.calls == 2


def test_each_forward_and_its_hooks_run_once_per_call():
    counts = {"pre": 0, "post": 0}

    def count(key):
        def hook(*args):
            counts[key] += 1

        return hook

    model = _Net().eval()
    model.block.lin.register_forward_pre_hook(count("pre"))
    model.block.register_forward_hook(count("post"))
    _trace(model, torch.randn(4, 6))
    assert counts == {"pre": 1, "post": 1}
    assert model.noisy.calls == 1


def test_traced_children_down_the_tree_run_as_eager():
    model, _ = _pair()
    x = torch.randn(8, 6)
    traced = _trace(model, x)
    for path in ("block", "block.lin", "block.bn", "block.drop", "noisy", "noisy.inner", "head"):
        assert isinstance(traced.get_submodule(path), torch.jit.ScriptModule), path
    assert "batch_norm" in traced.block.bn.code and "linear" in traced.block.code
    assert traced.block.lin.weight is model.block.lin.weight  # the same tensors

    # traced in training mode (a trace keeps the mode it ran in): each traced child updates
    # the statistics and draws as its eager module does
    y = torch.randn(5, 6)
    ref = copy.deepcopy(model)
    for path in ("block", "block.bn", "block.drop", "noisy", "head", ""):
        torch.manual_seed(9)
        want = ref.get_submodule(path)(y) if path else ref(y)
        torch.manual_seed(9)
        got = traced.get_submodule(path)(y) if path else traced(y)
        torch.testing.assert_close(got, want, msg=path)
        torch.testing.assert_close(model.block.bn.running_mean, ref.block.bn.running_mean)
    assert model.block.bn.num_batches_tracked.item() == 4
    assert ref.block.bn.num_batches_tracked.item() == 4
    torch.testing.assert_close(traced.block.lin(y), model.block.lin(y))


def test_children_of_an_eval_trace_run_as_eager():
    model = _Net().eval()
    traced = _trace(model, torch.randn(8, 6))
    y = torch.randn(5, 6)
    torch.testing.assert_close(traced.block(y), model.block(y))
    torch.testing.assert_close(traced.noisy(y), model.noisy(y))
    torch.manual_seed(1)
    got = traced(y)
    torch.manual_seed(1)
    torch.testing.assert_close(got, model(y))  # (the parent's randn_like draws the same)


def test_a_child_called_twice_keeps_its_first_call():
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, x, scale=1.0):
            self.calls += 1
            return x * scale

    class Parent(nn.Module):
        def __init__(self):
            super().__init__()
            self.s = Scale()

        def forward(self, x):
            a = self.s(x, scale=2.0)
            return self.s(a.sum(0), 3.0) + a

    p = Parent()
    x = torch.randn(2, 3)
    traced = _trace(p, x)
    assert p.s.calls == 2  # once per call of the eager run
    y = torch.randn(4, 3)
    torch.testing.assert_close(traced.s(y), y * 2.0)  # (PyTorch's child graph is the first call)
    torch.testing.assert_close(traced(y), p(y))


def test_child_arguments_kwargs_sizes_and_outside_tensors():
    class Child(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(3))
            self.register_buffer("offset", torch.ones(3))

        def forward(self, x, y, *, n, bias=None):
            out = x * self.w + y[:n].sum(0) + self.offset
            if bias is not None:
                out = out + bias
            return out, self.w  # a parameter returned as is

    class Parent(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = Child()
            self.ident = nn.Identity()

        def forward(self, x):
            n = x.size(0) - 1  # a traced size, passed as an int
            out, w = self.c(x, x, n=n, bias=self.ident(x[0]))
            return out * w

    p = Parent()
    x = torch.randn(4, 3)
    traced = _trace(p, x)
    assert isinstance(traced.c, torch.jit.ScriptModule)
    assert isinstance(traced.ident, torch.jit.ScriptModule)
    z = torch.randn(4, 3)
    torch.testing.assert_close(traced.ident(z), z)
    b = torch.randn(3)
    out, w = traced.c(z, z, n=3, bias=b)
    want, _ = p.c(z, z, n=3, bias=b)
    torch.testing.assert_close(out, want)
    assert w is p.c.w or torch.equal(w, p.c.w)
    torch.testing.assert_close(traced(z), p(z))
    # the parameter and buffer are the child's own, under its names
    assert set(traced.c.graph.params) == {"w", "offset"}


def test_a_tensor_the_caller_computed_is_frozen_in_the_child_graph():
    class Child(nn.Module):
        def forward(self, x):
            return x + self.extra  # set by the parent before the call

    class Parent(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = Child()

        def forward(self, x):
            self.c.extra = x.mean(0).detach()
            return self.c(x)

    p = Parent()
    x = torch.randn(4, 3)
    traced = _trace(p, x)
    z = torch.randn(4, 3)
    # the parent's graph follows its input; the child's own graph holds the value it saw
    torch.testing.assert_close(traced(z), z + z.mean(0))
    torch.testing.assert_close(traced.c(z), z + x.mean(0))


def test_a_child_that_raised_or_returns_a_dict_stays_eager():
    class Bad(nn.Module):
        def forward(self, x):
            x = x * 2
            raise ValueError("no")

    class Dicty(nn.Module):
        def forward(self, x):
            return {"y": x + 1}

    class Parent(nn.Module):
        def __init__(self):
            super().__init__()
            self.bad, self.dicty, self.lin = Bad(), Dicty(), nn.Linear(3, 3)

        def forward(self, x):
            try:
                self.bad(x)
            except ValueError:
                pass
            return self.lin(self.dicty(x)["y"])

    p = Parent()
    x = torch.randn(2, 3)
    traced = _trace(p, x)
    assert type(traced.bad) is Bad and type(traced.dicty) is Dicty
    assert isinstance(traced.lin, torch.jit.ScriptModule)
    torch.testing.assert_close(traced(x), p(x))
    # with strict=False a dict output is allowed: the child gets its graph
    traced = _trace(p, x, strict=False)
    assert isinstance(traced.dicty, torch.jit.ScriptModule)
    torch.testing.assert_close(traced.dicty(x)["y"], x + 1)


def test_a_submodule_under_two_names_and_recursion():
    class Rec(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x, depth=2):
            x = self.lin(x)
            return self(x, depth - 1) if depth > 1 else x

    class Parent(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Rec()
            self.b = self.a

        def forward(self, x):
            return self.b(x)

    p = Parent()
    x = torch.randn(2, 3)
    traced = _trace(p, x)
    assert traced.a is traced.b and isinstance(traced.a, torch.jit.ScriptModule)
    # the outer call's graph (the recursion unrolled as traced)
    torch.testing.assert_close(traced.a(x), p.a(x))
    torch.testing.assert_close(traced(x), p(x))


def test_the_tree_saves_and_loads():
    model = _Net().eval()
    x = torch.randn(4, 6)
    traced = _trace(model, x)
    buf = io.BytesIO()
    torch.jit.save(traced, buf)
    buf.seek(0)
    loaded = torch.jit.load(buf)
    torch.manual_seed(2)
    got = loaded(x)
    torch.manual_seed(2)
    torch.testing.assert_close(got, model(x))
    assert isinstance(loaded.block.lin, torch.jit.ScriptModule)
    torch.testing.assert_close(loaded.block(x), model.block(x))
    torch.testing.assert_close(loaded.block.lin(x), model.block.lin(x))


@pytest.mark.parametrize("check_trace", [False, True])
def test_rnn_children_still_recorded_whole(check_trace):
    class Tagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(4, 5, batch_first=True)
            self.out = nn.Linear(5, 2)

        def forward(self, x):
            h, _ = self.rnn(x)
            return self.out(h)

    m = Tagger()
    x = torch.randn(2, 3, 4)
    traced = _trace(m, x, check_trace=check_trace)
    assert "nn.GRU" in str(traced.rnn.graph)
    y = torch.randn(2, 5, 4)
    torch.testing.assert_close(traced.rnn(y)[0], m.rnn(y)[0])
    torch.testing.assert_close(traced(y), m(y))
