"""Helpers for testing code that uses tensors.

``assert_close(actual, expected)`` is the one public function, with the same
defaults as PyTorch's: dtypes must match, and floating-point values may differ
by ``atol + rtol * |expected|`` with a default (rtol, atol) chosen by dtype.
The op registry the test suites share lives in ``torch.testing._op_registry``.
"""

import warnings

import torch

__all__ = ["assert_close"]

# Default (rtol, atol) by dtype; integer and bool values must be equal.
_TOLERANCES = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
}


def assert_close(
    actual, expected, *, rtol=None, atol=None, equal_nan=False, check_dtype=True, msg=None
):
    """Raise ``AssertionError`` unless `actual` and `expected` are close.

    Both may be tensors, Python numbers, or (nested) lists/tuples of them.
    Shapes must be equal, and dtypes too unless ``check_dtype=False``. Values
    are close when ``|actual - expected| <= atol + rtol * |expected|``; give
    both `rtol` and `atol`, or neither to get the defaults for the dtypes
    (the looser of the two). NaNs are equal only with ``equal_nan=True``.

    Example::

        >>> torch.testing.assert_close(torch.tensor([1.0]), torch.tensor([1.0 + 1e-7]))
    """
    if (rtol is None) != (atol is None):
        raise ValueError(
            "Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got rtol={rtol} and atol={atol}."
        )
    if isinstance(actual, (list, tuple)) or isinstance(expected, (list, tuple)):
        if type(actual) is not type(expected) or len(actual) != len(expected):
            raise AssertionError(msg or f"Sequences do not match: {actual!r} and {expected!r}.")
        for a, e in zip(actual, expected):
            assert_close(
                a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype, msg=msg
            )
        return
    actual, expected = _as_tensor(actual), _as_tensor(expected)
    if actual.shape != expected.shape:
        raise AssertionError(
            msg
            or f"The values for attribute 'shape' do not match: {actual.shape} != {expected.shape}."
        )
    if check_dtype and actual.dtype != expected.dtype:
        raise AssertionError(
            msg
            or f"The values for attribute 'dtype' do not match: {actual.dtype} != {expected.dtype}."
        )
    if rtol is None:
        pairs = [
            _TOLERANCES.get(actual.dtype, (0.0, 0.0)),
            _TOLERANCES.get(expected.dtype, (0.0, 0.0)),
        ]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    a, e = actual.to(torch.float64), expected.to(torch.float64)
    diff = (a - e).abs()
    close = (a == e) | (
        (diff <= atol + rtol * e.abs()) & diff.isfinite()
    )  # a == e: equal infinities
    if equal_nan:
        close = close | (a.isnan() & e.isnan())
    if bool(close.all()):
        return
    bad = int((~close).sum())
    worst = float(torch.where(close, 0.0, diff).max())
    raise AssertionError(
        msg
        or (
            f"Tensor-likes are not close!\n\nMismatched elements: {bad} / {close.numel()} "
            f"({100.0 * bad / close.numel():.1f}%)\nGreatest absolute difference: {worst} "
            f"(up to {atol} allowed)\nRelative tolerance: {rtol}"
        )
    )


# assert_allclose's own defaults (looser than assert_close's), by dtype
_ALLCLOSE_TOLERANCES = {
    torch.float16: (1e-3, 1e-3),
    torch.float32: (1e-4, 1e-5),
    torch.float64: (1e-5, 1e-8),
}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """The deprecated form of :func:`assert_close` (a FutureWarning says so), still used by
    older tutorials: non-tensors become tensors (``expected`` in ``actual``'s dtype), dtypes
    need not match, NaNs are equal by default, and the default tolerances are looser
    (float32: rtol 1e-4, atol 1e-5)."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a "
        "future release. Please use `torch.testing.assert_close()` instead.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, torch.Tensor):
        actual = torch.tensor(actual)
    if not isinstance(expected, torch.Tensor):
        expected = torch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_TOLERANCES.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_dtype=False,
        msg=msg or None,
    )


def _as_tensor(value):
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, bool):
        return torch.tensor(value, dtype=torch.bool)
    if isinstance(value, int):
        return torch.tensor(value, dtype=torch.int64)
    if isinstance(value, float):
        return torch.tensor(value, dtype=torch.float64)
    raise TypeError(f"assert_close: cannot compare values of type {type(value).__name__}")
