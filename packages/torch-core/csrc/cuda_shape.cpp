// cuda_shape.cpp — the CUDA backend's shape and data-movement kernels: flip, roll, tril/triu,
// repeat_interleave (shape_ops.h, shape.cpp's front ends), the bit shifts (Op::lshift,
// Op::rshift: elementwise, as cuda_kernels.cpp's ops), the modulus and argument of complex
// numbers (complex.cpp) and im2col/col2im (unfold/fold, conv.cpp). CUDA C++ source compiled
// by NVRTC on first use, registered in the (op, device, dtype) table.
//
// flip, roll and tril/triu are one gather kernel, `move`: each output element (its row-major
// index split over the output's sizes) reads the input at the same index, where a rolled dim
// shifts it (j -> j - shift, wrapping) and a flipped dim is the front end's view with a
// negative stride; tril/triu writes zero outside the kept triangle (and, in place, touches
// nothing else). Values only move, so the kernel is made per item size, not per dtype (the
// complex dtypes move as pairs of their parts' words, at their parts' alignment), and zero
// is the all-zero bit pattern for every dtype. Dims of size 1 are dropped and neighbours that
// step alike in both tensors merged (never a rolled dim, nor tril's last two), so a contiguous
// flip is one dim; index math is 32-bit where every index and offset fits in 2^30.
//
// repeat_interleave: each output element finds its input row by binary search in the row
// offsets (uploaded per call). col2im is a gather too: each image element sums the column
// entries that land on it in the CPU's order (kernel position ascending), so results do not
// depend on scheduling and no atomics are needed.
#include <algorithm>
#include <iterator>
#include <type_traits>

#include "cuda.h"
#include "nn_kernels.h"
#include "shape_ops.h"

namespace tc::cuda {

namespace {

constexpr int kMaxDims = 16;  // MAXD in kPrelude
constexpr int kThreads = 256;
constexpr int64_t kFits32 = int64_t(1) << 30;  // the 32-bit walk: indices, offsets below this

// kinds of cached(): this file owns 40-49
enum Kind { kMove = 40, kRepeat, kShift, kComplex, kIm2col, kCol2im };

// Each struct is declared twice: in kernel source (kParams) and as its host mirror below,
// member for member (8-byte members first).
const char* const kParams = R"(
struct MoveParams {
  const char* in; char* out; i64 n, diag;
  i64 size[MAXD], ost[MAXD], ist[MAXD], shift[MAXD];
  int nd, tri, upper, inplace;
};
struct RepeatParams { const char* in; char* out; const i64* offs; i64 count, n, inner, total; };
struct ComplexParams { const char* in; char* out; i64 n; };
struct FoldParams {
  const char* in; char* out; i64 total, C;
  i64 im[3], blocks[3], k[3], s[3], p[3], d[3];
};
#define GRID_LOOP(e, n) \
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < (n); e += (i64)gridDim.x * blockDim.x)
typedef unsigned short u16;
struct m64 { u32 a, b; };   // complex64 moved as its two words
struct m128 { u64 a, b; };  // complex128
)";

struct MoveParamsHost {
  const char* in;
  char* out;
  int64_t n, diag;
  int64_t size[kMaxDims], ost[kMaxDims], ist[kMaxDims], shift[kMaxDims];
  int32_t nd, tri, upper, inplace;
};
struct RepeatParamsHost {
  const char* in;
  char* out;
  const int64_t* offs;
  int64_t count, n, inner, total;
};
struct ComplexParamsHost {
  const char* in;
  char* out;
  int64_t n;
};
struct FoldParamsHost {
  const char* in;
  char* out;
  int64_t total, C;
  int64_t im[3], blocks[3], k[3], s[3], p[3], d[3];
};
struct EwParamsHost {  // EwParams in kPrelude (the shifts walk an ElementwiseIter)
  char* ptr[4];
  int64_t n;
  int32_t nd, host;
  int64_t size[kMaxDims];
  int64_t st[4][kMaxDims];
  double a0, a1, hd[4];
  int64_t i0, i1, hi[4];
};

