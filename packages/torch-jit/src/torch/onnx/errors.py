"""The exceptions of torch.onnx."""


class OnnxExporterError(RuntimeError):
    """An export failed."""


class UnsupportedOperatorError(OnnxExporterError):
    """An op of the traced graph has no ONNX conversion at the requested opset."""


class SymbolicValueError(OnnxExporterError):
    """An op's arguments cannot be expressed in ONNX (a value that must be constant is not)."""
