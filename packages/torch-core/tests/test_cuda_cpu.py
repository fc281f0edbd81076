"""torch.cuda on a machine without a GPU, as PyTorch behaves there.

The expected values are PyTorch 2.13's on a machine without CUDA (its CPU wheel, run side
by side). Where PyTorch raises, it raises AssertionError ("Torch not compiled with CUDA
enabled") on a CPU build and RuntimeError on a CUDA build without a driver; the tests
accept either, and check that ours is both.
"""

import collections
import types
import weakref

import pytest

import torch

NO_CUDA = (AssertionError, RuntimeError)


def test_first_line_of_every_program_picks_the_cpu():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    assert device == torch.device("cpu")
    assert torch.zeros(2, device=device).device.type == "cpu"


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: torch.cuda.is_available(), False),
        (lambda: torch.cuda.device_count(), 0),
        (lambda: torch.cuda.is_initialized(), False),
        (lambda: torch.cuda.is_bf16_supported(), False),
        (lambda: torch.cuda.get_arch_list(), []),
        (lambda: torch.cuda.get_gencode_flags(), ""),
        (lambda: torch.version.cuda, None),
        # seeding without a GPU does nothing (PyTorch queues it until CUDA starts)
        (lambda: torch.cuda.manual_seed(1), None),
        (lambda: torch.cuda.manual_seed_all(1), None),
        (lambda: torch.cuda.seed(), None),
        (lambda: torch.cuda.seed_all(), None),
        (lambda: torch.cuda.get_rng_state_all(), []),
        (lambda: torch.cuda.set_rng_state(torch.zeros(8, dtype=torch.uint8)), None),
        (lambda: torch.cuda.set_rng_state_all([]), None),
        # the memory counters read 0
        (lambda: torch.cuda.memory_allocated(), 0),
        (lambda: torch.cuda.max_memory_allocated(), 0),
        (lambda: torch.cuda.memory_reserved(), 0),
        (lambda: torch.cuda.max_memory_reserved(), 0),
        (lambda: torch.cuda.memory_allocated(0), 0),
        (lambda: torch.cuda.memory_stats(), collections.OrderedDict()),
        (lambda: torch.cuda.empty_cache(), None),
        (lambda: torch.cuda.set_device(-1), None),  # a negative index selects nothing
    ],
)
def test_answers_without_a_gpu(call, expected):
    assert call() == expected


def test_seeding_still_wants_an_int():
    with pytest.raises(ValueError):
        torch.cuda.manual_seed("not a seed")


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.cuda.current_device(),
        lambda: torch.cuda.get_device_name(),
        lambda: torch.cuda.get_device_name(0),
        lambda: torch.cuda.get_device_properties(0),
        lambda: torch.cuda.get_device_capability(),
        lambda: torch.cuda.synchronize(),
        lambda: torch.cuda.init(),
        lambda: torch.cuda.initial_seed(),
        lambda: torch.cuda.get_rng_state(),
        lambda: torch.cuda.mem_get_info(),
        lambda: torch.cuda.current_stream(),
        lambda: torch.cuda.default_stream(),
        lambda: torch.cuda.ipc_collect(),
        lambda: torch.cuda.set_per_process_memory_fraction(0.5),
        lambda: torch.cuda.Stream(),
        lambda: torch.cuda.Event(),
        lambda: torch.cuda.device(0).__enter__(),
    ],
)
def test_what_needs_a_gpu_raises(call):
    with pytest.raises(NO_CUDA):
        call()


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.zeros(2, device="cuda"),
        lambda: torch.ones(2, 3, device="cuda:0"),
        lambda: torch.empty(2, device="cuda"),
        lambda: torch.randn(2, device="cuda"),
        lambda: torch.rand(2, device=torch.device("cuda")),
        lambda: torch.randint(0, 5, (3,), device="cuda"),
        lambda: torch.arange(3, device="cuda"),
        lambda: torch.full((2,), 1.0, device="cuda"),
        lambda: torch.tensor([1.0, 2.0], device="cuda"),
        lambda: torch.eye(2, device="cuda"),
        lambda: torch.zeros_like(torch.ones(2), device="cuda"),
        lambda: torch.empty_like(torch.ones(2), device="cuda"),
        lambda: torch.ones(2).new_zeros(3, device="cuda"),
        lambda: torch.ones(2).new_empty(3, device="cuda"),
        lambda: torch.ones(2).new_full((3,), 2.0, device="cuda"),
        lambda: torch.ones(2).new_tensor([1, 2], device="cuda"),
        lambda: torch.ones(2).cuda(),
        lambda: torch.ones(2).cuda(0),
        lambda: torch.ones(2).to("cuda"),
        lambda: torch.ones(2).to(torch.device("cuda", 0)),
        lambda: torch.ones(2).to("cuda", torch.float64),
        lambda: torch.ones(2).pin_memory(),
    ],
)
def test_cuda_tensors_cannot_be_made(make):
    with pytest.raises(NO_CUDA):
        make()


