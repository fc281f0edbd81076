"""The code of torch.nn.functional, Module's hooks and the recurrences lives in private
modules; these check that the public names stay where they were."""

import pickle
import types

import torch
import torch.nn.functional as F
from torch.nn.modules import module, rnn


def _code_home(fn):
    return getattr(fn, "__wrapped__", fn).__globals__["__name__"]  # (through torch.amp's wrappers)


def test_functional_functions_keep_their_home():
    moved = [
        fn
        for fn in vars(F).values()
        if isinstance(fn, types.FunctionType) and _code_home(fn).startswith("torch.nn._functional.")
    ]
    assert len(moved) > 70
    for fn in moved:
        assert fn.__module__ == "torch.nn.functional", fn
        assert pickle.loads(pickle.dumps(fn)) is fn


def test_functional_star_import_and_dir():
    ns = {}
    exec("from torch.nn.functional import *", ns)
    assert {"relu", "linear", "grid_sample", "multi_head_attention_forward"} <= set(ns)
    assert {"softmax", "conv2d", "pad", "relu", "math", "torch"} <= set(dir(F))
    from torch.nn.functional import _Reduction  # noqa: F401  (torch.nn.modules.loss uses it)


def test_module_hook_names_are_importable_from_module_py():
    for name in module.__all__:
        assert getattr(module, name) is not None
    handle = module.register_module_forward_hook(lambda m, args, out: out * 2)
    try:
        assert torch.equal(torch.nn.Identity()(torch.ones(2)), torch.full((2,), 2.0))
    finally:
        handle.remove()
    assert torch.equal(torch.nn.Identity()(torch.ones(2)), torch.ones(2))
    assert type(handle).__module__ == "torch.nn.modules.module"


def test_rnn_runs_the_recurrence_that_rnn_py_holds(monkeypatch):
    # torch.amp wraps torch.nn.modules.rnn._recurrence: the layers must call that one
    calls = []
    inner = rnn._recurrence

    def spy(*args):
        calls.append(args[0])
        return inner(*args)

    monkeypatch.setattr(rnn, "_recurrence", spy)
    torch.nn.GRU(3, 2, num_layers=2)(torch.randn(4, 1, 3))
    assert calls == ["GRU", "GRU"]
