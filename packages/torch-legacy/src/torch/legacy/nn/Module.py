"""The base of every legacy module: Lua-Torch's ``nn.Module`` contract.

A module keeps its state in plain attributes with Lua's field names (``output``,
``gradInput``, ``weight``, ``bias``, ``gradWeight``, ``gradBias``, ``train``, ...), so a
module read from a .t7 file (``cls.__new__(cls)`` + its Lua fields) works like one built
here. Gradients are computed by hand (no autograd): ``updateGradInput`` writes
``gradInput``, ``accGradParameters`` *adds* ``scale`` times the parameter gradients into
``gradWeight``/``gradBias`` in place, so that ``flattenParameters`` views stay valid.
"""

import torch
from torch import _C


def _name(module):
    """How errors name a module: its repr's first line (``nn.Linear(3 -> 2)``)."""
    return repr(module).split("\n")[0].rstrip(" {")


def _check_input(module, input, *ndims, name="input"):
    """Raise unless ``input`` is a tensor with one of ``ndims`` dimensions (any if none)."""
    if not isinstance(input, torch.Tensor):
        raise TypeError(f"{_name(module)}: {name} must be a Tensor, not {type(input).__name__}")
    if ndims and input.dim() not in ndims:
        allowed = " or ".join(f"{n}D" for n in ndims)
        raise RuntimeError(
            f"{_name(module)}: expected a {allowed} {name}, got one of size {tuple(input.shape)}"
        )
    return input


def _check_size(module, input, dim, size, what, name="input"):
    """Raise unless ``input.size(dim) == size`` (``what`` says where the size comes from)."""
    if input.size(dim) != size:
        raise RuntimeError(
            f"{_name(module)}: {name} of size {tuple(input.shape)} has {input.size(dim)} "
            f"elements in dimension {dim % input.dim()}, expected {size} ({what})"
        )


def _check_same_size(module, a, b, names=("input", "gradOutput")):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(
            f"{_name(module)}: {names[0]} of size {tuple(a.shape)} and {names[1]} of size "
            f"{tuple(b.shape)} must have the same size"
        )


def _check_table(module, input, n=None, name="input"):
    """Raise unless ``input`` is a list/tuple (Lua table), of ``n`` entries when given."""
    if not isinstance(input, (list, tuple)):
        raise TypeError(
            f"{_name(module)}: {name} must be a list of tensors, not {type(input).__name__}"
        )
    if n is not None and len(input) != n:
        raise RuntimeError(f"{_name(module)}: expected a list of {n} tensors, got {len(input)}")
    return input


def _storage_key(t):
    """Identifies the storage behind ``t`` (two tensors share storage iff keys are equal)."""
    s = t.untyped_storage()
    return (s.data_ptr(), s.nbytes())


