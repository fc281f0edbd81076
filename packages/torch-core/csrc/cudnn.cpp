// cudnn.cpp — convolutions on CUDA through cuDNN's convolution API (see cudnn.h).
//
// Every CUDA convolution the front end (conv.cpp) makes is one of cuDNN's three directions,
// with "image" the tensor the kernel slides over and "out" the one it produces:
//
//   conv:              forward          img = x,  out = y,  filter = w
//   conv_transpose:    backward data    img = y,  out = x,  filter = w   (y = adjoint of x)
//   weight grad:       backward filter  img = x,  out = gy, filter = gw
//
// Tensors are contiguous (NCHW); 1-d convolutions run as 2-d ones of height 1 (the plan's
// geometry is already padded to 3 spatial dims with leading 1s). The algorithm is cuDNN's
// heuristic choice (_v7) or, with torch.backends.cudnn.benchmark, the fastest measured one
// (cudnnFind...), remembered per problem. Workspaces come from the caching allocator.
#include "cudnn.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <map>
#include <mutex>
#include <vector>

#include "cuda.h"
#include "nn_kernels.h"

namespace tc::cuda {

namespace {

// ---------------------------------------------------------------- the API, by hand
// Declarations follow cuDNN 9's cudnn_graph.h, cudnn_ops.h and cudnn_cnn.h: enums are C
// ints, descriptors and handles opaque pointers.
using Status = int;
using Handle = struct cudnnContext*;
using Desc = void*;  // tensor, filter or convolution descriptor

constexpr int kFloat = 0, kDouble = 1, kHalf = 2, kBFloat16 = 9;  // cudnnDataType_t
constexpr int kDefaultMath = 0, kTensorOpMath = 1, kTensorOpMathAllowConversion = 2,
              kFmaMath = 3;             // cudnnMathType_t
constexpr int kCrossCorrelation = 1;    // cudnnConvolutionMode_t
constexpr int kFormatNCHW = 0;          // cudnnTensorFormat_t
constexpr int kDeterministic = 1;       // cudnnDeterminism_t
constexpr Status kNotSupported = 3000;  // CUDNN_STATUS_NOT_SUPPORTED
constexpr int kMaxAlgos = 16;           // more than any direction has

// cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t: the three have this one layout
struct Perf {
  int algo;
  Status status;
  float time;
  size_t memory;
  int determinism;
  int math;
  int reserved[3];
};

struct Api {
  size_t (*GetVersion)();
  const char* (*GetErrorString)(Status);
  void (*GetLastErrorString)(char*, size_t);
  Status (*Create)(Handle*);
  Status (*SetStream)(Handle, void*);
  Status (*CreateTensorDescriptor)(Desc*);
  Status (*SetTensorNdDescriptor)(Desc, int, int, const int*, const int*);
  Status (*DestroyTensorDescriptor)(Desc);
  Status (*CreateFilterDescriptor)(Desc*);
  Status (*SetFilterNdDescriptor)(Desc, int, int, int, const int*);
  Status (*DestroyFilterDescriptor)(Desc);
  Status (*CreateConvolutionDescriptor)(Desc*);
  Status (*SetConvolutionNdDescriptor)(Desc, int, const int*, const int*, const int*, int, int);
  Status (*SetConvolutionGroupCount)(Desc, int);
  Status (*SetConvolutionMathType)(Desc, int);
  Status (*DestroyConvolutionDescriptor)(Desc);
  // forward: (handle, xDesc, wDesc, convDesc, yDesc, ...)
  Status (*GetConvolutionForwardAlgorithm_v7)(Handle, Desc, Desc, Desc, Desc, int, int*, Perf*);
  Status (*FindConvolutionForwardAlgorithm)(Handle, Desc, Desc, Desc, Desc, int, int*, Perf*);
  Status (*GetConvolutionForwardWorkspaceSize)(Handle, Desc, Desc, Desc, Desc, int, size_t*);
  Status (*ConvolutionForward)(Handle, const void*, Desc, const void*, Desc, const void*, Desc, int,
                               void*, size_t, const void*, Desc, void*);
  // backward data: (handle, wDesc, dyDesc, convDesc, dxDesc, ...)
  Status (*GetConvolutionBackwardDataAlgorithm_v7)(Handle, Desc, Desc, Desc, Desc, int, int*,
                                                   Perf*);
  Status (*FindConvolutionBackwardDataAlgorithm)(Handle, Desc, Desc, Desc, Desc, int, int*, Perf*);
  Status (*GetConvolutionBackwardDataWorkspaceSize)(Handle, Desc, Desc, Desc, Desc, int, size_t*);
  Status (*ConvolutionBackwardData)(Handle, const void*, Desc, const void*, Desc, const void*, Desc,
                                    int, void*, size_t, const void*, Desc, void*);
  // backward filter: (handle, xDesc, dyDesc, convDesc, dwDesc, ...)
  Status (*GetConvolutionBackwardFilterAlgorithm_v7)(Handle, Desc, Desc, Desc, Desc, int, int*,
                                                     Perf*);
  Status (*FindConvolutionBackwardFilterAlgorithm)(Handle, Desc, Desc, Desc, Desc, int, int*,
                                                   Perf*);
  Status (*GetConvolutionBackwardFilterWorkspaceSize)(Handle, Desc, Desc, Desc, Desc, int, size_t*);
  Status (*ConvolutionBackwardFilter)(Handle, const void*, Desc, const void*, Desc, const void*,
                                      Desc, int, void*, size_t, const void*, Desc, void*);
};

// in Api's order, each prefixed with "cudnn"
const char* const kSymbols[] = {"GetVersion",
                                "GetErrorString",
                                "GetLastErrorString",
                                "Create",
                                "SetStream",
                                "CreateTensorDescriptor",
                                "SetTensorNdDescriptor",
                                "DestroyTensorDescriptor",
                                "CreateFilterDescriptor",
                                "SetFilterNdDescriptor",
                                "DestroyFilterDescriptor",
                                "CreateConvolutionDescriptor",
                                "SetConvolutionNdDescriptor",
                                "SetConvolutionGroupCount",
                                "SetConvolutionMathType",
                                "DestroyConvolutionDescriptor",
                                "GetConvolutionForwardAlgorithm_v7",
                                "FindConvolutionForwardAlgorithm",
                                "GetConvolutionForwardWorkspaceSize",
                                "ConvolutionForward",
                                "GetConvolutionBackwardDataAlgorithm_v7",
                                "FindConvolutionBackwardDataAlgorithm",
                                "GetConvolutionBackwardDataWorkspaceSize",
                                "ConvolutionBackwardData",
                                "GetConvolutionBackwardFilterAlgorithm_v7",
                                "FindConvolutionBackwardFilterAlgorithm",
                                "GetConvolutionBackwardFilterWorkspaceSize",
                                "ConvolutionBackwardFilter"};
static_assert(sizeof(kSymbols) / sizeof(kSymbols[0]) == sizeof(Api) / sizeof(void*),
              "one symbol per Api entry");

Api g_api;
std::mutex g_load_mutex;
std::atomic<bool> g_loaded{false};  // set once, after g_api is complete
std::string g_load_error;
std::function<std::string()> g_loader;

// ---------------------------------------------------------------- errors
std::string status_text(Status s) {
  std::string text = g_api.GetErrorString ? g_api.GetErrorString(s) : "";
  if (text.empty()) text = cat_str("status ", s);
  if (g_api.GetLastErrorString) {
    char detail[512] = {0};
    g_api.GetLastErrorString(detail, sizeof(detail) - 1);
    if (detail[0]) text += cat_str(": ", detail);
  }
  return text;
}

// ---------------------------------------------------------------- the problem
enum Dir { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };
const char* const kDirNames[] = {"forward", "backward data", "backward filter"};
const char* const kRunNames[] = {"cudnnConvolutionForward", "cudnnConvolutionBackwardData",
                                 "cudnnConvolutionBackwardFilter"};

struct Problem {
  Dir dir = kForward;
  ScalarType dtype = ScalarType::Float;
  int device = 0;
  int nd = 2;  // the caller's spatial dims (1 to 3); cuDNN gets max(nd, 2)
  int64_t N = 0, img_c = 0, out_c = 0, groups = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1};
  int64_t s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};

