// iter.cpp — building elementwise iterations: broadcasting, promotion, outputs, layout.
#include "iter.h"

#include <pthread.h>

#include "ops.h"

namespace tc {

// ---------------------------------------------------------------- threads
static int g_num_threads = 0;
int get_num_threads() {
  if (g_num_threads == 0) g_num_threads = omp_get_max_threads();
  return g_num_threads;
}
// A forked child runs kernels on one thread: GNU libgomp's thread pool does not survive fork,
// and the child's first parallel region would wait forever for the parent's threads (as in
// PyTorch, set_num_threads in the child opts back in).
static void forked_child() { g_num_threads = 1; }
static const int g_atfork = pthread_atfork(nullptr, nullptr, forked_child);
void set_blas_threads(int n);  // blas.cpp
void set_num_threads(int n) {
  TC_CHECK(n > 0, Value, "set_num_threads: expected a positive number of threads, got ", n);
  g_num_threads = n;
  omp_set_num_threads(n);
  set_blas_threads(n);
}

// ---------------------------------------------------------------- kernel table
static void* g_kernels[int(Op::NumOps)][kNumDevices][kNumDTypes];

const char* op_name(Op op) {
  static const char* names[] = {
#define TC_OP_NAME(name, group) #name,
      TC_FORALL_OPS(TC_OP_NAME)
#undef TC_OP_NAME
  };
  return names[int(op)];
}

void register_kernel(Op op, DeviceType dev, ScalarType dtype, void* fn) {
  g_kernels[int(op)][int(dev)][int(dtype)] = fn;
}

void* find_kernel_raw(Op op, Device dev, ScalarType dtype) {
  void* fn = g_kernels[int(op)][int(dev.type)][int(dtype)];
  TC_CHECK(fn, NotImplemented, op_name(op), ": not implemented for dtype ", dtype_name(dtype),
           " on ", dev.str());
  return fn;
}

// ---------------------------------------------------------------- promotion
static ScalarType promote_opt(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}

// `higher` comes from a stronger participant (dim>0 tensors over 0-d tensors over numbers):
// the weaker side only matters when it is of a higher category.
static int category(ScalarType t) {  // bool < integer < floating < complex
  return t == ScalarType::Bool ? 0 : is_integral(t, false) ? 1 : is_floating(t) ? 2 : 3;
}
static ScalarType combine(ScalarType higher, ScalarType lower) {
  if (higher == ScalarType::Undefined) return lower;
  if (lower == ScalarType::Undefined || category(lower) <= category(higher)) return higher;
  return promote_types(higher, lower);
}

ScalarType result_type(std::initializer_list<Tensor> ts) {
  ScalarType dim_r = ScalarType::Undefined, zero_r = dim_r, wrapped_r = dim_r;
  for (const Tensor& t : ts) {
    if (t.impl()->wrapped_number) {
      // Python floats and complex numbers take the default dtype's precision
      ScalarType w = t.dtype() == ScalarType::Double          ? default_dtype()
                     : t.dtype() == ScalarType::ComplexDouble ? complex_dtype(default_dtype())
                                                              : t.dtype();
      wrapped_r = promote_opt(wrapped_r, w);
    } else if (t.dim() == 0) {
      zero_r = promote_opt(zero_r, t.dtype());
    } else {
      dim_r = promote_opt(dim_r, t.dtype());
    }
  }
  return combine(combine(dim_r, zero_r), wrapped_r);
}

// ---------------------------------------------------------------- building
// A written-to tensor must not have two elements at one address (an expanded dim): the result
// would depend on the order of the writes.
static void check_no_internal_overlap(const Tensor& out, const char* op) {
  for (int64_t d = 0; d < out.dim() && out.numel() > 0; d++)
    TC_CHECK(out.stride(d) != 0 || out.size(d) <= 1, Runtime, op,
             ": unsupported operation: more than one element of the written-to tensor (shape ",
             shape_str(out.sizes()), ", strides ", shape_str(out.strides()),
             ") refers to a single memory location. "
             "Please clone() the tensor before performing the operation.");
}

// ---------------------------------------------------------------- dim order and output layout
// t's strides aligned to the broadcast shape `sh` (reversed: index 0 is the last dim), times
// `scale`; 0 where t is broadcast, dims that cannot order the others.
static SmallVec<int64_t> aligned_strides(const Tensor& t, const Shape& sh, int64_t scale) {
  int nd = int(sh.size());
  SmallVec<int64_t> st(nd);
  int64_t lead = nd - t.dim();
  for (int d = 0; d < nd; d++) {
    int64_t td = nd - 1 - d - lead;  // dim of t aligned with reversed dim d
    st[d] = (td < 0 || (t.size(td) == 1 && sh[d] != 1)) ? 0 : t.stride(td) * scale;
  }
  return st;
}

// The reversed dims of `sh` ordered fastest first by the operands' strides `st`. A pair of dims
// is ordered by the first operand with nonzero strides on both (equal strides: the smaller dim
// first); an insertion sort that carries a dim on past those no operand can order it against,
// so a broadcast dim between two others does not pin them. The same order decides the loops
// (plan) and the layout of a new output (output_order), so the two merge into one run.
static SmallVec<int> order_dims(const Shape& sh, const SmallVec<int64_t>* st, int nops) {
  int nd = int(sh.size());
  SmallVec<int> perm(nd);
  for (int d = 0; d < nd; d++) perm[d] = d;
  auto slower = [&](int a, int b) {  // 1: a is slower than b, -1: faster, 0: no operand says
    for (int k = 0; k < nops; k++) {
      int64_t sa = st[k][a] < 0 ? -st[k][a] : st[k][a], sb = st[k][b] < 0 ? -st[k][b] : st[k][b];
      if (sa == 0 || sb == 0) continue;
      if (sa != sb) return sa > sb ? 1 : -1;
      if (sh[a] > sh[b]) return 1;
    }
    return 0;
  };
  for (int i = 1; i < nd; i++)
    for (int j = i - 1, cur = i; j >= 0; j--) {
      int c = slower(perm[j], perm[cur]);
      if (c < 0) break;
      if (c > 0) {
        std::swap(perm[j], perm[cur]);
        cur = j;
      }
    }
  return perm;
}

// Note [Output layout]: a new output is dense, its dims in the order of its inputs' strides,
// the first input deciding where they disagree (a transposed or channels-last input gives a
// transposed or channels-last result, as in PyTorch; NumPy's order='K' is alike). Broadcast
// dims decide nothing: row-major inputs, or ones that cannot order the dims (expanded tensors,
// numbers), give a row-major output. A sliced (non-dense) input orders them too, as in PyTorch.
static SmallVec<int> output_order(const Shape& shape, const Tensor* ins, int n) {
  int nd = int(shape.size());
  Shape sh(nd);
  for (int d = 0; d < nd; d++) sh[d] = shape[nd - 1 - d];
  SmallVec<int64_t> st[kMaxOperands];
  for (int i = 0; i < n; i++) st[i] = aligned_strides(ins[i], sh, 1);
  return order_dims(sh, st, n);
}

// A new dense tensor whose dims lie in memory in `order` (reversed dims, fastest first).
static Tensor empty_in_order(const Shape& shape, const SmallVec<int>& order, ScalarType dtype,
                             Device device) {
  Tensor t = empty(shape, dtype, device);
  int nd = int(shape.size());
  bool row_major = true;
  for (int i = 0; i < nd; i++) row_major &= order[i] == i;
  if (row_major || t.numel() == 0) return t;
  // Each stride is a product of sizes of one nonempty tensor, so none overflows.
  int64_t step = 1;
  for (int i = 0; i < nd; i++) {
    int64_t d = nd - 1 - order[i];
    t.impl()->strides[d] = step;
    step *= shape[d];
  }
  return t;
}

ElementwiseIter ElementwiseIter::build(const ElementwiseSpec& spec, const Tensor& out,
                                       std::initializer_list<Tensor> inputs) {
  ElementwiseIter it;
  it.grain_ = spec.grain;
  const char* name = op_name(spec.op);
  Tensor ins[kMaxOperands];
  int n = 0;
  for (const Tensor& t : inputs) ins[n++] = t;
  it.ntensors = n + 1;

  Shape shape = ins[0].sizes();
  // The device of the first operand that is not a CPU number: a 0-dim CPU tensor (a wrapped
  // Python number) may join tensors of any device, as in PyTorch.
  Device device = ins[0].device();
  for (int i = 0; i < n; i++)
    if (ins[i].dim() > 0 || ins[i].device().type != DeviceType::CPU) {
      device = ins[i].device();
      break;
    }
  for (int i = 1; i < n; i++) {
    if (ins[i].sizes() != shape && n > 2) {
      try {
        shape = broadcast_shapes(shape, ins[i].sizes(), name);
      } catch (const TorchError&) {
        std::string all;
        for (int k = 0; k < n; k++)
          all += (k ? (k + 1 == n ? " and " : ", ") : "") + shape_str(ins[k].sizes());
        fail(ErrorKind::Runtime, name, ": shapes ", all, " cannot be broadcast together");
      }
    } else if (ins[i].sizes() != shape) {
      shape = broadcast_shapes(shape, ins[i].sizes(), name);
    }
    TC_CHECK(
        ins[i].device() == device || (ins[i].dim() == 0 && ins[i].device().type == DeviceType::CPU),
        Runtime, name, ": expected all tensors to be on the same device, but found ", device.str(),
        " and ", ins[i].device().str());
  }

  // `where` keeps its bool condition out of promotion
  int first = spec.promote_inputs ? 0 : 1;
  ScalarType compute;
  if (n - first == 1)
    compute = ins[first].dtype();
  else if (n - first == 2)
    compute = result_type({ins[first], ins[first + 1]});
  else
    compute = result_type({ins[first], ins[first + 1], ins[first + 2]});
  if (spec.int_to_float && !is_floating(compute) && !is_complex(compute)) compute = default_dtype();
  ScalarType res = spec.bool_out ? ScalarType::Bool : compute;
  // 16-bit floats meet Python numbers in float32, as PyTorch's kernels do: the number keeps
  // its precision and the result is rounded once.
  bool has_number = false;
  for (int i = first; i < n; i++) has_number |= ins[i].impl()->wrapped_number;
  if (has_number && (compute == ScalarType::Half || compute == ScalarType::BFloat16))
    compute = ScalarType::Float;
  ScalarType kernel_res = spec.bool_out ? ScalarType::Bool : compute;
  it.compute_dtype_ = compute;

  if (out.defined()) {
    check_not_inference(out, name);
    bool inplace = false;
    for (int i = 0; i < n; i++) inplace |= ins[i].same(out);
    std::string opname = std::string(name) + (inplace ? "_" : "");
    if (out.sizes() != shape) {
      TC_CHECK(!inplace, Runtime, opname, ": output with shape ", shape_str(out.sizes()),
               " doesn't match the broadcast shape ", shape_str(shape));
      resize_(out, shape);
    }
    TC_CHECK(can_cast(res, out.dtype()), Runtime, opname, ": result type ", dtype_name(res),
             " can't be cast to the desired output type ", dtype_name(out.dtype()));
    check_no_internal_overlap(out, opname.c_str());
    for (int i = 0; i < n; i++)
      TC_CHECK(!may_overlap(out, ins[i]) ||
                   (ins[i].data() == out.data() && ins[i].strides() == out.strides() &&
                    ins[i].dtype() == out.dtype()),
               Runtime, opname,
               ": unsupported operation: some elements of the input tensor and the written-to "
               "tensor refer to a single memory location. Please clone() the tensor before "
               "performing the operation.");
  }
  if (out.defined() && out.dtype() == kernel_res) {
    it.out_ = out;
    it.written_ = out;
  } else {
    // Before the casts below, which make contiguous copies: the layout is the inputs'.
    SmallVec<int> order = output_order(shape, ins, n);
    it.out_ = empty_in_order(shape, order, kernel_res, device);
    if (out.defined() || kernel_res != res)
      it.user_out_ = out.defined() ? out : empty_in_order(shape, order, res, device);
  }
  for (int i = first; i < n; i++)
    if (ins[i].dtype() != compute) ins[i] = to_dtype(ins[i], compute);
  Tensor ops[kMaxOperands];
  ops[0] = it.out_;
  for (int i = 0; i < n; i++) ops[i + 1] = ins[i];
  it.plan(shape, ops);
  return it;
}

ElementwiseIter ElementwiseIter::for_copy(const Tensor& dst, const Tensor& src) {
  ElementwiseIter it;
  it.ntensors = src.defined() ? 2 : 1;
  it.out_ = dst;
  it.compute_dtype_ = dst.dtype();
  it.grain_ = kCheapGrain;  // copies and fills move memory only
  it.input_dtype = src.defined() ? src.dtype() : dst.dtype();
  Tensor ops[2] = {dst, src};
  it.plan(dst.sizes(), ops);
  return it;
}

void ElementwiseIter::plan(const Shape& shape, const Tensor* ops) {
  int nd = int(shape.size());
  numel_ = safe_numel(shape, "elementwise");
  if (numel_ == 0) {  // nothing to visit: one empty run, so no stride product can overflow
    shape_ = Shape{0};
    for (int k = 0; k < ntensors; k++) {
      strides_[k] = SmallVec<int64_t>();
      strides_[k].push_back(0);
      base_[k] = ops[k].data();
      operands_[k] = ops[k];
    }
    return;
  }
  // Byte strides aligned to `shape`, reversed so that index 0 is the last (fastest) dim.
  SmallVec<int64_t> st[kMaxOperands];
  Shape sh(nd);
  for (int d = 0; d < nd; d++) sh[d] = shape[nd - 1 - d];
  for (int k = 0; k < ntensors; k++) {
    st[k] = aligned_strides(ops[k], sh, int64_t(ops[k].itemsize()));
    base_[k] = ops[k].data();
    operands_[k] = ops[k];
  }
  // Loop fastest-first in the output's order (then the inputs').
  SmallVec<int> perm = order_dims(sh, st, ntensors);
  // Merge neighbours that are one run for every operand; drop size-1 dims.
  shape_ = Shape();
  for (int k = 0; k < ntensors; k++) strides_[k] = SmallVec<int64_t>();
  for (int i = 0; i < nd; i++) {
    int d = perm[i];
    if (sh[d] == 1) continue;
    bool merge = !shape_.empty();
    for (int k = 0; k < ntensors && merge; k++)
      merge = st[k][d] == strides_[k].back() * shape_.back();
    if (merge) {
      shape_.back() *= sh[d];
    } else {
      shape_.push_back(sh[d]);
      for (int k = 0; k < ntensors; k++) strides_[k].push_back(st[k][d]);
    }
  }
  if (shape_.empty()) {
    shape_.push_back(1);
    for (int k = 0; k < ntensors; k++) strides_[k].push_back(0);
  }
  TC_CHECK(shape_.size() <= 16, NotImplemented,
           "tensors whose layout needs more than 16 "
           "dimensions after merging are not supported");
}

Tensor ElementwiseIter::result() {
  if (user_out_.defined()) {
    copy_(user_out_, out_);
    user_out_.bump_version();
    return user_out_;
  }
  if (written_.defined()) written_.bump_version();
  return out_;
}

Tensor run_elementwise(const ElementwiseSpec& spec, const Tensor& out,
                       std::initializer_list<Tensor> inputs, Scalar a0, Scalar a1) {
  ElementwiseIter it = ElementwiseIter::build(spec, out, inputs);
  auto fn = find_kernel<ElementwiseFn>(spec.op, it.result_device(), it.compute_dtype());
  it.args[0] = a0;
  it.args[1] = a1;
  fn(it);
  return it.result();
}

// ---------------------------------------------------------------- copy
// Transposed copies go in 64x64 tiles of 8x8 blocks: each block is read column-wise into
// registers and written row-wise, so both sides stream through cache lines.
template <class T>
static void transpose_tiles(T* o, const T* s, int64_t rows, int64_t cols, int64_t ld, int nt) {
  constexpr int64_t B = 64, R = 8;
#pragma omp parallel for num_threads(nt) schedule(static) collapse(2)
  for (int64_t i0 = 0; i0 < rows; i0 += B)
    for (int64_t j0 = 0; j0 < cols; j0 += B) {
      int64_t ie = std::min(i0 + B, rows), je = std::min(j0 + B, cols);
      for (int64_t ib = i0; ib < ie; ib += R)
        for (int64_t jb = j0; jb < je; jb += R) {
          if (ib + R <= ie && jb + R <= je) {
            T t[R][R];
            for (int j = 0; j < R; j++)
              for (int i = 0; i < R; i++) t[j][i] = s[(ib + i) + (jb + j) * ld];
            for (int i = 0; i < R; i++)
              for (int j = 0; j < R; j++) o[(ib + i) * cols + jb + j] = t[j][i];
          } else {
            for (int64_t i = ib; i < std::min(ib + R, ie); i++)
              for (int64_t j = jb; j < std::min(jb + R, je); j++) o[i * cols + j] = s[i + j * ld];
          }
        }
    }
}

static bool copy_transposed_2d(const Tensor& dst, const Tensor& src) {
  if (dst.dim() != 2 || !dst.is_contiguous() || src.stride(0) != 1 || src.size(0) < 64 ||
      src.size(1) < 64 || dst.dtype() != src.dtype())
    return false;
  int64_t rows = dst.size(0), cols = dst.size(1), ld = src.stride(1);
  int nt = rows * cols >= kCheapGrain ? get_num_threads() : 1;
  visit_dtype_complex(dst.dtype(), [&](auto v) {
    using T = decltype(v);
    transpose_tiles<T>(dst.data_as<T>(), src.data_as<T>(), rows, cols, ld, nt);
  });
  return true;
}

void copy_(const Tensor& dst, const Tensor& src_in) {
  check_not_inference(dst, "copy_");
  Tensor src = src_in;
  if (src.sizes() != dst.sizes()) {
    broadcast_shapes(dst.sizes(), src.sizes(), "copy_");
    TC_CHECK(src.dim() <= dst.dim(), Runtime, "copy_: source of shape ", shape_str(src.sizes()),
             " cannot be broadcast to destination of shape ", shape_str(dst.sizes()));
    src = expand(src, dst.sizes());
  }
  if (dst.numel() == 0) return;
  // A CPU number may go anywhere; other copies between devices go through the host side:
  // the device's to_host kernel, or its from_host kernel fed a contiguous CPU tensor.
  bool cpu_scalar = src.dim() == 0 && src.device().type == DeviceType::CPU;
  if (src.device().type != dst.device().type && !cpu_scalar &&
      src.device().type != DeviceType::Meta && dst.device().type != DeviceType::Meta) {
    if (dst.device().type == DeviceType::CPU) {
      copy_(dst, on_host(src));
      return;
    }
    if (src.device().type == DeviceType::CPU) {
      Tensor host = contiguous(to_dtype(src, dst.dtype()));
      Tensor target = dst.is_contiguous() ? dst : empty(dst.sizes(), dst.dtype(), dst.device());
      find_kernel<ToHostFn>(Op::from_host, dst.device(), dst.dtype())(host, target);
      if (!target.same(dst)) copy_(dst, target);
      return;
    }
  }
  TC_CHECK(src.device().type == dst.device().type || cpu_scalar, NotImplemented,
           "copy_: copying from ", src.device().str(), " to ", dst.device().str(),
           " is not implemented",
           src.device().type == DeviceType::Meta ? " (a meta tensor has no data)" : "");
  check_no_internal_overlap(dst, "copy_");
  if (may_overlap(dst, src)) {
    if (src.data() == dst.data() && src.strides() == dst.strides() && src.dtype() == dst.dtype())
      return;
    src = clone(src);
  }
  if (src.dtype() == dst.dtype() && dst.is_contiguous() && src.is_contiguous() &&
      dst.device().type == DeviceType::CPU) {
    std::memcpy(dst.data(), src.data(), size_t(dst.numel()) * dst.itemsize());
    return;
  }
  if (dst.device().type == DeviceType::CPU && copy_transposed_2d(dst, src)) return;
  ElementwiseIter it = ElementwiseIter::for_copy(dst, src);
  find_kernel<ElementwiseFn>(Op::copy, dst.device(), dst.dtype())(it);
}

}  // namespace tc
