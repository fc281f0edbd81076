// cuda_index.cpp — the CUDA backend's indexing kernels (index_select, gather, scatter,
// index_add, index_put, masked ops, ...): CUDA C++ source compiled by NVRTC on first use,
// registered in the (op, device, dtype) table for the ops of index_ops.h.
//
// Every index op reaches one of these kernels through index.cpp's front ends: the scatter
// family, index_add/copy/fill, bincount and x[i] = v write with `put` (at offsets made by
// `offsets`), x[i] reads with `take`, x[mask] and masked_select with `count` + `mask_rows`,
// nonzero with `count` + `nonzero`. masked_fill is `where` (cuda_kernels.cpp).
//
// Bad indices: a kernel that meets one skips it, zero-fills what it would have read, and
// stores int(op) + 1 into device_error_word() (raised at the next synchronisation). The
// offsets kernel marks a bad row with offset -1, which take and put skip: offsets are
// otherwise never negative (strides are not).
//
// Index math is 64-bit throughout; every loop is grid-stride, so any size fits the grid.
#include <algorithm>
#include <type_traits>

#include "cuda.h"
#include "index_ops.h"

namespace tc::cuda {

namespace {

constexpr int kMaxDims = 16;    // MAXD in kPrelude
constexpr int kThreads = 256;   // threads per block (a multiple of 32: the scans use warps)
constexpr int kMaxParts = 256;  // blocks of the count/compaction kernels (starts[] below)
constexpr int kRealTypes = int(ScalarType::Double) + 1;

// kinds of cached(): this file owns 20-29
enum Kind {
  kOffsets = 20,
  kTake,
  kPut,
  kCount,
  kNonzero,
  kMaskRows,
  kMaskCopy,
  kSelect,
  kGather,
  kSearch
};

// ---------------------------------------------------------------- kernel parameters
// Each struct is declared twice: in kernel source (kParams) and as its host mirror below,
// member for member (8-byte members first, so both sides lay them out alike).
const char* const kParams = R"(
struct OffsetsParams {
  const i64* idx[MAXD]; i64* out; int* err; i64 n; i64 size[MAXD]; i64 stride[MAXD];
  int k, code;
};
struct RowsParams {  // take / put: rows of sub at offsets
  char* base; const i64* off; char* values; i64 nb, n; i64 size[MAXD], stride[MAXD];
  int nd, contig, mode, pad;
};
struct SelectParams {
  const char* x; const i64* idx; char* out; int* err; i64 total, k, inner, n; int code, pad;
};
struct GatherParams {
  const char* x; const i64* idx; char* out; int* err; i64 total, n;
  i64 size[MAXD], xst[MAXD], ist[MAXD]; int nd, dim, code, pad;
};
struct SearchParams {
  const char* seq; const char* values; char* out; i64 total, n, m; int right, shared, out32, pad;
};
struct CountParams { const char* x; i64* counts; i64 total, chunk; };
struct CompactParams {  // nonzero / mask_rows: chunk c of the input writes from starts[c] on
  const char* x; const bool* mask; char* out; i64* pos; i64 total, chunk, inner;
  i64 size[MAXD]; i64 starts[256]; int nd, pad;
};
#define GRID_LOOP(e, n) \
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < (n); e += (i64)gridDim.x * blockDim.x)
#define BAD_INDEX(p) (*(volatile int*)(p).err = (p).code)
)";

