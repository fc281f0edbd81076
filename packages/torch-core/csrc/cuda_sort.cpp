// cuda_sort.cpp — the CUDA backend's scans and order statistics (cumsum, cumprod,
// logcumsumexp, cummax/cummin, sort, topk, kthvalue/median, mode) and multinomial: CUDA C++
// source compiled by NVRTC on first use, registered in the (op, device, dtype) table for the
// row kernels of sort_ops.h (sort.cpp's front ends) and Op::multinomial (random.cpp).
//
// Rows: the input is made contiguous and seen as (outer, n, inner); a row is the n elements
// at one (outer, inner) index, inner apart. The outputs (contiguous, from the front end) have
// the same layout with n replaced by the output's length along dim.
//
// Scans: one block per row, the row walked in chunks of blockDim elements, each chunk scanned
// in shared memory (Hillis-Steele) and combined with the carry of the chunks before it: a
// fixed order, so results are the same from run to run.
//
// Sorting: (key, position) pairs ordered by key, NaN the largest (Note [NaN order]), and by
// position among equal keys: a total order, so the bitonic network gives the stable result.
// Rows of up to kBlockSort elements sort in one block's shared memory; longer rows in global
// memory, one launch per step of the network. The sorted pairs go to a scratch buffer from
// which a last kernel writes what the op returns (the first k: sort, topk; one position:
// kthvalue, median, nanmedian; the longest run of equal keys: mode).
//
// multinomial: per row, a block checks the weights and (with replacement) builds their
// cumulative sums, each draw a Philox uniform (keyed per launch) and a binary search; without
// replacement, each weight w gets the key E / w (E a Philox exponential draw) and the n
// smallest keys, in order, are the samples (the same law as drawing one at a time).
#include <algorithm>
#include <type_traits>

#include "cuda.h"
#include "sort_ops.h"

namespace tc::cuda {

namespace {

constexpr int kThreads = 256;     // threads per block (the scans' shared arrays hold this many)
constexpr int kBlockSort = 4096;  // longest row sorted in shared memory (48 KiB for 8-byte keys)
constexpr int kRealTypes = int(ScalarType::Double) + 1;

// kinds of cached(): this file owns 30-39
enum Kind { kScan = 30, kSortBlock, kSortInit, kSortStep, kSortFinish, kMultinomial };

// Each struct is declared twice: in kernel source (kParams) and as its host mirror below,
// member for member (8-byte members first).
const char* const kParams = R"(
struct ScanParams { const char* in; char* out; i64* idx; i64 rows, n, inner; };
struct SortParams {
  const char* in; char* keys; int* sidx; i64 rows, n, inner, pitch, P, k, j; int desc, pad;
};
struct FinishParams {
  const char* keys; const int* sidx; char* out; i64* idx; i64 rows, n, inner, pitch, len, k;
  int mode, pad;
};
struct MnParams {
  const double* p; double* cum; double* keys; i64* out; int* status; i64 rows, k, n; u64 key;
  int replacement, pad;
};
#define GRID_LOOP(e, n) \
  for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < (n); e += (i64)gridDim.x * blockDim.x)
)";

struct ScanParamsHost {
  const char* in;
  char* out;
  int64_t* idx;
  int64_t rows, n, inner;
};
struct SortParamsHost {
  const char* in;
  char* keys;
  int32_t* sidx;
  int64_t rows, n, inner, pitch, P, k, j;
  int32_t desc, pad;
};
struct FinishParamsHost {
  const char* keys;
  const int32_t* sidx;
  char* out;
  int64_t* idx;
  int64_t rows, n, inner, pitch, len, k;
  int32_t mode, pad;
};
struct MnParamsHost {
  const double* p;
  double* cum;
  double* keys;
  int64_t* out;
  int32_t* status;
  int64_t rows, k, n;
  uint64_t key;
  int32_t replacement, pad;
};

