// Copyright 2026 The FX for C++ Authors.
#include "passes/compile/compile.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/generated_elementwise.h"
#include "passes/support/convolution_call.h"
#include "runtime/kernels/elementwise_kernels.h"

namespace fx {
namespace {

// The dtype shape_prop recorded for the program's inputs, and which of them
// are 0-dim (per input; false for those the program does not read).
struct Signature {
  c10::ScalarType dtype = c10::kFloat;
  std::vector<bool> scalar_inputs;
};

// What the record says of a call's kernel.
enum class Recorded {
  kSignature,   // a float or double signature the pass compiles now
  kNothing,     // an input read has no record: made at the first run
  kInterpreted  // another dtype, inputs of several dtypes, not on the CPU:
                // the fast path does not run them, fx::elementwise's does
};

Recorded recorded_signature(const std::vector<Argument>& inputs,
                            const ElementwiseDependencies& dependencies, Signature& s) {
  std::string dtype;
  s.scalar_inputs.assign(dependencies.read.size(), false);
  for (size_t j = 0; j < dependencies.read.size(); ++j) {
    if (!dependencies.read[j]) continue;
    if (j >= inputs.size() || !inputs[j].is_node()) return Recorded::kNothing;
    std::optional<TensorInfo> info = tensor_info(*inputs[j].to_node());
    if (!info) return Recorded::kNothing;
    if (info->device != "cpu") return Recorded::kInterpreted;
    if (dtype.empty()) dtype = info->dtype;
    if (info->dtype != dtype) return Recorded::kInterpreted;
    s.scalar_inputs[j] = info->shape.empty();
  }
  if (dtype == "torch.float32") {
    s.dtype = c10::kFloat;
  } else if (dtype == "torch.float64") {
    s.dtype = c10::kDouble;
  } else {
    return dtype.empty() ? Recorded::kNothing : Recorded::kInterpreted;
  }
  return Recorded::kSignature;
}

}  // namespace

absl::StatusOr<CompileReport> compile_kernels(GraphModule& module) {
  CompileReport report;
  const codegen::CompilerOptions options = codegen::CompilerOptions::from_environment();
  // Retargeted once every kernel is made: a failure leaves the graph as it was.
  std::vector<Node*> to_compiled;
  for (Node* node : module.graph().nodes()) {
    if (node->op() != Op::kCallFunction) continue;
    const bool compiled = node->target() == kCompiledElementwise;
    if (!compiled && node->target() != kElementwise) continue;
    if (node->args().size() != 2 || !node->args()[0].is_string() || !node->args()[1].is_list() ||
        !node->kwargs().empty()) {
      if (compiled) continue;  // the operator refuses it when it runs, naming what it takes
      report.left_alone.push_back(
          absl::StrCat(node->name(), ": not a call fuse_elementwise makes (a program literal and "
                                     "a list of inputs)"));
      continue;
    }
    absl::StatusOr<ElementwiseProgram> program =
        ElementwiseProgram::parse(node->args()[0].to_string());
    if (!program.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node->name(), "': ", program.status().message()));
    }
    const ElementwiseDependencies dependencies = elementwise_dependencies(*program);
    if (dependencies.subtracts_bool >= 0) {
      if (compiled) continue;  // runs aten's operators, as fx::elementwise does
      report.left_alone.push_back(absl::StrCat(
          node->name(), ": instruction ", dependencies.subtracts_bool,
          " subtracts a bool, which aten refuses; fx::elementwise runs aten's operators"));
      continue;
    }
    Signature signature;
    switch (recorded_signature(node->args()[1].elements(), dependencies, signature)) {
      case Recorded::kSignature: {
        codegen::ElementwiseKernelOrigin origin;
        absl::StatusOr<ElementwiseKernelFn> kernel = codegen::elementwise_kernel(
            *program, signature.dtype, signature.scalar_inputs, options, &origin);
        if (!kernel.ok()) {
          return absl::Status(
              kernel.status().code(),
              absl::StrCat("compile: the kernel of node '", node->name(),
                           "' could not be made: ", kernel.status().message(),
                           " (or leave compile out of the pipeline: "
                           "fx::elementwise computes the same without a compiler)"));
        }
        if (!origin.made_in_this_process) {
          ++report.already_loaded;
        } else if (origin.compiled) {
          ++report.compiled;
        } else {
          ++report.from_disk_cache;
        }
        break;
      }
      case Recorded::kNothing:
        ++report.at_first_run;
        break;
      case Recorded::kInterpreted:
        ++report.interpreted;
        break;
    }
    if (compiled) {
      ++report.already_compiled;
    } else {
      to_compiled.push_back(node);
    }
  }
  for (Node* node : to_compiled) node->set_target(kCompiledElementwise);
  report.calls = static_cast<int>(to_compiled.size());
  return report;
}

absl::Status Compile::run(GraphModule& module, PassContext& context) {
  absl::StatusOr<CompileReport> report = compile_kernels(module);
  if (!report.ok()) return report.status();
  if (report->calls == 0 && report->already_compiled == 0 && report->left_alone.empty()) {
    context.warn(
        "compile: the graph calls no fx::elementwise, so there is nothing to compile: run "
        "fuse_elementwise before it (--passes='shape_prop,fuse_elementwise,compile')");
  }
  if (!report->left_alone.empty()) {
    context.warn(absl::StrCat("compile: ", report->left_alone.size(),
                              " call(s) left to fx::elementwise: ",
                              absl::StrJoin(report->left_alone, "; ")));
  }
  return absl::OkStatus();
}

void register_compile(PluginRegistrar& registrar) {
  registrar.add_pass<Compile>(
      "compile",
      "generates C++ for the fx::elementwise calls fuse_elementwise made and compiles it with "
      "the machine's compiler (FX_CXX, cached in FX_CACHE_DIR): each chain runs as one loop "
      "in the CPU's registers; run after shape_prop and fuse_elementwise");
}

}  // namespace fx
