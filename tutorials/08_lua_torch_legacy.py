"""
Porting Lua Torch code with torch.legacy
========================================

Lua Torch (torch7) programs build networks from ``nn`` modules with explicit
``forward``/``backward`` calls, train them with the ``optim`` package's closures, and
store them in ``.t7`` files. ``torch.legacy`` keeps that API, so such code can be ported
line by line: ``torch.legacy.nn`` has the Lua modules and criterions, ``torch.legacy.optim``
the Lua optimisers, and ``torch.utils.serialization`` reads and writes ``.t7`` files.

This tutorial ports a small Lua training script, saves the trained network as a ``.t7``
file (as Lua's ``torch.save`` would), loads it back with ``load_lua``, and moves its weights
into a modern ``torch.nn`` model.
"""

import os
import tempfile

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits

import torch
import torch.legacy.nn as lnn
import torch.legacy.optim as loptim
from torch.utils.serialization import load_lua, save_lua

torch.manual_seed(0)

# %%
# The Lua original
# ----------------
# This is the kind of Lua code we port (it does not run here; it is shown for comparison):
#
# .. code-block:: lua
#
#    local model = nn.Sequential()
#    model:add(nn.Linear(64, 32)):add(nn.Tanh()):add(nn.Linear(32, 10)):add(nn.LogSoftMax())
#    local criterion = nn.ClassNLLCriterion()
#    local params, gradParams = model:getParameters()
#    local config = {learningRate = 0.1, momentum = 0.9}
#    local function feval(p)
#       gradParams:zero()
#       local output = model:forward(inputs)
#       local loss = criterion:forward(output, targets)
#       model:backward(inputs, criterion:backward(output, targets))
#       return loss, gradParams
#    end
#    for epoch = 1, 30 do optim.sgd(feval, params, config) end
#
# In Python, ``a:b(...)`` becomes ``a.b(...)``, ``getParameters`` is
# ``flattenParameters``, and class indices start at 0 instead of 1.

digits = load_digits()
inputs = torch.tensor(digits.data, dtype=torch.float32) / 16.0  # (1797, 64)
targets = torch.tensor(digits.target)  # 0-based class indices

model = lnn.Sequential()
model.add(lnn.Linear(64, 32)).add(lnn.Tanh()).add(lnn.Linear(32, 10)).add(lnn.LogSoftMax())
criterion = lnn.ClassNLLCriterion()
params, grad_params = model.flattenParameters()
config = {"learningRate": 0.5, "momentum": 0.9}
print(model)
print("parameters:", params.numel())

# %%
# Training with a Lua-style closure
# ---------------------------------
# ``feval`` returns the loss and the flat gradient; ``optim.sgd`` updates ``params`` in
# place, which updates every module's weights (they are views into it). Full-batch
# training: 1,797 samples at once.

losses = []


def feval(p):
    grad_params.zero_()
    output = model.forward(inputs)
    loss = criterion.forward(output, targets)
    model.backward(inputs, criterion.backward(output, targets))
    return loss, grad_params


for _ in range(150):
    _, loss = loptim.sgd(feval, params, config)  # Lua returns {loss}; here the number
    losses.append(float(loss))

model.evaluate()
accuracy = (model.forward(inputs).argmax(dim=1) == targets).float().mean().item()
print(f"final loss {losses[-1]:.3f}, training accuracy {accuracy:.3f}")

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(losses)
ax.set_xlabel("step (optim.sgd call)")
ax.set_ylabel("ClassNLLCriterion")
ax.set_title("Training a torch.legacy.nn model")
fig.tight_layout()

# %%
# Writing and reading ``.t7`` files
# ---------------------------------
# ``save_lua`` writes what Lua's ``torch.save`` writes; Lua can ``torch.load`` the file.
# ``load_lua`` reads a file written by Lua (or by ``save_lua``): ``nn`` objects come back
# as ``torch.legacy.nn`` modules, Lua tables as lists or dicts. ``clearState()`` drops the
# buffers (``output``, ``gradInput``) first, as one does in Lua before saving.

path = os.path.join(tempfile.mkdtemp(), "digits_mlp.t7")
model.clearState()
save_lua({"model": model, "classes": list(range(10)), "epochs": 150}, path)
print(f"{os.path.getsize(path)} bytes written")

restored = load_lua(path)
print(type(restored), sorted(restored))
lua_model = restored["model"]
print(lua_model)
same = torch.equal(lua_model.forward(inputs), model.forward(inputs))
print("the loaded network computes the same outputs:", same)

# %%
# From torch.legacy to torch.nn
# -----------------------------
# Once loaded, the weights can move into a ``torch.nn`` model (same layouts: a Linear's
# weight is ``(out, in)`` in both), which then gets autograd, the modern optimizers and
# ``torch.save``.

import torch.nn as nn  # noqa: E402

modern = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 10), nn.LogSoftmax(dim=1))
with torch.no_grad():
    for new, old in [(modern[0], lua_model.get(0)), (modern[2], lua_model.get(2))]:
        new.weight.copy_(old.weight)
        new.bias.copy_(old.bias)
    difference = (modern(inputs) - lua_model.forward(inputs)).abs().max().item()
print("largest difference between the two networks:", difference)

# %%
# Predictions of the ported network on a few digits:

with torch.no_grad():
    guesses = modern(inputs[:10]).argmax(dim=1)
fig, axes = plt.subplots(1, 10, figsize=(9, 1.5))
for ax, image, guess in zip(axes, inputs[:10], guesses):
    ax.imshow(image.reshape(8, 8).numpy(), cmap="gray_r")
    ax.set_title(str(guess.item()))
    ax.axis("off")
fig.tight_layout()
