"""In-place ops on views: the base tensor's history is rewritten (CopySlices), and the view
becomes a strided window on the new history (AsStridedView).

A view and its base share memory, so ``y[0].mul_(2)`` changes ``y``.  The view's geometry
(sizes, strides, storage offset relative to the base) locates its elements inside a
gradient laid out like the base.
"""

import torch
from torch.autograd.function import Function  # (graph.py imports this module lazily: no cycle)
from torch.autograd.graph import Node


def _like_base(g, geometry):
    """A copy of g (the base's gradient) with the base's strides, so that a view's
    geometry can address it."""
    size, stride = geometry
    out = torch.empty_strided(size, stride, dtype=g.dtype, device=g.device)
    return out.copy_(g)


def _window(t, view_geometry, base_offset):
    size, stride, offset = view_geometry
    return t.as_strided(size, stride, t.storage_offset() + offset - base_offset)


class CopySlices(Node):
    """The base after an in-place op on one of its views.

    Inputs: the base before the op, then the in-place node's other inputs.  The gradient
    of the base passes through unchanged outside the view; inside it, it goes through the
    in-place op's backward.
    """

    def __init__(self, base, view, node, self_slots, base_edge):
        self.node = node
        self.self_slots = self_slots
        self.base_geometry = (tuple(base.shape), base.stride())
        self.base_offset = base.storage_offset()
        self.view_geometry = (tuple(view.shape), view.stride(), view.storage_offset())
        others = [e for i, e in enumerate(node._edges) if i not in self_slots]
        self._edges = [base_edge] + others

    def name(self):
        return "CopySlices"

    def backward(self, grad):
        g = _like_base(grad, self.base_geometry)
        region = _window(g, self.view_geometry, self.base_offset)
        grads = self.node.backward(region.clone())
        self_grad = None
        for i in self.self_slots:
            if grads[i] is not None:
                self_grad = grads[i] if self_grad is None else self_grad + grads[i]
        if self_grad is None:
            region.zero_()
        else:
            region.copy_(self_grad)
        others = [gi for i, gi in enumerate(grads) if i not in self.self_slots]
        return [g] + others

    def _release(self):
        self.node._release()
        self._released = True


class AsStridedView(Node):
    """A view re-derived from its base's new history: a strided window of the base."""

    @classmethod
    def of(cls, base, view, base_edge):
        node = cls()
        node.base_geometry = (tuple(base.shape), base.stride())
        node.base_offset = base.storage_offset()
        node.view_geometry = (tuple(view.shape), view.stride(), view.storage_offset())
        node._edges = [base_edge]
        return node

    def name(self):
        return "AsStridedBackward0"

    def backward(self, grad):
        return (scatter_window(grad, self.base_geometry, self.view_geometry, self.base_offset),)


class _ScatterWindow(Function):
    """Zeros laid out like the base, with the gradient in the view's window."""

    @staticmethod
    def forward(ctx, g, base_geometry, view_geometry, base_offset):
        ctx.geometry = (base_geometry, view_geometry, base_offset)
        size, stride = base_geometry
        out = torch.empty_strided(size, stride, dtype=g.dtype, device=g.device).zero_()
        _window(out, view_geometry, base_offset).copy_(g)
        return out

    @staticmethod
    def backward(ctx, g):
        base_geometry, view_geometry, base_offset = ctx.geometry
        return _window(_like_base(g, base_geometry), view_geometry, base_offset), None, None, None


def scatter_window(grad, base_geometry, view_geometry, base_offset):
    """Zeros laid out like the base, with ``grad`` in the view's window (differentiable)."""
    return _ScatterWindow.apply(grad, base_geometry, view_geometry, base_offset)
