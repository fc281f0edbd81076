"""torch.utils.tensorboard: events written by SummaryWriter, read back with TensorBoard's own
reader (EventAccumulator); images decoded with Pillow (a dependency of tensorboard).

Every test but the one about a missing tensorboard needs the package: they skip without it
(``pip install tensorboard``)."""

import importlib
import io
import math
import os
import socket
import sys
import wave

import pytest

import torch

np = pytest.importorskip("numpy")


@pytest.fixture
def tb():
    """TensorBoard's reader: ``tb(log_dir)`` loads every event of one run folder."""
    pytest.importorskip("tensorboard")
    from tensorboard.backend.event_processing import event_accumulator as ea

    def load(log_dir):
        acc = ea.EventAccumulator(str(log_dir), size_guidance=ea.STORE_EVERYTHING_SIZE_GUIDANCE)
        acc.Reload()
        return acc

    return load


@pytest.fixture
def SummaryWriter(tb):
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter


def decode_png(data):
    Image = pytest.importorskip("PIL.Image")
    with Image.open(io.BytesIO(data)) as im:
        return im.mode, np.asarray(im)


def tensor_value(event):
    from tensorboard.util import tensor_util

    return tensor_util.make_ndarray(event.tensor_proto)


# --------------------------------------------------------------------------------------
# the package


@pytest.mark.ours_only
def test_missing_tensorboard_names_the_package(monkeypatch):
    for name in list(sys.modules):
        if name == "tensorboard" or name.startswith(("tensorboard.", "torch.utils.tensorboard")):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "tensorboard", None)  # import tensorboard fails
    import torch.utils

    monkeypatch.delattr(torch.utils, "tensorboard", raising=False)
    with pytest.raises(ImportError, match="pip install tensorboard"):
        from torch.utils.tensorboard import SummaryWriter  # noqa: F401


def test_writer_module_and_summary_module(tb):
    writer_module = importlib.import_module("torch.utils.tensorboard.writer")
    summary_module = importlib.import_module("torch.utils.tensorboard.summary")
    from torch.utils.tensorboard import SummaryWriter

    assert writer_module.SummaryWriter is SummaryWriter
    assert callable(summary_module.hparams) and callable(summary_module.scalar)


# --------------------------------------------------------------------------------------
# log dirs and files


