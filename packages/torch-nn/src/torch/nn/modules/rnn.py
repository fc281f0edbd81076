"""Recurrent layers: RNN, LSTM, GRU and their cells.

The layers run each (layer, direction) as one autograd node (``_Recurrence``): the input
part of every gate is one matrix product over the whole sequence (``x @ W_ih^T + b``,
recorded as usual), then a loop over time does one product with the hidden state per
step, without recording; backward runs the loop in reverse and computes the weight
gradient as one product over the whole sequence.  Sequences are kept as rows: step t owns
``batch_sizes[t]`` consecutive rows (all the batch for a padded input; the still-running
sequences for a PackedSequence)."""

import math
import numbers
import warnings

import torch
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter
from torch.nn.utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _steps(batch_sizes, reverse):
    """(first row, number of rows) of each time step, in processing order."""
    offsets, start = [], 0
    for n in batch_sizes:
        offsets.append((start, n))
        start += n
    return offsets[::-1] if reverse else offsets


# ---------------------------------------------------------------- the fused recurrence
def _tanh_(t):
    """tanh in place, as 2 sigmoid(2x) - 1 (the core's sigmoid kernel is several times faster
    than its tanh; the absolute error is within a few ulps of 1)."""
    return t.mul_(2).sigmoid_().mul_(2).sub_(1)


def _forward_loop(mode, xw, h0, c0, w_hh, b_hh, steps, hidden):
    """Run the recurrence without recording.  Returns the outputs (rows, H), the final
    states and what backward needs.

    When every step has the whole batch (a padded input), an LSTM runs in one core call and
    the other modes take the previous hidden state as a view of the previous step's output
    rows; for packed input the states live in (batch, H) buffers whose first n rows are the
    running sequences."""
    rows = xw.shape[0]
    H = hidden
    w_t = w_hh.t()
    batch = h0.shape[0]
    uniform = all(n == batch for _, n in steps)
    out = xw.new_empty((rows, H))
    saved = {"uniform": uniform, "h0": h0}
    if not uniform:
        h_buf = h0.clone()
        h_prev_all = saved["h_prev"] = xw.new_empty((rows, H))
    prev = None  # (r0, r1) of the previous step, uniform case
    if mode == "LSTM" and uniform:  # the whole loop in one core call
        if not steps:
            return out, h0.clone(), c0.clone(), saved
        reverse = steps[0][0] != 0
        c0 = c0.contiguous()
        out, acts, c_all, tc_all = torch._C._lstm_layer(
            xw.contiguous(), h0.contiguous(), c0, w_hh.contiguous(), reverse
        )
        saved.update(acts=acts, tc=tc_all, c_all=c_all, c0=c0)
        last = steps[-1][0]
        return out, out[last : last + batch].clone(), c_all[last : last + batch].clone(), saved
    if mode == "LSTM":  # packed: the running sequences are the buffers' first n rows
        acts = xw.new_empty((rows, 4 * H))  # i, f, g, o after their activations
        c_all = xw.new_empty((rows, H))
        tc_all = xw.new_empty((rows, H))
        c_buf = c0.contiguous().clone()  # the fused cell reads whole rows
        c_prev_all = saved["c_prev"] = xw.new_empty((rows, H))
        for r0, n in steps:
            r1 = r0 + n
            hp, cp = h_buf[:n], c_buf[:n]
            h_prev_all[r0:r1].copy_(hp)
            c_prev_all[r0:r1].copy_(cp)
            a = acts[r0:r1]
            torch.addmm(xw[r0:r1], hp, w_t, out=a)
            h, c = out[r0:r1], c_all[r0:r1]
            torch._C._lstm_cell(a, cp, c, tc_all[r0:r1], h)  # activations, c, tanh(c), h
            h_buf[:n].copy_(h)
            c_buf[:n].copy_(c)
        saved.update(acts=acts, tc=tc_all)
        return out, h_buf, c_buf, saved
    if mode == "GRU":
        acts = xw.new_empty((rows, 3 * H))  # r, z, n after their activations
        hw_n_all = xw.new_empty((rows, H))
        for r0, n in steps:
            r1 = r0 + n
            if uniform:
                hp = h0 if prev is None else out[prev[0] : prev[1]]
                prev = (r0, r1)
            else:
                hp = h_buf[:n]
                h_prev_all[r0:r1].copy_(hp)
            hw = torch.mm(hp, w_t) if b_hh is None else torch.addmm(b_hh, hp, w_t)
            a = acts[r0:r1]
            torch.add(xw[r0:r1, : 2 * H], hw[:, : 2 * H], out=a[:, : 2 * H])
            a[:, : 2 * H].sigmoid_()
            hw_n_all[r0:r1].copy_(hw[:, 2 * H :])
            nn_ = a[:, 2 * H :]
            nn_.copy_(_tanh_(torch.addcmul(xw[r0:r1, 2 * H :], a[:, :H], hw[:, 2 * H :])))
            h = out[r0:r1]  # h' = n + z * (h - n)
            torch.sub(hp, nn_, out=h)
            h.mul_(a[:, H : 2 * H]).add_(nn_)
            if not uniform:
                h_buf[:n].copy_(h)
        saved.update(acts=acts, hw_n=hw_n_all)
    else:
        relu = mode == "RNN_RELU"
        for r0, n in steps:
            r1 = r0 + n
            if uniform:
                hp = h0 if prev is None else out[prev[0] : prev[1]]
                prev = (r0, r1)
            else:
                hp = h_buf[:n]
                h_prev_all[r0:r1].copy_(hp)
            h = out[r0:r1]
            torch.addmm(xw[r0:r1], hp, w_t, out=h)
            if relu:
                h.relu_()
            else:
                _tanh_(h)
            if not uniform:
                h_buf[:n].copy_(h)
    if uniform:
        last = steps[-1][0] if steps else 0
        h_n = out[last : last + batch].clone() if steps else h0.clone()
        return out, h_n, None, saved
    return out, h_buf, None, saved


