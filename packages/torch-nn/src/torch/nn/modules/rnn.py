"""Recurrent layers: RNN, LSTM, GRU and their cells.

The modules here hold the parameters and check the arguments; the recurrences themselves
(the fused time loops, the recorded steps, the rows layout of padded and packed input) are
in ``_rnn_functional``."""

import math
import numbers
import warnings

import torch
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules._rnn_functional import (
    _from_rows,
    _gru_step,
    _lstm_step,
    _recurrence,
    _rnn_step,
    _run_layers,
    _to_rows,
)
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter
from torch.nn.utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ---------------------------------------------------------------- modules
class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters (weight_ih_l{k}, weight_hh_l{k},
    bias_ih_l{k}, bias_hh_l{k}, suffixed _reverse for the backward direction; all from
    U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))), argument checks and the layer loop."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]  # fmt: skip

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):  # fmt: skip
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        kw = {"device": device, "dtype": dtype}
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = "_reverse" if direction == 1 else ""
                params = [
                    (f"weight_ih_l{layer}{suffix}", (gate_size, layer_input)),
                    (f"weight_hh_l{layer}{suffix}", (gate_size, real_hidden)),
                ]
                if bias:
                    params += [
                        (f"bias_ih_l{layer}{suffix}", (gate_size,)),
                        (f"bias_hh_l{layer}{suffix}", (gate_size,)),
                    ]
                if proj_size > 0:
                    params.append((f"weight_hr_l{layer}{suffix}", (proj_size, hidden_size)))
                for name, shape in params:
                    setattr(self, name, Parameter(torch.empty(shape, **kw)))
                names = [name for name, _ in params]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self):
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """Kept for compatibility: parameters are always used as they are."""

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def __setstate__(self, state):
        super().__setstate__(state)
        self.__dict__.setdefault("proj_size", 0)

    # ------------------------------------------------------------------ checks
    def _name(self):
        return type(self).__name__

    def _check_hidden(self, hx, expected, what="hidden"):
        if tuple(hx.shape) != tuple(expected):
            raise RuntimeError(f"Expected {what} size {tuple(expected)}, got {list(hx.shape)}")

    def _expected_hidden(self, batch, cell=False):
        directions = 2 if self.bidirectional else 1
        size = self.hidden_size if cell or self.proj_size == 0 else self.proj_size
        return (self.num_layers * directions, batch, size)

    # ------------------------------------------------------------------ forward
    def _prepare(self, input, hx):
        """The checked input in rows layout (see ``_rnn_functional._to_rows``)."""
        if isinstance(input, PackedSequence):
            if input.data.dim() != 2:
                raise RuntimeError(
                    f"{self._name()}: packed input data must be 2D, got {input.data.dim()}D"
                )
        elif input.dim() not in (2, 3):
            raise ValueError(
                f"{self._name()}: Expected input to be 2D or 3D, got {input.dim()}D instead"
            )
        return _to_rows(input, self.batch_first)

    def _run(self, data, batch_sizes, h0, c0):
        """The layer loop over rows-layout data; returns (output rows, h_n, c_n)."""
        if data.shape[-1] != self.input_size:
            raise RuntimeError(
                f"{self._get_name()}({self.input_size}, {self.hidden_size}): input.size(-1) must "
                f"be equal to input_size. Expected {self.input_size}, got {data.shape[-1]}"
            )
        # _recurrence as this module holds it: torch.amp's autocast wraps it here
        return _run_layers(self, data, batch_sizes, h0, c0, _recurrence)

    def _finish(self, out, layout, batched, sorted_indices, unsorted_indices, batch_sizes):
        return _from_rows(
            out, layout, batched, self.batch_first, sorted_indices, unsorted_indices, batch_sizes
        )

    def _hidden_in(self, hx, batch, batched, sorted_indices, cell=False, what="hidden"):
        expected = self._expected_hidden(batch, cell)
        if hx is None:
            w = self.weight_ih_l0
            return torch.zeros(expected, dtype=w.dtype, device=w.device)
        if batched and hx.dim() != 3:
            raise RuntimeError(
                f"For batched 3-D input, hx and cx should also be 3-D but got {hx.dim()}-D tensor"
            )
        if not batched:
            if hx.dim() != 2:
                raise RuntimeError(
                    f"For unbatched 2-D input, hx and cx should also be 2-D but got {hx.dim()}-D "
                    "tensor"
                )
            hx = hx.unsqueeze(1)
        if sorted_indices is not None:
            hx = hx.index_select(1, sorted_indices)
        self._check_hidden(hx, expected, what)
        return hx

    def _hidden_out(self, h, batched, unsorted_indices):
        if unsorted_indices is not None:
            h = h.index_select(1, unsorted_indices)
        return h if batched else h.squeeze(1)

    def _forward_one_state(self, input, hx):
        """The forward of RNN and GRU (one hidden state): (output, h_n)."""
        data, sizes, batch, layout, s_idx, u_idx, batched = self._prepare(input, hx)
        h0 = self._hidden_in(hx, batch, batched, s_idx)
        out, h_n, _ = self._run(data, sizes, h0, None)
        bs = input.batch_sizes if layout == "packed" else None
        return (
            self._finish(out, layout, batched, s_idx, u_idx, bs),
            self._hidden_out(h_n, batched, u_idx),
        )


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).

    RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False); forward(input, hx=None) ->
    (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_one_state(input, hx)


class LSTM(RNNBase):
    """Long short-term memory:
    i, f, g, o = sigma, sigma, tanh, sigma of (x W_ih^T + b_ih + h W_hh^T + b_hh) chunks;
    c' = f c + i g; h' = o tanh(c') (projected by weight_hr when ``proj_size`` > 0).

    forward(input, (h_0, c_0)=None) -> (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        data, sizes, batch, layout, s_idx, u_idx, batched = self._prepare(input, hx)
        if hx is None:
            h0 = self._hidden_in(None, batch, batched, s_idx)
            c0 = self._hidden_in(None, batch, batched, s_idx, cell=True)
        else:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError("LSTM: hx must be a tuple (h_0, c_0) of two tensors")
            h0 = self._hidden_in(hx[0], batch, batched, s_idx, what="hidden[0]")
            c0 = self._hidden_in(hx[1], batch, batched, s_idx, cell=True, what="hidden[1]")
        out, h_n, c_n = self._run(data, sizes, h0, c0)
        bs = input.batch_sizes if layout == "packed" else None
        return self._finish(out, layout, batched, s_idx, u_idx, bs), (
            self._hidden_out(h_n, batched, u_idx),
            self._hidden_out(c_n, batched, u_idx),
        )


class GRU(RNNBase):
    """Gated recurrent unit: r, z = sigma(...), n = tanh(x W_in^T + b_in + r (h W_hn^T +
    b_hn)), h' = (1 - z) n + z h.  forward(input, hx=None) -> (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward_one_state(input, hx)


# ---------------------------------------------------------------- cells
class RNNCellBase(Module):
    """The base of :class:`RNNCell`, :class:`LSTMCell` and :class:`GRUCell`: holds ``weight_ih``
    (``num_chunks * hidden_size``, ``input_size``), ``weight_hh`` and, with ``bias``,
    ``bias_ih``/``bias_hh``, initialised from U(-k, k) with k = 1/sqrt(hidden_size)."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(torch.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s

    reset_parameters = RNNBase.reset_parameters  # (the layers' initialisation)

    def _inputs(self, input, hx):
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"{type(self).__name__}: input has inconsistent input_size: got "
                f"{input.shape[-1]} expected {self.input_size}"
            )
        for h in hx if isinstance(hx, (tuple, list)) else (hx,):
            if h is not None and h.dim() != input.dim():
                raise ValueError(
                    f"{type(self).__name__}: Expected hidden to be "
                    f"{'1D' if input.dim() == 1 else '2D'} for "
                    f"{'unbatched 1D' if input.dim() == 1 else 'batched 2D'} input, got "
                    f"{h.dim()}D instead"
                )
        return input.dim() == 2

    def _zeros(self, input):
        return torch.zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)

    def _forward_one_state(self, input, hx):
        """The forward of RNNCell and GRUCell (one state, their ``_step``)."""
        batched = self._inputs(input, hx)
        if not batched:
            input = input.unsqueeze(0)
            hx = hx.unsqueeze(0) if hx is not None else None
        if hx is None:
            hx = self._zeros(input)
        h = self._step(F.linear(input, self.weight_ih, self.bias_ih), hx)
        return h if batched else h.squeeze(0)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):  # fmt: skip
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return self._forward_one_state(input, hx)

    def _step(self, xw, h):
        return _rnn_step(xw, h, self.weight_hh, self.bias_hh, self.nonlinearity == "relu")


class LSTMCell(RNNCellBase):
    """One LSTM step: forward(input, (h, c)=None) -> (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        batched = self._inputs(input, hx)
        if not batched:
            input = input.unsqueeze(0)
            hx = tuple(h.unsqueeze(0) for h in hx) if hx is not None else None
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        xw = F.linear(input, self.weight_ih, self.bias_ih)
        h, c = _lstm_step(xw, hx[0], hx[1], self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: forward(input, h=None) -> h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._forward_one_state(input, hx)

    def _step(self, xw, h):
        return _gru_step(xw, h, self.weight_hh, self.bias_hh)
