"""``torch.ops`` operators honour the ``__torch_function__`` protocol, as in PyTorch: an
argument whose type defines it (a ``torch.fx`` Proxy, a tensor-like) is handed the call,
with the operator object itself as ``func`` (the packet, or the overload called). This is
how pytorch/examples' fx/profiling_tracer.py records ``_record_function_exit(proxy)``.
Checked against PyTorch 2.13's answers for the same calls."""

import pytest

import torch

P = torch.ops.profiler


class Handles:
    calls = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.calls.append((func, types, args, kwargs))
        return f"handled by {cls.__name__}"


class SubHandles(Handles):
    pass


class Declines:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def test_the_packet_is_handed_to_the_argument():
    a = Handles()
    assert P._record_function_exit(a) == "handled by Handles"
    func, types, args, kwargs = Handles.calls[-1]
    assert func is P._record_function_exit
    assert types == (Handles,) and args == (a,) and not kwargs


def test_an_overload_is_handed_itself():
    a = Handles()
    assert P._record_function_exit.default(a) == "handled by Handles"
    assert Handles.calls[-1][0] is P._record_function_exit.default


def test_keyword_and_later_arguments_count():
    b = SubHandles()
    assert P._record_function_enter("x", args=b) == "handled by SubHandles"
    func, types, args, kwargs = Handles.calls[-1]
    assert func is P._record_function_enter
    assert types == (SubHandles,) and args == ("x",) and kwargs == {"args": b}


def test_a_subclass_goes_before_its_base():
    a, b = Handles(), SubHandles()
    assert P._record_function_enter(a, b) == "handled by SubHandles"
    assert Handles.calls[-1][1] == (SubHandles, Handles)


def test_notimplemented_passes_to_the_next_then_is_a_type_error():
    assert P._record_function_enter(Declines(), Handles()) == "handled by Handles"
    with pytest.raises(TypeError):
        P._record_function_exit(Declines())


def test_plain_arguments_still_run_the_operator():
    handle = P._record_function_enter("plain")
    assert isinstance(handle, torch.Tensor)
    assert P._record_function_exit(handle) is None