def _previous(saved, out, steps, key, first):
    """For each row, the state before its step: saved (packed input) or rebuilt from the
    step outputs (padded input: step k's previous state is step k-1's rows)."""
    if not saved["uniform"]:
        return saved[key]
    prev = torch.empty_like(out)
    _fill_previous(prev, out, first, steps)
    return prev


def _fill_previous(dst, out, first, steps):
    """dst[rows of step k] = out[rows of step k-1] (first for the first step), uniform
    batch: two copies."""
    n = first.shape[0]
    if steps[0][0] == 0:  # forward in time
        dst[n:].copy_(out[:-n])
        dst[:n].copy_(first)
    else:
        dst[:-n].copy_(out[n:])
        dst[-n:].copy_(first)


def _weight_grad(d, saved, out, steps):
    """d^T @ (the previous hidden state of each row), without materialising those states
    for padded input."""
    if not saved["uniform"]:
        return d.t().mm(saved["h_prev"])
    h0 = saved["h0"]
    n = h0.shape[0]
    if len(steps) == 1:
        return d.t().mm(h0)
    if steps[0][0] == 0:
        return torch.addmm(d[:n].t().mm(h0), d[n:].t(), out[:-n])
    return torch.addmm(d[-n:].t().mm(h0), d[:-n].t(), out[n:])


