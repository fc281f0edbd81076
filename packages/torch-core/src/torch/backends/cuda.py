"""The CUDA backend's switches. ``is_built()`` is True: the core carries its CUDA backend
(loaded at run time where a GPU is; ``torch.cuda.is_available()`` says whether it can be used).

``torch.backends.cuda.matmul.allow_tf32`` mirrors ``torch.get_float32_matmul_precision()``
as in PyTorch: True for ``"high"`` and ``"medium"``, and setting it sets the precision to
``"high"`` (True) or ``"highest"`` (False). The scaled-dot-product-attention switches keep
what programs set.
"""

import torch.backends as _backends

__all__ = [
    "cudnn_sdp_enabled",
    "enable_cudnn_sdp",
    "enable_flash_sdp",
    "enable_math_sdp",
    "enable_mem_efficient_sdp",
    "flash_sdp_enabled",
    "is_built",
    "math_sdp_enabled",
    "matmul",
    "mem_efficient_sdp_enabled",
]


def is_built():
    """Whether this build has the CUDA backend (the core's, whose kernels NVRTC compiles at
    run time). ``torch.cuda.is_available()`` says whether a GPU can be used right now."""
    return True


class _Matmul:
    """``torch.backends.cuda.matmul``: cuBLAS's precision switches."""

    _REDUCED = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __init__(self):
        object.__setattr__(self, "_reduced", dict.fromkeys(self._REDUCED, True))

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _backends.get_float32_matmul_precision() != "highest"
        if name in self._REDUCED:
            return self._reduced[name]
        raise AttributeError(f"torch.backends.cuda.matmul has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _backends.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._REDUCED:
            self._reduced[name] = bool(value)
        else:
            raise AttributeError(f"torch.backends.cuda.matmul has no attribute '{name}'")


matmul = _Matmul()

_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled():
    return _sdp["flash"]


def enable_flash_sdp(enabled):
    _sdp["flash"] = bool(enabled)


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _sdp["mem_efficient"] = bool(enabled)


def math_sdp_enabled():
    return _sdp["math"]


def enable_math_sdp(enabled):
    _sdp["math"] = bool(enabled)


def cudnn_sdp_enabled():
    return _sdp["cudnn"]


def enable_cudnn_sdp(enabled):
    _sdp["cudnn"] = bool(enabled)
