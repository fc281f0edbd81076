// conv.cpp — convolutions with 1 to 3 spatial dims (strided, padded, dilated, grouped,
// transposed) and im2col/col2im (unfold/fold), all through one N-d im2col/col2im and GEMMs:
//
//   conv:            y[n]  = W (O, C*K) @ im2col(x[n]) (C*K, L)       (+ bias)
//   conv_transpose:  y[n]  = col2im(W^T (O*K, C) @ x[n] (C, L))         (+ bias)
//   weight grad:     gW   += gy[n] (O, L) @ im2col(x[n])^T (L, C*K)
//
// each per group, on strided sub-matrices. K is the kernel's size (product over its dims),
// L the number of output positions. Groups of one or two channels (depthwise convolutions)
// would make thin GEMMs: direct kernels sum the same products without columns.
//
// Note [Blocks]: the batch's columns (N samples of L positions each) are cut into blocks of
// about kColBytes of column matrix: several whole samples side by side when L is small (so
// the GEMMs stay wide: W is packed once per block, not once per sample), or a run of output
// lines of one sample when L is large (so the columns stay in cache). Blocks run across
// threads, each thread with its own buffers; with fewer blocks than threads, one block at a
// time with the threads splitting im2col/col2im and the GEMMs. BLAS always runs
// single-threaded here: all threads are OpenMP's (OpenBLAS's own would compete with them).
// col2im (conv_transpose) writes overlapping parts of an image, so the blocks of one sample
// run in order on one thread.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <vector>

#include "cpu_gemm.h"
#include "nn_kernels.h"

namespace tc {

namespace {

// ---------------------------------------------------------------- geometry
// One sample, padded to 3 spatial dims (missing leading dims have size 1): an image of C
// channels and size `in`, and the kernel positions `out` it is sampled at. A line is the
// run of out[2] positions at one (z, y): a sample has out[0] * out[1] lines.

ConvGeom make_geom(int64_t C, const int64_t* in, const int64_t* out, const Shape& k, const Shape& s,
                   const Shape& p, const Shape& d) {
  ConvGeom g;
  g.C = C;
  int off = 3 - int(k.size());
  for (size_t i = 0; i < k.size(); i++) {
    g.in[off + i] = in[i];
    g.out[off + i] = out[i];
    g.k[off + i] = k[i];
    g.s[off + i] = s[i];
    g.p[off + i] = p[i];
    g.d[off + i] = d[i];
  }
  return g;
}

// Output positions o in [lo, hi) read inside the image: 0 <= o * s + off < in.
inline void valid_range(int64_t off, int64_t s, int64_t in, int64_t out, int64_t& lo, int64_t& hi) {
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  hi = in - off <= 0 ? 0 : (in - off + s - 1) / s;
  lo = std::min(lo, out);
  hi = std::max(lo, std::min(hi, out));
}

// The channel and kernel position of consecutive rows of the column matrix, counted up
// rather than divided out per row (small images have few lines per row: the divisions cost
// more than the row's copying).
struct RowWalk {
  const ConvGeom& g;
  int64_t c, kz, ky, kx;
  RowWalk(const ConvGeom& geom, int64_t r) : g(geom) {
    const int64_t kk = r % g.k_n();
    c = r / g.k_n(), kx = kk % g.k[2], ky = kk / g.k[2] % g.k[1], kz = kk / (g.k[2] * g.k[1]);
  }
  void next() {
    if (++kx < g.k[2]) return;
    kx = 0;
    if (++ky < g.k[1]) return;
    ky = 0;
    if (++kz < g.k[0]) return;
    kz = 0, c++;
  }
};

// For rows [r0, r1) of the column matrix (C*K rows) and lines [t0, t1): calls
// f(r, rel, src, off, lo, hi) per row and line, rel the line's first column relative to t0's,
// src the offset of the image line it reads (-1: all padding); the line's element x reads
// image[src + x * s + off] for x in [lo, hi) and is zero elsewhere.
template <class F>
void for_lines(const ConvGeom& g, int64_t r0, int64_t r1, int64_t t0, int64_t t1, const F& f) {
  const int64_t plane = g.in[1] * g.in[2];
  RowWalk w(g, r0);
  for (int64_t r = r0; r < r1; r++, w.next()) {
    const int64_t c = w.c, kx = w.kx, ky = w.ky, kz = w.kz;
    int64_t off = kx * g.d[2] - g.p[2], lo, hi;
    valid_range(off, g.s[2], g.in[2], g.out[2], lo, hi);
    int64_t oz = t0 / g.out[1], oy = t0 % g.out[1];
    for (int64_t t = t0; t < t1; t++) {
      int64_t iz = oz * g.s[0] + kz * g.d[0] - g.p[0], iy = oy * g.s[1] + ky * g.d[1] - g.p[1];
      bool inside = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
      f(r, (t - t0) * g.out[2], inside ? c * g.in_n() + iz * plane + iy * g.in[2] : int64_t(-1),
        off, lo, hi);
      if (++oy == g.out[1]) oy = 0, oz++;
    }
  }
}

// im2col of float lines of at most 16 elements, stride 1 along them (small images: the
// late layers of a CNN), one masked AVX-512 load and store per line: the masked-off lanes
// are the padding, which a masked load never reads. (The generic loop below spent more
// on each line's bookkeeping and three short loops than on copying its elements.)
__attribute__((target("avx512f"))) void im2col_short_f32(const ConvGeom& g, const float* im,
                                                         float* col, int64_t ld, int64_t r0,
                                                         int64_t r1, int64_t t0, int64_t t1) {
  // for_lines' walk, written out: a lambda would not inherit this function's target
  const int64_t plane = g.in[1] * g.in[2], W = g.out[2];
  const __mmask16 store = __mmask16((1u << W) - 1);
  RowWalk w(g, r0);
  for (int64_t r = r0; r < r1; r++, w.next()) {
    const int64_t c = w.c, kx = w.kx, ky = w.ky, kz = w.kz;
    int64_t off = kx * g.d[2] - g.p[2], lo, hi;
    valid_range(off, 1, g.in[2], W, lo, hi);
    const __mmask16 inside_mask = __mmask16(((1u << hi) - 1) & ~((1u << lo) - 1));
    int64_t oz = t0 / g.out[1], oy = t0 % g.out[1];
    float* dst = col + r * ld;
    for (int64_t t = t0; t < t1; t++, dst += W) {
      int64_t iz = oz * g.s[0] + kz * g.d[0] - g.p[0], iy = oy * g.s[1] + ky * g.d[1] - g.p[1];
      bool inside = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1];
      // masked-off lanes (the padding) are never read, so their addresses need not be valid
      const float* row = im + (inside ? c * g.in_n() + iz * plane + iy * g.in[2] + off : 0);
      _mm512_mask_storeu_ps(dst, store, _mm512_maskz_loadu_ps(inside ? inside_mask : 0, row));
      if (++oy == g.out[1]) oy = 0, oz++;
    }
  }
}

// The adjoint of im2col_short_f32 (col2im's lines of at most 16 floats, stride 1): the
// line's valid lanes are added into the image with one masked load, add and store.
__attribute__((target("avx512f"))) void col2im_short_f32(const ConvGeom& g, const float* col,
                                                         int64_t ld, float* im, int64_t r0,
                                                         int64_t r1, int64_t t0, int64_t t1) {
  const int64_t plane = g.in[1] * g.in[2], W = g.out[2];
  RowWalk w(g, r0);
  for (int64_t r = r0; r < r1; r++, w.next()) {
    int64_t off = w.kx * g.d[2] - g.p[2], lo, hi;
    valid_range(off, 1, g.in[2], W, lo, hi);
    const __mmask16 m = __mmask16(((1u << hi) - 1) & ~((1u << lo) - 1));
    int64_t oz = t0 / g.out[1], oy = t0 % g.out[1];
    const float* src = col + r * ld;
    for (int64_t t = t0; t < t1; t++, src += W) {
      int64_t iz = oz * g.s[0] + w.kz * g.d[0] - g.p[0], iy = oy * g.s[1] + w.ky * g.d[1] - g.p[1];
      if (++oy == g.out[1]) oy = 0, oz++;
      if (iz < 0 || iz >= g.in[0] || iy < 0 || iy >= g.in[1] || m == 0) continue;
      // lane x writes image element x + off; masked-off lanes are never touched
      float* row = im + w.c * g.in_n() + iz * plane + iy * g.in[2] + off;
      __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, row), _mm512_maskz_loadu_ps(m, src));
      _mm512_mask_storeu_ps(row, m, v);
    }
  }
}

