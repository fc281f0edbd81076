"""``Summary`` protocol buffers for TensorBoard, one function per kind of data.

``SummaryWriter`` calls these; they are public (as in PyTorch) for code that writes its own
events, e.g. ``summary.hparams`` for an ``Experiment`` without a new run folder. Every
function returns a ``tensorboard.compat.proto.summary_pb2.Summary`` except ``hparams``, which
returns the three summaries of TensorBoard's hparams plugin.
"""

import io
import math
import wave

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.hparams import api_pb2
from tensorboard.plugins.hparams import plugin_data_pb2 as hparams_data_pb2
from tensorboard.plugins.pr_curve import plugin_data_pb2 as pr_curve_data_pb2
from tensorboard.plugins.text import plugin_data_pb2 as text_data_pb2
from tensorboard.util import tensor_util

import torch
from torch.utils.tensorboard._utils import (
    convert_to_hwc,
    encode_png,
    make_np,
    resize_nearest,
    to_float,
    to_uint8,
)

__all__ = [
    "audio",
    "custom_scalars",
    "default_bins",
    "histogram",
    "histogram_raw",
    "hparams",
    "image",
    "pr_curve",
    "pr_curve_raw",
    "scalar",
    "tensor_proto",
    "text",
]


def _metadata(plugin_name, content=b""):
    return summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name=plugin_name, content=content)
    )


def _shape(dims):
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in dims]
    )


def _summary(tag, **fields):
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, **fields)])


# ---------------------------------------------------------------------------------------
# scalars and tensors


def scalar(name, tensor, collections=None, new_style=False, double_precision=False):
    """One number. The classic form (``simple_value``, a float32) is what every TensorBoard
    reads; ``new_style`` stores a tensor for the scalars plugin instead, a float64 one
    with ``double_precision``. ``collections`` is ignored (a TensorFlow argument)."""
    value = to_float(tensor, "a scalar")
    if not new_style:
        return _summary(name, simple_value=value)
    if double_precision:
        proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, double_val=[value])
    else:
        proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[value])
    return _summary(name, tensor=proto, metadata=_metadata("scalars"))


def tensor_proto(tag, tensor):
    """A whole tensor, stored as a ``TensorProto`` (TensorBoard's generic tensor data)."""
    array = make_np(tensor)
    if array.dtype == np.float16:
        array = array.astype(np.float32)
    proto = tensor_util.make_tensor_proto(array)
    return _summary(tag, tensor=proto, metadata=_metadata("tensor"))


# ---------------------------------------------------------------------------------------
# histograms


def _make_default_bins():
    # TensorFlow's bucket edges: +-1e-12 growing by 10% up to 1e20, and zero; the outermost
    # buckets reach to the largest doubles
    positive = []
    v = 1e-12
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    big = float(np.finfo(np.float64).max)
    return [-big] + [-x for x in reversed(positive)] + [0.0] + positive + [big]


default_bins = _make_default_bins()


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    """A histogram from its statistics: ``bucket_counts[i]`` values lie at most at
    ``bucket_limits[i]`` (and above the previous limit)."""
    bucket_limits = [float(x) for x in make_np(bucket_limits).reshape(-1)]
    bucket_counts = [float(x) for x in make_np(bucket_counts).reshape(-1)]
    if len(bucket_limits) != len(bucket_counts):
        raise ValueError(
            f"histogram_raw: {len(bucket_limits)} bucket limits for {len(bucket_counts)} counts"
        )
    histo = summary_pb2.HistogramProto(
        min=float(min),
        max=float(max),
        num=float(num),
        sum=float(sum),
        sum_squares=float(sum_squares),
        bucket_limit=bucket_limits,
        bucket=bucket_counts,
    )
    return _summary(name, histo=histo)