@pytest.mark.ours_only
def test_the_error_is_pytorchs_and_says_what_to_do():
    with pytest.raises(RuntimeError) as info:
        torch.zeros(2, device="cuda")
    assert isinstance(info.value, AssertionError)  # as PyTorch's CPU builds raise
    message = str(info.value)
    assert message.startswith("Torch not compiled with CUDA enabled")
    assert "create a tensor on cuda" in message and "torch.cuda.is_available()" in message
    with pytest.raises(RuntimeError, match="move a tensor to cuda:0"):
        torch.ones(2).to("cuda:0")


def test_cpu_tensors_report_no_gpu():
    x = torch.ones(2)
    assert not x.is_cuda and not x.is_pinned() and x.get_device() == -1
    assert x.cpu() is x and x.to("cpu") is x


def test_device_contexts_that_select_no_gpu_do_nothing():
    with torch.cuda.device(-1):
        pass
    with torch.cuda.device_of(torch.ones(1)):
        pass
    with torch.cuda.stream(None):
        pass
    assert torch.cuda.device("cuda:1").idx == 1


def test_out_of_memory_error_is_a_runtime_error():
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    assert issubclass(torch.OutOfMemoryError, RuntimeError)


def test_renamed_memory_counters_warn():
    with pytest.warns(FutureWarning, match="memory_reserved"):
        assert torch.cuda.memory_cached() == 0
    with pytest.warns(FutureWarning, match="max_memory_reserved"):
        assert torch.cuda.max_memory_cached() == 0


@pytest.mark.filterwarnings("ignore::FutureWarning")  # PyTorch: "use torch.amp instead"
def test_amp_is_disabled_and_training_code_runs_unchanged():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        scaler = torch.cuda.amp.GradScaler()
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0
    loss = torch.tensor(3.0)
    assert scaler.scale(loss) is loss

    class Optimizer:
        steps = 0

        def step(self):
            self.steps += 1

    opt = Optimizer()
    scaler.unscale_(opt)
    scaler.step(opt)
    scaler.update()
    assert opt.steps == 1 and scaler.state_dict() == {}

    with pytest.warns(UserWarning, match="CUDA is not available"):
        region = torch.cuda.amp.autocast()
    with region:
        assert (torch.ones(2) * 2).dtype == torch.float32
    with torch.cuda.amp.autocast(enabled=False):  # asked off: no warning
        pass
    ctx = types.SimpleNamespace()  # what a custom Function's forward/backward receive
    forward = torch.cuda.amp.custom_fwd(lambda ctx, x: x + 1)
    backward = torch.cuda.amp.custom_bwd(lambda ctx, g: g * 2)
    assert forward(ctx, 1) == 2 and backward(ctx, 3) == 6


def test_reachable_without_importing():
    import importlib
    import subprocess
    import sys

    code = "import torch; print(torch.cuda.is_available(), torch.cuda.amp.GradScaler)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("False")
    assert importlib.import_module("torch.cuda") is torch.cuda


def test_accelerator_reports_none():
    assert torch.accelerator.is_available() is False
    assert torch.accelerator.current_accelerator() is None
    assert torch.accelerator.device_count() == 0
    for call in (torch.accelerator.current_device_index, torch.accelerator.synchronize):
        with pytest.raises(RuntimeError):
            call()
    use_accel = torch.accelerator.is_available()
    device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
    assert device.type == "cpu"


