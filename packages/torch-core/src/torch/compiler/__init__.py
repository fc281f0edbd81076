"""``torch.compile`` and ``torch.compiler``.

With the torch-jit package installed, ``torch.compile`` compiles through ``torch.jit``: the
code is traced once per input signature (shapes, dtypes, devices; a module's train/eval
mode), the graph is optimised and cached, and later calls run it; code a trace cannot
represent runs eagerly after one warning naming the reason (``torch.jit._compile``). A
module comes back wrapped in an ``OptimizedModule`` whose ``state_dict`` keys start with
``_orig_mod.``, as in PyTorch. ``backend="eager"`` and ``disable=True`` return the model
unchanged.

With torch-core alone there is no graph compiler: ``torch.compile`` returns the function or
module it is given, unchanged (as ``torch.compile(..., disable=True)`` on PyTorch).
Arguments are checked as PyTorch checks them either way.
"""

import importlib.util

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
    if disable or backend == "eager" or not _have_jit():
        return model
    from torch.jit._compile import compile_model

    return compile_model(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend)


def _have_jit():
    """Whether the torch-jit package (torch.jit) is installed."""
    try:
        return importlib.util.find_spec("torch.jit._compile") is not None
    except ImportError:
        return False


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
