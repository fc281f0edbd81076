"""The tape: graph nodes, saved tensors, and the recorder every differentiable op goes through.

How an op is recorded. torch-core puts each differentiable op behind a ``_C._GradGate``
whose formula slot torch-autograd fills (``install.py``); when grad mode is on and an
argument requires grad, the gate calls :func:`record` instead of the op. ``record`` runs the
op, creates the op's :class:`Formula` node, lets it save what its backward needs
(``Formula.save``), links the node to the nodes that made its inputs (the *edges*), and
hangs the node on the outputs as ``grad_fn``.

Graph ownership (no cycles, so dropping a tensor frees it at once): a tensor owns its
``grad_fn``; a node owns its edges (the nodes upstream) and the tensors it saved.  A node
never holds its own outputs: a saved output is kept as a detached alias and re-attached
to the node only while a ``create_graph`` backward unpacks it.
"""

import os
import sys
import traceback
import weakref

import torch
from torch import _C, _memory_format
from torch._sparse import _SPARSE_TYPES
from torch._tensor import tensor_method

Tensor = torch.Tensor
_AUTOGRAD_DIR = os.path.dirname(__file__) + os.sep
_mark_requires_grad = _C._mark_requires_grad
_set_grad_fn = _C._set_grad_fn  # t.grad_fn = node, and t requires grad
_sole_owner = _C._sole_owner
# References to a gradient held by nobody else, seen inside apply_accumulate: the engine's
# buffer, the argument, and getrefcount's own.
_UNSHARED_REFS = 3
_grad_enabled = _C.is_grad_enabled
_set_grad_enabled = _C._set_grad_enabled

# Anomaly mode (torch.autograd.detect_anomaly) records the full forward stack per node.
anomaly = {"enabled": False, "check_nan": True}

# Saved-tensor hooks (saved_tensors_hooks below): the (pack, unpack) pairs in force,
# innermost last. Empty, saving a tensor costs one truth test more; a list mutated in place,
# so that _Saved reads it as a global. The hooks apply process-wide, not per thread.
_saved_hooks = []
_hooks_disabled = [None]  # the error message of disable_saved_tensors_hooks, or None