# ---------------------------------------------------------------- what the error says is missing
# The loader's failures, simulated: torch.cuda's load state is reset for each test (and
# restored after it), and torch.cuda's view of the core (`torch.cuda._C`) is replaced by
# a stand-in that answers the CUDA binding calls as the core would.
@pytest.fixture
def fresh_cuda(monkeypatch):
    c = torch.cuda
    for name, value in (
        ("_load_reason", None),
        ("_initialized", False),
        ("_device_count", 0),
        ("_in_bad_fork", False),
        ("_queued", collections.OrderedDict()),
        ("_properties", {}),
        ("_accumulated_base", {}),
        ("_stream_priorities", {}),
        ("_streams", weakref.WeakValueDictionary()),
        ("_current_refs", {}),
    ):
        monkeypatch.setattr(c, name, value)
    return c


class _CoreWith:
    """The real core plus the given attributes (the CUDA binding functions)."""

    def __init__(self, **functions):
        self.__dict__.update(functions)

    def __getattr__(self, name):
        return getattr(torch._C, name)


class _CoreWithout:
    """The real core without its CUDA binding functions (a build without the backend)."""

    def __getattr__(self, name):
        if name.startswith("_cuda_"):
            raise AttributeError(name)
        return getattr(torch._C, name)


def _fails_with(cuda, *needles):
    assert cuda.is_available() is False and cuda.device_count() == 0
    assert cuda.get_arch_list() == [] and not cuda.is_bf16_supported()
    for make in (
        lambda: torch.zeros(2, device="cuda"),
        lambda: torch.ones(2).to("cuda"),
        lambda: torch.ones(2).pin_memory(),
        lambda: cuda.current_device(),
    ):
        with pytest.raises(RuntimeError) as info:
            make()
        assert isinstance(info.value, AssertionError)
        message = str(info.value)
        assert message.startswith("Torch not compiled with CUDA enabled"), message
        for needle in needles:
            assert needle in message, message
    return message


@pytest.mark.ours_only
def test_error_names_a_build_without_the_backend(fresh_cuda, monkeypatch):
    monkeypatch.setattr(fresh_cuda, "_C", _CoreWithout())
    _fails_with(fresh_cuda, "only the CPU backend")


@pytest.mark.ours_only
def test_error_names_a_missing_driver(fresh_cuda, monkeypatch):
    def load(*args):
        raise AssertionError("the core must not be asked to load without a driver")

    monkeypatch.setattr(fresh_cuda, "_C", _CoreWith(_cuda_load=load))
    monkeypatch.setattr(
        fresh_cuda._libs,
        "driver_problem",
        lambda driver="libcuda.so.1": "libcuda.so.1: cannot open shared object file",
    )
    _fails_with(fresh_cuda, "no NVIDIA driver", "libcuda.so.1")


@pytest.mark.ours_only
def test_error_names_a_machine_without_a_gpu(fresh_cuda, monkeypatch):
    fake = _CoreWith(_cuda_load=lambda *a: "cuInit failed: CUDA_ERROR_NO_DEVICE (100)")
    monkeypatch.setattr(fresh_cuda, "_C", fake)
    monkeypatch.setattr(fresh_cuda._libs, "driver_problem", lambda driver=None: None)
    _fails_with(fresh_cuda, "no CUDA GPU", "CUDA_ERROR_NO_DEVICE")


@pytest.mark.ours_only
def test_error_names_a_driver_that_sees_no_device(fresh_cuda, monkeypatch):
    fake = _CoreWith(_cuda_load=lambda *a: "", _cuda_device_count=lambda: 0)
    monkeypatch.setattr(fresh_cuda, "_C", fake)
    monkeypatch.setattr(fresh_cuda._libs, "driver_problem", lambda driver=None: None)
    _fails_with(fresh_cuda, "no CUDA GPU")


@pytest.mark.ours_only
@pytest.mark.parametrize("lib, human", [("libnvrtc.so.13", "NVRTC"), ("libcublas.so.13", "cuBLAS")])
def test_error_names_missing_nvrtc_or_cublas_and_the_pip_command(
    fresh_cuda, monkeypatch, tmp_path, lib, human
):
    fake = _CoreWith(_cuda_load=lambda *a: f"{lib}: cannot open shared object file")
    monkeypatch.setattr(fresh_cuda, "_C", fake)
    monkeypatch.setattr(fresh_cuda._libs, "driver_problem", lambda driver=None: None)
    real_find = fresh_cuda._libs.find
    monkeypatch.setattr(
        fresh_cuda._libs,
        "find",
        lambda: real_find(search_path=[], environ={}, use_pathfinder=False),
    )
    monkeypatch.setattr(fresh_cuda._libs, "_DEFAULT_TOOLKIT", str(tmp_path))
    _fails_with(fresh_cuda, human, lib, 'pip install "torch-core[cuda]"')


