"""torch.jit.save/load: round trips of traced and scripted code, without the Python class,
and a loader that runs nothing from the file."""

import io
import json
import zipfile

import pytest
from jit_models import MLP, AttentionModel, MnistNet, RNNModel

import torch
import torch.jit
from torch import nn


def _round_trip(obj, **kw):
    buf = io.BytesIO()
    torch.jit.save(obj, buf, **kw)
    buf.seek(0)
    return torch.jit.load(buf)


@pytest.mark.parametrize(
    "make,args",
    [
        (MLP, lambda: (torch.randn(3, 6),)),
        (MnistNet, lambda: (torch.randn(2, 1, 28, 28),)),
        (AttentionModel, lambda: (torch.randint(0, 30, (2, 5)),)),
    ],
    ids=["mlp", "mnist", "attention"],
)
def test_traced_module_round_trip(make, args):
    torch.manual_seed(0)
    model = make().eval()
    x = args()
    loaded = _round_trip(torch.jit.trace(model, x))
    assert isinstance(loaded, torch.jit.ScriptModule)
    assert loaded.original_name == type(model).__name__
    assert list(loaded.state_dict()) == list(model.state_dict())
    assert not loaded.training
    with torch.no_grad():
        torch.testing.assert_close(loaded(*x), model(*x))
    loaded(*x).sum().backward()  # the loaded parameters train
    assert next(loaded.parameters()).grad is not None


def test_rnn_model_round_trip_and_file_path(tmp_path):
    torch.manual_seed(0)
    model = RNNModel("LSTM", 20, 6, 8, 2).eval()
    tokens, hidden = torch.randint(0, 20, (4, 2)), model.init_hidden(2)
    path = tmp_path / "lm.pt"
    torch.jit.trace(model, (tokens, hidden)).save(str(path))
    loaded = torch.jit.load(str(path))
    out, (h, c) = loaded(tokens, hidden)
    ref_out, (ref_h, ref_c) = model(tokens, hidden)
    torch.testing.assert_close(out, ref_out)
    torch.testing.assert_close(c, ref_c)


def test_loads_without_the_class():
    def make():
        class Local(nn.Module):  # not importable: the archive must not need it
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.randn(3))
                self.register_buffer("b", torch.ones(3))

            def forward(self, x):
                return x * self.w + self.b

        return Local()

    model = make()
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(model, torch.randn(3)), buf)
    del model
    buf.seek(0)
    loaded = torch.jit.load(buf)
    assert set(dict(loaded.named_buffers())) == {"b"}
    assert loaded(torch.zeros(3)).tolist() == [1.0, 1.0, 1.0]


def test_functions_and_scripted_code_round_trip():
    @torch.jit.script
    def helper(x, k: int = 2):
        return x * k

    def f(x, n: int):
        for i in range(n):
            if x.sum() > 0:
                x = x - helper(x, i)
            else:
                x = x + 1
        return x

    scripted = torch.jit.script(f)
    loaded = _round_trip(scripted)
    x = torch.randn(4)
    torch.testing.assert_close(loaded(x, 3), f(x, 3))
    traced = torch.jit.trace(lambda a: a.relu() + 1, torch.randn(2))
    assert _round_trip(traced)(-torch.ones(2)).tolist() == [1.0, 1.0]


def test_scripted_module_with_torch_nn_layers_round_trip():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3)
            self.bn = nn.BatchNorm2d(2)
            self.act = nn.GELU()

        def forward(self, x):
            y = self.act(self.bn(self.conv(x)))
            if y.mean() > 0:
                y = y * 2
            return y

    model = Net().eval()
    loaded = _round_trip(torch.jit.script(model))
    x = torch.randn(1, 1, 5, 5)
    torch.testing.assert_close(loaded(x), model(x))


def _tamper(buf, edit):
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name in src.namelist():
            data = src.read(name)
            if name.endswith("model.json"):
                data = json.dumps(edit(json.loads(data))).encode()
            z.writestr(name, data)
    out.seek(0)
    return out


def test_loading_refuses_foreign_ops():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(lambda a: a + 1, torch.ones(1)), buf)

    def to_eval(meta):
        for g in meta["methods"].values():
            g["nodes"][0]["kind"] = "builtins.eval"
        return meta

    def to_private(meta):
        for g in meta["methods"].values():
            g["nodes"][0]["kind"] = "torch.save"
        return meta

    for edit in (to_eval, to_private):
        with pytest.raises(RuntimeError, match="unknown op"):
            torch.jit.load(_tamper(buf, edit))


def test_save_refuses_non_script_objects_and_python_ops():
    with pytest.raises(TypeError, match="torch.jit.trace or torch.jit.script"):
        torch.jit.save(MLP(), io.BytesIO())

    @torch.jit.ignore
    def python_side(x):
        return x

    def f(x):
        return python_side(x) + 1

    scripted = torch.jit.script(f)
    assert scripted(torch.zeros(1)).item() == 1.0
    with pytest.raises(RuntimeError, match="python_side"):
        torch.jit.save(scripted, io.BytesIO())


def test_extra_files():
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(MLP(), torch.randn(1, 6)), buf, _extra_files={"a.txt": "hi"})
    buf.seek(0)
    extra = {"a.txt": ""}
    torch.jit.load(buf, _extra_files=extra)
    assert extra["a.txt"] == b"hi"
