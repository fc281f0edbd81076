// cuda_nn.cpp — the CUDA backend's neural-network kernels (softmax, nll_loss, embedding,
// pooling, dropout, Adam, the LSTM cell and layer, layer and batch norm, pad, interpolate):
// CUDA C++ source compiled by NVRTC on first use, registered in the (op, device, dtype)
// table for the ops of nn_kernels.h (cache kind 10 of cached(), cuda.h).
//
// Each op's front end (nn_*.cpp) has already checked shapes and dtypes and made its inputs
// contiguous where nn_kernels.h says so; these kernels only walk the data. One source per
// kernel and dtype (float32, float64: the dtypes the front ends accept): the prelude, its
// group's header (the parameter struct, helpers), its body. A kernel takes that struct by
// value; its host mirror (…Host below) has the same layout: pointers, then 64-bit numbers,
// then 32-bit ones. Indices read from user data (class targets, embedding ids, max-pool
// indices) are checked by the kernel: a bad one is skipped and reported through
// device_error_word() (cuda.h), which the next synchronisation raises as IndexError.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "cuda.h"
#include "nn_kernels.h"

namespace tc::cuda {

namespace {

constexpr int kThreads = 256;
constexpr ScalarType kFloatTypes[] = {ScalarType::Float, ScalarType::Double};

// ---------------------------------------------------------------- source pieces
// After kPrelude: the storage (S) and compute (A) types, the math functions of A, and a
// block-wide reduction in a fixed order (deterministic).
std::string nn_prelude(ScalarType t) {
  bool single = acc_name(t) == std::string("float");
  std::string s = kPrelude;
  s += cat_str("typedef ", storage_name(t), " S;\ntypedef ", acc_name(t), " A;\n");
  s += single ? "#define EXP expf\n#define LOG logf\n#define SQRT sqrtf\n"
                "#define NEG_INF __int_as_float(0xff800000)\n"
              : "#define EXP exp\n#define LOG log\n#define SQRT sqrt\n"
                "#define NEG_INF __longlong_as_double(0xfff0000000000000LL)\n";
  s += R"(
#define GRID_LOOP(i, n) for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (i64)gridDim.x * blockDim.x)
__device__ __forceinline__ A max_nan(A a, A b) { return (b != b || b > a) ? b : a; }
// The sum or max (NaN wins) of v over the block, in every thread: butterflies within each
// warp, then the warps' results in order. blockDim.x: a multiple of 32; red: 32 values.
template <class T, bool MAX>
__device__ __forceinline__ T block_reduce(T v, T* red) {
  for (int o = 16; o > 0; o >>= 1) {
    T u = __shfl_xor_sync(0xffffffffu, v, o);
    v = MAX ? ((u != u || u > v) ? u : v) : v + u;
  }
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  __syncthreads();  // red may still be read by an earlier call
  if (lane == 0) red[warp] = v;
  __syncthreads();
  T r = red[0];
  for (int w = 1; w < warps; w++) r = MAX ? ((red[w] != red[w] || red[w] > r) ? red[w] : r) : r + red[w];
  return r;
}
)";
  return s;
}

// ---------------------------------------------------------------- softmax
// Rows (inner == 1): a block per row. The row is read from global memory once, into shared
// memory when it fits (48 KiB); max, sum of exp and the output then read it from there. A
// thread takes chunks of V values (one 16-byte load) when the rows are 16-byte aligned; in
// shared memory value j of chunk c sits at j * chunks + c, so that consecutive threads touch
// consecutive words (no bank conflicts). Columns (inner > 1): a thread per column.
const char* const kSoftmaxHeader = R"(
#define V ((int)(16 / sizeof(S)))
struct SmParams { const char* x; const char* g; char* y; i64 outer, n, inner; int log, vec, cache; };
// chunk c of a row (vv values: V or 1) from global memory
__device__ __forceinline__ void load_chunk(const S* row, i64 c, int vv, A v[V]) {
  if (vv == V) {
    uint4 raw = *(const uint4*)(row + c * V);
    const S* e = (const S*)&raw;
#pragma unroll
    for (int j = 0; j < V; j++) v[j] = (A)to_acc(e[j]);
  } else {
    v[0] = (A)to_acc(row[c]);
  }
}
__device__ __forceinline__ void store_chunk(S* row, i64 c, int vv, const A v[V]) {
  if (vv == V) {
    uint4 raw;
    S* e = (S*)&raw;
#pragma unroll
    for (int j = 0; j < V; j++) e[j] = Cvt<S>::go(v[j]);
    *(uint4*)(row + c * V) = raw;
  } else {
    row[c] = Cvt<S>::go(v[0]);
  }
}
// chunk c from the shared-memory copy (cached) or from global memory
__device__ __forceinline__ void get_chunk(const S* row, const A* sm, i64 nc, i64 c, int vv,
                                          bool cached, A v[V]) {
  if (cached) {
#pragma unroll
    for (int j = 0; j < V; j++) if (j < vv) v[j] = sm[j * nc + c];
  } else {
    load_chunk(row, c, vv, v);
  }
}
)";

const char* const kSoftmaxRows = R"(
extern "C" __global__ void __launch_bounds__(1024) NAME(SmParams p) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  A* sm = (A*)smem_raw;
  __shared__ A red[32];
  const int vv = p.vec ? V : 1, tid = threadIdx.x, bs = blockDim.x;
  const i64 nc = p.n / vv;
  const bool cached = p.cache;
  for (i64 r = blockIdx.x; r < p.outer; r += gridDim.x) {
    const S* x = (const S*)p.x + r * p.n;
    S* y = (S*)p.y + r * p.n;
    // pass 1: global -> registers (4 chunks in flight) -> shared memory; the max
    A m = NEG_INF;
    for (i64 c0 = tid; c0 < nc; c0 += 4 * bs) {
      A v[4][V];
#pragma unroll
      for (int u = 0; u < 4; u++) if (c0 + u * bs < nc) load_chunk(x, c0 + u * bs, vv, v[u]);
#pragma unroll
      for (int u = 0; u < 4; u++) {
        const i64 c = c0 + u * bs;
        if (c < nc) {
#pragma unroll
          for (int j = 0; j < V; j++) if (j < vv) {
            if (cached) sm[j * nc + c] = v[u][j];
            m = max_nan(m, v[u][j]);
          }
        }
      }
    }
    m = block_reduce<A, true>(m, red);  // its __syncthreads also publishes the copy
    // pass 2: the sum of exp(x - max)
    A sum = 0;
    for (i64 c = tid; c < nc; c += bs) {
      A v[V];
      get_chunk(x, sm, nc, c, vv, cached, v);
#pragma unroll
      for (int j = 0; j < V; j++) if (j < vv) sum += EXP(v[j] - m);
    }
    sum = block_reduce<A, false>(sum, red);
    // pass 3: the output
    const A inv = A(1) / sum, lsum = LOG(sum);
    for (i64 c = tid; c < nc; c += bs) {
      A v[V];
      get_chunk(x, sm, nc, c, vv, cached, v);
#pragma unroll
      for (int j = 0; j < V; j++) v[j] = p.log ? (v[j] - m) - lsum : EXP(v[j] - m) * inv;
      store_chunk(y, c, vv, v);
    }
    __syncthreads();  // the next row overwrites the shared copy
  }
}
)";

// softmax: gx = y * (g - sum(g * y)); log_softmax: gx = g - exp(y) * sum(g). The shared copy
// holds g, then y (2n values).
const char* const kSoftmaxBackwardRows = R"(
extern "C" __global__ void __launch_bounds__(1024) NAME(SmParams p) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  A* sg = (A*)smem_raw;
  __shared__ A red[32];
  const int vv = p.vec ? V : 1, tid = threadIdx.x, bs = blockDim.x;
  const i64 nc = p.n / vv;
  const bool cached = p.cache;
  A* sy = sg + p.n;
  for (i64 r = blockIdx.x; r < p.outer; r += gridDim.x) {
    const S* g = (const S*)p.g + r * p.n;
    const S* y = (const S*)p.x + r * p.n;
    S* gx = (S*)p.y + r * p.n;
    A dot = 0;
    for (i64 c = tid; c < nc; c += bs) {
      A a[V], b[V];
      load_chunk(g, c, vv, a);
      load_chunk(y, c, vv, b);
#pragma unroll
      for (int j = 0; j < V; j++) if (j < vv) {
        if (cached) { sg[j * nc + c] = a[j]; sy[j * nc + c] = b[j]; }
        dot += p.log ? a[j] : a[j] * b[j];
      }
    }
    dot = block_reduce<A, false>(dot, red);
    for (i64 c = tid; c < nc; c += bs) {
      A a[V], b[V];
      get_chunk(g, sg, nc, c, vv, cached, a);
      get_chunk(y, sy, nc, c, vv, cached, b);
#pragma unroll
      for (int j = 0; j < V; j++) a[j] = p.log ? a[j] - EXP(b[j]) * dot : b[j] * (a[j] - dot);
      store_chunk(gx, c, vv, a);
    }
    __syncthreads();
  }
}
)";

