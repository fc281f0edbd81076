"""Elementwise ops: unary, binary (broadcasting), ternary."""

import math

import torch
from torch import _C
from torch.autograd.graph import Formula, sum_to

Tensor = torch.Tensor


# per input: None when it has the output's shape (or is a number), else its shape
_shapes = _C._broadcast_shapes_of


def _unbroadcast(g, shape):
    """g summed back to an input's shape (None: the input had the output's shape)."""
    return g if shape is None else sum_to(g, shape)


# ---------------------------------------------------------------- unary
# name -> (derivative of the input, given grad g, input x and output y; what it reads)
def _unary(cls_name, names, deriv, uses):
    """A formula class for y = f(x) whose backward reads x ("x"), y ("y") or neither."""

    def save(self, out, x, *args, **kwargs):
        if uses == "x":
            self.save_for_backward(x)
        elif uses == "y":
            self.save_for_backward(out)
        elif uses == "shape":
            self.shape = x.shape
        return (x,)

    def backward(self, g):
        if uses in ("x", "y"):
            (v,) = self.saved_tensors
            if v.dtype.is_complex:  # holomorphic f: g * conj(f'(z)) (see formulas/complex.py)
                return (deriv(g.conj(), v).conj(),)
            return (deriv(g, v),)
        return (deriv(g, self.shape if uses == "shape" else None),)

    return type(
        cls_name,
        (Formula,),
        {
            "names": names,
            "inplace_names": tuple(n + "_" for n in names if _has_method(n + "_")),
            "clone_for_inplace": uses == "x",
            "saved_names": {"x": ("self",), "y": ("result",)}.get(uses, ()),
            "save": save,
            "backward": backward,
        },
    )


def _has_method(name):
    return "Tensor." + name in _C._grad_gates


def _zeros(g, shape):
    return g * 0


_LOG2 = math.log(2.0)
_LOG10 = math.log(10.0)
_2_SQRTPI = 2.0 / math.sqrt(math.pi)
_SQRTPI_2 = math.sqrt(math.pi) / 2.0

ExpBackward0 = _unary("ExpBackward0", ("exp",), lambda g, y: g * y, "y")
Exp2Backward0 = _unary("Exp2Backward0", ("exp2",), lambda g, y: g * y * _LOG2, "y")
Expm1Backward0 = _unary("Expm1Backward0", ("expm1",), lambda g, y: g * (y + 1), "y")
LogBackward0 = _unary("LogBackward0", ("log",), lambda g, x: g / x, "x")
Log2Backward0 = _unary("Log2Backward0", ("log2",), lambda g, x: g / (x * _LOG2), "x")
Log10Backward0 = _unary("Log10Backward0", ("log10",), lambda g, x: g / (x * _LOG10), "x")
Log1PBackward0 = _unary("Log1PBackward0", ("log1p",), lambda g, x: g / (x + 1), "x")
SqrtBackward0 = _unary("SqrtBackward0", ("sqrt",), lambda g, y: g / (2 * y), "y")
RsqrtBackward0 = _unary(  # (y ** 3: one pass)
    "RsqrtBackward0", ("rsqrt",), lambda g, y: g * y.pow(3) * -0.5, "y"
)
SinBackward0 = _unary("SinBackward0", ("sin",), lambda g, x: g * x.cos(), "x")
CosBackward0 = _unary("CosBackward0", ("cos",), lambda g, x: -g * x.sin(), "x")
TanBackward0 = _unary("TanBackward0", ("tan",), lambda g, y: g * (1 + y * y), "y")
AsinBackward0 = _unary(
    "AsinBackward0", ("asin", "arcsin"), lambda g, x: g * (1 - x * x).rsqrt(), "x"
)
AcosBackward0 = _unary(
    "AcosBackward0", ("acos", "arccos"), lambda g, x: -g * (1 - x * x).rsqrt(), "x"
)
AtanBackward0 = _unary("AtanBackward0", ("atan", "arctan"), lambda g, x: g / (1 + x * x), "x")
SinhBackward0 = _unary("SinhBackward0", ("sinh",), lambda g, x: g * x.cosh(), "x")
CoshBackward0 = _unary("CoshBackward0", ("cosh",), lambda g, x: g * x.sinh(), "x")
AsinhBackward0 = _unary(
    "AsinhBackward0", ("asinh", "arcsinh"), lambda g, x: g * (x * x + 1).rsqrt(), "x"
)
AcoshBackward0 = _unary(  # 1 / sqrt(x^2 - 1) as 1 / (sqrt(x - 1) sqrt(x + 1)): no cancellation
    "AcoshBackward0", ("acosh", "arccosh"), lambda g, x: g * ((x - 1) * (x + 1)).rsqrt(), "x"
)
AtanhBackward0 = _unary("AtanhBackward0", ("atanh", "arctanh"), lambda g, x: g / (1 - x * x), "x")