// The type the kernels compute in: float for 16-bit floats; scans of integers and bool in
// int64 (as the CPU accumulates); sort keys in the storage type otherwise.
const char* scan_acc(ScalarType t) { return is_floating(t) ? acc_name(t) : "i64"; }
ScalarType key_dtype(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::BFloat16 ? ScalarType::Float : t;
}

std::string head(ScalarType t, const char* acc) {
  return cat_str(kPrelude, "typedef ", storage_name(t), " S;\ntypedef ", acc, " A;\n", kParams);
}

// ---------------------------------------------------------------- scans
std::string scan_name(Op op, ScalarType t) {
  return cat_str("scan_", op_name(op), '_', dtype_name(t));
}

// COMBINE(av, ai, bv, bi): (v, vi) = the scan of a (earlier) followed by b (later).
std::string scan_combine(Op op, ScalarType t) {
  bool single = std::string(scan_acc(t)) == "float";
  switch (op) {
    case Op::cumsum:
      return "v = av + bv; vi = bi;";
    case Op::cumprod:
      return "v = av * bv; vi = bi;";
    case Op::logcumsumexp:
      return cat_str(
          "vi = bi; if (av == bv) v = av + (A)0.69314718055994530942; "
          "else if (av != av || bv != bv) v = av + bv; "
          "else { A m = av > bv ? av : bv, d = av > bv ? av - bv : bv - av; v = m + ",
          single ? "log1pf(expf(-d))" : "log1p(exp(-d))", "; }");
    case Op::cummax:  // a later equal value takes the index; a NaN, once met, stays
      return "if (bv != bv || (av == av && bv >= av)) { v = bv; vi = bi; } else { v = av; vi = ai; "
             "}";
    default:  // cummin
      return "if (bv != bv || (av == av && bv <= av)) { v = bv; vi = bi; } else { v = av; vi = ai; "
             "}";
  }
}

std::string scan_source(Op op, ScalarType t) {
  std::string s = head(t, scan_acc(t));
  s += "#define COMBINE(av, ai, bv, bi) { " + scan_combine(op, t) + " }\n";
  s += "extern \"C\" __global__ void " + scan_name(op, t) + R"((ScanParams p) {
  __shared__ A sv[256];
  __shared__ i64 si[256];
  __shared__ A carry_v;
  __shared__ i64 carry_i;
  int tid = threadIdx.x;
  for (i64 r = blockIdx.x; r < p.rows; r += gridDim.x) {
    i64 o = r / p.inner, base = o * p.n * p.inner + (r - o * p.inner);
    const S* x = (const S*)p.in + base;
    S* y = (S*)p.out + base;
    i64* yi = p.idx ? p.idx + base : (i64*)0;
    A cv = (A)0;
    i64 ci = 0;
    bool have = false;
    for (i64 c0 = 0; c0 < p.n; c0 += blockDim.x) {
      i64 j = c0 + tid;
      int cnt = (int)min((i64)blockDim.x, p.n - c0);
      A v = j < p.n ? (A)to_acc(x[j * p.inner]) : (A)0;
      i64 vi = j;
      sv[tid] = v;
      si[tid] = vi;
      __syncthreads();
      for (int off = 1; off < cnt; off <<= 1) {
        if (tid >= off) {
          A av = sv[tid - off], bv = v;
          i64 ai = si[tid - off], bi = vi;
          COMBINE(av, ai, bv, bi)
        }
        __syncthreads();
        sv[tid] = v;
        si[tid] = vi;
        __syncthreads();
      }
      if (have) {
        A av = cv, bv = v;
        i64 ai = ci, bi = vi;
        COMBINE(av, ai, bv, bi)
      }
      if (j < p.n) {
        y[j * p.inner] = Cvt<S>::go(v);
        if (yi) yi[j * p.inner] = vi;
      }
      if (tid == cnt - 1) {
        carry_v = v;
        carry_i = vi;
      }
      __syncthreads();
      cv = carry_v;
      ci = carry_i;
      have = true;
      __syncthreads();
    }
  }
}
)";
  return s;
}