const char* const kSoftmaxCols = R"(
extern "C" __global__ void NAME(SmParams p) {
  GRID_LOOP(k, p.outer * p.inner) {
    const i64 o = k / p.inner, off = o * p.n * p.inner + (k - o * p.inner);
    const S* x = (const S*)p.x + off;
    S* y = (S*)p.y + off;
    A m = NEG_INF, sum = 0;
    for (i64 i = 0; i < p.n; i++) m = max_nan(m, (A)to_acc(x[i * p.inner]));
    for (i64 i = 0; i < p.n; i++) sum += EXP((A)to_acc(x[i * p.inner]) - m);
    const A inv = A(1) / sum, lsum = LOG(sum);
    for (i64 i = 0; i < p.n; i++) {
      const A v = (A)to_acc(x[i * p.inner]);
      y[i * p.inner] = Cvt<S>::go(p.log ? (v - m) - lsum : EXP(v - m) * inv);
    }
  }
}
)";

const char* const kSoftmaxBackwardCols = R"(
extern "C" __global__ void NAME(SmParams p) {
  GRID_LOOP(k, p.outer * p.inner) {
    const i64 o = k / p.inner, off = o * p.n * p.inner + (k - o * p.inner);
    const S* g = (const S*)p.g + off;
    const S* y = (const S*)p.x + off;
    S* gx = (S*)p.y + off;
    A dot = 0;
    for (i64 i = 0; i < p.n; i++) {
      const A a = (A)to_acc(g[i * p.inner]);
      dot += p.log ? a : a * (A)to_acc(y[i * p.inner]);
    }
    for (i64 i = 0; i < p.n; i++) {
      const A a = (A)to_acc(g[i * p.inner]), b = (A)to_acc(y[i * p.inner]);
      gx[i * p.inner] = Cvt<S>::go(p.log ? a - EXP(b) * dot : b * (a - dot));
    }
  }
}
)";

// ---------------------------------------------------------------- nll_loss
// Forward: each block sums (loss, weight) over its grid-stride share of the N * S positions,
// in double as the CPU does, into per-block partials; one more block adds the partials in
// order and writes the mean or sum and the total weight (deterministic). Backward: a thread
// per element of gx, which it writes (zero but at the target class).
const char* const kNllHeader = R"(
struct NllParams {
  const char* x; const i64* target; const char* w; char* out; char* total; double* part;
  const char* g; char* gx; const char* total_in; int* err;
  i64 N, C, S, reduction, ignore, blocks; double total_d; int code, count_here;
};
// the input element of position i (of the flattened N x S) for class t
__device__ __forceinline__ i64 nll_at(const NllParams& p, i64 i, i64 t) {
  if (p.S == 1) return i * p.C + t;
  const i64 n = i / p.S;
  return (n * p.C + t) * p.S + (i - n * p.S);
}
)";

// x null: only the total weight is wanted
const char* const kNllForward = R"(
extern "C" __global__ void NAME(NllParams p) {
  __shared__ double red[32];
  double sum = 0, wsum = 0;
  GRID_LOOP(i, p.N * p.S) {
    const i64 t = p.target[i];
    double wi = 0, li = 0;
    if (t != p.ignore) {
      if (t < 0 || t >= p.C) { *(volatile int*)p.err = p.code; continue; }
      wi = p.w ? (double)to_acc(((const S*)p.w)[t]) : 1.0;
      if (p.x) li = -wi * (double)to_acc(((const S*)p.x)[nll_at(p, i, t)]);
    }
    if (p.reduction == 0) ((S*)p.out)[i] = Cvt<S>::go(li);
    sum += li; wsum += wi;
  }
  sum = block_reduce<double, false>(sum, red);
  wsum = block_reduce<double, false>(wsum, red);
  if (threadIdx.x == 0) { p.part[2 * blockIdx.x] = sum; p.part[2 * blockIdx.x + 1] = wsum; }
}
)";

const char* const kNllFinish = R"(
extern "C" __global__ void NAME(NllParams p) {
  __shared__ double red[32];
  double sum = 0, wsum = 0;
  for (i64 b = threadIdx.x; b < p.blocks; b += blockDim.x) { sum += p.part[2 * b]; wsum += p.part[2 * b + 1]; }
  sum = block_reduce<double, false>(sum, red);
  wsum = block_reduce<double, false>(wsum, red);
  if (threadIdx.x == 0) {
    *(S*)p.total = Cvt<S>::go(wsum);
    if (p.reduction == 1) *(S*)p.out = Cvt<S>::go(sum / wsum);
    if (p.reduction == 2) *(S*)p.out = Cvt<S>::go(sum);
  }
}
)";

const char* const kNllBackward = R"(
extern "C" __global__ void NAME(NllParams p) {
  // mean: divided by the total weight (the forward's, or counted on the device just before,
  // or, count_here, by every block as the forward's single block counts it: the same value)
  A tw = p.total_in ? (A)to_acc(*(const S*)p.total_in) : (A)p.total_d;
  if (p.count_here) {
    __shared__ double red[32];
    double wsum = 0;
    for (i64 i = threadIdx.x; i < p.N * p.S; i += blockDim.x) {
      const i64 t = p.target[i];
      if (t != p.ignore && t >= 0 && t < p.C) wsum += p.w ? (double)to_acc(((const S*)p.w)[t]) : 1.0;
    }
    tw = (A)to_acc(Cvt<S>::go(block_reduce<double, false>(wsum, red)));
  }
  const A scale = p.reduction == 1 ? A(1) / tw : A(1);
  const i64 cs = p.C * p.S;
  GRID_LOOP(e, p.N * cs) {
    const i64 n = e / cs, rest = e - n * cs, c = rest / p.S, i = n * p.S + (rest - c * p.S);
    const i64 t = p.target[i];
    A v = 0;
    if (t != p.ignore) {
      if (t < 0 || t >= p.C) {
        if (c == 0) *(volatile int*)p.err = p.code;
      } else if (t == c) {
        const A gi = (A)to_acc(((const S*)p.g)[p.reduction == 0 ? i : 0]);
        v = -(p.w ? (A)to_acc(((const S*)p.w)[t]) : A(1)) * gi * scale;
      }
    }
    ((S*)p.gx)[e] = Cvt<S>::go(v);
  }
}
)";

// ---------------------------------------------------------------- embedding, dropout, Adam
const char* const kMiscHeader = R"(
struct EmbParams { const char* w; const i64* ids; char* out; int* err; i64 V, D, rs, cs, n; int code; };
struct DropParams { char* mask; i64 n; u64 key, thr; double keep; };
struct AdamParams { char* p; const char* g; char* m; char* v; char* mx; i64 n; double b1, b2, step, eps; };
)";

// a thread per output value: out (n, D) contiguous, the weight any strides
const char* const kEmbedding = R"(
extern "C" __global__ void NAME(EmbParams p) {
  GRID_LOOP(e, p.n * p.D) {
    const i64 i = e / p.D, j = e - i * p.D, id = p.ids[i];
    if (id < 0 || id >= p.V) { *(volatile int*)p.err = p.code; continue; }
    ((S*)p.out)[e] = ((const S*)p.w)[id * p.rs + j * p.cs];
  }
}
)";

// Philox4x32-10 (cuda_kernels.cpp's kPhilox, which the source gets before it): keep (the value
// `keep`) when the element's 53-bit draw is >= thr = ceil(p * 2^53), i.e. with probability 1 - p
const char* const kDropout = R"(
extern "C" __global__ void NAME(DropParams p) {
  GRID_LOOP(i, p.n) {
    u32 x[4]; philox(p.key, (u64)i, x);
    const u64 u = ((u64)x[0] << 21) ^ (x[1] >> 11);
    ((S*)p.mask)[i] = Cvt<S>::go(u >= p.thr ? p.keep : 0.0);
  }
}
)";

// the CPU kernel's arithmetic, in the compute type
const char* const kAdam = R"(
extern "C" __global__ void NAME(AdamParams q) {
  const A b1 = (A)q.b1, c1 = (A)(1 - q.b1), b2 = (A)q.b2, c2 = (A)(1 - q.b2);
  const A step = (A)q.step, eps = (A)q.eps;
  S *p = (S*)q.p, *m = (S*)q.m, *v = (S*)q.v, *mx = (S*)q.mx;
  const S* g = (const S*)q.g;
  GRID_LOOP(i, q.n) {
    const A gi = (A)to_acc(g[i]);
    const A mi = (A)to_acc(m[i]) * b1 + gi * c1, vi = (A)to_acc(v[i]) * b2 + gi * gi * c2;
    m[i] = Cvt<S>::go(mi);
    v[i] = Cvt<S>::go(vi);
    A second = vi;
    if (mx) {
      const A old = (A)to_acc(mx[i]);
      second = old > vi ? old : vi;
      mx[i] = Cvt<S>::go(second);
    }
    p[i] = Cvt<S>::go((A)to_acc(p[i]) - step * (mi / (SQRT(second) + eps)));
  }
}
)";