def _one_pass(kernel, composite):
    """g f'(x) from the output y: ``kernel(g, y)`` (one pass, no temporaries) for real floats
    of one dtype; else the ops of ``composite`` (complex, mixed dtypes)."""

    def deriv(g, y):
        if g.dtype == y.dtype and g.dtype.is_floating_point and g.device == y.device:
            return kernel(g, y)
        return composite(g, y)

    return deriv


TanhBackward0 = _unary(
    "TanhBackward0", ("tanh",), _one_pass(_C._tanh_grad, lambda g, y: g * (1 - y * y)), "y"
)
SigmoidBackward0 = _unary(
    "SigmoidBackward0",
    ("sigmoid",),
    _one_pass(_C._sigmoid_grad, lambda g, y: g * y * (1 - y)),
    "y",
)
ErfBackward0 = _unary("ErfBackward0", ("erf",), lambda g, x: g * _2_SQRTPI * (-x * x).exp(), "x")
ErfinvBackward0 = _unary(
    "ErfinvBackward0", ("erfinv",), lambda g, y: g * _SQRTPI_2 * (y * y).exp(), "y"
)
ReciprocalBackward0 = _unary("ReciprocalBackward0", ("reciprocal",), lambda g, y: -g * y * y, "y")


# Fused activations (the core's one-pass kernels) f(x, a, b), a and b their float parameters
# (ignored by those without): backward is one more pass, grad_op(g, x, a, b) = g * f'(x).
def _activation(cls_name, name, grad_op):
    def save(self, out, x, a=0.0, b=0.0):
        self.save_for_backward(x)
        self.params = (a, b)
        return (x,)

    def backward(self, g):
        (x,) = self.saved_tensors
        return (grad_op(g, x, *self.params),)

    attrs = {"names": (name,), "saved_names": ("self",), "save": save, "backward": backward}
    return type(cls_name, (Formula,), attrs)


def _activation_grad(cls_name, name, grad_op, second=None):
    """grad_op(g, x, a, b) = g * f'(x): linear in g; f''(x, a, b) for x (double backward),
    where ``second`` is None for the piecewise-linear ones (f'' = 0)."""

    def save(self, out, g, x, a=0.0, b=0.0):
        self.save_for_backward(g, x)
        self.params = (a, b)
        return g, x

    def backward(self, gg):
        g, x = self.saved_tensors
        need_g, need_x = self.needs_input_grad
        return (
            grad_op(gg, x, *self.params) if need_g else None,
            gg * g * second(x, *self.params) if need_x and second is not None else None,
        )

    attrs = {"names": (name,), "saved_names": ("grad_output", "self")}
    return type(cls_name, (Formula,), {**attrs, "save": save, "backward": backward})


_GELU_K = math.sqrt(2.0 / math.pi)  # gelu(approximate="tanh"): tanh(k (x + c x^3))
_GELU_C = 0.044715
_SELU_SCALE_ALPHA = 1.0507009873554804934193349852946 * 1.6732632423543772848170429916717


def _gelu_second(x, a, b):
    """gelu''(x) = pdf(x) (2 - x^2), pdf the standard normal density."""
    return (-0.5 * x * x).exp() * (1.0 / math.sqrt(2 * math.pi)) * (2 - x * x)