struct OffsetsParamsHost {
  const int64_t* idx[kMaxDims];
  int64_t* out;
  int* err;
  int64_t n;
  int64_t size[kMaxDims];
  int64_t stride[kMaxDims];
  int32_t k, code;
};
struct RowsParamsHost {
  char* base;
  const int64_t* off;
  char* values;
  int64_t nb, n;
  int64_t size[kMaxDims], stride[kMaxDims];
  int32_t nd, contig, mode, pad;
};
struct SelectParamsHost {
  const char* x;
  const int64_t* idx;
  char* out;
  int* err;
  int64_t total, k, inner, n;
  int32_t code, pad;
};
struct GatherParamsHost {
  const char* x;
  const int64_t* idx;
  char* out;
  int* err;
  int64_t total, n;
  int64_t size[kMaxDims], xst[kMaxDims], ist[kMaxDims];
  int32_t nd, dim, code, pad;
};
struct SearchParamsHost {
  const char* seq;
  const char* values;
  char* out;
  int64_t total, n, m;
  int32_t right, shared, out32, pad;
};
struct CountParamsHost {
  const char* x;
  int64_t* counts;
  int64_t total, chunk;
};
struct CompactParamsHost {
  const char* x;
  const bool* mask;
  char* out;
  int64_t* pos;
  int64_t total, chunk, inner;
  int64_t size[kMaxDims];
  int64_t starts[kMaxParts];
  int32_t nd, pad;
};

// ---------------------------------------------------------------- kernel sources
// Every source: the prelude, S (storage type) and A (compute type) of its dtype, the
// parameter structs, then its kernel `ix_<what>_<dtype>`.
std::string head(ScalarType t) {
  return cat_str(kPrelude, "typedef ", storage_name(t), " S;\ntypedef ", acc_name(t), " A;\n",
                 kParams);
}

std::string kname(const char* what, ScalarType t) {
  return cat_str("ix_", what, '_', dtype_name(t));
}

std::string offsets_source() {
  return head(ScalarType::Long) + R"(
extern "C" __global__ void ix_offsets_int64(OffsetsParams p) {
  GRID_LOOP(e, p.n) {
    i64 off = 0;
    bool ok = true;
    for (int j = 0; j < p.k; j++) {
      i64 v = p.idx[j][e], n = p.size[j];
      if (v < -n || v >= n) { ok = false; break; }
      off += (v < 0 ? v + n : v) * p.stride[j];
    }
    if (!ok) BAD_INDEX(p);
    p.out[e] = ok ? off : -1;
  }
}
)";
}

// Element offset of row-major position i within sub (a strided view).
const char* const kSubOffset = R"(
__device__ __forceinline__ i64 sub_offset(const RowsParams& p, i64 i) {
  if (p.contig) return i;
  i64 o = 0;
  for (int d = p.nd - 1; d >= 0; d--) {
    i64 q = i / p.size[d];
    o += (i - q * p.size[d]) * p.stride[d];
    i = q;
  }
  return o;
}
)";

std::string take_source(ScalarType t) {
  return head(t) + kSubOffset + "extern \"C\" __global__ void " + kname("take", t) +
         R"((RowsParams p) {
  const S* base = (const S*)p.base;
  S* out = (S*)p.values;
  GRID_LOOP(e, p.nb * p.n) {
    i64 b = e / p.n, off = p.off[b];
    out[e] = off < 0 ? Cvt<S>::go(0) : base[off + sub_offset(p, e - b * p.n)];
  }
}
)";
}

