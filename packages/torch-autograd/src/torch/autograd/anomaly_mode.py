"""Anomaly detection: nodes remember the full forward stack, and backward checks for NaN."""

from torch.autograd import graph


class detect_anomaly:
    """Context manager/decorator: while on, an error in backward shows the stack of the
    forward call that created the failing node, and a NaN gradient raises."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan

    def __enter__(self):
        self._prev = dict(graph.anomaly)
        graph.anomaly.update(enabled=True, check_nan=self.check_nan)
        return self

    def __exit__(self, *exc):
        graph.anomaly.update(self._prev)
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """``set_detect_anomaly(True)`` switches anomaly mode on (also as a context manager)."""

    def __init__(self, mode, check_nan=True):
        self._prev = dict(graph.anomaly)
        graph.anomaly.update(enabled=bool(mode), check_nan=check_nan)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        graph.anomaly.update(self._prev)
        return False


def is_anomaly_enabled():
    """True inside :class:`detect_anomaly` (or after ``set_detect_anomaly(True)``)."""
    return graph.anomaly["enabled"]


def is_anomaly_check_nan_enabled():
    """True when anomaly detection also checks each backward result for NaN (``check_nan``)."""
    return graph.anomaly["check_nan"]
