"""``torch.utils.tensorboard``: ``SummaryWriter`` writes training data (scalars, histograms,
images, text, hyperparameters, a module graph, embeddings) as TensorBoard event files.

It is built on the ``tensorboard`` package (its protocol buffers and its event-file
writer), which torch-core does not require: ``pip install tensorboard``, or install
torch-core with its ``tensorboard`` extra.
"""

try:
    import tensorboard  # noqa: F401
except ImportError as e:
    raise ImportError(
        "torch.utils.tensorboard needs the TensorBoard package, which is not installed: "
        "pip install tensorboard"
    ) from e

from torch.utils.tensorboard.writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "SummaryWriter"]
