from ._spatial import Padding2d


class SpatialZeroPadding(Padding2d):
    """Pads the last two dims with zeros (negative values crop):
    pad_l, pad_r columns and pad_t, pad_b rows (pad_r, pad_t and pad_b default to pad_l)."""

    _mode = 0
