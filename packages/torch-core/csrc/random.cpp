// random.cpp — random sampling. One Mersenne Twister stream per Generator, consumed in
// element order, so a seed reproduces the same tensors on a given build.
#include <algorithm>

#include "kernels.h"
#include "ops.h"

namespace tc {

Generator& default_generator() {
  static Generator g;
  return g;
}

static Generator& gen_or_default(Generator* g) { return g ? *g : default_generator(); }

namespace {

// Fill t element by element (in row-major order) with values from `draw`.
template <class T, class F>
void fill_with(const Tensor& t, F draw) {
  Tensor c = t.is_contiguous() ? t : empty_like(t);
  T* p = c.data_as<T>();
  int64_t n = c.numel();
  for (int64_t i = 0; i < n; i++) p[i] = draw();
  if (!c.same(t)) copy_(t, c);
}

template <class T>
void uniform_cpu(const Tensor& t, Generator& g, const RandomArgs& args) {
  double from = args.a, to = args.b;
  fill_with<T>(t, [&] {
    if constexpr (std::is_same_v<T, float>) {
      float uf = float(g.next() >> 40) * (1.0f / 16777216.0f);  // 24 random bits
      float r = float(from) + uf * float(to - from);
      return r < float(to) || from == to ? r : std::nextafter(float(to), float(from));
    } else if constexpr (std::is_same_v<T, double>) {
      return from + g.uniform() * (to - from);
    } else {  // 16-bit floats: as many random bits as the mantissa holds, so 1.0 never appears
      constexpr int bits = std::is_same_v<T, Half> ? 11 : 8;
      float uf = float(g.next() >> (64 - bits)) / float(1 << bits);
      return T(float(from) + uf * float(to - from));
    }
  });
}

template <class T>
void normal_cpu(const Tensor& t, Generator& g, const RandomArgs& args) {
  double mean = args.a, std = args.b, spare = 0;
  bool have = false;
  fill_with<T>(t, [&] {  // Box-Muller, two values per pair of uniforms
    double z;
    if (have) {
      z = spare;
      have = false;
    } else {
      double u1 = 1.0 - g.uniform(), u2 = g.uniform();
      double r = std::sqrt(-2.0 * std::log(u1));
      z = r * std::cos(2 * M_PI * u2);
      spare = r * std::sin(2 * M_PI * u2);
      have = true;
    }
    return T(typename AccOf<T>::type(mean + std * z));
  });
}

// integers in [low, low + range): args = (low, range)
template <class T>
void random_int_cpu(const Tensor& t, Generator& g, const RandomArgs& args) {
  int64_t low = args.low;
  uint64_t range = args.range;
  fill_with<T>(t, [&] {
    uint64_t r = uint64_t((static_cast<unsigned __int128>(g.next()) * range) >> 64);
    return T(typename AccOf<T>::type(int64_t(low + int64_t(r))));
  });
}

template <class T>
void bernoulli_cpu(const Tensor& t, Generator& g, const RandomArgs& args) {
  const double* pp = args.p.data_as<double>();
  int64_t n = args.p.numel();
  for (int64_t i = 0; i < n; i++)
    TC_CHECK(pp[i] >= 0 && pp[i] <= 1, Runtime,
             "bernoulli: expected all probabilities to be in [0, 1], but got ", pp[i]);
  int64_t i = 0;
  fill_with<T>(t, [&] { return T(typename AccOf<T>::type(g.uniform() < pp[i++] ? 1 : 0)); });
}

void multinomial_cpu(const Tensor& p, int64_t n, bool replacement, Generator& g,
                     const Tensor& out) {
  int64_t rows = p.size(0), k = p.size(1);
  int64_t* o = out.data_as<int64_t>();
  for (int64_t r = 0; r < rows; r++) {
    std::vector<double> w(p.data_as<double>() + r * k, p.data_as<double>() + (r + 1) * k);
    double total = 0;
    for (double x : w) {
      TC_CHECK(x >= 0 && std::isfinite(x), Runtime,
               "multinomial: probability tensor contains "
               "either inf, nan or an element < 0");
      total += x;
    }
    TC_CHECK(total > 0, Runtime, "multinomial: invalid distribution (sum of probabilities <= 0)");
    for (int64_t s = 0; s < n; s++) {
      double u = g.uniform() * total, acc = 0;
      int64_t pick = k - 1;
      for (int64_t j = 0; j < k; j++) {
        acc += w[j];
        if (u < acc && w[j] > 0) {
          pick = j;
          break;
        }
      }
      while (w[pick] == 0 && pick > 0) pick--;  // rounding at the top end
      o[r * n + s] = pick;
      if (!replacement) {
        total -= w[pick];
        w[pick] = 0;
        if (s + 1 < n)
          TC_CHECK(total > 0, Runtime,
                   "multinomial: invalid distribution: fewer non-zero "
                   "probabilities than samples requested without replacement");
      }
    }
  }
}

}  // namespace

// ---------------------------------------------------------------- front ends
static void sample(Op op, const Tensor& t, Generator* g, const RandomArgs& args) {
  if (t.numel() == 0) return;
  find_kernel<RandomFn>(op, t.device(), t.dtype())(t, gen_or_default(g), args);
}

void uniform_(const Tensor& t, double from, double to, Generator* gp) {
  TC_CHECK(is_floating(t.dtype()), Runtime, "uniform_: expected a floating-point tensor, got ",
           dtype_name(t.dtype()));
  TC_CHECK(from <= to, Runtime,
           "uniform_: expects to return a [from, to) range, but found from=", from, " > to=", to);
  sample(Op::uniform, t, gp, {from, to});
}

void normal_(const Tensor& t, double mean, double std, Generator* gp) {
  TC_CHECK(is_floating(t.dtype()), Runtime, "normal_: expected a floating-point tensor, got ",
           dtype_name(t.dtype()));
  TC_CHECK(std >= 0, Runtime, "normal_: expects std >= 0.0, but found std ", std);
  sample(Op::normal, t, gp, {mean, std});
}

void random_(const Tensor& t, int64_t low, int64_t high, Generator* gp) {
  TC_CHECK(low < high, Runtime, "random_: expected low < high, but got low=", low, ", high=", high);
  RandomArgs args;
  args.low = low;
  args.range = uint64_t(high) - uint64_t(low);
  sample(Op::random_int, t, gp, args);
}

void bernoulli_(const Tensor& t, const Tensor& p_in, Generator* gp) {
  Tensor p = contiguous(to_dtype(expand(p_in, t.sizes()), ScalarType::Double));
  check_same_device(t, p, "bernoulli_");
  RandomArgs args;
  args.p = p;
  sample(Op::bernoulli, t, gp, args);
}

Tensor randperm(int64_t n, ScalarType dtype, Generator* gp) {
  TC_CHECK(n >= 0, Runtime, "randperm: n must be non-negative, got ", n);
  Generator& g = gen_or_default(gp);
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; i++) perm[i] = i;
  for (int64_t i = n - 1; i > 0; i--) {  // Fisher-Yates
    int64_t j = int64_t((static_cast<unsigned __int128>(g.next()) * uint64_t(i + 1)) >> 64);
    std::swap(perm[i], perm[j]);
  }
  Tensor r = empty({n}, ScalarType::Long);
  std::copy(perm.begin(), perm.end(), r.data_as<int64_t>());
  return to_dtype(r, dtype);
}