// Rows [r0, r1), lines [t0, t1) of im2col(im) into col (row stride ld).
template <class T>
void im2col(const ConvGeom& g, const T* im, T* col, int64_t ld, int64_t r0, int64_t r1, int64_t t0,
            int64_t t1) {
  const int64_t W = g.out[2], s = g.s[2];
  if constexpr (std::is_same_v<T, float>)
    if (W <= 16 && s == 1 && has_avx512()) return im2col_short_f32(g, im, col, ld, r0, r1, t0, t1);
  for_lines(g, r0, r1, t0, t1,
            [&](int64_t r, int64_t rel, int64_t src, int64_t off, int64_t lo, int64_t hi) {
              T* dst = col + r * ld + rel;
              if (src < 0) {
                std::fill(dst, dst + W, T(0));
                return;
              }
              const T* row = im + src;
              if (W <= 16) {  // short lines (late layers): no library calls per line
                for (int64_t x = 0; x < W; x++)
                  dst[x] = x >= lo && x < hi ? row[x * s + off] : T(0);
                return;
              }
              std::fill(dst, dst + lo, T(0));
              if (s == 1)
                std::copy(row + lo + off, row + hi + off, dst + lo);
              else
                for (int64_t x = lo; x < hi; x++) dst[x] = row[x * s + off];
              std::fill(dst + hi, dst + W, T(0));
            });
}

// im[c] += the columns (row stride ld) of channels [c0, c1), lines [t0, t1), put back in
// place: the adjoint of im2col.
template <class T>
void col2im(const ConvGeom& g, const T* col, int64_t ld, T* im, int64_t c0, int64_t c1, int64_t t0,
            int64_t t1) {
  const int64_t K = g.k_n(), s = g.s[2];
  if constexpr (std::is_same_v<T, float>)
    if (g.out[2] <= 16 && s == 1 && has_avx512())
      return col2im_short_f32(g, col, ld, im, c0 * K, c1 * K, t0, t1);
  for_lines(g, c0 * K, c1 * K, t0, t1,
            [&](int64_t r, int64_t rel, int64_t dst, int64_t off, int64_t lo, int64_t hi) {
              if (dst < 0) return;
              const T* src = col + r * ld + rel;
              T* row = im + dst;
              if (s == 1)
                for (int64_t x = lo; x < hi; x++) row[x + off] += src[x];
              else
                for (int64_t x = lo; x < hi; x++) row[x * s + off] += src[x];
            });
}

// ---------------------------------------------------------------- BLAS
// gemm across nt threads, split by the columns of c (BLAS itself runs single-threaded)
template <class T>
void pgemm(int nt, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
           const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (nt <= 1 || n < 64 * nt) return cpu_gemm(ta, tb, m, n, k, T(1), a, lda, b, ldb, beta, c, ldc);
#pragma omp parallel num_threads(nt)
  {
    int64_t t = omp_get_thread_num(), p = omp_get_num_threads();
    int64_t j0 = n * t / p / 16 * 16, j1 = t + 1 == p ? n : n * (t + 1) / p / 16 * 16;
    cpu_gemm(ta, tb, m, j1 - j0, k, T(1), a, lda, tb ? b + j0 * ldb : b + j0, ldb, beta, c + j0,
             ldc);
  }
}

// ---------------------------------------------------------------- blocks, threads
constexpr int64_t kColBytes = int64_t(1) << 20;  // a block's column matrix, about at most
constexpr int64_t kMinCols = 512;                // a block's columns, at least (GEMM size)

// Note [Blocks]: spb whole samples side by side (spb > 1), or lines [j * tile, ...) of one.
struct Blocks {
  int64_t spb = 1, tile = 1, per_sample = 1, count = 0, cols = 0;  // cols: the most per block
  int outer = 1, inner = 1;  // threads across blocks (BLAS single-threaded) / inside one
  bool whole = false;        // a sample's blocks run in order on one thread (col2im)
};

struct Block {
  int64_t n0, nb, t0, t1;
};

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// rows: of the column matrix; work: multiply-adds of the whole op
Blocks make_blocks(int64_t N, const ConvGeom& g, int64_t rows, size_t item, bool whole_samples,
                   int64_t work) {
  const int64_t L = g.out_n(), lines = g.lines();
  const int nt = work >= kGrain ? get_num_threads() : 1;
  Blocks b;
  b.tile = lines;
  if (L < kMinCols) {
    int64_t fit = kColBytes / std::max<int64_t>(L * rows * int64_t(item), 1);
    b.spb = std::max<int64_t>(1, std::min({ceil_div(kMinCols, L), fit, N / nt}));
    int64_t count = ceil_div(ceil_div(N, b.spb), nt) * nt;  // a multiple of the threads
    b.spb = ceil_div(N, count);
  } else if (L > kMinCols && L * rows * int64_t(item) > kColBytes) {
    int64_t cols = std::max(kMinCols, kColBytes / (rows * int64_t(item)));
    b.tile = ceil_div(cols, g.out[2]);
  }
  if (!whole_samples && b.spb == 1 && N * ceil_div(lines, b.tile) < nt)  // split for threads
    b.tile = ceil_div(lines, ceil_div(nt, N));
  b.per_sample = ceil_div(lines, b.tile);
  b.count = b.spb > 1 ? ceil_div(N, b.spb) : N * b.per_sample;
  b.cols = b.spb * std::min(b.tile, lines) * g.out[2];
  b.whole = whole_samples && b.per_sample > 1;
  if (nt > 1 && (b.whole ? N : b.count) >= nt)
    b.outer = nt;
  else
    b.inner = nt;
  return b;
}

Block block_at(const Blocks& b, int64_t i, int64_t N, int64_t lines) {
  if (b.spb > 1) return {i * b.spb, std::min(b.spb, N - i * b.spb), 0, lines};
  int64_t j = i % b.per_sample;
  return {i / b.per_sample, 1, j * b.tile, std::min(lines, (j + 1) * b.tile)};
}

// f(block, slot) for each block; slot < b.outer names the running thread's buffers. All
// threads are OpenMP's: BLAS runs single-threaded meanwhile (its own threads would compete
// with OpenMP's spinning ones), the inner mode splitting GEMMs with pgemm.
template <class F>
void for_blocks(const Blocks& b, int64_t N, int64_t lines, const F& f) {
  if (b.outer <= 1 && b.inner <= 1) {
    for (int64_t i = 0; i < b.count; i++) f(block_at(b, i, N, lines), 0);
    return;
  }
  int blas_threads = scipy_openblas_get_num_threads();
  scipy_openblas_set_num_threads(1);
  if (b.outer <= 1) {
    for (int64_t i = 0; i < b.count; i++) f(block_at(b, i, N, lines), 0);
  } else if (b.whole) {
#pragma omp parallel for num_threads(b.outer) schedule(static)
    for (int64_t n = 0; n < N; n++)
      for (int64_t j = 0; j < b.per_sample; j++)
        f(block_at(b, n * b.per_sample + j, N, lines), omp_get_thread_num());
  } else {
#pragma omp parallel for num_threads(b.outer) schedule(static)
    for (int64_t i = 0; i < b.count; i++) f(block_at(b, i, N, lines), omp_get_thread_num());
  }
  scipy_openblas_set_num_threads(blas_threads);
}

