"""torch.utils.data: datasets, samplers and ``DataLoader`` (the torch-multiprocessing wheel).

``torch/utils/__init__.py`` belongs to torch-core; this wheel ships only ``torch/utils/data``.
Filled in by later issues.
"""
