"""Printing tensors the way PyTorch does: ``tensor([1., 2.])``, a dtype suffix when it is
not the default for its kind, and large tensors summarised with ``...``; the module-level
options are what :func:`torch.set_printoptions` sets."""

import math

from torch import _C

PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80
SCI_MODE = None  # None: scientific notation where the values' range calls for it

_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None
):
    """Sets how tensors print, for the rest of the process: ``precision`` (digits after the
    point, default 4), ``threshold`` (more elements than this are summarised with ``...``,
    default 1000), ``edgeitems`` (items kept at each end of a summarised dim, default 3),
    ``linewidth`` (characters per line, default 80). ``profile`` ("default", "short" or
    "full": no summarising) first resets all four; the other arguments then override it.
    ``sci_mode`` True or False forces or forbids scientific notation; None (which every call
    without it sets again) lets the values decide."""
    global PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH, SCI_MODE
    if profile in _PROFILES:
        PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = _PROFILES[profile]
    if precision is not None:
        PRECISION = precision
    if threshold is not None:
        THRESHOLD = threshold
    if edgeitems is not None:
        EDGEITEMS = edgeitems
    if linewidth is not None:
        LINEWIDTH = linewidth
    SCI_MODE = sci_mode


def get_printoptions():
    """The current print options as a dict (set_printoptions' argument names)."""
    return {
        "precision": PRECISION,
        "threshold": THRESHOLD,
        "edgeitems": EDGEITEMS,
        "linewidth": LINEWIDTH,
        "sci_mode": SCI_MODE,
    }


def _summarized_values(t, summarize):
    """The values that will be printed, as nested lists (edges only when summarising)."""
    if t.dim() == 0:
        return t.item()
    n = t.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        idx = list(range(EDGEITEMS)) + [None] + list(range(n - EDGEITEMS, n))
    else:
        idx = list(range(n))
    return [None if i is None else _summarized_values(t[i], summarize) for i in idx]


def _flat(values):
    if isinstance(values, list):
        for v in values:
            yield from _flat(v)
    elif values is not None:
        yield values


class _Formatter:
    def __init__(self, values, floating):
        self.floating = floating
        self.sci = False
        self.int_mode = False
        vals = list(values)
        if floating:  # like PyTorch: only non-zero finite values decide the mode and width
            vals = [v for v in vals if math.isfinite(v) and v != 0]
            self.int_mode = all(v == math.ceil(v) for v in vals)
            if vals:
                lo, hi = min(abs(v) for v in vals), max(abs(v) for v in vals)
                self.sci = hi / lo > 1000.0 or hi > 1e8 or (not self.int_mode and lo < 1e-4)
        if floating and SCI_MODE is not None:
            self.sci = bool(SCI_MODE)
        self.width = max((len(self.raw(v)) for v in vals), default=1)

    def raw(self, v):
        if isinstance(v, bool):
            return str(v)
        if not self.floating:
            return str(v)
        if not math.isfinite(v):
            return str(v)
        if self.sci:
            return f"{v:.{PRECISION}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{PRECISION}f}"

    def __call__(self, v):
        return self.raw(v).rjust(self.width)


class _ComplexFormatter:
    """Real and imaginary parts each formatted as PyTorch does for reals: ``1.5000+2.0000j``."""

    def __init__(self, values):
        vals = list(values)
        self.re = _Formatter([v.real for v in vals], True)
        self.im = _Formatter([v.imag for v in vals], True)
        self.width = max((len(self.raw(v)) for v in vals), default=1)

    def raw(self, v):
        im = self.im.raw(v.imag)
        return self.re(v.real) + ("" if im.startswith("-") else "+") + im + "j"

    def __call__(self, v):  # the real part is padded, the imaginary part is not
        return self.raw(v)


def _format(values, fmt, indent, dim):
    if dim == 0:
        return fmt(values)
    if dim == 1:
        items = [" ..." if v is None else fmt(v) for v in values]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    sep = "," + "\n" * (dim - 1) + " " * (indent + 1)
    parts = ["..." if v is None else _format(v, fmt, indent + 1, dim - 1) for v in values]
    return "[" + sep.join(parts) + "]"


def _default_for_kind(dtype):
    default_complex = _C.complex128 if _C.get_default_dtype() == _C.float64 else _C.complex64
    return dtype in (_C.get_default_dtype(), default_complex, _C.int64, _C.bool)


def tensor_repr(t):
    prefix = "tensor("
    suffixes = []
    if t.is_meta:  # shapes and dtypes, no values
        suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype != _C.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
        body = "..."
    elif t.numel() == 0:
        body = "[]"
        if t.dim() != 1:
            suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype != _C.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
    else:
        summarize = t.numel() > THRESHOLD
        values = _summarized_values(t, summarize)
        flat = _flat(values) if t.dim() else [values]
        if t.dtype.is_complex:
            fmt = _ComplexFormatter(flat)
        else:
            fmt = _Formatter(flat, t.dtype.is_floating_point)
        body = _format(values, fmt, len(prefix), t.dim())
        if not _default_for_kind(t.dtype):
            suffixes.append(f"dtype={t.dtype}")
    if t.device.type != "cpu":
        suffixes.insert(0, f"device='{t.device}'")
    if t.requires_grad and t.grad_fn is None:
        suffixes.append("requires_grad=True")
    elif t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    return _with_suffixes(prefix + body, suffixes, len(prefix))


def _with_suffixes(text, suffixes, indent):
    """``text`` followed by ``, suffix`` for each suffix and the closing parenthesis. A
    suffix that would take the line past LINEWIDTH goes on a line of its own, indented under
    the first value, as PyTorch prints it. Like PyTorch, the first suffix is measured against
    the text's last line plus two columns: it moves down when that line, the suffix and the
    closing parenthesis would take LINEWIDTH columns or more."""
    parts = [text]
    line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)
