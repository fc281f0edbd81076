"""torch.onnx.export: every file passes onnx.checker and runs in onnxruntime with the eager
outputs (rtol 1e-4)."""

import io

import numpy as np
import pytest
from jit_models import (
    MLP,
    AttentionModel,
    BatchNormNet,
    MnistNet,
    RNNModel,
    TransformerModel,
)

import torch
import torch.jit
import torch.onnx
from torch import nn

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def _leaves(obj):
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, (tuple, list)):
        return [t for o in obj for t in _leaves(o)]
    return []


def _export(model, args, **kw):
    f = io.BytesIO()
    torch.onnx.export(model, args, f, **kw)
    proto = onnx.load_from_string(f.getvalue())
    onnx.checker.check_model(proto)
    opts = ort.SessionOptions()
    opts.log_severity_level = 3
    return proto, ort.InferenceSession(f.getvalue(), opts)


def _run(sess, args):
    inputs = [t.numpy() for t in _leaves(args)]
    return sess.run(None, {i.name: x for i, x in zip(sess.get_inputs(), inputs)})


def _compare(got, expected):
    expected = [t.detach().numpy() for t in _leaves(expected)]
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


def _check(model, args, **kw):
    model.eval()
    proto, sess = _export(model, args, **kw)
    with torch.no_grad():
        expected = model(*args)
    _compare(_run(sess, args), expected)
    return proto, sess


def test_mlp():
    torch.manual_seed(0)
    proto, _ = _check(MLP(), (torch.randn(3, 6),), input_names=["x"], output_names=["y"])
    assert [i.name for i in proto.graph.input] == ["x"]
    assert [o.name for o in proto.graph.output] == ["y"]
    assert proto.opset_import[0].version == 17


def test_mnist_cnn_and_opset_18():
    torch.manual_seed(0)
    proto, _ = _check(MnistNet(), (torch.randn(2, 1, 28, 28),))
    ops = {n.op_type for n in proto.graph.node}
    assert {"Conv", "MaxPool", "LogSoftmax"} <= ops
    proto, _ = _check(MnistNet(), (torch.randn(2, 1, 28, 28),), opset_version=18)
    assert proto.opset_import[0].version == 18


def test_batchnorm_in_eval():
    torch.manual_seed(0)
    model = BatchNormNet()
    model.train()
    model(torch.randn(8, 3, 6, 6))  # non-trivial running statistics
    proto, _ = _check(model, (torch.randn(2, 3, 6, 6),))
    assert "BatchNormalization" in {n.op_type for n in proto.graph.node}
    assert not model.training


@pytest.mark.parametrize("rnn_type", ["LSTM", "GRU", "RNN_TANH"])
def test_word_language_model_rnn(rnn_type):
    torch.manual_seed(0)
    model = RNNModel(rnn_type, 40, 8, 12, 2)
    seq_len, batch = 5, 3
    dummy_input = torch.zeros(seq_len * batch, dtype=torch.long).view(-1, batch)
    dummy_input.random_(0, 40)
    hidden = model.init_hidden(batch)
    if rnn_type == "LSTM":
        hidden = tuple(h.normal_() for h in hidden)
    else:
        hidden.normal_()
    proto, sess = _check(model, (dummy_input, hidden))
    ops = {n.op_type for n in proto.graph.node}
    assert {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN"}[rnn_type] in ops


def test_word_language_model_export_to_a_path(tmp_path):
    # as main.py's --onnx-export: torch.onnx.export(model, (dummy_input, hidden), path)
    model = RNNModel("LSTM", 20, 6, 6, 2).eval()
    dummy_input = torch.LongTensor(4 * 2).zero_().view(-1, 2).to(torch.device("cpu"))
    hidden = model.init_hidden(2)
    path = tmp_path / "model.onnx"
    torch.onnx.export(model, (dummy_input, hidden), str(path))
    onnx.checker.check_model(onnx.load(str(path)))


def test_transformer_language_model_and_dynamic_batch():
    torch.manual_seed(0)
    model = TransformerModel(30, 16, 2, 32, 2).eval()
    src = torch.randint(0, 30, (6, 2))
    proto, sess = _check(
        model, (src,), input_names=["src"], output_names=["out"],
        dynamic_axes={"src": {1: "batch"}, "out": {1: "batch"}},
    )  # fmt: skip
    ops = {n.op_type for n in proto.graph.node}
    assert {"LayerNormalization", "Softmax", "MatMul"} <= ops
    other = torch.randint(0, 30, (6, 5))
    with torch.no_grad():
        _compare(_run(sess, (other,)), model(other))


def test_transformer_encoder_gelu():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, 4, 24, 0.0, activation="gelu", batch_first=True)
    model = nn.TransformerEncoder(layer, 2)
    _check(model, (torch.randn(2, 5, 16),))


def test_attention_model_dynamic_batch_and_sequence():
    torch.manual_seed(0)
    model = AttentionModel().eval()
    tokens = torch.randint(0, 30, (2, 7))
    proto, sess = _check(
        model, (tokens,), input_names=["tokens"], output_names=["probs"],
        dynamic_axes={"tokens": {0: "batch", 1: "seq"}, "probs": {0: "batch", 1: "seq"}},
    )  # fmt: skip
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param for d in dims] == ["batch", "seq"]
    for shape in ((4, 3), (1, 11)):
        other = torch.randint(0, 30, shape)
        with torch.no_grad():
            _compare(_run(sess, (other,)), model(other))