// ---------------------------------------------------------------- pooling
// A thread per output value (forward) or per gradient value (backward, adding to the
// input's gradient with atomics: windows may overlap). The geometry's window tables live in
// one device buffer `tab`: per dim d, beg, cnt and span of its out[d] positions.
const char* const kPoolHeader = R"(
struct PoolParams {
  const char* src; char* dst; i64* idx; const i64* tab; int* err;
  i64 planes, ip, op, in[3], out[3], step[3], divisor; int count_pad, code;
};
// Output e's window: its plane, first input index in the plane, taps c and padded span s
// per dim, and the input steps between taps (ta, tb, tc, in elements).
struct Window {
  i64 plane, start, c[3], s[3], ta, tb, tc;
  __device__ __forceinline__ i64 at(i64 i, i64 j, i64 k) const { return start + i * ta + j * tb + k * tc; }
};
__device__ __forceinline__ Window window(const PoolParams& p, i64 e) {
  Window w;
  w.plane = e / p.op;
  i64 o = e - w.plane * p.op, pos[3], b[3];
  pos[2] = o % p.out[2]; o /= p.out[2];
  pos[1] = o % p.out[1]; pos[0] = o / p.out[1];
  const i64* t = p.tab;
  for (int d = 0; d < 3; d++) {
    b[d] = t[pos[d]]; w.c[d] = t[p.out[d] + pos[d]]; w.s[d] = t[2 * p.out[d] + pos[d]];
    t += 3 * p.out[d];
  }
  w.start = (b[0] * p.in[1] + b[1]) * p.in[2] + b[2];
  w.ta = p.step[0] * p.in[1] * p.in[2]; w.tb = p.step[1] * p.in[2]; w.tc = p.step[2];
  return w;
}
__device__ __forceinline__ double inverse_divisor(const PoolParams& p, const Window& w) {
  const i64 d = p.divisor > 0 ? p.divisor
                : p.count_pad ? w.s[0] * w.s[1] * w.s[2] : w.c[0] * w.c[1] * w.c[2];
  return 1.0 / (double)d;
}
)";

// the max and its flat index in the plane; NaN wins (a later NaN too), as on the CPU
const char* const kMaxPool = R"(
extern "C" __global__ void NAME(PoolParams p) {
  GRID_LOOP(e, p.planes * p.op) {
    const Window w = window(p, e);
    const S* x = (const S*)p.src + w.plane * p.ip;
    A best = NEG_INF;
    i64 at = w.start;
    for (i64 i = 0; i < w.c[0]; i++)
      for (i64 j = 0; j < w.c[1]; j++)
        for (i64 k = 0; k < w.c[2]; k++) {
          const i64 pos = w.at(i, j, k);
          const A v = (A)to_acc(x[pos]);
          if (v > best || v != v) { best = v; at = pos; }
        }
    ((S*)p.dst)[e] = Cvt<S>::go(best);
    p.idx[e] = at;
  }
}
)";

// src: the grad (planes, op); dst: the input's gradient (planes, ip), zeroed before
const char* const kMaxPoolBackward = R"(
extern "C" __global__ void NAME(PoolParams p) {
  GRID_LOOP(e, p.planes * p.op) {
    const i64 plane = e / p.op, i = p.idx[e];
    if (i < 0 || i >= p.ip) { *(volatile int*)p.err = p.code; continue; }
    atomicAdd((S*)p.dst + plane * p.ip + i, ((const S*)p.src)[e]);
  }
}
)";

const char* const kAvgPool = R"(
extern "C" __global__ void NAME(PoolParams p) {
  GRID_LOOP(e, p.planes * p.op) {
    const Window w = window(p, e);
    const S* x = (const S*)p.src + w.plane * p.ip;
    double acc = 0;
    for (i64 i = 0; i < w.c[0]; i++)
      for (i64 j = 0; j < w.c[1]; j++)
        for (i64 k = 0; k < w.c[2]; k++) acc += (double)to_acc(x[w.at(i, j, k)]);
    ((S*)p.dst)[e] = Cvt<S>::go(acc * inverse_divisor(p, w));
  }
}
)";

const char* const kAvgPoolBackward = R"(
extern "C" __global__ void NAME(PoolParams p) {
  GRID_LOOP(e, p.planes * p.op) {
    const Window w = window(p, e);
    S* gx = (S*)p.dst + w.plane * p.ip;
    const S gv = Cvt<S>::go((double)to_acc(((const S*)p.src)[e]) * inverse_divisor(p, w));
    for (i64 i = 0; i < w.c[0]; i++)
      for (i64 j = 0; j < w.c[1]; j++)
        for (i64 k = 0; k < w.c[2]; k++) atomicAdd(gx + w.at(i, j, k), gv);
  }
}
)";

// ---------------------------------------------------------------- LSTM cell
// A thread per (row, j) of the (rows, H) states; gates rows hold i, f, g, o (4H values).
// The activations use the CPU kernel's formulas (sigmoid 1 / (1 + e^-x), tanh through it).
const char* const kLstmHeader = R"(
struct LstmParams {
  char* gates; const char* c_prev; char* c; char* tc; char* h; const char* gh; const char* go;
  char* gc; i64 rows, H;
};
__device__ __forceinline__ A sigm(A x) { return A(1) / (A(1) + EXP(-x)); }
__device__ __forceinline__ A tanh_(A x) { return A(2) / (A(1) + EXP(A(-2) * x)) - A(1); }
)";

// gates: pre-activations in, activations out; c, tc = tanh(c), h written
const char* const kLstmCell = R"(
extern "C" __global__ void NAME(LstmParams p) {
  GRID_LOOP(e, p.rows * p.H) {
    const i64 r = e / p.H, j = e - r * p.H;
    S* a = (S*)p.gates + r * 4 * p.H;
    const A i = sigm((A)a[j]), f = sigm((A)a[p.H + j]), g = tanh_((A)a[2 * p.H + j]),
            o = sigm((A)a[3 * p.H + j]);
    a[j] = i; a[p.H + j] = f; a[2 * p.H + j] = g; a[3 * p.H + j] = o;
    const A c = f * (A)((const S*)p.c_prev)[e] + i * g, t = tanh_(c);
    ((S*)p.c)[e] = c; ((S*)p.tc)[e] = t; ((S*)p.h)[e] = o * t;
  }
}
)";

// gates: the activations; writes d gates (into p.gates' place: p.h) and updates gc in place.
// The h gradient is gh (+ go, the layer's output gradient, when given).
const char* const kLstmCellBackward = R"(
extern "C" __global__ void NAME(LstmParams p) {
  GRID_LOOP(e, p.rows * p.H) {
    const i64 r = e / p.H, j = e - r * p.H, H = p.H;
    const S* a = (const S*)p.gates + r * 4 * H;
    S* d = (S*)p.h + r * 4 * H;
    const A i = a[j], f = a[H + j], gg = a[2 * H + j], o = a[3 * H + j];
    const A g = p.go ? (A)(((const S*)p.gh)[e] + ((const S*)p.go)[e]) : (A)((const S*)p.gh)[e];
    const A t = ((const S*)p.tc)[e];
    S* gc = (S*)p.gc;
    const A dc = gc[e] + g * o * (A(1) - t * t);
    d[j] = dc * gg * i * (A(1) - i);
    d[H + j] = dc * (A)((const S*)p.c_prev)[e] * f * (A(1) - f);
    d[2 * H + j] = dc * i * (A(1) - gg * gg);
    d[3 * H + j] = g * t * o * (A(1) - o);
    gc[e] = dc * f;
  }
}
)";

// ---------------------------------------------------------------- layer norm, batch norm
// layer_norm: a block per row of L values (statistics in the compute type, as on the CPU);
// its backward: a block per row for gx, then column sums for gw and gb (in double).
// batch_norm: see kBatchNormPartial.
const char* const kNormHeader = R"(
struct NormParams {
  const char* x; const char* g; const char* w; const char* b; char* rm; char* rv; char* y;
  char* mean; char* rstd; const char* mean_in; const char* rstd_in; double* part; double* stat;
  i64 N, C, S, R, L, chunk, chunks; double eps, momentum; int training, update, what;
};
__device__ __forceinline__ A ld(const char* p, i64 i) { return (A)to_acc(((const S*)p)[i]); }
__device__ __forceinline__ void st(char* p, i64 i, A v) { ((S*)p)[i] = Cvt<S>::go(v); }
)";

const char* const kLayerNorm = R"(
extern "C" __global__ void NAME(NormParams p) {
  __shared__ A red[32];
  for (i64 r = blockIdx.x; r < p.R; r += gridDim.x) {
    const char* x = p.x + r * p.L * (i64)sizeof(S);
    A s = 0;
    for (i64 i = threadIdx.x; i < p.L; i += blockDim.x) s += ld(x, i);
    s = block_reduce<A, false>(s, red);
    const A m = (A)((double)s / (double)p.L);
    A v = 0;
    for (i64 i = threadIdx.x; i < p.L; i += blockDim.x) { const A d = ld(x, i) - m; v += d * d; }
    v = block_reduce<A, false>(v, red);
    const A rs = (A)(1.0 / sqrt((double)v / (double)p.L + p.eps));
    if (threadIdx.x == 0) { st(p.mean, r, m); st(p.rstd, r, rs); }
    for (i64 i = threadIdx.x; i < p.L; i += blockDim.x) {
      A o = (ld(x, i) - m) * rs;
      if (p.w) o *= ld(p.w, i);
      if (p.b) o += ld(p.b, i);
      st(p.y, r * p.L + i, o);
    }
  }
}
)";

// gx = rstd * (gh - mean(gh) - xhat * mean(gh * xhat)), gh = g * w, xhat = (x - mean) * rstd
const char* const kLayerNormBackward = R"(
extern "C" __global__ void NAME(NormParams p) {
  __shared__ A red[32];
  for (i64 r = blockIdx.x; r < p.R; r += gridDim.x) {
    const i64 o = r * p.L;
    const A m = ld(p.mean_in, r), rs = ld(p.rstd_in, r);
    A s1 = 0, s2 = 0;
    for (i64 i = threadIdx.x; i < p.L; i += blockDim.x) {
      const A gh = p.w ? ld(p.g, o + i) * ld(p.w, i) : ld(p.g, o + i);
      s1 += gh;
      s2 += gh * (ld(p.x, o + i) - m) * rs;
    }
    s1 = block_reduce<A, false>(s1, red);
    s2 = block_reduce<A, false>(s2, red);
    const A a = s1 / A(p.L), c = s2 / A(p.L);
    for (i64 i = threadIdx.x; i < p.L; i += blockDim.x) {
      const A gh = p.w ? ld(p.g, o + i) * ld(p.w, i) : ld(p.g, o + i);
      const A xhat = (ld(p.x, o + i) - m) * rs;
      st(p.y, o + i, rs * (gh - a - xhat * c));
    }
  }
}
)";