def _backward_loop(mode, saved, out, w_hh, g_out, g_hn, g_cn, steps, hidden, batch):
    """Gradients of the recurrence: (d xw, d h0, d c0, d W_hh, d b_hh)."""
    H = hidden
    gh_buf = g_hn.clone()
    if not steps:
        return out.new_zeros((0, w_hh.shape[0])), gh_buf, g_cn, w_hh * 0, None
    if mode == "LSTM" and saved["uniform"]:
        d_gates, gh, gc = torch._C._lstm_layer_backward(
            *(t.contiguous() for t in (g_out, g_hn, g_cn, w_hh)),
            saved["acts"], saved["c_all"], saved["tc"], saved["c0"], steps[0][0] != 0,
        )  # fmt: skip
        return d_gates, gh, gc, _weight_grad(d_gates, saved, out, steps), None
    if mode == "LSTM":  # packed
        acts, tc, c_prev = saved["acts"], saved["tc"], saved["c_prev"]
        d_gates = torch.empty_like(acts)
        gc_buf = g_cn.contiguous().clone()
        gh = torch.empty_like(gc_buf)
        for r0, n in steps[::-1]:
            r1 = r0 + n
            g = torch.add(gh_buf[:n], g_out[r0:r1], out=gh[:n])
            torch._C._lstm_cell_backward(
                g, gc_buf[:n], acts[r0:r1], c_prev[r0:r1], tc[r0:r1], d_gates[r0:r1]
            )
            torch.mm(d_gates[r0:r1], w_hh, out=gh_buf[:n])
        return d_gates, gh_buf, gc_buf, _weight_grad(d_gates, saved, out, steps), None
    if mode == "GRU":
        acts, hw_n = saved["acts"], saved["hw_n"]
        h_prev = _previous(saved, out, steps, "h_prev", saved["h0"])
        r, z, nn_ = (acts[:, k * H : (k + 1) * H] for k in range(3))
        a_n = (1 - z) * (1 - nn_ * nn_)  # d n_pre / d h'
        b_z = (h_prev - nn_) * z * (1 - z)  # d z_pre / d h'
        c_r = hw_n * r * (1 - r)  # d r_pre / d n_pre
        d_x = torch.empty_like(acts)
        d_h = torch.empty_like(acts)
        for r0, n in steps[::-1]:
            r1 = r0 + n
            gh = gh_buf[:n] + g_out[r0:r1]
            dn = gh * a_n[r0:r1]
            dz = gh * b_z[r0:r1]
            dr = dn * c_r[r0:r1]
            torch.cat([dr, dz, dn], 1, out=d_x[r0:r1])
            torch.cat([dr, dz, dn * r[r0:r1]], 1, out=d_h[r0:r1])
            torch.addmm(gh * z[r0:r1], d_h[r0:r1], w_hh, out=gh_buf[:n])
        return d_x, gh_buf, None, _weight_grad(d_h, saved, out, steps), d_h.sum(0)
    deriv = (out > 0).to(out.dtype) if mode == "RNN_RELU" else 1 - out * out
    d_pre = torch.empty_like(out)
    for r0, n in steps[::-1]:
        r1 = r0 + n
        gh = gh_buf[:n] + g_out[r0:r1]
        d = torch.mul(gh, deriv[r0:r1], out=d_pre[r0:r1])
        torch.mm(d, w_hh, out=gh_buf[:n])
    return d_pre, gh_buf, None, _weight_grad(d_pre, saved, out, steps), None


def _recurrence_class():
    from torch.autograd import Function
    from torch.autograd.function import once_differentiable

    class _Recurrence(Function):
        """One direction of one layer: (xw, h0, c0, W_hh, b_hh) -> (outputs, h_n, c_n)."""

        @staticmethod
        def forward(ctx, mode, batch_sizes, reverse, xw, h0, c0, w_hh, b_hh):
            hidden = w_hh.shape[1]
            steps = _steps(batch_sizes, reverse)
            out, h_n, c_n, saved = _forward_loop(mode, xw, h0, c0, w_hh, b_hh, steps, hidden)
            ctx.mode, ctx.steps, ctx.hidden = mode, steps, hidden
            ctx.has_bias = b_hh is not None
            ctx.uniform = saved.pop("uniform")
            # the buffers go through save_for_backward, so that backward frees them
            ctx.keys = tuple(k for k, v in saved.items() if v is not None)
            ctx.save_for_backward(w_hh, out, *(saved[k] for k in ctx.keys))
            if c_n is None:
                return out, h_n
            return out, h_n, c_n

        @staticmethod
        @once_differentiable
        def backward(ctx, g_out, g_hn, g_cn=None):
            w_hh, out, *buffers = ctx.saved_tensors
            saved = dict(zip(ctx.keys, buffers), uniform=ctx.uniform)
            d_xw, d_h0, d_c0, d_w, d_b = _backward_loop(
                ctx.mode, saved, out, w_hh, g_out, g_hn, g_cn, ctx.steps, ctx.hidden,
                g_hn.shape[0],
            )  # fmt: skip
            return None, None, None, d_xw, d_h0, d_c0, d_w, d_b if ctx.has_bias else None

    return _Recurrence


