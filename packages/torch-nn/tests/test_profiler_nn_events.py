"""torch.profiler's op events for torch.nn: a module's functional ops are events under the
names PyTorch gives them (``aten::linear`` holding ``aten::addmm``), and an op that calls
itself under another name (F.relu calling torch.relu) is one event. The oracle: the calls
the model makes."""

import torch
import torch.nn.functional as F
from torch.profiler import profile, record_function


def _counts(prof):
    return {a.key: a.count for a in prof.key_averages()}


def test_a_model_s_ops_are_events_inside_its_range():
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(64, 5)
    )
    with profile() as prof:
        with record_function("model_inference"):
            model(torch.randn(2, 3, 6, 6))
    n = _counts(prof)
    for name in ("aten::conv2d", "aten::relu", "aten::flatten", "aten::linear", "aten::addmm"):
        assert n[name] == 1, name
    ev = {e.name: e for e in prof.events()}
    linear, addmm = ev["aten::linear"], ev["aten::addmm"]
    assert linear.start_ns <= addmm.start_ns <= addmm.end_ns <= linear.end_ns
    assert linear.self_cpu_time_total < linear.cpu_time_total  # addmm's time is not its own
    assert not hasattr(F.linear, "_profiled_op")  # F's own function again


def test_an_op_inside_itself_is_one_event():
    with profile() as prof:
        F.relu(torch.randn(10))  # calls torch.relu
    assert _counts(prof)["aten::relu"] == 1


def test_the_autograd_profiler_names_record_ops_too():
    x = torch.randn(4, 4)
    with torch.autograd.profiler.profile() as prof:
        F.softmax(x, -1)
    assert _counts(prof)["aten::softmax"] == 1
