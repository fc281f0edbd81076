"""The computations of the recurrent layers (rnn.py holds the modules: their parameters,
shapes and argument checks).

The layers run each (layer, direction) as one autograd node (``_Recurrence``): the input
part of every gate is one matrix product over the whole sequence (``x @ W_ih^T + b``,
recorded as usual), then a loop over time does one product with the hidden state per
step, without recording; backward runs the loop in reverse and computes the weight
gradient as one product over the whole sequence.  Sequences are kept as rows: step t owns
``batch_sizes[t]`` consecutive rows (all the batch for a padded input; the still-running
sequences for a PackedSequence).  An LSTM with projections runs recorded steps instead
(``_recorded_direction``), as do the cells."""

import torch
from torch.nn import functional as F
from torch.nn.utils.rnn import PackedSequence


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
    gru, relu = mode == "GRU", mode == "RNN_RELU"
    if gru:
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
        h = out[r0:r1]
        if gru:
            hw = torch.mm(hp, w_t) if b_hh is None else torch.addmm(b_hh, hp, w_t)
            a = acts[r0:r1]
            torch.add(xw[r0:r1, : 2 * H], hw[:, : 2 * H], out=a[:, : 2 * H])
            a[:, : 2 * H].sigmoid_()
            hw_n_all[r0:r1].copy_(hw[:, 2 * H :])
            nn_ = a[:, 2 * H :]
            nn_.copy_(_tanh_(torch.addcmul(xw[r0:r1, 2 * H :], a[:, :H], hw[:, 2 * H :])))
            torch.sub(hp, nn_, out=h)  # h' = n + z * (h - n)
            h.mul_(a[:, H : 2 * H]).add_(nn_)
        else:
            torch.addmm(xw[r0:r1], hp, w_t, out=h)
            if relu:
                h.relu_()
            else:
                _tanh_(h)
        if not uniform:
            h_buf[:n].copy_(h)
    if gru:
        saved.update(acts=acts, hw_n=hw_n_all)
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


# ---------------------------------------------------------------- layers, rows layout
def _to_rows(input, batch_first):
    """The rows layout of a checked input: (data (rows, in), batch_sizes, batch, how to
    rebuild the output, sorted/unsorted indices, batched?)."""
    if isinstance(input, PackedSequence):
        data, batch_sizes, sorted_indices, unsorted_indices = input
        sizes = [int(b) for b in batch_sizes.tolist()]
        return data, sizes, sizes[0], "packed", sorted_indices, unsorted_indices, True
    batched = input.dim() == 3
    if not batched:
        input = input.unsqueeze(1)
    elif batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    data = input.reshape(steps * batch, input.shape[2])
    return data, [batch] * steps, batch, (steps, batch), None, None, batched


def _from_rows(out, layout, batched, batch_first, sorted_indices, unsorted_indices, batch_sizes):
    """The output rows back in the input's form (a PackedSequence, or padded)."""
    if layout == "packed":
        return PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
    steps, batch = layout
    out = out.reshape(steps, batch, out.shape[-1])
    if not batched:
        return out.squeeze(1)
    return out.transpose(0, 1) if batch_first else out


def _run_layers(rnn, data, batch_sizes, h0, c0, recurrence):
    """The layer loop of the RNNBase ``rnn`` over rows-layout data: (output rows, h_n, c_n).
    ``recurrence`` runs one fused direction: ``_recurrence`` as torch.nn.modules.rnn holds
    it (torch.amp's autocast wraps it there)."""
    directions = 2 if rnn.bidirectional else 1
    mode = rnn.mode
    fused = rnn.proj_size == 0
    layer_input = data
    h_n, c_n = [], []
    for layer in range(rnn.num_layers):
        outs = []
        for direction in range(directions):
            idx = layer * directions + direction
            names = rnn._all_weights[idx]
            w_ih, w_hh = getattr(rnn, names[0]), getattr(rnn, names[1])
            b_ih = getattr(rnn, names[2]) if rnn.bias else None
            b_hh = getattr(rnn, names[3]) if rnn.bias else None
            w_hr = getattr(rnn, names[-1]) if rnn.proj_size > 0 else None
            if mode != "GRU" and b_ih is not None:
                xw = F.linear(layer_input, w_ih, b_ih + b_hh)  # b_hh folded in
                b_step = None
            else:
                xw = F.linear(layer_input, w_ih, b_ih)
                b_step = b_hh
            cx = c0[idx] if c0 is not None else None
            if fused:
                res = recurrence(mode, batch_sizes, direction == 1, xw, h0[idx], cx, w_hh, b_step)
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
        if rnn.dropout and rnn.training and layer < rnn.num_layers - 1:
            layer_output = F.dropout(layer_output, rnn.dropout, True)
        layer_input = layer_output
    return layer_input, torch.stack(h_n), torch.stack(c_n) if c_n else None
