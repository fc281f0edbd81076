"""``SummaryWriter``: training data (scalars, histograms, images, text, ...) written as
TensorBoard event files."""

import os
import socket
import time
from datetime import datetime

import numpy as np
from google.protobuf import text_format
from tensorboard.compat.proto import event_pb2
from tensorboard.plugins.projector import projector_config_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from torch.utils.tensorboard import summary as _summary
from torch.utils.tensorboard._utils import (
    encode_png,
    make_grid,
    make_np,
    to_uint8,
)

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """One event file in ``log_dir``, written by a background thread (TensorBoard's
    ``EventFileWriter``): events wait in a queue of ``max_queue`` and reach the disk at
    least every ``flush_secs`` seconds, on ``flush()`` and on ``close()``."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        log_dir = os.fspath(log_dir)
        self.event_writer = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None):
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def add_graph(self, graph_def, walltime=None):
        self.add_event(event_pb2.Event(graph_def=graph_def.SerializeToString()), None, walltime)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()


def _path_component(tag):
    """A tag as one file name: '%', '/' and '\\' percent-encoded, '.' and '..' too."""
    encoded = tag.replace("%", "%25").replace("/", "%2F").replace("\\", "%5C")
    return encoded.replace(".", "%2E") if encoded in (".", "..") else encoded


class SummaryWriter:
    """Writes data for TensorBoard into the folder ``log_dir`` (``tensorboard --logdir``
    shows it); each ``add_*`` call adds an event, at ``global_step`` (an int) and
    ``walltime`` (seconds since the epoch, now by default).

    Args:
        log_dir: the folder; by default ``runs/<date>_<time>_<hostname><comment>``, a new
            one per run.
        comment: appended to the default ``log_dir`` (ignored when ``log_dir`` is given).
        purge_step: when resuming a run that stopped after this step, TensorBoard hides the
            earlier events at this step or later (they belong to the crashed run).
        max_queue: how many events wait in memory before they are written.
        flush_secs: the longest time, in seconds, events wait before they are written.
        filename_suffix: appended to the event file's name.

    The writer is a context manager: leaving the ``with`` block closes it. After ``close``,
    another ``add_*`` call opens a new event file in the same folder.
    """

    def __init__(
        self,
        log_dir=None,
        comment="",
        purge_step=None,
        max_queue=10,
        flush_secs=120,
        filename_suffix="",
    ):
        if not log_dir:
            now = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{now}_{socket.gethostname()}{comment}")
        self.log_dir = os.fspath(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = None
        self.all_writers = None
        self._get_file_writer()

    # -- files --------------------------------------------------------------------------

    def _get_file_writer(self):
        if self.file_writer is None or self.all_writers is None:
            self.file_writer = FileWriter(
                self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix
            )
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # a restart at purge_step: readers drop the older events from this step on
                step = int(self.purge_step)
                self.file_writer.add_event(event_pb2.Event(file_version="brain.Event:2"), step=step)
                start = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
                self.file_writer.add_event(event_pb2.Event(session_log=start), step=step)
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        """The folder the events go to."""
        return self.log_dir

    def flush(self):
        """Write every pending event to disk now."""
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self):
        """Flush and close the event files."""
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()

    def _add(self, summary, global_step, walltime):
        self._get_file_writer().add_summary(summary, global_step, walltime)

    # -- scalars, tensors ---------------------------------------------------------------

    def add_scalar(
        self,
        tag,
        scalar_value,
        global_step=None,
        walltime=None,
        new_style=False,
        double_precision=False,
    ):
        """One number (a Python number, or a one-element tensor or array) under ``tag``.
        ``new_style`` stores it as a tensor (float64 with ``double_precision``), which
        loads faster in recent TensorBoards; the default form is read by all."""
        summary = _summary.scalar(
            tag, scalar_value, new_style=new_style, double_precision=double_precision
        )
        self._add(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several numbers plotted on one chart ``main_tag``: each key of
        ``tag_scalar_dict`` is a run of its own, in the folder
        ``<log_dir>/<main_tag with '/' as '_'>_<key>``."""
        walltime = time.time() if walltime is None else walltime
        log_dir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            run_dir = os.path.join(log_dir, main_tag.replace("/", "_") + "_" + tag)
            writer = self.all_writers.get(run_dir)
            if writer is None:
                writer = FileWriter(run_dir, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[run_dir] = writer
            writer.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_tensor(self, tag, tensor, global_step=None, walltime=None):
        """A whole tensor (TensorBoard's generic tensor data, for custom plugins)."""
        self._add(_summary.tensor_proto(tag, tensor), global_step, walltime)

    # -- histograms ---------------------------------------------------------------------

    def add_histogram(
        self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None
    ):
        """The histogram of ``values`` (a tensor or array of any shape). ``bins`` is
        ``"tensorflow"`` (TensorFlow's fixed exponential buckets), or anything
        ``numpy.histogram`` takes (a count, edges, ``"auto"``, ``"fd"``, ...); ``max_bins``
        merges neighbouring buckets down to that many."""
        self._add(_summary.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_histogram_raw(
        self,
        tag,
        min,  # noqa: A002 (PyTorch's argument names)
        max,  # noqa: A002
        num,
        sum,  # noqa: A002
        sum_squares,
        bucket_limits,
        bucket_counts,
        global_step=None,
        walltime=None,
    ):
        """A histogram computed elsewhere: its statistics, and ``bucket_counts[i]`` values
        at most at ``bucket_limits[i]``."""
        summary = _summary.histogram_raw(
            tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts
        )
        self._add(summary, global_step, walltime)

    # -- images -------------------------------------------------------------------------

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """One image, stored as PNG. ``img_tensor`` is laid out as ``dataformats``
        (``"CHW"``, ``"HWC"`` or ``"HW"``) with 1 (gray), 3 (RGB) or 4 (RGBA) channels; its
        values are uint8, or floats in [0, 1] (scaled by 255, clipped)."""
        self._add(_summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """A batch of images (``"NCHW"`` or ``"NHWC"``) tiled into one image, 8 to a row."""
        self._add(_summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (or a list of them, tiled side by side), rendered to an
        image. ``close`` closes the figures afterwards. Needs matplotlib."""
        import matplotlib.pyplot as plt
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        figures = figure if isinstance(figure, (list, tuple)) else [figure]
        images = []
        for fig in figures:
            canvas = FigureCanvasAgg(fig)
            canvas.draw()
            rgba = np.asarray(canvas.buffer_rgba())
            images.append(rgba[:, :, :3].transpose(2, 0, 1))  # CHW, RGB
            if close:
                plt.close(fig)
        if isinstance(figure, (list, tuple)):
            self.add_images(tag, np.stack(images), global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(tag, images[0], global_step, walltime, dataformats="CHW")

    def add_image_with_boxes(self, *args, **kwargs):
        """Not implemented in this project (PyTorch draws the boxes with Pillow)."""
        raise NotImplementedError("SummaryWriter.add_image_with_boxes is not implemented")

    def add_video(self, *args, **kwargs):
        """Not implemented in this project (PyTorch encodes GIFs with moviepy)."""
        raise NotImplementedError("SummaryWriter.add_video is not implemented")

    def add_mesh(self, *args, **kwargs):
        """Not implemented in this project."""
        raise NotImplementedError("SummaryWriter.add_mesh is not implemented")

    def add_onnx_graph(self, *args, **kwargs):
        """Not implemented in this project (there is no ONNX support)."""
        raise NotImplementedError("SummaryWriter.add_onnx_graph is not implemented")

    # -- text, audio --------------------------------------------------------------------

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """A string, rendered as Markdown by TensorBoard (tag ``<tag>/text_summary``)."""
        self._add(_summary.text(tag, text_string), global_step, walltime)

    def add_audio(self, tag, snd_tensor, global_step=None, sample_rate=44100, walltime=None):
        """Mono sound: samples in [-1, 1], shape ``(L,)`` or ``(1, L)``, stored as WAV."""
        self._add(_summary.audio(tag, snd_tensor, sample_rate), global_step, walltime)

    # -- precision-recall curves --------------------------------------------------------

    def add_pr_curve(
        self,
        tag,
        labels,
        predictions,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ):
        """The precision-recall curve of ``predictions`` (probabilities) for binary
        ``labels``, at ``num_thresholds`` evenly spaced thresholds (at most 127)."""
        summary = _summary.pr_curve(tag, labels, predictions, num_thresholds, weights)
        self._add(summary, global_step, walltime)

    def add_pr_curve_raw(
        self,
        tag,
        true_positive_counts,
        false_positive_counts,
        true_negative_counts,
        false_negative_counts,
        precision,
        recall,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ):
        """A precision-recall curve from its counts, one value per threshold."""
        summary = _summary.pr_curve_raw(
            tag,
            true_positive_counts,
            false_positive_counts,
            true_negative_counts,
            false_negative_counts,
            precision,
            recall,
            num_thresholds,
            weights,
        )
        self._add(summary, global_step, walltime)

    # -- dashboards ---------------------------------------------------------------------

    def add_custom_scalars(self, layout):
        """The layout of the Custom Scalars dashboard: ``{category: {chart title:
        ["Multiline", [tags]] or ["Margin", [value tag, lower tag, upper tag]]}}``."""
        self._add(_summary.custom_scalars(layout), None, None)

    def add_custom_scalars_multilinechart(self, tags, category="default", title="untitled"):
        """A Custom Scalars layout of one chart with the scalars ``tags``."""
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(self, tags, category="default", title="untitled"):
        """A Custom Scalars layout of one chart: a value and its bounds (three tags)."""
        if len(tags) != 3:
            raise ValueError(f"a margin chart takes 3 tags (value, lower, upper), got {tags}")
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_hparams(
        self,
        hparam_dict,
        metric_dict,
        hparam_domain_discrete=None,
        run_name=None,
        global_step=None,
    ):
        """One session for TensorBoard's HParams dashboard: the hyperparameters
        ``hparam_dict`` (bools, numbers, strings) and the final metrics ``metric_dict``
        (numbers). They go to a run of their own, the folder ``<log_dir>/<run_name>``
        (the current time by default); each metric is also written there as a scalar.
        ``hparam_domain_discrete`` lists the possible values of some hyperparameters."""
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError("add_hparams: hparam_dict and metric_dict must be dicts")
        experiment, start, end = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        run_dir = os.path.join(self._get_file_writer().get_logdir(), run_name or str(time.time()))
        with SummaryWriter(log_dir=run_dir) as run:
            for summary in (experiment, start, end):
                run._add(summary, global_step, None)
            for tag, value in metric_dict.items():
                run.add_scalar(tag, value, global_step)

    # -- graphs, embeddings -------------------------------------------------------------

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """A graph of ``model``'s modules, recorded from one call ``model(*input_to_model)``
        (a tensor, or a tuple of arguments).

        This project has no tracer: the graph has a node per leaf-module call and edges
        found through autograd, not PyTorch's graph of every operation (see
        ``torch.utils.tensorboard._graph``). ``verbose`` prints the nodes;
        ``use_strict_trace`` is accepted and has no effect.
        """
        from torch.utils.tensorboard._graph import build_graph

        graph = build_graph(model, input_to_model, verbose=verbose)
        self._get_file_writer().add_graph(graph)

    def add_embedding(
        self,
        mat,
        metadata=None,
        label_img=None,
        global_step=None,
        tag="default",
        metadata_header=None,
    ):
        """Points for TensorBoard's Projector: ``mat`` is (N, D), one point per row.

        ``metadata`` labels the points: a list of N values, or with ``metadata_header``
        (the column names) a list of N rows. ``label_img`` (N, C, H, W) gives each point a
        picture. The files go to ``<log_dir>/<global_step, 5 digits>/<tag>/``
        (``tensors.tsv``, ``metadata.tsv``, ``sprite.png``) and are listed in
        ``<log_dir>/projector_config.pbtxt``.
        """
        mat = make_np(mat)
        if mat.ndim != 2:
            raise ValueError(f"add_embedding: mat must be 2-D (N, D), got shape {mat.shape}")
        n = mat.shape[0]
        step = 0 if global_step is None else int(global_step)
        subdir = f"{step:05d}/{_path_component(str(tag))}"
        log_dir = self._get_file_writer().get_logdir()
        save_path = os.path.join(log_dir, subdir)
        os.makedirs(save_path, exist_ok=True)

        info = projector_config_pb2.EmbeddingInfo(
            tensor_name=subdir, tensor_path=f"{subdir}/tensors.tsv"
        )
        if metadata is not None:
            metadata = list(metadata)
            if len(metadata) != n:
                raise ValueError(f"add_embedding: {len(metadata)} metadata rows for {n} points")
            if metadata_header is not None:
                lines = ["\t".join(str(h) for h in metadata_header)]
                lines += ["\t".join(str(x) for x in row) for row in metadata]
            else:
                lines = [str(x) for x in metadata]
            with open(os.path.join(save_path, "metadata.tsv"), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
            info.metadata_path = f"{subdir}/metadata.tsv"
        if label_img is not None:
            images = make_np(label_img)
            if images.ndim != 4 or images.shape[0] != n:
                raise ValueError(
                    f"add_embedding: label_img must be (N, C, H, W) with N={n}, "
                    f"got shape {images.shape}"
                )
            side = int(np.ceil(np.sqrt(n)))
            grid = make_grid(images, ncols=side).transpose(1, 2, 0)  # HWC
            # the Projector expects a square sprite, side x side images
            h, w = images.shape[2], images.shape[3]
            sprite = np.zeros((side * h, side * w, grid.shape[2]), dtype=grid.dtype)
            sprite[: grid.shape[0], : grid.shape[1]] = grid
            with open(os.path.join(save_path, "sprite.png"), "wb") as f:
                f.write(encode_png(to_uint8(sprite)))
            info.sprite.image_path = f"{subdir}/sprite.png"
            info.sprite.single_image_dim.extend([w, h])
        with open(os.path.join(save_path, "tensors.tsv"), "w", encoding="utf-8") as f:
            for row in mat.reshape(n, -1):
                f.write("\t".join(repr(float(x)) for x in row) + "\n")

        config = projector_config_pb2.ProjectorConfig(embeddings=[info])
        with open(os.path.join(log_dir, "projector_config.pbtxt"), "a", encoding="utf-8") as f:
            f.write(text_format.MessageToString(config))
