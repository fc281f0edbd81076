// fused.h — the program format of torch.jit's fused elementwise kernels, shared by the CPU
// runner (fused.cpp) and the CUDA one (cuda_fused.cpp).
//
// A program is a list of instructions over registers: registers 0..n_inputs-1 hold the
// inputs (read only), the others temporaries and the outputs. torch/jit/_fuser.py writes
// the programs; check_program refuses any that reads a register before it is written.
#pragma once
#include <cstdint>
#include <vector>

#include "core.h"

namespace tc {

// The op codes: torch/jit/_fuser.py's OPS lists the same names in the same order.
enum FusedOp : int {
  // d = a op b (registers)
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMaximum,
  kMinimum,
  // d = f(a, c) (c the instruction's scalar)
  kAddC,
  kSubC,   // a - c
  kRSubC,  // c - a
  kMulC,
  kDivC,       // a / c
  kRDivC,      // c / a
  kPowC,       // pow(a, c)
  kLeakyRelu,  // a > 0 ? a : a c
  kClampLo,    // a <= c ? c : a (hardtanh's lower bound; NaN stays NaN)
  kClampHi,    // a >= c ? c : a
  // d = f(a)
  kNeg,
  kAbs,
  kRelu,
  kSigmoid,
  kTanh,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kErf,
  kGelu,
  kGeluTanh,
  kSilu,
  kSin,
  kCos,
  kNumOps
};
constexpr int kFirstScalarOp = kAddC;  // ops before it read two registers, the others one
constexpr int kMaxRegs = 64;           // registers of a program (inputs included)

struct FusedInstr {
  int op, d, a, b;
  double c;
};

// A checked program: every register read was written before (or is an input), every
// destination is a temporary different from the instruction's sources.
struct FusedProgram {
  std::vector<FusedInstr> code;
  int n_inputs = 0, n_regs = 0;
  std::vector<int> outputs;
  uint64_t deps[kMaxRegs] = {};  // bit j: the register's value depends on input j (< 64 each)
};

// `code` holds 4 ints an instruction (op, dst, a, b), `consts` one scalar an instruction.
// Raises ValueError naming the instruction for anything out of range or read unwritten.
FusedProgram check_program(const std::vector<int64_t>& code, const std::vector<double>& consts,
                           int64_t n_inputs, const std::vector<int64_t>& outputs);

// The inputs' walk over the output shape with adjacent dims merged where every input allows
// (a contiguous tensor of any rank becomes one dim): sizes, and each input's element
// strides over them (0 where it broadcasts). At least one dim (size 1 for one element).
struct MergedDims {
  std::vector<int64_t> sizes;
  std::vector<std::vector<int64_t>> strides;
};
MergedDims merge_dims(const std::vector<Tensor>& inputs, const Shape& shape);

}  // namespace tc

namespace tc::cuda {
// The program's outputs for CUDA inputs of one dtype (float32 or float64) on one device,
// broadcast to `shape` (the caller checked both): one generated kernel, compiled by NVRTC
// on first use and cached. Empty when the kernel's arguments would exceed what a launch
// takes (very many inputs over many dims): the caller then runs the ops one by one.
std::vector<Tensor> run_fused(const FusedProgram& p, const std::vector<Tensor>& inputs,
                              const Shape& shape);
// (name, source) of a few programs covering every op code, for the compile-everything test.
void append_fused_kernel_sources(std::vector<std::pair<std::string, std::string>>& all);
}  // namespace tc::cuda
