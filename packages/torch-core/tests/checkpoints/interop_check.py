"""Checkpoints written here must load in PyTorch (the `interop` nox session).

python interop_check.py write DIR   # under this project's torch
python interop_check.py check DIR   # under PyTorch 2.13: loads DIR's files and checks them
"""

import collections
import os
import sys

import torch

DTYPES = ["float32", "float64", "float16", "bfloat16", "uint8", "int8", "int16", "int32", "int64",
          "bool", "complex64", "complex128"]  # fmt: skip


def values(dtype, shape):
    """Values that are simple functions of position, exact in every dtype."""
    n = 1
    for s in shape:
        n *= s
    x = torch.arange(n, dtype=torch.float64).reshape(shape)
    if dtype == "bool":
        return x.remainder(3).eq(0)
    if dtype in ("uint8", "int8"):
        return x.remainder(100).to(getattr(torch, dtype))
    if dtype in ("complex64", "complex128"):
        return torch.complex(x * 0.5 - 3, x * 0.25).to(getattr(torch, dtype))
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        return (x * 0.5 - 3).to(getattr(torch, dtype))
    return (x * 7 - 11).to(getattr(torch, dtype))


def objects():
    base = values("float32", (4, 6))
    return {
        "dtypes.pt": collections.OrderedDict((d, values(d, (3, 4))) for d in DTYPES),
        "views.pt": {
            "base": base,
            "t": base.t(),
            "offset": base[1:, 2:],
            "step": base[:, ::2],
            "scalar": torch.tensor(2.5),
            "empty": torch.zeros(0, 3),
        },  # fmt: skip
        "nested.pt": {
            "sd": collections.OrderedDict(w=values("float32", (2, 3)), step=7),
            "list": [values("int64", (4,)), "text", 3.25, (1, 2), torch.Size([2, 3])],
        },  # fmt: skip
    }


def same(a, b):
    if isinstance(a, torch.Tensor):
        return (a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
                and a.stride() == b.stride() and a.tolist() == b.tolist())  # fmt: skip
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def main(mode, folder):
    for name, obj in objects().items():
        path = os.path.join(folder, name)
        if mode == "write":
            torch.save(obj, path)
            continue
        for mmap in (False, True):
            loaded = torch.load(path, mmap=mmap)
            assert same(obj, loaded), f"{name} (mmap={mmap}) differs: {loaded}"
        if name == "views.pt":  # views still share one storage
            loaded["base"][1, 2] = 99.0
            assert loaded["offset"][0, 0].item() == 99.0 and loaded["t"][2, 1].item() == 99.0
        print(f"torch {torch.__version__} loaded {name}: ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