class Node:
    """A step of the tape: the backward of one forward op (``y.grad_fn``).

    ``next_functions`` holds, for each input of the forward op, ``(node, output_nr)`` of the
    node that made that input (an :class:`AccumulateGrad` for a leaf), or ``(None, 0)``.
    """

    _edges = ()  # per input: (node, output_nr) or None
    _pre_hooks = None  # output_nr -> [hook]: tensor hooks of non-leaf outputs
    _post_hooks = None  # [hook(grad_inputs, grad_outputs)]
    _where = None  # (code, line) of the user's call, or the formatted stack in anomaly mode
    _released = False
    _saved = ()

    multi_output = False  # backward(*grads), one per output, instead of backward(grad)
    n_outputs = 1
    _out_meta = ()  # multi-output: (shape, dtype) per output, to materialize missing grads
    # single output: True when it is real, so a complex gradient reaching it keeps only its
    # real part (a real tensor's gradient is real); set wherever a node is hung on a tensor
    _real_out = False

    def name(self):
        return type(self).__name__

    @property
    def needs_input_grad(self):
        """Per input of the forward op: whether backward must compute its gradient."""
        return tuple(e is not None for e in self._edges)

    def _materialize(self, grads):
        """Zeros for the outputs that received no gradient (integer outputs stay None), on
        the device of those that did (an op's outputs share its device)."""
        like = next(g for g in grads if g is not None)
        return [
            g if g is not None or meta is None else full_on(meta[0], meta[1], like, 0)
            for g, meta in zip(grads, self._out_meta)
        ]

    @property
    def next_functions(self):
        return tuple((None, 0) if e is None else e for e in self._edges)

    @property
    def metadata(self):
        if "_metadata" not in self.__dict__:
            self._metadata = {}
        return self._metadata

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) after this node ran; may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = []
        self._post_hooks.append(fn)
        return RemovableHandle(self._post_hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) before this node runs; may return new grad_outputs."""
        return self._add_pre_hook(-1, fn)

    def _add_pre_hook(self, output_nr, fn):
        if self._pre_hooks is None:
            self._pre_hooks = {}
        hooks = self._pre_hooks.setdefault(output_nr, [])
        hooks.append(fn)
        return RemovableHandle(hooks, fn)

    # ------------------------------------------------------------------ saved tensors
    def save_for_backward(self, *tensors):
        """Keep tensors for backward, with their versions (checked when they are used).
        Numbers and None are kept as they are."""
        for t in tensors:  # Note [Inference tensors] in the core
            if isinstance(t, Tensor) and t.is_inference():
                raise RuntimeError(
                    f"Inference tensors cannot be saved for backward ({self.name()}). To work "
                    "around you can make a clone to get a normal tensor and use it in autograd."
                )
        order = self.pack_order
        if order is None:
            self._saved = tuple(_Saved(t, self) if isinstance(t, Tensor) else t for t in tensors)
            return
        saved = list(tensors)
        for i in order:  # (the pack hooks run in this order)
            if isinstance(saved[i], Tensor):
                saved[i] = _Saved(saved[i], self)
        self._saved = tuple(saved)

    @property
    def saved_tensors(self):
        if self._released:
            raise RuntimeError(
                f"Trying to backward through the graph a second time (or directly access "
                f"saved tensors after they have already been freed), in {self.name()}"
                f"{self.where()}. Saved intermediate values of the graph are freed when you "
                f"call .backward() or autograd.grad(). Specify retain_graph=True if you need "
                f"to backward through the graph a second time or if you need to access saved "
                f"tensors after calling backward."
            )
        order = self.pack_order
        if order is None:
            return tuple([s.unpack(self) if type(s) is _Saved else s for s in self._saved])
        out = list(self._saved)
        for i in order:  # (and the unpack hooks in this one)
            if type(out[i]) is _Saved:
                out[i] = out[i].unpack(self)
        return tuple(out)

    def _release(self):
        if self._saved:
            self._saved = ()
            self._released = True

    # The order in which save_for_backward's tensors are packed and unpacked (what saved
    # tensors hooks see), as indices into its arguments, all of them; None: as given. Set
    # where PyTorch's node saves in another order (mul saves ``other`` before ``self``).
    pack_order = None

    # PyTorch's names for what a node saved: ``_saved_self``, ``_saved_other``,
    # ``_saved_result``, ... (the unpacked tensor or the number) and ``_raw_saved_<name>`` (a
    # SavedTensor, to register hooks on). A formula lists ``saved_names``, one per tensor
    # it passes to save_for_backward (None: no PyTorch name), and ``saved_attrs``, PyTorch's
    # name -> a function of the node giving a non-tensor (alpha, exponent).
    saved_names = ()
    saved_attrs = {}

    def __getattr__(self, name):  # only reached for names the node does not have
        raw = name.startswith("_raw_saved_")
        if raw or name.startswith("_saved_"):
            key = name[11:] if raw else name[7:]
            found, value = self._saved_value(key, raw)
            if found:
                return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _saved_value(self, key, raw):
        """(True, value) of the saved item PyTorch calls ``key``, or (False, None)."""
        cls = type(self)
        if key in cls.saved_names:
            i = cls.saved_names.index(key)
            item = self._saved[i] if i < len(self._saved) else None
            if type(item) is _Saved:
                return True, SavedTensor(item, self) if raw else item.unpack(self)
            if self._released:
                self.saved_tensors  # noqa: B018  (raises)
            if item is None and key in cls.saved_attrs:
                return (not raw), cls.saved_attrs[key](self)
            return (not raw or item is None), item
        if key in cls.saved_attrs and not raw:
            return True, cls.saved_attrs[key](self)
        return False, None

    def __dir__(self):
        names = [n for n in type(self).saved_names if n]
        extra = ["_saved_" + n for n in (*names, *self.saved_attrs)]
        extra += ["_raw_saved_" + n for n in names]
        return sorted(set(super().__dir__()) | set(extra))

    def where(self):
        """' (called at file:line)' of the forward call that recorded this node."""
        w = self._where
        if w is None:
            return ""
        if isinstance(w, str):
            return f", whose forward was called from:\n{w}"
        code, lasti = w
        return f" (forward called at {code.co_filename}:{_line_of(code, lasti)})"

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"


class _Saved:
    """A tensor kept for backward: the tensor (or, for an output, a detached alias) and the
    version it had, so that a later in-place change is detected instead of silently used.

    Under saved_tensors_hooks it keeps instead what the pack hook returned (``packed``) and
    the unpack hook (``tensor`` is None); backward gets ``unpack_hook(packed)``, and no
    version is checked (the pack hook may have copied the tensor)."""

    __slots__ = ("tensor", "version", "output_nr", "packed", "unpack_hook", "edge")

    def __init__(self, t, node):
        if _saved_hooks:
            self._pack(t, node, *_saved_hooks[-1])
            return
        if t.grad_fn is node:  # an output of the node itself: keep no reference cycle
            self.tensor = t.detach()
            self.output_nr = t.output_nr
        else:
            self.tensor = t
            self.output_nr = -1
        self.version = t._version

    def _pack(self, t, node, pack, unpack):
        if _hooks_disabled[0] is not None:
            raise RuntimeError(_hooks_disabled[0])
        self.output_nr = t.output_nr if t.grad_fn is node else -1
        # the input's history, re-attached to the unpacked tensor by a create_graph backward
        self.edge = edge(t) if self.output_nr < 0 and t.requires_grad else None
        prev = _set_grad_enabled(False)
        try:
            self.packed = pack(t)
        finally:
            _set_grad_enabled(prev)
        self.unpack_hook = unpack
        self.tensor = None
        self.version = None

    def _unpack_hooked(self, node):
        t = self.unpack_hook(self.packed)
        if not isinstance(t, Tensor):
            raise TypeError(
                f"Output of saved tensor unpack_hook expected to be a Tensor but got result "
                f"of type {type(t).__name__}"
            )
        if not _grad_enabled():
            return t
        if self.output_nr >= 0:  # re-attach to the node, as an unhooked saved output
            t = t.detach()
            t.grad_fn = node
            t.output_nr = self.output_nr
            _mark_requires_grad(t)
        elif self.edge is not None and not t.requires_grad:
            fn, nr = self.edge
            t = t.detach()
            if isinstance(fn, AccumulateGrad):  # a leaf: its gradient reaches it through fn
                t.requires_grad_(True)
                t._accumulator = fn
            else:
                t.grad_fn = fn
                t.output_nr = nr
                _mark_requires_grad(t)
        return t

    def unpack(self, node):
        t = self.tensor
        if t is None:
            return self._unpack_hooked(node)
        if t._version != self.version:
            shape = "x".join(map(str, t.shape)) or "scalar"
            made_by = f"output {self.output_nr} of {node.name()}"
            if self.output_nr < 0:
                made_by = f"output {t.output_nr} of {t.grad_fn.name()}" if t.grad_fn else "a leaf"
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by "
                f"an inplace operation: [{t.type()} [{shape}]], which is {made_by}, is at "
                f"version {t._version}; expected version {self.version} instead. It is used "
                f"by {node.name()}{node.where()}. Hint: clone the tensor before modifying it "
                f"in place, or use the out-of-place op."
            )
        if self.output_nr >= 0 and _grad_enabled():  # create_graph: re-attach to the node
            t = t.detach()
            t.grad_fn = node
            t.output_nr = self.output_nr
            _mark_requires_grad(t)
        return t


class SavedTensor:
    """A tensor a node saved, as ``node._raw_saved_<name>`` gives it: ``register_hooks(pack,
    unpack)`` packs it now and unpacks it each time backward (or ``_saved_<name>``) reads it."""

    def __init__(self, saved, node):
        self._saved, self._node = saved, node

    def register_hooks(self, pack_hook, unpack_hook):
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks(): pack_hook and unpack_hook must be callables")
        s = self._saved
        if s.tensor is None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        if self._node._released:
            self._node.saved_tensors  # noqa: B018  (raises: the graph was freed)
        t = s.unpack(self._node)
        prev = _set_grad_enabled(False)
        try:
            s.packed = pack_hook(t)
        finally:
            _set_grad_enabled(prev)
        s.edge = edge(t) if s.output_nr < 0 and t.requires_grad else None
        s.unpack_hook, s.tensor, s.version = unpack_hook, None, None


class saved_tensors_hooks:  # noqa: N801  (PyTorch's name)
    """Context manager: every tensor an op saves for backward inside it is replaced by
    ``pack_hook(tensor)`` (called once, under no_grad, with the tensor), and backward reads
    ``unpack_hook(packed)`` instead (called each time the tensor is read, which must return
    a tensor with the original's value). Nested managers: the innermost pair applies.

    >>> x = torch.ones(3, requires_grad=True)
    >>> with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
    ...     y = x.pow(2)
    >>> y.sum().backward()
    >>> x.grad
    tensor([2., 2., 2.])
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        if _hooks_disabled[0] is not None:
            raise RuntimeError(_hooks_disabled[0])
        _saved_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _saved_hooks.pop()
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801  (PyTorch's name)
    """Saved tensors kept in CPU memory and moved back to their device when backward reads
    them. ``pin_memory=True`` copies them to page-locked memory where CUDA can be used (faster
    copies back); elsewhere it is ignored."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        pin = pin_memory and torch.cuda.is_available()

        def pack(t):  # a copy, as PyTorch makes (a later in-place change does not reach it)
            cpu = t.detach().clone() if t.device.type == "cpu" else t.detach().cpu()
            return (t.device, cpu.pin_memory() if pin else cpu)

        def unpack(packed):
            device, t = packed
            return t if t.device == device else t.to(device, non_blocking=pin)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:  # noqa: N801  (PyTorch's name)
    """Context manager in which saved_tensors_hooks raise ``RuntimeError(error_message)``:
    entering one, or entering this manager while one is active, fails."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _saved_hooks:
            raise RuntimeError(self.error_message)
        self._prev = _hooks_disabled[0]
        _hooks_disabled[0] = self.error_message
        return self

    def __exit__(self, *exc):
        _hooks_disabled[0] = self._prev
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)

        return wrapper


class RemovableHandle:
    """What register_hook returns: ``handle.remove()`` unregisters the hook."""

    def __init__(self, hooks, fn):
        self._hooks, self._fn = hooks, fn

    def remove(self):
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)