// The block's columns: im2col of samples n0.. (C*K rows, row stride ld), nt threads.
template <class T>
void block_columns(const ConvGeom& g, const T* x, const Block& k, T* col, int64_t ld, int nt) {
  const int64_t rows = g.C * g.k_n(), lt = (k.t1 - k.t0) * g.out[2];
  for (int64_t b = 0; b < k.nb; b++) {
    const T* xn = x + (k.n0 + b) * g.C * g.in_n();
    if (nt <= 1) {
      im2col(g, xn, col + b * lt, ld, 0, rows, k.t0, k.t1);
      continue;
    }
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t r = 0; r < rows; r++) im2col(g, xn, col + b * lt, ld, r, r + 1, k.t0, k.t1);
  }
}

// dst (R, nb * L) = the block's samples of t (N, R, L) side by side
template <class T>
void gather(const T* t, const Block& k, int64_t R, int64_t L, T* dst) {
  for (int64_t b = 0; b < k.nb; b++)
    for (int64_t r = 0; r < R; r++) {
      const T* src = t + ((k.n0 + b) * R + r) * L;
      std::copy(src, src + L, dst + r * k.nb * L + b * L);
    }
}

// ---------------------------------------------------------------- kernels
// x (N, C, *in), w (O, C/G, *k), y (N, O, *out); g describes x.
template <class T>
void conv_kernel(const T* x, const T* w, const T* bias, T* y, int64_t N, const ConvGeom& g,
                 int64_t O, int64_t G) {
  const int64_t L = g.out_n(), CKg = g.C / G * g.k_n(), Og = O / G, rows = g.C * g.k_n();
  const bool direct = g.identity();
  Blocks bl = make_blocks(N, g, rows, sizeof(T), false, N * L * rows * Og);
  const int64_t per = rows * bl.cols + (bl.spb > 1 ? O * bl.cols : 0);
  std::vector<T> scratch(size_t(bl.outer * per));
  for_blocks(bl, N, g.lines(), [&](const Block& k, int slot) {
    const int64_t n = (k.t1 - k.t0) * g.out[2] * k.nb, l0 = k.t0 * g.out[2];
    T* buf = scratch.data() + slot * per;
    const T* col = buf;
    int64_t ld = n;
    if (direct && k.nb == 1) {
      col = x + k.n0 * g.C * L + l0;
      ld = L;
    } else {
      block_columns(g, x, k, buf, n, bl.inner);
    }
    T* out = buf + rows * bl.cols;  // several samples: the GEMM's result, then spread out
    int64_t ldo = n;
    T beta = 0;
    if (k.nb == 1) {
      out = y + k.n0 * O * L + l0;
      ldo = L;
      if (bias) {
        for (int64_t o = 0; o < O; o++) std::fill(out + o * L, out + o * L + n, bias[o]);
        beta = 1;
      }
    }
    for (int64_t i = 0; i < G; i++)
      pgemm(bl.inner, false, false, Og, n, CKg, w + i * Og * CKg, CKg, col + i * CKg * ld, ld, beta,
            out + i * Og * ldo, ldo);
    if (k.nb > 1)
      for (int64_t b = 0; b < k.nb; b++)
        for (int64_t o = 0; o < O; o++) {
          const T* src = out + o * n + b * L;
          T* dst = y + ((k.n0 + b) * O + o) * L;
          T add = bias ? bias[o] : T(0);
          for (int64_t j = 0; j < L; j++) dst[j] = src[j] + add;
        }
  });
}

// x (N, C, *out), w (C, O/G, *k), y (N, O, *in); g describes y (the image col2im writes).
template <class T>
void conv_transpose_kernel(const T* x, const T* w, const T* bias, T* y, int64_t N,
                           const ConvGeom& g, int64_t C, int64_t G) {
  const int64_t L = g.out_n(), O = g.C, Cg = C / G, OKg = O / G * g.k_n(), rows = O * g.k_n();
  const int64_t Y = g.in_n();
  Blocks bl = make_blocks(N, g, rows, sizeof(T), true, N * L * rows * Cg);
  const int64_t per = rows * bl.cols + (bl.spb > 1 ? C * bl.cols : 0);
  std::vector<T> scratch(size_t(bl.outer * per));
  for_blocks(bl, N, g.lines(), [&](const Block& k, int slot) {
    const int64_t n = (k.t1 - k.t0) * g.out[2] * k.nb, l0 = k.t0 * g.out[2];
    T* buf = scratch.data() + slot * per;
    T* yk = y + k.n0 * O * Y;
    if (k.t0 == 0) {  // a sample's first block: y = bias, then the blocks add to it
      if (bias)
        for (int64_t r = 0; r < k.nb * O; r++) std::fill(yk + r * Y, yk + (r + 1) * Y, bias[r % O]);
      else
        std::fill(yk, yk + k.nb * O * Y, T(0));
    }
    const T* xv = x + k.n0 * C * L + l0;
    int64_t ldx = L;
    if (k.nb > 1) {
      gather(x, k, C, L, buf + rows * bl.cols);
      xv = buf + rows * bl.cols;
      ldx = n;
    }
    if (g.identity() && k.nb == 1) {  // y += W^T @ x, no columns
      for (int64_t i = 0; i < G; i++)
        pgemm(bl.inner, true, false, OKg, n, Cg, w + i * Cg * OKg, OKg, xv + i * Cg * L, L, T(1),
              yk + l0 + i * OKg * L, L);
      return;
    }
    for (int64_t i = 0; i < G; i++)
      pgemm(bl.inner, true, false, OKg, n, Cg, w + i * Cg * OKg, OKg, xv + i * Cg * ldx, ldx, T(0),
            buf + i * OKg * n, n);
    for (int64_t b = 0; b < k.nb; b++) {
      const T* col = buf + b * L;
      T* yn = yk + b * O * Y;
      if (bl.inner <= 1) {
        col2im(g, col, n, yn, 0, O, k.t0, k.t1);
        continue;
      }
#pragma omp parallel for num_threads(bl.inner) schedule(static)
      for (int64_t c = 0; c < O; c++) col2im(g, col, n, yn, c, c + 1, k.t0, k.t1);
    }
  });
}

// gw (O, C/G, *k) = sum_n gy[n] @ im2col(x[n])^T; x (N, C, *in), gy (N, O, *out).
template <class T>
void weight_grad_kernel(const T* x, const T* gy, T* gw, int64_t N, const ConvGeom& g, int64_t O,
                        int64_t G) {
  const int64_t L = g.out_n(), CKg = g.C / G * g.k_n(), Og = O / G, rows = g.C * g.k_n();
  const int64_t wn = O * CKg;
  const bool direct = g.identity();
  Blocks bl = make_blocks(N, g, rows, sizeof(T), false, N * L * rows * Og);
  // per thread: columns, the block's gradient rows (several samples), its sum of gw
  const int64_t aux = rows * bl.cols, acc = aux + (bl.spb > 1 ? O * bl.cols : 0), per = acc + wn;
  std::vector<T> scratch(size_t(bl.outer * per));
  for_blocks(bl, N, g.lines(), [&](const Block& k, int slot) {
    const int64_t n = (k.t1 - k.t0) * g.out[2] * k.nb, l0 = k.t0 * g.out[2];
    T* buf = scratch.data() + slot * per;
    const T* col = buf;
    int64_t ld = n;
    if (direct && k.nb == 1) {
      col = x + k.n0 * g.C * L + l0;
      ld = L;
    } else {
      block_columns(g, x, k, buf, n, bl.inner);
    }
    const T* gv = gy + k.n0 * O * L + l0;
    int64_t ldg = L;
    if (k.nb > 1) {
      gather(gy, k, O, L, buf + aux);
      gv = buf + aux;
      ldg = n;
    }
    for (int64_t i = 0; i < G; i++)
      pgemm(bl.inner, false, true, Og, CKg, n, gv + i * Og * ldg, ldg, col + i * CKg * ld, ld, T(1),
            buf + acc + i * Og * CKg, CKg);
  });
  std::copy(scratch.data() + acc, scratch.data() + acc + wn, gw);
  for (int t = 1; t < bl.outer; t++) {
    const T* part = scratch.data() + t * per + acc;
    for (int64_t j = 0; j < wn; j++) gw[j] += part[j];
  }
}

