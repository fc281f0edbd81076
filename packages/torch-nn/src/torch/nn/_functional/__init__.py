"""The parts of :mod:`torch.nn.functional`, one theme a module; ``torch/nn/functional.py``
re-exports every public function (and the core kernels, looked up on first use).

Call the ops that ``torch.amp``'s autocast wraps (``torch/amp/autocast_mode.py``, ``_OPS``:
``linear``, the convolutions, the losses, ...) through ``torch.nn.functional``: the
wrappers are put there, not in these modules."""
