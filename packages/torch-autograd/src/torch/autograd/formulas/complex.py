"""Complex tensors are not differentiated yet (PyTorch's Wirtinger calculus is future work):
recording an op that turns a tensor requiring grad into a complex one raises a clear error
instead of returning a result that silently drops out of the graph."""

from torch.autograd.graph import Formula


class ComplexBackward0(Formula):
    names = (
        "_complex",
        "_complex_abs",
        "_complex_angle",
        "_fft_c2c",
        "_fft_c2r",
        "_fft_r2c",
        "_view_as_complex",
        "_view_as_real",
    )

    def save(self, out, *args, **kwargs):
        raise NotImplementedError(
            "autograd through complex tensors (torch.complex, view_as_complex, torch.fft, "
            "stft) is not implemented yet; detach() the input or compute without grad"
        )

    def backward(self, grad):
        raise NotImplementedError