// combine(d, v, mode): d (op)= v for PutMode add (1), mul (2), max (3), min (4), as the CPU's
// put_one (bool: add/max = or, mul/min = and, which the arithmetic below gives). atomic_combine
// applies it atomically: hardware atomicAdd where there is one, else a compare-and-swap loop on
// the element, or on the aligned 32-bit word holding a 1- or 2-byte element.
std::string atomic_source(ScalarType t) {
  std::string s = R"(
__device__ __forceinline__ S combine(S d, S v, int mode) {
  A x = to_acc(d), y = to_acc(v);
  if (mode == 1) return Cvt<S>::go(x + y);
  if (mode == 2) return Cvt<S>::go(x * y);
  if (mode == 3) return (y > x || y != y) ? v : d;
  return (y < x || y != y) ? v : d;
}
__device__ __forceinline__ void atomic_combine(S* dst, S v, int mode) {
)";
  switch (t) {
    case ScalarType::Float:
    case ScalarType::Double:
      s += "  if (mode == 1) { atomicAdd(dst, v); return; }\n";
      break;
    case ScalarType::Int:
      s += "  if (mode == 1) { atomicAdd((int*)dst, (int)v); return; }\n";
      break;
    case ScalarType::Long:  // two's complement: the unsigned sum wraps the same way
      s += "  if (mode == 1) { atomicAdd((u64*)dst, (u64)v); return; }\n";
      break;
    default:
      break;
  }
  size_t size = itemsize(t);
  if (size >= 4) {
    const char* bits = size == 4 ? "u32" : "u64";
    s += cat_str("  union Pun { S s; ", bits, " b; };\n  ", bits, "* w = (", bits, "*)dst;\n  ",
                 bits, " old = *(volatile ", bits, "*)w, assumed;\n");
    s += R"(  do {
    assumed = old;
    Pun cur, next;
    cur.b = assumed;
    next.s = combine(cur.s, v, mode);
    if (next.b == assumed) return;
    old = atomicCAS(w, assumed, next.b);
  } while (old != assumed);
}
)";
  } else {
    s += cat_str("  union Pun { S s; ", size == 1 ? "u8" : "unsigned short", " b; };\n");
    s += cat_str("  const u32 mask = ", size == 1 ? "0xffu" : "0xffffu", ";\n");
    s += R"(  u32* w = (u32*)((u64)dst & ~(u64)3);
  u32 shift = (u32)((u64)dst & 3) * 8;
  u32 old = *(volatile u32*)w, assumed;
  do {
    assumed = old;
    Pun cur, next;
    cur.b = (assumed >> shift) & mask;
    next.s = combine(cur.s, v, mode);
    u32 repl = (assumed & ~(mask << shift)) | (((u32)next.b & mask) << shift);
    if (repl == assumed) return;
    old = atomicCAS(w, assumed, repl);
  } while (old != assumed);
}
)";
  }
  return s;
}

std::string put_source(ScalarType t) {
  return head(t) + kSubOffset + atomic_source(t) + "extern \"C\" __global__ void " +
         kname("put", t) + R"((RowsParams p) {
  S* base = (S*)p.base;
  const S* v = (const S*)p.values;
  GRID_LOOP(e, p.nb * p.n) {
    i64 b = e / p.n, off = p.off[b];
    if (off < 0) continue;
    S* dst = base + off + sub_offset(p, e - b * p.n);
    if (p.mode == 0)
      *dst = v[e];
    else
      atomic_combine(dst, v[e], p.mode);
  }
}
)";
}

std::string select_source(ScalarType t) {
  return head(t) + "extern \"C\" __global__ void " + kname("index_select", t) +
         R"((SelectParams p) {
  const S* x = (const S*)p.x;
  S* out = (S*)p.out;
  GRID_LOOP(e, p.total) {
    i64 r = e / p.inner, i = e - r * p.inner, o = r / p.k, j = r - o * p.k, v = p.idx[j];
    if (v < 0 || v >= p.n) { BAD_INDEX(p); out[e] = Cvt<S>::go(0); continue; }
    out[e] = x[(o * p.n + v) * p.inner + i];
  }
}
)";
}

std::string gather_source(ScalarType t) {
  return head(t) + "extern \"C\" __global__ void " + kname("gather", t) + R"((GatherParams p) {
  const S* x = (const S*)p.x;
  S* out = (S*)p.out;
  GRID_LOOP(e, p.total) {
    i64 rem = e, xo = 0, io = 0;
    for (int d = p.nd - 1; d >= 0; d--) {
      i64 q = rem / p.size[d], c = rem - q * p.size[d];
      rem = q;
      io += c * p.ist[d];
      if (d != p.dim) xo += c * p.xst[d];
    }
    i64 v = p.idx[io];
    if (v < 0 || v >= p.n) { BAD_INDEX(p); out[e] = Cvt<S>::go(0); continue; }
    out[e] = x[xo + v * p.xst[p.dim]];
  }
}
)";
}