  int sd() const { return std::max(nd, 2); }
  int first() const { return 3 - sd(); }  // the first geometry index given to cuDNN
  int64_t img_numel() const { return img_c * in[0] * in[1] * in[2]; }  // per sample
  int64_t out_numel() const { return out_c * out[0] * out[1] * out[2]; }
  // cuDNN's output size along geometry dim i for an image of size `size` there
  int64_t forward_out(int i, int64_t size) const {
    return (size + 2 * p[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
  }
  bool consistent() const {  // cuDNN insists that out is the forward size of img
    for (int i = 0; i < 3; i++)
      if (in[i] + 2 * p[i] < d[i] * (k[i] - 1) + 1 || forward_out(i, in[i]) != out[i]) return false;
    return true;
  }
};

std::string dims_str(std::initializer_list<int64_t> lead, const int64_t* sp, int first) {
  std::string r = "[";
  bool sep = false;
  for (int64_t v : lead) r += cat_str(sep ? ", " : "", v), sep = true;
  for (int i = first; i < 3; i++) r += cat_str(", ", sp[i]);
  return r + "]";
}

std::string describe(const Problem& pr) {
  int first = 3 - pr.nd;
  return cat_str("conv", pr.nd, "d ", kDirNames[pr.dir], " with image ",
                 dims_str({pr.N, pr.img_c}, pr.in, first), ", output ",
                 dims_str({pr.N, pr.out_c}, pr.out, first), ", kernel ",
                 dims_str({pr.out_c, pr.groups ? pr.img_c / pr.groups : 0}, pr.k, first),
                 ", groups=", pr.groups, " in ", dtype_name(pr.dtype));
}

void check(Status s, const char* what, const Problem& pr) {
  if (s == 0) return;
  fail(s == kNotSupported ? ErrorKind::NotImplemented : ErrorKind::Runtime, "cuDNN: ", what,
       " failed (", status_text(s), ") for ", describe(pr));
}

// ---------------------------------------------------------------- descriptors
int to_int(int64_t v, const Problem& pr) {
  TC_CHECK(v >= 0 && v <= INT_MAX, NotImplemented, "cuDNN: a size or parameter of ", v,
           " does not fit cuDNN's int for ", describe(pr));
  return int(v);
}

int data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Double:
      return kDouble;
    case ScalarType::Half:
      return kHalf;
    case ScalarType::BFloat16:
      return kBFloat16;
    default:
      return kFloat;
  }
}