// gw[i] = sum over the rows of g * xhat, gb[i] = sum of g. Two steps, so that many rows
// give many threads: chunk y of `chunk` rows sums into part[(y L + i) 2 + {0, 1}], then a
// thread per column adds its chunks in order into p.mean and p.rstd (the result's second
// and third tensors: gw, gb).
const char* const kLayerNormBackwardParams = R"(
extern "C" __global__ void NAME(NormParams p) {
  const i64 r0 = (i64)blockIdx.y * p.chunk, r1 = r0 + p.chunk < p.R ? r0 + p.chunk : p.R;
  GRID_LOOP(i, p.L) {
    double sw = 0, sb = 0;
    for (i64 r = r0; r < r1; r++) {
      const A g = ld(p.g, r * p.L + i), xhat = (ld(p.x, r * p.L + i) - ld(p.mean_in, r)) * ld(p.rstd_in, r);
      sw += (double)(g * xhat);
      sb += (double)g;
    }
    p.part[2 * (blockIdx.y * p.L + i)] = sw;
    p.part[2 * (blockIdx.y * p.L + i) + 1] = sb;
  }
}
)";

const char* const kLayerNormBackwardParamsFinish = R"(
extern "C" __global__ void NAME(NormParams p) {
  GRID_LOOP(i, p.L) {
    double sw = 0, sb = 0;
    for (i64 y = 0; y < p.chunks; y++) { sw += p.part[2 * (y * p.L + i)]; sb += p.part[2 * (y * p.L + i) + 1]; }
    st(p.mean, i, (A)sw);
    st(p.rstd, i, (A)sb);
  }
}
)";

// batch_norm in three steps, so that a few channels of many values still fill the GPU:
// `partial`: block (x, c) sums its chunk of channel c's N * S values (x[n, c, s] at
// (n C + c) S + s) into part[(c chunks + x) 2 + {0, 1}]; `stats`: a thread per channel adds
// its chunks in order and derives the channel's numbers (in stat[4 c ...]); `apply`: a
// thread per value. `what` picks the sums: 0 the sum of x, 1 the squares of x - mean, 2
// (backward) the sums of g and of g (x - mean). All in double; deterministic.
const char* const kBatchNormPartial = R"(
extern "C" __global__ void NAME(NormParams p) {
  __shared__ double red[32];
  const i64 M = p.N * p.S, cs = p.C * p.S;
  const i64 k0 = (i64)blockIdx.x * p.chunk, k1 = k0 + p.chunk < M ? k0 + p.chunk : M;
  for (i64 c = blockIdx.y; c < p.C; c += gridDim.y) {
    const A m = p.what == 1 ? (A)p.stat[4 * c] : p.what == 2 ? ld(p.mean_in, c) : A(0);
    double s1 = 0, s2 = 0;
    for (i64 k = k0 + threadIdx.x; k < k1; k += blockDim.x) {
      const i64 n = k / p.S, at = c * p.S + n * cs + (k - n * p.S);
      const A v = ld(p.x, at);
      if (p.what == 0) {
        s1 += (double)v;
      } else if (p.what == 1) {
        const A d = v - m;
        s1 += (double)(d * d);
      } else {
        const A g = ld(p.g, at);
        s1 += (double)g;
        s2 += (double)(g * (v - m));
      }
    }
    s1 = block_reduce<double, false>(s1, red);
    s2 = block_reduce<double, false>(s2, red);
    if (threadIdx.x == 0) {
      p.part[2 * (c * p.chunks + blockIdx.x)] = s1;
      p.part[2 * (c * p.chunks + blockIdx.x) + 1] = s2;
    }
  }
}
)";

// what 0: stat[4c] = the mean. what 1: mean and invstd (from the sums, or in evaluation from
// the running statistics), the running statistics' update, and y = x a + b's a, b in
// stat[4c + 1, 2]. what 2: gw, gb (into p.mean, p.rstd) and gx = a g + bb (x - mean) + k's
// a, bb, k in stat[4c + 1, 2, 3].
const char* const kBatchNormStats = R"(
extern "C" __global__ void NAME(NormParams p) {
  const double M = (double)(p.N * p.S);
  GRID_LOOP(c, p.C) {
    double s1 = 0, s2 = 0;
    for (i64 y = 0; y < p.chunks; y++) { s1 += p.part[2 * (c * p.chunks + y)]; s2 += p.part[2 * (c * p.chunks + y) + 1]; }
    double* t = p.stat + 4 * c;
    const double wc = p.w ? (double)ld(p.w, c) : 1.0;
    if (p.what == 0) {
      t[0] = s1 / M;
    } else if (p.what == 1) {
      double mean, invstd;
      if (p.training) {
        mean = t[0];
        invstd = 1.0 / sqrt(s1 / M + p.eps);
        if (p.update && p.rm) st(p.rm, c, (A)((1 - p.momentum) * (double)ld(p.rm, c) + p.momentum * mean));
        if (p.update && p.rv) st(p.rv, c, (A)((1 - p.momentum) * (double)ld(p.rv, c) + p.momentum * s1 / (M - 1)));
      } else {
        mean = (double)ld(p.rm, c);
        invstd = 1.0 / sqrt((double)ld(p.rv, c) + p.eps);
      }
      st(p.mean, c, (A)mean);
      st(p.rstd, c, (A)invstd);
      const double scale = invstd * wc;
      t[1] = scale;
      t[2] = (p.b ? (double)ld(p.b, c) : 0.0) - mean * scale;
    } else {
      const double is = (double)ld(p.rstd_in, c);
      st(p.mean, c, (A)(s2 * is));
      st(p.rstd, c, (A)s1);
      t[1] = is * wc;
      t[2] = p.training ? -wc * is * is * is * s2 / M : 0.0;
      t[3] = p.training ? -wc * is * s1 / M : 0.0;
    }
  }
}
)";

const char* const kBatchNormApply = R"(
extern "C" __global__ void NAME(NormParams p) {
  GRID_LOOP(e, p.N * p.C * p.S) {
    const i64 c = (e / p.S) % p.C;
    const double* t = p.stat + 4 * c;
    if (p.what == 1) {
      st(p.y, e, ld(p.x, e) * (A)t[1] + (A)t[2]);
    } else {
      const A m = ld(p.mean_in, c);
      st(p.y, e, (A)t[1] * ld(p.g, e) + (A)t[2] * (ld(p.x, e) - m) + (A)t[3]);
    }
  }
}
)";

// ---------------------------------------------------------------- pad, interpolate
// pad: a thread per output value; the padded dims' index maps (-1: the fill value) live in
// one device buffer: per padded dim j, (in, out, offset of its map) in `meta`, maps in `maps`.
// Backward: a thread per gradient value adding into the input's gradient (atomics: the
// reflect, replicate and circular maps read an input more than once).
const char* const kPadHeader = R"(
struct PadParams { const char* src; char* dst; const i64* meta; const i64* maps; i64 outer, total, k; double value; };
// output e's input offset, or -1 where it reads the fill value
__device__ __forceinline__ i64 pad_source(const PadParams& p, i64 e) {
  i64 rem = e, off = 0, mul = 1;
  bool fill = false;
  for (i64 j = p.k - 1; j >= 0; j--) {
    const i64 in = p.meta[3 * j], out = p.meta[3 * j + 1];
    const i64 o = rem % out;
    rem /= out;
    const i64 s = p.maps[p.meta[3 * j + 2] + o];
    if (s < 0) fill = true;
    off += s * mul;
    mul *= in;
  }
  return fill ? -1 : rem * mul + off;
}
)";

const char* const kPad = R"(
extern "C" __global__ void NAME(PadParams p) {
  GRID_LOOP(e, p.total) {
    const i64 s = pad_source(p, e);
    ((S*)p.dst)[e] = s < 0 ? Cvt<S>::go(p.value) : ((const S*)p.src)[s];
  }
}
)";

const char* const kPadBackward = R"(
extern "C" __global__ void NAME(PadParams p) {
  GRID_LOOP(e, p.total) {
    const i64 s = pad_source(p, e);
    if (s >= 0) atomicAdd((S*)p.dst + s, ((const S*)p.src)[e]);
  }
}
)";

// interpolate: per dim d (0-2, leading ones trivial) and output position, two input taps
// (idx: i0 then i1, out[d] each) and their weights (w: w0 then w1); the CPU kernel's order
// of operations, weights rounded to the compute type.
const char* const kInterpHeader = R"(
struct InterpParams {
  const char* src; char* dst; const i64* idx; const double* w;
  i64 planes, ip, op, in[3], out[3], ntaps[3];
};
struct Tap { i64 i[2]; A w[2]; };
__device__ __forceinline__ void taps(const InterpParams& p, i64 o, Tap t[3]) {
  i64 pos[3];
  pos[2] = o % p.out[2]; o /= p.out[2];
  pos[1] = o % p.out[1]; pos[0] = o / p.out[1];
  i64 at = 0;
  for (int d = 0; d < 3; d++) {
    for (int k = 0; k < 2; k++) {
      t[d].i[k] = p.idx[at + k * p.out[d] + pos[d]];
      t[d].w[k] = (A)p.w[at + k * p.out[d] + pos[d]];
    }
    at += 2 * p.out[d];
  }
}
)";