def _whole_storage(t):
    """A 1-D tensor of ``t``'s dtype over all of ``t``'s storage."""
    s = t.untyped_storage()
    return _C._tensor_from_storage(s, t.dtype, 0, (s.nbytes() // t.element_size(),), (1,))


def _view_of(flat, offset, t):
    """A tensor with ``t``'s sizes and strides, at ``offset`` in ``flat``'s storage."""
    return _C._tensor_from_storage(
        flat.untyped_storage(), flat.dtype, offset, tuple(t.shape), t.stride()
    )


def _map_tensors(obj, fn, memo):
    """``obj`` with every tensor ``t`` in it (through lists, tuples and dicts, not modules)
    replaced by ``fn(t)``; each tensor object maps once (``memo``, keyed by id)."""
    if isinstance(obj, torch.Tensor):
        if id(obj) not in memo:
            memo[id(obj)] = (obj, fn(obj))  # keeping obj alive keeps its id unique
        return memo[id(obj)][1]
    if isinstance(obj, list):
        obj[:] = [_map_tensors(x, fn, memo) for x in obj]
        return obj
    if isinstance(obj, tuple):
        return type(obj)(_map_tensors(x, fn, memo) for x in obj)
    if isinstance(obj, dict):
        for k, v in obj.items():
            obj[k] = _map_tensors(v, fn, memo)
        return obj
    return obj


def _storage_converter(dtype, storages):
    """A function converting a tensor to ``dtype`` through one converted copy of its
    storage per original storage (``storages``), so shared storages stay shared."""

    def convert(t):
        if not t.is_floating_point() or t.dtype == dtype:
            return t  # index tensors keep their integer type; same type: nothing to do
        if t.untyped_storage().nbytes() == 0:
            return t.to(dtype)
        key = _storage_key(t)
        if key not in storages:
            storages[key] = _whole_storage(t).to(dtype)
        return _view_of(storages[key], t.storage_offset(), t)

    return convert


_TYPE_NAMES = {
    "torch.FloatTensor": torch.float32,
    "torch.DoubleTensor": torch.float64,
    "torch.HalfTensor": torch.float16,
}


class Module:
    """Lua's ``nn.Module``: ``forward``/``backward`` over ``updateOutput``,
    ``updateGradInput`` and ``accGradParameters``; subclasses override those three."""

    def __init__(self):
        self.gradInput = torch.Tensor()
        self.output = torch.Tensor()
        self._type = self.output.type()

    def __repr__(self):
        return "nn." + type(self).__name__

    # ---------------------------------------------------------------- the computation
    def parameters(self):
        """``([weight, bias], [gradWeight, gradBias])`` for the ones that exist, or None."""
        params, grads = [], []
        for p, g in (("weight", "gradWeight"), ("bias", "gradBias")):
            if getattr(self, p, None) is not None:
                params.append(getattr(self, p))
                grads.append(getattr(self, g))
        return (params, grads) if params else None

    def updateOutput(self, input):
        return self.output

    def forward(self, input):
        """Computes and returns ``self.output`` for ``input``."""
        return self.updateOutput(input)

    def backward(self, input, gradOutput, scale=1):
        """After ``forward(input)``: computes ``gradInput`` and adds ``scale`` times the
        parameter gradients into ``gradWeight``/``gradBias``; returns ``gradInput``."""
        self.updateGradInput(input, gradOutput)
        self.accGradParameters(input, gradOutput, scale)
        return self.gradInput

    def backwardUpdate(self, input, gradOutput, lr):
        self.updateGradInput(input, gradOutput)
        self.accUpdateGradParameters(input, gradOutput, lr)
        return self.gradInput

    def updateGradInput(self, input, gradOutput):
        return self.gradInput

    def accGradParameters(self, input, gradOutput, scale=1):
        pass

    def accUpdateGradParameters(self, input, gradOutput, lr):
        """Updates the parameters directly: ``accGradParameters`` with the gradients
        aliased to the parameters and scale ``-lr``."""
        saved = getattr(self, "gradWeight", None), getattr(self, "gradBias", None)
        self.gradWeight = getattr(self, "weight", None)
        self.gradBias = getattr(self, "bias", None)
        try:
            self.accGradParameters(input, gradOutput, -lr)
        finally:
            self.gradWeight, self.gradBias = saved

    def sharedAccUpdateGradParameters(self, input, gradOutput, lr):
        if self.parameters():
            self.zeroGradParameters()
            self.accGradParameters(input, gradOutput, 1)
            self.updateParameters(lr)

    def zeroGradParameters(self):
        params = self.parameters()
        if params:
            for g in params[1]:
                g.zero_()

    def updateParameters(self, learningRate):
        """``p -= learningRate * gradP`` for every parameter."""
        params = self.parameters()
        if params:
            for p, g in zip(*params):
                p.add_(g, alpha=-learningRate)

    def training(self):
        self.train = True
        return self

    def evaluate(self):
        self.train = False
        return self

    def reset(self, stdv=None):
        return self

    # ---------------------------------------------------------------- types and memory
    def type(self, type=None, tensorCache=None):
        """With no argument, the type name (``'torch.FloatTensor'``). Otherwise converts
        every floating-point tensor attribute (and child module) to ``type`` (a name such
        as ``'torch.DoubleTensor'`` or a dtype) and returns self; tensors that shared a
        storage share the converted one. Integer (index) tensors are left as they are."""
        if type is None:
            return getattr(self, "_type", None) or _infer_type(self)
        dtype = _TYPE_NAMES.get(type, type)
        if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
            raise ValueError(
                f"{_name(self)}.type(): expected one of {sorted(_TYPE_NAMES)}, got {type!r}"
            )
        cache = tensorCache if tensorCache is not None else {}
        convert = _storage_converter(dtype, cache.setdefault("storages", {}))
        memo = cache.setdefault("tensors", {})
        for key, value in list(self.__dict__.items()):
            self.__dict__[key] = _map_modules(value, lambda m: m.type(dtype, cache))
            self.__dict__[key] = _map_tensors(self.__dict__[key], convert, memo)
        self._type = torch.empty(0, dtype=dtype).type()
        return self

    def float(self):
        return self.type("torch.FloatTensor")

    def double(self):
        return self.type("torch.DoubleTensor")

    def cuda(self):
        raise NotImplementedError(f"{_name(self)}.cuda(): torch.legacy.nn runs on the CPU only")

    def clearState(self):
        """Empties ``output`` and ``gradInput`` (before saving, to keep files small)."""
        for name in ("output", "gradInput"):
            value = getattr(self, name, None)
            if isinstance(value, torch.Tensor):
                setattr(self, name, value.new_empty(0))
            elif isinstance(value, list):
                value.clear()
            else:
                setattr(self, name, None)
        return self

    def clone(self):
        """A deep copy; tensors that shared a storage share the copied one."""
        import copy

        storages, memo = {}, {}

        def copy_tensor(t):
            if t.untyped_storage().nbytes() == 0:
                return t.clone()
            key = _storage_key(t)
            if key not in storages:
                storages[key] = _whole_storage(t).clone()
            return _view_of(storages[key], t.storage_offset(), t)

        for m in self.listModules():
            for t in _tensors_in(list(m.__dict__.values())):
                if id(t) not in memo:
                    memo[id(t)] = copy_tensor(t)
        return copy.deepcopy(self, memo)

    def share(self, *args):
        raise NotImplementedError(f"{_name(self)}.share() is not supported; reuse the tensors")

    def read(self, *args):
        raise NotImplementedError("use torch.utils.serialization.load_lua")

    def write(self, *args):
        raise NotImplementedError("use torch.utils.serialization.save_lua")

    # ---------------------------------------------------------------- the module tree
    def apply(self, callback):
        """Calls ``callback(m)`` on self, then on every descendant (pre-order)."""
        callback(self)
        for m in getattr(self, "modules", None) or ():
            m.apply(callback)

    def listModules(self):
        """Self and every descendant, pre-order."""
        found = []
        self.apply(found.append)
        return found

    def findModules(self, typename, container=None):
        """``(nodes, containers)``: every descendant (self included) of class ``typename``
        (a class or a name such as ``'nn.Linear'``), and the container holding each."""
        nodes, containers = [], []
        if _is_a(self, typename):
            nodes.append(self)
            containers.append(container)
        for child in getattr(self, "modules", None) or ():
            n, c = child.findModules(typename, self)
            nodes += n
            containers += c
        return nodes, containers

    def replace(self, callback):
        """Replaces self and every descendant ``m`` by ``callback(m)`` (pre-order)."""
        out = callback(self)
        children = getattr(self, "modules", None)
        if children:
            for i, m in enumerate(children):
                children[i] = m.replace(callback)
        return out

    def flattenParameters(self):
        """Lua's ``getParameters``: moves every parameter into one flat storage and every
        gradient into another, re-pointing each module's tensors into them (shared
        parameters stay shared). Returns ``(flatParameters, flatGradParameters)``."""
        params = self.parameters()
        if params is None:
            return None
        parameters, gradParameters = params
        mapping = {}
        flat_p = _flatten(parameters, mapping, self)
        flat_g = _flatten(gradParameters, mapping, self)
        for m in self.listModules():
            for key, value in list(m.__dict__.items()):
                if _shallow(value) is not None:
                    m.__dict__[key] = _map_tensors(value, lambda t: t, mapping)
        if flat_p.numel() != flat_g.numel():
            raise RuntimeError(
                f"{_name(self)}.flattenParameters(): {flat_p.numel()} parameters but "
                f"{flat_g.numel()} gradients; parameters and gradients must be shared alike"
            )
        return flat_p, flat_g


def _infer_type(module):
    """The type name of a module read without ``_type``: that of its first float tensor."""
    for t in _tensors_in(list(module.__dict__.values())):
        if t.is_floating_point():
            return t.type()
    return "torch.FloatTensor"


def _tensors_in(obj):
    """Every tensor in ``obj``, through lists, tuples and dicts (not modules)."""
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            yield from _tensors_in(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from _tensors_in(x)


def _shallow(value):
    """Lists are rewritten in place by _map_tensors; module lists are never entered."""
    if isinstance(value, list) and value and isinstance(value[0], Module):
        return None
    return value


def _map_modules(value, fn):
    if isinstance(value, Module):
        return fn(value)
    if isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, Module):
                value[i] = fn(v)
    return value


def _is_a(module, typename):
    if isinstance(typename, str):
        return "nn." + type(module).__name__ == typename or type(module).__name__ == typename
    return isinstance(module, typename)


def _flatten(tensors, mapping, module):
    """One flat tensor holding the used part of every storage behind ``tensors``; adds
    ``id(t) -> (t, view into it)`` to ``mapping`` for each tensor."""
    if not tensors:
        return torch.Tensor()
    dtype = tensors[0].dtype
    starts, total = {}, 0  # storage key -> its start in the uncompacted flat vector
    for t in tensors:
        if t.dtype != dtype:
            raise TypeError(
                f"{_name(module)}.flattenParameters(): parameters of different types "
                f"({dtype} and {t.dtype}); call .type() first"
            )
        key = _storage_key(t)
        if key not in starts and t.numel() > 0:
            starts[key] = total
            total += _whole_storage(t).numel()
    # Copy each whole storage once, mark the elements some tensor uses, keep only those.
    flat = torch.zeros(total, dtype=dtype)
    used = torch.zeros(total, dtype=dtype)
    for t in tensors:
        if t.numel() > 0:
            start = starts[_storage_key(t)]
            _view_of(used, start + t.storage_offset(), t).fill_(1)
    for key, start in starts.items():
        t = next(t for t in tensors if t.numel() > 0 and _storage_key(t) == key)
        whole = _whole_storage(t)
        flat.narrow(0, start, whole.numel()).copy_(whole)
    keep = used == 1
    new_index = keep.to(torch.int64).cumsum(0) - 1
    compact = flat.masked_select(keep)
    for t in tensors:
        if id(t) in mapping:
            continue
        if t.numel() == 0:
            mapping[id(t)] = (t, t.new_empty(t.shape))
            continue
        offset = starts[_storage_key(t)] + t.storage_offset()
        last = offset + sum((n - 1) * s for n, s in zip(t.shape, t.stride()))
        if not bool(keep[offset : last + 1].all()):
            raise RuntimeError(
                f"{_name(module)}.flattenParameters(): a parameter of size {tuple(t.shape)} "
                f"and stride {t.stride()} interleaves with memory that is no parameter"
            )
        mapping[id(t)] = (t, _view_of(compact, int(new_index[offset]), t))
    return compact
