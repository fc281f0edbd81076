"""torch.onnx (the torch-jit wheel): export a model to an ONNX file.

:func:`export` traces the model with ``torch.jit`` and converts each node of the graph
with the conversion registered for its op (``_symbolic.py``), building the file with the
``onnx`` package's helpers (``onnx.helper``, ``onnx.numpy_helper``); every file passes
``onnx.checker.check_model``. Opsets 17 and 18 are supported.
"""

import enum

from torch.onnx.errors import OnnxExporterError, UnsupportedOperatorError

__all__ = [
    "OnnxExporterError",
    "OperatorExportTypes",
    "TrainingMode",
    "UnsupportedOperatorError",
    "export",
    "is_in_onnx_export",
    "supported_ops",
]

_in_export = [False]


class TrainingMode(enum.IntEnum):
    """The mode a model is exported in: EVAL (the default), PRESERVE or TRAINING."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """Accepted for compatibility: every op is exported as a standard ONNX op."""

    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


def is_in_onnx_export():
    """True while :func:`export` traces a model."""
    return _in_export[0]


def supported_ops():
    """Sorted names of the ops (as recorded in graphs) that the exporter converts."""
    from torch.onnx._symbolic import SYMBOLICS

    return sorted(SYMBOLICS)


def export(
    model,
    args=(),
    f=None,
    *,
    kwargs=None,
    export_params=True,
    verbose=False,
    training=TrainingMode.EVAL,
    input_names=None,
    output_names=None,
    operator_export_type=OperatorExportTypes.ONNX,
    opset_version=None,
    do_constant_folding=True,
    dynamic_axes=None,
    keep_initializers_as_inputs=None,
    custom_opsets=None,
    export_modules_as_functions=False,
    autograd_inlining=True,
    dynamo=False,
    **unused,
):
    """Export ``model`` (an ``nn.Module``, a function, or a traced/scripted module) run on
    ``args`` to the ONNX file ``f`` (a path or a binary file object).

    ``input_names``/``output_names`` name the graph's inputs and outputs (in the order of
    the flattened arguments and results); ``dynamic_axes`` ({name: {axis: dim name}} or
    {name: [axes]}) leaves those dimensions free, so the file runs at other batch and
    sequence sizes; ``opset_version`` is 17 (the default) or 18; ``export_params=False``
    makes parameters graph inputs instead of initializers; ``do_constant_folding``
    evaluates ops on constants at export time. The model is exported in eval mode unless
    ``training`` says otherwise. An op without an ONNX conversion raises
    :class:`UnsupportedOperatorError` naming the op and the source line that called it.

    Returns the ``onnx.ModelProto`` (also written to ``f`` when given).
    """
    from torch.onnx._export import export_model

    _in_export[0] = True
    try:
        return export_model(
            model,
            args,
            f,
            kwargs=kwargs,
            export_params=export_params,
            verbose=verbose,
            training=training,
            input_names=input_names,
            output_names=output_names,
            opset_version=opset_version,
            do_constant_folding=do_constant_folding,
            dynamic_axes=dynamic_axes,
        )
    finally:
        _in_export[0] = False