const char* const kInterpolate = R"(
extern "C" __global__ void NAME(InterpParams p) {
  GRID_LOOP(e, p.planes * p.op) {
    const i64 plane = e / p.op;
    Tap t[3];
    taps(p, e - plane * p.op, t);
    const S* s = (const S*)p.src + plane * p.ip;
    const bool two = p.ntaps[2] == 2;
    A o = 0;
    for (int ta = 0; ta < p.ntaps[0]; ta++)
      for (int tb = 0; tb < p.ntaps[1]; tb++) {
        const A wr = t[0].w[ta] * t[1].w[tb];
        const S* r = s + (t[0].i[ta] * p.in[1] + t[1].i[tb]) * p.in[2];
        if (two) o += wr * ((A)to_acc(r[t[2].i[0]]) * t[2].w[0] + (A)to_acc(r[t[2].i[1]]) * t[2].w[1]);
        else o += wr * (A)to_acc(r[t[2].i[0]]);
      }
    ((S*)p.dst)[e] = Cvt<S>::go(o);
  }
}
)";

// src: the grad (planes, op); dst: the input's gradient (planes, ip), zeroed before
const char* const kInterpolateBackward = R"(
extern "C" __global__ void NAME(InterpParams p) {
  GRID_LOOP(e, p.planes * p.op) {
    const i64 plane = e / p.op;
    Tap t[3];
    taps(p, e - plane * p.op, t);
    S* d = (S*)p.dst + plane * p.ip;
    const A g = (A)to_acc(((const S*)p.src)[e]);
    const bool two = p.ntaps[2] == 2;
    for (int ta = 0; ta < p.ntaps[0]; ta++)
      for (int tb = 0; tb < p.ntaps[1]; tb++) {
        const A gv = g * (t[0].w[ta] * t[1].w[tb]);
        S* r = d + (t[0].i[ta] * p.in[1] + t[1].i[tb]) * p.in[2];
        atomicAdd(r + t[2].i[0], two ? gv * t[2].w[0] : gv);
        if (two) atomicAdd(r + t[2].i[1], gv * t[2].w[1]);
      }
  }
}
)";

// ---------------------------------------------------------------- the kernel table
struct NnKernel {
  const char* base;  // the kernel's name is base + "_" + dtype
  const char* header;
  const char* body;
  bool philox = false;  // the body calls philox() (kPhilox goes before the header)
};

const std::vector<NnKernel>& nn_kernels() {
  static const std::vector<NnKernel> all = {
      {"softmax_rows", kSoftmaxHeader, kSoftmaxRows},
      {"softmax_backward_rows", kSoftmaxHeader, kSoftmaxBackwardRows},
      {"softmax_cols", kSoftmaxHeader, kSoftmaxCols},
      {"softmax_backward_cols", kSoftmaxHeader, kSoftmaxBackwardCols},
      {"nll_loss", kNllHeader, kNllForward},
      {"nll_loss_finish", kNllHeader, kNllFinish},
      {"nll_loss_backward", kNllHeader, kNllBackward},
      {"embedding", kMiscHeader, kEmbedding},
      {"dropout_mask", kMiscHeader, kDropout, true},
      {"adam_update", kMiscHeader, kAdam},
      {"max_pool", kPoolHeader, kMaxPool},
      {"max_pool_backward", kPoolHeader, kMaxPoolBackward},
      {"avg_pool", kPoolHeader, kAvgPool},
      {"avg_pool_backward", kPoolHeader, kAvgPoolBackward},
      {"lstm_cell", kLstmHeader, kLstmCell},
      {"lstm_cell_backward", kLstmHeader, kLstmCellBackward},
      {"layer_norm", kNormHeader, kLayerNorm},
      {"layer_norm_backward", kNormHeader, kLayerNormBackward},
      {"layer_norm_backward_params", kNormHeader, kLayerNormBackwardParams},
      {"layer_norm_backward_params_finish", kNormHeader, kLayerNormBackwardParamsFinish},
      {"batch_norm_partial", kNormHeader, kBatchNormPartial},
      {"batch_norm_stats", kNormHeader, kBatchNormStats},
      {"batch_norm_apply", kNormHeader, kBatchNormApply},
      {"pad", kPadHeader, kPad},
      {"pad_backward", kPadHeader, kPadBackward},
      {"interpolate", kInterpHeader, kInterpolate},
      {"interpolate_backward", kInterpHeader, kInterpolateBackward},
  };
  return all;
}

std::string nn_name(const NnKernel& k, ScalarType t) { return cat_str(k.base, '_', dtype_name(t)); }

std::string nn_source(const NnKernel& k, ScalarType t) {
  std::string body = k.body;
  const std::string name = nn_name(k, t);
  for (size_t at; (at = body.find("NAME")) != std::string::npos;) body.replace(at, 4, name);
  return nn_prelude(t) + (k.philox ? kPhilox : "") + k.header + body;
}

// The compiled kernel `base` for dtype t (kind 10: this file's cache entries).
CUfunction nn_function(const char* base, ScalarType t) {
  const auto& all = nn_kernels();
  for (size_t i = 0; i < all.size(); i++)
    if (std::strcmp(all[i].base, base) == 0)
      return cached(10, int(i), t, t, "",
                    [&] { return std::make_pair(nn_source(all[i], t), nn_name(all[i], t)); });
  fail(ErrorKind::Runtime, "CUDA: no kernel ", base);
}

// A grid of kThreads-thread blocks for n items (the kernels loop with a grid stride, so a
// capped grid still covers them all).
unsigned blocks_for(int64_t n) {
  int64_t cap = int64_t(sm_count(current_device())) * 32;
  return unsigned(std::max<int64_t>(1, std::min((n + kThreads - 1) / kThreads, cap)));
}

void run(const char* base, ScalarType t, int64_t n, void* params) {
  if (n <= 0) return;
  void* args[] = {params};
  launch(nn_function(base, t), blocks_for(n), 1, kThreads, args);
}

// Tensors a kernel reads through raw pointers must be on its device (the front ends check
// dtypes and shapes, not always devices).
void check_device(const Tensor& t, const Tensor& ref, const char* op, const char* arg) {
  if (!t.defined()) return;
  TC_CHECK(t.device() == ref.device(), Runtime, op, "(): expected ", arg, " on ",
           ref.device().str(), " (with the input), got a tensor on ", t.device().str());
}

// ---------------------------------------------------------------- host: softmax
struct SmParamsHost {
  const void* x;
  const void* g;
  void* y;
  int64_t outer, n, inner;
  int32_t log, vec, cache;
};

// dynamic shared memory: 48 KiB per block without opting in, less the kernels' static
// `red` (32 values) and some slack
constexpr size_t kSharedBytes = 47 * 1024;

// x: the forward's input, or the backward's y; g: the backward's grad (else undefined)
void softmax_launch(const RowShape& r, const Tensor& x, const Tensor& g, const Tensor& out,
                    bool log, bool backward) {
  use_device_of(out);
  ScalarType t = out.dtype();
  SmParamsHost p{
      x.data(), g.defined() ? g.data() : nullptr, out.data(), r.outer, r.n, r.inner, log, 0, 0};
  if (r.inner != 1) {
    run(backward ? "softmax_backward_cols" : "softmax_cols", t, r.outer * r.inner, &p);
    return;
  }
  if (r.outer == 0 || r.n == 0) return;
  const size_t item = itemsize(t);
  const int64_t vec = int64_t(16 / item);
  auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; };
  // every row starts 16-byte aligned when the first does and a row is a whole number of chunks
  p.vec = r.n % vec == 0 && aligned(x.data()) && aligned(out.data()) &&
          (!g.defined() || aligned(g.data()));
  const int64_t chunks = p.vec ? r.n / vec : r.n;
  const size_t copy = size_t(r.n) * item * (backward ? 2 : 1);  // compute type = storage type
  p.cache = copy <= kSharedBytes;
  // about four chunks per thread: 32 to 1024 threads, whole warps
  int64_t threads = std::clamp<int64_t>((chunks + 3) / 4, 32, 1024);
  threads = (threads + 31) / 32 * 32;
  void* args[] = {&p};
  launch(nn_function(backward ? "softmax_backward_rows" : "softmax_rows", t),
         unsigned(std::min<int64_t>(r.outer, int64_t(1) << 30)), 1, unsigned(threads), args,
         p.cache ? unsigned(copy) : 0);
}

void softmax_cuda(const RowShape& r, const Tensor& x, const Tensor& y, bool log) {
  softmax_launch(r, x, Tensor(), y, log, false);
}

void softmax_backward_cuda(const RowShape& r, const Tensor& g, const Tensor& y, const Tensor& gx,
                           bool log) {
  check_device(g, y, log ? "log_softmax_backward" : "softmax_backward", "grad");
  softmax_launch(r, y, g, gx, log, true);
}

// ---------------------------------------------------------------- host: nll_loss
struct NllParamsHost {
  const void* x;
  const int64_t* target;
  const void* w;
  void* out;
  void* total;
  double* part;
  const void* g;
  void* gx;
  const void* total_in;
  int* err;
  int64_t N, C, S, reduction, ignore, blocks;
  double total_d;
  int32_t code, count_here;
};

