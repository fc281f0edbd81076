"""
Blitz, part 3: neural networks
==============================

``torch.nn`` builds networks from modules. A module holds parameters, is called on tensors
and may contain other modules. This part defines a small convolutional network for 8x8
images, runs it, computes a loss and takes one gradient step by hand.
"""

import matplotlib.pyplot as plt

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

# %%
# Defining the network
# --------------------
# Layers assigned as attributes in ``__init__`` are registered: their parameters become the
# network's. ``forward`` says how the input flows; backward comes from autograd.


class SmallConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)  # 1x8x8 -> 8x8x8
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)  # 8x4x4 -> 16x4x4
        self.fc = nn.Linear(16 * 2 * 2, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


net = SmallConvNet()
print(net)
for name, p in net.named_parameters():
    print(f"{name:14s} {tuple(p.shape)}")

# %%
# Running it
# ----------
# Modules take a batch: here 4 random one-channel images, giving 10 scores per image.

images = torch.randn(4, 1, 8, 8)
scores = net(images)
print(scores.shape)

# %%
# A loss and its gradient
# -----------------------
# ``nn.CrossEntropyLoss`` compares scores with class indices. ``backward()`` fills the
# ``.grad`` of every parameter.

targets = torch.tensor([3, 1, 4, 1])
criterion = nn.CrossEntropyLoss()
loss = criterion(scores, targets)
net.zero_grad()
loss.backward()
print("loss:", loss.item())
print("gradient of conv1.bias:", net.conv1.bias.grad)

# %%
# Updating the weights
# --------------------
# The simplest rule, stochastic gradient descent, is ``weight -= lr * grad``. Repeating
# it on the same batch drives the loss down (the network memorises these four images);
# ``torch.optim`` (next part) packages such rules.

losses = []
for _ in range(30):
    net.zero_grad()
    loss = criterion(net(images), targets)
    loss.backward()
    with torch.no_grad():
        for p in net.parameters():
            p -= 0.1 * p.grad
    losses.append(loss.item())

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(losses)
ax.set_xlabel("step")
ax.set_ylabel("cross-entropy")
ax.set_title("Plain gradient descent on one batch")
fig.tight_layout()