std::string search_source(ScalarType t) {
  return head(t) + "extern \"C\" __global__ void " + kname("searchsorted", t) +
         R"((SearchParams p) {
  const S* v = (const S*)p.values;
  GRID_LOOP(i, p.total) {
    const S* row = (const S*)p.seq + (p.shared ? 0 : (i / p.m) * p.n);
    A x = to_acc(v[i]);
    i64 lo = 0, hi = p.n;
    while (lo < hi) {  // the first position whose element is > x (right) or >= x (left)
      i64 mid = lo + (hi - lo) / 2;
      A e = to_acc(row[mid]);
      if (p.right ? !(x < e) : (e < x)) lo = mid + 1; else hi = mid;
    }
    if (p.out32) ((i32*)p.out)[i] = (i32)lo; else ((i64*)p.out)[i] = lo;
  }
}
)";
}

// One block per chunk: counts[c] = the nonzeros of x[c * chunk, (c + 1) * chunk).
std::string count_source(ScalarType t) {
  return head(t) + "extern \"C\" __global__ void " + kname("count", t) + R"((CountParams p) {
  __shared__ i64 part[256];
  const S* x = (const S*)p.x;
  i64 b = min(p.total, (i64)blockIdx.x * p.chunk), e = min(p.total, b + p.chunk), n = 0;
  for (i64 i = b + threadIdx.x; i < e; i += blockDim.x) n += to_acc(x[i]) != A(0);
  part[threadIdx.x] = n;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) p.counts[blockIdx.x] = part[0];
}
)";
}

// The ordered compaction shared by nonzero and mask_rows: block c walks its chunk in tiles
// of blockDim elements; each flagged element's result index is starts[c] + the flagged
// elements before it (earlier tiles, earlier warps, earlier lanes).
const char* const kCompact = R"(
// This thread's rank among the block's flagged threads; *all = how many are flagged.
__device__ __forceinline__ i64 block_rank(bool flag, i64* all) {
  __shared__ int warp_count[32];
  unsigned ballot = __ballot_sync(0xffffffffu, flag);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_count[warp] = __popc(ballot);
  __syncthreads();
  int before = 0, total = 0;
  for (int w = 0; w < (int)(blockDim.x >> 5); w++) {
    if (w < warp) before += warp_count[w];
    total += warp_count[w];
  }
  __syncthreads();  // warp_count is rewritten by the next tile
  *all = total;
  return before + __popc(ballot & ((1u << lane) - 1u));
}
#define COMPACT_LOOP(FLAG, EMIT)                                                     \
  i64 b = min(p.total, (i64)blockIdx.x * p.chunk), e = min(p.total, b + p.chunk);     \
  i64 at = p.starts[blockIdx.x];                                                      \
  for (i64 t0 = b; t0 < e; t0 += blockDim.x) {                                        \
    i64 i = t0 + threadIdx.x, all;                                                    \
    bool flag = i < e && (FLAG);                                                      \
    i64 r = at + block_rank(flag, &all);                                              \
    if (i < e) { EMIT; }                                                              \
    at += all;                                                                        \
  }
)";

std::string nonzero_source(ScalarType t) {
  return head(t) + kCompact + "extern \"C\" __global__ void " + kname("nonzero", t) +
         R"((CompactParams p) {
  const S* x = (const S*)p.x;
  i64* out = (i64*)p.out;
  COMPACT_LOOP(to_acc(x[i]) != A(0), if (flag) {
    i64 rem = i;
    for (int d = p.nd - 1; d >= 0; d--) {
      i64 q = rem / p.size[d];
      out[r * p.nd + d] = rem - q * p.size[d];
      rem = q;
    }
  })
}
)";
}

// inner == 1: the selected elements go straight to out; else each row's result row (or -1)
// goes to pos, and mask_copy moves the rows.
std::string mask_rows_source(ScalarType t) {
  return head(t) + kCompact + "extern \"C\" __global__ void " + kname("mask_rows", t) +
         R"((CompactParams p) {
  const S* x = (const S*)p.x;
  S* out = (S*)p.out;
  COMPACT_LOOP(p.mask[i], if (p.inner == 1) { if (flag) out[r] = x[i]; } else p.pos[i] = flag ? r : -1)
}
)";
}

