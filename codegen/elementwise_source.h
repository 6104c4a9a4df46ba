// Copyright 2026 The FX for C++ Authors.
//
// elementwise_source.h: an fx::elementwise program (runtime/kernels/
// elementwise_kernels.h) as the C++ source of one loop, for KernelLibrary
// to compile. The interpreter runs a program instruction by instruction over
// blocks of 1,024 elements, through a register file in memory; the generated
// loop computes every instruction of one element in the CPU's registers and
// writes only the result, and the compiler vectorises it for the ISA chosen.
//
//   auto source = fx::codegen::elementwise_source(*program, {c10::kFloat, {false, true}});
//   auto library = fx::codegen::KernelLibrary::compile(*source, options);
//   auto kernel =
//   (*library)->function<fx::codegen::ElementwiseKernel>(fx::codegen::kElementwiseKernelName);
//   (*kernel)(inputs, out, n);  // inputs[j]: input j's data
//
// Contracts:
//   * The kernel computes, bit for bit, what fx::elementwise computes on its
//     fast path (a NaN where it gives a NaN, though maybe of another sign or
//     payload: IEEE 754 leaves those unspecified and compilers rewrite -x + 1
//     as 1 - x): every input of the dtype (float or double), the non-scalar
//     ones dense with n elements in one order, the scalar ones (0-dim) read
//     once; each operation rounded as aten's (no contraction into fused
//     multiply-adds: KernelLibrary compiles with -ffp-contract=off). The
//     output may be one of the inputs (each element is read before it is
//     written), but may not overlap one otherwise.
//   * The source contains no text of the program's origin: operations come
//     from a fixed table, operands are indices, and numbers are formatted by
//     the generator (hexadecimal floating point, exact, whatever the
//     locale). Numbers reach the loop as values the compiler cannot fold (x *
//     1 kept as a multiplication), so that a denormal is flushed where the
//     interpreter's is (torch.set_flush_denormal) and the rounding mode is
//     the run's.
//   * A program built in code is checked as parse() checks one: a result
//     read before it is made, or an input past the program's count, is an
//     error.
//   * A program the fast path does not run (subtracting a bool, which aten
//     refuses) or a dtype other than float and double is an error.
#ifndef FX_CODEGEN_ELEMENTWISE_SOURCE_H_
#define FX_CODEGEN_ELEMENTWISE_SOURCE_H_

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "runtime/kernels/elementwise_kernels.h"

namespace fx {
namespace codegen {

// The generated function: inputs[j] is input j's data (null for an input the
// program does not read), out the result's, n its number of elements.
using ElementwiseKernel = void(const void* const* inputs, void* out, int64_t n);
inline constexpr char kElementwiseKernelName[] = "fx_elementwise_kernel";

// What the kernel is specialised to.
struct ElementwiseSignature {
  c10::ScalarType dtype = c10::kFloat;
  // One per input: true where it is a 0-dim tensor (one value for every element).
  std::vector<bool> scalar_inputs;
};

// The source of kElementwiseKernelName for `program` and `signature`.
FX_API absl::StatusOr<std::string> elementwise_source(const ElementwiseProgram& program,
                                                      const ElementwiseSignature& signature);

// `value` as a C++ literal of type double, exactly (hexadecimal; infinities
// and NaN through builtins).
FX_API std::string double_literal(double value);

}  // namespace codegen
}  // namespace fx

#endif  // FX_CODEGEN_ELEMENTWISE_SOURCE_H_
