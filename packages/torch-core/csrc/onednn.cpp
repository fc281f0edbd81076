// onednn.cpp — float32 convolutions through oneDNN where its optional wheel is installed.
//
// Note [oneDNN]: for a CNN's convolutions oneDNN's JIT kernels (blocked channel layouts,
// AVX-512 register tiling) run about 2x faster than im2col + GEMM here (ResNet-18's 3x3
// layers: docs/development.rst). Where the `onednn-cpu-gomp` wheel is installed, torch loads
// its libdnnl at import (torch/backends/mkldnn.py); the conv kernels in conv.cpp then offer
// each float32 convolution to onednn_conv / onednn_conv_weight_grad first and run their own
// code when these return false (not loaded, switched off with torch.backends.mkldnn.enabled,
// or a geometry oneDNN refuses). That build of oneDNN runs on GNU OpenMP, the libgomp our
// kernels use, so one thread pool serves both.
//
// Each call reorders the plain (N, C, *spatial) tensors into the layouts the chosen kernel
// wants and back; the primitives and reorders of a geometry are built once and cached. The
// few C functions used are declared here by hand from oneDNN's v3 C API: the build needs no
// oneDNN.
#include <dlfcn.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "iter.h"  // get_num_threads
#include "nn_kernels.h"

namespace tc {

namespace {

// ---------------------------------------------------------------- the C API (oneDNN v3)
using Handle = void*;  // engine, stream, memory desc, primitive desc, primitive, memory
using Dims = int64_t[12];
struct ExecArg {
  int arg;
  Handle memory;
};
constexpr int kCpu = 1, kF32 = 3, kAnyFormat = 1, kInOrder = 1, kDirect = 1;
constexpr int kForwardTraining = 64, kBackwardData = 160, kBackwardWeights = 192;
constexpr int kQuerySrc = 129, kQueryDiffSrc = 130, kQueryWeights = 131, kQueryDiffWeights = 132,
              kQueryDst = 133, kQueryDiffDst = 134;
constexpr int kArgSrc = 1, kArgDst = 17, kArgWeights = 33, kArgBias = 41, kArgDiffSrc = 129,
              kArgDiffDst = 145, kArgDiffWeights = 161;

struct Api {
  int (*engine_create)(Handle*, int, size_t);
  int (*stream_create)(Handle*, Handle, unsigned);
  int (*stream_wait)(Handle);
  int (*md_with_strides)(Handle*, int, const int64_t*, int, const int64_t*);
  int (*md_with_tag)(Handle*, int, const int64_t*, int, int);
  int (*md_destroy)(Handle);
  int (*md_equal)(Handle, Handle);
  size_t (*md_size)(Handle);
  int (*conv_fwd)(Handle*, Handle, int, int, Handle, Handle, Handle, Handle, const int64_t*,
                  const int64_t*, const int64_t*, const int64_t*, Handle);
  int (*conv_bwd_data)(Handle*, Handle, int, Handle, Handle, Handle, const int64_t*, const int64_t*,
                       const int64_t*, const int64_t*, Handle, Handle);
  int (*conv_bwd_weights)(Handle*, Handle, int, Handle, Handle, Handle, Handle, const int64_t*,
                          const int64_t*, const int64_t*, const int64_t*, Handle, Handle);
  int (*reorder)(Handle*, Handle, Handle, Handle, Handle, Handle);
  Handle (*query_md)(Handle, int, int);
  int (*pd_destroy)(Handle);
  int (*primitive_create)(Handle*, Handle);
  int (*primitive_destroy)(Handle);
  int (*execute)(Handle, Handle, int, const ExecArg*);
  int (*memory_create)(Handle*, Handle, Handle, void*);
  int (*memory_destroy)(Handle);
};

Api api;
Handle engine = nullptr;       // set once oneDNN is loaded and usable
bool enabled = true;           // torch.backends.mkldnn.enabled
std::atomic<int64_t> runs{0};  // convolutions oneDNN ran (tests check that it takes them)

// ---------------------------------------------------------------- primitives per geometry
// One cached convolution: its primitive, the layouts it wants and the reorders between them
// and the plain tensors (null where the layout is the plain one).
struct Role {
  Handle plain = nullptr, want = nullptr;  // memory descs (want: owned by the primitive desc)
  Handle to = nullptr, back = nullptr;     // reorder primitives plain -> want, want -> plain
  size_t bytes = 0;                        // of `want`
};

struct Prim {
  bool ok = false;  // false: oneDNN refused this geometry (cached too)
  Handle pd = nullptr, prim = nullptr;
  Role src, wei, dst;     // forward's names: for backward data, src is diff_src, dst diff_dst
  Handle bias = nullptr;  // the plain (O) desc, forward with a bias only
  ~Prim() {
    for (const Role* r : {&src, &wei, &dst}) {
      if (r->plain) api.md_destroy(r->plain);
      for (Handle h : {r->to, r->back})
        if (h) api.primitive_destroy(h);
    }
    if (bias) api.md_destroy(bias);
    if (prim) api.primitive_destroy(prim);
    if (pd) api.pd_destroy(pd);  // (owns the `want` descs)
  }
};

enum Kind { kForward, kData, kWeights };

std::mutex cache_mutex;
std::map<std::vector<int64_t>, std::shared_ptr<Prim>> cache;
constexpr size_t kMaxCached = 512;  // geometries; past it the cache starts over

Handle plain_md(int nd, const int64_t* dims) {
  int64_t strides[12];
  int64_t s = 1;
  for (int i = nd - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i];
  }
  Handle md = nullptr;
  return api.md_with_strides(&md, nd, dims, kF32, strides) == 0 ? md : nullptr;
}

Handle any_md(int nd, const int64_t* dims) {
  Handle md = nullptr;
  return api.md_with_tag(&md, nd, dims, kF32, kAnyFormat) == 0 ? md : nullptr;
}

Handle make_reorder(Handle from, Handle to) {
  Handle pd = nullptr, p = nullptr;
  if (api.reorder(&pd, from, engine, to, engine, nullptr) != 0) return nullptr;
  if (api.primitive_create(&p, pd) != 0) p = nullptr;
  api.pd_destroy(pd);
  return p;
}

// role's layouts: plain `dims`, the kernel's choice from pd, and the reorder between them:
// in for a role the primitive reads, back out for the one it writes; false when one fails
bool fill_role(Role& r, int nd, const int64_t* dims, Handle pd, int query, bool read) {
  r.plain = plain_md(nd, dims);
  r.want = api.query_md(pd, query, 0);
  if (!r.plain || !r.want) return false;
  r.bytes = api.md_size(r.want);
  if (api.md_equal(r.plain, r.want)) return true;
  Handle& prim = read ? r.to : r.back;
  prim = read ? make_reorder(r.plain, r.want) : make_reorder(r.want, r.plain);
  return prim != nullptr;
}

// The geometry's dims in oneDNN's terms: (N, C, *sp) images, (G, O/G, C/G, *k) weights.
struct Geometry {
  int nd = 0;  // spatial dims
  int64_t src[5], dst[5], wei[6], strides[3], dil[3], pad_l[3], pad_r[3];
  int wei_nd = 0;
};

// c: the plan in conv.cpp's terms, as a forward convolution from an image of C channels
// (c.g) to one of O channels; transposed plans swap the two.
Geometry geometry(const ConvPlan& c, int nd) {
  Geometry g;
  g.nd = nd;
  const int off = 3 - nd;
  const int64_t src_c = c.transposed ? c.O : c.C, dst_c = c.transposed ? c.C : c.O;
  g.src[0] = g.dst[0] = c.N;
  g.src[1] = src_c;
  g.dst[1] = dst_c;
  g.wei[0] = c.groups;
  g.wei[1] = dst_c / c.groups;
  g.wei[2] = src_c / c.groups;
  for (int i = 0; i < nd; i++) {
    const int j = off + i;
    g.src[2 + i] = c.g.in[j];
    g.dst[2 + i] = c.g.out[j];
    g.wei[3 + i] = c.g.k[j];
    g.strides[i] = c.g.s[j];
    g.dil[i] = c.g.d[j] - 1;  // oneDNN counts the gaps between taps
    g.pad_l[i] = c.g.p[j];
    // whatever makes (in + pad_l + pad_r - span) / s + 1 == out (transposed convolutions
    // with output_padding have a right padding below the left one)
    const int64_t span = (c.g.k[j] - 1) * c.g.d[j] + 1;
    g.pad_r[i] = (c.g.out[j] - 1) * c.g.s[j] + span - c.g.in[j] - c.g.p[j];
  }
  g.wei_nd = nd + 3;
  return g;
}

std::shared_ptr<Prim> build(Kind kind, const Geometry& g, bool bias) {
  auto p = std::make_shared<Prim>();
  const int n = g.nd + 2;
  Handle src = any_md(n, g.src), dst = any_md(n, g.dst), wei = any_md(g.wei_nd, g.wei);
  int64_t bias_dims[1] = {g.dst[1]};
  Handle b = bias ? plain_md(1, bias_dims) : nullptr;
  p->bias = b;
  Handle fwd = nullptr, pd = nullptr;
  bool ok = src && dst && wei && (!bias || b) &&
            api.conv_fwd(&fwd, engine, kForwardTraining, kDirect, src, wei, b, dst, g.strides,
                         g.dil, g.pad_l, g.pad_r, nullptr) == 0;
  if (ok && kind == kForward) {
    pd = fwd;
    fwd = nullptr;
  } else if (ok && kind == kData) {
    ok = api.conv_bwd_data(&pd, engine, kDirect, src, wei, dst, g.strides, g.dil, g.pad_l, g.pad_r,
                           fwd, nullptr) == 0;
  } else if (ok) {
    ok = api.conv_bwd_weights(&pd, engine, kDirect, src, wei, nullptr, dst, g.strides, g.dil,
                              g.pad_l, g.pad_r, fwd, nullptr) == 0;
  }
  p->pd = pd;
  if (ok) ok = api.primitive_create(&p->prim, pd) == 0;
  // each kind writes one role (forward dst, backward data src, backward weights wei)
  ok = ok &&
       fill_role(p->src, n, g.src, pd, kind == kData ? kQueryDiffSrc : kQuerySrc, kind != kData) &&
       fill_role(p->wei, g.wei_nd, g.wei, pd, kind == kWeights ? kQueryDiffWeights : kQueryWeights,
                 kind != kWeights) &&
       fill_role(p->dst, n, g.dst, pd, kind == kForward ? kQueryDst : kQueryDiffDst,
                 kind != kForward);
  p->ok = ok;
  for (Handle md : {src, dst, wei})
    if (md) api.md_destroy(md);
  if (fwd) api.pd_destroy(fwd);
  return p;
}

// The cached primitive of the geometry (built on first use), or null where oneDNN refuses it.
std::shared_ptr<const Prim> lookup(Kind kind, const ConvPlan& c, int nd, bool bias) {
  std::vector<int64_t> key{kind, nd, bias, get_num_threads(), c.N, c.C, c.O, c.groups};
  for (int i = 0; i < 3; i++)
    key.insert(key.end(), {c.g.in[i], c.g.out[i], c.g.k[i], c.g.s[i], c.g.p[i], c.g.d[i]});
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto it = cache.find(key);
  if (it == cache.end()) {
    if (cache.size() >= kMaxCached) cache.clear();  // (calls running keep theirs alive)
    it = cache.emplace(key, build(kind, geometry(c, nd), bias)).first;
  }
  return it->second->ok ? it->second : nullptr;
}

// Where the kernel reads or writes a role: the user's buffer, or a scratch buffer in the
// kernel's layout (reordered from/to the user's around the call).
struct Bound {
  Handle user = nullptr, mine = nullptr;
};

Bound bind(const Role& r, void* user, float* spare) {
  Bound b;
  api.memory_create(&b.user, r.plain, engine, user);
  if (r.to || r.back)
    api.memory_create(&b.mine, r.want, engine, spare);
  else
    b.mine = b.user;
  return b;
}

void reorder(Handle prim, Handle stream, Handle from, Handle to) {
  ExecArg args[2] = {{kArgSrc, from}, {kArgDst, to}};
  api.execute(prim, stream, 2, args);
}

// The shared part of the three calls: bind the buffers, reorder in, run, reorder out.
void run(const Prim& p, int arg_src, int arg_wei, int arg_dst, const void* src, const void* wei,
         const void* dst, const float* bias) {
  auto floats = [](const Role& r) { return (r.to || r.back) ? r.bytes / 4 + 32 : 0; };
  const size_t ns = floats(p.src), nw = floats(p.wei), nd = floats(p.dst);
  // The blocked copies live for this call only (uninitialised: the reorders write them). Kept
  // across calls they added a batch's copies to the process's peak memory for good; the
  // heap hands the same block back next call (tensor.cpp keeps blocks below 64 MiB there).
  std::unique_ptr<float[]> scratch(ns + nw + nd ? new float[ns + nw + nd] : nullptr);
  auto aligned = [](float* f) {  // 64 bytes, as oneDNN's kernels want
    return reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(f) + 63) & ~uintptr_t(63));
  };
  float* base = scratch.get();
  // (oneDNN takes non-const handles; the inputs are only read)
  Bound s = bind(p.src, const_cast<void*>(src), aligned(base)),
        w = bind(p.wei, const_cast<void*>(wei), aligned(base + ns)),
        d = bind(p.dst, const_cast<void*>(dst), aligned(base + ns + nw));
  Handle b = nullptr;
  if (bias) api.memory_create(&b, p.bias, engine, const_cast<float*>(bias));
  thread_local Handle stream = nullptr;
  if (!stream) api.stream_create(&stream, engine, kInOrder);
  // oneDNN sizes its parallel regions by omp_get_max_threads(): make it torch's count
  if (omp_get_max_threads() != get_num_threads()) omp_set_num_threads(get_num_threads());
  const std::pair<const Role*, Bound*> roles[] = {{&p.src, &s}, {&p.wei, &w}, {&p.dst, &d}};
  for (auto [r, m] : roles)
    if (r->to) reorder(r->to, stream, m->user, m->mine);
  ExecArg args[4] = {{arg_src, s.mine}, {arg_wei, w.mine}, {arg_dst, d.mine}, {kArgBias, b}};
  api.execute(p.prim, stream, b ? 4 : 3, args);
  for (auto [r, m] : roles)
    if (r->back) reorder(r->back, stream, m->mine, m->user);
  api.stream_wait(stream);
  runs++;
  for (auto [r, m] : roles) {
    if (m->mine != m->user) api.memory_destroy(m->mine);
    api.memory_destroy(m->user);
  }
  if (b) api.memory_destroy(b);
}

}  // namespace

