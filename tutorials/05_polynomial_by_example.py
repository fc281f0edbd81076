"""
Learning by example: fitting sin(x) with a polynomial
=====================================================

One small problem solved five times, each time letting torch do a bit more of the work:
fit ``y = a + b x + c x^2 + d x^3`` to ``sin(x)`` on ``[-pi, pi]`` by gradient descent.

1. tensors only, with the gradients derived by hand;
2. autograd computing the gradients;
3. ``torch.nn`` holding the parameters and the loss;
4. ``torch.optim`` doing the update;
5. a custom ``nn.Module``.
"""

import math

import matplotlib.pyplot as plt

import torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
history = {}  # name -> the loss after each step, for the final figure
fits = {}  # name -> the fitted curve

# %%
# 1. Tensors and hand-written gradients
# -------------------------------------
# The loss is the sum of squared errors. Its derivative with respect to each coefficient is
# ``2 * error`` times the matching power of x, summed: written out by hand here.

a, b, c, d = torch.randn(4).unbind()
learning_rate = 1e-6
losses = []
for _ in range(2000):
    y_pred = a + b * x + c * x**2 + d * x**3
    error = y_pred - y
    losses.append((error**2).sum().item())
    grad = 2.0 * error
    a = a - learning_rate * grad.sum()
    b = b - learning_rate * (grad * x).sum()
    c = c - learning_rate * (grad * x**2).sum()
    d = d - learning_rate * (grad * x**3).sum()
history["1. manual gradients"] = losses
fits["1. manual gradients"] = a + b * x + c * x**2 + d * x**3
print(f"y = {a.item():.3f} + {b.item():.3f} x + {c.item():.3f} x^2 + {d.item():.3f} x^3")

# %%
# 2. Autograd
# -----------
# Mark the coefficients ``requires_grad=True``; ``loss.backward()`` fills their ``.grad``.
# The update must not be recorded, so it runs under ``torch.no_grad()``, and the gradients
# are reset after each step.

coefficients = torch.randn(4, requires_grad=True)
losses = []
for _ in range(2000):
    a, b, c, d = coefficients
    loss = ((a + b * x + c * x**2 + d * x**3 - y) ** 2).sum()
    losses.append(loss.item())
    loss.backward()
    with torch.no_grad():
        coefficients -= learning_rate * coefficients.grad
        coefficients.grad = None
history["2. autograd"] = losses
with torch.no_grad():
    fits["2. autograd"] = sum(coefficients[k] * x**k for k in range(4))
print("coefficients:", coefficients.detach())

# %%
# 3. ``torch.nn``
# ---------------
# The polynomial is a linear layer on the features ``(x, x^2, x^3)``: ``nn.Linear(3, 1)``
# owns the weights and the bias, ``nn.MSELoss`` the loss (summed, as above).

import torch.nn as nn  # noqa: E402

features = torch.stack([x, x**2, x**3], dim=1)  # (2000, 3)
model = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))
loss_fn = nn.MSELoss(reduction="sum")
losses = []
for _ in range(2000):
    loss = loss_fn(model(features), y)
    losses.append(loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter -= learning_rate * parameter.grad
history["3. nn"] = losses
with torch.no_grad():
    fits["3. nn"] = model(features)
linear = model[0]
print("bias", linear.bias.item(), "weights", linear.weight.detach().squeeze())

# %%
# 4. ``torch.optim``
# ------------------
# An optimizer updates the parameters it was given. RMSprop adapts the step to each
# parameter, so far fewer steps are needed than with plain gradient descent.

import torch.optim as optim  # noqa: E402

model = nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))
optimizer = optim.RMSprop(model.parameters(), lr=1e-3)
losses = []
for _ in range(2000):
    loss = loss_fn(model(features), y)
    losses.append(loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
history["4. optim (RMSprop)"] = losses
with torch.no_grad():
    fits["4. optim (RMSprop)"] = model(features)

# %%
# 5. A custom ``nn.Module``
# -------------------------
# Subclass ``nn.Module``, make the coefficients ``nn.Parameter`` attributes, write
# ``forward``. Here the model is a degree-5 polynomial, which fits sin much better. It is
# trained with Adam, whose step is halved every 500 steps by a learning-rate scheduler
# (``torch.optim.lr_scheduler.StepLR``): with a fixed step, Adam ends up jumping around the
# minimum of this badly scaled problem (x^5 reaches 306 while x stays below 4).


class Polynomial(nn.Module):
    def __init__(self, degree):
        super().__init__()
        self.coefficients = nn.Parameter(torch.zeros(degree + 1))

    def forward(self, x):
        powers = torch.stack([x**k for k in range(len(self.coefficients))], dim=-1)
        return powers @ self.coefficients

    def string(self):
        return " + ".join(f"{c:.4f} x^{k}" for k, c in enumerate(self.coefficients.tolist()))


poly = Polynomial(5)
optimizer = optim.Adam(poly.parameters(), lr=0.01)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=500, gamma=0.5)
losses = []
for _ in range(2000):
    loss = ((poly(x) - y) ** 2).sum()
    losses.append(loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()  # once per step here; usually once per epoch
history["5. custom Module (degree 5)"] = losses
with torch.no_grad():
    fits["5. custom Module (degree 5)"] = poly(x)
print("y =", poly.string())

# %%
# The five runs side by side
# --------------------------

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
for name, losses in history.items():
    left.plot(losses, label=name)
left.set_yscale("log")
left.set_xlabel("step")
left.set_title("sum of squared errors")
left.legend(fontsize=7)
right.plot(x.numpy(), y.numpy(), "k", linewidth=3, alpha=0.3, label="sin(x)")
for name, curve in fits.items():
    right.plot(x.numpy(), curve.numpy(), label=name)
right.set_title("the fitted curves")
right.legend(fontsize=7)
fig.tight_layout()
