"""Matrix products."""

from torch.autograd.graph import Formula, sum_to


def _conj(*ts):
    """The saved operands conjugated where complex (g @ conj(b)^T is the complex gradient)."""
    return tuple(t.conj() if t is not None and t.dtype.is_complex else t for t in ts)


def _transposed(t):
    """A 2-D operand stored transposed (``weight.t()`` in ``linear``) off the CPU; None (not
    saved) is taken as not."""
    return (
        t is not None
        and t.device.type != "cpu"
        and t.dim() == 2
        and not t.is_contiguous()
        and t.t().is_contiguous()
    )


def _mm_grads(a, b, g, need_a, need_b):
    """The gradients of ``a @ b`` (2-D). On a GPU each is made in its operand's layout, as
    PyTorch's mm backward makes them: for a transposed operand (g^T a)^T instead of a^T g,
    so that the leaf's gradient comes out contiguous and AccumulateGrad keeps it instead of
    launching a copy. Not on the CPU: there that product is slower than a^T g and the copy
    together (an LSTM's 2600x650 weight: 26.6 ms against 17.8 + 2, float32, 2 threads)."""
    ga = gb = None
    if need_a:
        ga = b.mm(g.t()).t() if _transposed(a) else g.mm(b.t())
    if need_b:
        gb = g.t().mm(a).t() if _transposed(b) else a.t().mm(g)
    return ga, gb


class MmBackward0(Formula):
    pack_order = (1, 0)  # (PyTorch packs the second operand first)
    names = ("mm",)
    saved_names = ("self", "mat2")

    def save(self, out, a, b):
        self.save_for_backward(a if self_needs(b) else None, b if self_needs(a) else None)
        return a, b

    def backward(self, g):
        a, b = _conj(*self.saved_tensors)
        return _mm_grads(a, b, g, self.needs_input_grad[0], self.needs_input_grad[1])


def self_needs(t):
    return t.requires_grad


class BmmBackward0(Formula):
    pack_order = (1, 0)  # (PyTorch packs the second operand first)
    names = ("bmm",)
    saved_names = ("self", "mat2")

    def save(self, out, a, b):
        self.save_for_backward(a, b)
        return a, b

    def backward(self, g):
        a, b = _conj(*self.saved_tensors)
        return (
            g.bmm(b.transpose(1, 2)) if self.needs_input_grad[0] else None,
            a.transpose(1, 2).bmm(g) if self.needs_input_grad[1] else None,
        )


class MvBackward0(Formula):
    names = ("mv",)
    saved_names = ("self", "vec")

    def save(self, out, a, v):
        self.save_for_backward(a, v)
        return a, v

    def backward(self, g):
        a, v = _conj(*self.saved_tensors)
        return (
            g.unsqueeze(1) * v.unsqueeze(0) if self.needs_input_grad[0] else None,
            a.t().mv(g) if self.needs_input_grad[1] else None,
        )


class DotBackward0(Formula):
    names = ("dot",)
    saved_names = ("self", "tensor")

    def save(self, out, a, b):
        self.save_for_backward(a, b)
        return a, b

    def backward(self, g):
        a, b = _conj(*self.saved_tensors)
        return g * b, g * a


class MatmulBackward0(Formula):
    """matmul with NumPy's rules: 1-D operands gain a dim, batch dims broadcast."""

    pack_order = (1, 0)  # (PyTorch packs the second operand first)

    names = ("matmul", "__matmul__")
    saved_names = ("self", "other")

    def save(self, out, a, b):
        self.save_for_backward(a if b.requires_grad else None, b if a.requires_grad else None)
        self.shapes = (tuple(a.shape), tuple(b.shape))
        return a, b

    def backward(self, g):
        a, b = _conj(*self.saved_tensors)
        sa, sb = self.shapes
        if len(sa) == 2 and len(sb) == 2:  # plain matrix product
            return _mm_grads(a, b, g, self.needs_input_grad[0], self.needs_input_grad[1])
        if len(sa) == 1 and len(sb) == 1:
            ga = g * b if self.needs_input_grad[0] else None
            return ga, g * a if self.needs_input_grad[1] else None
        if len(sb) == 2 and len(sa) > 2:  # (*, m, k) @ (k, n): the batch is just more rows
            ga = g.matmul(b.t()) if self.needs_input_grad[0] else None
            if not self.needs_input_grad[1]:
                return ga, None
            return ga, a.reshape(-1, sa[-1]).t().mm(g.reshape(-1, sb[-1]))
        if len(sa) == 1:
            g = g.unsqueeze(-2)
        if len(sb) == 1:
            g = g.unsqueeze(-1)
        ga = gb = None
        if self.needs_input_grad[0]:
            bm = b.unsqueeze(-1) if len(sb) == 1 else b
            ga = g.matmul(bm.transpose(-1, -2))
            ga = sum_to(ga, (1,) + sa if len(sa) == 1 else sa).reshape(sa)
        if self.needs_input_grad[1]:
            am = a.unsqueeze(-2) if len(sa) == 1 else a
            gb = am.transpose(-1, -2).matmul(g)
            gb = sum_to(gb, sb + (1,) if len(sb) == 1 else sb).reshape(sb)
        return ga, gb


class AddmmBackward0(Formula):
    """beta * input + alpha * (m1 @ m2), and the mv / batched forms."""

    names = ("addmm", "addmv", "baddbmm")
    saved_names = ("mat1", "mat2")

    def save(self, out, x, m1, m2, beta=1, alpha=1):
        self.save_for_backward(m1, m2)
        self.shape = tuple(x.shape)
        self.beta, self.alpha = beta, alpha
        return x, m1, m2

    def backward(self, g):
        m1, m2 = _conj(*self.saved_tensors)
        need_x, need_1, need_2 = self.needs_input_grad
        gx = sum_to(g * self.beta if self.beta != 1 else g, self.shape) if need_x else None
        ga = g * self.alpha if self.alpha != 1 else g
        if m2.dim() == 1:  # addmv
            g1 = ga.unsqueeze(1) * m2.unsqueeze(0) if need_1 else None
            return gx, g1, m1.t().mv(ga) if need_2 else None
        if m1.dim() == 2 and m2.dim() == 2:  # addmm
            return (gx, *_mm_grads(m1, m2, ga, need_1, need_2))
        g1 = ga.matmul(m2.transpose(-1, -2)) if need_1 else None
        return gx, g1, m1.transpose(-1, -2).matmul(ga) if need_2 else None
