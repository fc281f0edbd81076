"""Registers the recording layer with the core: every differentiable core op is wrapped in a
``_C._GradGate`` that calls :func:`torch.autograd.graph.record` when an input requires grad.

The core's ops are C++ callables on ``torch._C`` and ``torch.Tensor``; torch's Python
modules call them by attribute (``_C._sum(...)``) or re-export them (``torch.add``), so each
original is replaced wherever a torch module or the Tensor class holds it.
"""

import sys

import torch
from torch import _C
from torch.autograd import graph
from torch.autograd.formulas import all_formulas

Tensor = torch.Tensor

# Core ops with no gradient: integer/bool results, creation, random sampling, queries.
NOT_DIFFERENTIABLE = frozenset(
    """
    __and__ __bool__ __complex__ __dlpack__ __dlpack_device__ __eq__ __float__ __ge__ __gt__
    __iand__
    __index__ __init__ __int__ __invert__ __ior__ __ixor__ __le__ __len__ __lt__ __ne__ __or__
    __rand__ __ror__ __rxor__ __xor__ _bump_version _pybind11_conduit_v1_ _storage_nbytes
    _storage_ptr bitwise_and bitwise_and_ bitwise_not bitwise_not_ bitwise_or bitwise_or_
    bitwise_xor bitwise_xor_ data_ptr detach dim element_size eq eq_ ge ge_ greater greater_
    greater_equal greater_equal_ gt gt_ is_complex is_contiguous is_floating_point is_inference
    isfinite
    isinf isnan item le le_ less less_ less_equal less_equal_ logical_and logical_and_
    logical_not logical_not_ logical_or logical_or_ logical_xor logical_xor_ lt lt_ ndimension
    ne ne_ nelement not_equal not_equal_ numel numpy resize_ size storage_offset stride tolist
    untyped_storage __rmatmul__ bitwise_left_shift bitwise_left_shift_ bitwise_right_shift
    bitwise_right_shift_ __lshift__ __rlshift__ __rshift__ __rrshift__ __ilshift__ __irshift__
    _all _any _arange _bernoulli_ _dtype_legacy_name _eye _full _index_offsets _linspace
    _mark_requires_grad _nonzero _normal_ _random_ _randperm _searchsorted _set_autograd_missing
    _set_inference_mode
    _set_data _set_grad_enabled _set_grad_recorder _set_size_class _set_storage _storage_view
    _tensor_from_data
    _broadcast_shapes_of _set_grad_fn _batch_norm_backward _dropout_mask _sole_owner
    _lstm_cell _lstm_cell_backward _lstm_layer _lstm_layer_backward _adam_update_
    _tensor_from_storage _to_dlpack _tri_indices _uniform_ _unique can_cast empty from_dlpack
    from_numpy get_default_dtype get_num_threads is_grad_enabled manual_seed multinomial
    promote_types result_type set_default_dtype set_num_threads
    """.split()
)


def _is_core_op(obj):
    return type(obj).__name__ in ("builtin_function_or_method", "instancemethod")


def install():
    """Wrap every op named by a formula; returns {name: gate} (raises on an unknown name)."""
    gates = {}  # id(original) -> gate
    installed = {}
    for cls in all_formulas():
        for names, inplace in ((cls.names, False), (cls.inplace_names, True)):
            for name in names:
                found = False
                for owner in (Tensor.__dict__, vars(_C)):
                    orig = owner.get(name)
                    if orig is None or not _is_core_op(orig):
                        continue
                    if id(orig) not in gates:
                        spec = graph.OpSpec(cls, name, inplace)
                        gate = _C._GradGate(orig, spec, view=bool(cls.view) and not inplace)
                        gates[id(orig)] = (orig, gate)
                    installed[name] = gates[id(orig)][1]
                    found = True
                if not found:
                    raise RuntimeError(f"{cls.__name__} names {name!r}, which is no core op")
    replace = {k: gate for k, (_, gate) in gates.items()}
    for key, value in list(Tensor.__dict__.items()):
        if id(value) in replace:
            setattr(Tensor, key, replace[id(value)])
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not (mod_name == "torch" or mod_name.startswith("torch.")):
            continue
        for key, value in list(vars(mod).items()):
            if id(value) in replace:
                setattr(mod, key, replace[id(value)])
    _C._set_grad_recorder(graph.record)
    _C._set_autograd_missing(None)
    return installed


def ungated():
    """Core ops that are neither differentiated nor listed as NOT_DIFFERENTIABLE."""
    missing = []
    for owner, prefix in ((Tensor.__dict__, "Tensor."), (vars(_C), "torch._C.")):
        for name, obj in owner.items():
            if _is_core_op(obj) and name not in NOT_DIFFERENTIABLE:
                missing.append(prefix + name)
    return sorted(missing)
