"""
Loading data: Dataset, DataLoader, transforms and workers
=========================================================

``torch.utils.data`` separates *what* the samples are (a ``Dataset``: a length and a way
to get sample ``i``) from *how* they are served (a ``DataLoader``: shuffling, batching,
collating, worker processes). This tutorial writes a dataset of handwritten digits that
reads its samples lazily, adds transforms, and loads it in batches with and without worker
processes.
"""

import time

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info, random_split

torch.manual_seed(0)

# %%
# A custom Dataset
# ----------------
# A map-style dataset implements ``__len__`` and ``__getitem__``. Each sample here is a
# dict: the image as a tensor and its label. Real datasets read a file per sample in
# ``__getitem__``; the digits fit in memory, so we keep the NumPy arrays and convert one
# sample at a time.


class Digits(Dataset):
    """scikit-learn's 8x8 digits, one ``{"image", "label"}`` dict per sample."""

    def __init__(self, transform=None):
        data = load_digits()
        self.images = data.images  # (1797, 8, 8) float64, values 0..16
        self.labels = data.target
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        sample = {
            "image": torch.tensor(self.images[index], dtype=torch.float32).unsqueeze(0),
            "label": int(self.labels[index]),
        }
        if self.transform is not None:
            sample = self.transform(sample)
        return sample


plain = Digits()
print(len(plain), "samples; the first:", plain[0]["image"].shape, "label", plain[0]["label"])

# %%
# Transforms
# ----------
# A transform is any callable from sample to sample. Writing them as small classes keeps
# their parameters visible; ``Compose`` chains them.


class Scale:
    """Pixel values from [0, 16] to [0, 1]."""

    def __call__(self, sample):
        return {**sample, "image": sample["image"] / 16.0}


class RandomShift:
    """Moves the image by up to ``pixels`` in each direction (a simple augmentation)."""

    def __init__(self, pixels=1):
        self.pixels = pixels

    def __call__(self, sample):
        dy, dx = torch.randint(-self.pixels, self.pixels + 1, (2,)).tolist()
        return {**sample, "image": torch.roll(sample["image"], shifts=(dy, dx), dims=(1, 2))}


class AddNoise:
    def __init__(self, std):
        self.std = std

    def __call__(self, sample):
        image = sample["image"] + self.std * torch.randn_like(sample["image"])
        return {**sample, "image": image.clamp(0, 1)}


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for transform in self.transforms:
            sample = transform(sample)
        return sample


augmented = Digits(transform=Compose([Scale(), RandomShift(1), AddNoise(0.1)]))

fig, axes = plt.subplots(2, 6, figsize=(8, 3))
for column in range(6):
    axes[0, column].imshow(plain[column]["image"][0].numpy(), cmap="gray_r")
    axes[1, column].imshow(augmented[column]["image"][0].numpy(), cmap="gray_r")
    axes[0, column].set_title(str(plain[column]["label"]))
for ax in axes.flat:
    ax.axis("off")
fig.suptitle("top: raw samples; bottom: scaled, shifted and noisy")
fig.tight_layout()

# %%
# Batching with DataLoader
# ------------------------
# The loader draws indices (shuffled here), fetches the samples and *collates* them: the
# default collate function stacks tensors and turns numbers into tensors, key by key, so a
# batch of dicts is a dict of batches.

train_set, test_set = random_split(augmented, [1500, 297])
loader = DataLoader(train_set, batch_size=32, shuffle=True)
batch = next(iter(loader))
print({key: (value.shape, value.dtype) for key, value in batch.items()})
print("batches per epoch:", len(loader), "(the last one is smaller unless drop_last=True)")

# %%
# A custom ``collate_fn`` changes how samples are joined, here into an ``(images, labels)``
# pair ready for a model.


def to_pair(samples):
    images = torch.stack([s["image"] for s in samples])
    labels = torch.tensor([s["label"] for s in samples])
    return images, labels


images, labels = next(iter(DataLoader(train_set, batch_size=8, collate_fn=to_pair)))
print(images.shape, labels)

# %%
# Worker processes
# ----------------
# With ``num_workers > 0`` the samples are prepared in other processes while the main
# process trains. Each worker gets a copy of the dataset; ``get_worker_info()`` tells the
# code which worker it runs in. Transforms that use random numbers get a different seed in
# each worker.


class SlowDigits(Digits):
    """Pretends that reading a sample takes 1 ms (a disk, a decoder)."""

    def __getitem__(self, index):
        time.sleep(0.001)
        sample = super().__getitem__(index)
        info = get_worker_info()
        sample["worker"] = -1 if info is None else info.id
        return sample


slow = SlowDigits(transform=Scale())
timings = {}
for workers in (0, 2):
    loader = DataLoader(slow, batch_size=64, num_workers=workers)
    start = time.perf_counter()
    seen_workers = set()
    for batch in loader:
        seen_workers.update(batch["worker"].tolist())
    timings[workers] = time.perf_counter() - start
    print(
        f"num_workers={workers}: {timings[workers]:.2f} s, samples made by {sorted(seen_workers)}"
    )

# %%
# The loading time of one epoch, in the main process and with two workers:

fig, ax = plt.subplots(figsize=(4, 2.5))
ax.bar([f"num_workers={w}" for w in timings], list(timings.values()))
ax.set_ylabel("seconds per epoch")
fig.tight_layout()