class AccumulateGrad(Node):
    """The sink of a leaf tensor: adds the incoming gradient into ``variable.grad``.

    The leaf owns its AccumulateGrad, which refers back to it weakly (no cycle): a leaf the
    user dropped needs no gradient."""

    def __init__(self, variable):
        self._variable = weakref.ref(variable)

    @property
    def variable(self):
        return self._variable()

    def apply_accumulate(self, grad):
        var = self._variable()
        if var is None:
            return
        if not (grad.is_cpu and var.is_cpu) and grad.device != var.device:
            grad = on_device(grad, var.device, f"the leaf of shape {list(var.shape)}")
        for hook in var._backward_hooks:
            new = hook(grad)
            if new is not None:
                grad = new
        if grad.dtype != var.dtype:
            grad = grad.to(var.dtype)
        if _C._broadcast_shapes_of(var, grad)[0] is not None:
            grad = sum_to(grad, var.shape)
        old = var.grad
        if grad.__class__ in _SPARSE_TYPES or old.__class__ in _SPARSE_TYPES:
            # sparse + sparse concatenates the entries, sparse + dense is dense; never in place
            var.grad = grad if old is None else old + grad
        elif old is None:
            if _grad_enabled():
                var.grad = grad
            elif (
                sys.getrefcount(grad) <= _UNSHARED_REFS
                and _sole_owner(grad)
                and _is_contiguous(var)
            ):
                var.grad = grad  # nobody else holds it: no copy needed
            else:  # it may be shared with other leaves, a view, or the caller
                var.grad = _copy_in_layout_of(grad.detach(), var)
        elif _grad_enabled():
            var.grad = old + grad
        else:
            old += grad
        for hook in var._post_accumulate_hooks:
            hook(var)


