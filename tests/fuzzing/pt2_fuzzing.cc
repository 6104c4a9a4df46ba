// Copyright 2026 The FX for C++ Authors.
#include "tests/fuzzing/pt2_fuzzing.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/zeros.h>

#include <string>
#include <vector>

#include "runtime/input_constraints.h"
#include "tests/fuzzing/fuzz_check.h"
#include "tracer/tracer.h"

namespace fx {
namespace fuzzing {

void check_error(const absl::Status& status, const char* what) {
  if (status.ok()) return;
  const absl::string_view message = status.message();
  check(!message.empty(), what, "an empty error message");
  check(message.find('\n') == absl::string_view::npos, what, message);
  check(message.size() < 4000, what, message);
}

void add_state_from_meta(exported::LoadedProgram& loaded) {
  using Kind = exported::InputSpec::Kind;
  const exported::Graph& graph = loaded.program.graph_module.graph;
  for (const exported::InputSpec& s : loaded.program.graph_module.input_specs) {
    if (s.kind != Kind::kParameter && s.kind != Kind::kBuffer && s.kind != Kind::kTensorConstant) continue;
    if (s.arg.names.empty()) continue;
    auto meta = graph.tensor_values.find(s.arg.names[0]);
    if (meta == graph.tensor_values.end()) continue;
    auto dtype = exported::to_c10(meta->second.dtype);
    if (!dtype.ok() || c10::isQIntType(*dtype)) continue;
    std::vector<int64_t> sizes;
    int64_t numel = 1;
    for (const exported::SymValue& v : meta->second.sizes) {
      if (v.kind != exported::SymValue::Kind::kInt || v.i < 0 || v.i > 4096) return;
      sizes.push_back(v.i);
      numel *= v.i;
      if (numel > 4096) return;
    }
    at::Tensor t = at::zeros(sizes, at::TensorOptions().dtype(*dtype));
    (s.kind == Kind::kTensorConstant ? loaded.constants : loaded.state).emplace_back(s.target, t);
  }
}

void read_into_ir(const exported::LoadedProgram& loaded) {
  Tracer tracer;
  absl::StatusOr<GraphModule> gm = tracer.trace(loaded);
  if (!gm.ok()) {
    check_error(gm.status(), "tracing the program: error not one bounded line");
    return;
  }
  auto constraints = InputConstraints::from_graph(gm->graph());
  if (!constraints.ok()) check_error(constraints.status(), "input constraints: error not one bounded line");
}

}  // namespace fuzzing
}  // namespace fx