std::string mask_copy_source(ScalarType t) {
  return head(t) + "extern \"C\" __global__ void " + kname("mask_copy", t) + R"((CompactParams p) {
  const S* x = (const S*)p.x;
  S* out = (S*)p.out;
  GRID_LOOP(e, p.total * p.inner) {
    i64 row = e / p.inner, r = p.pos[row];
    if (r >= 0) out[r * p.inner + (e - row * p.inner)] = x[e];
  }
}
)";
}

// ---------------------------------------------------------------- host side
CUfunction get(Kind kind, ScalarType t, const char* what, std::string (*make)(ScalarType)) {
  return cached(int(kind), 0, t, t, "", [&] { return std::make_pair(make(t), kname(what, t)); });
}

// Blocks for a grid-stride loop over n (> 0) elements.
unsigned blocks_for(int64_t n) {
  int64_t cap = int64_t(sm_count(current_device())) * 32;
  return unsigned(std::max<int64_t>(1, std::min<int64_t>((n + kThreads - 1) / kThreads, cap)));
}

void run(CUfunction f, unsigned blocks, void* params) {
  void* args[] = {params};
  launch(f, blocks, 1, kThreads, args);
}

void check_dims(int64_t nd, const char* op) {
  TC_CHECK(nd <= kMaxDims, NotImplemented, op, ": CUDA kernels take at most ", kMaxDims,
           " dims (got ", nd, ")");
}

void offsets_kernel(const std::vector<Tensor>& idx, const Shape& sizes, const Shape& strides,
                    const Tensor& out, BadIndex&) {
  use_device_of(out);
  check_dims(int64_t(idx.size()), "index");
  OffsetsParamsHost p{};
  for (size_t j = 0; j < idx.size(); j++) {
    p.idx[j] = idx[j].data_as<int64_t>();
    p.size[j] = sizes[j];
    p.stride[j] = strides[j];
  }
  p.out = out.data_as<int64_t>();
  p.err = device_error_word();
  p.n = out.numel();
  p.k = int32_t(idx.size());
  p.code = int(Op::index_offsets) + 1;
  CUfunction f = cached(kOffsets, 0, ScalarType::Long, ScalarType::Long, "", [] {
    return std::make_pair(offsets_source(), std::string("ix_offsets_int64"));
  });
  run(f, blocks_for(p.n), &p);
}

RowsParamsHost rows_params(const Tensor& sub, const int64_t* off, int64_t nb, const char* values,
                           const char* op) {
  check_dims(sub.dim(), op);
  RowsParamsHost p{};
  p.base = sub.data();
  p.off = off;
  p.values = const_cast<char*>(values);
  p.nb = nb;
  p.n = sub.numel();
  p.nd = int32_t(sub.dim());
  p.contig = sub.is_contiguous();
  for (int64_t d = 0; d < sub.dim(); d++) p.size[d] = sub.size(d), p.stride[d] = sub.stride(d);
  return p;
}

template <int DT>
void take_kernel(const Tensor& sub, const int64_t* off, int64_t nb, char* out) {
  use_device_of(sub);
  RowsParamsHost p = rows_params(sub, off, nb, out, "index");
  if (p.nb * p.n > 0)
    run(get(kTake, ScalarType(DT), "take", take_source), blocks_for(p.nb * p.n), &p);
}

template <int DT>
void put_kernel(const Tensor& sub, const int64_t* off, int64_t nb, const char* values,
                PutMode mode) {
  use_device_of(sub);
  RowsParamsHost p = rows_params(sub, off, nb, values, "index_put_");
  p.mode = int32_t(mode);
  if (p.nb * p.n > 0) run(get(kPut, ScalarType(DT), "put", put_source), blocks_for(p.nb * p.n), &p);
}

