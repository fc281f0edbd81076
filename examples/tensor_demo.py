"""A short tour of the tensor library: the README's main job.

Runs unchanged under this project (``nox -s example``) and under PyTorch.
"""

import numpy as np

import torch

torch.manual_seed(0)

# Creation: from data, filled, ranges, random.
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print("x =", x)
print("shape", x.shape, "dtype", x.dtype, "device", x.device)
print("zeros:", torch.zeros(2, 2), "arange:", torch.arange(0, 10, 3), sep="\n")
print("linspace:", torch.linspace(0, 1, steps=5))
r = torch.rand(2, 3)
assert r.shape == (2, 3) and bool(((r >= 0) & (r < 1)).all())

# Broadcasting arithmetic with type promotion: (2, 3) + (3,), int tensor * float scalar.
y = x + torch.tensor([10.0, 20.0, 30.0])
print("x + row =", y)
print("int * 1.5 =", torch.arange(4) * 1.5)
print("exp(x) / sum:", torch.exp(x) / torch.exp(x).sum(dim=1, keepdim=True))

# Reductions over one or several dims.
print("sum", x.sum(), "mean over dim 0", x.mean(dim=0))
values, indices = x.max(dim=1)
print("max over dim 1:", values, indices)
print("std", x.std(), "norm", x.norm())

# Matrix products go to BLAS.
w = torch.ones(3, 4)
print("x @ w =", x @ w)
batch = torch.randn(5, 2, 3).matmul(torch.randn(3, 4))
print("batched matmul shape", batch.shape)

# Views share storage: writing through a view changes the base tensor.
t = x.t()
print("x.t() is contiguous?", t.is_contiguous(), "strides", t.stride())
row = x[1]
row[0] = 100.0
print("after row[0] = 100:", x)
assert x[1, 0].item() == 100.0
print("every other column:", x[:, ::2])

# NumPy interop shares memory too.
a = np.arange(6, dtype=np.float32).reshape(2, 3)
ta = torch.from_numpy(a)
ta.mul_(2)
print("numpy array after ta.mul_(2):", a.tolist())
print("back to numpy:", (ta + 1).numpy())

# Printing: dtype is shown when it is not the default; large tensors are summarised.
print(torch.tensor([1, 2, 3], dtype=torch.int32))
print(torch.arange(1500))