def _gelu_tanh_second(x, a, b):
    """Second derivative of 0.5 x (1 + tanh(u)), u = k (x + c x^3)."""
    x2 = x * x
    du = _GELU_K * (1 + 3 * _GELU_C * x2)
    t = (_GELU_K * (x + _GELU_C * x2 * x)).tanh()
    return (1 - t * t) * (du - x * t * du * du + 3 * _GELU_K * _GELU_C * x2)


def _silu_second(x, a, b):
    """silu''(x) = s (1 - s) (2 + x (1 - 2 s)), s = sigmoid(x)."""
    s = x.sigmoid()
    return s * (1 - s) * (2 + x * (1 - 2 * s))


def _elu_second(x, a, b):
    """c k^2 exp(k x) below 0 (a = c, b = k)."""
    return torch.where(x > 0, 0.0, a * b * b * (b * x).exp())


def _selu_second(x, a, b):
    return torch.where(x > 0, 0.0, _SELU_SCALE_ALPHA * x.exp())


def _softplus_second(x, a, b):
    """beta s (1 - s), s = sigmoid(beta x) (a = beta); 0 where linear (beta x > b)."""
    s = (a * x).sigmoid()
    return torch.where(a * x > b, 0.0, a * s * (1 - s))


GeluBackward0 = _activation("GeluBackward0", "_gelu", _C._gelu_grad)
GeluTanhBackward0 = _activation("GeluBackward0", "_gelu_tanh", _C._gelu_tanh_grad)
SiluBackward0 = _activation("SiluBackward0", "_silu", _C._silu_grad)
LeakyReluBackward0 = _activation("LeakyReluBackward0", "_leaky_relu", _C._leaky_relu_grad)
EluBackward0 = _activation("EluBackward0", "_elu", _C._elu_grad)
SeluBackward0 = _activation("EluBackward0", "_selu", _C._selu_grad)
SoftplusBackward0 = _activation("SoftplusBackward0", "_softplus", _C._softplus_grad)
HardtanhBackward0 = _activation("HardtanhBackward0", "_hardtanh", _C._hardtanh_grad)

GeluBackwardBackward0 = _activation_grad(
    "GeluBackwardBackward0", "_gelu_grad", _C._gelu_grad, _gelu_second
)
GeluTanhBackwardBackward0 = _activation_grad(
    "GeluBackwardBackward0", "_gelu_tanh_grad", _C._gelu_tanh_grad, _gelu_tanh_second
)
SiluBackwardBackward0 = _activation_grad(
    "SiluBackwardBackward0", "_silu_grad", _C._silu_grad, _silu_second
)
LeakyReluBackwardBackward0 = _activation_grad(
    "LeakyReluBackwardBackward0", "_leaky_relu_grad", _C._leaky_relu_grad
)
TanhBackwardBackward0 = _activation_grad(  # d/dy g (1 - y^2) = -2 g y
    "TanhBackwardBackward0", "_tanh_grad", _C._tanh_grad, lambda y, a, b: -2 * y
)
SigmoidBackwardBackward0 = _activation_grad(  # d/dy g y (1 - y) = g (1 - 2 y)
    "SigmoidBackwardBackward0", "_sigmoid_grad", _C._sigmoid_grad, lambda y, a, b: 1 - 2 * y
)
EluBackwardBackward0 = _activation_grad(
    "EluBackwardBackward0", "_elu_grad", _C._elu_grad, _elu_second
)
SeluBackwardBackward0 = _activation_grad(
    "EluBackwardBackward0", "_selu_grad", _C._selu_grad, _selu_second
)
SoftplusBackwardBackward0 = _activation_grad(
    "SoftplusBackwardBackward0", "_softplus_grad", _C._softplus_grad, _softplus_second
)
HardtanhBackwardBackward0 = _activation_grad(
    "HardtanhBackwardBackward0", "_hardtanh_grad", _C._hardtanh_grad
)


class AbsBackward0(Formula):
    """|x|: g * sign(x); for complex z, g * z / |z| (0 at 0)."""

    names = ("abs", "absolute", "__abs__")
    inplace_names = ("abs_", "absolute_")
    saved_names = ("self",)

    def save(self, out, x):
        self.save_for_backward(x)
        return (x,)

    def backward(self, g):
        (x,) = self.saved_tensors
        if x.dtype.is_complex:
            return (g.to(x.dtype) * torch.sgn(x),)
        return (g * x.sign(),)