def test_export_params_false_makes_parameters_inputs():
    model = MLP().eval()
    proto, sess = _export(model, (torch.randn(2, 6),), export_params=False)
    names = [i.name for i in proto.graph.input]
    assert names[0] == "input_0" and "fc1.weight" in names
    feeds = {"input_0": np.ones((2, 6), np.float32)}
    feeds.update({k: v.detach().numpy() for k, v in model.named_parameters()})
    got = sess.run(None, feeds)[0]
    np.testing.assert_allclose(got, model(torch.ones(2, 6)).detach().numpy(), rtol=1e-4)


def test_ops_spread():
    class Ops(nn.Module):
        def forward(self, x, y):
            a = torch.cat([x, y], 1).permute(1, 0)
            b = a[1:3, ::2].unsqueeze(0).squeeze(0)
            c = (x.sum(1, keepdim=True) - y.mean(dim=1, keepdim=True)) / 2
            d = torch.where(x > 0, x, y).clamp(-0.5, 0.5)
            e = F_silu_sigmoid(x) * y.exp().sqrt()
            f, g = x.chunk(2, dim=1)
            return b.t(), c, d.masked_fill(y < -1, 3.0), e, f + g, x.transpose(0, 1).flatten()

    def F_silu_sigmoid(t):
        return torch.nn.functional.silu(t) + torch.sigmoid(t) ** 2

    torch.manual_seed(0)
    _check(Ops(), (torch.randn(4, 6), torch.randn(4, 6)))


def test_unsupported_op_names_the_op_and_the_line():
    class Bad(nn.Module):
        def forward(self, x):
            return torch.cumprod(x, 0)  # the line the error quotes

    with pytest.raises(torch.onnx.UnsupportedOperatorError) as info:
        _export(Bad(), (torch.randn(3),))
    msg = str(info.value)
    assert "torch.cumprod" in msg and "opset version 17" in msg
    assert "test_onnx_export.py" in msg and "the line the error quotes" in msg


def test_bad_opset_and_training_dropout():
    with pytest.raises(ValueError, match="opset_version 11"):
        _export(MLP(), (torch.randn(1, 6),), opset_version=11)
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    with pytest.raises(torch.onnx.UnsupportedOperatorError, match="training mode"):
        _export(model, (torch.randn(1, 2),), training=torch.onnx.TrainingMode.TRAINING)
    assert not torch.onnx.is_in_onnx_export()


def test_scripted_control_flow_exports_to_if_and_loop():
    class Ctl(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x, n: int):
            h = self.fc(x)
            for i in range(n):
                h = torch.tanh(h) + i
            if h.sum() > 0:
                out = h * 2
            else:
                out = h - 1
            return out

    torch.manual_seed(0)
    model = torch.jit.script(Ctl())
    x = torch.randn(2, 4)
    proto, sess = _export(model, (x, 3), input_names=["x"])
    ops = {n.op_type for n in proto.graph.node}
    assert {"If", "Loop"} <= ops
    for inp in (x, -x * 100, x * 100):
        got = sess.run(None, {"x": inp.numpy()})
        _compare(got, model(inp, 3))


def test_traced_function_export():
    def f(a, b):
        return torch.relu(a @ b + 1)

    fn = torch.jit.trace(f, (torch.randn(2, 3), torch.randn(3, 2)))
    proto, sess = _export(fn, (torch.randn(2, 3), torch.randn(3, 2)))
    a, b = torch.randn(2, 3), torch.randn(3, 2)
    _compare(_run(sess, (a, b)), f(a, b))
    assert "MatMul" in torch.onnx.supported_ops() or "matmul" in torch.onnx.supported_ops()


def test_rnn_language_model_dynamic_sequence_and_batch():
    torch.manual_seed(0)
    model = RNNModel("LSTM", 30, 8, 8, 2).eval()
    tokens, hidden = torch.randint(0, 30, (5, 2)), model.init_hidden(2)
    _, sess = _export(
        model, (tokens, hidden), input_names=["tokens", "h0", "c0"],
        dynamic_axes={"tokens": {0: "seq", 1: "batch"}, "h0": {1: "batch"}, "c0": {1: "batch"}},
    )  # fmt: skip
    tokens2 = torch.randint(0, 30, (9, 4))
    hidden2 = tuple(t.normal_() for t in model.init_hidden(4))
    with torch.no_grad():
        _compare(_run(sess, (tokens2, hidden2)), model(tokens2, hidden2))


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_bidirectional_batch_first_recurrent_layers(cls):
    torch.manual_seed(0)
    model = cls(4, 5, 2, batch_first=True, bidirectional=True)
    h = torch.randn(4, 3, 5)
    hx = (h, torch.randn_like(h)) if cls is nn.LSTM else h
    _check(model, (torch.randn(3, 6, 4), hx))


@pytest.mark.parametrize("opset", [17, 18])
def test_reductions_and_padding_ops(opset):
    class Ops(nn.Module):
        def forward(self, x):
            values, idx = x.max(1)
            return (
                x.amax(1) + x.amin(dim=0).sum() + x.prod(1) + values,
                idx,
                x.argmax(1),
                torch.cumsum(x, 1),
                F.pad(x, (1, 2), value=0.5),
                x.repeat(2, 1),
                F.hardswish(x) + F.relu6(x) + F.hardsigmoid(x),
                torch.maximum(x, x.t()),
            )

    from torch.nn import functional as F

    torch.manual_seed(0)
    _check(Ops(), (torch.randn(4, 4),), opset_version=opset)
