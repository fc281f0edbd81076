"""Helpers shared by the optimisers: Lua's ``config.key or default`` and checked evaluation."""

import numbers

import torch


def tables(config, state):
    """Lua's ``config = config or {}; state = state or config``."""
    config = {} if config is None else config
    state = config if state is None else state
    if not isinstance(config, dict) or not isinstance(state, dict):
        raise TypeError(
            "optim: config and state must be dicts (Lua tables) or None, "
            f"got {type(config).__name__} and {type(state).__name__}"
        )
    return config, state


def number(name, config, key, default):
    """``config[key]`` as Lua's ``config.key or default`` reads it, checked to be a real number."""
    value = config.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"optim.{name}: config['{key}'] must be a number, got {value!r}")
    return value


def per_element(name, config, key, x):
    """An optional per-element tensor (``learningRates``, ``weightDecays``) shaped like x."""
    value = config.get(key)
    if value is None:
        return None
    if not isinstance(value, torch.Tensor) or value.numel() != x.numel():
        got = tuple(value.shape) if isinstance(value, torch.Tensor) else type(value).__name__
        raise ValueError(
            f"optim.{name}: config['{key}'] must be a tensor with one entry per element of x "
            f"({x.numel()}), got {got}"
        )
    return value.reshape(x.shape).to(x.dtype)


def check_x(name, x):
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        got = x.dtype if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(f"optim.{name}: x must be a floating-point tensor, got {got}")


def evaluate(name, opfunc, x):
    """Call ``opfunc(x)`` and check it returned ``(f, df/dx)`` with one gradient entry per element.

    The gradient comes back shaped and typed like x; it may be the caller's own tensor, so the
    optimisers never write into it (Lua's did; nothing a port relies on).
    """
    out = opfunc(x)
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"optim.{name}: opfunc(x) must return a pair (f, df/dx), got {out!r}")
    f, dfdx = out
    if not isinstance(dfdx, torch.Tensor) or dfdx.numel() != x.numel():
        got = tuple(dfdx.shape) if isinstance(dfdx, torch.Tensor) else type(dfdx).__name__
        raise ValueError(
            f"optim.{name}: opfunc(x) must return df/dx with one entry per element of x "
            f"({tuple(x.shape)}), got {got}"
        )
    return f, dfdx.reshape(x.shape).to(x.dtype)


def as_float(name, f):
    """A function value as a Python float, for the line searches' arithmetic."""
    try:
        return float(f)
    except (TypeError, ValueError):
        raise TypeError(f"optim.{name}: opfunc(x) must return a number as f, got {f!r}") from None