// the forward's two launches: per-block partials, then their sum
void nll_forward_launch(NllParamsHost& p, ScalarType t, Device dev) {
  const int64_t n = p.N * p.S;
  p.blocks = std::clamp<int64_t>((n + kThreads - 1) / kThreads, 1, 1024);
  Tensor part = empty(Shape{2 * p.blocks}, ScalarType::Double, dev);  // freed in stream order
  p.part = part.data_as<double>();
  void* args[] = {&p};
  launch(nn_function("nll_loss", t), unsigned(p.blocks), 1, kThreads, args);
  launch(nn_function("nll_loss_finish", t), 1, 1, kThreads, args);
}

void nll_loss_cuda(const NllArgs& a, const Tensor& x, const Tensor& target, const Tensor& weight,
                   const Tensor& out, const Tensor& total) {
  check_device(target, x, "nll_loss", "target");
  check_device(weight, x, "nll_loss", "weight");
  use_device_of(x);
  NllParamsHost p{};
  p.x = x.data();
  p.target = target.data_as<int64_t>();
  p.w = weight.defined() ? weight.data() : nullptr;
  p.out = out.data();
  p.total = total.data();
  p.err = device_error_word();
  p.N = a.N, p.C = a.C, p.S = a.S, p.reduction = a.reduction, p.ignore = a.ignore;
  p.code = int(Op::nll_loss) + 1;
  nll_forward_launch(p, x.dtype(), x.device());
}

// total: the forward's total weight, or undefined to count it here (on the device)
void nll_loss_backward_cuda(const NllArgs& a, const Tensor& g, const Tensor& target,
                            const Tensor& weight, const Tensor& total, const Tensor& gx) {
  check_device(g, gx, "nll_loss_backward", "grad");
  check_device(total, gx, "nll_loss_backward", "total_weight");
  check_device(target, gx, "nll_loss_backward", "target");
  check_device(weight, gx, "nll_loss_backward", "weight");
  use_device_of(gx);
  const ScalarType t = gx.dtype();
  NllParamsHost p{};
  p.target = target.data_as<int64_t>();
  p.w = weight.defined() ? weight.data() : nullptr;
  p.g = g.data();
  p.gx = gx.data();
  p.err = device_error_word();
  p.N = a.N, p.C = a.C, p.S = a.S, p.reduction = a.reduction, p.ignore = a.ignore;
  p.code = int(Op::nll_loss_backward) + 1;
  p.total_in = total.defined() ? total.data() : nullptr;
  Tensor tw, unused;
  if (!total.defined() && a.reduction == 1 && a.N * a.S <= kThreads) {
    p.count_here = 1;  // few targets (a batch of up to 256 samples): no launches to count them
  } else if (!total.defined() && a.reduction == 1) {
    NllParamsHost q = p;
    tw = empty(Shape{}, t, gx.device());
    unused = empty(Shape{}, t, gx.device());
    q.x = nullptr, q.out = unused.data(), q.total = tw.data(), q.reduction = 2;
    nll_forward_launch(q, t, gx.device());
    p.total_in = tw.data();
  }
  run("nll_loss_backward", t, gx.numel(), &p);
}

// ---------------------------------------------------------------- host: embedding, dropout, Adam
struct EmbParamsHost {
  const void* w;
  const int64_t* ids;
  void* out;
  int* err;
  int64_t V, D, rs, cs, n;
  int32_t code;
};
struct DropParamsHost {
  void* mask;
  int64_t n;
  uint64_t key, thr;
  double keep;
};
struct AdamParamsHost {
  void* p;
  const void* g;
  void* m;
  void* v;
  void* mx;
  int64_t n;
  double b1, b2, step, eps;
};

void embedding_cuda(const Tensor& weight, const Tensor& indices, const Tensor& out) {
  check_device(indices, weight, "embedding", "indices");
  use_device_of(out);
  EmbParamsHost p{weight.data(),    indices.data_as<int64_t>(),
                  out.data(),       device_error_word(),
                  weight.size(0),   weight.size(1),
                  weight.stride(0), weight.stride(1),
                  indices.numel(),  int(Op::embedding) + 1};
  run("embedding", weight.dtype(), out.numel(), &p);
}

// seed (from the CPU generator) is not used: the CUDA generator's Philox key is, so that
// torch.cuda.manual_seed makes masks reproducible
void dropout_mask_cuda(const Tensor& mask, uint64_t, double p, double keep) {
  use_device_of(mask);
  const double two53 = 9007199254740992.0;
  DropParamsHost q{mask.data(), mask.numel(), next_philox_key(current_device()),
                   p >= 1 ? (uint64_t(1) << 53) : uint64_t(std::ceil(p * two53)), keep};
  run("dropout_mask", mask.dtype(), q.n, &q);
}

void adam_update_cuda(const Tensor& p, const Tensor& grad, const Tensor& exp_avg,
                      const Tensor& exp_avg_sq, const Tensor& max_exp_avg_sq, double beta1,
                      double beta2, double step_size, double eps) {
  use_device_of(p);
  AdamParamsHost q{p.data(),
                   grad.data(),
                   exp_avg.data(),
                   exp_avg_sq.data(),
                   max_exp_avg_sq.defined() ? max_exp_avg_sq.data() : nullptr,
                   p.numel(),
                   beta1,
                   beta2,
                   step_size,
                   eps};
  run("adam_update", p.dtype(), q.n, &q);
}

// ---------------------------------------------------------------- host: pooling
struct PoolParamsHost {
  const void* src;
  void* dst;
  int64_t* idx;
  const int64_t* tab;
  int* err;
  int64_t planes, ip, op, in[3], out[3], step[3], divisor;
  int32_t count_pad, code;
};

// The geometry's sizes, and its window tables copied to the device (kept alive in `tab`).
PoolParamsHost pool_params(const PoolGeometry& g, Device dev, Tensor& tab) {
  PoolParamsHost p{};
  std::vector<int64_t> host;
  for (int d = 0; d < 3; d++) {
    const Win& w = g.w[d];
    TC_CHECK(int64_t(w.beg.size()) == w.out && int64_t(w.cnt.size()) == w.out &&
                 int64_t(w.span.size()) == w.out,
             Runtime, "CUDA pooling: a window table does not match its output size");
    host.insert(host.end(), w.beg.begin(), w.beg.end());
    host.insert(host.end(), w.cnt.begin(), w.cnt.end());
    host.insert(host.end(), w.span.begin(), w.span.end());
    p.in[d] = w.in, p.out[d] = w.out, p.step[d] = w.step;
  }
  Tensor cpu = empty(Shape{int64_t(host.size())}, ScalarType::Long);
  std::memcpy(cpu.data(), host.data(), host.size() * sizeof(int64_t));
  tab = upload_async(cpu, dev);  // queued: nothing waits for the GPU
  p.tab = tab.data_as<int64_t>();
  p.planes = g.planes, p.ip = g.in_plane(), p.op = g.out_plane();
  p.err = device_error_word();
  return p;
}

void max_pool_cuda(const PoolGeometry& g, const Tensor& x, const Tensor& y, const Tensor& idx) {
  use_device_of(y);
  if (y.numel() == 0) return;
  Tensor tab;
  PoolParamsHost p = pool_params(g, y.device(), tab);
  p.src = x.data(), p.dst = y.data(), p.idx = idx.data_as<int64_t>();
  run("max_pool", x.dtype(), p.planes * p.op, &p);
}

void max_pool_backward_cuda(int64_t planes, int64_t ip, int64_t on, const Tensor& g,
                            const Tensor& idx, const Tensor& gx) {
  check_device(g, gx, "max_pool_backward", "grad");
  check_device(idx, gx, "max_pool_backward", "indices");
  use_device_of(gx);
  if (gx.numel()) fill_(gx, Scalar::from_int(0));
  PoolParamsHost p{};
  p.src = g.data(), p.dst = gx.data(), p.idx = idx.data_as<int64_t>();
  p.err = device_error_word();
  p.planes = planes, p.ip = ip, p.op = on;
  p.code = int(Op::max_pool_backward) + 1;
  run("max_pool_backward", g.dtype(), planes * on, &p);
}

void avg_pool_cuda(const PoolGeometry& g, const Tensor& src, const Tensor& dst, bool backward,
                   bool count_pad, int64_t divisor_override) {
  check_device(src, dst, "avg_pool", "input");
  use_device_of(dst);
  if (backward && dst.numel()) fill_(dst, Scalar::from_int(0));
  if (dst.numel() == 0 || src.numel() == 0) return;
  Tensor tab;
  PoolParamsHost p = pool_params(g, dst.device(), tab);
  p.src = src.data(), p.dst = dst.data();
  p.divisor = divisor_override, p.count_pad = count_pad;
  run(backward ? "avg_pool_backward" : "avg_pool", dst.dtype(), p.planes * p.op, &p);
}

// ---------------------------------------------------------------- host: LSTM
struct LstmParamsHost {
  void* gates;
  const void* c_prev;
  void* c;
  void* tc;
  void* h;
  const void* gh;
  const void* go;
  void* gc;
  int64_t rows, H;
};

// element offset of row r of a (rows, width) buffer with contiguous rows, as a byte pointer
template <class P>
P row(P base, int64_t r, int64_t width, ScalarType t) {
  return P(static_cast<const char*>(base) + r * width * int64_t(itemsize(t)));
}

