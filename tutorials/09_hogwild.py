"""
Hogwild training with torch.multiprocessing
===========================================

Hogwild (Niu et al., 2011) trains one model from several processes at once: the
parameters live in shared memory, and each process runs its own optimizer on its own data
and writes its updates straight into them, without locks. Updates sometimes overwrite each
other, but for sparse or small updates the training converges as if they were sequential.

``torch.multiprocessing`` is Python's ``multiprocessing`` with one addition: a tensor sent
to another process travels as a handle to shared memory, not as a copy.
``Module.share_memory()`` moves a model's parameters there first, so that every process
sees the same ones.
"""

import os
import queue
import time

import matplotlib.pyplot as plt
from _hogwild_worker import Net, load_data, train

import torch
import torch.multiprocessing as mp

# %%
# The model, the data, the worker
# -------------------------------
# A worker process runs ``train`` below. With the ``spawn`` start method a worker is a fresh
# interpreter that receives the function *by name* and imports the module defining it.
# This script, run by the documentation builder or typed into a notebook, is not
# importable, so ``Net``, ``load_data`` and ``train`` live in a small module next to it,
# ``_hogwild_worker.py``, imported at the top:
#
# .. literalinclude:: ../../tutorials/_hogwild_worker.py
#    :pyobject: train
#
# (The rest of that file: ``Net``, a 64-64-10 perceptron, and ``load_data``, the digits
# split into 1,437 training and 360 test images.) The work of the main process is guarded
# by ``if __name__ == "__main__":`` below, so that importing this script starts nothing.


def test_accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(dim=1) == y).float().mean().item()


def hogwild(context, num_processes=2, epochs=8):
    """Trains a fresh model with ``num_processes`` workers started by ``context``."""
    torch.manual_seed(0)
    (x_train, y_train), (x_test, y_test) = load_data()
    model = Net()
    model.share_memory()  # the workers update these very tensors
    print("parameters in shared memory:", all(p.is_shared() for p in model.parameters()))
    losses = context.Queue()
    processes = []
    start = time.perf_counter()
    for rank in range(num_processes):
        part = slice(rank, None, num_processes)  # each worker gets its own samples
        args = (rank, model, x_train[part], y_train[part], epochs, losses)
        process = context.Process(target=train, args=args)
        process.start()
        processes.append(process)
    curves = {rank: [] for rank in range(num_processes)}
    for _ in range(num_processes * epochs):  # read while they run: a full queue blocks them
        while True:
            try:
                rank, epoch, loss = losses.get(timeout=1)
                break
            except queue.Empty:
                if not any(process.is_alive() for process in processes):
                    raise RuntimeError("the workers stopped without reporting") from None
        curves[rank].append(loss)
    for process in processes:
        process.join()
    if any(process.exitcode != 0 for process in processes):
        raise RuntimeError(f"a worker failed: {[p.exitcode for p in processes]}")
    seconds = time.perf_counter() - start
    accuracy = test_accuracy(model, x_test, y_test)
    print(f"{context.get_start_method()}: {num_processes} processes, {seconds:.1f} s, "
          f"test accuracy {accuracy:.3f}")  # fmt: skip
    return curves, accuracy


# %%
# Training with forked workers
# ----------------------------
# On Linux the default start method is ``fork``: each worker starts as a copy of this
# process. Every worker trained on half the data, yet the shared model is good on the test
# images: it got the updates of both.

if __name__ == "__main__":
    print("main process", os.getpid(), "start method", mp.get_start_method())
    curves, accuracy = hogwild(mp.get_context("fork"))

    fig, ax = plt.subplots(figsize=(6, 3))
    for rank, curve in curves.items():
        ax.plot(range(1, len(curve) + 1), curve, marker="o", label=f"process {rank}")
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss (own samples)")
    ax.set_title(f"Hogwild, 2 processes (test accuracy {accuracy:.2f})")
    ax.legend()
    fig.tight_layout()

# %%
# Training with spawned workers
# -----------------------------
# ``spawn`` (the default on macOS and Windows) starts a fresh interpreter that imports this
# script as a module named ``__mp_main__``, so the guard above keeps it from training
# again; the model arrives as handles to the same shared memory. Starting is slower
# (each worker imports torch), the training the same.

if __name__ == "__main__":
    curves, accuracy = hogwild(mp.get_context("spawn"), epochs=4)
    print({rank: [round(loss, 3) for loss in curve] for rank, curve in curves.items()})

# %%
# Why it works, and when not
# --------------------------
# Each worker's ``optimizer.step()`` writes into the shared tensors while the others read
# them, so a worker's gradient may be computed from parameters that changed meanwhile. For
# a small model and small steps this costs little accuracy and the workers' time adds up.
# Two limits: the processes must not hold their own copies (``share_memory()`` before
# starting them, and never ``model.to(...)`` in a worker), and each worker should use one
# thread (``torch.set_num_threads(1)``) so that they do not fight over the cores.