std::string load_onednn(const std::string& path) {
  if (engine) return "";
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return dlerror();
  struct {
    const char* name;
    void** slot;
  } syms[] = {
      {"dnnl_engine_create", reinterpret_cast<void**>(&api.engine_create)},
      {"dnnl_stream_create", reinterpret_cast<void**>(&api.stream_create)},
      {"dnnl_stream_wait", reinterpret_cast<void**>(&api.stream_wait)},
      {"dnnl_memory_desc_create_with_strides", reinterpret_cast<void**>(&api.md_with_strides)},
      {"dnnl_memory_desc_create_with_tag", reinterpret_cast<void**>(&api.md_with_tag)},
      {"dnnl_memory_desc_destroy", reinterpret_cast<void**>(&api.md_destroy)},
      {"dnnl_memory_desc_equal", reinterpret_cast<void**>(&api.md_equal)},
      {"dnnl_memory_desc_get_size", reinterpret_cast<void**>(&api.md_size)},
      {"dnnl_convolution_forward_primitive_desc_create", reinterpret_cast<void**>(&api.conv_fwd)},
      {"dnnl_convolution_backward_data_primitive_desc_create",
       reinterpret_cast<void**>(&api.conv_bwd_data)},
      {"dnnl_convolution_backward_weights_primitive_desc_create",
       reinterpret_cast<void**>(&api.conv_bwd_weights)},
      {"dnnl_reorder_primitive_desc_create", reinterpret_cast<void**>(&api.reorder)},
      {"dnnl_primitive_desc_query_md", reinterpret_cast<void**>(&api.query_md)},
      {"dnnl_primitive_desc_destroy", reinterpret_cast<void**>(&api.pd_destroy)},
      {"dnnl_primitive_create", reinterpret_cast<void**>(&api.primitive_create)},
      {"dnnl_primitive_destroy", reinterpret_cast<void**>(&api.primitive_destroy)},
      {"dnnl_primitive_execute", reinterpret_cast<void**>(&api.execute)},
      {"dnnl_memory_create", reinterpret_cast<void**>(&api.memory_create)},
      {"dnnl_memory_destroy", reinterpret_cast<void**>(&api.memory_destroy)},
  };
  for (auto& s : syms)
    if (!(*s.slot = dlsym(lib, s.name))) return path + " lacks " + s.name;
  struct Version {
    int major, minor, patch;
  };
  auto version = reinterpret_cast<const Version* (*)()>(dlsym(lib, "dnnl_version"));
  if (!version || version()->major != 3) return path + " is not oneDNN 3.x";
  Handle e = nullptr;
  if (api.engine_create(&e, kCpu, 0) != 0) return "oneDNN has no CPU engine";
  engine = e;
  return "";
}