// ---------------------------------------------------------------- kernel sources
// The type a dtype's values move as: an unsigned word of its size (complex: a pair of its
// parts' words, aligned as they are).
const char* mover(ScalarType t) {
  if (t == ScalarType::ComplexFloat) return "m64";
  if (t == ScalarType::ComplexDouble) return "m128";
  switch (itemsize(t)) {
    case 1:
      return "u8";
    case 2:
      return "u16";
    case 4:
      return "u32";
    default:
      return "u64";
  }
}
// One representative dtype per mover (the cache key: kernels are shared by item size).
ScalarType mover_key(ScalarType t) {
  if (is_complex(t)) return t;
  switch (itemsize(t)) {
    case 1:
      return ScalarType::Byte;
    case 2:
      return ScalarType::Short;
    case 4:
      return ScalarType::Int;
    default:
      return ScalarType::Long;
  }
}
const ScalarType kMoverKeys[] = {ScalarType::Byte,         ScalarType::Short,
                                 ScalarType::Int,          ScalarType::Long,
                                 ScalarType::ComplexFloat, ScalarType::ComplexDouble};

std::string move_name(ScalarType key) { return cat_str("shape_move_", mover(key)); }

std::string move_source(ScalarType key) {
  std::string name = move_name(key);
  return cat_str(kPrelude, kParams, "typedef ", mover(key), " M;\n", R"(
// I: the index type (i32 where the host found that every index and offset fits)
template <class I>
__device__ __forceinline__ void move(const MoveParams& p) {
  const M* in = (const M*)p.in;
  M* out = (M*)p.out;
  for (I e = (I)blockIdx.x * blockDim.x + threadIdx.x; e < (I)p.n; e += (I)gridDim.x * blockDim.x) {
    I rem = e, oo = 0, io = 0, row = 0, col = 0;
    for (int d = p.nd - 1; d >= 0; d--) {
      I sz = (I)p.size[d], q = rem / sz, id = rem - q * sz;
      rem = q;
      oo += id * (I)p.ost[d];
      I src = id - (I)p.shift[d];  // rolled: out[j] = in[j - shift], wrapping
      if (src < 0) src += sz;
      io += src * (I)p.ist[d];
      if (d == p.nd - 1) col = id;
      if (d == p.nd - 2) row = id;
    }
    if (p.tri) {  // tril keeps col - row <= diag, triu col - row >= diag
      i64 off = (i64)col - (i64)row;
      bool keep = p.upper ? off >= p.diag : off <= p.diag;
      if (!keep) out[oo] = M();
      else if (!p.inplace) out[oo] = in[io];
    } else {
      out[oo] = in[io];
    }
  }
}
extern "C" __global__ void )",
                 name, "_32(MoveParams p) { move<i32>(p); }\nextern \"C\" __global__ void ", name,
                 "_64(MoveParams p) { move<i64>(p); }\n");
}

std::string repeat_name(ScalarType key) { return cat_str("shape_repeat_", mover(key)); }

std::string repeat_source(ScalarType key) {
  return cat_str(kPrelude, kParams, "typedef ", mover(key), " M;\n",
                 "extern \"C\" __global__ void ", repeat_name(key), R"((RepeatParams p) {
  const M* in = (const M*)p.in;
  M* out = (M*)p.out;
  GRID_LOOP(e, p.count) {
    i64 q = e / p.inner, k = e - q * p.inner;
    i64 o = q / p.total, t = q - o * p.total;  // output row t of outer block o
    i64 lo = 0, hi = p.n - 1;  // the last input row i with offs[i] <= t (its repeats cover t)
    while (lo < hi) {
      i64 mid = lo + (hi - lo + 1) / 2;
      if (p.offs[mid] <= t) lo = mid; else hi = mid - 1;
    }
    out[e] = in[(o * p.n + lo) * p.inner + k];
  }
}
)");
}

// ---- bit shifts: as k_binary.cpp's lshift_impl/rshift_impl (PyTorch's rules: a shift by a
// negative amount or by the width or more gives 0 to the left; to the right, what shifting
// every bit out leaves: the sign for signed types, 0 for unsigned)
std::string shift_name(Op op, ScalarType t) {
  return cat_str("shape_", op_name(op), '_', dtype_name(t));
}