def test_default_log_dir(SummaryWriter, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lr0.1") as w:
        log_dir = w.get_logdir()
    assert os.path.dirname(log_dir) == "runs"
    assert log_dir.endswith(f"_{socket.gethostname()}_lr0.1")
    files = os.listdir(tmp_path / log_dir)
    assert len(files) == 1 and files[0].startswith("events.out.tfevents.")


def test_log_dir_comment_and_suffix(SummaryWriter, tmp_path):
    with SummaryWriter(tmp_path / "run", comment="ignored", filename_suffix=".v2") as w:
        assert os.fspath(w.get_logdir()) == str(tmp_path / "run")
    (name,) = os.listdir(tmp_path / "run")
    assert name.startswith("events.out.tfevents.") and name.endswith(".v2")


def test_flush_makes_events_visible(SummaryWriter, tb, tmp_path):
    w = SummaryWriter(tmp_path, flush_secs=1000)
    w.add_scalar("a", 1.0, 0)
    w.flush()
    assert [e.value for e in tb(tmp_path).Scalars("a")] == [1.0]
    w.close()


def test_writing_after_close_opens_a_new_file(SummaryWriter, tb, tmp_path):
    w = SummaryWriter(tmp_path)
    w.add_scalar("a", 1.0, 0)
    w.close()
    w.close()  # a second close does nothing
    w.add_scalar("a", 2.0, 1)
    w.close()
    assert len(os.listdir(tmp_path)) == 2
    assert [(e.step, e.value) for e in tb(tmp_path).Scalars("a")] == [(0, 1.0), (1, 2.0)]


def test_purge_step_hides_the_crashed_run(SummaryWriter, tb, tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(10):
            w.add_scalar("loss", float(step), step)
    with SummaryWriter(tmp_path, purge_step=5) as w:
        for step in range(5, 8):
            w.add_scalar("loss", 100.0 + step, step)
    events = tb(tmp_path).Scalars("loss")
    assert [e.step for e in events] == [0, 1, 2, 3, 4, 5, 6, 7]
    assert [e.value for e in events][5:] == [105.0, 106.0, 107.0]


# --------------------------------------------------------------------------------------
# scalars


def test_scalars_round_trip(SummaryWriter, tb, tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("loss", 0.25, 0)
        w.add_scalar("loss", torch.tensor(0.125), 1)
        w.add_scalar("loss", np.float64(0.0625), 2, walltime=1234.5)
        w.add_scalar("loss", torch.tensor([3.0]), 3)
        w.add_scalar("train/acc", 7, 10)
    acc = tb(tmp_path)
    loss = acc.Scalars("loss")
    assert [(e.step, e.value) for e in loss] == [(0, 0.25), (1, 0.125), (2, 0.0625), (3, 3.0)]
    assert loss[2].wall_time == 1234.5
    assert [(e.step, e.value) for e in acc.Scalars("train/acc")] == [(10, 7.0)]


def test_scalar_of_a_tensor_that_requires_grad(SummaryWriter, tb, tmp_path):
    pytest.importorskip("torch.autograd")
    x = torch.tensor(2.5, requires_grad=True)
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("x", x * 2, 0)
        w.add_histogram("h", torch.ones(4, requires_grad=True), 0)
    assert tb(tmp_path).Scalars("x")[0].value == 5.0


@pytest.mark.ours_only
def test_scalar_must_be_one_number(SummaryWriter, tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="single number"):
        w.add_scalar("x", torch.ones(2), 0)


def test_new_style_scalars(SummaryWriter, tb, tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("f", 1.1, 0, new_style=True)
        w.add_scalar("d", 1.1, 0, new_style=True, double_precision=True)
    acc = tb(tmp_path)
    f = tensor_value(acc.Tensors("f")[0])
    d = tensor_value(acc.Tensors("d")[0])
    assert f.dtype == np.float32 and f == np.float32(1.1)
    assert d.dtype == np.float64 and d == 1.1
    assert acc.SummaryMetadata("f").plugin_data.plugin_name == "scalars"


def test_add_scalars_writes_one_run_per_key(SummaryWriter, tb, tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("loss/all", {"train": step * 1.0, "val": step * 2.0}, step)
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == [
        "loss_all_train",
        "loss_all_val",
    ]
    train = tb(tmp_path / "loss_all_train").Scalars("loss/all")
    val = tb(tmp_path / "loss_all_val").Scalars("loss/all")
    assert [(e.step, e.value) for e in train] == [(0, 0.0), (1, 1.0), (2, 2.0)]
    assert [(e.step, e.value) for e in val] == [(0, 0.0), (1, 2.0), (2, 4.0)]
    assert train[1].wall_time == val[1].wall_time  # one call, one time


def test_add_tensor(SummaryWriter, tb, tmp_path):
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    with SummaryWriter(tmp_path) as w:
        w.add_tensor("t", t, 4)
    (event,) = tb(tmp_path).Tensors("t")
    assert event.step == 4
    np.testing.assert_array_equal(tensor_value(event), t.numpy())


# --------------------------------------------------------------------------------------
# histograms


def histo(acc, tag):
    (event,) = acc.Histograms(tag)
    return event.histogram_value


def test_histogram_with_numpy_bins(SummaryWriter, tb, tmp_path):
    values = np.random.default_rng(0).normal(size=1000)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("h", torch.from_numpy(values), 0, bins=10)
        w.add_histogram("auto", values, 0, bins="auto")
    acc = tb(tmp_path)
    h = histo(acc, "h")
    counts, edges = np.histogram(values, bins=10)
    assert h.num == 1000
    assert h.min == values.min() and h.max == values.max()
    assert h.sum == pytest.approx(values.sum())
    assert h.sum_squares == pytest.approx((values**2).sum())
    # a first, empty bucket up to the lowest edge, then one per numpy bin
    assert list(h.bucket) == [0.0, *counts.astype(float)]
    np.testing.assert_allclose(list(h.bucket_limit), edges)
    auto = histo(acc, "auto")
    assert sum(auto.bucket) == 1000
    assert len(auto.bucket) == len(np.histogram(values, bins="auto")[0]) + 1


def test_histogram_trims_empty_buckets(SummaryWriter, tb, tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("h", np.array([5.0, 5.5, 9.5]), 0, bins=list(range(11)))
    h = histo(tb(tmp_path), "h")
    # buckets [4,5) (empty, kept before the first value) to [9,10]
    assert list(h.bucket_limit) == [5, 6, 7, 8, 9, 10]
    assert list(h.bucket) == [0, 2, 0, 0, 0, 1]


def test_histogram_tensorflow_buckets(SummaryWriter, tb, tmp_path):
    values = torch.tensor([0.0, 1.0, 2.0, 2.0, 3.5, -1.0])
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("h", values, 0)
    h = histo(tb(tmp_path), "h")
    assert (h.min, h.max, h.num, h.sum, h.sum_squares) == (-1.0, 3.5, 6, 7.5, 22.25)
    assert sum(h.bucket) == 6
    limits = list(h.bucket_limit)
    assert limits == sorted(limits)
    # each value lies in the bucket (previous limit, limit]
    for v in values.tolist():
        i = next(i for i, lim in enumerate(limits) if v < lim)
        assert h.bucket[i] > 0 and limits[i - 1] <= v
    # TensorFlow's buckets grow by 10%
    positive = [lim for lim in limits if lim > 1e-6]
    assert all(math.isclose(b / a, 1.1) for a, b in zip(positive, positive[1:]))


@pytest.mark.ours_only
def test_histogram_max_bins(SummaryWriter, tb, tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("h", np.arange(1000.0), 0, bins=10, max_bins=3)
    h = histo(tb(tmp_path), "h")
    assert len(h.bucket) <= 3 + 1  # + the empty first bucket
    assert sum(h.bucket) == 1000
    assert list(h.bucket) == [0, 400, 400, 200]


@pytest.mark.ours_only
def test_histogram_of_nothing(SummaryWriter, tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="no values"):
        w.add_histogram("h", torch.zeros(0), 0)


def test_histogram_raw(SummaryWriter, tb, tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_histogram_raw(
            "raw",
            min=0.0,
            max=4.0,
            num=6,
            sum=10.0,
            sum_squares=30.0,
            bucket_limits=[1.0, 2.0, 4.0],
            bucket_counts=[1, 2, 3],
            global_step=2,
        )
    (event,) = tb(tmp_path).Histograms("raw")
    h = event.histogram_value
    assert event.step == 2
    assert (h.min, h.max, h.num, h.sum, h.sum_squares) == (0.0, 4.0, 6, 10.0, 30.0)
    assert list(h.bucket_limit) == [1.0, 2.0, 4.0] and list(h.bucket) == [1, 2, 3]


# --------------------------------------------------------------------------------------
# images


def image(acc, tag):
    (event,) = acc.Images(tag)
    mode, pixels = decode_png(event.encoded_image_string)
    assert (event.height, event.width) == pixels.shape[:2]
    return mode, pixels


def test_image_chw_float(SummaryWriter, tb, tmp_path):
    img = torch.rand(3, 4, 5)
    img[0, 0, 0], img[1, 0, 0] = 1.5, -0.5  # clipped
    with SummaryWriter(tmp_path) as w:
        w.add_image("img", img, 0)
    mode, pixels = image(tb(tmp_path), "img")
    expected = (img.numpy().transpose(1, 2, 0) * 255).clip(0, 255).astype(np.uint8)
    assert mode == "RGB"
    np.testing.assert_array_equal(pixels, expected)
    assert tuple(pixels[0, 0, :2]) == (255, 0)


def test_image_hwc_uint8_and_hw(SummaryWriter, tb, tmp_path):
    rgb = torch.randint(0, 256, (6, 7, 3), dtype=torch.uint8)
    gray = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)
    with SummaryWriter(tmp_path) as w:
        w.add_image("rgb", rgb, 0, dataformats="HWC")
        w.add_image("gray", gray, 0, dataformats="HW")
    acc = tb(tmp_path)
    _, pixels = image(acc, "rgb")
    np.testing.assert_array_equal(pixels, rgb.numpy())
    mode, pixels = image(acc, "gray")
    assert mode == "RGB" and pixels.shape == (3, 4, 3)  # gray shown as RGB
    expected = (gray * 255).astype(np.uint8)
    for c in range(3):
        np.testing.assert_array_equal(pixels[:, :, c], expected)


def test_image_one_channel_and_rgba(SummaryWriter, tb, tmp_path):
    one = torch.rand(1, 2, 3)
    rgba = np.random.default_rng(1).integers(0, 256, (4, 2, 3), dtype=np.uint8)
    with SummaryWriter(tmp_path) as w:
        w.add_image("one", one, 0)
        w.add_image("rgba", rgba, 0, dataformats="CHW")
    acc = tb(tmp_path)
    _, pixels = image(acc, "one")
    expected = (one.numpy()[0] * 255).astype(np.uint8)
    assert all((pixels[:, :, c] == expected).all() for c in range(3))
    mode, pixels = image(acc, "rgba")
    assert mode == "RGBA"
    np.testing.assert_array_equal(pixels, rgba.transpose(1, 2, 0))


@pytest.mark.ours_only
def test_image_with_a_bad_layout(SummaryWriter, tmp_path):
    with SummaryWriter(tmp_path) as w:
        with pytest.raises(ValueError, match="dataformats"):
            w.add_image("x", torch.zeros(3, 4), 0)  # CHW given for a 2-D tensor
        with pytest.raises(ValueError, match="channels"):
            w.add_image("x", torch.zeros(2, 4, 4), 0)


def test_add_images_tiles_a_batch(SummaryWriter, tb, tmp_path):
    batch = torch.rand(10, 3, 2, 3)
    with SummaryWriter(tmp_path) as w:
        w.add_images("batch", batch, 0)
        w.add_images("nhwc", batch[:2].permute(0, 2, 3, 1), 0, dataformats="NHWC")
    acc = tb(tmp_path)
    _, pixels = image(acc, "batch")
    assert pixels.shape == (4, 24, 3)  # 8 images to a row, 2 rows
    scaled = (batch.numpy() * 255).astype(np.uint8).transpose(0, 2, 3, 1)
    for i in range(10):
        r, q = divmod(i, 8)
        np.testing.assert_array_equal(pixels[r * 2 : r * 2 + 2, q * 3 : q * 3 + 3], scaled[i])
    assert (pixels[2:, 6:] == 0).all()  # the empty cells
    _, pixels = image(acc, "nhwc")
    assert pixels.shape == (2, 6, 3)
    np.testing.assert_array_equal(pixels[:, :3], scaled[0])
    np.testing.assert_array_equal(pixels[:, 3:], scaled[1])


def test_add_figure(SummaryWriter, tb, tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=50)
    plt.plot([0, 1], [1, 0])
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 0)
    mode, pixels = image(tb(tmp_path), "fig")
    assert mode == "RGB" and pixels.shape == (50, 100, 3)


# --------------------------------------------------------------------------------------
# text, audio, pr curves, custom scalars


def test_text_round_trip(SummaryWriter, tb, tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "hello **world** ü", 3)
    acc = tb(tmp_path)
    (event,) = acc.Tensors("notes/text_summary")
    assert event.step == 3
    assert tensor_value(event).tolist() == ["hello **world** ü".encode()]
    assert acc.SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"


def test_audio_round_trip(SummaryWriter, tb, tmp_path):
    samples = torch.sin(torch.arange(800, dtype=torch.float32) / 10)
    with SummaryWriter(tmp_path) as w:
        w.add_audio("sound", samples, 0, sample_rate=8000)
    (event,) = tb(tmp_path).Audio("sound")
    assert event.sample_rate == 8000 and event.content_type == "audio/wav"
    with wave.open(io.BytesIO(event.encoded_audio_string)) as f:
        assert (f.getnchannels(), f.getsampwidth(), f.getframerate()) == (1, 2, 8000)
        pcm = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2")
    np.testing.assert_allclose(pcm / 32767, samples.numpy(), atol=1e-4)


def test_pr_curve(SummaryWriter, tb, tmp_path):
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 2, 200).astype(bool)
    predictions = rng.random(200)
    n = 11
    with SummaryWriter(tmp_path) as w:
        w.add_pr_curve("pr", torch.from_numpy(labels), torch.from_numpy(predictions), 0, n)
    acc = tb(tmp_path)
    data = tensor_value(acc.Tensors("pr")[0])
    assert data.shape == (6, n)
    tp, fp, tn, fn, precision, recall = data
    buckets = np.floor(predictions * (n - 1))
    for i in range(n):
        called = buckets >= i
        assert tp[i] == (called & labels).sum() and fp[i] == (called & ~labels).sum()
        assert tn[i] == (~called & ~labels).sum() and fn[i] == (~called & labels).sum()
    np.testing.assert_allclose(recall, tp / labels.sum(), rtol=1e-6)
    called = tp + fp > 0
    np.testing.assert_allclose(precision[called], tp[called] / (tp + fp)[called], rtol=1e-6)
    assert (precision[~called] == 0).all()
    assert acc.SummaryMetadata("pr").plugin_data.plugin_name == "pr_curves"


def test_pr_curve_raw(SummaryWriter, tb, tmp_path):
    series = [np.arange(3.0) + k for k in range(6)]
    with SummaryWriter(tmp_path) as w:
        w.add_pr_curve_raw("raw", *series, global_step=1, num_thresholds=3)
    np.testing.assert_array_equal(tensor_value(tb(tmp_path).Tensors("raw")[0]), series)


def test_custom_scalars_layout(SummaryWriter, tb, tmp_path):
    from tensorboard.plugins.custom_scalar import layout_pb2

    layout = {
        "Loss": {"both": ["Multiline", ["loss/train", "loss/val"]]},
        "Acc": {"band": ["Margin", ["acc", "acc_low", "acc_high"]]},
    }
    with SummaryWriter(tmp_path) as w:
        w.add_custom_scalars(layout)
    (event,) = tb(tmp_path).Tensors("custom_scalars__config__")
    parsed = layout_pb2.Layout.FromString(tensor_value(event).reshape(-1)[0])
    titles = {c.title: c for c in parsed.category}
    assert list(titles["Loss"].chart[0].multiline.tag) == ["loss/train", "loss/val"]
    series = titles["Acc"].chart[0].margin.series[0]
    assert (series.value, series.lower, series.upper) == ("acc", "acc_low", "acc_high")


# --------------------------------------------------------------------------------------
# hyperparameters


def test_add_hparams(SummaryWriter, tb, tmp_path):
    from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2

    with SummaryWriter(tmp_path) as w:
        w.add_hparams(
            {"lr": 0.1, "batch": torch.tensor([32]), "optim": "sgd"},
            {"hparam/accuracy": 0.75},
            hparam_domain_discrete={"optim": ["sgd", "adam"]},
            run_name="trial1",
        )
    acc = tb(tmp_path / "trial1")
    content = acc.PluginTagToContent("hparams")
    experiment = plugin_data_pb2.HParamsPluginData.FromString(
        content["_hparams_/experiment"]
    ).experiment
    infos = {h.name: h for h in experiment.hparam_infos}
    assert infos["lr"].type == api_pb2.DATA_TYPE_FLOAT64
    assert infos["optim"].type == api_pb2.DATA_TYPE_STRING
    assert [v.string_value for v in infos["optim"].domain_discrete.values] == ["sgd", "adam"]
    assert [m.name.tag for m in experiment.metric_infos] == ["hparam/accuracy"]
    start = plugin_data_pb2.HParamsPluginData.FromString(
        content["_hparams_/session_start_info"]
    ).session_start_info
    assert start.hparams["lr"].number_value == 0.1
    assert start.hparams["batch"].number_value == 32
    assert start.hparams["optim"].string_value == "sgd"
    end = plugin_data_pb2.HParamsPluginData.FromString(
        content["_hparams_/session_end_info"]
    ).session_end_info
    assert end.status == api_pb2.STATUS_SUCCESS
    assert [e.value for e in acc.Scalars("hparam/accuracy")] == [0.75]


@pytest.mark.ours_only
def test_hparams_bool_is_a_bool(SummaryWriter, tb, tmp_path):
    from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2

    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"flag": True}, {"m": 1.0}, run_name="r")
    content = tb(tmp_path / "r").PluginTagToContent("hparams")
    data = plugin_data_pb2.HParamsPluginData.FromString(content["_hparams_/experiment"])
    assert data.experiment.hparam_infos[0].type == api_pb2.DATA_TYPE_BOOL
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError):
        w.add_hparams({"bad": [1, 2]}, {"m": 1.0})
    with SummaryWriter(tmp_path) as w, pytest.raises(TypeError):
        w.add_hparams([("lr", 0.1)], {"m": 1.0})


# --------------------------------------------------------------------------------------
# graphs, embeddings


@pytest.mark.ours_only  # PyTorch's graph is a trace of every operation
def test_add_graph_of_modules(SummaryWriter, tb, tmp_path):
    nn = pytest.importorskip("torch.nn")
    F = pytest.importorskip("torch.nn.functional")

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Linear(3, 4), nn.Tanh())
            self.head = nn.Linear(4, 2)

        def forward(self, x):
            h = self.features(x)
            h = F.relu(h * 2).reshape(-1, 4)  # functional ops between modules
            return self.head(h) + self.head(h)  # a module called twice

    with SummaryWriter(tmp_path) as w:
        w.add_graph(Net(), torch.randn(5, 3))
    graph = tb(tmp_path).Graph()
    nodes = {n.name: n for n in graph.node}
    assert list(nodes) == [
        "input/0",
        "Net/features/0",
        "Net/features/1",
        "Net/head",
        "Net/head_1",
        "output/0",
    ]
    assert nodes["Net/features/0"].op == "Linear"
    assert list(nodes["Net/features/0"].input) == ["input/0"]
    assert list(nodes["Net/features/1"].input) == ["Net/features/0"]
    assert list(nodes["Net/head"].input) == ["Net/features/1"]  # through relu and reshape
    assert list(nodes["Net/head_1"].input) == ["Net/features/1"]
    assert list(nodes["output/0"].input) == ["Net/head", "Net/head_1"]
    shapes = nodes["Net/head"].attr["_output_shapes"].list.shape
    assert [[d.size for d in s.dim] for s in shapes] == [[5, 2]]
    assert nodes["Net/features/0"].attr["parameters"].s == b"weight: [4, 3], bias: [4]"


@pytest.mark.ours_only
def test_add_graph_without_autograd_history(SummaryWriter, tb, tmp_path):
    nn = pytest.importorskip("torch.nn")
    model = nn.Sequential(nn.Embedding(10, 3), nn.Linear(3, 1))
    for p in model.parameters():
        p.requires_grad_(False)
    with SummaryWriter(tmp_path) as w:
        w.add_graph(model, torch.tensor([[1, 2], [3, 4]]))
        with pytest.raises(ValueError, match="input_to_model"):
            w.add_graph(model)
    nodes = {n.name: list(n.input) for n in tb(tmp_path).Graph().node}
    assert nodes == {
        "input/0": [],
        "Sequential/0": ["input/0"],  # the very tensor objects passed on
        "Sequential/1": ["Sequential/0"],
        "output/0": ["Sequential/1"],
    }


def test_add_embedding(SummaryWriter, tmp_path):
    from google.protobuf import text_format
    from tensorboard.plugins.projector import projector_config_pb2

    mat = torch.randn(5, 3)
    with SummaryWriter(tmp_path) as w:
        w.add_embedding(mat, metadata=list("abcde"), label_img=torch.rand(5, 3, 4, 4), tag="pts")
        w.add_embedding(
            mat[:2],
            metadata=[["x", 1], ["y", 2]],
            metadata_header=["name", "n"],
            global_step=7,
        )
    folder = tmp_path / "00000" / "pts"
    rows = [line.split("\t") for line in (folder / "tensors.tsv").read_text().splitlines()]
    np.testing.assert_allclose(np.array(rows, dtype=np.float32), mat.numpy())
    assert (folder / "metadata.tsv").read_text().split() == list("abcde")
    _, sprite = decode_png((folder / "sprite.png").read_bytes())
    assert sprite.shape[:2] == (12, 12)  # 3 x 3 images of 4 x 4
    meta = (tmp_path / "00007" / "default" / "metadata.tsv").read_text().splitlines()
    assert meta == ["name\tn", "x\t1", "y\t2"]
    config = text_format.Parse(
        (tmp_path / "projector_config.pbtxt").read_text(), projector_config_pb2.ProjectorConfig()
    )
    first, second = config.embeddings
    assert first.tensor_path == "00000/pts/tensors.tsv"
    assert first.metadata_path == "00000/pts/metadata.tsv"
    assert first.sprite.image_path == "00000/pts/sprite.png"
    assert list(first.sprite.single_image_dim) == [4, 4]
    assert second.tensor_path == "00007/default/tensors.tsv"
