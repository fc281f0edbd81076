// bind_ops.cpp — torch.<op> functions and Tensor methods of elementwise ops, reductions,
// matrix products and random sampling. Op families are bound from tables, not one by one.
#include "bind.h"

namespace tc {

// With out=, the result is the out tensor itself (the same Python object).
static py::object ret(py::handle out, const Tensor& r) {
  return out.is_none() ? py::cast(r) : self_ref(out);
}

struct NamedOp {
  const char* name;
  Op op;
};

static const NamedOp kUnaryOps[] = {
    {"exp", Op::exp},           {"exp2", Op::exp2},
    {"log", Op::log},           {"log2", Op::log2},
    {"log10", Op::log10},       {"log1p", Op::log1p},
    {"expm1", Op::expm1},       {"sqrt", Op::sqrt},
    {"rsqrt", Op::rsqrt},       {"sin", Op::sin},
    {"cos", Op::cos},           {"tan", Op::tan},
    {"asin", Op::asin},         {"acos", Op::acos},
    {"atan", Op::atan},         {"sinh", Op::sinh},
    {"cosh", Op::cosh},         {"tanh", Op::tanh},
    {"sigmoid", Op::sigmoid},   {"erf", Op::erf},
    {"erfinv", Op::erfinv},     {"reciprocal", Op::reciprocal},
    {"abs", Op::abs},           {"neg", Op::neg},
    {"negative", Op::neg},      {"sign", Op::sign},
    {"floor", Op::floor},       {"ceil", Op::ceil},
    {"trunc", Op::trunc},       {"fix", Op::trunc},
    {"frac", Op::frac},         {"bitwise_not", Op::bitwise_not},
    {"isnan", Op::isnan},       {"isinf", Op::isinf},
    {"isfinite", Op::isfinite}, {"logical_not", Op::logical_not},
    {"arcsin", Op::asin},       {"arccos", Op::acos},
    {"arctan", Op::atan},       {"absolute", Op::abs},
    {"relu", Op::relu},         {"asinh", Op::asinh},
    {"acosh", Op::acosh},       {"atanh", Op::atanh},
    {"arcsinh", Op::asinh},     {"arccosh", Op::acosh},
    {"arctanh", Op::atanh},
};

static const NamedOp kBinaryOps[] = {
    {"mul", Op::mul},
    {"multiply", Op::mul},
    {"pow", Op::pow},
    {"atan2", Op::atan2},
    {"arctan2", Op::atan2},
    {"fmod", Op::fmod},
    {"remainder", Op::remainder},
    {"maximum", Op::maximum},
    {"minimum", Op::minimum},
    {"bitwise_and", Op::bitwise_and},
    {"bitwise_or", Op::bitwise_or},
    {"bitwise_xor", Op::bitwise_xor},
    {"eq", Op::eq},
    {"ne", Op::ne},
    {"lt", Op::lt},
    {"le", Op::le},
    {"gt", Op::gt},
    {"ge", Op::ge},
    {"less", Op::lt},
    {"less_equal", Op::le},
    {"greater", Op::gt},
    {"greater_equal", Op::ge},
    {"not_equal", Op::ne},
    {"logical_and", Op::logical_and},
    {"logical_or", Op::logical_or},
    {"logical_xor", Op::logical_xor},
    {"floor_divide", Op::div_floor},
    {"bitwise_left_shift", Op::lshift},
    {"bitwise_right_shift", Op::rshift},
};

// Python operators: name, op, reflected (other op self)
struct OperatorDef {
  const char* name;
  Op op;
  bool reflected;
};
static const OperatorDef kOperators[] = {
    {"__mul__", Op::mul, false},
    {"__rmul__", Op::mul, true},
    {"__truediv__", Op::div, false},
    {"__rtruediv__", Op::div, true},
    {"__floordiv__", Op::div_floor, false},
    {"__rfloordiv__", Op::div_floor, true},
    {"__mod__", Op::remainder, false},
    {"__rmod__", Op::remainder, true},
    {"__pow__", Op::pow, false},
    {"__rpow__", Op::pow, true},
    {"__and__", Op::bitwise_and, false},
    {"__rand__", Op::bitwise_and, true},
    {"__or__", Op::bitwise_or, false},
    {"__ror__", Op::bitwise_or, true},
    {"__xor__", Op::bitwise_xor, false},
    {"__rxor__", Op::bitwise_xor, true},
    {"__lshift__", Op::lshift, false},
    {"__rlshift__", Op::lshift, true},
    {"__rshift__", Op::rshift, false},
    {"__rrshift__", Op::rshift, true},
    {"__eq__", Op::eq, false},
    {"__ne__", Op::ne, false},
    {"__lt__", Op::lt, false},
    {"__le__", Op::le, false},
    {"__gt__", Op::gt, false},
    {"__ge__", Op::ge, false},
};
static const OperatorDef kInplaceOperators[] = {
    {"__imul__", Op::mul, false},
    {"__itruediv__", Op::div, false},
    {"__ifloordiv__", Op::div_floor, false},
    {"__imod__", Op::remainder, false},
    {"__ipow__", Op::pow, false},
    {"__iand__", Op::bitwise_and, false},
    {"__ior__", Op::bitwise_or, false},
    {"__ixor__", Op::bitwise_xor, false},
    {"__ilshift__", Op::lshift, false},
    {"__irshift__", Op::rshift, false},
};

static bool is_operand(py::handle h) { return py::isinstance<Tensor>(h) || is_number(h); }

static Op div_op(py::handle rounding_mode) {
  if (rounding_mode.is_none()) return Op::div;
  std::string m = rounding_mode.cast<std::string>();
  if (m == "floor") return Op::div_floor;
  if (m == "trunc") return Op::div_trunc;
  fail(ErrorKind::Runtime,
       "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", m, "'");
}

// add/sub share one shape: (input, other, *, alpha=1, out=None)
static Tensor add_sub(Op op, const Tensor& a, py::handle b, py::handle alpha, py::handle out) {
  const char* name = op_name(op);
  Scalar al = to_scalar(alpha, name, "alpha");
  TC_CHECK(
      al.kind != Scalar::Float || is_floating(result_type({a, tensor_or_scalar(b, name, "other")})),
      Runtime, name,
      ": for integral input tensors, argument alpha must not be a floating point number");
  return binary(op, a, tensor_or_scalar(b, name, "other"), opt_tensor(out), al);
}

static std::string method_inplace(const char* name) { return std::string(name) + "_"; }

void bind_ops(py::module_& m, py::class_<Tensor>& cls) {
  // ---------------------------------------------------------------- unary
  for (const NamedOp& u : kUnaryOps) {
    Op op = u.op;
    NoGrad no_grad{!has_gradient(op)};
    m.def(
        u.name,
        [op](const Tensor& x, py::handle out) { return ret(out, unary(op, x, opt_tensor(out))); },
        py::arg("input"), py::kw_only(), py::arg("out") = py::none(), no_grad);
    cls.def(u.name, [op](const Tensor& x) { return unary(op, x); }, no_grad);
    if (spec_of(op).bool_out && op != Op::logical_not) continue;
    cls.def(
        method_inplace(u.name).c_str(),
        [op](py::handle self) {
          const Tensor& x = self.cast<const Tensor&>();
          unary(op, x, x);
          return self_ref(self);
        },
        no_grad);
  }
  m.def(
      "round",
      [](const Tensor& x, int decimals, py::handle out) {
        if (decimals == 0) return ret(out, unary(Op::round, x, opt_tensor(out)));
        Tensor scale = wrap_scalar(Scalar::from_double(std::pow(10.0, decimals)));
        return ret(out, binary(Op::div, unary(Op::round, binary(Op::mul, x, scale)), scale,
                               opt_tensor(out)));
      },
      py::arg("input"), py::kw_only(), py::arg("decimals") = 0, py::arg("out") = py::none());
  cls.def("__neg__", [](const Tensor& x) { return unary(Op::neg, x); })
      .def("__abs__", [](const Tensor& x) { return unary(Op::abs, x); })
      .def(
          "__invert__", [](const Tensor& x) { return unary(Op::bitwise_not, x); }, nograd)
      .def("__pos__", [](const Tensor& x) { return alias(x); });

  // ---------------------------------------------------------------- binary
  for (const NamedOp& b : kBinaryOps) {
    Op op = b.op;
    const char* name = b.name;
    NoGrad no_grad{!has_gradient(op)};
    m.def(
        name,
        [op, name](py::handle a, py::handle c, py::handle out) {
          // torch.pow(2, t): the first operand may be a number when the second is a tensor
          return ret(out, binary(op, tensor_or_scalar(a, name, "input"),
                                 tensor_or_scalar(c, name, "other"), opt_tensor(out)));
        },
        py::arg("input"), py::arg("other"), py::kw_only(), py::arg("out") = py::none(), no_grad);
    cls.def(
        name,
        [op, name](const Tensor& a, py::handle c) {
          return binary(op, a, tensor_or_scalar(c, name, "other"));
        },
        no_grad);
    cls.def(
        method_inplace(name).c_str(),
        [op, name](py::handle self, py::handle c) {
          const Tensor& a = self.cast<const Tensor&>();
          binary(op, a, tensor_or_scalar(c, name, "other"), a);
          return self_ref(self);
        },
        no_grad);
  }
  for (Op op : {Op::add, Op::sub}) {
    const char* name = op_name(op);
    m.def(
        name,
        [op](const Tensor& a, py::handle b, py::handle alpha, py::handle out) {
          return ret(out, add_sub(op, a, b, alpha, out));
        },
        py::arg("input"), py::arg("other"), py::kw_only(), py::arg("alpha") = 1,
        py::arg("out") = py::none());
    cls.def(
        name,
        [op](const Tensor& a, py::handle b, py::handle alpha) {
          return add_sub(op, a, b, alpha, py::none());
        },
        py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
    cls.def(
        method_inplace(name).c_str(),
        [op](py::handle self, py::handle b, py::handle alpha) {
          const Tensor& a = self.cast<const Tensor&>();
          add_sub(op, a, b, alpha, self);
          return self_ref(self);
        },
        py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  }
  // relu's backward: grad where the output is positive, else 0 (one pass, for autograd)
  m.def("_relu_grad",
        [](const Tensor& grad, const Tensor& out) { return binary(Op::relu_grad, grad, out); });
  // Fused activations (torch.nn.functional's gelu, silu, leaky_relu, elu, celu, selu,
  // softplus, hardtanh), with up to two float parameters a, b (unused ones are ignored), and
  // their backward g * f'(x) with the same parameters.
  static const std::pair<const char*, Op> activations[] = {
      {"_gelu", Op::gelu},         {"_gelu_tanh", Op::gelu_tanh},
      {"_silu", Op::silu},         {"_leaky_relu", Op::leaky_relu},
      {"_elu", Op::elu},           {"_selu", Op::selu},
      {"_softplus", Op::softplus}, {"_hardtanh", Op::hardtanh}};
  for (const auto& [name, op] : activations)
    m.def(
        name,
        [op = op](const Tensor& x, double a, double b) {
          return run_elementwise(spec_of(op), Tensor(), {x}, Scalar::from_double(a),
                                 Scalar::from_double(b));
        },
        py::arg("input"), py::arg("a") = 0.0, py::arg("b") = 0.0);
  static const std::pair<const char*, Op> activation_grads[] = {
      {"_gelu_grad", Op::gelu_grad},         {"_gelu_tanh_grad", Op::gelu_tanh_grad},
      {"_silu_grad", Op::silu_grad},         {"_leaky_relu_grad", Op::leaky_relu_grad},
      {"_elu_grad", Op::elu_grad},           {"_selu_grad", Op::selu_grad},
      {"_softplus_grad", Op::softplus_grad}, {"_hardtanh_grad", Op::hardtanh_grad},
      {"_tanh_grad", Op::tanh_grad},         {"_sigmoid_grad", Op::sigmoid_grad}};
  for (const auto& [name, op] : activation_grads)
    m.def(
        name,
        [op = op](const Tensor& g, const Tensor& x, double a, double b) {
          return run_elementwise(spec_of(op), Tensor(), {g, x}, Scalar::from_double(a),
                                 Scalar::from_double(b));
        },
        py::arg("grad"), py::arg("input"), py::arg("a") = 0.0, py::arg("b") = 0.0);
  m.attr("subtract") = m.attr("sub");
  cls.attr("subtract") = cls.attr("sub");
  m.def(
      "div",
      [](py::handle a, py::handle b, py::handle rounding_mode, py::handle out) {
        return ret(out, binary(div_op(rounding_mode), tensor_or_scalar(a, "div", "input"),
                               tensor_or_scalar(b, "div", "other"), opt_tensor(out)));
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none(),
      py::arg("out") = py::none());
  cls.def(
      "div",
      [](const Tensor& a, py::handle b, py::handle rounding_mode) {
        return binary(div_op(rounding_mode), a, tensor_or_scalar(b, "div", "other"));
      },
      py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  cls.def(
      "div_",
      [](py::handle self, py::handle b, py::handle rounding_mode) {
        const Tensor& a = self.cast<const Tensor&>();
        binary(div_op(rounding_mode), a, tensor_or_scalar(b, "div_", "other"), a);
        return self_ref(self);
      },
      py::arg("other"), py::kw_only(), py::arg("rounding_mode") = py::none());
  m.attr("divide") = m.attr("div");
  m.attr("true_divide") = m.attr("div");
  cls.attr("divide") = cls.attr("div");
  cls.attr("true_divide") = cls.attr("div");

  // Operators: a number on either side; anything else gives NotImplemented back to Python.
  cls.def("__add__", [](const Tensor& a, py::handle b) -> py::object {
    if (py::isinstance<Tensor>(b)) return py::cast(binary(Op::add, a, b.cast<const Tensor&>()));
    if (!is_number(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return py::cast(binary(Op::add, a, wrap_scalar(to_scalar(b, "add", "other"))));
  });
  cls.attr("__radd__") = cls.attr("__add__");
  cls.def("__sub__", [](const Tensor& a, py::handle b) -> py::object {
    if (!is_operand(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return py::cast(binary(Op::sub, a, tensor_or_scalar(b, "sub", "other")));
  });
  cls.def("__rsub__", [](const Tensor& a, py::handle b) -> py::object {
    if (!is_operand(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return py::cast(binary(Op::sub, tensor_or_scalar(b, "sub", "other"), a));
  });
  cls.def("__iadd__", [](py::handle self, py::handle b) -> py::object {
    if (!is_operand(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    const Tensor& a = self.cast<const Tensor&>();
    binary(Op::add, a, tensor_or_scalar(b, "add_", "other"), a);
    return self_ref(self);
  });
  cls.def("__isub__", [](py::handle self, py::handle b) -> py::object {
    if (!is_operand(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    const Tensor& a = self.cast<const Tensor&>();
    binary(Op::sub, a, tensor_or_scalar(b, "sub_", "other"), a);
    return self_ref(self);
  });
  for (const OperatorDef& o : kOperators) {
    Op op = o.op;
    bool refl = o.reflected;
    cls.def(
        o.name,
        [op, refl](const Tensor& a, py::handle b) -> py::object {
          if (!is_operand(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          Tensor other = tensor_or_scalar(b, op_name(op), "other");
          return py::cast(refl ? binary(op, other, a) : binary(op, a, other));
        },
        NoGrad{!has_gradient(op)});
  }
  for (const OperatorDef& o : kInplaceOperators) {
    Op op = o.op;
    cls.def(
        o.name,
        [op](py::handle self, py::handle b) -> py::object {
          if (!is_operand(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
          const Tensor& a = self.cast<const Tensor&>();
          binary(op, a, tensor_or_scalar(b, op_name(op), "other"), a);
          return self_ref(self);
        },
        NoGrad{!has_gradient(op)});
  }
  cls.attr("__hash__") = py::module_::import("builtins").attr("object").attr("__hash__");

  // ---------------------------------------------------------------- ternary
  m.def(
      "where",
      [](const Tensor& c, py::handle a, py::handle b, py::handle out) {
        return ret(out, where(c, tensor_or_scalar(a, "where", "input"),
                              tensor_or_scalar(b, "where", "other"), opt_tensor(out)));
      },
      py::arg("condition"), py::arg("input"), py::arg("other"), py::kw_only(),
      py::arg("out") = py::none());
  m.def("_lerp", [](const Tensor& s, const Tensor& e, py::handle w, py::handle out) {
    return ret(out, ternary(Op::lerp, s, e, tensor_or_scalar(w, "lerp", "weight"), Scalar(),
                            opt_tensor(out)));
  });
  for (Op op : {Op::addcmul, Op::addcdiv}) {
    m.def(
        op_name(op),
        [op](const Tensor& x, const Tensor& a, const Tensor& b, py::handle value, py::handle out) {
          return ret(out,
                     ternary(op, x, a, b, to_scalar(value, op_name(op), "value"), opt_tensor(out)));
        },
        py::arg("input"), py::arg("tensor1"), py::arg("tensor2"), py::kw_only(),
        py::arg("value") = 1, py::arg("out") = py::none());
  }

  // ---------------------------------------------------------------- reductions
  for (Op op : {Op::sum, Op::prod, Op::amax, Op::amin, Op::all, Op::any, Op::sum_sq}) {
    m.def((std::string("_") + op_name(op)).c_str(),
          [op](const Tensor& x, py::handle dim, bool keepdim, py::handle dtype) {
            return reduce(op, x, to_dims(dim, op_name(op)), keepdim, opt_dtype(dtype, op_name(op)));
          },
          NoGrad{!has_gradient(op)});
  }
  for (Op op : {Op::argmax, Op::argmin}) {
    m.def((std::string("_") + op_name(op)).c_str(),
          [op](const Tensor& x, py::handle dim, bool keepdim) {
            auto r = arg_reduce(op, x, to_dims(dim, op_name(op)), keepdim);
            return py::make_tuple(r.first, r.second);
          });
  }

  // ---------------------------------------------------------------- matrix products
  m.def(
      "matmul",
      [](const Tensor& a, const Tensor& b, py::handle out) {
        return ret(out, matmul(a, b, opt_tensor(out)));
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("out") = py::none());
  cls.def("matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); });
  cls.def("__matmul__", [](const Tensor& a, py::handle b) -> py::object {
    if (!py::isinstance<Tensor>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
    return py::cast(matmul(a, b.cast<const Tensor&>()));
  });
  cls.def(
      "__rmatmul__",
      [](const Tensor& a, py::handle b) -> py::object {
        if (!py::isinstance<Tensor>(b))
          return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        return py::cast(matmul(b.cast<const Tensor&>(), a));
      },
      nograd);
  m.def(
      "mm",
      [](const Tensor& a, const Tensor& b, py::handle out) {
        return ret(out, mm(a, b, opt_tensor(out)));
      },
      py::arg("input"), py::arg("mat2"), py::kw_only(), py::arg("out") = py::none());
  m.def(
      "bmm",
      [](const Tensor& a, const Tensor& b, py::handle out) {
        return ret(out, bmm(a, b, opt_tensor(out)));
      },
      py::arg("input"), py::arg("mat2"), py::kw_only(), py::arg("out") = py::none());
  m.def(
      "mv",
      [](const Tensor& a, const Tensor& v, py::handle out) {
        return ret(out, mv(a, v, opt_tensor(out)));
      },
      py::arg("input"), py::arg("vec"), py::kw_only(), py::arg("out") = py::none());
  m.def(
      "dot",
      [](const Tensor& a, const Tensor& b, py::handle out) {
        Tensor r = dot(a, b);
        if (!out.is_none()) copy_(opt_tensor(out), r);
        return ret(out, r);
      },
      py::arg("input"), py::arg("other"), py::kw_only(), py::arg("out") = py::none());
  cls.def("mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); });
  cls.def("bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); });
  cls.def("mv", [](const Tensor& a, const Tensor& b) { return mv(a, b); });
  cls.def("dot", [](const Tensor& a, const Tensor& b) { return dot(a, b); });
  auto scalar_or = [](py::handle h, const char* op, const char* arg) {
    return to_scalar(h, op, arg);
  };
  m.def(
      "addmm",
      [=](const Tensor& in, const Tensor& a, const Tensor& b, py::handle beta, py::handle alpha,
          py::handle out) {
        return ret(out, addmm(in, a, b, scalar_or(beta, "addmm", "beta"),
                              scalar_or(alpha, "addmm", "alpha"), opt_tensor(out)));
      },
      py::arg("input"), py::arg("mat1"), py::arg("mat2"), py::kw_only(), py::arg("beta") = 1,
      py::arg("alpha") = 1, py::arg("out") = py::none());
  m.def(
      "addmv",
      [=](const Tensor& in, const Tensor& a, const Tensor& v, py::handle beta, py::handle alpha,
          py::handle out) {
        return ret(out, addmv(in, a, v, scalar_or(beta, "addmv", "beta"),
                              scalar_or(alpha, "addmv", "alpha"), opt_tensor(out)));
      },
      py::arg("input"), py::arg("mat"), py::arg("vec"), py::kw_only(), py::arg("beta") = 1,
      py::arg("alpha") = 1, py::arg("out") = py::none());
  m.def(
      "baddbmm",
      [=](const Tensor& in, const Tensor& a, const Tensor& b, py::handle beta, py::handle alpha,
          py::handle out) {
        return ret(out, baddbmm(in, a, b, scalar_or(beta, "baddbmm", "beta"),
                                scalar_or(alpha, "baddbmm", "alpha"), opt_tensor(out)));
      },
      py::arg("input"), py::arg("batch1"), py::arg("batch2"), py::kw_only(), py::arg("beta") = 1,
      py::arg("alpha") = 1, py::arg("out") = py::none());

  // ---------------------------------------------------------------- random
  // The samplers fill fresh tensors too, so bumping the version is left to the methods.
  m.def(
      "_uniform_",
      [](const Tensor& t, double a, double b, py::handle g) {
        uniform_(t, a, b, opt_generator(g));
      },
      nograd);
  m.def(
      "_normal_",
      [](const Tensor& t, double mean, double std, py::handle g) {
        normal_(t, mean, std, opt_generator(g));
      },
      nograd);
  m.def(
      "_random_",
      [](const Tensor& t, Int64 lo, Int64 hi, py::handle g) {
        random_(t, lo, hi, opt_generator(g));
      },
      nograd);
  m.def(
      "_bernoulli_",
      [](const Tensor& t, py::handle p, py::handle g) {
        bernoulli_(t, tensor_or_scalar(p, "bernoulli_", "p"), opt_generator(g));
      },
      nograd);
  m.def(
      "_randperm",
      [](Int64 n, py::handle dtype, py::handle g) {
        return randperm(n, to_dtype_arg(dtype, "randperm"), opt_generator(g));
      },
      nograd);
  m.def(
      "multinomial",
      [](const Tensor& p, Int64 n, bool replacement, py::handle g) {
        return multinomial(p, n, replacement, opt_generator(g));
      },
      py::arg("input"), py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(),
      py::arg("generator") = py::none(), nograd);

  // ---------------------------------------------------------------- complex, FFT
  m.def("_view_as_real", &view_as_real);
  m.def("_view_as_complex", &view_as_complex);
  m.def("_complex_abs", &complex_abs);
  m.def("_complex_angle", &complex_angle);
  m.def("_complex", &complex_from_parts);
  m.def("_fft_c2c", [](const Tensor& x, py::handle dims, bool forward, double scale) {
    return fft_c2c(x, to_shape(dims, "fft"), forward, scale);
  });
  m.def("_fft_r2c", [](const Tensor& x, py::handle dims, bool forward, double scale) {
    return fft_r2c(x, to_shape(dims, "fft"), forward, scale);
  });
  m.def("_fft_c2r",
        [](const Tensor& x, py::handle dims, Int64 last_size, bool forward, double scale) {
          return fft_c2r(x, to_shape(dims, "fft"), last_size, forward, scale);
        });
}

}  // namespace tc