// ---------------------------------------------------------------- sort
// before(a, b): a sorts before b. Positions >= n are padding, after every element.
const char* const kBefore = R"(
__device__ __forceinline__ bool before(A ka, int ia, A kb, int ib, int n, int desc) {
  if (ia >= n || ib >= n) return ia < ib;
  bool na = ka != ka, nb = kb != kb;
  if (na != nb) return desc ? na : nb;
  if (!na && ka != kb) return desc ? ka > kb : ka < kb;
  return ia < ib;
}
__device__ __forceinline__ const S* row_in(const SortParams& p, i64 r) {
  i64 o = r / p.inner;
  return (const S*)p.in + o * p.n * p.inner + (r - o * p.inner);
}
)";

std::string sort_name(const char* what, ScalarType t) {
  return cat_str("sort_", what, '_', dtype_name(t));
}

// One block per row: the padded row (P, a power of two) in shared memory.
std::string sort_block_source(ScalarType t) {
  return head(t, acc_name(t)) + kBefore + "extern \"C\" __global__ void " + sort_name("block", t) +
         R"((SortParams p) {
  extern __shared__ double smem[];
  A* ks = (A*)smem;
  int* is = (int*)((char*)smem + ((p.P * sizeof(A) + 7) & ~(i64)7));  // 8-byte aligned
  int P = (int)p.P, n = (int)p.n, tid = threadIdx.x;
  for (i64 r = blockIdx.x; r < p.rows; r += gridDim.x) {
    const S* x = row_in(p, r);
    for (int i = tid; i < P; i += blockDim.x) {
      ks[i] = i < n ? (A)to_acc(x[(i64)i * p.inner]) : (A)0;
      is[i] = i;
    }
    __syncthreads();
    for (int k = 2; k <= P; k <<= 1)
      for (int j = k >> 1; j > 0; j >>= 1) {
        for (int i = tid; i < P; i += blockDim.x) {
          int l = i ^ j;
          if (l <= i) continue;
          A a = ks[i], b = ks[l];
          int ia = is[i], ib = is[l];
          bool swap = (i & k) == 0 ? before(b, ib, a, ia, n, p.desc) : before(a, ia, b, ib, n, p.desc);
          if (swap) { ks[i] = b; ks[l] = a; is[i] = ib; is[l] = ia; }
        }
        __syncthreads();
      }
    A* kout = (A*)p.keys + r * p.pitch;
    int* iout = p.sidx + r * p.pitch;
    for (int i = tid; i < n; i += blockDim.x) { kout[i] = ks[i]; iout[i] = is[i]; }
    __syncthreads();
  }
}
)";
}

// Longer rows: the padded rows in global memory (pitch P), one launch per (k, j) step.
std::string sort_init_source(ScalarType t) {
  return head(t, acc_name(t)) + kBefore + "extern \"C\" __global__ void " + sort_name("init", t) +
         R"((SortParams p) {
  GRID_LOOP(e, p.rows * p.P) {
    i64 r = e / p.P, i = e - r * p.P;
    ((A*)p.keys)[e] = i < p.n ? (A)to_acc(row_in(p, r)[i * p.inner]) : (A)0;
    p.sidx[e] = (int)i;
  }
}
)";
}

std::string sort_step_source(ScalarType t) {
  return head(t, acc_name(t)) + kBefore + "extern \"C\" __global__ void " + sort_name("step", t) +
         R"((SortParams p) {
  A* ks = (A*)p.keys;
  int n = (int)p.n, desc = p.desc;
  GRID_LOOP(e, p.rows * p.P) {
    i64 i = e % p.P, l = i ^ p.j;
    if (l <= i) continue;
    i64 f = e - i + l;
    A a = ks[e], b = ks[f];
    int ia = p.sidx[e], ib = p.sidx[f];
    bool swap = (i & p.k) == 0 ? before(b, ib, a, ia, n, desc) : before(a, ia, b, ib, n, desc);
    if (swap) { ks[e] = b; ks[f] = a; p.sidx[e] = ib; p.sidx[f] = ia; }
  }
}
)";
}

