// index.cpp — indexing kernels (gather, scatter, masked ops, ...).
#include "ops.h"

namespace tc {

void register_index_kernels() {}

}  // namespace tc