ReluBackward0 = _unary("ReluBackward0", ("relu",), lambda g, y: _C._relu_grad(g, y), "y")


class ThresholdBackwardBackward0(Formula):
    """_relu_grad(g, y) = g where y > 0: linear in g, constant in y."""

    names = ("_relu_grad",)

    def save(self, out, g, y):
        self.save_for_backward(y)
        return g, y

    def backward(self, gg):
        (y,) = self.saved_tensors
        return _C._relu_grad(gg, y), None


NegBackward0 = _unary("NegBackward0", ("neg", "negative", "__neg__"), lambda g, _: -g, "none")
# Piecewise-constant functions: zero gradient almost everywhere.
SignBackward0 = _unary("SignBackward0", ("sign",), _zeros, "none")
FloorBackward0 = _unary("FloorBackward0", ("floor",), _zeros, "none")
CeilBackward0 = _unary("CeilBackward0", ("ceil",), _zeros, "none")
TruncBackward0 = _unary("TruncBackward0", ("trunc", "fix"), _zeros, "none")
RoundBackward0 = _unary("RoundBackward0", ("round",), _zeros, "none")
FracBackward0 = _unary("FracBackward0", ("frac",), lambda g, _: g, "none")


class CloneBackward0(Formula):
    """x.clone(): the gradient passes through."""

    names = ("clone",)
    clone_for_inplace = False

    def save(self, out, x, *args, **kwargs):
        return (x,)

    def backward(self, g):
        return (g,)


# ---------------------------------------------------------------- binary
class AddBackward0(Formula):
    names = ("add", "__add__")
    inplace_names = ("add_", "__iadd__")
    saved_attrs = {"alpha": lambda n: n.alpha}
    clone_for_inplace = False

    def save(self, out, a, b, alpha=1):
        self.shapes = _shapes(out, a, b)
        self.alpha = alpha
        return a, b

    def backward(self, g):
        sa, sb = self.shapes
        gb = g if self.alpha == 1 else g * self.alpha
        return _unbroadcast(g, sa), _unbroadcast(gb, sb)


class SubBackward0(Formula):
    names = ("sub", "subtract", "__sub__")
    inplace_names = ("sub_", "__isub__")
    saved_attrs = {"alpha": lambda n: n.alpha}
    clone_for_inplace = False

    def save(self, out, a, b, alpha=1):
        self.shapes = _shapes(out, a, b)
        self.alpha = alpha
        return a, b

    def backward(self, g):
        sa, sb = self.shapes
        return _unbroadcast(g, sa), _unbroadcast(-g if self.alpha == 1 else g * -self.alpha, sb)


class RremainderBackward0(Formula):
    """other % self, with other a number: d/dself = -floor(other / self) * g."""

    names = ("__rmod__",)

    def save(self, out, a, b):
        self.save_for_backward(a)
        self.number = b
        return a, b

    def backward(self, g):
        (a,) = self.saved_tensors
        return -g * (self.number / a).floor(), None


class RsubBackward0(Formula):
    names = ("__rsub__",)

    def save(self, out, a, b):
        self.shapes = _shapes(out, a, b)
        return a, b

    def backward(self, g):
        sa, sb = self.shapes
        return _unbroadcast(-g, sa), _unbroadcast(g, sb)


class MulBackward0(Formula):
    pack_order = (1, 0)  # (PyTorch packs the second operand first)
    names = ("mul", "multiply", "__mul__", "__rmul__")
    inplace_names = ("mul_", "multiply_", "__imul__")
    saved_names = ("self", "other")
    saved_attrs = {"self": lambda n: n.numbers[0], "other": lambda n: n.numbers[1]}

    def save(self, out, a, b):
        need_a, need_b = _requires(a), _requires(b)
        self.save_for_backward(a if need_b else None, b if need_a else None)
        self.shapes = _shapes(out, a, b)
        self.numbers = (None if isinstance(a, Tensor) else a, None if isinstance(b, Tensor) else b)
        return a, b

    def backward(self, g):
        a, b = self.saved_tensors
        na, nb = self.numbers
        sa, sb = self.shapes
        ga = gb = None
        if self.needs_input_grad[0]:
            ga = _unbroadcast(g * _conj(nb if b is None else b), sa)
        if self.needs_input_grad[1]:
            gb = _unbroadcast(g * _conj(na if a is None else a), sb)
        return ga, gb


