"""Parameters as one flat vector and back."""

import torch

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one 1-d tensor."""
    return torch.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of the 1-d ``vec`` into the parameters (in place)."""
    if not isinstance(vec, torch.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if vec.dim() != 1 or vec.numel() != total:
        raise RuntimeError(
            f"vector_to_parameters: expected a 1-d vector of {total} elements, got shape "
            f"{list(vec.shape)}"
        )
    offset = 0
    with torch.no_grad():
        for p in params:
            n = p.numel()
            p.copy_(vec[offset : offset + n].reshape(p.shape))
            offset += n