def _histogram_proto(values, bins, max_bins=None):
    values = make_np(values).astype(np.float64).reshape(-1)
    if values.size == 0:
        raise ValueError("histogram: there are no values")
    if isinstance(bins, str) and bins == "tensorflow":
        bins = default_bins
    finite = values[np.isfinite(values)]
    counts, edges = np.histogram(finite, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # merge neighbours, `group` at a time, so that at most max_bins buckets remain
        group = math.ceil(len(counts) / max_bins)
        padded = np.zeros(math.ceil(len(counts) / group) * group, dtype=counts.dtype)
        padded[: len(counts)] = counts
        counts = padded.reshape(-1, group).sum(axis=1)
        edges = np.append(edges[:-1:group], edges[-1])
    # bucket i holds the values up to limits[i]; a first, empty bucket ends at the lowest
    # edge. Only the buckets from one before the first non-empty one to the last non-empty
    # one are kept.
    counts = np.concatenate([[0], counts])
    nonzero = np.flatnonzero(counts)
    if nonzero.size:
        first, last = nonzero[0] - 1, nonzero[-1]
    else:
        first, last = 0, 0
    return summary_pb2.HistogramProto(
        min=float(values.min()),
        max=float(values.max()),
        num=float(values.size),
        sum=float(values.sum()),
        sum_squares=float((values * values).sum()),
        bucket_limit=[float(x) for x in edges[first : last + 1]],
        bucket=[float(x) for x in counts[first : last + 1]],
    )


def histogram(name, values, bins, max_bins=None):
    """The histogram of ``values`` (any shape). ``bins`` is what ``numpy.histogram`` takes
    (a count, edges, ``"auto"``, ``"fd"``, ...) or ``"tensorflow"``, TensorFlow's fixed,
    exponentially spaced buckets. ``max_bins`` merges neighbouring buckets down to that many.
    Non-finite values count in ``num``, ``min``, ``max`` and the sums but in no bucket."""
    return _summary(name, histo=_histogram_proto(values, bins, max_bins))


# ---------------------------------------------------------------------------------------
# images


def _image_proto(hwc_uint8):
    height, width, channels = hwc_uint8.shape
    return summary_pb2.Summary.Image(
        height=height,
        width=width,
        colorspace=channels,
        encoded_image_string=encode_png(hwc_uint8),
    )


def image(tag, tensor, rescale=1, dataformats="NCHW"):
    """An image, PNG-encoded. ``tensor`` is laid out as ``dataformats`` (``"CHW"``,
    ``"HWC"``, ``"HW"``, or ``"NCHW"``/``"NHWC"`` for a batch, tiled 8 to a row); its values
    are uint8, or floats in [0, 1]. ``rescale`` scales the image (nearest neighbour)."""
    hwc = to_uint8(convert_to_hwc(make_np(tensor), dataformats))
    return _summary(tag, image=_image_proto(resize_nearest(hwc, rescale)))


# ---------------------------------------------------------------------------------------
# text, audio


def text(tag, text):
    """A string (TensorBoard renders it as Markdown) under the tag ``<tag>/text_summary``."""
    proto = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        string_val=[str(text).encode("utf-8")],
        tensor_shape=_shape([1]),
    )
    content = text_data_pb2.TextPluginData(version=0).SerializeToString()
    return _summary(f"{tag}/text_summary", tensor=proto, metadata=_metadata("text", content))


def audio(tag, tensor, sample_rate=44100):
    """Mono sound: ``tensor`` holds the samples (shape ``(L,)`` or ``(1, L)``) in [-1, 1]
    (clipped), stored as 16-bit WAV."""
    samples = make_np(tensor).astype(np.float64)
    if samples.ndim == 2 and samples.shape[0] == 1:
        samples = samples[0]
    if samples.ndim != 1:
        raise ValueError(f"audio: expected samples of shape (L,) or (1, L), got {samples.shape}")
    pcm = (np.nan_to_num(samples).clip(-1, 1) * 32767).round().astype("<i2")
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(int(sample_rate))
        w.writeframes(pcm.tobytes())
    proto = summary_pb2.Summary.Audio(
        sample_rate=float(sample_rate),
        num_channels=1,
        length_frames=len(pcm),
        encoded_audio_string=buf.getvalue(),
        content_type="audio/wav",
    )
    return _summary(tag, audio=proto)


# ---------------------------------------------------------------------------------------
# precision-recall curves

_MIN_COUNT = 1e-7