std::string shift_source(Op op, ScalarType t) {
  bool left = op == Op::lshift;
  return cat_str(kPrelude, kParams, "typedef ", storage_name(t), " S;\n", R"(
__device__ __forceinline__ S shift(S x, S y) {
  const int bits = (int)sizeof(S) * 8;
  bool out_of_range = (i64)y < 0 || (i64)y >= (i64)bits;
)",
                 left ? "  return out_of_range ? (S)0 : (S)((u64)x << (int)y);\n"
                      : "  if (out_of_range) return (S)(x < (S)0 ? -1 : 0);\n"
                        "  return (S)(x >> (int)y);  // arithmetic for signed types\n",
                 "}\nextern \"C\" __global__ void ", shift_name(op, t), R"((EwParams p) {
  GRID_LOOP(i, p.n) {
    i64 rem = i, o[3] = {0, 0, 0};
    for (int d = 0; d < p.nd; d++) {  // dim 0 is the fastest
      i64 sz = p.size[d], q = rem / sz, id = rem - q * sz;
      rem = q;
      for (int k = 0; k < 3; k++) o[k] += id * p.st[k][d];
    }
    S a = (p.host >> 1) & 1 ? (S)p.hi[1] : *(const S*)(p.ptr[1] + o[1]);
    S b = (p.host >> 2) & 1 ? (S)p.hi[2] : *(const S*)(p.ptr[2] + o[2]);
    *(S*)(p.ptr[0] + o[0]) = shift(a, b);
  }
}
)");
}

// ---- |z| and arg z of a contiguous complex tensor into its real dtype
std::string complex_name(Op op, ScalarType t) {
  return cat_str("shape_", op_name(op), '_', dtype_name(t));
}

std::string complex_source(Op op, ScalarType t) {
  bool single = t == ScalarType::ComplexFloat;
  const char* f = op == Op::complex_abs ? (single ? "hypotf(re, im)" : "hypot(re, im)")
                                        : (single ? "atan2f(im, re)" : "atan2(im, re)");
  return cat_str(kPrelude, kParams, "typedef ", single ? "float" : "double", " R;\n",
                 "extern \"C\" __global__ void ", complex_name(op, t), R"((ComplexParams p) {
  const R* z = (const R*)p.in;
  R* out = (R*)p.out;
  GRID_LOOP(i, p.n) {
    R re = z[2 * i], im = z[2 * i + 1];
    out[i] = )",
                 f, ";\n  }\n}\n");
}

// ---- im2col / col2im, as conv.cpp's (3 spatial dims, missing leading ones of size 1):
// columns (N, C * K, L), row c * K + kernel position (kz, ky, kx), column the block
// (oz, oy, ox); block o and kernel position k read image position o * s - p + k * d.
std::string fold_name(bool col2im, ScalarType t) {
  return cat_str("shape_", col2im ? "col2im_" : "im2col_", dtype_name(t));
}

std::string fold_source(bool col2im, ScalarType t) {
  std::string s =
      cat_str(kPrelude, kParams, "typedef ", storage_name(t), " S;\ntypedef ", acc_name(t),
              " A;\nextern \"C\" __global__ void ", fold_name(col2im, t), "(FoldParams p) {\n");
  s += R"(  const S* in = (const S*)p.in;
  S* out = (S*)p.out;
  const i64 K = p.k[0] * p.k[1] * p.k[2], L = p.blocks[0] * p.blocks[1] * p.blocks[2];
  const i64 plane = p.im[1] * p.im[2], image = p.im[0] * plane;
)";
  if (!col2im) {
    s += R"(  GRID_LOOP(e, p.total) {  // e = ((n * C + c) * K + kk) * L + l
    i64 l = e % L, r = e / L, kk = r % K, nc = r / K;
    i64 kx = kk % p.k[2], ky = kk / p.k[2] % p.k[1], kz = kk / (p.k[2] * p.k[1]);
    i64 ox = l % p.blocks[2], oy = l / p.blocks[2] % p.blocks[1], oz = l / (p.blocks[2] * p.blocks[1]);
    i64 iz = oz * p.s[0] - p.p[0] + kz * p.d[0];
    i64 iy = oy * p.s[1] - p.p[1] + ky * p.d[1];
    i64 ix = ox * p.s[2] - p.p[2] + kx * p.d[2];
    bool inside = iz >= 0 && iz < p.im[0] && iy >= 0 && iy < p.im[1] && ix >= 0 && ix < p.im[2];
    out[e] = inside ? in[nc * image + iz * plane + iy * p.im[2] + ix] : Cvt<S>::go(0);
  }
}
)";
  } else {
    // image position i gets kernel position k from block o = (i + p - k * d) / s where that
    // divides exactly and 0 <= o < blocks; i + p - k * d falls as k grows
    s += R"(  GRID_LOOP(e, p.total) {  // e = ((n * C + c) * im[0] + iz) * im[1] + iy) * im[2] + ix
    i64 ix = e % p.im[2], t = e / p.im[2], iy = t % p.im[1];
    t /= p.im[1];
    i64 iz = t % p.im[0], nc = t / p.im[0];
    const S* cols = in + nc * K * L;
    A acc = (A)0;
    for (i64 kz = 0; kz < p.k[0]; kz++) {
      i64 tz = iz + p.p[0] - kz * p.d[0];
      if (tz < 0) break;
      i64 oz = tz / p.s[0];
      if (oz * p.s[0] != tz || oz >= p.blocks[0]) continue;
      for (i64 ky = 0; ky < p.k[1]; ky++) {
        i64 ty = iy + p.p[1] - ky * p.d[1];
        if (ty < 0) break;
        i64 oy = ty / p.s[1];
        if (oy * p.s[1] != ty || oy >= p.blocks[1]) continue;
        for (i64 kx = 0; kx < p.k[2]; kx++) {
          i64 tx = ix + p.p[2] - kx * p.d[2];
          if (tx < 0) break;
          i64 ox = tx / p.s[2];
          if (ox * p.s[2] != tx || ox >= p.blocks[2]) continue;
          i64 kk = (kz * p.k[1] + ky) * p.k[2] + kx, l = (oz * p.blocks[1] + oy) * p.blocks[2] + ox;
          acc += (A)to_acc(cols[kk * L + l]);
        }
      }
    }
    out[e] = Cvt<S>::go(acc);
  }
}
)";
  }
  return s;
}