_is_contiguous = Tensor.is_contiguous


def _copy_in_layout_of(grad, var):
    """A copy of ``grad`` with ``var``'s strides where ``var`` is dense (a channels-last
    parameter gets a channels-last gradient, as in PyTorch), else a contiguous one."""
    if _is_contiguous(var):
        return grad.clone(memory_format=torch.contiguous_format)
    strides = var.stride()
    if not _memory_format.is_dense(tuple(var.shape), strides):
        return grad.clone(memory_format=torch.contiguous_format)
    return _memory_format.empty_strided(var.shape, strides, grad.dtype, grad.device).copy_(grad)


tensor_method((), "_backward_hooks")  # hooks of a leaf, run on its gradient before accumulation
tensor_method((), "_post_accumulate_hooks")


tensor_method(None, "_accumulator")  # a leaf's AccumulateGrad, made when an op first uses the leaf


def accumulator(t):
    """The AccumulateGrad node of leaf t, shared by every op that uses t."""
    node = t._accumulator
    if node is None:
        node = t._accumulator = AccumulateGrad(t)
    return node


tensor_method(0, "_rebases")  # how often in-place ops on views rewrote this (base) tensor's history
tensor_method(0, "_rebases_seen")  # for a view: its base's _rebases when its grad_fn was set