// The math cuDNN may use: TF32 tensor cores for float32 only with allow_tf32, as in PyTorch.
int wanted_math(ScalarType t) {
  if (t == ScalarType::Float) return cudnn_flags().allow_tf32 ? kTensorOpMath : kFmaMath;
  if (t == ScalarType::Double) return kDefaultMath;
  return kTensorOpMath;
}

struct Descriptors {
  const Problem& pr;
  Desc img = nullptr, out = nullptr, filter = nullptr, conv = nullptr;

  Descriptors(const Problem& problem, int64_t n) : pr(problem) {
    try {
      init(n);
    } catch (...) {
      destroy();
      throw;
    }
  }
  ~Descriptors() { destroy(); }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  void init(int64_t n) {
    check(g_api.CreateTensorDescriptor(&img), "cudnnCreateTensorDescriptor", pr);
    check(g_api.CreateTensorDescriptor(&out), "cudnnCreateTensorDescriptor", pr);
    check(g_api.CreateFilterDescriptor(&filter), "cudnnCreateFilterDescriptor", pr);
    check(g_api.CreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor", pr);
    const int sd = pr.sd(), f = pr.first(), dt = data_type(pr.dtype);
    set_tensor(img, n, pr.img_c, pr.in);
    set_tensor(out, n, pr.out_c, pr.out);
    int fdims[5] = {to_int(pr.out_c, pr), to_int(pr.img_c / pr.groups, pr)};
    int pad[3], stride[3], dil[3];
    for (int i = 0; i < sd; i++) {
      fdims[2 + i] = to_int(pr.k[f + i], pr);
      pad[i] = to_int(pr.p[f + i], pr);
      stride[i] = to_int(pr.s[f + i], pr);
      dil[i] = to_int(pr.d[f + i], pr);
    }
    check(g_api.SetFilterNdDescriptor(filter, dt, kFormatNCHW, sd + 2, fdims),
          "cudnnSetFilterNdDescriptor", pr);
    // float accumulation for the 16-bit types, as PyTorch does
    int compute = pr.dtype == ScalarType::Double ? kDouble : kFloat;
    check(g_api.SetConvolutionNdDescriptor(conv, sd, pad, stride, dil, kCrossCorrelation, compute),
          "cudnnSetConvolutionNdDescriptor", pr);
    check(g_api.SetConvolutionGroupCount(conv, to_int(pr.groups, pr)),
          "cudnnSetConvolutionGroupCount", pr);
    set_math(wanted_math(pr.dtype));
  }
  void destroy() {
    if (img) g_api.DestroyTensorDescriptor(img);
    if (out) g_api.DestroyTensorDescriptor(out);
    if (filter) g_api.DestroyFilterDescriptor(filter);
    if (conv) g_api.DestroyConvolutionDescriptor(conv);
  }

  void set_tensor(Desc t, int64_t n, int64_t c, const int64_t* sp) {
    const int sd = pr.sd(), f = pr.first();
    int dims[5] = {to_int(n, pr), to_int(c, pr)}, strides[5];
    for (int i = 0; i < sd; i++) dims[2 + i] = to_int(sp[f + i], pr);
    int64_t stride = 1;
    for (int i = sd + 1; i >= 0; i--) strides[i] = to_int(stride, pr), stride *= dims[i];
    check(g_api.SetTensorNdDescriptor(t, data_type(pr.dtype), sd + 2, dims, strides),
          "cudnnSetTensorNdDescriptor", pr);
  }
  void set_math(int math) {
    check(g_api.SetConvolutionMathType(conv, math), "cudnnSetConvolutionMathType", pr);
  }
};

// ---------------------------------------------------------------- the three directions
int algorithms(const Descriptors& ds, Handle h, bool measure, Perf* perfs) {
  const Problem& pr = ds.pr;
  int n = 0;
  Status s = 0;
  switch (pr.dir) {
    case kForward:
      s = measure ? g_api.FindConvolutionForwardAlgorithm(h, ds.img, ds.filter, ds.conv, ds.out,
                                                          kMaxAlgos, &n, perfs)
                  : g_api.GetConvolutionForwardAlgorithm_v7(h, ds.img, ds.filter, ds.conv, ds.out,
                                                            kMaxAlgos, &n, perfs);
      break;
    case kBackwardData:
      s = measure ? g_api.FindConvolutionBackwardDataAlgorithm(h, ds.filter, ds.out, ds.conv,
                                                               ds.img, kMaxAlgos, &n, perfs)
                  : g_api.GetConvolutionBackwardDataAlgorithm_v7(h, ds.filter, ds.out, ds.conv,
                                                                 ds.img, kMaxAlgos, &n, perfs);
      break;
    case kBackwardFilter:
      s = measure ? g_api.FindConvolutionBackwardFilterAlgorithm(h, ds.img, ds.out, ds.conv,
                                                                 ds.filter, kMaxAlgos, &n, perfs)
                  : g_api.GetConvolutionBackwardFilterAlgorithm_v7(h, ds.img, ds.out, ds.conv,
                                                                   ds.filter, kMaxAlgos, &n, perfs);
      break;
  }
  check(s,
        measure ? "cudnnFindConvolution*Algorithm (torch.backends.cudnn.benchmark)"
                : "cudnnGetConvolution*Algorithm_v7",
        pr);
  return std::clamp(n, 0, kMaxAlgos);
}

Status workspace_size(const Descriptors& ds, Handle h, int algo, size_t* bytes) {
  switch (ds.pr.dir) {
    case kForward:
      return g_api.GetConvolutionForwardWorkspaceSize(h, ds.img, ds.filter, ds.conv, ds.out, algo,
                                                      bytes);
    case kBackwardData:
      return g_api.GetConvolutionBackwardDataWorkspaceSize(h, ds.filter, ds.out, ds.conv, ds.img,
                                                           algo, bytes);
    default:
      return g_api.GetConvolutionBackwardFilterWorkspaceSize(h, ds.img, ds.out, ds.conv, ds.filter,
                                                             algo, bytes);
  }
}

// Runs the direction: forward writes out, backward data writes img, backward filter filter.
Status execute(const Descriptors& ds, Handle h, int algo, void* ws, size_t ws_bytes,
               const void* alpha, const void* beta, void* img, void* out, void* filter) {
  switch (ds.pr.dir) {
    case kForward:
      return g_api.ConvolutionForward(h, alpha, ds.img, img, ds.filter, filter, ds.conv, algo, ws,
                                      ws_bytes, beta, ds.out, out);
    case kBackwardData:
      return g_api.ConvolutionBackwardData(h, alpha, ds.filter, filter, ds.out, out, ds.conv, algo,
                                           ws, ws_bytes, beta, ds.img, img);
    default:
      return g_api.ConvolutionBackwardFilter(h, alpha, ds.img, img, ds.out, out, ds.conv, algo, ws,
                                             ws_bytes, beta, ds.filter, filter);
  }
}

// ---------------------------------------------------------------- handles, choices
struct DeviceHandle {
  Handle handle = nullptr;
  std::mutex mutex;  // a handle runs one call at a time (its stream is set per call)
};
std::mutex g_handles_mutex;
std::map<int, DeviceHandle> g_handles;

DeviceHandle& handle_for(const Problem& pr) {
  std::lock_guard<std::mutex> lock(g_handles_mutex);
  DeviceHandle& dh = g_handles[pr.device];
  if (!dh.handle) check(g_api.Create(&dh.handle), "cudnnCreate", pr);
  return dh;
}

struct Choice {
  int algo = 0, math = kDefaultMath;
  size_t workspace = 0;
};
std::mutex g_choices_mutex;
std::map<std::vector<int64_t>, Choice> g_choices;

std::vector<int64_t> choice_key(const Problem& pr, int64_t n) {
  const CudnnFlags& f = cudnn_flags();
  std::vector<int64_t> key{pr.dir,
                           int64_t(pr.dtype),
                           pr.device,
                           pr.nd,
                           n,
                           pr.img_c,
                           pr.out_c,
                           pr.groups,
                           f.benchmark,
                           f.deterministic,
                           wanted_math(pr.dtype)};
  for (const int64_t* a : {pr.in, pr.out, pr.k, pr.s, pr.p, pr.d}) key.insert(key.end(), a, a + 3);
  return key;
}

Tensor workspace_tensor(size_t bytes, int device) {
  return empty({int64_t(std::max<size_t>(bytes, 1))}, ScalarType::Byte,
               Device{DeviceType::CUDA, device});
}

// The algorithm for a problem: the first usable one in cuDNN's order (heuristic rank, or
// measured time with benchmark) whose workspace can be allocated.
Choice choose(Descriptors& ds, Handle h, int64_t n, Tensor& ws) {
  const Problem& pr = ds.pr;
  std::vector<int64_t> key = choice_key(pr, n);
  {
    std::lock_guard<std::mutex> lock(g_choices_mutex);
    auto it = g_choices.find(key);
    if (it != g_choices.end()) {
      ws = workspace_tensor(it->second.workspace, pr.device);
      return it->second;
    }
  }
  const CudnnFlags& flags = cudnn_flags();
  const int wanted = wanted_math(pr.dtype);
  Perf perfs[kMaxAlgos] = {};
  int count = algorithms(ds, h, flags.benchmark, perfs);
  std::string first_error;
  // a second pass only for float32 without TF32, should no entry report FMA math
  for (int pass = 0; pass < (wanted == kFmaMath ? 2 : 1); pass++) {
    for (int i = 0; i < count; i++) {
      const Perf& p = perfs[i];
      if (p.status != 0) continue;
      if (flags.deterministic && p.determinism != kDeterministic) continue;
      // without TF32, float32 keeps FMA math; the first pass also skips tensor-core entries
      bool tensor_ops = p.math == kTensorOpMath || p.math == kTensorOpMathAllowConversion;
      if (pass == 0 && wanted == kFmaMath && tensor_ops) continue;
      Choice c{p.algo, wanted == kFmaMath ? kFmaMath : p.math, 0};
      ds.set_math(c.math);
      if (workspace_size(ds, h, c.algo, &c.workspace) != 0) continue;
      try {
        ws = workspace_tensor(c.workspace, pr.device);
      } catch (const TorchError& e) {  // out of memory: a leaner algorithm may fit
        if (e.kind != ErrorKind::OutOfMemory) throw;
        if (first_error.empty()) first_error = e.what();
        continue;
      }
      std::lock_guard<std::mutex> lock(g_choices_mutex);
      g_choices[key] = c;
      return c;
    }
  }
  if (!first_error.empty()) fail(ErrorKind::OutOfMemory, first_error);
  fail(ErrorKind::NotImplemented, "cuDNN: no ", flags.deterministic ? "deterministic " : "",
       "algorithm supports ", describe(pr),
       flags.deterministic ? " (torch.backends.cudnn.deterministic is True)" : "");
}

// ---------------------------------------------------------------- running a problem
void ensure_cudnn(const Problem& pr) {
  if (g_loaded) return;
  std::string why = g_loader ? g_loader() : "cuDNN's loader is not set";
  TC_CHECK(why.empty() && g_loaded, NotImplemented, "conv", pr.nd,
           "d on CUDA needs cuDNN, which cannot be used: ",
           why.empty() ? std::string("cuDNN is not loaded") : why,
           ". Install it with: pip install nvidia-cudnn-cu13");
}

// img, out, filter: contiguous device buffers of the problem's shapes (N samples).
void run(const Problem& pr, char* img, char* out, char* filter) {
  ensure_cudnn(pr);
  set_device(pr.device);  // makes the device's context current for cuDNN
  const int64_t item = int64_t(itemsize(pr.dtype));
  const int64_t per_sample = std::max(pr.img_numel(), pr.out_numel());
  TC_CHECK(per_sample <= INT_MAX, NotImplemented, "cuDNN: one sample of ", per_sample,
           " elements is too large for cuDNN's int strides in ", describe(pr));
  // cuDNN's strides are ints: split the batch so each part stays below 2^31 elements
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(pr.N, INT_MAX / per_sample));
  DeviceHandle& dh = handle_for(pr);
  std::lock_guard<std::mutex> lock(dh.mutex);
  check(g_api.SetStream(dh.handle, current_stream()), "cudnnSetStream", pr);
  const double one_d = 1, zero_d = 0;
  const float one_f = 1, zero_f = 0;
  const bool dbl = pr.dtype == ScalarType::Double;
  const void* alpha = dbl ? static_cast<const void*>(&one_d) : &one_f;
  for (int64_t n0 = 0; n0 < pr.N; n0 += chunk) {
    const int64_t n = std::min(chunk, pr.N - n0);
    Descriptors ds(pr, n);
    Tensor ws;
    Choice c = choose(ds, dh.handle, n, ws);
    ds.set_math(c.math);
    // the weight gradient sums over the parts: the later ones add to the first
    bool add = pr.dir == kBackwardFilter && n0 > 0;
    const void* beta = add ? (dbl ? static_cast<const void*>(&one_d) : &one_f)
                           : (dbl ? static_cast<const void*>(&zero_d) : &zero_f);
    check(execute(ds, dh.handle, c.algo, ws.data(), c.workspace, alpha, beta,
                  img + n0 * pr.img_numel() * item, out + n0 * pr.out_numel() * item, filter),
          kRunNames[pr.dir], pr);
  }
}