// ---------------------------------------------------------------- host side
unsigned blocks_for(int64_t n) {
  int64_t cap = int64_t(sm_count(current_device())) * 32;
  return unsigned(std::max<int64_t>(1, std::min<int64_t>((n + kThreads - 1) / kThreads, cap)));
}

void run(CUfunction f, int64_t n, void* params) {
  void* args[] = {params};
  launch(f, blocks_for(n), 1, kThreads, args);
}

// The geometry of a move: out's sizes, both tensors' element strides and the roll shifts
// (row-major). A dim that is `fixed` (rolled; tril's last two) is kept as it is; the others
// are dropped where of size 1 and merged with the dim before them where both tensors step
// over the pair as over one dim.
MoveParamsHost move_params(const Tensor& out, const Tensor& in, const Shape& shift, int tri_dims,
                           const char* op) {
  MoveParamsHost p{};
  p.in = in.data();
  p.out = out.data();
  p.n = out.numel();
  int64_t nd = out.dim();
  bool last_fixed = false;
  int k = -1;  // the last geometry dim written
  for (int64_t d = 0; d < nd; d++) {
    int64_t size = out.size(d), os = out.stride(d), is = in.stride(d), sh = shift[size_t(d)];
    bool fixed = sh != 0 || d >= nd - tri_dims;
    if (size == 1 && !fixed) continue;
    int64_t os_span, is_span;
    bool merge = k >= 0 && !fixed && !last_fixed && !__builtin_mul_overflow(os, size, &os_span) &&
                 !__builtin_mul_overflow(is, size, &is_span) && p.ost[k] == os_span &&
                 p.ist[k] == is_span;
    if (merge) {  // the sizes' product is at most out.numel()
      p.size[k] *= size;
      p.ost[k] = os;
      p.ist[k] = is;
      continue;
    }
    k++;
    TC_CHECK(k < kMaxDims, NotImplemented, op, ": CUDA supports at most ", kMaxDims,
             " dims here (after merging), got a tensor of shape ", shape_str(out.sizes()));
    p.size[k] = size;
    p.ost[k] = os;
    p.ist[k] = is;
    p.shift[k] = sh;
    last_fixed = fixed;
  }
  p.nd = k + 1;
  return p;
}

// Whether the 32-bit walk suffices: every index and offset (either sign) below 2^30.
bool fits32(const MoveParamsHost& p) {
  if (p.n >= kFits32) return false;
  __int128 os = 0, is = 0;
  for (int d = 0; d < p.nd; d++) {
    __int128 n = p.size[d] - 1;
    os += n * (p.ost[d] < 0 ? -__int128(p.ost[d]) : __int128(p.ost[d]));
    is += n * (p.ist[d] < 0 ? -__int128(p.ist[d]) : __int128(p.ist[d]));
  }
  return os < kFits32 && is < kFits32;
}

