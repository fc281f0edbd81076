"""Array helpers of the TensorBoard writer: tensors to NumPy, image layouts, PNG encoding."""

import math
import struct
import zlib

import numpy as np

import torch


def make_np(x):
    """``x`` (a tensor, a NumPy array, a Python or NumPy scalar, a list) as a NumPy array;
    scalars become 1-element arrays. Tensors are detached and copied to the CPU first."""
    if isinstance(x, np.ndarray):
        return x
    if torch.is_tensor(x):
        if hasattr(x, "detach"):
            x = x.detach()
        if getattr(x, "device", None) is not None and x.device.type != "cpu":
            x = x.cpu()
        if x.dtype == torch.bfloat16:  # NumPy has no bfloat16
            x = x.float()
        return x.numpy()
    if isinstance(x, (bool, int, float, np.generic)):
        return np.array([x])
    if isinstance(x, (list, tuple)):
        return np.asarray([make_np(v) if torch.is_tensor(v) else v for v in x])
    raise TypeError(f"expected a tensor, a NumPy array or a number, got {type(x).__name__}")


def to_float(x, what="value"):
    """A one-element tensor, array or number as a Python float."""
    array = make_np(x)
    if array.size != 1:
        raise ValueError(f"{what} must be a single number, got an array of shape {array.shape}")
    return float(array.reshape(()))


def _permute(array, dataformats, target):
    """``array``, laid out as ``dataformats`` (letters of ``target``, any order), permuted
    to the order of ``target``."""
    fmt = dataformats.upper()
    if sorted(fmt) != sorted(target) or array.ndim != len(fmt):
        raise ValueError(
            f"dataformats={dataformats!r} does not describe an array of shape {array.shape} "
            f"(expected a permutation of {target!r}, one letter per dimension)"
        )
    return array.transpose([fmt.index(c) for c in target])


def make_grid(images, ncols=8):
    """NCHW images -> one CHW image: ``ncols`` per row (fewer if there are fewer images),
    rows filled left to right, empty cells black. One channel becomes three."""
    n, c, h, w = images.shape
    if c == 1:
        images = np.concatenate([images] * 3, axis=1)
        c = 3
    ncols = max(1, min(n, ncols))
    nrows = math.ceil(n / ncols) if n else 1
    canvas = np.zeros((c, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        r, q = divmod(i, ncols)
        canvas[:, r * h : (r + 1) * h, q * w : (q + 1) * w] = images[i]
    return canvas


def convert_to_hwc(array, dataformats):
    """An image array in the layout ``dataformats`` -> HWC with 3 or 4 channels.

    ``NCHW`` (any order of those letters) is a batch, tiled into one image by ``make_grid``;
    ``CHW``, ``HWC`` etc. one image; ``HW`` a gray image. A single channel is repeated to
    make RGB; three channels are RGB and four RGBA."""
    fmt = dataformats.upper()
    if len(fmt) == 4:
        hwc = make_grid(_permute(array, fmt, "NCHW")).transpose(1, 2, 0)
    elif len(fmt) == 3:
        hwc = _permute(array, fmt, "HWC")
    elif len(fmt) == 2:
        hwc = _permute(array, fmt, "HW")[:, :, None]
    else:
        raise ValueError(f"dataformats={dataformats!r}: expected 2, 3 or 4 letters of NCHW")
    if hwc.shape[2] == 1:
        hwc = np.concatenate([hwc] * 3, axis=2)
    if hwc.shape[2] not in (3, 4):
        raise ValueError(f"an image has 1, 3 or 4 channels, got {hwc.shape[2]}")
    return hwc


def to_uint8(array):
    """Pixel values as bytes: uint8 arrays as they are, anything else taken to be in [0, 1]
    and scaled by 255 (out-of-range values clipped, NaN as 0)."""
    if array.dtype == np.uint8:
        return array
    scaled = np.nan_to_num(array.astype(np.float32), nan=0.0) * 255
    return scaled.clip(0, 255).astype(np.uint8)


def resize_nearest(hwc, scale):
    """Scale an HWC image by ``scale`` (nearest neighbour)."""
    if scale == 1:
        return hwc
    if not scale > 0:
        raise ValueError(f"rescale must be positive, got {scale}")
    h, w = hwc.shape[:2]
    new_h, new_w = max(1, round(h * scale)), max(1, round(w * scale))
    rows = np.minimum((np.arange(new_h) / scale).astype(np.int64), h - 1)
    cols = np.minimum((np.arange(new_w) / scale).astype(np.int64), w - 1)
    return hwc[rows][:, cols]


def _png_chunk(kind, data):
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def encode_png(hwc):
    """A uint8 HWC array (1 to 4 channels: gray, gray+alpha, RGB, RGBA) as PNG bytes."""
    height, width, channels = hwc.shape
    if height == 0 or width == 0:
        raise ValueError(f"cannot encode an empty image of shape {hwc.shape}")
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    rows = np.zeros((height, 1 + width * channels), dtype=np.uint8)  # filter byte 0: none
    rows[:, 1:] = np.ascontiguousarray(hwc, dtype=np.uint8).reshape(height, -1)
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
        + _png_chunk(b"IEND", b"")
    )