Problem problem_of(Dir dir, const ConvPlan& c, const Tensor& x, int64_t img_c, int64_t out_c) {
  Problem pr;
  pr.dir = dir;
  pr.dtype = x.dtype();
  pr.device = device_index(x.device());
  pr.nd = int(x.dim()) - 2;
  pr.N = c.N, pr.img_c = img_c, pr.out_c = out_c, pr.groups = c.groups;
  for (int i = 0; i < 3; i++) {
    pr.in[i] = c.g.in[i], pr.out[i] = c.g.out[i], pr.k[i] = c.g.k[i];
    pr.s[i] = c.g.s[i], pr.p[i] = c.g.p[i], pr.d[i] = c.g.d[i];
  }
  return pr;
}

// The tensor's spatial dim j (of nd) is geometry index 3 - nd + j.
int64_t geom_index(const Problem& pr, int j) { return 3 - pr.nd + j; }

// conv_transpose whose output cuDNN will not take (an output_padding of a stride or more,
// allowed when the dilation is larger): the full transposed output without padding, then
// its window [p, p + size) copied into y, zeros where it reaches past the full output.
void transposed_via_full(const Problem& pr, const Tensor& x, const Tensor& w, const Tensor& y) {
  Problem full = pr;
  Shape shape{pr.N, pr.img_c};
  for (int i = 0; i < 3; i++) {
    full.in[i] = (pr.out[i] - 1) * pr.s[i] + pr.d[i] * (pr.k[i] - 1) + 1;
    full.p[i] = 0;
  }
  for (int j = 0; j < pr.nd; j++) shape.push_back(full.in[geom_index(pr, j)]);
  Tensor buf = empty(shape, y.dtype(), y.device());
  run(full, buf.data(), x.data(), w.data());
  fill_(y, Scalar::from_int(0));
  Tensor src = buf, dst = y;
  for (int j = 0; j < pr.nd; j++) {
    int64_t i = geom_index(pr, j), len = std::min(pr.in[i], full.in[i] - pr.p[i]);
    if (len <= 0) return;
    src = narrow(src, 2 + j, pr.p[i], len);
    dst = narrow(dst, 2 + j, 0, len);
  }
  copy_(dst, src);
}