// ---------------------------------------------------------------- stride 1: shifted GEMMs
// Note [Shifted GEMMs]: with stride 1 a convolution needs no im2col. Lay nb samples out
// zero-padded and side by side, (C, nb * P) with P a padded image's size, and give each
// output position the "wide" index of its corner in the padded image: tap t then reads the
// padded image at wide index + shift[t], so that
//   y_wide (O, cols) = sum over taps t of W[:, :, t] (O, C) @ x_pad[:, shift[t] :][:, :cols].
// The transposed convolution scatters the same way (x_pad[:, shift[t]:] += W_t^T @ gy_wide)
// and the weight gradient is gW_t = gy_wide @ x_pad[:, shift[t]:]^T, with gy_wide zero at
// the wide positions that are no output. Columns of those positions are computed and
// dropped: (k - 1) / padded size per dim, e.g. 8% for 3x3 on 26x26 (Note [Shift use]).
struct Shift {
  int64_t P[3] = {1, 1, 1}, st[3] = {1, 1, 1};  // padded sizes, their strides
  int64_t Pn = 1, wide = 0;                     // padded image size; wide span of a sample
  std::vector<int64_t> shift;                   // per tap, kernel order
  int64_t nb = 1, blocks = 1;                   // samples per block, blocks
  int64_t ld() const { return nb * Pn; }
  int64_t cols(int64_t n) const { return (n - 1) * Pn + wide; }  // n samples' wide span
};

// Note [Shift use]: stride 1, the output exactly the padded input less the dilated kernel,
// GEMMs at least this deep (thin ones run far below BLAS speed; im2col keeps them deep), and
// at most a third of the columns wasted.
constexpr int64_t kShiftDepth = 16;

bool shift_fits(const ConvGeom& g, int64_t depth) {
  if (g.k_n() == 1 || depth < kShiftDepth) return false;
  int64_t padded = 1;
  for (int i = 0; i < 3; i++) {
    if (g.s[i] != 1 || g.out[i] != g.in[i] + 2 * g.p[i] - g.d[i] * (g.k[i] - 1)) return false;
    padded *= g.in[i] + 2 * g.p[i];
  }
  return 2 * padded <= 3 * g.out_n();
}

// channels: both sides' (image and columns) together, sizing a block's buffers
Shift make_shift(const ConvGeom& g, int64_t N, int64_t channels, size_t item) {
  Shift sh;
  for (int i = 0; i < 3; i++) sh.P[i] = g.in[i] + 2 * g.p[i];
  sh.st[2] = 1, sh.st[1] = sh.P[2], sh.st[0] = sh.P[1] * sh.P[2];
  sh.Pn = sh.P[0] * sh.st[0];
  sh.wide = (g.out[0] - 1) * sh.st[0] + (g.out[1] - 1) * sh.st[1] + g.out[2];
  for (int64_t a = 0; a < g.k[0]; a++)
    for (int64_t b = 0; b < g.k[1]; b++)
      for (int64_t c = 0; c < g.k[2]; c++)
        sh.shift.push_back(a * g.d[0] * sh.st[0] + b * g.d[1] * sh.st[1] + c * g.d[2]);
  const int nt = get_num_threads();
  int64_t fit = kColBytes / std::max<int64_t>(channels * sh.Pn * int64_t(item), 1);
  sh.nb = std::max<int64_t>(1, std::min(fit, ceil_div(N, nt)));
  sh.blocks = ceil_div(N, sh.nb);
  return sh;
}

// f(n0, nb, slot) per block of samples; threads across blocks when there are enough (BLAS
// single-threaded, like for_blocks), else inside each block's GEMMs (inner = threads).
template <class F>
void for_shift_blocks(const Shift& sh, int64_t N, int64_t work, const F& f) {
  const int nt = work >= kGrain ? get_num_threads() : 1;
  const int outer = sh.blocks >= nt ? nt : 1, inner = outer > 1 ? 1 : nt;
  int blas_threads = scipy_openblas_get_num_threads();
  scipy_openblas_set_num_threads(1);
#pragma omp parallel for num_threads(outer) schedule(static) if (outer > 1)
  for (int64_t i = 0; i < sh.blocks; i++)
    f(i * sh.nb, std::min(sh.nb, N - i * sh.nb), outer > 1 ? omp_get_thread_num() : 0, inner);
  scipy_openblas_set_num_threads(blas_threads);
}

// Calls f(image_offset, wide_offset, length) for each line (z, y) of one channel's image of
// sizes n[] placed at offset p[] of the padded layout (lines of n[2] elements).
template <class F>
void for_placed_lines(const int64_t* n, const int64_t* p, const Shift& sh, const F& f) {
  for (int64_t z = 0; z < n[0]; z++)
    for (int64_t y = 0; y < n[1]; y++)
      f((z * n[1] + y) * n[2], (z + p[0]) * sh.st[0] + (y + p[1]) * sh.st[1] + p[2], n[2]);
}

// dst (C, ld) = samples [n0, n0 + nb) of src (N, C, *n) placed at offset p, zeros around
template <class T>
void to_wide(const T* src, int64_t n0, int64_t nb, int64_t C, const int64_t* n, const int64_t* p,
             const Shift& sh, T* dst) {
  const int64_t plane = n[0] * n[1] * n[2], ld = sh.ld();
  std::fill(dst, dst + C * ld, T(0));
  for (int64_t s = 0; s < nb; s++)
    for (int64_t c = 0; c < C; c++) {
      const T* in = src + ((n0 + s) * C + c) * plane;
      T* out = dst + c * ld + s * sh.Pn;
      for_placed_lines(n, p, sh, [&](int64_t i, int64_t w, int64_t len) {
        std::copy(in + i, in + i + len, out + w);
      });
    }
}

// samples [n0, n0 + nb) of dst (N, C, *n) = src (C, ld) read at offset p (+ bias[c])
template <class T>
void from_wide(const T* src, int64_t n0, int64_t nb, int64_t C, const int64_t* n, const int64_t* p,
               const Shift& sh, const T* bias, T* dst) {
  const int64_t plane = n[0] * n[1] * n[2], ld = sh.ld();
  for (int64_t s = 0; s < nb; s++)
    for (int64_t c = 0; c < C; c++) {
      const T* in = src + c * ld + s * sh.Pn;
      T* out = dst + ((n0 + s) * C + c) * plane;
      const T add = bias ? bias[c] : T(0);
      for_placed_lines(n, p, sh, [&](int64_t i, int64_t w, int64_t len) {
        for (int64_t j = 0; j < len; j++) out[i + j] = in[w + j] + add;
      });
    }
}

// w (A, B, K) -> (K, A, B): one (A, B) matrix per tap
template <class T>
std::vector<T> taps_first(const T* w, int64_t A, int64_t B, int64_t K) {
  std::vector<T> t(size_t(A * B * K));
  for (int64_t i = 0; i < A * B; i++)
    for (int64_t k = 0; k < K; k++) t[size_t(k * A * B + i)] = w[i * K + k];
  return t;
}

const int64_t kNoPad[3] = {0, 0, 0};

