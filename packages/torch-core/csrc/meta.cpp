// meta.cpp — the meta device: tensors with a shape, strides and dtype but no memory.
//
// Its kernels do nothing, so an op whose C++ front end only checks arguments, computes the
// output's shape and allocates it runs on meta tensors: shape and dtype inference without
// computing anything (elementwise ops, reductions, matrix products, views, random sampling).
// Every other op finds no meta kernel in the table and raises NotImplementedError naming the
// device, which is how a test proves that no op path reads tensor memory behind the dispatch table.
#include "kernels.h"
#include "ops.h"

namespace tc {

namespace {

struct MetaAllocator : Allocator {
  StoragePtr allocate(size_t nbytes) override {
    auto s = std::make_shared<Storage>();  // data stays null: nothing may read it
    s->nbytes = nbytes;
    return s;
  }
};
MetaAllocator g_meta_allocator;

void elementwise_nothing(ElementwiseIter&) {}
void reduce_nothing(ReduceIter&) {}
void gemm_nothing(const GemmArgs&) {}
void sample_nothing(const Tensor&, Generator&, const RandomArgs&) {}
void multinomial_nothing(const Tensor&, int64_t, bool, Generator&, const Tensor&) {}

// Every dtype of the meta device gets the do-nothing kernel `fn`.
template <class Fn>
void register_all_dtypes(Op op, Fn fn) {
  reg_each<TC_ALL, TC_COMPLEX>(
      op, [fn](auto) { return reinterpret_cast<void*>(fn); }, DeviceType::Meta);
}

}  // namespace

void register_meta_device() {
  set_allocator(DeviceType::Meta, &g_meta_allocator);
  set_allocator(DeviceType::SparseBase, &g_meta_allocator);  // no memory, and no kernels
  // elementwise ops are listed first in TC_FORALL_OPS, up to copy and fill
  static_assert(int(Op::exp) == 0 && int(Op::fill) + 1 == int(Op::to_host));
  for (int op = 0; op <= int(Op::fill); op++) register_all_dtypes(Op(op), &elementwise_nothing);
  for (int op = int(Op::sum); op <= int(Op::argmin); op++)
    register_all_dtypes(Op(op), &reduce_nothing);
  register_all_dtypes(Op::gemm, &gemm_nothing);
  for (Op op : {Op::uniform, Op::normal, Op::random_int, Op::bernoulli})
    register_all_dtypes(op, &sample_nothing);
  register_all_dtypes(Op::multinomial, &multinomial_nothing);
}

}  // namespace tc
