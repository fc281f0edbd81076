"""``torch.compile`` and ``torch.compiler``: accepted and run eagerly.

There is no graph compiler here (the JIT/ONNX issue brings ``torch.jit``): ``torch.compile``
returns the function or module it is given, unchanged, so programs that compile their model
run as they would with ``torch.compile(..., disable=True)`` on PyTorch. Arguments are
checked as PyTorch checks them. One visible difference: PyTorch wraps a compiled module in
an ``OptimizedModule`` whose ``state_dict`` keys start with ``_orig_mod.``; here the module
is returned itself, so its keys keep their plain names.
"""

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "reset"]

_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


def compile(  # noqa: A001  (PyTorch's name)
    model=None,
    *,
    fullgraph=False,
    dynamic=None,
    backend="inductor",
    mode=None,
    options=None,
    disable=False,
):
    """Returns ``model`` unchanged (eager execution); without ``model``, a decorator."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified")
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES[1:])}")
    if not (isinstance(backend, str) or callable(backend)):
        raise TypeError(f"torch.compile: backend must be a string or a callable, got {backend!r}")
    if model is None:
        return lambda fn: compile(
            fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
            options=options, disable=disable,
        )  # fmt: skip
    if not callable(model):
        raise RuntimeError("torch.compile: the model or function to compile must be callable")
    return model


def disable(fn=None, recursive=True, *, reason=None):
    """Marks ``fn`` as never compiled: a no-op here (nothing is compiled)."""
    return (lambda f: f) if fn is None else fn


def is_compiling():
    """False: code here always runs eagerly."""
    return False


def is_dynamo_compiling():
    return False


def reset():
    """Clears compilation caches: there are none."""