// conv, stride 1: x (N, C, *in), w (O, C/G, *k), y (N, O, *out); g describes x.
template <class T>
void shift_conv(const T* x, const T* w, const T* bias, T* y, int64_t N, const ConvGeom& g,
                int64_t O, int64_t G) {
  const int64_t C = g.C, Cg = C / G, Og = O / G, K = g.k_n();
  const Shift sh = make_shift(g, N, C + O, sizeof(T));
  const std::vector<T> wt = taps_first(w, O, Cg, K);
  const int64_t ld = sh.ld(), per = (C + O) * ld;
  std::vector<T> scratch(size_t(std::min<int64_t>(sh.blocks, get_num_threads()) * per));
  for_shift_blocks(
      sh, N, N * O * g.out_n() * Cg * K, [&](int64_t n0, int64_t nb, int slot, int nt) {
        T *xp = scratch.data() + slot * per, *yw = xp + C * ld;
        to_wide(x, n0, nb, C, g.in, g.p, sh, xp);
        const int64_t cols = sh.cols(nb);
        for (int64_t i = 0; i < G; i++)
          for (int64_t t = 0; t < K; t++)
            pgemm(nt, false, false, Og, cols, Cg, wt.data() + (t * O + i * Og) * Cg, Cg,
                  xp + i * Cg * ld + sh.shift[size_t(t)], ld, T(t > 0), yw + i * Og * ld, ld);
        from_wide(yw, n0, nb, O, g.out, kNoPad, sh, bias, y);
      });
}

// conv_transpose, stride 1: x (N, C, *out), w (C, O/G, *k), y (N, O, *in); g describes y.
template <class T>
void shift_conv_transpose(const T* x, const T* w, const T* bias, T* y, int64_t N, const ConvGeom& g,
                          int64_t C, int64_t G) {
  const int64_t O = g.C, Cg = C / G, Og = O / G, K = g.k_n();
  const Shift sh = make_shift(g, N, C + O, sizeof(T));
  const std::vector<T> wt = taps_first(w, C, Og, K);
  const int64_t ld = sh.ld(), per = (C + O) * ld;
  std::vector<T> scratch(size_t(std::min<int64_t>(sh.blocks, get_num_threads()) * per));
  for_shift_blocks(
      sh, N, N * O * g.out_n() * Cg * K, [&](int64_t n0, int64_t nb, int slot, int nt) {
        T *xw = scratch.data() + slot * per, *yp = xw + C * ld;
        to_wide(x, n0, nb, C, g.out, kNoPad, sh, xw);
        std::fill(yp, yp + O * ld, T(0));
        const int64_t cols = sh.cols(nb);
        for (int64_t i = 0; i < G; i++)
          for (int64_t t = 0; t < K; t++)
            pgemm(nt, true, false, Og, cols, Cg, wt.data() + (t * C + i * Cg) * Og, Og,
                  xw + i * Cg * ld, ld, T(1), yp + i * Og * ld + sh.shift[size_t(t)], ld);
        from_wide(yp, n0, nb, O, g.in, g.p, sh, bias, y);
      });
}

// weight grad, stride 1: x (N, C, *in), gy (N, O, *out), gw (O, C/G, *k); g describes x.
template <class T>
void shift_weight_grad(const T* x, const T* gy, T* gw, int64_t N, const ConvGeom& g, int64_t O,
                       int64_t G) {
  const int64_t C = g.C, Cg = C / G, Og = O / G, K = g.k_n(), wn = O * Cg * K;
  const Shift sh = make_shift(g, N, C + O, sizeof(T));
  const int64_t ld = sh.ld(), per = (C + O) * ld + wn;
  const int64_t slots = std::min<int64_t>(sh.blocks, get_num_threads());
  std::vector<T> scratch(size_t(slots * per));  // zeros: the accumulators start at 0
  for_shift_blocks(sh, N, N * O * g.out_n() * Cg * K,
                   [&](int64_t n0, int64_t nb, int slot, int nt) {
                     T *xp = scratch.data() + slot * per, *gw_ = xp + C * ld, *acc = gw_ + O * ld;
                     to_wide(x, n0, nb, C, g.in, g.p, sh, xp);
                     to_wide(gy, n0, nb, O, g.out, kNoPad, sh, gw_);
                     const int64_t cols = sh.cols(nb);
                     for (int64_t i = 0; i < G; i++)
                       for (int64_t t = 0; t < K; t++)
                         pgemm(nt, false, true, Og, Cg, cols, gw_ + i * Og * ld, ld,
                               xp + i * Cg * ld + sh.shift[size_t(t)], ld, T(1),
                               acc + (t * O + i * Og) * Cg, Cg);
                   });
  for (int64_t s = 1; s < slots; s++)
    for (int64_t j = 0; j < wn; j++)
      scratch[size_t((C + O) * ld + j)] += scratch[size_t(s * per + (C + O) * ld + j)];
  const T* acc = scratch.data() + (C + O) * ld;  // (K, O, Cg) -> (O, Cg, K)
  for (int64_t i = 0; i < O * Cg; i++)
    for (int64_t t = 0; t < K; t++) gw[i * K + t] = acc[t * O * Cg + i];
}

// ---------------------------------------------------------------- direct kernels
// For groups whose GEMMs would be thin (depthwise convolutions: one channel in and out per
// group), the same sums without columns: each output channel accumulates its inputs' lines,
// weighted, across threads by (sample, channel).
constexpr int64_t kThin = 2;  // channels per group up to which the direct kernels run

int threads_for(int64_t work) { return work >= kGrain ? get_num_threads() : 1; }

// conv: x (N, C, *in), w (O, C/G, *k), y (N, O, *out); g describes x.
template <class T>
void conv_direct(const T* x, const T* w, const T* bias, T* y, int64_t N, const ConvGeom& g,
                 int64_t O, int64_t G) {
  const int64_t L = g.out_n(), K = g.k_n(), Cg = g.C / G, Og = O / G, s = g.s[2];
#pragma omp parallel for num_threads(threads_for(N * O * L * Cg * K)) schedule(static)
  for (int64_t i = 0; i < N * O; i++) {
    const int64_t o = i % O, r0 = o / Og * Cg * K;
    const T *xn = x + i / O * g.C * g.in_n(), *wo = w + o * Cg * K - r0;
    T* yo = y + i * L;
    std::fill(yo, yo + L, bias ? bias[o] : T(0));
    for_lines(g, r0, r0 + Cg * K, 0, g.lines(),
              [&](int64_t r, int64_t rel, int64_t src, int64_t off, int64_t lo, int64_t hi) {
                if (src < 0) return;
                const T wv = wo[r], *row = xn + src;
                T* dst = yo + rel;
                if (s == 1)
                  for (int64_t j = lo; j < hi; j++) dst[j] += wv * row[j + off];
                else
                  for (int64_t j = lo; j < hi; j++) dst[j] += wv * row[j * s + off];
              });
  }
}

// conv_transpose: x (N, C, *out), w (C, O/G, *k), y (N, O, *in); g describes y.
template <class T>
void conv_transpose_direct(const T* x, const T* w, const T* bias, T* y, int64_t N,
                           const ConvGeom& g, int64_t C, int64_t G) {
  const int64_t L = g.out_n(), K = g.k_n(), O = g.C, Cg = C / G, Og = O / G, Y = g.in_n();
  const int64_t s = g.s[2];
#pragma omp parallel for num_threads(threads_for(N * O * L * Cg * K)) schedule(static)
  for (int64_t i = 0; i < N * O; i++) {
    const int64_t n = i / O, o = i % O;
    T* yo = y + i * Y - o * Y;  // for_lines' offsets count from channel 0
    std::fill(yo + o * Y, yo + (o + 1) * Y, bias ? bias[o] : T(0));
    for (int64_t c = o / Og * Cg; c < (o / Og + 1) * Cg; c++) {
      const T *xc = x + (n * C + c) * L, *wc = w + (c * Og + o % Og) * K - o * K;
      for_lines(g, o * K, (o + 1) * K, 0, g.lines(),
                [&](int64_t r, int64_t rel, int64_t dst, int64_t off, int64_t lo, int64_t hi) {
                  if (dst < 0) return;
                  const T wv = wc[r], *src = xc + rel;
                  T* row = yo + dst;
                  if (s == 1)
                    for (int64_t j = lo; j < hi; j++) row[j + off] += wv * src[j];
                  else
                    for (int64_t j = lo; j < hi; j++) row[j * s + off] += wv * src[j];
                });
    }
  }
}