// What the op returns, from the sorted rows. mode 0: the first len (sort, topk); 1: position
// k - 1 (kthvalue); 2: the lower median, or the first NaN where there is one (median); 3: the
// lower median of the non-NaN elements (nanmedian); 4: the smallest of the most frequent
// values and its last position (mode; NaNs never equal, so each counts once).
std::string sort_finish_source(ScalarType t) {
  return head(t, acc_name(t)) + "extern \"C\" __global__ void " + sort_name("finish", t) +
         R"((FinishParams p) {
  const A* keys = (const A*)p.keys;
  S* out = (S*)p.out;
  if (p.mode == 0) {
    GRID_LOOP(e, p.rows * p.len) {
      i64 r = e / p.len, j = e - r * p.len, o = r / p.inner;
      i64 at = (o * p.len + j) * p.inner + (r - o * p.inner);
      out[at] = Cvt<S>::go(keys[r * p.pitch + j]);
      p.idx[at] = p.sidx[r * p.pitch + j];
    }
    return;
  }
  GRID_LOOP(r, p.rows) {
    const A* kr = keys + r * p.pitch;
    i64 n = p.n, pos = 0;
    if (p.mode == 1) {
      pos = p.k - 1;
    } else if (p.mode == 2 || p.mode == 3) {
      i64 lo = 0, hi = n;  // the NaNs are at the end: valid = how many are not NaN
      while (lo < hi) {
        i64 mid = lo + (hi - lo) / 2;
        if (kr[mid] != kr[mid]) hi = mid; else lo = mid + 1;
      }
      if (p.mode == 2) pos = lo < n ? lo : (n - 1) / 2;
      else pos = lo == 0 ? 0 : (lo - 1) / 2;
    } else {
      i64 best_count = 0;
      for (i64 b = 0; b < n;) {
        i64 e = b + 1;
        while (e < n && kr[e] == kr[b]) e++;
        if (e - b > best_count) { pos = e - 1; best_count = e - b; }
        b = e;
      }
    }
    out[r] = Cvt<S>::go(kr[pos]);
    p.idx[r] = p.sidx[r * p.pitch + pos];
  }
}
)";
}

