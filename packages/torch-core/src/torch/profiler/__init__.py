"""``torch.profiler``: a CPU profiler of the ranges user code marks.

``with torch.profiler.profile() as prof:`` collects, while it is active, every range opened
with ``record_function("name")`` (a context manager or a decorator): its wall-clock start and
duration, measured with ``time.perf_counter_ns``, and its thread. ``prof.key_averages()``
groups them by name (count, total, self and average times; *self* excludes the ranges nested
inside, on the same thread), ``.table(sort_by=..., row_limit=...)`` prints that, and
``export_chrome_trace(path)`` writes the ranges as Chrome-trace JSON (``chrome://tracing``,
Perfetto, TensorBoard). The tensor ops are timed too, each call an ``aten::<name>`` event
(``aten::linear``, ``aten::add`` for ``a + b``; with ``record_shapes=True`` also the shapes
of its tensor arguments, which ``key_averages(group_by_input_shape=True)`` groups by): while
a profiler records, the ops of ``torch``, ``torch.nn.functional``, ``torch.linalg``,
``torch.special``, ``torch.fft`` and the ``Tensor`` methods are timing wrappers
(``_op_events``), and when none records they are the plain functions again. With no
profiler active a ``record_function`` range costs one list test, and nothing else in torch
looks at the profiler.

``torch.ops.profiler._record_function_enter(name)`` (a uint8 handle tensor) or
``_record_function_enter_new(name)`` (a ``_RecordFunction``) opens the same range, and
``torch.ops.profiler._record_function_exit(handle)`` ends it (torch.fx graphs call them).

``schedule(wait=, warmup=, active=, repeat=, skip_first=)`` and ``prof.step()`` profile only
some steps of a loop; ``on_trace_ready`` (e.g. ``tensorboard_trace_handler(dir)``) is called
at the end of each active span. Arguments that need a device or a tracer this build does not
have (``ProfilerActivity.CUDA``, ``profile_memory``, ``with_stack``, ``with_flops``) are
accepted and record nothing more.
"""

import contextlib
import enum
import json
import os
import threading
import time
import weakref

from torch.profiler import _op_events

__all__ = [
    "EventList",
    "FunctionEvent",
    "FunctionEventAvg",
    "ProfilerAction",
    "ProfilerActivity",
    "profile",
    "record_function",
    "schedule",
    "supported_activities",
    "tensorboard_trace_handler",
]

_recording = []  # the profilers collecting ranges now (normally none or one)
_clock = time.perf_counter_ns


class ProfilerActivity(enum.Enum):
    """What a profiler traces: CPU (the ranges of this process); the others are accepted."""

    CPU = 0
    CUDA = 1
    XPU = 2
    MTIA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities():
    """The activities this build traces: ``{ProfilerActivity.CPU}``."""
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    """What a schedule asks of a step: nothing, warm up (not kept), record, or record and
    then hand the trace to ``on_trace_ready``."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """A profiler schedule: after ``skip_first`` steps, cycles of ``wait`` idle steps,
    ``warmup`` steps and ``active`` recorded steps (the last one RECORD_AND_SAVE), ``repeat``
    times (0: without end). Returns ``fn(step) -> ProfilerAction``."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("schedule(): invalid arguments (active must be positive)")

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return action


def _always_record(step):
    return ProfilerAction.RECORD


def _record_op(name, args, start):
    """An op's event (the wrappers of ``_op_events`` call this after each op)."""
    end = _clock()
    tid = threading.get_ident()
    shapes = None
    for prof in _recording:
        if prof.record_shapes and shapes is None:
            shapes = [list(a.shape) if hasattr(a, "shape") else [] for a in args]
        ev = FunctionEvent(name, start, end, tid, shapes if prof.record_shapes else None)
        prof._events.append(ev)


class record_function(contextlib.ContextDecorator):  # noqa: N801  (PyTorch's name)
    """Mark a range of code (``with record_function("load"):`` or ``@record_function("f")``)
    so that an active profiler times it under ``name``."""

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self._start = None

    def __enter__(self):
        self._start = _clock() if _recording else None
        return self

    def __exit__(self, *exc):
        if self._start is not None and _recording:
            end = _clock()
            tid = threading.get_ident()
            for prof in _recording:
                prof._events.append(FunctionEvent(self.name, self._start, end, tid))
        self._start = None
        return False