void lstm_cell_cuda(const Tensor& gates, const Tensor& c_prev, const Tensor& c, const Tensor& tc,
                    const Tensor& h) {
  for (auto [t, arg] : {std::pair{&c_prev, "c_prev"}, {&c, "c"}, {&tc, "tc"}, {&h, "h"}})
    check_device(*t, gates, "_lstm_cell", arg);
  use_device_of(gates);
  LstmParamsHost p{gates.data(), c_prev.data(), c.data(), tc.data(),     h.data(),
                   nullptr,      nullptr,       nullptr,  gates.size(0), gates.size(1) / 4};
  run("lstm_cell", gates.dtype(), p.rows * p.H, &p);
}

void lstm_cell_backward_cuda(const Tensor& gh, const Tensor& gc, const Tensor& acts,
                             const Tensor& c_prev, const Tensor& tc, const Tensor& d_gates) {
  for (auto [t, arg] :
       {std::pair{&gh, "gh"}, {&gc, "gc"}, {&c_prev, "c_prev"}, {&tc, "tc"}, {&d_gates, "d_gates"}})
    check_device(*t, acts, "_lstm_cell_backward", arg);
  use_device_of(acts);
  LstmParamsHost p{acts.data(), c_prev.data(), nullptr,   tc.data(),    d_gates.data(),
                   gh.data(),   nullptr,       gc.data(), acts.size(0), acts.size(1) / 4};
  run("lstm_cell_backward", acts.dtype(), p.rows * p.H, &p);
}

// c (m x n) = alpha a b + beta c through the backend's matrix product (cuBLAS)
void gemm(const Tensor& a, const Tensor& b, const Tensor& c, double beta) {
  GemmArgs g{&a, &b, &c, Scalar::from_double(1.0), Scalar::from_double(beta)};
  find_kernel<GemmFn>(Op::gemm, c.device(), c.dtype())(g);
}

// T steps of B rows: acts (holding xw) += h_prev W_hh^T, then the cell, per step
void lstm_layer_cuda(const Tensor& h0, const Tensor& c0, const Tensor& w_hh, bool reverse,
                     const LstmLayer& r) {
  for (auto [t, arg] : {std::pair{&h0, "h0"}, {&c0, "c0"}, {&w_hh, "w_hh"}})
    check_device(*t, r.out, "_lstm_layer", arg);
  use_device_of(r.out);
  const ScalarType t = r.out.dtype();
  const int64_t B = h0.size(0), H = h0.size(1), T = B ? r.out.size(0) / B : 0;
  const Tensor w_t = transpose(w_hh, 0, 1);
  Tensor hp = h0, cp = c0;
  for (int64_t s = 0; s < T; s++) {
    const int64_t r0 = (reverse ? T - 1 - s : s) * B;
    Tensor a = narrow(r.acts, 0, r0, B), h = narrow(r.out, 0, r0, B), c = narrow(r.c, 0, r0, B);
    if (H) gemm(hp, w_t, a, 1.0);
    LstmParamsHost p{a.data(), cp.data(), c.data(), row(r.tc.data(), r0, H, t),
                     h.data(), nullptr,   nullptr,  nullptr,
                     B,        H};
    run("lstm_cell", t, B * H, &p);
    hp = h, cp = c;
  }
}

// r: d gates (rows, 4H) to write, gh (holding g_hn), gc (holding g_cn), scratch (unused)
void lstm_layer_backward_cuda(const Tensor& g_out, const Tensor& w_hh, const Tensor& acts,
                              const Tensor& c, const Tensor& tc, const Tensor& c0, bool reverse,
                              const LstmLayer& r) {
  for (auto [t, arg] : {std::pair{&g_out, "g_out"},
                        {&w_hh, "w_hh"},
                        {&c, "c"},
                        {&tc, "tc"},
                        {&c0, "c0"},
                        {&r.acts, "g_hn"},
                        {&r.c, "g_cn"}})
    check_device(*t, acts, "_lstm_layer_backward", arg);
  use_device_of(acts);
  const ScalarType t = acts.dtype();
  const int64_t B = c0.size(0), H = c0.size(1), T = B ? acts.size(0) / B : 0;
  for (int64_t s = T - 1; s >= 0; s--) {
    const int64_t r0 = (reverse ? T - 1 - s : s) * B, rp = (reverse ? T - s : s - 1) * B;
    const void* cp = s == 0 ? c0.data() : row(c.data(), rp, H, t);
    LstmParamsHost p{row(acts.data(), r0, 4 * H, t),
                     cp,
                     nullptr,
                     row(tc.data(), r0, H, t),
                     row(r.out.data(), r0, 4 * H, t),
                     r.acts.data(),
                     row(g_out.data(), r0, H, t),
                     r.c.data(),
                     B,
                     H};
    run("lstm_cell_backward", t, B * H, &p);
    if (H) gemm(narrow(r.out, 0, r0, B), w_hh, r.acts, 0.0);  // gh = d W_hh
  }
}

// ---------------------------------------------------------------- host: norms
struct NormParamsHost {
  const void* x;
  const void* g;
  const void* w;
  const void* b;
  void* rm;
  void* rv;
  void* y;
  void* mean;
  void* rstd;
  const void* mean_in;
  const void* rstd_in;
  double* part;
  double* stat;
  int64_t N, C, S, R, L, chunk, chunks;
  double eps, momentum;
  int32_t training, update, what;
};

const void* maybe(const Tensor& t) { return t.defined() ? t.data() : nullptr; }

// a block per row or channel (the kernels loop over any the grid does not hold)
void run_blocks(const char* base, ScalarType t, int64_t n, void* params) {
  if (n <= 0) return;
  void* args[] = {params};
  launch(nn_function(base, t), unsigned(std::min<int64_t>(n, int64_t(1) << 30)), 1, kThreads, args);
}

void layer_norm_cuda(int64_t R, int64_t L, const Tensor& x, const Tensor& w, const Tensor& b,
                     double eps, const NormResult& r) {
  check_device(w, x, "layer_norm", "weight");
  check_device(b, x, "layer_norm", "bias");
  use_device_of(x);
  NormParamsHost p{};
  p.x = x.data(), p.w = maybe(w), p.b = maybe(b);
  p.y = r.out.data(), p.mean = r.mean.data(), p.rstd = r.invstd.data();
  p.R = R, p.L = L, p.eps = eps;
  run_blocks("layer_norm", x.dtype(), R, &p);
}

// r: (grad x, grad weight, grad bias)
void layer_norm_backward_cuda(int64_t R, int64_t L, const Tensor& g, const Tensor& x,
                              const Tensor& w, const Tensor& mean, const Tensor& rstd,
                              const NormResult& r) {
  for (auto [t, arg] : {std::pair{&g, "grad"}, {&w, "weight"}, {&mean, "mean"}, {&rstd, "rstd"}})
    check_device(*t, x, "layer_norm_backward", arg);
  use_device_of(x);
  NormParamsHost p{};
  p.x = x.data(), p.g = g.data(), p.w = maybe(w), p.mean_in = mean.data(), p.rstd_in = rstd.data();
  p.y = r.out.data(), p.mean = r.mean.data(), p.rstd = r.invstd.data();
  p.R = R, p.L = L;
  run_blocks("layer_norm_backward", x.dtype(), R, &p);
  // gw, gb: chunks of rows (64 or more rows each, at most 1024 chunks), then their sums
  p.chunks = std::clamp<int64_t>(R / 64, 1, 1024);
  p.chunk = (R + p.chunks - 1) / p.chunks;
  p.chunks = (R + p.chunk - 1) / p.chunk;
  Tensor part = empty(Shape{2 * p.chunks * L}, ScalarType::Double, x.device());
  p.part = part.data_as<double>();
  void* args[] = {&p};
  const unsigned column_blocks = unsigned(std::min<int64_t>((L + kThreads - 1) / kThreads, 65535));
  launch(nn_function("layer_norm_backward_params", x.dtype()), column_blocks, unsigned(p.chunks),
         kThreads, args);
  run("layer_norm_backward_params_finish", x.dtype(), L, &p);
}

// batch_norm's three steps for `what` (see kBatchNormPartial); partial sums skipped when
// `sums` is false (evaluation mode: the running statistics give mean and invstd)
void batch_norm_steps(NormParamsHost& p, ScalarType t, Device dev, bool sums) {
  const int64_t M = p.N * p.S;
  Tensor part;
  p.chunks = 0;
  if (sums) {
    // about 8 blocks per multiprocessor in all, chunks of 1024 values or more
    const int64_t target = int64_t(sm_count(current_device())) * 8;
    p.chunks = std::clamp<int64_t>((target + p.C - 1) / p.C, 1, std::max<int64_t>(M / 1024, 1));
    p.chunk = (M + p.chunks - 1) / p.chunks;
    p.chunks = (M + p.chunk - 1) / p.chunk;
    part = empty(Shape{2 * p.C * p.chunks}, ScalarType::Double, dev);
    p.part = part.data_as<double>();
    void* args[] = {&p};
    launch(nn_function("batch_norm_partial", t), unsigned(p.chunks),
           unsigned(std::min<int64_t>(p.C, 65535)), kThreads, args);
  }
  run("batch_norm_stats", t, p.C, &p);
}

