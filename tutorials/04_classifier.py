"""
Blitz, part 4: training a classifier
====================================

The whole loop on real data: scikit-learn's handwritten digits (1,797 grey 8x8 images of
0-9, shipped with scikit-learn, no download). We wrap them in a dataset, train a small
convolutional network with an optimizer for a few epochs, follow the loss and accuracy,
and look at some predictions.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

# %%
# The data
# --------
# Pixel values run from 0 to 16; we scale them to [0, 1], add the channel dimension and
# keep a fifth of the images aside to test on.

digits = load_digits()
images = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0
labels = torch.tensor(digits.target)
order = torch.randperm(len(images))
test_idx, train_idx = order[:360], order[360:]
train_set = TensorDataset(images[train_idx], labels[train_idx])
test_set = TensorDataset(images[test_idx], labels[test_idx])
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
print(len(train_set), "training images,", len(test_set), "test images")

# %%
# The network
# -----------


class DigitNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 2 * 2, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


net = DigitNet()
optimizer = optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()

# %%
# Training
# --------
# Each step: forward, loss, zero the old gradients, backward, update. After each epoch we
# measure the accuracy on the test images with recording off.


def accuracy(model, dataset):
    model.eval()
    with torch.no_grad():
        x, y = dataset.tensors
        correct = (model(x).argmax(dim=1) == y).sum().item()
    model.train()
    return correct / len(y)


step_losses, test_accuracy = [], []
for epoch in range(8):
    for x, y in train_loader:
        loss = criterion(net(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step_losses.append(loss.item())
    test_accuracy.append(accuracy(net, test_set))
    print(
        f"epoch {epoch + 1}: last loss {step_losses[-1]:.3f}, test accuracy {test_accuracy[-1]:.3f}"
    )

fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3))
left.plot(step_losses)
left.set_xlabel("step")
left.set_title("training loss")
right.plot(range(1, len(test_accuracy) + 1), test_accuracy, marker="o")
right.set_xlabel("epoch")
right.set_title("test accuracy")
fig.tight_layout()

# %%
# Predictions
# -----------
# Twelve test images with the predicted digit (red where wrong).

net.eval()
with torch.no_grad():
    x, y = test_set[:12]
    predicted = net(x).argmax(dim=1)
fig, axes = plt.subplots(2, 6, figsize=(8, 3))
for ax, image, guess, truth in zip(axes.flat, x, predicted, y):
    ax.imshow(image[0].numpy(), cmap="gray_r")
    ax.set_title(f"{guess.item()}", color="black" if guess == truth else "red")
    ax.axis("off")
fig.suptitle("predicted digits")
fig.tight_layout()

# %%
# The accuracy per class shows which digits are the hardest.

with torch.no_grad():
    x, y = test_set.tensors
    predicted = net(x).argmax(dim=1)
for digit in range(10):
    mask = y == digit
    print(f"digit {digit}: {(predicted[mask] == digit).float().mean().item():.2f}")