def _fresh_view(t, base):
    """A view whose base's history was rewritten (an in-place op through another view) is
    re-derived from the base's new history."""
    from torch.autograd._views import AsStridedView

    t.grad_fn = AsStridedView.of(base, t, edge(base))
    t.grad_fn._real_out = not t.dtype.is_complex
    t.output_nr = 0
    t._rebases_seen = base._rebases
    _mark_requires_grad(t)


def edge(t):
    """(node, output_nr) through which gradient reaches t's history, or None."""
    base = t._base
    if base is not None and t._rebases_seen != base._rebases:
        _fresh_view(t, base)
    fn = t.grad_fn
    if fn is not None:
        return (fn, t.output_nr)
    if t.requires_grad:
        return (accumulator(t), 0)
    return None


def on_device(grad, device, what):
    """A gradient that reached a tensor on another device (PyTorch's rule): a 0-d one, which
    comes from a CPU scalar tensor used in an op on another device, moves there; any other
    is an error (a backward made it on the wrong device)."""
    if grad.dim() == 0:
        return grad.to(device)
    raise RuntimeError(
        f"invalid gradient for {what}: expected device {device} but got {grad.device}"
    )


def full_on(shape, dtype, like, value):
    """A tensor of ``shape`` and ``dtype`` filled with ``value`` on the device of the tensor
    ``like``: a backward's helper tensors live where the gradient does. Made on that device
    itself (the factories would fill on the CPU and copy the whole tensor over)."""
    if like.is_cpu:
        return _C._full(shape, value, dtype)
    return _C.empty(shape, dtype, like.device).fill_(value)


