"""functional_call and stack_module_state: calling a module with other parameters."""

import contextlib
from collections import Counter

import torch

Tensor = torch.Tensor


def functional_call(
    module,
    parameter_and_buffer_dicts,
    args=None,
    kwargs=None,
    *,
    tie_weights=True,
    strict=False,
):
    """``module(*args, **kwargs)`` with some of its parameters and buffers replaced.

    ``parameter_and_buffer_dicts`` maps dotted names (as in ``named_parameters()``, e.g.
    ``"layer.0.weight"``) to tensors, or is a list/tuple of such dicts (with no key in two
    of them). For the duration of the call each name refers to the given tensor (a plain
    tensor stands in for a Parameter); names not given keep the module's own tensors. The
    module's own tensors are put back afterwards, also when the call raises. ``args`` that
    is not a tuple is the single positional argument.

    ``tie_weights``: a parameter the module shares under several names (tied weights) is
    replaced under all of them when one is given. ``strict``: the names given must be
    exactly the module's parameters and buffers."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        counts = Counter(k for d in parameter_and_buffer_dicts for k in d)
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; behavior of functional call "
                "is ambiguous"
            )
        values = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(parameter_and_buffer_dicts)}"
        )
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, values, tie_weights, strict):
        return module(*args, **kwargs)


def _members(module):
    """(name, tensor) of every parameter and buffer, shared ones under each of their names."""
    return list(module.named_parameters(remove_duplicate=False)) + list(
        module.named_buffers(remove_duplicate=False)
    )


def _tie(values, members):
    """values extended to every name of each shared tensor one of whose names is given."""
    groups = {}
    for name, t in members:
        if t is not None:
            groups.setdefault(id(t), []).append(name)
    for names in groups.values():
        given = [n for n in names if n in values]
        if len(names) < 2 or not given:
            continue
        if any(values[n] is not values[given[0]] for n in given[1:]):
            raise ValueError(
                f"functional_call got multiple values for keys {given}, which are tied. "
                "Consider using tie_weights=False"
            )
        for n in names:
            values.setdefault(n, values[given[0]])


def _check_strict(module, values, members):
    expected = list(dict.fromkeys(name for name, _ in members))
    unexpected = [k for k in values if k not in set(expected)]
    missing = [k for k in expected if k not in values]
    message = ""
    if unexpected:
        message += "\n\tUnexpected key(s): " + ", ".join(repr(k) for k in unexpected) + "."
    if missing:
        message += "\n\tMissing key(s): " + ", ".join(repr(k) for k in missing) + "."
    if message:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:{message}")


def _swap(module, name, tensor):
    """Make ``name`` refer to ``tensor``; returns the function that undoes it."""
    prefix, _, attr = name.rpartition(".")
    owner = module.get_submodule(prefix) if prefix else module
    d = owner.__dict__
    for table in (d.get("_parameters"), d.get("_buffers")):
        if table is not None and attr in table:
            old = table[attr]
            table[attr] = tensor
            return lambda: table.__setitem__(attr, old)
    if attr in d:
        old = d[attr]
        d[attr] = tensor
        return lambda: d.__setitem__(attr, old)
    d[attr] = tensor  # a name the module does not have (strict=False): there for the call
    return lambda: d.pop(attr, None)


@contextlib.contextmanager
def _reparametrized(module, values, tie_weights, strict):
    for v in values.values():
        if not isinstance(v, Tensor):
            raise TypeError(f"{v} is not an instance of torch.Tensor")
    members = _members(module) if tie_weights or strict else ()
    if tie_weights:
        _tie(values, members)
    if strict:
        _check_strict(module, values, members)
    undo = []
    try:
        for name, tensor in values.items():
            undo.append(_swap(module, name, tensor))
        yield
    finally:
        for restore in reversed(undo):
            restore()


def stack_module_state(models):
    """``(params, buffers)``: dicts from each parameter (buffer) name of ``models`` (modules
    of one class, all in training or all in eval mode) to the stack of that tensor over the
    models, along a new first dimension. Stacked parameters are new leaves that require grad
    when the models' do; use them with :func:`vmap` over :func:`functional_call` to run an
    ensemble."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) != 1:
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    named = [dict(m.named_parameters()) for m in models]
    params = {}
    for name in named[0]:
        tensors = [p[name] for p in named]
        flags = {t.requires_grad for t in tensors}
        if len(flags) != 1:
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        stacked = torch.stack([t.detach() for t in tensors])
        params[name] = stacked.requires_grad_(True) if flags.pop() else stacked
    named = [dict(m.named_buffers()) for m in models]
    buffers = {name: torch.stack([b[name] for b in named]) for name in named[0]}
    return params, buffers