// Weight gradient whose grad cuDNN will not take with x (x from such a conv_transpose):
// x zero-padded explicitly and cut to what the output positions read, then no padding.
void weight_grad_via_padding(const Problem& pr, const Tensor& x, const Tensor& gy,
                             const Tensor& gw) {
  Problem cut = pr;
  Shape padded{pr.N, pr.img_c}, need(size_t(pr.nd), 0);
  for (int j = 0; j < pr.nd; j++) {
    int64_t i = geom_index(pr, j);
    need[j] = (pr.out[i] - 1) * pr.s[i] + pr.d[i] * (pr.k[i] - 1) + 1;
    padded.push_back(std::max(need[j], pr.in[i] + 2 * pr.p[i]));
    cut.in[i] = need[j];
    cut.p[i] = 0;
  }
  Tensor xp = empty(padded, x.dtype(), x.device());
  fill_(xp, Scalar::from_int(0));
  Tensor inner = xp, window = xp;
  for (int j = 0; j < pr.nd; j++) {
    int64_t i = geom_index(pr, j);
    inner = narrow(inner, 2 + j, pr.p[i], pr.in[i]);
    window = narrow(window, 2 + j, 0, need[j]);
  }
  copy_(inner, x);
  Tensor xc = contiguous(window);
  run(cut, xc.data(), gy.data(), gw.data());
}