def _conj(v):
    """conj(v) for complex tensors and numbers; v itself otherwise (no copy)."""
    if isinstance(v, Tensor):
        return v.conj() if v.dtype.is_complex else v
    return v.conjugate() if isinstance(v, complex) else v


def _requires(x):
    return isinstance(x, Tensor) and x.requires_grad


def _value(saved, number):
    return number if saved is None else saved


class DivBackward0(Formula):
    pack_order = (1, 0)  # (PyTorch packs the second operand first)
    names = ("div", "divide", "true_divide", "__truediv__")
    inplace_names = ("div_", "__itruediv__")
    saved_names = ("self", "other")
    saved_attrs = {"self": lambda n: n.numbers[0], "other": lambda n: n.numbers[1]}
    saved_attrs["rounding_mode"] = lambda n: n.rounding

    def save(self, out, a, b, rounding_mode=None):
        self.rounding = rounding_mode
        self.save_for_backward(a if _requires(b) else None, b if isinstance(b, Tensor) else None)
        self.shapes = _shapes(out, a, b)
        self.numbers = (None if isinstance(a, Tensor) else a, None if isinstance(b, Tensor) else b)
        return a, b

    def backward(self, g):
        sa, sb = self.shapes
        if self.rounding is not None:  # floor/trunc division: piecewise constant
            return _unbroadcast(g * 0, sa), _unbroadcast(g * 0, sb)
        a, b = self.saved_tensors
        a, b = _value(a, self.numbers[0]), _value(b, self.numbers[1])
        ga = gb = None
        if self.needs_input_grad[0]:
            ga = _unbroadcast(g / _conj(b), sa)
        if self.needs_input_grad[1]:
            gb = _unbroadcast(-g * _conj(a / (b * b)), sb)
        return ga, gb


class RdivBackward0(Formula):
    names = ("__rtruediv__",)

    def save(self, out, a, b):  # b / a
        self.save_for_backward(a, out)
        self.shapes = _shapes(out, a, b)
        return a, b

    def backward(self, g):
        a, out = self.saved_tensors
        sa, sb = self.shapes
        return _unbroadcast(-g * _conj(out / a), sa), _unbroadcast(g / _conj(a), sb)


class FloorDivideBackward0(Formula):
    names = ("floor_divide", "__floordiv__", "__rfloordiv__")
    inplace_names = ("floor_divide_", "__ifloordiv__")
    clone_for_inplace = False

    def save(self, out, a, b):
        self.shapes = _shapes(out, a, b)
        return a, b

    def backward(self, g):
        return _unbroadcast(g * 0, self.shapes[0]), _unbroadcast(g * 0, self.shapes[1])


class PowBackward0(Formula):
    pack_order = (1, 0, 2)  # (PyTorch packs the second operand first)
    names = ("pow", "__pow__")
    inplace_names = ("pow_", "__ipow__")
    saved_names = ("self", "exponent", "result")
    saved_attrs = {"self": lambda n: n.numbers[0], "exponent": lambda n: n.numbers[1]}

    def save(self, out, a, b):
        self.save_for_backward(
            a if isinstance(a, Tensor) else None,
            b if isinstance(b, Tensor) else None,
            out if _requires(b) else None,
        )
        self.shapes = _shapes(out, a, b)
        self.numbers = (None if isinstance(a, Tensor) else a, None if isinstance(b, Tensor) else b)
        return a, b

    def backward(self, g):
        a, b, out = self.saved_tensors
        a, b = _value(a, self.numbers[0]), _value(b, self.numbers[1])
        ga = gb = None
        if self.needs_input_grad[0]:
            if isinstance(b, Tensor):
                ga = torch.where(b == 0, 0.0, g * b * a ** (b - 1))
            elif b == 2:  # the common square: two passes, no pow
                ga = g * (a * 2.0)
            elif b == 1:
                ga = g
            else:
                ga = g * 0 if b == 0 else g * b * a ** (b - 1)
            ga = _unbroadcast(ga, self.shapes[0])
        if self.needs_input_grad[1]:
            # d(a^b)/db = a^b log a; 0 where a == 0 and b >= 0 (the limit PyTorch uses)
            la = a.log() if isinstance(a, Tensor) else math.log(a) if a > 0 else float("nan")
            gb = g * out * la
            if isinstance(a, Tensor):
                gb = torch.where((a == 0) & (b >= 0), 0.0, gb)
            gb = _unbroadcast(gb, self.shapes[1])
        return ga, gb