// weight grad: x (N, C, *in), gy (N, O, *out), gw (O, C/G, *k); g describes x. One weight
// per iteration (its sum runs over the batch).
template <class T>
void weight_grad_direct(const T* x, const T* gy, T* gw, int64_t N, const ConvGeom& g, int64_t O,
                        int64_t G) {
  const int64_t L = g.out_n(), CKg = g.C / G * g.k_n(), Og = O / G, s = g.s[2];
#pragma omp parallel for num_threads(threads_for(N * O * L * CKg)) schedule(static)
  for (int64_t i = 0; i < O * CKg; i++) {
    const int64_t o = i / CKg, r = o / Og * CKg + i % CKg;
    T sum = 0;
    for (int64_t n = 0; n < N; n++) {
      const T *xn = x + n * g.C * g.in_n(), *gyo = gy + (n * O + o) * L;
      for_lines(g, r, r + 1, 0, g.lines(),
                [&](int64_t, int64_t rel, int64_t src, int64_t off, int64_t lo, int64_t hi) {
                  if (src < 0) return;
                  const T *row = xn + src, *gl = gyo + rel;
                  if (s == 1) {
#pragma omp simd reduction(+ : sum)
                    for (int64_t j = lo; j < hi; j++) sum += gl[j] * row[j + off];
                  } else {
                    for (int64_t j = lo; j < hi; j++) sum += gl[j] * row[j * s + off];
                  }
                });
    }
    gw[i] = sum;
  }
}

// unfold: col (N, C*K, L) = im2col(x[n]); fold: y (N, C, *in) = col2im(col[n])
template <class T>
void im2col_kernel(const T* x, T* col, int64_t N, const ConvGeom& g) {
  const int64_t K = g.k_n(), L = g.out_n();
  int nt = N * g.C * K * L >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < N * g.C; i++) {
    int64_t n = i / g.C, c = i % g.C;
    im2col(g, x + n * g.C * g.in_n(), col + n * g.C * K * L, L, c * K, (c + 1) * K, 0, g.lines());
  }
}

template <class T>
void col2im_kernel(const T* col, T* y, int64_t N, const ConvGeom& g) {
  const int64_t K = g.k_n(), L = g.out_n();
  std::fill(y, y + N * g.C * g.in_n(), T(0));
  int nt = N * g.C * K * L >= kGrain ? get_num_threads() : 1;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < N * g.C; i++) {
    int64_t n = i / g.C, c = i % g.C;
    col2im(g, col + n * g.C * K * L, L, y + n * g.C * g.in_n(), c, c + 1, 0, g.lines());
  }
}

// ---------------------------------------------------------------- the registered kernels
// Each picks the CPU algorithm: direct loops for thin groups (depthwise), shifted GEMMs
// where the image fits (Note [Blocks]), im2col/col2im GEMMs otherwise.
template <class T>
void conv_cpu(const ConvPlan& c, const Tensor& xt, const Tensor& wt, const Tensor& bt,
              const Tensor& yt) {
  const T *x = xt.data_as<T>(), *w = wt.data_as<T>(), *b = bt.defined() ? bt.data_as<T>() : nullptr;
  T* y = yt.data_as<T>();
  const ConvGeom& g = c.g;
  if constexpr (std::is_same_v<T, float>)
    if (onednn_conv(c, int(xt.dim()) - 2, x, w, b, y)) return;
  if (c.transposed && c.C / c.groups <= kThin)
    conv_transpose_direct<T>(x, w, b, y, c.N, g, c.C, c.groups);
  else if (c.transposed && shift_fits(g, c.C / c.groups))
    shift_conv_transpose<T>(x, w, b, y, c.N, g, c.C, c.groups);
  else if (c.transposed)
    conv_transpose_kernel<T>(x, w, b, y, c.N, g, c.C, c.groups);
  else if (c.O / c.groups <= kThin)
    conv_direct<T>(x, w, b, y, c.N, g, c.O, c.groups);
  else if (shift_fits(g, c.C / c.groups))
    shift_conv<T>(x, w, b, y, c.N, g, c.O, c.groups);
  else
    conv_kernel<T>(x, w, b, y, c.N, g, c.O, c.groups);
}

template <class T>
void conv_weight_grad_cpu(const ConvPlan& c, const Tensor& xt, const Tensor& gyt,
                          const Tensor& gwt) {
  const T *x = xt.data_as<T>(), *gy = gyt.data_as<T>();
  T* gw = gwt.data_as<T>();
  if constexpr (std::is_same_v<T, float>)
    if (onednn_conv_weight_grad(c, int(xt.dim()) - 2, x, gy, gw)) return;
  if (c.O / c.groups <= kThin)
    weight_grad_direct<T>(x, gy, gw, c.N, c.g, c.O, c.groups);
  else if (shift_fits(c.g, c.C / c.groups))
    shift_weight_grad<T>(x, gy, gw, c.N, c.g, c.O, c.groups);
  else
    weight_grad_kernel<T>(x, gy, gw, c.N, c.g, c.O, c.groups);
}

template <class T>
void im2col_cpu(const ConvGeom& g, int64_t N, const Tensor& x, const Tensor& col) {
  im2col_kernel<T>(x.data_as<T>(), col.data_as<T>(), N, g);
}

template <class T>
void col2im_cpu(const ConvGeom& g, int64_t N, const Tensor& col, const Tensor& y) {
  col2im_kernel<T>(col.data_as<T>(), y.data_as<T>(), N, g);
}

// ---------------------------------------------------------------- checks
std::string list_str(const int64_t* v, size_t n, const char* sep = ", ") {
  std::string s;
  for (size_t i = 0; i < n; i++) s += (i ? sep : "") + std::to_string(v[i]);
  return s;
}
std::string dims(const Shape& s) { return "[" + list_str(s.data(), s.size()) + "]"; }
std::string tup(const Shape& s) { return "(" + list_str(s.data(), s.size()) + ")"; }

void check_float(const std::string& op, const char* what, const Tensor& t) {
  ScalarType dt = t.dtype();
  // CUDA (cuDNN, cudnn.cpp) also takes the 16-bit floats
  bool half =
      t.device().type == DeviceType::CUDA && (dt == ScalarType::Half || dt == ScalarType::BFloat16);
  TC_CHECK(dt == ScalarType::Float || dt == ScalarType::Double || half, Type, op,
           ": only float32 and float64 are supported, but ", what, " has dtype ", dtype_name(dt));
}

void check_same_dtype(const std::string& op, const char* what, const Tensor& t, const Tensor& x) {
  TC_CHECK(t.dtype() == x.dtype(), Type, op, ": ", what, " (", dtype_name(t.dtype()),
           ") and input (", dtype_name(x.dtype()), ") must have the same dtype");
}

void check_param(const std::string& op, const char* name, const Shape& v, int64_t nd, int64_t min) {
  TC_CHECK(int64_t(v.size()) == nd, Runtime, op, ": expected ", name, " to have ", nd,
           " values, one per spatial dim, but got ", name, "=", dims(v));
  for (int64_t e : v)
    TC_CHECK(e >= min, Runtime, op, ": ", name, " must be ", min == 0 ? "non-negative" : "positive",
             ", but got ", name, "=", dims(v));
}