# ---------------------------------------------------------------------------------------
# torch.ops.profiler._record_function_enter / _enter_new / _exit: a record_function opened
# and closed by two calls (what torch.fx graphs and PyTorch's own record_function call).
class _RecordFunction:
    """The handle ``torch.ops.profiler._record_function_enter_new`` returns (PyTorch's
    ``torch.classes.profiler._RecordFunction``): an open :class:`record_function` range,
    ended by ``_record_function_exit`` or, if never ended, when the handle is dropped."""

    __slots__ = ("_rf", "__weakref__")

    def __init__(self, name, args=None):
        self._rf = record_function(name, args)
        self._rf.__enter__()

    def _end(self):
        rf, self._rf = self._rf, None
        if rf is not None:  # (a second exit ends nothing, as in PyTorch)
            rf.__exit__(None, None, None)

    def __del__(self):
        try:
            self._end()
        except Exception:  # (at interpreter exit the module may be half torn down)
            pass

    def __repr__(self):
        what = f"{self._rf.name!r} open" if self._rf is not None else "ended"
        return f"<torch.profiler._RecordFunction {what}>"


def _check_str(op, arg, value, optional=False):
    if isinstance(value, str) or (optional and value is None):
        return
    want = "str?" if optional else "str"
    raise RuntimeError(
        f"profiler::{op}() Expected a value of type '{want}' for argument '{arg}' but "
        f"instead found type '{type(value).__name__}'."
    )


def _record_function_enter_new(name, args=None):
    """Open a ``record_function(name, args)`` range; returns its :class:`_RecordFunction`."""
    _check_str("_record_function_enter_new", "name", name)
    _check_str("_record_function_enter_new", "args", args, optional=True)
    return _RecordFunction(name, args)


_handles = {}  # key (the bytes of a handle tensor) -> _RecordFunction not yet ended
_last_key = [0]  # the keys handed out are 1.._last_key[0]
_keys_lock = threading.Lock()
_HANDLE_BYTES = 8


def _record_function_enter(name, args=None):
    """Open a ``record_function(name, args)`` range; returns a handle tensor (uint8, as
    PyTorch's) for ``_record_function_exit``. Dropping the handle ends the range."""
    import torch

    _check_str("_record_function_enter", "name", name)
    _check_str("_record_function_enter", "args", args, optional=True)
    with _keys_lock:
        _last_key[0] += 1
        key = _last_key[0]
    handle = torch.tensor(list(key.to_bytes(_HANDLE_BYTES, "little")), dtype=torch.uint8)
    _handles[key] = _RecordFunction(name, args)
    weakref.finalize(handle, _end_handle, key)
    return handle


def _end_handle(key):
    rec = _handles.pop(key, None)
    if rec is not None:
        rec._end()


def _record_function_exit(handle):
    """End the range of a handle from ``_record_function_enter`` (a tensor)."""
    import torch

    if not isinstance(handle, torch.Tensor):
        raise RuntimeError(
            "profiler::_record_function_exit() Expected a value of type 'Tensor' for argument "
            f"'handle' but instead found type '{type(handle).__name__}'."
        )
    key = None
    if handle.dtype == torch.uint8 and tuple(handle.shape) == (_HANDLE_BYTES,):
        key = int.from_bytes(bytes(handle.tolist()), "little")
    if key is None or not 0 < key <= _last_key[0]:
        raise RuntimeError(
            "profiler::_record_function_exit(): the tensor is not a handle returned by "
            "torch.ops.profiler._record_function_enter"
        )
    _end_handle(key)  # (already ended: nothing, as in PyTorch)


def _record_function_exit_record(record):
    """End the range of a :class:`_RecordFunction` from ``_record_function_enter_new``."""
    if not isinstance(record, _RecordFunction):
        raise RuntimeError(
            "profiler::_record_function_exit() Expected a value of type "
            "'__torch__.torch.classes.profiler._RecordFunction' for argument 'record' but "
            f"instead found type '{type(record).__name__}'."
        )
    record._end()


class FunctionEvent:
    """One recorded range or op: ``name``, start and end (ns, ``time.perf_counter_ns``),
    thread, ``input_shapes`` (an op's, with ``record_shapes``); times in microseconds as
    PyTorch reports them (``cpu_time_total``, ``self_cpu_time_total``)."""

    def __init__(self, name, start_ns, end_ns, thread, input_shapes=None):
        self.name, self.key = name, name
        self.start_ns, self.end_ns, self.thread = start_ns, end_ns, thread
        self.self_ns = end_ns - start_ns  # less the nested ranges, set by _nest
        self.count = 1
        self.input_shapes = input_shapes if input_shapes is not None else []

    @property
    def cpu_time_total(self):
        return (self.end_ns - self.start_ns) / 1000.0

    @property
    def self_cpu_time_total(self):
        return self.self_ns / 1000.0

    cpu_time = cpu_time_total
    device_time_total = cuda_time_total = self_device_time_total = self_cuda_time_total = 0.0

    def __repr__(self):
        return f"<FunctionEvent name={self.name} cpu_time_total={self.cpu_time_total:.3f}us>"