void run_move(MoveParamsHost& p, ScalarType t) {
  if (p.n == 0) return;
  ScalarType key = mover_key(t);
  bool small = fits32(p);
  CUfunction f = cached(kMove, 0, key, key, small ? "_32" : "_64",
                        [&] { return std::make_pair(move_source(key), move_name(key)); });
  run(f, p.n, &p);
}

void flip_kernel(const Tensor& out, const Tensor& reversed_view) {
  use_device_of(out);
  MoveParamsHost p =
      move_params(out, reversed_view, Shape(size_t(out.dim()), 0), 0, op_name(Op::flip));
  run_move(p, out.dtype());
}

void roll_kernel(const Tensor& out, const Tensor& in, const Shape& dims, const Shape& shifts) {
  use_device_of(out);
  Shape shift(size_t(out.dim()), 0);
  for (size_t j = 0; j < dims.size(); j++) {
    int64_t d = dims[j], n = out.size(d);
    TC_CHECK(d >= 0 && d < out.dim() && shifts[j] >= 0 && shifts[j] < std::max<int64_t>(n, 1),
             Runtime, "roll: a shift of ", shifts[j], " along dim ", d,
             " (the front end gives [0, ", n, "))");
    shift[size_t(d)] = shifts[j];
  }
  MoveParamsHost p = move_params(out, in, shift, 0, op_name(Op::roll));
  run_move(p, out.dtype());
}

void tri_kernel(const Tensor& dst, const Tensor& src, int64_t diagonal, bool upper) {
  use_device_of(dst);
  TC_CHECK(dst.dim() >= 2, Runtime, op_name(upper ? Op::triu : Op::tril),
           ": expected at least 2 dims");
  MoveParamsHost p =
      move_params(dst, src, Shape(size_t(dst.dim()), 0), 2, op_name(upper ? Op::triu : Op::tril));
  p.diag = diagonal;  // clamped by the front end to +-(rows + cols): no overflow below
  p.tri = 1;
  p.upper = upper;
  p.inplace = dst.data() == src.data() && dst.strides() == src.strides();
  run_move(p, dst.dtype());
}

void repeat_interleave_kernel(const Tensor& out, const Tensor& in, int64_t outer, int64_t n,
                              int64_t inner, const int64_t* repeats, const int64_t* offsets) {
  (void)repeats;  // offsets[i + 1] - offsets[i]: the kernel needs only the offsets
  use_device_of(out);
  if (out.numel() == 0 || n == 0) return;
  int64_t total = offsets[n];
  TC_CHECK(total > 0 && outer > 0 && inner > 0 && out.numel() / outer / inner == total, Runtime,
           "repeat_interleave: an output of ", out.numel(),
           " elements is not outer * total repeats * inner = ", outer, " * ", total, " * ", inner);
  // the row offsets on the device (the first n: row i starts at output row offsets[i])
  Tensor host = empty({n}, ScalarType::Long, Device{});
  std::copy(offsets, offsets + n, host.data_as<int64_t>());
  Tensor offs = upload_async(host, out.device());
  RepeatParamsHost p{in.data(), out.data(), offs.data_as<int64_t>(), out.numel(), n, inner, total};
  ScalarType key = mover_key(out.dtype());
  CUfunction f = cached(kRepeat, 0, key, key, "",
                        [&] { return std::make_pair(repeat_source(key), repeat_name(key)); });
  run(f, p.count, &p);
}