// ---------------------------------------------------------------- the registered kernels
// A view's data may start anywhere; cuDNN's vectorised kernels want 16-byte aligned buffers
// (fresh allocations are), so such a view is copied.
Tensor aligned(const Tensor& t) {
  return reinterpret_cast<uintptr_t>(t.data()) % 16 == 0 ? t : clone(t);
}

void conv_cuda(const ConvPlan& c, const Tensor& x_in, const Tensor& w_in, const Tensor& b,
               const Tensor& y) {
  const Tensor x = aligned(x_in), w = aligned(w_in);
  if (c.transposed) {
    Problem pr = problem_of(kBackwardData, c, x, c.O, c.C);
    if (pr.consistent())
      run(pr, y.data(), x.data(), w.data());
    else
      transposed_via_full(pr, x, w, y);
  } else {
    Problem pr = problem_of(kForward, c, x, c.C, c.O);
    if (c.C == 0)  // no input channels: only the bias
      fill_(y, Scalar::from_int(0));
    else
      run(pr, x.data(), y.data(), w.data());
  }
  if (b.defined()) {
    Shape bias_shape(size_t(y.dim()), 1);
    bias_shape[1] = b.size(0);
    binary(Op::add, y, view(b, bias_shape), y);
  }
}

void conv_weight_grad_cuda(const ConvPlan& c, const Tensor& x_in, const Tensor& gy_in,
                           const Tensor& gw) {
  const Tensor x = aligned(x_in), gy = aligned(gy_in);
  Problem pr = problem_of(kBackwardFilter, c, x, c.C, c.O);
  if (pr.consistent())
    run(pr, x.data(), gy.data(), gw.data());
  else
    weight_grad_via_padding(pr, x, gy, gw);
}

}  // namespace