def sum_to(g, shape):
    """Sum a broadcast gradient back to ``shape`` (the input's shape before broadcasting)."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    dims = list(range(lead)) + [
        lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1
    ]
    if dims:
        g = g.sum(dims, keepdim=True)
    return g.reshape(shape) if lead or tuple(g.shape) != shape else g


_in_torch = {}  # code object -> whether it belongs to the torch package
_getframe = sys._getframe


def _user_frame(depth=2):
    """(code, instruction offset) of the nearest caller outside the torch package (the line
    number is looked up only when an error needs it)."""
    f = _getframe(depth)
    while f is not None:
        code = f.f_code
        inside = _in_torch.get(code)
        if inside is None:
            module = f.f_globals.get("__name__") or ""
            inside = _in_torch[code] = module == "torch" or module.startswith("torch.")
        if not inside:
            return (code, f.f_lasti)
        f = f.f_back
    return None


def _line_of(code, lasti):
    line = None
    for start, _, lineno in code.co_lines():
        if start > lasti:
            break
        if lineno is not None:
            line = lineno
    return line


def _forward_stack():
    stack = traceback.format_stack(sys._getframe(2))
    return "".join(s for s in stack if _AUTOGRAD_DIR not in s)


class Formula(Node):
    """The backward of one core op, written next to what its forward saves.

    Subclasses set ``names`` (the op's Tensor methods and ``torch._C`` functions they
    differentiate) and implement:

    ``save(self, out, *args, **kwargs)``
        Called once after the forward ran, with the op's own arguments.  Saves what backward
        needs (``self.save_for_backward(...)`` for tensors, plain attributes for the rest)
        and returns the op's differentiable inputs: backward returns one gradient per input,
        in this order.  Non-tensors among them are fine (their gradient is ignored).
    ``backward(self, grad)``
        The gradient of each input, as a tuple aligned with what ``save`` returned (None for
        an input that needs none: see ``self.needs_input_grad``).  Written with tensor ops,
        so it is itself differentiable (create_graph=True).  A formula with
        ``multi_output = True`` gets one gradient per output (zeros where none arrived).

    ``inplace_names``: the in-place variants (``add_``, ``__iadd__``); ``view = True`` marks
    ops whose output shares the input's memory; ``clone_for_inplace = False`` says backward
    never reads the value of the tensor an in-place variant overwrites (it may also be a
    function of the op's arguments).
    """

    names = ()
    inplace_names = ()
    float_output = True  # False: the result may be an integer tensor (which gets no grad_fn)
    python_inside = False  # True: the op calls back into Python ops, run them unrecorded
    view = False
    clone_for_inplace = True

    def save(self, out, *args, **kwargs):
        raise NotImplementedError

    def backward(self, grad):
        raise NotImplementedError


class OpSpec:
    """What a gate carries for the recorder: the formula and how the op writes its result."""

    __slots__ = ("formula", "name", "inplace", "record_kind")

    def __init__(self, formula, name, inplace):
        self.formula, self.name, self.inplace = formula, name, inplace
        # Calls the gate records itself (Note [Recording in C++] in torch-core's
        # bind_grad.cpp), when made without keywords: 1, one float output; 2, a view of the
        # first argument; 3, a view or a copy (reshape). 0: always this module's record().
        plain = not (inplace or formula.python_inside) and formula.float_output
        view = formula.view
        self.record_kind = 0 if not plain else 3 if view == "maybe" else 2 if view else 1


def recorder_helpers():
    """What the gates' own recording calls back (Note [Recording in C++])."""
    return {
        "anomaly": anomaly,
        "in_torch": _in_torch,
        "user_frame": _user_frame,
        "fresh_view": _fresh_view,
        "accumulator": accumulator,
        "finish": _finish,
    }


def _link(node, inputs):
    """node's edges to the nodes that made its inputs (the hot path of recording: inlined)."""
    edges = []
    for x in inputs:
        e = None
        if (x.__class__ is Tensor or isinstance(x, Tensor)) and x.requires_grad:
            base = x._base
            if base is not None and x._rebases_seen != base._rebases:
                _fresh_view(x, base)
            fn = x.grad_fn
            if fn is not None:
                e = (fn, x.output_nr)
            else:
                acc = x._accumulator
                e = (acc if acc is not None else accumulator(x), 0)
        edges.append(e)
    node._edges = edges


def _differentiable(t):
    """Floating and complex tensors carry gradients; integer and bool ones do not."""
    return t.is_floating_point() or t.dtype.is_complex


def _attach(node, out):
    """Hang node on the op's float outputs; returns out."""
    if isinstance(out, Tensor):
        if node.float_output or _differentiable(out):
            out.grad_fn = node
            node._real_out = not out.dtype.is_complex
            _mark_requires_grad(out)
        return out
    meta = []
    for nr, t in enumerate(out):  # multi-output: tuples / named tuples of tensors
        if isinstance(t, Tensor) and _differentiable(t):
            t.grad_fn = node
            t.output_nr = nr
            _mark_requires_grad(t)
            meta.append((tuple(t.shape), t.dtype))
        else:
            meta.append(None)
    node.n_outputs = len(meta)
    node._out_meta = meta
    return out


def _run(op, cls, args, kwargs):
    """The op itself; ops that call back into Python ops run those unrecorded."""
    if not cls.python_inside:
        return op(*args, **kwargs) if kwargs else op(*args)
    prev = _set_grad_enabled(False)
    try:
        return op(*args, **kwargs) if kwargs else op(*args)
    finally:
        _set_grad_enabled(prev)


def record(gate, args, kwargs):
    """The recorder the core's gates call when some argument requires grad, for the calls a
    gate does not record itself (keywords, in-place ops, several outputs, ops that call back
    into Python, anomaly mode: Note [Recording in C++] in torch-core's bind_grad.cpp)."""
    spec = gate.formula
    out_arg = kwargs.pop("out", None) if kwargs else None
    if spec.inplace:
        return _record_inplace(gate, spec, args[0], args, kwargs)
    if out_arg is not None:
        if any(out_arg is a for a in args):  # the core's own in-place forms: f(x, ..., out=x)
            kwargs["out"] = out_arg
            return _record_inplace(gate, spec, out_arg, args, kwargs)
        raise RuntimeError(
            f"{spec.name}(): functions with out=... arguments don't support automatic "
            f"differentiation, but one of the arguments requires grad. Call it without out= "
            f"(or under torch.no_grad())."
        )
    cls = spec.formula
    out = _run(gate.__wrapped__, cls, args, kwargs)
    if out is NotImplemented:
        return out
    return _finish(cls, out, args, kwargs)


def _finish(cls, out, args, kwargs):
    """Record the node: attach it to the outputs, let it save what it needs, link it to the
    nodes of its inputs."""
    if not cls.view:
        for a in args:  # ops that may return their input unchanged (contiguous, to)
            if out is a:
                return out
    node = cls()
    node._where = _user_frame() if not anomaly["enabled"] else _forward_stack()
    if out.__class__ is Tensor:  # first, so that save() sees which tensors are its outputs
        out.grad_fn = node
        node._real_out = not out.dtype.is_complex
        if not cls.float_output and not _differentiable(out):
            del out.grad_fn
        else:
            _mark_requires_grad(out)
    else:
        _attach(node, out)
    _link(node, node.save(out, *args, **kwargs) if kwargs else node.save(out, *args))
    if cls.view:
        base = args[0]
        if cls.view is True or out._storage_ptr() == base._storage_ptr():
            root = base._base if base._base is not None else base
            out._base = root
            out._rebases_seen = root._rebases
    return out


def _record_inplace(gate, spec, target, args, kwargs):
    """An op that overwrites ``target``: its history is rewritten to end in the new node."""
    if target.grad_fn is None and target.requires_grad:
        raise RuntimeError(
            f"a leaf Variable that requires grad is being used in an in-place operation "
            f"({spec.name}). Use an out-of-place op, or modify it under torch.no_grad() "
            f"(as optimizers do)."
        )
    base = target._base
    if base is not None and base.grad_fn is None and base.requires_grad:
        raise RuntimeError(
            f"a view of a leaf Variable that requires grad is being used in an in-place "
            f"operation ({spec.name}). Clone the leaf first, or modify it under torch.no_grad()."
        )
    cls = spec.formula
    target_edge = edge(target)
    old = target
    clone = cls.clone_for_inplace
    if callable(clone):  # it depends on the arguments (e.g. the mode of _put_rows)
        clone = clone(*args, **kwargs) if kwargs else clone(*args)
    if clone:
        # the value before the op, for save(); recorded, so that a create_graph backward
        # differentiates through it back to the target's old history
        old = target.clone()
    out = _run(gate.__wrapped__, cls, args, kwargs)
    if kwargs:
        kwargs.pop("out", None)
    node = cls()
    node._where = _forward_stack() if anomaly["enabled"] else _user_frame()
    save_args = [old if a is target else a for a in args] if old is not target else args
    floating = _differentiable(target)
    if floating:  # before save(), so that a saved result is known as the node's output
        target.grad_fn = node
        node._real_out = not target.dtype.is_complex
        target.output_nr = 0
    inputs = node.save(target, *save_args, **kwargs) if kwargs else node.save(target, *save_args)
    _link(node, inputs)
    self_slots = [i for i, x in enumerate(inputs) if x is target or x is old]
    for i in self_slots:  # the overwritten value's history, as it was before the op
        node._edges[i] = target_edge
    if not floating:
        return out
    if base is not None and (base.requires_grad or any(node.needs_input_grad)):
        _rebase_view(base, target, node, self_slots)
    else:
        _mark_requires_grad(target)
    return out


def _rebase_view(base, view, node, self_slots):
    """An in-place op on a view: the base's history gains a CopySlices node, and the view
    becomes a strided view of the base's new history."""
    from torch.autograd._views import AsStridedView, CopySlices

    copy = CopySlices(base, view, node, self_slots, edge(base))
    copy._where = node._where
    base.grad_fn = copy
    copy._real_out = not base.dtype.is_complex
    base.output_nr = 0
    base._rebases += 1  # other views of base now re-derive their history (see edge)
    _mark_requires_grad(base)
    regen = AsStridedView.of(base, view, (copy, 0))
    view.grad_fn = regen
    regen._real_out = not view.dtype.is_complex
    view.output_nr = 0
    view._rebases_seen = base._rebases
    _mark_requires_grad(view)