template <int OP, int DT>
void shift_kernel(ElementwiseIter& it) {
  Op op = Op(OP);
  ScalarType t = ScalarType(DT);
  int64_t n = it.numel();
  if (n == 0) return;
  use_device_of(it.operand(0));
  TC_CHECK(it.ntensors == 3, Runtime, op_name(op), ": expected 2 inputs and an output");
  const Shape& shape = it.shape();
  int nd = int(shape.size());
  TC_CHECK(nd <= kMaxDims, NotImplemented, "CUDA: elementwise walks of more than ", kMaxDims,
           " dims are not supported");
  EwParamsHost p{};
  p.n = n;
  p.nd = nd;
  for (int d = 0; d < nd; d++) p.size[d] = shape[size_t(d)];
  for (int k = 0; k < 3; k++) {
    const Tensor& opnd = it.operand(k);
    if (opnd.device().type == DeviceType::CPU) {  // a Python number: passed by value
      TC_CHECK(k > 0, Runtime, "CUDA: an elementwise output on the CPU");
      p.host |= 1 << k;
      visit_dtype(opnd.dtype(), [&](auto v) {
        using T = decltype(v);
        T x = *reinterpret_cast<const T*>(it.data(k));
        if constexpr (std::is_integral_v<T>)
          p.hi[k] = int64_t(x);
        else
          p.hi[k] = int64_t(double(typename AccOf<T>::type(x)));
      });
      continue;
    }
    p.ptr[k] = it.data(k);
    for (int d = 0; d < nd; d++) p.st[k][d] = it.strides(k)[size_t(d)];
  }
  CUfunction f = cached(kShift, OP, t, t, "",
                        [&] { return std::make_pair(shift_source(op, t), shift_name(op, t)); });
  run(f, n, &p);
}

template <int OP, int DT>
void complex_kernel(const Tensor& z, const Tensor& out) {  // z contiguous, out its real dtype
  Op op = Op(OP);
  ScalarType t = ScalarType(DT);
  use_device_of(z);
  ComplexParamsHost p{z.data(), out.data(), z.numel()};
  if (p.n == 0) return;
  CUfunction f = cached(kComplex, OP, t, t, "",
                        [&] { return std::make_pair(complex_source(op, t), complex_name(op, t)); });
  run(f, p.n, &p);
}

// The parameters of an im2col/col2im launch, after checking that the kernels' position
// arithmetic (o * s - p + k * d and i + p - k * d, in int64) cannot overflow.
FoldParamsHost fold_params(const ConvGeom& g, const Tensor& in, const Tensor& out, const char* op) {
  FoldParamsHost p{};
  p.in = in.data();
  p.out = out.data();
  p.total = out.numel();
  p.C = g.C;
  for (int i = 0; i < 3; i++) {
    __int128 reach = __int128(g.out[i] - 1) * g.s[i] + __int128(g.k[i] - 1) * g.d[i];
    TC_CHECK(reach <= INT64_MAX && __int128(g.in[i]) + g.p[i] <= INT64_MAX, NotImplemented, op,
             ": CUDA: padding, stride or dilation too large for 64-bit positions");
    p.im[i] = g.in[i];
    p.blocks[i] = g.out[i];
    p.k[i] = g.k[i];
    p.s[i] = g.s[i];
    p.p[i] = g.p[i];
    p.d[i] = g.d[i];
  }
  return p;
}

template <int DT>
void im2col_kernel(const ConvGeom& g, int64_t N, const Tensor& x, const Tensor& col) {
  ScalarType t = ScalarType(DT);
  use_device_of(x);
  FoldParamsHost p = fold_params(g, x, col, "unfold");
  TC_CHECK(p.total == N * g.C * g.k_n() * g.out_n(), Runtime, "unfold: a column matrix of ",
           p.total, " elements for ", N, " samples");
  if (p.total == 0) return;
  CUfunction f = cached(kIm2col, 0, t, t, "",
                        [&] { return std::make_pair(fold_source(false, t), fold_name(false, t)); });
  run(f, p.total, &p);
}

template <int DT>
void col2im_kernel(const ConvGeom& g, int64_t N, const Tensor& col, const Tensor& y) {
  ScalarType t = ScalarType(DT);
  use_device_of(col);
  FoldParamsHost p = fold_params(g, col, y, "fold");
  TC_CHECK(p.total == N * g.C * g.in_n(), Runtime, "fold: an image of ", p.total, " elements for ",
           N, " samples");
  if (p.total == 0) return;
  CUfunction f = cached(kCol2im, 0, t, t, "",
                        [&] { return std::make_pair(fold_source(true, t), fold_name(true, t)); });
  run(f, p.total, &p);
}

// The table stores void*: check each kernel's type against the one its front end calls.
static_assert(std::is_same_v<decltype(&flip_kernel), FlipFn>);
static_assert(std::is_same_v<decltype(&roll_kernel), RollFn>);
static_assert(std::is_same_v<decltype(&tri_kernel), TriFn>);
static_assert(std::is_same_v<decltype(&repeat_interleave_kernel), RepeatInterleaveFn>);
static_assert(std::is_same_v<decltype(&shift_kernel<0, 0>), ElementwiseFn>);
static_assert(std::is_same_v<decltype(&complex_kernel<0, 0>), ComplexToRealFn>);
static_assert(std::is_same_v<decltype(&im2col_kernel<0>), Im2colFn>);
static_assert(std::is_same_v<decltype(&col2im_kernel<0>), Col2imFn>);

