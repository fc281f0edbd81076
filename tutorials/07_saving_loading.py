"""
Saving and loading models
=========================

``torch.save`` writes tensors, and containers of them, to a file; ``torch.load`` reads them
back. For a model, what one saves is its ``state_dict``: the names and values of its
parameters and buffers. This tutorial saves and restores a model, writes a training
checkpoint to resume from, and shows what ``torch.load``'s safe default,
``weights_only=True``, accepts and refuses.
"""

import io
import os
import pickle
import tempfile

import matplotlib.pyplot as plt

import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
folder = tempfile.mkdtemp()

# %%
# A model and its state_dict
# --------------------------
# ``state_dict()`` is an ordered dict from names to tensors. It holds the parameters and
# the buffers (here BatchNorm's running statistics), not the code.

model = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 1))
for name, value in model.state_dict().items():
    print(f"{name:22s} {tuple(value.shape)}")

# %%
# Training it a little
# --------------------
# A toy regression: learn ``sin(x0) * cos(x1)``. We keep the losses to show the resumed
# run afterwards.

inputs = torch.rand(512, 2) * 4 - 2
targets = (torch.sin(inputs[:, 0]) * torch.cos(inputs[:, 1])).unsqueeze(1)
optimizer = optim.Adam(model.parameters(), lr=0.01)


def train(model, optimizer, steps):
    losses = []
    model.train()
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


first_losses = train(model, optimizer, 150)

# %%
# Saving and restoring the weights
# --------------------------------
# The recommended way: save the ``state_dict``; to restore, build the same architecture and
# ``load_state_dict``. ``torch.load`` returns the dict of tensors.

weights_path = os.path.join(folder, "model_weights.pt")
torch.save(model.state_dict(), weights_path)

restored = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 1))
result = restored.load_state_dict(torch.load(weights_path))
print(result)  # no missing or unexpected keys
model.eval()
restored.eval()  # evaluation mode: BatchNorm uses the running statistics
with torch.no_grad():
    print("same predictions:", torch.equal(model(inputs), restored(inputs)))

# %%
# ``strict=False`` loads what matches and reports the rest, e.g. when the head of a network
# changed.

other = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 3))
state = {k: v for k, v in torch.load(weights_path).items() if not k.startswith("3.")}
print(other.load_state_dict(state, strict=False))

# %%
# A checkpoint to resume training
# -------------------------------
# To continue training later, save more than the weights: the optimizer's state (Adam's
# running averages), the step count, anything needed. A dict of such things is a
# checkpoint.

checkpoint_path = os.path.join(folder, "checkpoint.pt")
model.train()
torch.save(
    {
        "step": len(first_losses),
        "model": model.state_dict(),
        "optimizer": optimizer.state_dict(),
        "losses": first_losses,
    },
    checkpoint_path,
)
print(f"checkpoint: {os.path.getsize(checkpoint_path)} bytes")

# %%
# Later, maybe in another program: rebuild, load, continue.

checkpoint = torch.load(checkpoint_path)
resumed = nn.Sequential(nn.Linear(2, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 1))
resumed.load_state_dict(checkpoint["model"])
resumed_optimizer = optim.Adam(resumed.parameters(), lr=0.01)
resumed_optimizer.load_state_dict(checkpoint["optimizer"])
more_losses = train(resumed, resumed_optimizer, 150)

# The original run, continued without saving, for comparison:
reference_losses = train(model, optimizer, 150)
print("resumed and uninterrupted runs agree:", more_losses[-1], reference_losses[-1])

fig, ax = plt.subplots(figsize=(6, 3))
steps = range(checkpoint["step"], checkpoint["step"] + 150)
ax.plot(checkpoint["losses"], label="before the checkpoint")
ax.plot(steps, reference_losses, linewidth=4, alpha=0.4, label="uninterrupted")
ax.plot(steps, more_losses, "--", label="resumed from the checkpoint")
ax.set_yscale("log")
ax.set_xlabel("step")
ax.set_ylabel("MSE")
ax.legend()
fig.tight_layout()

# %%
# ``weights_only``: loading only data
# -----------------------------------
# A ``.pt`` file is a zip archive whose object is a pickle, and unpickling arbitrary data
# can run arbitrary code. So ``torch.load`` defaults to ``weights_only=True``: its unpickler
# accepts tensors, dtypes, ``OrderedDict`` and Python's plain containers and numbers, and
# refuses any other global. A class of one's own is refused ...


class Settings:
    def __init__(self, width):
        self.width = width


buffer = io.BytesIO()
torch.save({"settings": Settings(16), "weights": model.state_dict()}, buffer)
buffer.seek(0)
try:
    torch.load(buffer)
except pickle.UnpicklingError as error:
    print("refused:", str(error).splitlines()[0][:160])

# %%
# ... until it is allow-listed, here for one load with a context manager
# (``torch.serialization.add_safe_globals`` allow-lists for the whole program) ...

buffer.seek(0)
with torch.serialization.safe_globals([Settings]):
    loaded = torch.load(buffer)
print("allowed:", loaded["settings"].width)

# %%
# ... or loaded with ``weights_only=False``, which runs the full unpickler: only for files
# one trusts.

buffer.seek(0)
print("trusted:", torch.load(buffer, weights_only=False)["settings"].width)

# %%
# ``map_location`` puts the tensors on another device as they load (a file saved on a GPU
# loads on a CPU-only machine with ``map_location="cpu"``).

state = torch.load(weights_path, map_location="cpu")
print({k: v.device for k, v in list(state.items())[:2]})