bool onednn_loaded() { return engine != nullptr; }
void set_onednn_enabled(bool on) { enabled = on; }
bool onednn_enabled() { return enabled; }
int64_t onednn_runs() { return runs; }

// The batch goes to oneDNN in chunks of whole samples whose blocked copies take about
// kChunkBytes at most (in plain layout): a test batch of 1000 MNIST images made 230 MB of
// them at once.
constexpr int64_t kChunkBytes = int64_t(4) << 20;

// Samples per chunk, and the floats of one sample of x (the op's input) and of y (its output).
static int64_t chunk_of(const ConvPlan& c, int64_t& x_per, int64_t& y_per) {
  x_per = c.C * (c.transposed ? c.g.out_n() : c.g.in_n());
  y_per = c.O * (c.transposed ? c.g.in_n() : c.g.out_n());
  const int64_t per = std::max<int64_t>(1, (x_per + y_per) * int64_t(sizeof(float)));
  return std::clamp<int64_t>(kChunkBytes / per, 1, std::max<int64_t>(c.N, 1));
}

// The primitives of the full chunks and of the last one; false where oneDNN refuses either
// (checked before any chunk runs: a refusal leaves the whole op to our kernels).
static bool chunk_prims(Kind kind, const ConvPlan& c, int nd, bool bias, int64_t chunk,
                        std::shared_ptr<const Prim>& first, std::shared_ptr<const Prim>& last) {
  ConvPlan f = c, l = c;
  f.N = std::min(chunk, c.N), l.N = c.N % chunk ? c.N % chunk : f.N;
  first = lookup(kind, f, nd, bias), last = lookup(kind, l, nd, bias);
  return first && last;
}