// ---------------------------------------------------------------- loading
std::string cudnn_load(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_load_mutex);
  if (g_loaded) return "";
  // libcudnn.so.9 opens its sub-libraries (graph, ops, cnn) by name when first needed; load
  // those beside it first so that they are found whatever the search path.
  std::string dir;
  size_t slash = path.rfind('/');
  if (slash != std::string::npos) dir = path.substr(0, slash + 1);
  if (!dir.empty())
    for (const char* sub : {"libcudnn_graph.so.9", "libcudnn_ops.so.9", "libcudnn_cnn.so.9"}) {
      std::string p = dir + sub;
      if (access(p.c_str(), F_OK) != 0) continue;
      if (!dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
        const char* e = dlerror();
        return cat_str(p, ": ", e ? e : "cannot be loaded");
      }
    }
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    return e ? e : (path + ": cannot be loaded");
  }
  Api api{};
  void** slot = reinterpret_cast<void**>(&api);
  for (const char* name : kSymbols) {
    std::string sym = cat_str("cudnn", name);
    *slot = dlsym(lib, sym.c_str());
    if (!*slot) return cat_str(path, ": missing symbol ", sym, " (not cuDNN 9?)");
    slot++;
  }
  size_t version = api.GetVersion();
  if (version / 10000 != 9)
    return cat_str(path, " is cuDNN ", version, "; this build needs cuDNN 9 (libcudnn.so.9)");
  g_api = api;
  g_loaded = true;
  return "";
}

bool cudnn_loaded() { return g_loaded; }

int cudnn_version() { return g_loaded ? int(g_api.GetVersion()) : 0; }

void set_cudnn_loader(std::function<std::string()> loader) { g_loader = std::move(loader); }

CudnnFlags& cudnn_flags() {
  static CudnnFlags flags;
  return flags;
}

size_t cudnn_cached_algorithms() {
  std::lock_guard<std::mutex> lock(g_choices_mutex);
  return g_choices.size();
}

void register_cudnn_kernels() {
  for (ScalarType t :
       {ScalarType::Float, ScalarType::Double, ScalarType::Half, ScalarType::BFloat16}) {
    register_kernel(Op::conv, DeviceType::CUDA, t, (void*)&conv_cuda);
    register_kernel(Op::conv_weight_grad, DeviceType::CUDA, t, (void*)&conv_weight_grad_cuda);
  }
}

}  // namespace tc::cuda
