"""torch.Size: the shape of a tensor, a tuple of ints."""

from torch import _C


class Size(_C._SizeBase):
    """The result of ``Tensor.size()`` and ``Tensor.shape``: a tuple subclass. Its base
    (csrc/module.cpp) indexes in C and makes slices Sizes."""

    __slots__ = ()

    def __repr__(self):
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def numel(self):
        """Number of elements a tensor of this shape holds."""
        n = 1
        for s in self:
            n *= s
        return n

    def __reduce__(self):
        return (Size, (tuple(self),))


Size.__module__ = "torch"  # pickles name it torch.Size, which PyTorch's loader knows
