"""Variable-length sequences for the recurrent layers: PackedSequence and the functions
that pack and pad.

A packed batch stores only the real time steps: ``data`` holds, for t = 0, 1, ..., the
rows of the ``batch_sizes[t]`` sequences that are at least t + 1 long (sequences sorted by
decreasing length; ``sorted_indices`` says which input sequence is which)."""

import collections

import torch

Tensor = torch.Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


def invert_permutation(permutation):
    """The permutation p' with p'[p[i]] = i (None stays None)."""
    if permutation is None:
        return None
    out = torch.empty_like(permutation)
    out.scatter_(0, permutation, torch.arange(permutation.numel(), dtype=permutation.dtype))
    return out


_PackedSequenceBase = collections.namedtuple(
    "PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"]
)


class PackedSequence(_PackedSequenceBase):
    """(data, batch_sizes, sorted_indices, unsorted_indices): made by
    :func:`pack_padded_sequence` or :func:`pack_sequence`, accepted by RNN, LSTM and GRU."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise RuntimeError(
                "PackedSequence: batch_sizes is required (make packed sequences with "
                "pack_padded_sequence or pack_sequence)"
            )
        if batch_sizes.dim() != 1:
            raise ValueError(
                f"batch_sizes should always be a 1D CPU int64 tensor, but got "
                f"{batch_sizes.dim()}D tensor"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self):
        return self

    def double(self):
        return self.to(dtype=torch.double)

    def float(self):
        return self.to(dtype=torch.float)

    def half(self):
        return self.to(dtype=torch.half)

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(
                f"pack_padded_sequence: 'lengths' must be a 1D tensor, got {lengths.dim()}D"
            )
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose sequence b is
    ``lengths[b]`` long.  With ``enforce_sorted`` the lengths must be non-increasing;
    otherwise the batch is sorted here and unsorted again by pad_packed_sequence."""
    lens = _lengths_list(lengths)
    batch_dim = 0 if batch_first else 1
    if len(lens) != input.shape[batch_dim]:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
            f"(batch_size={input.shape[batch_dim]})"
        )
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
        sorted_indices = None
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])  # stable
        sorted_indices = torch.tensor(order, dtype=torch.int64)
        lens = [lens[i] for i in order]
        input = input.index_select(batch_dim, sorted_indices)
    if lens and lens[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if lens and lens[0] > steps:
        raise RuntimeError(
            f"pack_padded_sequence: a length of {lens[0]} is longer than the {steps} time "
            "steps of the input"
        )
    max_len = lens[0] if lens else 0
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(max_len)]
    lengths_t = torch.tensor(lens, dtype=torch.int64)
    valid = torch.arange(max_len).unsqueeze(1) < lengths_t.unsqueeze(0)  # (T, B)
    rows = torch.arange(max_len * batch).reshape(max_len, batch)[valid]
    flat = input.reshape(steps * batch, *input.shape[2:])
    data = flat.index_select(0, rows)
    return PackedSequence(data, torch.tensor(batch_sizes, dtype=torch.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded ``(T, B, *)`` or ``(B, T, *)``, lengths)."""
    data, batch_sizes, _, unsorted_indices = sequence
    sizes = [int(b) for b in batch_sizes.tolist()]
    steps = len(sizes)
    batch = sizes[0] if sizes else 0
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        out_steps = total_length
    else:
        out_steps = steps
    lengths = [sum(1 for s in sizes if s > b) for b in range(batch)]
    lengths_t = torch.tensor(lengths, dtype=torch.int64)
    valid = torch.arange(out_steps).unsqueeze(1) < lengths_t.unsqueeze(0)  # (T_out, B)
    n_rows = data.shape[0]
    where = torch.full((out_steps * batch,), n_rows, dtype=torch.int64)
    where[valid.reshape(-1)] = torch.arange(n_rows)
    pad_row = torch.full((1, *data.shape[1:]), padding_value, dtype=data.dtype)
    padded = torch.cat([data, pad_row]).index_select(0, where)
    padded = padded.reshape(out_steps, batch, *data.shape[1:])
    if batch_first:
        padded = padded.transpose(0, 1)
    if unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, unsorted_indices)
        lengths_t = lengths_t.index_select(0, unsorted_indices)
    return padded, lengths_t


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)`` with
    ``batch_first``), padding with ``padding_value`` on ``padding_side``."""
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        n = max_len - s.shape[0]
        if n:
            fill = torch.full((n, *s.shape[1:]), padding_value, dtype=s.dtype)
            s = torch.cat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return torch.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences that pad_sequence padded."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of tensors ``(L_i, *)`` (decreasing lengths unless enforce_sorted=False)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of tensors that pack_sequence packed."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