void check_blas_size(const std::string& op, std::initializer_list<int64_t> sizes) {
  for (int64_t s : sizes)
    TC_CHECK(s < (int64_t(1) << 31), NotImplemented, op,
             ": a matrix dimension of 2^31 or more is not supported");
}

std::string op_name(bool transposed, int64_t nd) {
  return cat_str(transposed ? "conv_transpose" : "conv", nd, "d");
}

int64_t spatial_nd(const std::string& op, const Tensor& w) {
  TC_CHECK(w.dim() >= 3 && w.dim() <= 5, Runtime, op,
           ": expected a weight with 3, 4 or 5 dims (1 to 3 spatial dims), but got weight of size ",
           dims(w.sizes()));
  return w.dim() - 2;
}

}  // namespace

void register_conv_kernels() {
  reg_each<float, double>(Op::conv, TC_KERNEL(conv_cpu));
  reg_each<float, double>(Op::conv_weight_grad, TC_KERNEL(conv_weight_grad_cpu));
  reg_each<float, double>(Op::im2col, TC_KERNEL(im2col_cpu));
  reg_each<float, double>(Op::col2im, TC_KERNEL(col2im_cpu));
}

// ---------------------------------------------------------------- front ends
Tensor conv(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride,
            const Shape& padding, const Shape& dilation, int64_t groups, bool transposed,
            const Shape& output_padding) {
  int64_t nd = spatial_nd(transposed ? "conv_transpose" : "conv", weight);
  std::string op = op_name(transposed, nd);
  check_float(op, "input", input);
  check_float(op, "weight", weight);
  check_same_dtype(op, "weight", weight, input);
  check_same_device(input, weight, op.c_str());  // a kernel reads all of them on x's device
  if (bias.defined()) check_same_device(input, bias, op.c_str());
  TC_CHECK(input.dim() == nd + 2, Runtime, op, ": expected a ", nd + 2,
           "-D (batched) input for a weight of size ", dims(weight.sizes()),
           ", but got input of size ", dims(input.sizes()));
  check_param(op, "stride", stride, nd, 1);
  check_param(op, "padding", padding, nd, 0);
  check_param(op, "dilation", dilation, nd, 1);
  TC_CHECK(groups > 0, Runtime, op, ": groups must be positive, but got groups=", groups);
  const int64_t N = input.size(0), C = input.size(1);
  // channels: conv reads C = weight[1] * groups and writes O = weight[0];
  // conv_transpose reads C = weight[0] and writes O = weight[1] * groups
  int64_t w_in = transposed ? weight.size(0) : weight.size(1) * groups;
  int64_t O = transposed ? weight.size(1) * groups : weight.size(0);
  int64_t split = transposed ? w_in : O;  // the weight's dim 0 holds the groups
  TC_CHECK(weight.size(0) > 0, Runtime, op, ": weight of size ", dims(weight.sizes()), " has no ",
           transposed ? "input" : "output", " channels");
  for (int64_t i = 2; i < weight.dim(); i++)
    TC_CHECK(weight.size(i) > 0, Runtime, op, ": weight of size ", dims(weight.sizes()),
             " has an empty kernel");
  TC_CHECK(split % groups == 0, Runtime, op, ": groups=", groups,
           " must divide the weight's dim 0, but got weight of size ", dims(weight.sizes()));
  TC_CHECK(C == w_in, Runtime, op, ": expected input of size ", dims(input.sizes()), " to have ",
           w_in, " channels (weight of size ", dims(weight.sizes()), ", groups=", groups,
           "), but got ", C, " channels");
  if (bias.defined()) {
    check_float(op, "bias", bias);
    check_same_dtype(op, "bias", bias, input);
    TC_CHECK(bias.dim() == 1 && bias.size(0) == O, Runtime, op, ": expected bias of size [", O,
             "] for a weight of size ", dims(weight.sizes()), ", but got bias of size ",
             dims(bias.sizes()));
  }
  Shape in_sp(input.sizes().begin() + 2, input.sizes().end()),
      k_sp(weight.sizes().begin() + 2, weight.sizes().end()), out_sp(size_t(nd), 0);
  if (N > 0 && C > 0)
    for (int64_t s : in_sp)
      TC_CHECK(s > 0, Runtime, op,
               ": the spatial dims of the input must be non-empty, but got input of size ",
               dims(input.sizes()));
  if (transposed) {
    check_param(op, "output_padding", output_padding, nd, 0);
    for (int64_t i = 0; i < nd; i++)
      TC_CHECK(output_padding[i] < stride[i] || output_padding[i] < dilation[i], Runtime, op,
               ": output_padding must be smaller than stride or dilation, but got output_padding=",
               dims(output_padding), ", stride=", dims(stride), ", dilation=", dims(dilation));
    for (int64_t i = 0; i < nd; i++) {
      __int128 out = __int128(in_sp[i] - 1) * stride[i] - __int128(2) * padding[i] +
                     __int128(dilation[i]) * (k_sp[i] - 1) + output_padding[i] + 1;
      TC_CHECK(out <= INT64_MAX, Runtime, op, ": the output size overflows int64 (input of size ",
               dims(input.sizes()), ", stride=", dims(stride), ", dilation=", dims(dilation), ")");
      out_sp[i] = int64_t(out);
    }
    for (int64_t i = 0; i < nd; i++)
      TC_CHECK(out_sp[i] > 0, Runtime, op, ": the output size ", tup(out_sp),
               " is too small (input of size ", dims(input.sizes()), ", weight of size ",
               dims(weight.sizes()), ", stride=", dims(stride), ", padding=", dims(padding),
               ", dilation=", dims(dilation), ", output_padding=", dims(output_padding), ")");
  } else {
    Shape padded = in_sp, eff = k_sp;
    for (int64_t i = 0; i < nd; i++) {
      __int128 p = __int128(in_sp[i]) + __int128(2) * padding[i];
      __int128 e = __int128(dilation[i]) * (k_sp[i] - 1) + 1;
      TC_CHECK(p <= INT64_MAX && e <= INT64_MAX, Runtime, op,
               ": the padded input or dilated kernel size overflows int64 (input of size ",
               dims(input.sizes()), ", padding=", dims(padding), ", dilation=", dims(dilation),
               ")");
      padded[i] = int64_t(p);
      eff[i] = int64_t(e);
    }
    for (int64_t i = 0; i < nd; i++)
      TC_CHECK(padded[i] >= eff[i], Runtime, op, ": the padded input size per channel ",
               tup(padded), " is smaller than the (dilated) kernel size ", tup(eff),
               " (input of size ", dims(input.sizes()), ", weight of size ", dims(weight.sizes()),
               ")");
    for (int64_t i = 0; i < nd; i++) out_sp[i] = (padded[i] - eff[i]) / stride[i] + 1;
  }
  Shape out_shape{N, O};
  for (int64_t s : out_sp) out_shape.push_back(s);
  Tensor y = empty(out_shape, input.dtype(), input.device());
  if (y.numel() == 0) return y;
  Tensor x = contiguous(input), w = contiguous(weight),
         b = bias.defined() ? contiguous(bias) : Tensor();
  // g: the image im2col reads (conv) or col2im writes (conv_transpose)
  ConvGeom g = transposed
                   ? make_geom(O, out_sp.data(), in_sp.data(), k_sp, stride, padding, dilation)
                   : make_geom(C, in_sp.data(), out_sp.data(), k_sp, stride, padding, dilation);
  check_blas_size(op, {g.C * g.k_n(), g.out_n(), O, C});
  ConvPlan plan{g, N, C, O, groups, transposed};
  find_kernel<ConvFn>(Op::conv, x.device(), x.dtype())(plan, x, w, b, y);
  return y;
}

