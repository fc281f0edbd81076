"""Spatial transformers: affine_grid makes sampling grids, grid_sample samples an input
at them."""

import itertools
import math

import torch
from torch.nn._functional.common import _check_tensor, _tensors


def _grid_axis(n, align_corners, dtype, device):
    """The n sample positions along one output axis, in [-1, 1] coordinates: the pixel
    centres (``align_corners=False``) or the corner pixels' centres at -1 and 1."""
    if n <= 1:
        return torch.zeros(n, dtype=dtype, device=device)
    r = torch.linspace(-1.0, 1.0, n, dtype=dtype, device=device)
    return r if align_corners else r * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps, for :func:`grid_sample`.

    theta (N, 2, 3) with size (N, C, H, W) gives a grid (N, H, W, 2); theta (N, 3, 4) with
    size (N, C, D, H, W) gives (N, D, H, W, 3).  Each output point, in normalised [-1, 1]
    coordinates (x, y[, z]), is mapped by theta; ``align_corners`` (default False) as in
    grid_sample."""
    _check_tensor(theta, "affine_grid", "theta")
    align_corners = bool(align_corners) if align_corners is not None else False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    dims = [int(s) for s in size]
    if len(dims) not in (4, 5):
        raise NotImplementedError(
            f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    d = len(dims) - 2
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (d, d + 1):
        raise ValueError(
            f"Expected a batch of {d}D affine matrices of shape Nx{d}x{d + 1} for size {size}. "
            f"Got {theta.shape}."
        )
    if min(dims) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    n, spatial = dims[0], dims[2:]
    if theta.shape[0] != n:
        raise RuntimeError(
            f"affine_grid(): theta holds {theta.shape[0]} matrices but size asks for a batch of {n}"
        )
    # base (*spatial, d + 1): (x, y[, z], 1), x along the last spatial dimension
    columns = []
    for k in range(d):
        axis = len(spatial) - 1 - k  # x is the last spatial dimension, y the one before
        shape = [1] * len(spatial)
        shape[axis] = spatial[axis]
        columns.append(
            _grid_axis(spatial[axis], align_corners, theta.dtype, theta.device).reshape(shape)
        )
    columns = [col.expand(*spatial) for col in columns]
    columns.append(torch.ones(spatial, dtype=theta.dtype, device=theta.device))
    base = torch.stack(columns, -1).reshape(1, -1, d + 1).expand(n, -1, d + 1)
    grid = torch.bmm(base, theta.transpose(1, 2))  # (N, points, d)
    return grid.reshape(n, *spatial, d)


_GRID_MODES = ("bilinear", "nearest", "bicubic")
_GRID_PADDINGS = ("zeros", "border", "reflection")


def _grid_unnormalize(coord, n, align_corners):
    """[-1, 1] grid coordinates to pixel positions along an axis of n pixels."""
    if align_corners:
        return (coord + 1) * ((n - 1) / 2)
    return ((coord + 1) * n - 1) / 2


def _grid_clip(coord, n):
    """Clamped to [0, n - 1] (NaN to 0), with gradient 1 strictly inside only."""
    coord = torch.where(coord > 0, coord, 0.0)
    return torch.where(coord < n - 1, coord, float(n - 1))


def _grid_reflect(coord, twice_low, twice_high):
    """coord reflected off the bounds twice_low / 2 and twice_high / 2 until inside."""
    if twice_low == twice_high:
        return torch.zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    flips = torch.floor(coord.detach() / span)
    extra = coord - flips * span  # coord mod span, differentiable in coord
    even = torch.fmod(flips, 2) == 0
    return torch.where(even, extra + low, span - extra + low)


def _grid_pad(coord, n, padding_mode, align_corners):
    """Pixel positions outside the input moved inside (border, reflection) or kept."""
    if padding_mode == "border":
        return _grid_clip(coord, n)
    if padding_mode == "reflection":
        if align_corners:
            coord = _grid_reflect(coord, 0, 2 * (n - 1))
        else:
            coord = _grid_reflect(coord, -1, 2 * n - 1)
        return _grid_clip(coord, n)
    return coord


def _cubic_weights(t):
    """The four cubic-convolution weights (A = -0.75) of the taps at -1, 0, 1, 2 from the
    floor, for the fractional position t."""
    a = -0.75

    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _grid_gather(flat, taps, sizes):
    """sum over all combinations of one tap per spatial dimension of weight * value, where
    taps[k] is a list of (position (N, P), weight (N, P) or None) along dimension k; taps
    outside the input contribute 0.  flat: the input as (N, C, prod(sizes))."""
    n, c = flat.shape[0], flat.shape[1]
    strides = [math.prod(sizes[k + 1 :]) for k in range(len(sizes))]
    out = None
    for combo in itertools.product(*taps):
        valid = lin = w = None
        for k, (pos, weight) in enumerate(combo):
            inside = (pos >= 0) & (pos <= sizes[k] - 1)  # False for NaN
            term = torch.where(inside, pos, 0.0).long() * strides[k]
            valid = inside if valid is None else valid & inside
            lin = term if lin is None else lin + term
            if weight is not None:
                w = weight if w is None else w * weight
        lin = torch.where(valid, lin, 0)
        p = lin.shape[1]
        vals = flat.gather(2, lin.unsqueeze(1).expand(n, c, p))
        vals = torch.where(valid.unsqueeze(1), vals, 0.0)
        term = vals if w is None else vals * w.unsqueeze(1)
        out = term if out is None else out + term
    return out


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples input at the positions of grid.

    input (N, C, H, W) with grid (N, Ho, Wo, 2) gives (N, C, Ho, Wo); input (N, C, D, H, W)
    with grid (N, Do, Ho, Wo, 3) gives (N, C, Do, Ho, Wo).  grid[..., 0] is x (the input's
    width), grid[..., 1] y, grid[..., 2] z, normalised to [-1, 1]: the centres of the corner
    pixels with ``align_corners=True``, their outer edges otherwise (the default).  ``mode``
    'bilinear' (trilinear for 5-D), 'nearest' or 'bicubic' (4-D only); ``padding_mode``
    'zeros', 'border' or 'reflection' for points outside.  Differentiable in input and in
    grid (except for 'nearest', whose grid gradient is zero)."""
    op = "grid_sampler()"
    _tensors("grid_sample", input=input, grid=grid)
    if mode not in _GRID_MODES:
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in _GRID_PADDINGS:
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    align_corners = bool(align_corners) if align_corners is not None else False
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"{op}: expected input and grid to have the same dtype, but input has "
            f"{input.dtype} and grid has {grid.dtype}"
        )
    if input.dim() >= 1 and grid.dim() >= 1:
        if input.shape[0] != grid.shape[0]:
            raise RuntimeError(
                f"{op}: expected grid and input to have same batch size, but got input with "
                f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
            )
        if grid.shape[-1] != input.dim() - 2:
            raise RuntimeError(
                f"{op}: expected grid to have size {input.dim() - 2} in last dimension, but got "
                f"grid with sizes {list(grid.shape)}"
            )
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(
            f"{op}: expected 4D or 5D input and grid with same number of dimensions, but got "
            f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    for i in range(2, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(
                f"{op}: expected input to have non-empty spatial dimensions, but input has "
                f"sizes {list(input.shape)} with dimension {i} being empty"
            )
    if mode == "bicubic" and input.dim() != 4:
        raise RuntimeError(f"{op}: bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        raise NotImplementedError(f"grid_sample(): not implemented for {input.dtype}")
    n, c = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])
    d = len(sizes)
    out_spatial = list(grid.shape[1:-1])
    g = grid.reshape(n, math.prod(out_spatial), d)
    # spatial dimension k of the input is addressed by grid[..., d - 1 - k]
    coords = [_grid_unnormalize(g[:, :, d - 1 - k], sizes[k], align_corners) for k in range(d)]
    taps = []
    for k, (coord, size) in enumerate(zip(coords, sizes)):
        if mode == "bicubic":
            low = torch.floor(coord.detach())
            weights = _cubic_weights(coord - low)
            taps.append([
                (_grid_pad(low + (j - 1), size, padding_mode, align_corners), weights[j])
                for j in range(4)
            ])  # fmt: skip
            continue
        coord = _grid_pad(coord, size, padding_mode, align_corners)
        if mode == "nearest":
            # weight 1 whose gradient is 0: grid still receives a (zero) gradient
            one = None
            if k == 0 and coord.requires_grad:
                one = torch.where(coord.new_zeros(coord.shape, dtype=torch.bool), coord, 1.0)
            taps.append([(torch.round(coord.detach()), one)])
        else:
            low = torch.floor(coord.detach())
            frac = coord - low
            taps.append([(low, 1 - frac), (low + 1, frac)])
    out = _grid_gather(input.reshape(n, c, math.prod(sizes)), taps, sizes)
    return out.reshape(n, c, *out_spatial)