constexpr int kShiftTypes[] = {int(ScalarType::Byte), int(ScalarType::Char), int(ScalarType::Short),
                               int(ScalarType::Int), int(ScalarType::Long)};
constexpr int kFoldTypes[] = {int(ScalarType::Half), int(ScalarType::BFloat16),
                              int(ScalarType::Float), int(ScalarType::Double)};

template <size_t... I>
void register_typed(std::index_sequence<I...>) {
  auto reg = [](Op op, int t, void* fn) {
    register_kernel(op, DeviceType::CUDA, ScalarType(t), fn);
  };
  (reg(Op::lshift, kShiftTypes[I], (void*)&shift_kernel<int(Op::lshift), kShiftTypes[I]>), ...);
  (reg(Op::rshift, kShiftTypes[I], (void*)&shift_kernel<int(Op::rshift), kShiftTypes[I]>), ...);
}

template <size_t... I>
void register_fold(std::index_sequence<I...>) {
  auto reg = [](Op op, int t, void* fn) {
    register_kernel(op, DeviceType::CUDA, ScalarType(t), fn);
  };
  (reg(Op::im2col, kFoldTypes[I], (void*)&im2col_kernel<kFoldTypes[I]>), ...);
  (reg(Op::col2im, kFoldTypes[I], (void*)&col2im_kernel<kFoldTypes[I]>), ...);
}

}  // namespace

void register_shape_kernels() {
  for (int d = 0; d < kNumDTypes; d++) {  // the real dtypes and the complex ones
    ScalarType t = ScalarType(d);
    register_kernel(Op::flip, DeviceType::CUDA, t, (void*)&flip_kernel);
    register_kernel(Op::roll, DeviceType::CUDA, t, (void*)&roll_kernel);
    register_kernel(Op::tril, DeviceType::CUDA, t, (void*)&tri_kernel);
    register_kernel(Op::triu, DeviceType::CUDA, t, (void*)&tri_kernel);
    register_kernel(Op::repeat_interleave, DeviceType::CUDA, t, (void*)&repeat_interleave_kernel);
  }
  register_typed(std::make_index_sequence<std::size(kShiftTypes)>());
  register_fold(std::make_index_sequence<std::size(kFoldTypes)>());
  constexpr int c64 = int(ScalarType::ComplexFloat), c128 = int(ScalarType::ComplexDouble);
  register_kernel(Op::complex_abs, DeviceType::CUDA, ScalarType(c64),
                  (void*)&complex_kernel<int(Op::complex_abs), c64>);
  register_kernel(Op::complex_abs, DeviceType::CUDA, ScalarType(c128),
                  (void*)&complex_kernel<int(Op::complex_abs), c128>);
  register_kernel(Op::complex_angle, DeviceType::CUDA, ScalarType(c64),
                  (void*)&complex_kernel<int(Op::complex_angle), c64>);
  register_kernel(Op::complex_angle, DeviceType::CUDA, ScalarType(c128),
                  (void*)&complex_kernel<int(Op::complex_angle), c128>);
}

void append_shape_kernel_sources(std::vector<std::pair<std::string, std::string>>& all) {
  for (ScalarType key : kMoverKeys) {
    all.emplace_back(move_name(key), move_source(key));
    all.emplace_back(repeat_name(key), repeat_source(key));
  }
  for (int t : kShiftTypes)
    for (Op op : {Op::lshift, Op::rshift})
      all.emplace_back(shift_name(op, ScalarType(t)), shift_source(op, ScalarType(t)));
  for (ScalarType t : {ScalarType::ComplexFloat, ScalarType::ComplexDouble})
    for (Op op : {Op::complex_abs, Op::complex_angle})
      all.emplace_back(complex_name(op, t), complex_source(op, t));
  for (int t : kFoldTypes)
    for (bool col2im : {false, true})
      all.emplace_back(fold_name(col2im, ScalarType(t)), fold_source(col2im, ScalarType(t)));
}

}  // namespace tc::cuda
