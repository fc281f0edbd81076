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
    sparse()


def sparse():
    """Sparse tensors (test_sparse.py), and two whose indices lie outside their size."""
    s = torch.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], [3.0, 4.0, 5.0], (2, 3))
    h = torch.sparse_coo_tensor([[0, 2]], torch.arange(6.0).reshape(2, 3), (4, 3))
    good = {"coo": s, "coalesced": s.coalesce(), "hybrid": h, "csr": s.to_sparse_csr(),
            "double": s.double()}  # fmt: skip
    torch.save(good, os.path.join(HERE, "sparse_ref.pt"))
    bad = torch.sparse_coo_tensor([[0, 5], [1, 0]], [1.0, 2.0], (2, 2), check_invariants=False)
    torch.save({"s": bad}, os.path.join(HERE, "sparse_bad_index.pt"))
    crow, col = torch.tensor([0, 1, 2]), torch.tensor([0, 7])
    badc = torch.sparse_csr_tensor(crow, col, torch.tensor([1.0, 2.0]), (2, 2),
                                   check_invariants=False)  # fmt: skip
    torch.save({"s": badc}, os.path.join(HERE, "sparse_bad_csr.pt"))


if __name__ == "__main__":
    main()
