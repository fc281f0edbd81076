"""default_collate (a list of samples -> one batch) and default_convert (one sample)."""

import collections.abc
import sys

import torch

__all__ = ["default_collate", "default_convert"]

_ACCEPTED = "tensors, numpy arrays, numbers, strings, dicts or lists"


def _is_numpy(x):
    return type(x).__module__ == "numpy"


def _from_numpy(x):
    # via one ndarray: a list of NumPy scalars becomes one array of their dtype
    return torch.as_tensor(sys.modules["numpy"].asarray(x))


def _numpy_text(array):
    # strings, bytes and objects have no tensor dtype
    return array.dtype.kind in "USaO"


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(x, "_fields")


def default_convert(data):
    """Converts NumPy arrays and scalars (also inside dicts, lists, tuples) to tensors; leaves
    everything else as it is. The ``collate_fn`` when automatic batching is off."""
    if isinstance(data, torch.Tensor):
        return data
    if _is_numpy(data):
        if hasattr(data, "dtype") and _numpy_text(data):
            return data
        return _from_numpy(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        try:
            return type(data)(converted)
        except TypeError:  # a mapping type that cannot be built from a dict
            return converted
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        converted = [default_convert(d) for d in data]
        try:
            return type(data)(converted)
        except TypeError:
            return converted
    return data


def _stack(batch):
    try:
        return torch.stack(batch, 0)
    except Exception as e:
        first = tuple(batch[0].shape)
        for i, t in enumerate(batch):
            if tuple(t.shape) != first:
                raise RuntimeError(
                    f"default_collate: the tensor at batch position {i} has shape {tuple(t.shape)}"
                    f" but the one at position 0 has shape {first}; tensors stacked into a batch "
                    "must have equal shapes (pad or resize them in the dataset, or pass a "
                    "collate_fn)"
                ) from None
        raise RuntimeError(f"default_collate: cannot stack the batch's tensors: {e}") from e


def default_collate(batch):
    """Merges a list of samples into a batch, recursively by the type of ``batch[0]``:

    - tensors are stacked along a new dimension 0 (equal shapes required);
    - NumPy arrays and scalars become tensors, then are stacked;
    - Python floats -> float64 tensor, ints -> int64 tensor, bools -> bool tensor;
    - strings and bytes are kept as a list;
    - a dict gives a dict of collated values per key; a namedtuple the same namedtuple of
      collated fields; a tuple or list a list of collated positions (samples of equal length).
    """
    elem = batch[0]
    if isinstance(elem, torch.Tensor):
        return _stack(batch)
    if _is_numpy(elem):
        if hasattr(elem, "dtype") and _numpy_text(elem):
            raise TypeError(
                f"default_collate: batch must contain {_ACCEPTED}; found a numpy array of "
                f"dtype {elem.dtype}"
            )
        if getattr(elem, "shape", ()) == ():  # numpy scalar or 0-d array
            return _from_numpy(batch)
        return _stack([_from_numpy(b) for b in batch])
    if isinstance(elem, float):
        return torch.tensor(batch, dtype=torch.float64)
    if isinstance(elem, int):  # bool included: torch.tensor keeps it bool
        return torch.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        sizes = [len(sample) for sample in batch]
        for i, size in enumerate(sizes):
            if size != sizes[0]:
                raise RuntimeError(
                    f"default_collate: each sample in the batch must have the same length; the "
                    f"one at batch position {i} has {size} elements, position 0 has {sizes[0]}"
                )
        collated = [default_collate(list(field)) for field in zip(*batch)]
        if isinstance(elem, tuple):
            return collated
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    raise TypeError(f"default_collate: batch must contain {_ACCEPTED}; found {type(elem)}")