class RpowBackward0(Formula):
    names = ("__rpow__",)
    saved_names = ("result",)
    saved_attrs = {"self": lambda n: n.base}

    def save(self, out, a, b):  # b ** a, b a number
        self.save_for_backward(out)
        self.base = b
        return a, b

    def backward(self, g):
        (out,) = self.saved_tensors
        b = self.base
        la = math.log(b) if b > 0 else float("nan")
        return torch.where(out == 0, 0.0, g * out * la) if b == 0 else g * out * la, None


class Atan2Backward0(Formula):
    pack_order = (1, 0)  # (PyTorch packs the second operand first)
    names = ("atan2", "arctan2")
    inplace_names = ("atan2_", "arctan2_")
    saved_names = ("self", "other")

    def save(self, out, a, b):
        self.save_for_backward(a, b)
        self.shapes = _shapes(out, a, b)
        return a, b

    def backward(self, g):
        a, b = self.saved_tensors
        d = g / (a * a + b * b)
        return _unbroadcast(d * b, self.shapes[0]), _unbroadcast(-d * a, self.shapes[1])


class FmodBackward0(Formula):
    pack_order = (1, 0)  # (PyTorch packs the second operand first)
    names = ("fmod",)
    inplace_names = ("fmod_",)

    def save(self, out, a, b):
        self.save_for_backward(a if _requires(b) else None, b if _requires(b) else None)
        self.shapes = _shapes(out, a, b)
        return a, b

    def backward(self, g):
        a, b = self.saved_tensors
        gb = None
        if self.needs_input_grad[1]:  # d/db fmod(a, b) = -trunc(a / b): one rounding division
            gb = _unbroadcast(torch.neg(g * torch.div(a, b, rounding_mode="trunc")), self.shapes[1])
        return _unbroadcast(g, self.shapes[0]), gb


class RemainderBackward0(Formula):
    pack_order = (1, 0)  # (PyTorch packs the second operand first)
    names = ("remainder", "__mod__")
    inplace_names = ("remainder_", "__imod__")

    def save(self, out, a, b):
        self.save_for_backward(a if _requires(b) else None, b if _requires(b) else None)
        self.shapes = _shapes(out, a, b)
        return a, b

    def backward(self, g):
        a, b = self.saved_tensors
        gb = None
        if self.needs_input_grad[1]:
            gb = _unbroadcast(-g * (a / b).floor(), self.shapes[1])
        return _unbroadcast(g, self.shapes[0]), gb


class MaximumBackward0(Formula):
    """max(a, b): the gradient goes to the larger input, split evenly on ties."""

    pack_order = (1, 0)  # (PyTorch packs the second operand first)

    names = ("maximum",)
    inplace_names = ("maximum_",)
    saved_names = ("self", "other")
    pick = staticmethod(lambda a, b: a > b)

    def save(self, out, a, b):
        self.save_for_backward(a, b if isinstance(b, Tensor) else None)
        self.number = None if isinstance(b, Tensor) else b
        self.shapes = _shapes(out, a, b)
        return a, b

    def backward(self, g):
        a, b = self.saved_tensors
        b = _value(b, self.number)
        wa = self.pick(a, b).to(g.dtype) + (a == b).to(g.dtype) * 0.5
        return _unbroadcast(g * wa, self.shapes[0]), _unbroadcast(g * (1 - wa), self.shapes[1])


