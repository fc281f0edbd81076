"""
Blitz, part 2: automatic differentiation
========================================

``torch.autograd`` records the operations done on tensors that require a gradient and
replays them backwards to compute derivatives. This is what trains a network: the loss is a
function of the parameters, and ``loss.backward()`` gives its gradient with respect to each.
"""

import matplotlib.pyplot as plt

import torch

# %%
# Tracking operations
# -------------------
# A tensor made with ``requires_grad=True`` is a *leaf*: the result of every operation on it
# remembers the function that made it (``grad_fn``).

w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = (w**2).sum() + 4 * w[0]
print(y, y.grad_fn)

# %%
# ``backward()`` fills ``.grad`` of each leaf with the derivative of ``y``: here
# ``2 w + (4, 0, 0)``.

y.backward()
print(w.grad)

# %%
# Gradients accumulate: a second ``backward()`` adds to ``.grad``, which is why training
# loops zero it before each step.

y = (w**2).sum()
y.backward()
print("accumulated:", w.grad)
w.grad = None

# %%
# Vector outputs and ``torch.autograd.grad``
# ------------------------------------------
# ``backward()`` on a non-scalar needs the vector to multiply the Jacobian by.
# ``torch.autograd.grad`` returns the gradients instead of accumulating them. Here the
# derivative of ``sin`` at many points at once, compared with ``cos``.

x = torch.linspace(-3, 3, 100, requires_grad=True)
(dx,) = torch.autograd.grad(torch.sin(x).sum(), x)
print("max error against cos:", (dx - torch.cos(x)).abs().max().item())

# %%
# With ``create_graph=True`` the gradient is itself differentiable: second derivatives.

(d1,) = torch.autograd.grad(torch.tanh(x).sum(), x, create_graph=True)
(d2,) = torch.autograd.grad(d1.sum(), x)

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(x.detach().numpy(), torch.tanh(x).detach().numpy(), label="tanh")
ax.plot(x.detach().numpy(), d1.detach().numpy(), label="first derivative")
ax.plot(x.detach().numpy(), d2.numpy(), label="second derivative")
ax.legend()
ax.set_title("Derivatives from autograd")
fig.tight_layout()

# %%
# Stopping the recording
# ----------------------
# Inside ``torch.no_grad()`` nothing is recorded (evaluation, parameter updates);
# ``detach()`` returns a tensor that shares the data but has no history.

with torch.no_grad():
    z = w * 2
print(z.requires_grad, w.detach().requires_grad)
