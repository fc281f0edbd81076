"""LazyModuleMixin: modules whose parameter shapes come from their first input.

A lazy module (``LazyLinear``, ``LazyConv2d``, ``LazyBatchNorm1d``, ...) starts with
:class:`~torch.nn.parameter.UninitializedParameter` parameters.  A forward pre-hook calls
its ``initialize_parameters(*args, **kwargs)`` on the first call, which materialises them
(in place: the same Parameter objects) from the input's shape and initialises them; the
module then becomes its ``cls_to_become`` (``Linear``, ``Conv2d``, ...) and its hooks go.
Loading a state_dict into a lazy module materialises its parameters to the loaded shapes.
"""

from torch.nn.parameter import Tensor, is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mix in before the module class (``class LazyLinear(LazyModuleMixin, Linear)``) and
    define ``initialize_parameters(self, *args, **kwargs)``, which materialises the module's
    uninitialised parameters and buffers from the forward arguments; ``cls_to_become`` is
    the class the module takes once initialised (None: keep the lazy class)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True
        )

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # uninitialised tensors are saved as they are (detaching one would lose what it is)
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if (keep_vars or is_lazy(p)) else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if (keep_vars or is_lazy(b)) else b.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):  # fmt: skip
        """Materialise uninitialised parameters and buffers to the shapes of the tensors
        loaded into them (an uninitialised entry of the state_dict leaves them as they are)."""
        for name, tensor in (*self._parameters.items(), *self._buffers.items()):
            key = prefix + name
            if tensor is None or key not in state_dict or not is_lazy(tensor):
                continue
            value = state_dict[key]
            if isinstance(value, Tensor) and not is_lazy(value):
                tensor.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materialise and initialise the parameters from the first forward's arguments."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )

    def has_uninitialized_params(self):
        """Whether any parameter or buffer of this module is still uninitialised."""
        tensors = (*self._parameters.values(), *self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initialise, then turn into ``cls_to_become``."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook
        del module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a "
            "dummy forward pass to correctly initialize the modules"
        )
