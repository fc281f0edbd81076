"""Writes the PyTorch-made checkpoints that test_serialization.py loads.

Run once with real PyTorch 2.13, in its own venv (never ours):
    /path/to/pytorch-venv/bin/python make_fixtures.py
The values are simple functions of position (see `expected()` in test_serialization.py),
so the tests check them with NumPy alone.
"""

import collections
import os

from interop_check import DTYPES, values  # the same values the interop check uses

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    dtypes = collections.OrderedDict((d, values(d, (3, 4))) for d in DTYPES)
    base = values("float32", (4, 6))
    views = {
        "base": base,
        "transposed": base.t(),
        "offset": base[1:, 2:],
        "strided": base[:, ::2],
        "scalar": torch.tensor(2.5),
        "empty": torch.zeros(0, 3),
    }
    nested = {
        "state": collections.OrderedDict(weight=values("float32", (2, 3)), step=7),
        "list": [values("int64", (4,)), "text", 3.25, (1, 2)],
        "none": None,
    }
    torch.save(dtypes, os.path.join(HERE, "pytorch_dtypes.pt"))
    torch.save(views, os.path.join(HERE, "pytorch_views.pt"))
    torch.save(nested, os.path.join(HERE, "pytorch_nested.pt"))
    torch.save(views, os.path.join(HERE, "pytorch_legacy.pt"), _use_new_zipfile_serialization=False)


if __name__ == "__main__":
    main()