// ---------------------------------------------------------------- multinomial
// Philox4x32-10 (cuda_kernels.cpp's kPhilox): key per launch, counter per draw.
std::string multinomial_source() {
  return head(ScalarType::Double, "double") + kPhilox + R"(
__device__ __forceinline__ double uniform53(u64 key, u64 ctr) {  // [0, 1)
  u32 x[4];
  philox(key, ctr, x);
  return (double)(((u64)x[0] << 21) ^ (x[1] >> 11)) * (1.0 / 9007199254740992.0);
}
// status per row: 0 fine, 1 a weight < 0, inf or NaN, 2 no positive weight, 3 fewer positive
// weights than samples without replacement
extern "C" __global__ void multinomial_float64(MnParams p) {
  __shared__ double sv[256];
  __shared__ i64 cnt_s[256];
  __shared__ int bad_s[256];
  __shared__ double carry_s;
  int tid = threadIdx.x;
  for (i64 r = blockIdx.x; r < p.rows; r += gridDim.x) {
    const double* w = p.p + r * p.k;
    double carry = 0;
    int bad = 0;
    i64 nz = 0;
    for (i64 c0 = 0; c0 < p.k; c0 += blockDim.x) {
      i64 j = c0 + tid;
      int cnt = (int)min((i64)blockDim.x, p.k - c0);
      double v = j < p.k ? w[j] : 0.0;
      if (j < p.k) {
        if (!(v >= 0.0) || v - v != 0.0) bad = 1;
        if (v > 0.0) nz++;
      }
      if (p.replacement) {
        sv[tid] = v;
        __syncthreads();
        for (int off = 1; off < cnt; off <<= 1) {
          if (tid >= off) v = sv[tid - off] + v;
          __syncthreads();
          sv[tid] = v;
          __syncthreads();
        }
        v += carry;
        if (j < p.k) p.cum[r * p.k + j] = v;
        if (tid == cnt - 1) carry_s = v;
        __syncthreads();
        carry = carry_s;
        __syncthreads();
      } else if (j < p.k) {
        double e = -log(1.0 - uniform53(p.key, (u64)(r * p.k + j)));
        p.keys[r * p.k + j] = v > 0.0 ? e / v : __longlong_as_double(0x7ff0000000000000LL);
      }
    }
    bad_s[tid] = bad;
    cnt_s[tid] = nz;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) { bad_s[tid] |= bad_s[tid + s]; cnt_s[tid] += cnt_s[tid + s]; }
      __syncthreads();
    }
    int status = bad_s[0] ? 1 : cnt_s[0] == 0 ? 2 : (!p.replacement && cnt_s[0] < p.n) ? 3 : 0;
    if (p.replacement && status == 0 && !(carry > 0.0)) status = 2;
    if (tid == 0) p.status[r] = status;
    if (p.replacement && status == 0) {
      const double* cum = p.cum + r * p.k;
      for (i64 s = tid; s < p.n; s += blockDim.x) {
        double u = uniform53(p.key, (u64)(r * p.n + s)) * carry;
        i64 lo = 0, hi = p.k;  // the first position whose cumulative weight is > u
        while (lo < hi) {
          i64 mid = lo + (hi - lo) / 2;
          if (cum[mid] > u) hi = mid; else lo = mid + 1;
        }
        if (lo >= p.k) lo = p.k - 1;
        while (lo > 0 && !(w[lo] > 0.0)) lo--;  // rounding at the top end
        p.out[r * p.n + s] = lo;
      }
    }
    __syncthreads();
  }
}
)";
}

// ---------------------------------------------------------------- host side
// The row geometry of a front end's RowArgs: the input made contiguous, seen as
// (outer, n, inner).
struct Rows {
  Tensor x;
  int64_t rows, n, inner;
};
Rows rows_of(const RowArgs& a) {
  Rows g;
  g.x = contiguous(a.in);
  g.n = g.x.size(a.dim);
  g.inner = 1;
  for (int64_t d = a.dim + 1; d < g.x.dim(); d++) g.inner *= g.x.size(d);
  g.rows = g.x.numel() / g.n;
  return g;
}

unsigned blocks_for(int64_t n, int64_t per_block) {
  int64_t cap = int64_t(sm_count(current_device())) * 32;
  return unsigned(std::max<int64_t>(1, std::min<int64_t>((n + per_block - 1) / per_block, cap)));
}

void run(CUfunction f, unsigned blocks, void* params, unsigned shared = 0) {
  void* args[] = {params};
  launch(f, blocks, 1, kThreads, args, shared);
}

template <int OP, int DT>
void scan_kernel(const RowArgs& a) {
  use_device_of(a.in);
  Op op = Op(OP);
  ScalarType t = ScalarType(DT);
  Rows g = rows_of(a);
  ScanParamsHost p{g.x.data(), a.out.data(), a.idx.defined() ? a.idx.data_as<int64_t>() : nullptr,
                   g.rows,     g.n,          g.inner};
  CUfunction f = cached(kScan, OP, t, t, "",
                        [&] { return std::make_pair(scan_source(op, t), scan_name(op, t)); });
  run(f, blocks_for(g.rows, 1), &p);
}

CUfunction sort_fn(Kind kind, ScalarType t, const char* what, std::string (*make)(ScalarType)) {
  return cached(int(kind), 0, t, t, "",
                [&] { return std::make_pair(make(t), sort_name(what, t)); });
}

