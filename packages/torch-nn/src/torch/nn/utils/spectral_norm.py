"""Spectral normalisation as a forward pre-hook (the older API; see
:func:`torch.nn.utils.parametrizations.spectral_norm` for the parametrization).

``spectral_norm(module, "weight")`` keeps the weight as ``weight_orig`` and two buffers,
``weight_u`` and ``weight_v``: estimates of the first left and right singular vectors of
the weight viewed as a matrix (``dim`` first, the other dimensions flattened).  Before each
forward call in training mode ``n_power_iterations`` steps of the power method refine them;
``module.weight`` is then ``weight_orig / sigma`` with ``sigma = u^T W v``, the estimate of
the largest singular value.
"""

import torch
from torch.nn import functional as F
from torch.nn.parameter import Parameter, is_lazy

__all__ = [
    "SpectralNorm",
    "SpectralNormLoadStateDictPreHook",
    "SpectralNormStateDictHook",
    "spectral_norm",
    "remove_spectral_norm",
]


class SpectralNorm:
    """The forward pre-hook that :func:`spectral_norm` registers."""

    _version = 1  # of the state_dict entries (version 0 saved the weight, not weight_v)

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix: dimension ``dim`` as the rows, the others flattened."""
        if self.dim != 0:
            order = [self.dim, *(d for d in range(weight.dim()) if d != self.dim)]
            weight = weight.permute(*order)
        return weight.reshape(weight.shape[0], -1)

    def _power_iterations(self, weight_mat, u, v):
        """Refine u and v (the buffers, in place) by the power method."""
        with torch.no_grad():
            for _ in range(self.n_power_iterations):
                v.copy_(F.normalize(torch.mv(weight_mat.t(), u), dim=0, eps=self.eps))
                u.copy_(F.normalize(torch.mv(weight_mat, v), dim=0, eps=self.eps))

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            self._power_iterations(weight_mat, u, v)
        # copies: the graph must not see the buffers that the next call updates in place
        u, v = u.clone(), v.clone()
        sigma = torch.dot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module):
        with torch.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        """A v with u^T W v = target_sigma (for checkpoints that saved the weight, not v)."""
        wt = weight_mat.t()
        v = torch.linalg.multi_dot(
            [torch.linalg.pinv(wt.mm(weight_mat)), wt, u.unsqueeze(1)]
        ).squeeze(1)
        return v * (target_sigma / torch.dot(u, torch.mv(weight_mat, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if is_lazy(weight):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. Make "
                "sure to run the dummy forward before applying spectral normalization"
            )
        with torch.no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward computes it (a state_dict skips it)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a version-0 entry (``<name>`` saved, ``<name>_v`` not) on load."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):  # fmt: skip
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version")
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if (
            version is None
            and key not in state_dict
            and all(key + s in state_dict for s in ("_orig", "_u", "_v"))
        ):
            return  # the current format, saved without metadata
        missing = [key + s for s in ("_orig", "", "_u") if key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with torch.no_grad():
            weight_orig = state_dict[key + "_orig"]
            weight = state_dict.pop(key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[key + "_u"]
            state_dict[key + "_v"] = fn._solve_v_and_rescale(weight_mat, u, sigma)


class SpectralNormStateDictHook:
    """Records the entries' format version in the state_dict metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm (largest singular value), estimated by
    the power method: ``n_power_iterations`` steps before each forward call in training
    mode, continuing from the previous estimate.  ``dim`` is the dimension taken as the
    rows of the matrix (default 0; 1 for the transposed convolutions).  Returns module."""
    if dim is None:
        from torch.nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d

        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo :func:`spectral_norm`: ``module.<name>`` becomes a parameter holding the
    current normalised weight again.  Returns module."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for key, hook in list(module._state_dict_hooks.items()):
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[key]
    for key, hook in list(module._load_state_dict_pre_hooks.items()):
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[key]
    return module