Tensor multinomial(const Tensor& probs, int64_t n, bool replacement, Generator* gp) {
  TC_CHECK(probs.dim() == 1 || probs.dim() == 2, Runtime,
           "multinomial: prob_dist must be 1 or 2 "
           "dim, got shape ",
           shape_str(probs.sizes()));
  TC_CHECK(is_floating(probs.dtype()), Runtime,
           "multinomial: expected a floating-point tensor, got ", dtype_name(probs.dtype()));
  TC_CHECK(n > 0, Runtime, "multinomial: cannot sample n_sample <= 0 samples");
  Tensor p =
      contiguous(to_dtype(probs.dim() == 1 ? unsqueeze(probs, 0) : probs, ScalarType::Double));
  int64_t rows = p.size(0), k = p.size(1);
  TC_CHECK(replacement || n <= k, Runtime,
           "multinomial: cannot sample n_sample > prob_dist.size(-1) "
           "samples without replacement (",
           n, " > ", k, ")");
  Tensor out = empty({rows, n}, ScalarType::Long, p.device());
  find_kernel<MultinomialFn>(Op::multinomial, p.device(), ScalarType::Double)(
      p, n, replacement, gen_or_default(gp), out);
  return probs.dim() == 1 ? view(out, {n}) : out;
}

void register_random_kernels() {
  reg_each<TC_FLOATS>(Op::uniform, TC_KERNEL(uniform_cpu));
  reg_each<TC_FLOATS>(Op::normal, TC_KERNEL(normal_cpu));
  reg_each<TC_ALL>(Op::random_int, TC_KERNEL(random_int_cpu));
  reg_each<TC_ALL>(Op::bernoulli, TC_KERNEL(bernoulli_cpu));
  reg_each<double>(Op::multinomial, [](auto) { return (void*)&multinomial_cpu; });
}

}  // namespace tc