// Sorts every row of a.in (descending or not) into keys/sidx (row r at r * pitch) and writes
// the op's result (mode, len, k: sort_finish_source).
void sort_rows(const RowArgs& a, bool desc, int mode, int64_t len, int64_t k) {
  use_device_of(a.in);
  ScalarType t = a.in.dtype();
  Rows g = rows_of(a);
  TC_CHECK(g.n < (int64_t(1) << 30), NotImplemented, op_name(Op::sort),
           ": CUDA sorts rows of fewer than 2^30 elements (got ", g.n, ")");
  int64_t P = 1;
  while (P < g.n) P *= 2;
  bool in_block = P <= kBlockSort;
  int64_t pitch = in_block ? g.n : P;
  Tensor keys = empty({g.rows * pitch}, key_dtype(t), a.in.device());
  Tensor sidx = empty({g.rows * pitch}, ScalarType::Int, a.in.device());
  SortParamsHost p{g.x.data(), keys.data(), reinterpret_cast<int32_t*>(sidx.data()),
                   g.rows,     g.n,         g.inner,
                   pitch,      P,           0,
                   0,          desc,        0};
  if (in_block) {
    // the keys, then the positions from the next multiple of 8 bytes (sort_block_source)
    int64_t key_bytes = (P * int64_t(itemsize(key_dtype(t))) + 7) & ~int64_t(7);
    unsigned shared = unsigned(key_bytes + P * 4);
    run(sort_fn(kSortBlock, t, "block", sort_block_source), blocks_for(g.rows, 1), &p, shared);
  } else {
    unsigned blocks = blocks_for(g.rows * P, kThreads);
    run(sort_fn(kSortInit, t, "init", sort_init_source), blocks, &p);
    CUfunction step = sort_fn(kSortStep, t, "step", sort_step_source);
    for (p.k = 2; p.k <= P; p.k *= 2)
      for (p.j = p.k / 2; p.j > 0; p.j /= 2) run(step, blocks, &p);
  }
  FinishParamsHost q{keys.data(),  reinterpret_cast<const int32_t*>(sidx.data()),
                     a.out.data(), a.idx.data_as<int64_t>(),
                     g.rows,       g.n,
                     g.inner,      pitch,
                     len,          k,
                     mode,         0};
  run(sort_fn(kSortFinish, t, "finish", sort_finish_source),
      blocks_for(mode == 0 ? g.rows * len : g.rows, kThreads), &q);
}

void sort_kernel(const RowArgs& a) { sort_rows(a, a.flag, 0, a.in.size(a.dim), 0); }
void topk_kernel(const RowArgs& a) {
  if (a.k > 0) sort_rows(a, a.flag, 0, a.k, 0);
}
void kth_kernel(const RowArgs& a) { sort_rows(a, false, a.mode + 1, 1, a.k); }
void mode_kernel(const RowArgs& a) { sort_rows(a, false, 4, 1, 0); }

