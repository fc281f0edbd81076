"""Pruning: zeroing parts of a module's parameter through a mask.

Pruning parameter ``name`` of a module moves the parameter to ``<name>_orig``, adds a buffer
``<name>_mask`` (1 kept, 0 pruned) and a forward pre-hook (the pruning method itself) that
sets the plain attribute ``module.<name> = <name>_orig * <name>_mask`` before each call.
Pruning the same parameter again composes the masks: a :class:`PruningContainer` keeps the
methods in order, and each new one only sees the entries (unstructured) or channels
(structured) still kept. :func:`remove` makes the pruning permanent: the parameter
``<name>`` holds the masked values again, and the mask, ``_orig`` and the hook are gone.

``amount`` is a number of entries (an int >= 0) or a fraction of them (a float in [0, 1],
rounded to the nearest count).
"""

import numbers
from abc import ABC, abstractmethod

import torch

__all__ = [
    "BasePruningMethod",
    "CustomFromMask",
    "Identity",
    "L1Unstructured",
    "LnStructured",
    "PruningContainer",
    "RandomStructured",
    "RandomUnstructured",
    "custom_from_mask",
    "global_unstructured",
    "identity",
    "is_pruned",
    "l1_unstructured",
    "ln_structured",
    "random_structured",
    "random_unstructured",
    "remove",
]


class BasePruningMethod(ABC):
    """A way of computing a pruning mask; registered on a module as its forward pre-hook.

    Subclasses set ``PRUNING_TYPE`` (``"unstructured"``: single entries, ``"structured"``:
    whole slices along ``self.dim``, ``"global"``: the whole tensor) and implement
    ``compute_mask(t, default_mask)``, the new mask (a tensor of t's shape) given the
    importance scores ``t`` and the mask already in force."""

    PRUNING_TYPE = "unstructured"
    _tensor_name = None

    def __call__(self, module, inputs):
        """The pre-hook: recompute ``module.<name>`` from ``<name>_orig`` and the mask."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask to use for ``t``, given the mask ``default_mask`` already in force."""

    def apply_mask(self, module):
        """``<name>_orig * <name>_mask`` of the module (the pruned tensor)."""
        name = self._tensor_name
        if name is None:
            raise RuntimeError(f"{type(self).__name__} was not applied to a module parameter")
        orig = getattr(module, name + "_orig")
        mask = getattr(module, name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, composing with the pruning
        already there. ``importance_scores`` (the parameter's own values when None, of its
        shape) decide what is pruned. Returns the method (a container when composed)."""
        old = [
            (k, hook)
            for k, hook in module._forward_pre_hooks.items()
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
        ]
        if len(old) > 1:
            raise RuntimeError(f"more than one pruning hook on parameter {name} of {module}")
        method = cls(*args, **kwargs)
        method._tensor_name = name
        if old:
            key, previous = old[0]
            del module._forward_pre_hooks[key]
            container = previous
            if not isinstance(previous, PruningContainer):
                container = PruningContainer(previous)
            container.add_pruning_method(method)
            method = container
        orig = getattr(module, name)
        if importance_scores is not None and importance_scores.shape != orig.shape:
            raise ValueError(
                f"importance_scores should have the same shape as parameter {name} of {module}"
            )
        scores = orig if importance_scores is None else importance_scores
        if not old:  # the parameter becomes <name>_orig
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = torch.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        with torch.no_grad():
            mask = method.compute_mask(scores.detach(), default_mask=default_mask)
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask computed from ``importance_scores`` (t itself when None)."""
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise ValueError("importance_scores should have the same shape as the tensor")
        scores = t if importance_scores is None else importance_scores
        default_mask = torch.ones_like(t) if default_mask is None else default_mask
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``<name>`` is a parameter again, holding the pruned
        values; ``<name>_orig`` and ``<name>_mask`` are deleted (the hook is not)."""
        name = self._tensor_name
        if name is None:
            raise RuntimeError(f"{type(self).__name__} was not applied to a module parameter")
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied, in order, to one parameter: each new method's mask is
    computed on what the previous ones kept, and combined with their mask."""

    def __init__(self, *methods):
        self._pruning_methods = ()
        if len(methods) == 1 and not isinstance(methods[0], BasePruningMethod):
            methods = tuple(methods[0])  # an iterable of methods
        for m in methods:
            if self._tensor_name is None:
                self._tensor_name = m._tensor_name
            self.add_pruning_method(m)

    def add_pruning_method(self, method):
        """Append ``method`` (a BasePruningMethod for the same parameter)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                f"Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The last method's mask, computed on the part of ``t`` that ``default_mask`` still
        keeps (the kept entries, the kept slices along its ``dim``, or all of t for a
        global method), written into a copy of ``default_mask``."""
        method = self._pruning_methods[-1]
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            where = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError("Pruning methods of PRUNING_TYPE 'structured' need a dim")
            dim = method.dim % t.dim()
            others = [d for d in range(t.dim()) if d != dim]
            keep = default_mask.sum(dim=others) != 0 if others else default_mask != 0
            where = tuple(keep if d == dim else slice(None) for d in range(t.dim()))
        elif kind == "global":
            where = tuple(slice(None) for _ in range(t.dim()))
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[where], default_mask=default_mask[where])
        mask = default_mask.clone()
        mask[where] = partial.to(dtype=mask.dtype)
        return mask


class Identity(BasePruningMethod):
    """Prunes nothing: the mask is all ones (useful to give a module the pruned layout)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        """The mask in force, unchanged."""
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Add an all-ones mask to ``module.<name>``."""
        return super().apply(module, name)


