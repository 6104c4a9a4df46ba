// Copyright 2026 The FX for C++ Authors.
//
// compile.h: the `compile` pass: the fx::elementwise calls fuse_elementwise
// made become fx::compiled_elementwise calls (runtime/kernels/
// elementwise_kernels.h), which run each program as one generated C++ loop
// (docs/codegen.md): every operation of an element in the CPU's registers,
// vectorised by the machine's compiler for this CPU, where the interpreter
// passes each block through a register file in memory.
//
//   %relu = call_function[target=fx::elementwise](args = ('t0=add(i0,1.0);t1=relu(t0)', [%x]))
// becomes
//   %relu = call_function[target=fx::compiled_elementwise](args = ('t0=add(i0,1.0);t1=relu(t0)', [%x]))
//
// The kernels are compiled now, for the dtype and the 0-dim inputs shape_prop
// recorded (FX_CXX, FX_CACHE_DIR: codegen/kernel_library.h), so that a
// missing compiler is this pass's error, naming the fix, and the first run
// starts none. A call whose inputs shape_prop did not record is compiled at
// its first run. Other inputs at run time (another dtype, broadcasting, a
// layout the fast path does not take) run what fx::elementwise runs: the
// result is the same, bit for bit, either way. A program that subtracts a
// bool (aten refuses it, and so does the generator) is left as it was.
// fx::compiled_elementwise calls already in the graph (the pass run again, a
// graph file) have their kernels made too. A kernel that cannot be made
// fails the pass and leaves the graph as it was.
#ifndef FX_PASSES_COMPILE_COMPILE_H_
#define FX_PASSES_COMPILE_COMPILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "plugins/pass.h"
#include "plugins/registry.h"

namespace fx {

// What compile did.
struct FX_API CompileReport {
  // fx::elementwise calls now fx::compiled_elementwise.
  int calls = 0;
  // fx::compiled_elementwise calls the graph held already (an earlier run
  // of the pass, a graph file): their kernels are made as the others'.
  int already_compiled = 0;
  // Kernels made for either: compiled now, found in the disk cache, or
  // already loaded in this process.
  int compiled = 0;
  int from_disk_cache = 0;
  int already_loaded = 0;
  // Calls whose kernel is made at their first run (no shape_prop record).
  int at_first_run = 0;
  // Calls recorded with inputs the generated loop does not take (a dtype
  // other than float and double, several dtypes, not on the CPU): they run
  // what fx::elementwise runs.
  int interpreted = 0;
  // One line per call left as it was: its name and why.
  std::vector<std::string> left_alone;
};

// Compiles the elementwise programs of `module` (see the file comment), with
// the environment's compiler and cache. Errors name the node and the cause.
FX_API absl::StatusOr<CompileReport> compile_kernels(GraphModule& module);

class FX_API Compile : public Pass {
 public:
  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "compile".
FX_API void register_compile(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_COMPILE_COMPILE_H_
