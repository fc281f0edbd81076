"""
Blitz, part 1: tensors
======================

A tensor is an n-dimensional array with a dtype and a device, like a NumPy array, that can
also record the operations done on it for automatic differentiation (part 2). This part
makes tensors, looks at their attributes, computes with them and moves them to and from
NumPy.
"""

import matplotlib.pyplot as plt
import numpy as np

import torch

torch.manual_seed(0)

# %%
# Making tensors
# --------------
# From Python data, with a shape, or shaped like another tensor.

from_data = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
zeros = torch.zeros(2, 3)
ones_like = torch.ones_like(from_data)
steps = torch.arange(0, 1, 0.25)
noise = torch.randn(2, 3)
print(from_data, zeros, ones_like, steps, noise, sep="\n")

# %%
# Every tensor has a shape, a dtype and a device. Integers make ``int64`` tensors, floats
# the default dtype ``float32``.

print(from_data.shape, from_data.dtype, from_data.device)
print(torch.tensor([1, 2, 3]).dtype, torch.tensor([1, 2]).to(torch.float64).dtype)

# %%
# Indexing, slicing and joining
# -----------------------------
# Indexing works as in NumPy. A slice is a *view*: it shares the storage of the tensor it
# came from, so writing through it changes both.

grid = torch.arange(12.0).reshape(3, 4)
print("first row:", grid[0])
print("last column:", grid[:, -1])
column = grid[:, 1]
column.fill_(-1.0)  # writes into grid
print(grid)
print(torch.cat([grid, grid], dim=0).shape, torch.stack([grid, grid]).shape)

# %%
# Arithmetic
# ----------
# Operators work elementwise and broadcast; ``@`` is the matrix product. A method whose
# name ends with ``_`` works in place.

a = torch.ones(3, 1)
b = torch.arange(4.0)
print(a + b)  # (3, 1) and (4,) broadcast to (3, 4)
print(grid @ grid.T)
a.mul_(5)
print(a.sum(), a.mean(), grid.max(dim=1))

# %%
# NumPy bridge
# ------------
# ``Tensor.numpy()`` and ``torch.from_numpy`` share memory with the array on the CPU.

array = np.linspace(0, 2 * np.pi, 200, dtype=np.float32)
x = torch.from_numpy(array)
array[0] = -1.0
print("the tensor sees the change:", x[0].item())
x[0] = 0.0

# %%
# Tensors compute, NumPy-compatible tools draw: here a few functions of ``x``.

fig, ax = plt.subplots(figsize=(6, 3))
for name, values in [
    ("sin", torch.sin(x)),
    ("cos", torch.cos(x)),
    ("tanh(x - 3)", torch.tanh(x - 3)),
]:
    ax.plot(x.numpy(), values.numpy(), label=name)
ax.legend()
ax.set_xlabel("x")
ax.set_title("Functions computed with torch")
fig.tight_layout()