def _pr_curve_summary(tag, data, num_thresholds):
    proto = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT,
        float_val=[float(x) for x in data.reshape(-1)],
        tensor_shape=_shape(data.shape),
    )
    content = pr_curve_data_pb2.PrCurvePluginData(
        version=0, num_thresholds=num_thresholds
    ).SerializeToString()
    return _summary(tag, tensor=proto, metadata=_metadata("pr_curves", content))


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127, weights=None):
    """A precision-recall curve from its counts, one per threshold (``num_thresholds``
    thresholds, at most 127). ``weights`` is accepted for compatibility and unused: the
    counts are already weighted."""
    num_thresholds = min(int(num_thresholds), 127)
    rows = [make_np(x).astype(np.float64).reshape(-1) for x in (tp, fp, tn, fn, precision, recall)]
    if any(len(r) != num_thresholds for r in rows):
        raise ValueError(f"pr_curve_raw: every series needs {num_thresholds} values")
    return _pr_curve_summary(tag, np.stack(rows), num_thresholds)


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None):
    """The precision-recall curve of ``predictions`` (probabilities in [0, 1]) against
    ``labels`` (true/false), at ``num_thresholds`` thresholds ``i / (num_thresholds - 1)``
    (at most 127): a prediction at least at a threshold counts as positive there."""
    num_thresholds = min(int(num_thresholds), 127)
    if num_thresholds < 2:
        raise ValueError("pr_curve: num_thresholds must be at least 2")
    labels = make_np(labels).astype(np.float64).reshape(-1)
    predictions = make_np(predictions).astype(np.float64).reshape(-1)
    if labels.shape != predictions.shape:
        raise ValueError(f"pr_curve: {labels.size} labels for {predictions.size} predictions")
    weights = 1.0 if weights is None else make_np(weights).astype(np.float64).reshape(-1)
    buckets = np.floor(predictions.clip(0, 1) * (num_thresholds - 1)).astype(np.int64)
    positives = np.bincount(buckets, weights=labels * weights, minlength=num_thresholds)
    negatives = np.bincount(buckets, weights=(1 - labels) * weights, minlength=num_thresholds)
    # at threshold i, every prediction in bucket i or above is called positive
    tp = np.cumsum(positives[::-1])[::-1]
    fp = np.cumsum(negatives[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(_MIN_COUNT, tp + fp)
    recall = tp / np.maximum(_MIN_COUNT, tp + fn)
    data = np.stack([tp, fp, tn, fn, precision, recall])
    return _pr_curve_summary(tag, data, num_thresholds)


# ---------------------------------------------------------------------------------------
# custom scalars layout


def custom_scalars(layout):
    """The layout of the Custom Scalars dashboard: ``{category: {chart title: chart}}``,
    where a chart is ``["Multiline", [tag regexes]]`` or ``["Margin", [value, lower,
    upper]]`` (tags of one series and its bounds)."""
    categories = []
    for category, charts in layout.items():
        protos = []
        for title, (kind, tags) in charts.items():
            if kind == "Multiline":
                chart = layout_pb2.Chart(
                    title=title, multiline=layout_pb2.MultilineChartContent(tag=list(tags))
                )
            elif kind == "Margin":
                if len(tags) != 3:
                    raise ValueError(f"a Margin chart takes 3 tags (value, lower, upper): {tags}")
                series = layout_pb2.MarginChartContent.Series(
                    value=tags[0], lower=tags[1], upper=tags[2]
                )
                chart = layout_pb2.Chart(
                    title=title, margin=layout_pb2.MarginChartContent(series=[series])
                )
            else:
                raise ValueError(f"unknown chart kind {kind!r}: 'Multiline' or 'Margin'")
            protos.append(chart)
        categories.append(layout_pb2.Category(title=category, chart=protos))
    proto = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        string_val=[layout_pb2.Layout(category=categories).SerializeToString()],
        tensor_shape=_shape([1]),
    )
    return _summary("custom_scalars__config__", tensor=proto, metadata=_metadata("custom_scalars"))


# ---------------------------------------------------------------------------------------
# hyperparameters


def _hparam_value(name, value):
    """(protobuf Value, hparams data type) of one hyperparameter's value."""
    if torch.is_tensor(value) or isinstance(value, np.ndarray):
        value = to_float(value, f"hyperparameter {name!r}")
    if isinstance(value, (bool, np.bool_)):
        return struct_pb2.Value(bool_value=bool(value)), api_pb2.DATA_TYPE_BOOL
    if isinstance(value, (int, float, np.integer, np.floating)):
        return struct_pb2.Value(number_value=float(value)), api_pb2.DATA_TYPE_FLOAT64
    if isinstance(value, str):
        return struct_pb2.Value(string_value=value), api_pb2.DATA_TYPE_STRING
    raise ValueError(
        f"hyperparameter {name!r}: a value must be a bool, a number, a string or a "
        f"one-element tensor, got {type(value).__name__}"
    )


def _hparams_summary(tag, **data):
    content = hparams_data_pb2.HParamsPluginData(version=0, **data).SerializeToString()
    return _summary(tag, metadata=_metadata("hparams", content))


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The three summaries that make one session of TensorBoard's HParams dashboard:
    the experiment (hyperparameters and metric tags), the session's start (its values) and
    its end. ``hparam_domain_discrete`` lists each named hyperparameter's possible values."""
    hparam_dict = {} if hparam_dict is None else hparam_dict
    metric_dict = {} if metric_dict is None else metric_dict
    domains = {} if hparam_domain_discrete is None else hparam_domain_discrete
    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("hparams: hparam_dict and metric_dict must be dicts")
    if not isinstance(domains, dict):
        raise TypeError("hparams: hparam_domain_discrete must be a dict")
    for name in domains:
        if name not in hparam_dict:
            raise ValueError(f"hparam_domain_discrete names {name!r}, which is not a hparam")

    infos = []
    values = {}
    for name, value in hparam_dict.items():
        proto, dtype = _hparam_value(name, value)
        values[name] = proto
        info = api_pb2.HParamInfo(name=name, type=dtype)
        if name in domains:
            domain = [_hparam_value(name, v) for v in domains[name]]
            if any(t != dtype for _, t in domain):
                raise TypeError(f"hparam_domain_discrete[{name!r}]: values of another type")
            info.domain_discrete.values.extend(v for v, _ in domain)
        infos.append(info)

    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=tag)) for tag in metric_dict]
    experiment = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    start = hparams_data_pb2.SessionStartInfo()
    for name, proto in values.items():
        start.hparams[name].CopyFrom(proto)
    end = hparams_data_pb2.SessionEndInfo(status=api_pb2.STATUS_SUCCESS)
    return (
        _hparams_summary("_hparams_/experiment", experiment=experiment),
        _hparams_summary("_hparams_/session_start_info", session_start_info=start),
        _hparams_summary("_hparams_/session_end_info", session_end_info=end),
    )