class FunctionEventAvg:
    """The events of one name together: ``count``, ``cpu_time_total``,
    ``self_cpu_time_total``, ``cpu_time`` (the average), in microseconds."""

    device_time_total = cuda_time_total = self_device_time_total = self_cuda_time_total = 0.0

    def __init__(self, key, input_shapes=None):
        self.key = key
        self.input_shapes = input_shapes
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, ev):
        self.count += ev.count
        self.cpu_time_total += ev.cpu_time_total
        self.self_cpu_time_total += ev.self_cpu_time_total
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self):
        return (
            f"<FunctionEventAvg key={self.key} count={self.count} "
            f"cpu_time_total={self.cpu_time_total:.3f}us>"
        )


_UNITS = ((1e6, "s"), (1e3, "ms"), (1.0, "us"))


def _fmt_us(us):
    for scale, unit in _UNITS:
        if us >= scale or unit == "us":
            return f"{us / scale:.3f}{unit}"


class EventList(list):
    """A list of events (or of their averages) that prints as a table."""

    def key_averages(self, group_by_input_shape=False):
        """The events grouped by name (and by the shapes of their inputs), in order of first
        appearance."""
        groups = {}
        for ev in self:
            shapes = ev.input_shapes if group_by_input_shape else None
            key = (ev.key, str(shapes)) if group_by_input_shape else ev.key
            if key not in groups:
                groups[key] = FunctionEventAvg(ev.key, shapes)
            groups[key].add(ev)
        return EventList(groups.values())

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, **kwargs):
        """The rows as text: name, self CPU %, self CPU, CPU total %, CPU total, CPU time
        avg and number of calls, sorted by the attribute ``sort_by`` (descending; e.g.
        ``"cpu_time_total"``, ``"self_cpu_time_total"``, ``"count"``), at most ``row_limit``
        rows (negative: all)."""
        rows = list(self)
        if sort_by is not None:
            rows.sort(key=lambda e: getattr(e, sort_by, 0) or 0, reverse=True)
        if row_limit is not None and row_limit >= 0:
            rows = rows[:row_limit]
        total_self = sum(e.self_cpu_time_total for e in self) or 1.0
        width = max([len("Name")] + [min(len(str(e.key)), max_name_column_width) for e in rows])
        heads = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
        # averages grouped by input shape get a column of them
        with_shapes = any(getattr(e, "input_shapes", None) is not None for e in rows) and all(
            isinstance(e, FunctionEventAvg) for e in rows
        )
        line = "-" * width + "  " + "  ".join("-" * 12 for _ in heads)
        head = f"{'Name':>{width}}  " + "  ".join(f"{h:>12}" for h in heads)
        if with_shapes:
            line, head = line + "  " + "-" * 40, head + "  Input Shapes"
        out = [line, head, line]
        for e in rows:
            name = str(e.key)[:max_name_column_width]
            cells = [
                f"{100.0 * e.self_cpu_time_total / total_self:.2f}%",
                _fmt_us(e.self_cpu_time_total),
                f"{100.0 * e.cpu_time_total / total_self:.2f}%",
                _fmt_us(e.cpu_time_total),
                _fmt_us(e.cpu_time_total / max(e.count, 1)),
                str(e.count),
            ]
            row = f"{name:>{width}}  " + "  ".join(f"{c:>12}" for c in cells)
            if with_shapes:
                row += "  " + str(e.input_shapes if e.input_shapes is not None else [])
            out.append(row)
        out.append(line)
        out.append(f"Self CPU time total: {_fmt_us(total_self if self else 0.0)}")
        return "\n".join(out) + "\n"

    def __str__(self):
        return self.table()

    def export_chrome_trace(self, path):
        """Write the events (not averages) as Chrome-trace JSON."""
        pid = os.getpid()
        base = min((e.start_ns for e in self), default=0)
        trace = [
            {
                "ph": "X",
                "cat": "cpu_op" if e.name.startswith("aten::") else "user_annotation",
                "name": e.name,
                "pid": pid,
                "tid": e.thread,
                "ts": (e.start_ns - base) / 1000.0,
                "dur": (e.end_ns - e.start_ns) / 1000.0,
            }
            for e in self
        ]
        with open(path, "w") as f:
            json.dump({"traceEvents": trace, "displayTimeUnit": "ms"}, f)