template <int DT>
void index_select_kernel(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& out,
                         BadIndex&) {
  use_device_of(x);
  SelectParamsHost p{};
  p.x = x.data();
  p.idx = idx.data_as<int64_t>();
  p.out = out.data();
  p.err = device_error_word();
  p.total = out.numel();
  p.k = idx.numel();
  p.n = x.size(dim);
  p.inner = 1;
  for (int64_t d = dim + 1; d < x.dim(); d++) p.inner *= x.size(d);
  p.code = int(Op::index_select) + 1;
  if (p.total > 0)  // (k and inner are then > 0)
    run(get(kSelect, ScalarType(DT), "index_select", select_source), blocks_for(p.total), &p);
}

template <int DT>
void gather_kernel(const Tensor& x, int64_t dim, const Tensor& idx, char* out, BadIndex&) {
  use_device_of(x);
  check_dims(idx.dim(), "gather");
  GatherParamsHost p{};
  p.x = x.data();
  p.idx = idx.data_as<int64_t>();
  p.out = out;
  p.err = device_error_word();
  p.total = idx.numel();
  p.n = x.size(dim);
  p.nd = int32_t(idx.dim());
  p.dim = int32_t(dim);
  for (int64_t d = 0; d < idx.dim(); d++) {
    p.size[d] = idx.size(d);
    p.xst[d] = x.stride(d);
    p.ist[d] = idx.stride(d);
  }
  p.code = int(Op::gather) + 1;
  if (p.total > 0)
    run(get(kGather, ScalarType(DT), "gather", gather_source), blocks_for(p.total), &p);
}

template <int DT>
void search_kernel(const Tensor& seq, const Tensor& values, bool right, char* out, bool out_int32) {
  use_device_of(seq);
  SearchParamsHost p{};
  p.seq = seq.data();
  p.values = values.data();
  p.out = out;
  p.total = values.numel();
  p.n = seq.size(seq.dim() - 1);
  p.m = values.dim() ? values.size(values.dim() - 1) : 1;
  p.right = right;
  p.shared = seq.dim() == 1;
  p.out32 = out_int32;
  if (p.total > 0)
    run(get(kSearch, ScalarType(DT), "searchsorted", search_source), blocks_for(p.total), &p);
}

// Count: one block per chunk, the counts copied back (a synchronisation, as in PyTorch: the
// result's size depends on them) and summed into plan.starts.
template <int DT>
void count_kernel(const Tensor& x, int64_t, CountPlan& plan) {
  use_device_of(x);
  int64_t total = x.numel();
  int64_t parts = std::clamp<int64_t>((total + 4095) / 4096, 1, kMaxParts);
  plan.chunk = std::max<int64_t>((total + parts - 1) / parts, 1);
  plan.starts.assign(size_t(parts + 1), 0);
  if (total == 0) return;
  Tensor counts = empty({parts}, ScalarType::Long, x.device());
  CountParamsHost p{x.data(), counts.data_as<int64_t>(), total, plan.chunk};
  run(get(kCount, ScalarType(DT), "count", count_source), unsigned(parts), &p);
  Tensor host = empty({parts}, ScalarType::Long, Device{});
  download(host, counts);
  const int64_t* c = host.data_as<int64_t>();
  for (int64_t i = 0; i < parts; i++) plan.starts[size_t(i + 1)] = plan.starts[size_t(i)] + c[i];
}

CompactParamsHost compact_params(const Tensor& x, const CountPlan& plan, int64_t total) {
  int64_t parts = int64_t(plan.starts.size()) - 1;
  TC_CHECK(parts >= 1 && parts <= kMaxParts, Runtime, "CUDA: a count plan of ", parts,
           " parts (made by another backend?)");
  CompactParamsHost p{};
  p.x = x.data();
  p.total = total;
  p.chunk = plan.chunk;
  p.inner = 1;
  for (int64_t c = 0; c < parts; c++) p.starts[c] = plan.starts[size_t(c)];
  return p;
}

template <int DT>
void nonzero_kernel(const Tensor& x, const CountPlan& plan, const Tensor& out) {
  use_device_of(x);
  check_dims(x.dim(), "nonzero");
  CompactParamsHost p = compact_params(x, plan, x.numel());
  p.out = out.data();
  p.nd = int32_t(x.dim());
  for (int64_t d = 0; d < x.dim(); d++) p.size[d] = x.size(d);
  run(get(kNonzero, ScalarType(DT), "nonzero", nonzero_source), unsigned(plan.starts.size() - 1),
      &p);
}