class MinimumBackward0(MaximumBackward0):
    names = ("minimum",)
    inplace_names = ("minimum_",)
    pick = staticmethod(lambda a, b: a < b)


# ---------------------------------------------------------------- ternary
class WhereBackward0(Formula):
    names = ("where",)

    def save(self, out, cond, a, b):
        self.save_for_backward(cond)
        self.shapes = _shapes(out, a, b)
        return None, a, b

    def backward(self, g):
        (cond,) = self.saved_tensors
        zero = g * 0
        return (
            None,
            _unbroadcast(torch.where(cond, g, zero), self.shapes[0]),
            _unbroadcast(torch.where(cond, zero, g), self.shapes[1]),
        )


class LerpBackward0(Formula):
    names = ("_lerp",)

    def save(self, out, start, end, weight, out_arg=None):
        w_tensor = isinstance(weight, Tensor)
        self.save_for_backward(
            weight if w_tensor else None,
            start if _requires(weight) else None,
            end if _requires(weight) else None,
        )
        self.weight = None if w_tensor else weight
        self.shapes = _shapes(out, start, end, weight)
        return start, end, weight

    def backward(self, g):
        w, s, e = self.saved_tensors
        w = _value(w, self.weight)
        gw = None
        if self.needs_input_grad[2]:
            gw = _unbroadcast(g * (e - s), self.shapes[2])
        return (
            _unbroadcast(g * (1 - w), self.shapes[0]),
            _unbroadcast(g * w, self.shapes[1]),
            gw,
        )


class AddcmulBackward0(Formula):
    names = ("addcmul",)

    def save(self, out, x, t1, t2, value=1):
        self.save_for_backward(t1, t2)
        self.value = value
        self.shapes = _shapes(out, x, t1, t2)
        return x, t1, t2

    def backward(self, g):
        t1, t2 = self.saved_tensors
        gv = g * self.value
        return (
            _unbroadcast(g, self.shapes[0]),
            _unbroadcast(gv * t2, self.shapes[1]),
            _unbroadcast(gv * t1, self.shapes[2]),
        )


class AddcdivBackward0(Formula):
    names = ("addcdiv",)

    def save(self, out, x, t1, t2, value=1):
        self.save_for_backward(t1, t2)
        self.value = value
        self.shapes = _shapes(out, x, t1, t2)
        return x, t1, t2

    def backward(self, g):
        t1, t2 = self.saved_tensors
        gv = g * self.value / t2
        return (
            _unbroadcast(g, self.shapes[0]),
            _unbroadcast(gv, self.shapes[1]),
            _unbroadcast(-gv * t1 / t2, self.shapes[2]),
        )


class ToCopyBackward0(Formula):
    """x.to(dtype), x.double(), ...: the gradient goes back in the input's dtype."""

    names = ("_to_dtype",)
    float_output = False

    def save(self, out, x, dtype, copy=False):
        self.dtype = x.dtype
        return (x,)

    def backward(self, g):
        return (g.to(self.dtype),)


class CopyBackwards(Formula):
    """x.copy_(src): x's old value gets no gradient; src gets it (in src's shape)."""

    names = ()
    inplace_names = ("copy_",)
    clone_for_inplace = False

    def save(self, out, x, src, non_blocking=False):
        (self.shape,) = _shapes(out, src)
        self.dtype = src.dtype if isinstance(src, Tensor) else None
        return x, src

    def backward(self, g):
        gs = _unbroadcast(g, self.shape)
        if self.dtype is not None and gs.dtype != self.dtype:
            gs = gs.to(self.dtype)
        return g * 0, gs


class FillBackward0(Formula):
    """x.fill_(v) / x.zero_(): x's old value gets no gradient (v's, if a tensor, the sum)."""

    names = ()
    inplace_names = ("fill_", "zero_")
    clone_for_inplace = False

    def save(self, out, x, value=None):
        return x, value

    def backward(self, g):
        return g * 0, g.sum() if self.needs_input_grad[1] else None