_RECURRENCE = []


def _recurrence(*args):
    if not _RECURRENCE:
        _RECURRENCE.append(_recurrence_class())
    return _RECURRENCE[0].apply(*args)


# ---------------------------------------------------------------- the recorded step (cells)
def _lstm_step(xw, h, c, w_hh, b_hh):
    gates = xw + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    i, f, o = torch.sigmoid(i), torch.sigmoid(f), torch.sigmoid(o)
    c = f * c + i * torch.tanh(g)
    return o * torch.tanh(c), c


def _gru_step(xw, h, w_hh, b_hh):
    hw = F.linear(h, w_hh, b_hh)
    xr, xz, xn = xw.chunk(3, 1)
    hr, hz, hn = hw.chunk(3, 1)
    r = torch.sigmoid(xr + hr)
    z = torch.sigmoid(xz + hz)
    n = torch.tanh(xn + r * hn)
    return n + z * (h - n)


def _rnn_step(xw, h, w_hh, b_hh, relu):
    pre = xw + F.linear(h, w_hh, b_hh)
    return torch.relu(pre) if relu else torch.tanh(pre)


def _recorded_direction(mode, xw, h0, c0, w_hh, b_hh, w_hr, batch_sizes, reverse):
    """The recurrence as recorded ops, one step at a time (LSTM with projections)."""
    h, c = h0, c0
    outs = {}
    for r0, n in _steps(batch_sizes, reverse):
        x_t = xw.narrow(0, r0, n)
        hp = h.narrow(0, 0, n)
        if mode == "LSTM":
            cp = c.narrow(0, 0, n)
            h_new, c_new = _lstm_step(x_t, hp, cp, w_hh, None)
            if w_hr is not None:
                h_new = F.linear(h_new, w_hr)
            c = c_new if n == c.shape[0] else torch.cat([c_new, c.narrow(0, n, c.shape[0] - n)])
        elif mode == "GRU":
            h_new = _gru_step(x_t, hp, w_hh, b_hh)
        else:
            h_new = _rnn_step(x_t, hp, w_hh, None, mode == "RNN_RELU")
        h = h_new if n == h.shape[0] else torch.cat([h_new, h.narrow(0, n, h.shape[0] - n)])
        outs[r0] = h_new
    out = torch.cat([outs[k] for k in sorted(outs)]) if outs else xw.new_empty((0, h0.shape[1]))
    return out, h, c


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
        """Rows layout: (data (rows, in), batch_sizes, batch, how to rebuild the output,
        sorted/unsorted indices, batched?)."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            sizes = [int(b) for b in batch_sizes.tolist()]
            if data.dim() != 2:
                raise RuntimeError(
                    f"{self._name()}: packed input data must be 2D, got {data.dim()}D"
                )
            return data, sizes, sizes[0], "packed", sorted_indices, unsorted_indices, True
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{self._name()}: Expected input to be 2D or 3D, got {input.dim()}D instead"
            )
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        steps, batch = input.shape[0], input.shape[1]
        data = input.reshape(steps * batch, input.shape[2])
        return data, [batch] * steps, batch, (steps, batch), None, None, batched

    def _run(self, data, batch_sizes, h0, c0):
        """The layer loop over rows-layout data; returns (output rows, h_n, c_n)."""
        if data.shape[-1] != self.input_size:
            raise RuntimeError(
                f"{self._get_name()}({self.input_size}, {self.hidden_size}): input.size(-1) must "
                f"be equal to input_size. Expected {self.input_size}, got {data.shape[-1]}"
            )
        directions = 2 if self.bidirectional else 1
        mode = self.mode
        fused = self.proj_size == 0
        layer_input = data
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(directions):
                idx = layer * directions + direction
                names = self._all_weights[idx]
                w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
                b_ih = getattr(self, names[2]) if self.bias else None
                b_hh = getattr(self, names[3]) if self.bias else None
                w_hr = getattr(self, names[-1]) if self.proj_size > 0 else None
                if mode != "GRU" and b_ih is not None:
                    xw = F.linear(layer_input, w_ih, b_ih + b_hh)  # b_hh folded in
                    b_step = None
                else:
                    xw = F.linear(layer_input, w_ih, b_ih)
                    b_step = b_hh
                cx = c0[idx] if c0 is not None else None
                if fused:
                    res = _recurrence(
                        mode, batch_sizes, direction == 1, xw, h0[idx], cx, w_hh, b_step
                    )
                    out, h_last = res[0], res[1]
                    c_last = res[2] if mode == "LSTM" else None
                else:
                    out, h_last, c_last = _recorded_direction(
                        mode, xw, h0[idx], cx, w_hh, b_step, w_hr, batch_sizes, direction == 1
                    )
                outs.append(out)
                h_n.append(h_last)
                if c_last is not None:
                    c_n.append(c_last)
            layer_output = outs[0] if directions == 1 else torch.cat(outs, 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_output = F.dropout(layer_output, self.dropout, True)
            layer_input = layer_output
        return layer_input, torch.stack(h_n), torch.stack(c_n) if c_n else None

    def _finish(self, out, layout, batched, sorted_indices, unsorted_indices, batch_sizes):
        if layout == "packed":
            return PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
        steps, batch = layout
        out = out.reshape(steps, batch, out.shape[-1])
        if not batched:
            return out.squeeze(1)
        return out.transpose(0, 1) if self.batch_first else out

    def _hidden_in(self, hx, batch, batched, sorted_indices, cell=False, what="hidden"):
        expected = self._expected_hidden(batch, cell)
        if hx is None:
            dtype = self.weight_ih_l0.dtype
            return torch.zeros(expected, dtype=dtype)
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
        data, sizes, batch, layout, s_idx, u_idx, batched = self._prepare(input, hx)
        h0 = self._hidden_in(hx, batch, batched, s_idx)
        out, h_n, _ = self._run(data, sizes, h0, None)
        bs = input.batch_sizes if layout == "packed" else None
        return (
            self._finish(out, layout, batched, s_idx, u_idx, bs),
            self._hidden_out(h_n, batched, u_idx),
        )


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
        data, sizes, batch, layout, s_idx, u_idx, batched = self._prepare(input, hx)
        h0 = self._hidden_in(hx, batch, batched, s_idx)
        out, h_n, _ = self._run(data, sizes, h0, None)
        bs = input.batch_sizes if layout == "packed" else None
        return (
            self._finish(out, layout, batched, s_idx, u_idx, bs),
            self._hidden_out(h_n, batched, u_idx),
        )


# ---------------------------------------------------------------- cells
class RNNCellBase(Module):
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

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

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
        return torch.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):  # fmt: skip
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        batched = self._inputs(input, hx)
        if not batched:
            input = input.unsqueeze(0)
            hx = hx.unsqueeze(0) if hx is not None else None
        if hx is None:
            hx = self._zeros(input)
        xw = F.linear(input, self.weight_ih, self.bias_ih)
        h = _rnn_step(xw, hx, self.weight_hh, self.bias_hh, self.nonlinearity == "relu")
        return h if batched else h.squeeze(0)


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
        batched = self._inputs(input, hx)
        if not batched:
            input = input.unsqueeze(0)
            hx = hx.unsqueeze(0) if hx is not None else None
        if hx is None:
            hx = self._zeros(input)
        xw = F.linear(input, self.weight_ih, self.bias_ih)
        h = _gru_step(xw, hx, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
