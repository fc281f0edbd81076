"""one_hot (embedding and embedding_bag are core kernels)."""

import torch
from torch.nn._functional.common import _check_tensor


def one_hot(tensor, num_classes=-1):
    """An int64 tensor with a trailing dimension of size num_classes, 1 at each index."""
    from torch._nn_ops import _int

    _check_tensor(tensor, "one_hot")
    num_classes = _int(num_classes, "one_hot", "num_classes")
    if tensor.dtype != torch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return torch.zeros(*tensor.shape, num_classes, dtype=torch.int64, device=tensor.device)
    lo, hi = int(tensor.min()), int(tensor.max())
    if lo < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = hi + 1
    elif hi >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = torch.zeros(*tensor.shape, num_classes, dtype=torch.int64, device=tensor.device)
    return out.scatter_(-1, tensor.unsqueeze(-1), 1)