void batch_norm_cuda(const NormDims& d, const Tensor& x, const Tensor& w, const Tensor& b,
                     const Tensor& rm, const Tensor& rv, bool training, bool update,
                     double momentum, double eps, const NormResult& r) {
  for (auto [t, arg] :
       {std::pair{&w, "weight"}, {&b, "bias"}, {&rm, "running_mean"}, {&rv, "running_var"}})
    check_device(*t, x, "batch_norm", arg);
  use_device_of(x);
  if (d.C == 0 || d.N * d.S == 0) return;  // (the front end fills the statistics)
  NormParamsHost p{};
  p.x = x.data(), p.w = maybe(w), p.b = maybe(b);
  p.rm = rm.defined() ? rm.data() : nullptr, p.rv = rv.defined() ? rv.data() : nullptr;
  p.y = r.out.data(), p.mean = r.mean.data(), p.rstd = r.invstd.data();
  p.N = d.N, p.C = d.C, p.S = d.S, p.eps = eps, p.momentum = momentum;
  p.training = training, p.update = update;
  Tensor stat = empty(Shape{4 * d.C}, ScalarType::Double, x.device());
  p.stat = stat.data_as<double>();
  if (training) {
    p.what = 0;
    batch_norm_steps(p, x.dtype(), x.device(), true);
  }
  p.what = 1;
  batch_norm_steps(p, x.dtype(), x.device(), training);
  run("batch_norm_apply", x.dtype(), x.numel(), &p);
}

// r: (grad x, grad weight, grad bias)
void batch_norm_backward_cuda(const NormDims& d, const Tensor& g, const Tensor& x, const Tensor& w,
                              const Tensor& mean, const Tensor& invstd, bool training,
                              const NormResult& r) {
  for (auto [t, arg] :
       {std::pair{&g, "grad"}, {&w, "weight"}, {&mean, "mean"}, {&invstd, "invstd"}})
    check_device(*t, x, "batch_norm_backward", arg);
  use_device_of(x);
  if (d.C == 0) return;
  if (d.N * d.S == 0) {  // no values: zero sums
    fill_(r.mean, Scalar::from_int(0));
    fill_(r.invstd, Scalar::from_int(0));
    return;
  }
  NormParamsHost p{};
  p.x = x.data(), p.g = g.data(), p.w = maybe(w), p.mean_in = mean.data();
  p.rstd_in = invstd.data();
  p.y = r.out.data(), p.mean = r.mean.data(), p.rstd = r.invstd.data();
  p.N = d.N, p.C = d.C, p.S = d.S, p.training = training;
  Tensor stat = empty(Shape{4 * d.C}, ScalarType::Double, x.device());
  p.stat = stat.data_as<double>();
  p.what = 2;
  batch_norm_steps(p, x.dtype(), x.device(), true);
  run("batch_norm_apply", x.dtype(), x.numel(), &p);
}

// ---------------------------------------------------------------- host: pad, interpolate
struct PadParamsHost {
  const void* src;
  void* dst;
  const int64_t* meta;
  const int64_t* maps;
  int64_t outer, total, k;
  double value;
};

// int64 values copied to a device buffer (kept alive by `keep`)
const int64_t* to_device_longs(const std::vector<int64_t>& v, Device dev, Tensor& keep) {
  Tensor cpu = empty(Shape{std::max<int64_t>(int64_t(v.size()), 1)}, ScalarType::Long);
  if (!v.empty()) std::memcpy(cpu.data(), v.data(), v.size() * sizeof(int64_t));
  keep = upload_async(cpu, dev);
  return keep.data_as<int64_t>();
}

// src: x (forward) or the grad (backward); total: the padded tensor's size
void pad_launch(const PadPlan& p, const Tensor& src, const Tensor& dst, double value,
                bool backward) {
  std::vector<int64_t> meta, maps;
  int64_t total = p.outer;
  for (int64_t j = 0; j < p.k; j++) {
    meta.insert(meta.end(), {p.in[size_t(j)], p.out[size_t(j)], int64_t(maps.size())});
    maps.insert(maps.end(), p.maps[size_t(j)].begin(), p.maps[size_t(j)].end());
    total *= p.out[size_t(j)];
  }
  Tensor meta_d, maps_d;
  PadParamsHost q{src.data(),
                  dst.data(),
                  to_device_longs(meta, dst.device(), meta_d),
                  to_device_longs(maps, dst.device(), maps_d),
                  p.outer,
                  total,
                  p.k,
                  value};
  run(backward ? "pad_backward" : "pad", dst.dtype(), total, &q);
}

void pad_cuda(const PadPlan& p, const Tensor& x, const Tensor& y, double value) {
  use_device_of(y);
  pad_launch(p, x, y, value, false);
}

void pad_backward_cuda(const PadPlan& p, const Tensor& g, const Tensor& gx) {
  check_device(g, gx, "pad_backward", "grad");
  use_device_of(gx);
  fill_(gx, Scalar::from_int(0));
  pad_launch(p, g, gx, 0.0, true);
}

struct InterpParamsHost {
  const void* src;
  void* dst;
  const int64_t* idx;
  const double* w;
  int64_t planes, ip, op, in[3], out[3], ntaps[3];
};

// backward: dst (the input's gradient) zeroed, then each tap adds to it
void interpolate_cuda(const InterpPlan& p, const Tensor& src, const Tensor& dst, bool backward) {
  check_device(src, dst, "interpolate", "input");
  use_device_of(dst);
  InterpParamsHost q{};
  std::vector<int64_t> idx;
  std::vector<double> w;
  for (int d = 0; d < 3; d++) {
    const Taps& t = p.t[d];
    TC_CHECK(int64_t(t.i0.size()) == t.out && int64_t(t.i1.size()) == t.out &&
                 int64_t(t.w0.size()) == t.out && int64_t(t.w1.size()) == t.out,
             Runtime, "CUDA interpolate: a tap table does not match its output size");
    idx.insert(idx.end(), t.i0.begin(), t.i0.end());
    idx.insert(idx.end(), t.i1.begin(), t.i1.end());
    w.insert(w.end(), t.w0.begin(), t.w0.end());
    w.insert(w.end(), t.w1.begin(), t.w1.end());
    q.in[d] = t.in, q.out[d] = t.out, q.ntaps[d] = p.ntaps[d];
  }
  Tensor idx_d, w_d;
  q.idx = to_device_longs(idx, dst.device(), idx_d);
  Tensor w_cpu = empty(Shape{int64_t(w.size())}, ScalarType::Double);
  std::memcpy(w_cpu.data(), w.data(), w.size() * sizeof(double));
  w_d = upload_async(w_cpu, dst.device());
  q.w = w_d.data_as<double>();
  q.planes = p.planes;
  q.ip = q.in[0] * q.in[1] * q.in[2], q.op = q.out[0] * q.out[1] * q.out[2];
  q.src = src.data(), q.dst = dst.data();
  if (backward) fill_(dst, Scalar::from_int(0));
  run(backward ? "interpolate_backward" : "interpolate", dst.dtype(), q.planes * q.op, &q);
}

}  // namespace

void register_nn_kernels() {
  for (ScalarType t : kFloatTypes) {
    register_kernel(Op::softmax, DeviceType::CUDA, t, (void*)&softmax_cuda);
    register_kernel(Op::softmax_backward, DeviceType::CUDA, t, (void*)&softmax_backward_cuda);
    register_kernel(Op::nll_loss, DeviceType::CUDA, t, (void*)&nll_loss_cuda);
    register_kernel(Op::nll_loss_backward, DeviceType::CUDA, t, (void*)&nll_loss_backward_cuda);
    register_kernel(Op::embedding, DeviceType::CUDA, t, (void*)&embedding_cuda);
    register_kernel(Op::dropout_mask, DeviceType::CUDA, t, (void*)&dropout_mask_cuda);
    register_kernel(Op::adam_update, DeviceType::CUDA, t, (void*)&adam_update_cuda);
    register_kernel(Op::max_pool, DeviceType::CUDA, t, (void*)&max_pool_cuda);
    register_kernel(Op::max_pool_backward, DeviceType::CUDA, t, (void*)&max_pool_backward_cuda);
    register_kernel(Op::avg_pool, DeviceType::CUDA, t, (void*)&avg_pool_cuda);
    register_kernel(Op::lstm_cell, DeviceType::CUDA, t, (void*)&lstm_cell_cuda);
    register_kernel(Op::lstm_cell_backward, DeviceType::CUDA, t, (void*)&lstm_cell_backward_cuda);
    register_kernel(Op::lstm_layer, DeviceType::CUDA, t, (void*)&lstm_layer_cuda);
    register_kernel(Op::lstm_layer_backward, DeviceType::CUDA, t, (void*)&lstm_layer_backward_cuda);
    register_kernel(Op::layer_norm, DeviceType::CUDA, t, (void*)&layer_norm_cuda);
    register_kernel(Op::layer_norm_backward, DeviceType::CUDA, t, (void*)&layer_norm_backward_cuda);
    register_kernel(Op::batch_norm, DeviceType::CUDA, t, (void*)&batch_norm_cuda);
    register_kernel(Op::batch_norm_backward, DeviceType::CUDA, t, (void*)&batch_norm_backward_cuda);
    register_kernel(Op::pad, DeviceType::CUDA, t, (void*)&pad_cuda);
    register_kernel(Op::pad_backward, DeviceType::CUDA, t, (void*)&pad_backward_cuda);
    register_kernel(Op::interpolate, DeviceType::CUDA, t, (void*)&interpolate_cuda);
  }
}

void append_nn_kernel_sources(std::vector<std::pair<std::string, std::string>>& all) {
  for (const NnKernel& k : nn_kernels())
    for (ScalarType t : kFloatTypes) all.emplace_back(nn_name(k, t), nn_source(k, t));
}

}  // namespace tc::cuda
