"""Criterion: the base of Lua-Torch's loss functions.

``forward(input, target)`` computes ``output``, a Python number; ``backward(input, target)``
computes ``gradInput``, the loss's gradient with respect to ``input`` (same shape), and
returns it. Subclasses implement ``updateOutput`` and ``updateGradInput`` and return
``self.output`` / ``self.gradInput`` from them, as in Lua.
"""

import torch

from .Module import _TYPE_NAMES, Module, _map_tensors, _storage_converter


def _map_children(value, fn):
    """``value`` with ``fn`` applied to each criterion or module in it (directly or in a
    list), as Module.type does for child modules."""
    if isinstance(value, (Criterion, Module)):
        return fn(value)
    if isinstance(value, list):
        return [fn(v) if isinstance(v, (Criterion, Module)) else v for v in value]
    return value


def check_tensor(name, arg, value):
    """Raises TypeError unless ``value`` is a tensor (``arg`` names it in the message)."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"nn.{name}: {arg} must be a Tensor, got {type(value).__name__}")


def check_same_size(name, input, target):
    """Raises ValueError naming the criterion unless input and target have the same
    number of elements (Lua compares element counts, not shapes)."""
    check_tensor(name, "input", input)
    check_tensor(name, "target", target)
    if input.numel() != target.numel():
        raise ValueError(
            f"nn.{name}: input and target must have the same number of elements, got input "
            f"of shape {tuple(input.shape)} and target of shape {tuple(target.shape)}"
        )
    return target.reshape(input.shape).to(input.dtype)


def class_indices(name, target, n):
    """``target`` (an int, or an integer tensor of n elements) as an int64 tensor of shape
    (n,) holding 0-based class indices."""
    if isinstance(target, int):
        target = torch.tensor([target])
    check_tensor(name, "target", target)
    if target.is_floating_point():
        if not bool((target == target.floor()).all()):
            raise ValueError(f"nn.{name}: target must hold integer class indices, got {target}")
    if target.numel() != n:
        raise ValueError(
            f"nn.{name}: expected a target of {n} class indices, got target of shape "
            f"{tuple(target.shape)}"
        )
    return target.reshape(n).to(torch.int64)


class Criterion:
    """The base of the criterions (losses): ``forward(input, target)`` returns the loss as a
    number (``output``), ``backward(input, target)`` returns its gradient with respect to
    ``input`` (``gradInput``)."""

    def __init__(self):
        self.gradInput = torch.Tensor()
        self.output = 0

    def updateOutput(self, input, target):
        """Computes ``self.output`` (a Python number) and returns it."""
        raise NotImplementedError

    def forward(self, input, target):
        return self.updateOutput(input, target)

    def updateGradInput(self, input, target):
        """Computes ``self.gradInput`` (d output / d input) and returns it."""
        raise NotImplementedError

    def backward(self, input, target):
        return self.updateGradInput(input, target)

    def __call__(self, input, target):
        self.output = self.forward(input, target)
        self.gradInput = self.backward(input, target)
        return self.output, self.gradInput

    def clone(self):
        raise NotImplementedError

    def type(self, type=None, tensorCache=None):
        """With no argument: the type name of gradInput. Otherwise casts every floating
        tensor attribute (and child criterion or module) to ``type`` (a name such as
        'torch.FloatTensor', or a dtype) and returns self; tensors that shared a storage
        share the converted one (``tensorCache`` is Module.type's cache)."""
        if type is None:
            return self.gradInput.type()
        dtype = _TYPE_NAMES.get(type, type)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise ValueError(
                f"{self!r}.type(): expected one of {sorted(_TYPE_NAMES)}, got {type!r}"
            )
        cache = {} if tensorCache is None else tensorCache
        convert = _storage_converter(dtype, cache.setdefault("storages", {}))
        memo = cache.setdefault("tensors", {})
        for key, value in list(self.__dict__.items()):
            value = _map_children(value, lambda c: c.type(dtype, cache))
            self.__dict__[key] = _map_tensors(value, convert, memo)
        return self

    def float(self):
        return self.type("torch.FloatTensor")

    def double(self):
        return self.type("torch.DoubleTensor")

    def cuda(self):
        raise NotImplementedError("nn.Criterion.cuda(): this build has no CUDA backend")

    def __repr__(self):
        return "nn." + self.__class__.__name__


class ElementwiseCriterion(Criterion):
    """A sum of per-element losses of an input and a target with as many elements, divided by
    the number of elements if ``sizeAverage``. Subclasses give ``_loss(input, target)`` and
    its derivative in the input, ``_grad(input, target)`` (both elementwise)."""

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _scale(self, input):
        return 1.0 / max(input.numel(), 1) if self.sizeAverage else 1.0

    def updateOutput(self, input, target):
        target = check_same_size(type(self).__name__, input, target)
        self.output = self._loss(input, target).sum().item() * self._scale(input)
        return self.output

    def updateGradInput(self, input, target):
        target = check_same_size(type(self).__name__, input, target)
        self.gradInput = self._grad(input, target) * self._scale(input)
        return self.gradInput