@pytest.mark.ours_only
def test_is_available_never_raises(fresh_cuda, monkeypatch):
    def load(*args):
        raise OSError("something odd")

    monkeypatch.setattr(fresh_cuda, "_C", _CoreWith(_cuda_load=load))
    monkeypatch.setattr(fresh_cuda._libs, "driver_problem", lambda driver=None: None)
    assert fresh_cuda.is_available() is False
    _fails_with(fresh_cuda, "something odd")


@pytest.mark.ours_only
def test_loading_happens_once_across_threads(fresh_cuda, monkeypatch):
    import threading
    import time

    calls = []

    def load(*args):
        calls.append(args)
        time.sleep(0.05)
        return "cuInit failed: CUDA_ERROR_NO_DEVICE (100)"

    monkeypatch.setattr(fresh_cuda, "_C", _CoreWith(_cuda_load=load))
    monkeypatch.setattr(fresh_cuda._libs, "driver_problem", lambda driver=None: None)
    answers = []
    threads = [
        threading.Thread(target=lambda: answers.append(fresh_cuda.is_available())) for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [False] * 8 and len(calls) == 1
    assert calls[0][0] == "libcuda.so.1"
    fresh_cuda.is_available()
    assert len(calls) == 1


# ---------------------------------------------------------------- the module over a stand-in GPU
class _FakeGpus:
    """What the core's CUDA bindings answer, for two simulated GPUs (no tensors)."""

    def __init__(self):
        self.current = 0
        self.streams = {0: None}
        self.current_stream = {0: 0, 1: 0}
        self.events = {}
        self.next_handle = 0x1000
        self.seeds = {0: [67280421310721, 0], 1: [67280421310721, 0]}
        self.peak_reset = []
        self.log = []

    def bind(self):
        names = [n for n in dir(self) if n.startswith("_cuda_")]
        return _CoreWith(**{n: getattr(self, n) for n in names})

    def _handle(self):
        self.next_handle += 0x10
        return self.next_handle

    def _cuda_load(self, driver, nvrtc, cublas):
        self.log.append(("load", driver))
        return ""

    def _cuda_device_count(self):
        return 2

    def _cuda_current_device(self):
        return self.current

    def _cuda_set_device(self, i):
        assert 0 <= i < 2
        self.current = i

    def _cuda_device_name(self, i):
        return f"Fake GPU {i}"

    def _cuda_device_capability(self, i):
        return (9, 0) if i == 0 else (7, 5)

    def _cuda_device_total_memory(self, i):
        return 80 * 2**30

    def _cuda_device_sm_count(self, i):
        return 132

    def _cuda_mem_get_info(self, i):
        return (70 * 2**30, 80 * 2**30)

    def _cuda_synchronize(self, i):
        self.log.append(("synchronize", i))

    def _cuda_memory_stats(self, i):
        return {
            "allocated": 1024,
            "peak_allocated": 4096,
            "reserved": 2**21,
            "peak_reserved": 2**22,
            "num_alloc_retries": 1,
            "num_ooms": 2,
            "num_allocs": 10,
            "num_frees": 7,
        }

    def _cuda_reset_peak_stats(self, i):
        self.peak_reset.append(i)

    def _cuda_empty_cache(self):
        self.log.append(("empty_cache",))

    def _cuda_stream_create(self, priority=0):
        h = self._handle()
        self.streams[h] = (self.current, priority)
        return h

    def _cuda_stream_destroy(self, h):
        del self.streams[h]

    def _cuda_stream_synchronize(self, h):
        self.log.append(("stream_synchronize", h))

    def _cuda_stream_query(self, h):
        return True

    def _cuda_current_stream(self):
        return self.current_stream[self.current]

    def _cuda_set_stream(self, h):
        self.current_stream[self.current] = h

    def _cuda_stream_wait_event(self, s, e):
        self.log.append(("wait", s, e))

    def _cuda_event_create(self, enable_timing):
        h = self._handle()
        self.events[h] = [enable_timing, None]
        return h

    def _cuda_event_destroy(self, h):
        del self.events[h]

    def _cuda_event_record(self, e, s):
        self.events[e][1] = s

    def _cuda_event_synchronize(self, h):
        self.log.append(("event_synchronize", h))

    def _cuda_event_query(self, h):
        return True

    def _cuda_event_elapsed_ms(self, a, b):
        return 1.5

    def _cuda_manual_seed(self, seed):
        for i in self.seeds:
            self.seeds[i] = [seed, 0]

    def _cuda_initial_seed(self):
        return self.seeds[self.current][0]

    def _cuda_get_rng_state(self):
        import struct

        return struct.pack("<QQ", *self.seeds[self.current])

    def _cuda_set_rng_state(self, b):
        import struct

        assert isinstance(b, bytes) and len(b) == 16
        self.seeds[self.current] = list(struct.unpack("<QQ", b))


@pytest.fixture
def gpus(fresh_cuda, monkeypatch):
    fake = _FakeGpus()
    monkeypatch.setattr(fresh_cuda, "_C", fake.bind())
    monkeypatch.setattr(fresh_cuda._libs, "driver_problem", lambda driver=None: None)
    return fake


@pytest.mark.ours_only
def test_device_queries_over_the_bindings(gpus):
    cuda = torch.cuda
    assert cuda.is_available() and cuda.device_count() == 2 and not cuda.is_initialized()
    assert cuda.memory_allocated() == 0 and cuda.memory_stats() == {}  # not initialised yet
    assert cuda.current_device() == 0 and cuda.is_initialized()
    props = cuda.get_device_properties(0)
    assert (props.name, props.major, props.minor) == ("Fake GPU 0", 9, 0)
    assert props.total_memory == 80 * 2**30 and props.multi_processor_count == 132
    assert repr(props) == (
        "_CudaDeviceProperties(name='Fake GPU 0', major=9, minor=0, total_memory=81920MB, "
        "multi_processor_count=132)"
    )
    assert cuda.get_device_name(1) == "Fake GPU 1"
    assert cuda.get_device_name("cuda:1") == "Fake GPU 1"
    assert cuda.get_device_capability(torch.device("cuda", 1)) == (7, 5)
    assert cuda.is_bf16_supported()
    assert cuda.get_arch_list() == ["sm_75", "sm_80", "sm_90"]
    assert cuda.mem_get_info() == (70 * 2**30, 80 * 2**30)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        cuda.get_device_name(2)
    with pytest.raises(ValueError, match="Expected a cuda device"):
        cuda.get_device_name("cpu")
    cuda.synchronize(1)
    assert ("synchronize", 1) in gpus.log and gpus.current == 0


@pytest.mark.ours_only
def test_device_selection_and_contexts(gpus):
    cuda = torch.cuda
    cuda.set_device(1)
    assert cuda.current_device() == 1
    with cuda.device(0):
        assert cuda.current_device() == 0
        with cuda.device("cuda:1"):
            assert cuda.current_device() == 1
        assert cuda.current_device() == 0
    assert cuda.current_device() == 1
    cuda.set_device(-1)
    assert cuda.current_device() == 1
    cuda.set_device("cuda:0")
    assert cuda.current_device() == 0
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        cuda.set_device(5)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        cuda.device(3).__enter__()


@pytest.mark.ours_only
def test_memory_counters_use_pytorchs_names(gpus):
    cuda = torch.cuda
    cuda.init()
    stats = cuda.memory_stats()
    assert list(stats) == sorted(stats)
    assert stats["allocated_bytes.all.current"] == cuda.memory_allocated() == 1024
    assert stats["allocated_bytes.all.peak"] == cuda.max_memory_allocated() == 4096
    assert stats["reserved_bytes.all.current"] == cuda.memory_reserved(0) == 2**21
    assert stats["reserved_bytes.all.peak"] == cuda.max_memory_reserved("cuda:0") == 2**22
    assert stats["num_alloc_retries"] == 1 and stats["num_ooms"] == 2
    assert stats["allocation.all.current"] == 3 and stats["allocation.all.allocated"] == 10
    cuda.reset_accumulated_memory_stats()
    stats = cuda.memory_stats()
    assert stats["num_ooms"] == 0 and stats["allocation.all.allocated"] == 0
    assert stats["allocation.all.current"] == 3
    cuda.reset_peak_memory_stats(1)
    with pytest.warns(FutureWarning):
        cuda.reset_max_memory_allocated()
    assert gpus.peak_reset == [1, 0]
    summary = cuda.memory_summary()
    assert "Fake GPU 0" in summary and "allocated" in summary and "4.00 KiB" in summary
    cuda.empty_cache()
    assert ("empty_cache",) in gpus.log
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        cuda.memory_stats(7)


@pytest.mark.ours_only
def test_seeding_before_cuda_starts_is_applied_when_it_does(gpus):
    cuda = torch.cuda
    cuda.manual_seed_all(123)
    cuda.manual_seed(7)  # the current device only
    assert gpus.seeds[0][0] != 7  # queued: CUDA has not started
    cuda.init()
    assert gpus.seeds == {0: [7, 0], 1: [123, 0]}
    assert cuda.initial_seed() == 7
    state = cuda.get_rng_state()
    assert state.dtype == torch.uint8 and state.shape == (16,)
    assert bytes(state.tolist()) == (7).to_bytes(8, "little") + bytes(8)
    assert [bytes(s.tolist())[:8] for s in cuda.get_rng_state_all()] == [
        (7).to_bytes(8, "little"),
        (123).to_bytes(8, "little"),
    ]
    cuda.manual_seed_all(-1)  # negative seeds wrap, as in PyTorch
    assert gpus.seeds[1] == [2**64 - 1, 0]
    cuda.set_rng_state(state, 1)
    assert gpus.seeds[1] == [7, 0]
    cuda.set_rng_state_all([state, state])
    with pytest.raises(TypeError, match="ByteTensor"):
        cuda.set_rng_state(torch.zeros(16))
    cuda.seed_all()
    assert gpus.seeds[0] == [gpus.seeds[1][0], 0]


@pytest.mark.ours_only
def test_streams_and_events(gpus):
    cuda = torch.cuda
    default = cuda.current_stream()
    assert default == cuda.default_stream() and default.cuda_stream == 0
    assert default.device == torch.device("cuda", 0) and default.priority == 0
    s = cuda.Stream(priority=-1)
    assert s.priority == -1 and s != default and hash(s) != hash(default)
    assert s.query() is True
    with cuda.stream(s):
        assert cuda.current_stream() == s and cuda.current_stream() is s
        assert cuda.current_stream().priority == -1
    assert cuda.current_stream() == default
    s1 = cuda.Stream(device=1)
    with cuda.stream(s1):  # switches the device too, and restores both
        assert cuda.current_device() == 1 and cuda.current_stream() == s1
    assert cuda.current_device() == 0 and cuda.current_stream(1) == cuda.default_stream(1)

    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    assert start.query() is True  # never recorded
    start.record()
    end.record(s)
    assert start.elapsed_time(end) == 1.5
    untimed = cuda.Event()
    untimed.record()
    with pytest.raises(RuntimeError, match="enable_timing"):
        untimed.elapsed_time(end)
    with pytest.raises(RuntimeError, match="recorded"):
        cuda.Event(enable_timing=True).elapsed_time(end)
    with pytest.raises(RuntimeError, match="does not match"):
        untimed.record(s1)
    s.wait_event(untimed)
    assert ("wait", s.cuda_stream, untimed.cuda_event) in gpus.log
    event = s.record_event()
    assert gpus.events[event.cuda_event][1] == s.cuda_stream
    default.wait_stream(s)
    event.synchronize()
    s.synchronize()

    handle = s.cuda_stream
    del s, event
    import gc

    gc.collect()
    assert handle not in gpus.streams  # a Stream destroys its stream when collected


@pytest.mark.ours_only
def test_set_stream_keeps_a_temporary_stream_alive(gpus):
    cuda = torch.cuda
    cuda.set_stream(cuda.Stream())
    import gc

    gc.collect()
    current = cuda.current_stream()
    assert current.cuda_stream in gpus.streams
    cuda.set_stream(cuda.default_stream())


# ---------------------------------------------------------------- finding the libraries
def _touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x7fELF")
    return str(path)


@pytest.fixture
def libs(monkeypatch, tmp_path):
    """torch.cuda._libs with no real toolkit in its way (the default one is a temp dir)."""
    from torch.cuda import _libs

    monkeypatch.setattr(_libs, "_DEFAULT_TOOLKIT", str(tmp_path / "usr-local-cuda"))
    return _libs


@pytest.mark.ours_only
def test_libs_prefer_cuda_pathfinder(libs, monkeypatch, tmp_path):
    import sys

    found = _touch(tmp_path / "pf" / "libnvrtc.so.13")
    pathfinder = types.ModuleType("cuda.pathfinder")
    asked = []

    def load_nvidia_dynamic_lib(name):
        asked.append(name)
        if name != "nvrtc":
            raise RuntimeError(f"{name} not found")
        return types.SimpleNamespace(abs_path=found)

    pathfinder.load_nvidia_dynamic_lib = load_nvidia_dynamic_lib
    package = types.ModuleType("cuda")
    package.pathfinder = pathfinder
    monkeypatch.setitem(sys.modules, "cuda", package)
    monkeypatch.setitem(sys.modules, "cuda.pathfinder", pathfinder)
    wheel = _touch(tmp_path / "site" / "nvidia" / "cu13" / "lib" / "libnvrtc.so.13")
    lib = libs.find_library("nvrtc", search_path=[str(tmp_path / "site")], environ={})
    assert (lib.path, lib.via, lib.found) == (found, "cuda.pathfinder", True)
    assert wheel  # the wheel lost to cuda.pathfinder
    lib = libs.find_library("cublas", search_path=[], environ={})
    assert lib.via == "soname" and lib.path == "libcublas.so.13"
    assert "cublas not found" in lib.describe()
    assert asked == ["nvrtc", "cublas"]


@pytest.mark.ours_only
def test_libs_search_the_wheels_on_sys_path(libs, monkeypatch, tmp_path):
    import sys

    old = tmp_path / "old-site"
    new = tmp_path / "new-site"
    _touch(old / "nvidia" / "cuda_nvrtc" / "lib" / "libnvrtc.so.13")
    _touch(old / "nvidia" / "cublas" / "lib" / "libcublas.so.13")
    found = libs.find(search_path=[str(tmp_path / "nothing"), str(old)], use_pathfinder=False)
    assert found.nvrtc.path == str(old / "nvidia" / "cuda_nvrtc" / "lib" / "libnvrtc.so.13")
    assert found.cublas.path == str(old / "nvidia" / "cublas" / "lib" / "libcublas.so.13")
    assert found.nvrtc.via == found.cublas.via == "wheel" and found.missing() == []
    # the CUDA 13 layout wins within a folder, and earlier sys.path entries win
    _touch(old / "nvidia" / "cu13" / "lib" / "libnvrtc.so.13")
    _touch(new / "nvidia" / "cu13" / "lib" / "libcublas.so.13")
    found = libs.find(search_path=[str(new), str(old)], use_pathfinder=False)
    assert found.nvrtc.path == str(old / "nvidia" / "cu13" / "lib" / "libnvrtc.so.13")
    assert found.cublas.path == str(new / "nvidia" / "cu13" / "lib" / "libcublas.so.13")
    # sys.path by default
    monkeypatch.setattr(sys, "path", [str(new)])
    lib = libs.find_library("cublas", environ={}, use_pathfinder=False)
    assert lib.path == str(new / "nvidia" / "cu13" / "lib" / "libcublas.so.13")
    assert found.args() == ("libcuda.so.1", found.nvrtc.path, found.cublas.path)


@pytest.mark.ours_only
def test_libs_fall_back_to_a_toolkit_then_the_soname(libs, monkeypatch, tmp_path):
    home = tmp_path / "cuda-home"
    default = tmp_path / "usr-local-cuda"
    _touch(default / "lib64" / "libnvrtc.so.13")
    _touch(default / "lib64" / "libcublas.so.13.1.0.3")  # a versioned file counts
    _touch(home / "lib64" / "libnvrtc.so.13")
    env = {"CUDA_HOME": str(home)}
    found = libs.find(search_path=[], environ=env, use_pathfinder=False)
    assert found.nvrtc.path == str(home / "lib64" / "libnvrtc.so.13")  # $CUDA_HOME first
    assert found.cublas.path == str(default / "lib64" / "libcublas.so.13.1.0.3")
    assert found.nvrtc.via == found.cublas.via == "toolkit"
    default = tmp_path / "no-toolkit"
    monkeypatch.setattr(libs, "_DEFAULT_TOOLKIT", str(default))
    empty = libs.find(search_path=[str(tmp_path / "site")], environ={}, use_pathfinder=False)
    assert empty.args() == ("libcuda.so.1", "libnvrtc.so.13", "libcublas.so.13")
    described = empty.missing()
    assert len(described) == 2 and "NVRTC (libnvrtc.so.13) was not found" in described[0]
    assert "nvidia/cu13/lib" in described[0] and str(default) in described[0]


@pytest.mark.ours_only
def test_libs_driver_problem_is_a_reason_not_an_exception(libs):
    reason = libs.driver_problem("libsurely-not-a-driver.so.1")
    assert isinstance(reason, str) and "libsurely-not-a-driver.so.1" in reason


# ---------------------------------------------------------------- every kernel compiles
def _nvrtc():
    """NVRTC loaded for compiling (no GPU or driver needed), or pytest.skip where neither
    the nvidia-cuda-nvrtc wheel nor a CUDA toolkit provides it."""
    from torch.cuda import _libs

    if not hasattr(torch._C, "_cuda_load_nvrtc"):
        pytest.skip("this build of the core has no CUDA backend (no _C._cuda_load_nvrtc)")
    lib = _libs.find_library("nvrtc")
    reason = torch._C._cuda_load_nvrtc(lib.path)
    if reason and not lib.found:
        pytest.skip(f"NVRTC is not installed: {lib.describe()} ({reason})")
    assert reason == "", f"{lib.describe()}, but loading it failed: {reason}"
    return lib


@pytest.mark.ours_only
@pytest.mark.slow  # (~1 min on 2 cores: the tests session runs it, not core_only)
# sm_80 only (CI time): the sources do not branch on the architecture, and the oldest target
# is the strict one (an sm_90-only feature fails there); the GPU check builds for its own GPU
@pytest.mark.parametrize("arch", ["sm_80"])
def test_every_kernel_compiles_with_nvrtc(arch):
    _nvrtc()
    if not hasattr(torch._C, "_cuda_kernel_sources"):  # until the backend lands
        pytest.skip("this build of the core has no _C._cuda_kernel_sources")
    sources = list(torch._C._cuda_kernel_sources())
    assert sources, "_C._cuda_kernel_sources() returned no kernels"
    names = [name for name, _ in sources]
    assert len(set(names)) == len(names), "kernel names repeat"

    def compile_one(item):
        name, source = item
        try:
            size = torch._C._cuda_nvrtc_compile(source, name, arch)
        except RuntimeError as e:
            return f"{name}: {e}"
        return None if size > 0 else f"{name}: an empty cubin"

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=8) as pool:
        failures = [f for f in pool.map(compile_one, sources) if f]
    assert not failures, f"{len(failures)} of {len(sources)} kernels fail for {arch}:\n" + (
        "\n\n".join(failures[:5])
    )