def _nest(events):
    """Set each event's self time: its time less that of the ranges directly inside it."""
    by_thread = {}
    for ev in events:
        by_thread.setdefault(ev.thread, []).append(ev)
    for evs in by_thread.values():
        evs.sort(key=lambda e: (e.start_ns, -e.end_ns))
        stack = []
        for ev in evs:
            ev.self_ns = ev.end_ns - ev.start_ns
            while stack and stack[-1].end_ns <= ev.start_ns:
                stack.pop()
            if stack and ev.end_ns <= stack[-1].end_ns:
                stack[-1].self_ns -= ev.end_ns - ev.start_ns
            stack.append(ev)


class profile:  # noqa: N801  (PyTorch's name)
    """Collect the ``record_function`` ranges and the ops run while it is active (see the
    module).

    ``schedule``: ``fn(step) -> ProfilerAction`` (see :func:`schedule`), advanced by
    :meth:`step`; without one every step is recorded. ``on_trace_ready(prof)`` is called when
    an active span ends (a RECORD_AND_SAVE step is left, or the profiler stops while
    recording). ``record_shapes``: each op event keeps its inputs' shapes. ``activities``,
    ``profile_memory``, ``with_stack``, ``with_flops``, ``with_modules`` and
    ``experimental_config`` are accepted."""

    def __init__(
        self,
        *,
        activities=None,
        schedule=None,
        on_trace_ready=None,
        record_shapes=False,
        profile_memory=False,
        with_stack=False,
        with_flops=False,
        with_modules=False,
        experimental_config=None,
        execution_trace_observer=None,
        acc_events=False,
        use_cuda=None,
        enabled=True,
        **kwargs,
    ):
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack, self.with_flops, self.with_modules = with_stack, with_flops, with_modules
        self.enabled = enabled
        self.step_num = 0
        self._events = []
        self._saved = []  # the events of the last finished span
        self._action = ProfilerAction.NONE
        self._running = False

    # ------------------------------------------------------------------ control
    def start(self):
        """Begin profiling (what ``with`` calls)."""
        self._running = True
        self._enter(self.schedule(self.step_num) if self.enabled else ProfilerAction.NONE)

    def stop(self):
        """End profiling; a span still recording is handed to ``on_trace_ready``."""
        if not self._running:
            return
        was = self._action
        self._enter(ProfilerAction.NONE)
        if was in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._finish_span()
        self._running = False

    def step(self):
        """Mark the end of a training step: the schedule decides what the next one does."""
        if not self._running:
            return
        was = self._action
        self.step_num += 1
        now = self.schedule(self.step_num) if self.enabled else ProfilerAction.NONE
        if was == ProfilerAction.WARMUP and now != ProfilerAction.WARMUP:
            self._events = []  # warm-up events are not kept
        self._enter(now)
        if was == ProfilerAction.RECORD_AND_SAVE:
            self._finish_span()

    def _enter(self, action):
        collecting = action != ProfilerAction.NONE
        if collecting and self not in _recording:
            _recording.append(self)
            _op_events.install(_recording, _clock, _record_op)
        elif not collecting and self in _recording:
            _recording.remove(self)
            if not _recording:
                _op_events.uninstall()
        self._action = action

    def _finish_span(self):
        events, self._events = self._events, []
        _nest(events)
        self._saved = events
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    # ------------------------------------------------------------------ results
    def events(self):
        """The ranges of the last recorded span (those being recorded, while it runs)."""
        events = self._saved if not self._events else self._events
        _nest(events)
        return EventList(events)

    @property
    def function_events(self):
        return self.events()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, **kwargs):
        """The events grouped by name, and by their input shapes with
        ``group_by_input_shape`` (see :class:`EventList`)."""
        return self.events().key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit=100, **kwargs):
        """``key_averages().table(...)``."""
        return self.key_averages().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def export_chrome_trace(self, path):
        """Write the recorded ranges to ``path`` as Chrome-trace JSON."""
        self.events().export_chrome_trace(path)

    def __str__(self):
        return self.key_averages().table()


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes each span's trace to
    ``dir_name/<worker_name>.<timestamp>.pt.trace.json`` (``.gz`` with ``use_gzip``), as
    TensorBoard's profiler plugin reads them; ``worker_name`` defaults to host and pid."""

    def handler(prof):
        import socket

        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{worker}.{time.time_ns()}.pt.trace.json")
        prof.export_chrome_trace(path)
        if use_gzip:
            import gzip

            with open(path, "rb") as f, gzip.open(path + ".gz", "wb") as g:
                g.write(f.read())
            os.remove(path)

    return handler
