"""Every differentiable op of the op registry against finite differences.

gradcheck and gradgradcheck run in float64 over the registry's samples (broadcast,
non-contiguous, expanded, 0-d and empty inputs; see ``grad_cases``).  Around them: every
op keeps the graph, a backward gives each input a gradient of its own shape, every core op
has a formula or is declared not differentiable, and the samples cover what they should.
"""

import math

import pytest
from grad_cases import (
    EXTRA_SAMPLES,
    NO_LAYOUT,
    NO_ZERO_DIM,
    UNDEFINED,
    float_specs,
    function_of,
    grad_cases,
    grad_ops,
    samples_of,
)

import torch
from torch.autograd import gradcheck, gradgradcheck
from torch.testing._op_registry import BY_NAME, T

CASES = grad_cases()
ALL_CASES = grad_cases(small=False)


def _outputs(out):
    return out if isinstance(out, tuple) else (out,)


@pytest.mark.parametrize("case", ALL_CASES, ids=repr)
def test_output_keeps_the_graph(case):
    fn, leaves = case.build(check=False)
    for i, out in enumerate(_outputs(fn(*leaves))):
        if not out.is_floating_point():  # indices, masks, counts
            assert not out.requires_grad, f"integer output {i} requires grad"
        elif not any(out is x for x in leaves):  # contiguous() may hand back its input
            assert out.requires_grad, f"output {i} does not require grad"
            assert out.grad_fn is not None, f"output {i} has no grad_fn"


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_gradcheck(case):
    fn, leaves = case.build()
    outs = [o for o in _outputs(fn(*leaves)) if o.is_floating_point()]
    seeds = [torch.ones_like(o) for o in outs]
    grads = torch.autograd.grad(outs, leaves, seeds, allow_unused=True)  # unbind of 0 rows
    for i, (leaf, g) in enumerate(zip(leaves, grads)):  # empty tensors reach here too
        assert g is None or (g.shape == leaf.shape and g.dtype == leaf.dtype), (
            f"input {i}: gradient {g.dtype} {tuple(g.shape)} for {leaf.dtype} {tuple(leaf.shape)}"
        )
    assert gradcheck(fn, leaves)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_gradgradcheck(case):
    fn, leaves = case.build()
    if not any(o.is_floating_point() for o in _outputs(fn(*leaves))):
        assert gradcheck(fn, leaves)  # unbind of an empty dim: no gradient to differentiate
        return
    assert gradgradcheck(fn, leaves)


def test_every_grad_gate_of_the_core_has_a_formula():
    missing = torch.autograd.install.unfilled()
    assert not missing, "core ops with a grad gate but no formula: " + " ".join(missing)


def test_an_empty_formula_slot_raises_naming_the_op():
    gate = torch._C._grad_gates["Tensor.exp_"]
    formula = gate.formula
    gate.formula = None
    try:
        x = torch.ones(2, requires_grad=True) * 1
        with pytest.raises(NotImplementedError, match="derivative for 'exp_'"):
            x.exp_()
        with torch.no_grad():
            x.exp_()  # without a gradient the op runs
    finally:
        gate.formula = formula
    assert torch.allclose(x, torch.full((2,), math.e))


# ---------------------------------------------------------------- what the samples cover


def _targets():
    """Registry entries grouped by the torch function they call."""
    groups = {}
    for op in grad_ops():
        groups.setdefault(function_of(op), []).append(op)
    return groups


def _specs(op):
    return [spec for sample in samples_of(op) for spec in float_specs(sample)]


def test_the_local_tables_name_registry_ops():
    named = set(EXTRA_SAMPLES) | set(UNDEFINED)
    assert named - set(BY_NAME) == set()
    assert (NO_ZERO_DIM | NO_LAYOUT) - set(_targets()) == set()


@pytest.mark.parametrize("target", sorted(set(_targets()) - NO_LAYOUT))
def test_samples_include_a_non_contiguous_input(target):
    assert any(s.layout != "c" for op in _targets()[target] for s in _specs(op))


@pytest.mark.parametrize("target", sorted(set(_targets()) - NO_ZERO_DIM))
def test_samples_include_a_0d_input(target):
    assert any(s.shape == () for op in _targets()[target] for s in _specs(op))


@pytest.mark.parametrize(
    "op", [op for op in grad_ops() if op.kind in ("binary", "ternary")], ids=lambda op: op.name
)
def test_elementwise_samples_include_a_broadcast(op):
    def broadcasts(sample):
        shapes = [a.shape for a in sample.args + tuple(sample.kwargs.values()) if isinstance(a, T)]
        return len(set(shapes)) > 1

    assert any(broadcasts(sample) for sample in samples_of(op))
