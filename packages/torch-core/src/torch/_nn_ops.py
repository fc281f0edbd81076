"""Neural-network kernels other than convolution: pooling, normalisation, softmax, losses,
embedding, dropout, interpolation, padding (the kernels are in csrc/nn*.cpp)."""

__all__ = []