bool onednn_conv(const ConvPlan& c, int nd, const float* x, const float* w, const float* b,
                 float* y) {
  if (!engine || !enabled) return false;
  int64_t x_per, y_per;
  const int64_t chunk = chunk_of(c, x_per, y_per);
  const Kind kind = c.transposed ? kData : kForward;  // conv_transpose: backward data
  const bool with_bias = b && !c.transposed;          // (oneDNN's backward data has no bias)
  std::shared_ptr<const Prim> p_first, p_last;
  if (!chunk_prims(kind, c, nd, with_bias, chunk, p_first, p_last)) return false;
  for (int64_t n0 = 0; n0 < c.N; n0 += chunk) {
    const Prim& p = *(n0 + chunk <= c.N ? p_first : p_last);
    const float* xs = x + n0 * x_per;
    float* ys = y + n0 * y_per;
    if (!c.transposed)
      run(p, kArgSrc, kArgWeights, kArgDst, xs, w, ys, b);
    else  // conv_transpose(x, w) is the data gradient of the convolution from y's image to x's
      run(p, kArgDiffSrc, kArgWeights, kArgDiffDst, ys, w, xs, nullptr);
  }
  if (b && c.transposed) {
    const int64_t plane = c.g.in_n();
#pragma omp parallel for num_threads(c.N* c.O* plane >= kGrain ? get_num_threads() : 1)
    for (int64_t i = 0; i < c.N * c.O; i++)
      for (int64_t j = 0; j < plane; j++) y[i * plane + j] += b[i % c.O];
  }
  return true;
}

bool onednn_conv_weight_grad(const ConvPlan& c, int nd, const float* x, const float* gy,
                             float* gw) {
  if (!engine || !enabled) return false;
  int64_t x_per, y_per;
  const int64_t chunk = chunk_of(c, x_per, y_per);
  std::shared_ptr<const Prim> p_first, p_last;
  if (!chunk_prims(kWeights, c, nd, false, chunk, p_first, p_last)) return false;
  const int64_t wn = c.O * (c.C / c.groups) * c.g.k_n();
  std::vector<float> part(c.N > chunk ? size_t(wn) : 0);  // a later chunk's gradient
  for (int64_t n0 = 0; n0 < c.N; n0 += chunk) {
    const Prim& p = *(n0 + chunk <= c.N ? p_first : p_last);
    float* dst = n0 == 0 ? gw : part.data();
    run(p, kArgSrc, kArgDiffWeights, kArgDiffDst, x + n0 * x_per, dst, gy + n0 * y_per, nullptr);
    if (n0 > 0)
      for (int64_t i = 0; i < wn; i++) gw[i] += part[size_t(i)];
  }
  return true;
}

}  // namespace tc
