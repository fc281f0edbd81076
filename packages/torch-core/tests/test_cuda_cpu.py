"""torch.cuda on a machine without a GPU, as PyTorch behaves there.

The expected values are PyTorch 2.13's on a machine without CUDA (its CPU wheel, run side
by side). Where PyTorch raises, it raises AssertionError ("Torch not compiled with CUDA
enabled") on a CPU build and RuntimeError on a CUDA build without a driver; the tests
accept either, and check that ours is both.
"""

import collections
import types

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