template <int DT>
void mask_rows_kernel(const Tensor& x, const Tensor& mask, int64_t inner, const CountPlan& plan,
                      const Tensor& out) {
  use_device_of(x);
  ScalarType t = ScalarType(DT);
  int64_t rows = mask.numel();
  CompactParamsHost p = compact_params(x, plan, rows);
  p.mask = reinterpret_cast<const bool*>(mask.data());
  p.out = out.data();
  p.inner = inner;
  Tensor pos;
  if (inner != 1) {
    pos = empty({rows}, ScalarType::Long, x.device());
    p.pos = pos.data_as<int64_t>();
  }
  run(get(kMaskRows, t, "mask_rows", mask_rows_source), unsigned(plan.starts.size() - 1), &p);
  if (inner != 1)
    run(get(kMaskCopy, t, "mask_copy", mask_copy_source), blocks_for(rows * inner), &p);
}

// The table stores void*: check each kernel's type against the one its front end calls.
static_assert(std::is_same_v<decltype(&offsets_kernel), IndexOffsetsFn>);
static_assert(std::is_same_v<decltype(&take_kernel<0>), TakeFn>);
static_assert(std::is_same_v<decltype(&put_kernel<0>), PutFn>);
static_assert(std::is_same_v<decltype(&mask_rows_kernel<0>), MaskRowsFn>);
static_assert(std::is_same_v<decltype(&count_kernel<0>), CountNonzeroFn>);
static_assert(std::is_same_v<decltype(&nonzero_kernel<0>), NonzeroFn>);
static_assert(std::is_same_v<decltype(&index_select_kernel<0>), IndexSelectFn>);
static_assert(std::is_same_v<decltype(&gather_kernel<0>), GatherFn>);
static_assert(std::is_same_v<decltype(&search_kernel<0>), SearchFn>);

template <int... D>
void register_all(std::integer_sequence<int, D...>) {
  auto reg = [](Op op, ScalarType t, void* fn) { register_kernel(op, DeviceType::CUDA, t, fn); };
  (reg(Op::take, ScalarType(D), (void*)&take_kernel<D>), ...);
  (reg(Op::index_put, ScalarType(D), (void*)&put_kernel<D>), ...);
  (reg(Op::masked_select, ScalarType(D), (void*)&mask_rows_kernel<D>), ...);
  (reg(Op::count_nonzero, ScalarType(D), (void*)&count_kernel<D>), ...);
  (reg(Op::nonzero, ScalarType(D), (void*)&nonzero_kernel<D>), ...);
  (reg(Op::index_select, ScalarType(D), (void*)&index_select_kernel<D>), ...);
  (reg(Op::gather, ScalarType(D), (void*)&gather_kernel<D>), ...);
  (reg(Op::searchsorted, ScalarType(D), (void*)&search_kernel<D>), ...);
}

}  // namespace

void register_index_kernels() {
  register_kernel(Op::index_offsets, DeviceType::CUDA, ScalarType::Long, (void*)&offsets_kernel);
  register_all(std::make_integer_sequence<int, kRealTypes>());
}

void append_index_kernel_sources(std::vector<std::pair<std::string, std::string>>& all) {
  all.emplace_back("ix_offsets_int64", offsets_source());
  struct Family {
    const char* what;
    std::string (*make)(ScalarType);
  };
  const Family families[] = {
      {"take", take_source},           {"put", put_source},
      {"index_select", select_source}, {"gather", gather_source},
      {"searchsorted", search_source}, {"count", count_source},
      {"nonzero", nonzero_source},     {"mask_rows", mask_rows_source},
      {"mask_copy", mask_copy_source},
  };
  for (const Family& f : families)
    for (int d = 0; d < kRealTypes; d++)
      all.emplace_back(kname(f.what, ScalarType(d)), f.make(ScalarType(d)));
}

}  // namespace tc::cuda