void multinomial_kernel(const Tensor& probs, int64_t n, bool replacement, Generator&,
                        const Tensor& out) {
  use_device_of(probs);
  int64_t rows = probs.size(0), k = probs.size(1);
  if (rows == 0) return;
  TC_CHECK(k > 0, Runtime, "multinomial: invalid distribution (sum of probabilities <= 0)");
  Tensor cum, keys, status = empty({rows}, ScalarType::Int, probs.device());
  if (replacement)
    cum = empty({rows * k}, ScalarType::Double, probs.device());
  else
    keys = empty({rows, k}, ScalarType::Double, probs.device());
  MnParamsHost q{probs.data_as<double>(),
                 replacement ? cum.data_as<double>() : nullptr,
                 replacement ? nullptr : keys.data_as<double>(),
                 out.data_as<int64_t>(),
                 reinterpret_cast<int32_t*>(status.data()),
                 rows,
                 k,
                 n,
                 next_philox_key(current_device()),
                 replacement,
                 0};
  CUfunction f = cached(kMultinomial, 0, ScalarType::Double, ScalarType::Double, "", [] {
    return std::make_pair(multinomial_source(), std::string("multinomial_float64"));
  });
  run(f, blocks_for(rows, 1), &q);
  // the checks the CPU makes (a synchronisation: the errors are raised here, not later)
  Tensor host = empty({rows}, ScalarType::Int, Device{});
  download(host, status);
  const int32_t* st = reinterpret_cast<const int32_t*>(host.data());
  for (int64_t r = 0; r < rows; r++) {
    TC_CHECK(st[r] != 1, Runtime,
             "multinomial: probability tensor contains either inf, nan or an element < 0");
    TC_CHECK(st[r] != 2, Runtime, "multinomial: invalid distribution (sum of probabilities <= 0)");
    TC_CHECK(st[r] != 3, Runtime,
             "multinomial: invalid distribution: fewer non-zero probabilities than samples "
             "requested without replacement");
  }
  if (!replacement) copy_(out, topk(keys, n, 1, false).second);
}

// The table stores void*: check each kernel's type against the one its front end calls.
static_assert(std::is_same_v<decltype(&scan_kernel<0, 0>), RowFn>);
static_assert(std::is_same_v<decltype(&sort_kernel), RowFn>);
static_assert(std::is_same_v<decltype(&multinomial_kernel), MultinomialFn>);

template <int... D>
void register_all(std::integer_sequence<int, D...>) {
  auto reg = [](Op op, ScalarType t, void* fn) { register_kernel(op, DeviceType::CUDA, t, fn); };
  (reg(Op::cumsum, ScalarType(D), (void*)&scan_kernel<int(Op::cumsum), D>), ...);
  (reg(Op::cumprod, ScalarType(D), (void*)&scan_kernel<int(Op::cumprod), D>), ...);
  (reg(Op::cummax, ScalarType(D), (void*)&scan_kernel<int(Op::cummax), D>), ...);
  (reg(Op::cummin, ScalarType(D), (void*)&scan_kernel<int(Op::cummin), D>), ...);
  (
      [&] {
        if (is_floating(ScalarType(D)))
          reg(Op::logcumsumexp, ScalarType(D), (void*)&scan_kernel<int(Op::logcumsumexp), D>);
      }(),
      ...);
}

}  // namespace

void register_sort_kernels() {
  register_all(std::make_integer_sequence<int, kRealTypes>());
  for (int d = 0; d < kRealTypes; d++) {
    ScalarType t = ScalarType(d);
    register_kernel(Op::sort, DeviceType::CUDA, t, (void*)&sort_kernel);
    register_kernel(Op::topk, DeviceType::CUDA, t, (void*)&topk_kernel);
    register_kernel(Op::kthvalue, DeviceType::CUDA, t, (void*)&kth_kernel);
    register_kernel(Op::mode, DeviceType::CUDA, t, (void*)&mode_kernel);
  }
  register_kernel(Op::multinomial, DeviceType::CUDA, ScalarType::Double,
                  (void*)&multinomial_kernel);
}

void append_sort_kernel_sources(std::vector<std::pair<std::string, std::string>>& all) {
  for (int d = 0; d < kRealTypes; d++) {
    ScalarType t = ScalarType(d);
    for (Op op : {Op::cumsum, Op::cumprod, Op::cummax, Op::cummin, Op::logcumsumexp})
      if (op != Op::logcumsumexp || is_floating(t))
        all.emplace_back(scan_name(op, t), scan_source(op, t));
    all.emplace_back(sort_name("block", t), sort_block_source(t));
    all.emplace_back(sort_name("init", t), sort_init_source(t));
    all.emplace_back(sort_name("step", t), sort_step_source(t));
    all.emplace_back(sort_name("finish", t), sort_finish_source(t));
  }
  all.emplace_back("multinomial_float64", multinomial_source());
}

}  // namespace tc::cuda