@pytest.mark.ours_only
def test_nvrtc_reports_a_compile_error():
    _nvrtc()
    major, minor = torch._C._cuda_nvrtc_version()
    assert major >= 12 and minor >= 0
    good = 'extern "C" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }'
    assert torch._C._cuda_nvrtc_compile(good, "k", "sm_80") > 0
    with pytest.raises(RuntimeError, match="undefined_thing"):
        torch._C._cuda_nvrtc_compile(good.replace("1.0f", "undefined_thing"), "k", "sm_80")


# ---------------------------------------------------------------- GPU array interop
def test_cpu_tensors_export_no_cuda_array_interface():
    t = torch.arange(3.0)
    assert not hasattr(t, "__cuda_array_interface__")  # AttributeError, as in PyTorch
    with pytest.raises(AttributeError, match="non-CUDA tensor"):
        _ = t.__cuda_array_interface__
    assert t.__dlpack_device__() == (1, 0)


def test_gpu_arrays_need_cuda_and_say_so():
    class GpuArray:  # what CuPy exports, without a GPU behind it
        __cuda_array_interface__ = {"shape": (2,), "typestr": "<f4", "data": (0, False)}

    for make in (torch.as_tensor, torch.tensor):
        with pytest.raises(RuntimeError, match="CUDA"):
            make(GpuArray())


def test_nvtx_ranges_keep_pytorchs_depths():
    import torch.cuda.nvtx as nvtx

    assert nvtx.range_push("a") == 0
    assert nvtx.range_push("b") == 1
    assert nvtx.range_pop() == 1
    with nvtx.range("step {}", 3):
        assert nvtx.range_push("inner") == 2
        assert nvtx.range_pop() == 2
    assert nvtx.range_pop() == 0
    assert nvtx.range_pop() == -1  # nothing open
    first, second = nvtx.range_start("x"), nvtx.range_start("y")
    assert first != second
    nvtx.range_end(first)
    nvtx.mark("here")

    @nvtx.range("decorated")
    def f():
        return nvtx.range_push("in f")

    assert f() == 1
    assert nvtx.range_pop() == 0