Tensor conv_weight_grad(const Tensor& input, const Tensor& grad, const Shape& weight_size,
                        const Shape& stride, const Shape& padding, const Shape& dilation,
                        int64_t groups) {
  const std::string op = "conv_weight_grad";
  TC_CHECK(weight_size.size() >= 3 && weight_size.size() <= 5, Runtime, op,
           ": expected a weight size with 3, 4 or 5 dims, got ", dims(weight_size));
  int64_t nd = int64_t(weight_size.size()) - 2;
  check_float(op, "input", input);
  check_float(op, "grad", grad);
  check_same_dtype(op, "grad", grad, input);
  check_same_device(input, grad, op.c_str());
  TC_CHECK(input.dim() == nd + 2 && grad.dim() == nd + 2, Runtime, op, ": expected ", nd + 2,
           "-D input and grad for a weight of size ", dims(weight_size), ", but got input of size ",
           dims(input.sizes()), " and grad of size ", dims(grad.sizes()));
  check_param(op, "stride", stride, nd, 1);
  check_param(op, "padding", padding, nd, 0);
  check_param(op, "dilation", dilation, nd, 1);
  for (int64_t s : weight_size)
    TC_CHECK(s >= 0, Runtime, op, ": invalid weight size ", dims(weight_size));
  TC_CHECK(groups > 0 && weight_size[0] % groups == 0, Runtime, op, ": groups=", groups,
           " must be positive and divide the weight's dim 0 (weight size ", dims(weight_size), ")");
  const int64_t N = input.size(0), C = input.size(1), O = weight_size[0];
  TC_CHECK(grad.size(0) == N && grad.size(1) == O && C == weight_size[1] * groups, Runtime, op,
           ": input of size ", dims(input.sizes()), " and grad of size ", dims(grad.sizes()),
           " do not fit a weight of size ", dims(weight_size), " with groups=", groups);
  Shape in_sp(input.sizes().begin() + 2, input.sizes().end()),
      out_sp(grad.sizes().begin() + 2, grad.sizes().end()),
      k_sp(weight_size.begin() + 2, weight_size.end());
  Tensor gw = empty(weight_size, input.dtype(), input.device());
  if (gw.numel() == 0) return gw;
  if (N == 0 || grad.numel() == 0 || input.numel() == 0) {
    fill_(gw, Scalar::from_int(0));
    return gw;
  }
  Tensor x = contiguous(input), gy = contiguous(grad);
  ConvGeom g = make_geom(C, in_sp.data(), out_sp.data(), k_sp, stride, padding, dilation);
  check_blas_size(op, {g.C * g.k_n(), g.out_n(), O});
  ConvPlan plan{g, N, C, O, groups, false};
  find_kernel<ConvWeightGradFn>(Op::conv_weight_grad, x.device(), x.dtype())(plan, x, gy, gw);
  return gw;
}

// The blocks' grid of unfold/fold: one count per spatial dim, each at least 1.
static Shape blocks_of(const std::string& op, const Shape& in_sp, const Shape& k, const Shape& d,
                       const Shape& p, const Shape& s) {
  Shape b(in_sp.size(), 0);
  bool ok = true;
  for (size_t i = 0; i < in_sp.size(); i++) {
    // 128-bit: sizes, paddings and dilations up to int64's range cannot overflow
    __int128 span = __int128(in_sp[i]) + __int128(2) * p[i] - __int128(d[i]) * (k[i] - 1) - 1;
    __int128 n = span < 0 ? -((-span + s[i] - 1) / s[i]) + 1 : span / s[i] + 1;  // floor div
    ok = ok && n >= 1 && n <= INT64_MAX;
    b[i] = int64_t(std::clamp<__int128>(n, INT64_MIN, INT64_MAX));
  }
  TC_CHECK(ok, Runtime, op, ": for spatial size ", tup(in_sp), ", kernel_size=", tup(k),
           ", dilation=", tup(d), ", padding=", tup(p), ", stride=", tup(s),
           " the grid of sliding blocks would be ", tup(b), ", but each count must be at least 1");
  return b;
}

static void check_fold_params(const std::string& op, int64_t nd, const Shape& k, const Shape& d,
                              const Shape& p, const Shape& s) {
  TC_CHECK(nd >= 1 && nd <= 3, Runtime, op, ": expected 1 to 3 spatial dims, got ", nd);
  check_param(op, "kernel_size", k, nd, 1);
  check_param(op, "dilation", d, nd, 1);
  check_param(op, "padding", p, nd, 0);
  check_param(op, "stride", s, nd, 1);
}

Tensor im2col(const Tensor& input, const Shape& kernel, const Shape& dilation, const Shape& padding,
              const Shape& stride) {
  const std::string op = "unfold";
  int64_t nd = int64_t(kernel.size());
  check_fold_params(op, nd, kernel, dilation, padding, stride);
  check_float(op, "input", input);
  TC_CHECK(input.dim() == nd + 2, Runtime, op, ": expected a ", nd + 2,
           "-D (batched) input for a kernel_size with ", nd, " values, but got input of size ",
           dims(input.sizes()));
  const int64_t N = input.size(0), C = input.size(1);
  Shape in_sp(input.sizes().begin() + 2, input.sizes().end());
  Shape b = blocks_of(op, in_sp, kernel, dilation, padding, stride);
  safe_numel({N, C, safe_numel(kernel, op.c_str()), safe_numel(b, op.c_str())}, op.c_str());
  ConvGeom g = make_geom(C, in_sp.data(), b.data(), kernel, stride, padding, dilation);
  Tensor col = empty({N, C * g.k_n(), g.out_n()}, input.dtype(), input.device());
  if (col.numel() == 0) return col;
  Tensor x = contiguous(input);
  find_kernel<Im2colFn>(Op::im2col, x.device(), x.dtype())(g, N, x, col);
  return col;
}

Tensor col2im(const Tensor& input, const Shape& output_size, const Shape& kernel,
              const Shape& dilation, const Shape& padding, const Shape& stride) {
  const std::string op = "fold";
  int64_t nd = int64_t(kernel.size());
  check_fold_params(op, nd, kernel, dilation, padding, stride);
  check_param(op, "output_size", output_size, nd, 1);
  check_float(op, "input", input);
  TC_CHECK(input.dim() == 3, Runtime, op, ": expected a 3-D (batched) input, got input of size ",
           dims(input.sizes()));
  int64_t K = safe_numel(kernel, op.c_str());  // each >= 1, so K >= 1: no division by zero
  TC_CHECK(input.size(1) % K == 0, Runtime, op, ": expected input.size(1)=", input.size(1),
           " to be divisible by the product of kernel_size ", tup(kernel), " (", K, ")");
  Shape b = blocks_of(op, output_size, kernel, dilation, padding, stride);
  int64_t L = safe_numel(b, op.c_str());
  TC_CHECK(input.size(2) == L, Runtime, op, ": for output_size=", tup(output_size),
           ", kernel_size=", tup(kernel), ", dilation=", tup(dilation), ", padding=", tup(padding),
           ", stride=", tup(stride), " there are ", list_str(b.data(), b.size(), " * "), " = ", L,
           " sliding blocks, but input.size(2)=", input.size(2));
  const int64_t N = input.size(0), C = input.size(1) / K;
  Shape out_shape{N, C};
  for (int64_t s : output_size) out_shape.push_back(s);
  Tensor y = empty(out_shape, input.dtype(), input.device());
  if (y.numel() == 0) return y;
  Tensor col = contiguous(input);
  ConvGeom g = make_geom(C, output_size.data(), b.data(), kernel, stride, padding, dilation);
  find_kernel<Col2imFn>(Op::col2im, col.device(), col.dtype())(g, N, col, y);
  return y;
}

}  // namespace tc