class _Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries that ``_order`` ranks first (its indices of the
    flattened tensor)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """default_mask with ``amount`` more entries of ``t`` set to 0."""
        n = _count_to_prune(self.amount, t.nelement())
        _validate_amount(n, t.nelement())
        mask = default_mask.clone()
        if n:
            mask.view(-1)[self._order(t.reshape(-1), n)] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        """Prune ``amount`` entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class RandomUnstructured(_Unstructured):
    """Prunes ``amount`` entries chosen uniformly at random."""

    @staticmethod
    def _order(flat, n):
        return torch.topk(torch.rand_like(flat), k=n).indices


class L1Unstructured(_Unstructured):
    """Prunes the ``amount`` entries of smallest absolute value."""

    @staticmethod
    def _order(flat, n):
        return torch.topk(flat.abs(), k=n, largest=False).indices

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Prune the ``amount`` smallest (by ``|importance_scores|``) entries of ``<name>``."""
        return super(_Unstructured, cls).apply(  # (past _Unstructured.apply: no scores there)
            module, name, amount=amount, importance_scores=importance_scores
        )


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole slices along ``dim`` (channels), chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_amount_init(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t, default_mask):
        """default_mask times the mask that zeros ``amount`` random slices along ``dim``."""
        _validate_structured(t)
        size = t.shape[self.dim]
        n = _count_to_prune(self.amount, size)
        _validate_amount(n, size)
        if not n:
            return default_mask
        keep = torch.ones(size, dtype=torch.bool)
        keep[torch.topk(torch.rand(size), k=n).indices] = False
        return _channel_mask(t, self.dim, keep) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Prune ``amount`` random slices of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` slices along ``dim`` of smallest L``n`` norm (``n`` as
    ``torch.norm``'s ``p``: an int, float, ``inf``, ``-inf``, ``"fro"`` or ``"nuc"``)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_amount_init(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t, default_mask):
        """default_mask times the mask that keeps the slices of largest norm."""
        _validate_structured(t)
        size = t.shape[self.dim]
        n = _count_to_prune(self.amount, size)
        _validate_amount(n, size)
        if not n:
            return default_mask
        dim = self.dim % t.dim()
        others = [d for d in range(t.dim()) if d != dim]
        norms = torch.norm(t, p=self.n, dim=others)
        keep = torch.zeros(size, dtype=torch.bool)
        keep[torch.topk(norms, k=size - n, largest=True).indices] = True
        return _channel_mask(t, self.dim, keep) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Prune the ``amount`` slices of ``<name>`` along ``dim`` of smallest norm."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        """default_mask times the given mask (of the same shape)."""
        if default_mask.shape != self.mask.shape:
            raise ValueError(
                f"the mask's shape {tuple(self.mask.shape)} is not the parameter's "
                f"{tuple(default_mask.shape)}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Prune ``module.<name>`` where ``mask`` is 0."""
        return super().apply(module, name, mask=mask)


def _validate_amount_init(amount):
    if not isinstance(amount, numbers.Real) or isinstance(amount, bool):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a "
            f"non-negative integer"
        )


def _count_to_prune(amount, size):
    """How many of ``size`` entries (or slices) ``amount`` means."""
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * size)


def _validate_amount(n, size):
    if n > size:
        raise ValueError(
            f"amount={n} should be smaller than the number of parameters to prune={size}"
        )


def _validate_structured(t):
    if t.dim() <= 1:
        raise ValueError(
            f"Structured pruning can only be applied to multidimensional tensors. Found "
            f"tensor of shape {tuple(t.shape)} with {t.dim()} dims"
        )


def _channel_mask(t, dim, keep):
    """Ones on the slices of ``t`` along ``dim`` where ``keep`` is True, zeros elsewhere."""
    shape = [1] * t.dim()
    shape[dim] = -1
    return torch.zeros_like(t) + keep.reshape(shape).to(dtype=t.dtype)


def identity(module, name):
    """Give ``module.<name>`` the pruned layout with an all-ones mask; returns module."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``; returns module."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` of smallest absolute value (of
    ``importance_scores`` when given); returns module."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random slices of ``module.<name>`` along ``dim``; returns module."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` slices of ``module.<name>`` along ``dim`` of smallest L``n``
    norm; returns module."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is 0; returns module."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the ``(module, name)`` pairs of ``parameters`` as one tensor: e.g.
    ``pruning_method=L1Unstructured, amount=0.2`` prunes the 20% smallest entries of all of
    them together. ``importance_scores`` maps ``(module, name)`` to scores to use instead of
    the parameter. Each parameter gets its part of the mask as a :class:`CustomFromMask`."""
    if not isinstance(parameters, (list, tuple)):
        try:
            parameters = list(parameters)
        except TypeError:
            raise TypeError("global_unstructured(): parameters must be an iterable") from None
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be a dict")
    scores = torch.cat(
        [importance_scores.get((m, n), getattr(m, n)).detach().reshape(-1) for m, n in parameters]
    )
    default_mask = torch.cat(
        [
            getattr(m, n + "_mask", torch.ones_like(getattr(m, n))).detach().reshape(-1)
            for m, n in parameters
        ]
    )
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found '
            f"method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container = PruningContainer(method)
    with torch.no_grad():
        final = container.compute_mask(scores, default_mask)
    start = 0
    for m, n in parameters:
        param = getattr(m, n)
        size = param.numel()
        custom_from_mask(m, n, mask=final[start : start + size].view_as(param))
        start += size


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (see the module docstring); returns
    module. Raises ValueError when the parameter is not pruned."""
    for key, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module):
    """Whether ``module`` or any of its submodules has a pruned parameter."""
    return any(
        isinstance(hook, BasePruningMethod)
        for m in module.modules()
        for hook in m._forward_pre_hooks.values()
    )
