// Copyright 2026 The FX for C++ Authors.
//
// generated_elementwise.h: the kernels fx::compiled_elementwise runs
// (runtime/kernels/elementwise_kernels.h): an fx::elementwise program written
// as one loop (elementwise_source.h), compiled for this CPU and cached on
// disk (kernel_library.h), loaded once per process.
//
//   absl::StatusOr<fx::ElementwiseKernelFn> kernel = fx::codegen::elementwise_kernel(
//       *fx::ElementwiseProgram::parse("t0=add(i0,1.0);t1=relu(t0)"), c10::kFloat, {false});
//
// Contracts:
//   * Libraries stay loaded for the life of the process: a kernel is held by
//     every plan that ran it, with no owner to outlive. One per program,
//     dtype and 0-dim pattern, made once per process (threads asking at once
//     wait for one compiler), and found in the disk cache by later processes.
//     A failure is returned to the callers waiting for it and not kept: the
//     next ask tries again (a compiler stopped at its timeout, a full disk).
//   * Linking this library installs the maker fx::compiled_elementwise asks
//     (libfx.so links it), with the environment's compiler and cache as the
//     compile pass reads them: a kernel that cannot be made (no compiler, a
//     cache folder refused) is said through c10's warning handler, each
//     distinct cause once per process, and the operator runs the
//     interpreter for that program and signature, computing the same.
#ifndef FX_CODEGEN_GENERATED_ELEMENTWISE_H_
#define FX_CODEGEN_GENERATED_ELEMENTWISE_H_

#include <c10/core/ScalarType.h>

#include <vector>

#include "absl/status/statusor.h"
#include "codegen/kernel_library.h"
#include "core/export.h"
#include "runtime/kernels/elementwise_kernels.h"

namespace fx {
namespace codegen {

// What elementwise_kernel did for a caller (the compile pass's report).
struct ElementwiseKernelOrigin {
  bool made_in_this_process = false;  // false: this process had it already
  bool compiled = false;              // a compiler ran (not found in the disk cache)
};

// The kernel of `program` for `dtype` (float or double) and for which of its
// inputs are 0-dim (`scalar_inputs`, one per input), compiled with `options`.
// Errors name the cause and the fix (kernel_library.h, elementwise_source.h).
FX_API absl::StatusOr<ElementwiseKernelFn> elementwise_kernel(
    const ElementwiseProgram& program, c10::ScalarType dtype,
    const std::vector<bool>& scalar_inputs,
    const CompilerOptions& options = CompilerOptions::from_environment(),
    ElementwiseKernelOrigin* origin = nullptr);

}  // namespace codegen
}  // namespace fx

#endif  // FX_CODEGEN_GENERATED_ELEMENTWISE_H_
