"""Forward-mode AD with dual tensors: ``make_dual(primal, tangent)`` inside a ``dual_level``,
then ``unpack_dual(y).tangent`` is the directional derivative J @ tangent of everything
computed from the dual tensors.

>>> import torch.autograd.forward_ad as fwAD
>>> x, v = torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0])
>>> with fwAD.dual_level():
...     y = fwAD.make_dual(x, v) ** 2
...     fwAD.unpack_dual(y).tangent
tensor([2., 0.])

The tangents are not carried op by op as PyTorch's forward mode does: a dual tensor is
recorded by the reverse-mode tape, and ``unpack_dual`` computes the tangent with two
backward passes (the double-vjp trick: u -> J^T u is linear in u, so its vjp with the
tangent is J tangent). The numbers are the same; the costs and three visible details
differ: a dual tensor made from a tensor that does not require grad reports
``requires_grad=True``; work done under ``torch.no_grad()`` carries no tangent; each
``unpack_dual`` of a computed tensor costs two backward passes over its graph.
"""

import threading
from typing import NamedTuple

import torch

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]


class UnpackedDualTensor(NamedTuple):
    """``unpack_dual``'s result: the primal, and the tangent (None when the tensor does not
    depend on a dual tensor of the level)."""

    primal: torch.Tensor
    tangent: torch.Tensor | None


_local = threading.local()


def _levels():
    """This thread's open levels: for each, the dual tensors made in it and their tangents."""
    try:
        return _local.levels
    except AttributeError:
        _local.levels = []
        return _local.levels


def enter_dual_level():
    """Opens a new level (only one may be open, as in PyTorch); returns its index."""
    levels = _levels()
    if levels:
        raise RuntimeError(
            "Currently only a single dual level is supported and one is already entered: "
            "exit it first"
        )
    levels.append({})
    return len(levels) - 1


def exit_dual_level(*, level=None):
    """Closes the level: its dual tensors become ordinary tensors (no tangent)."""
    levels = _levels()
    if not levels:
        raise RuntimeError("exit_dual_level(): no dual level is entered")
    if level is not None and level != len(levels) - 1:
        raise RuntimeError(
            f"exit_dual_level(): trying to exit level {level}, but the current level is "
            f"{len(levels) - 1}"
        )
    levels.pop()


class dual_level:
    """Context manager for a forward-AD level: dual tensors made inside it lose their
    tangents when it exits."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False


def _current(level, fn):
    levels = _levels()
    if level is None:
        level = len(levels) - 1
    if level < 0 or level >= len(levels):
        raise RuntimeError(
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first."
            if fn == "make_dual"
            else f"{fn}(): level {level} is not entered"
        )
    return levels[level]


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor: ``tensor``'s values with ``tangent`` (same shape) as its derivative
    direction. Backward through it still reaches ``tensor`` when that requires grad."""
    duals = _current(level, "make_dual")
    if not isinstance(tensor, torch.Tensor) or not isinstance(tangent, torch.Tensor):
        raise TypeError("make_dual(): expected tensor and tangent to be Tensors")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise ValueError(
            f"make_dual(): expected a floating-point or complex primal, got {tensor.dtype}"
        )
    with torch.enable_grad():
        dual = tensor.view_as(tensor) if tensor.requires_grad else tensor.detach()
        if not dual.requires_grad:
            dual.requires_grad_(True)
    duals[id(dual)] = (dual, tangent.to(tensor.dtype))
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of ``tensor``: the tangent is J @ tangents of the level's dual
    tensors it was computed from (None if it depends on none of them)."""
    levels = _levels()
    if not levels or not isinstance(tensor, torch.Tensor):
        return UnpackedDualTensor(tensor, None)
    duals = _current(level, "unpack_dual")
    hit = duals.get(id(tensor))
    if hit is not None and hit[0] is tensor:
        return UnpackedDualTensor(tensor, hit[1])
    if not tensor.requires_grad or not duals:
        return UnpackedDualTensor(tensor, None)
    inputs = [d for d, _ in duals.values()]
    with torch.enable_grad():
        u = torch.zeros_like(tensor, requires_grad=True)
        vjps = torch.autograd.grad(tensor, inputs, u, create_graph=True, allow_unused=True)
        pairs = [
            (g, t) for g, (_, t) in zip(vjps, duals.values()) if g is not None and g.requires_grad
        ]
        if not any(g is not None for g in vjps):
            return UnpackedDualTensor(tensor, None)
        if not pairs:  # (constant in the duals: J is zero)
            return UnpackedDualTensor(tensor, torch.zeros_like(tensor))
        gs, ts = zip(*pairs)
        (jvp,) = torch.autograd.grad(gs, u, ts, allow_unused=True)
    return UnpackedDualTensor(tensor, torch.zeros_like(tensor) if jvp is None else jvp)
