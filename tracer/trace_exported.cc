// Copyright 2026 The FX for C++ Authors.
//
// Tracer::trace of a torch.export program: the program's graph read into the
// IR the way `ep.module()` presents it to torch.fx users, through the hooks a
// trace of a TorchScript module goes through, so every tracer extension works
// on it unchanged. See tracer.h ("Reading torch.export programs").
// program_walker.h says where the walker's parts live.
#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "core/well_known.h"
#include "tracer/program_walker.h"
#include "tracer/tracer.h"

namespace fx {
namespace tracer_internal {

void ProgramWalker::record_graph_meta(GraphModule& gm) {
  // Where the program came from, and the shapes its inputs must have
  // (runtime/input_constraints.h checks them at each run).
  Meta source{{"torch_version", program_.torch_version},
              {"schema_version", absl::StrCat(program_.schema_major, ".", program_.schema_minor)},
              {"layout", loaded_.layout == ep::ArchiveLayout::kLegacy ? "legacy" : "pt2"},
              {"root_type", root_type_}};
  if (!non_persistent_buffers_.empty()) {
    source.set("non_persistent_buffers",
               MetaValue::List(non_persistent_buffers_.begin(), non_persistent_buffers_.end()));
  }
  gm.meta().set(kExportedProgramKey, std::move(source));
  Meta symbols;
  for (const auto& [name, r] : program_.range_constraints) {
    symbols.set(name, MetaValue::List{r.min_val ? MetaValue(*r.min_val) : MetaValue(),
                                      r.max_val ? MetaValue(*r.max_val) : MetaValue()});
  }
  MetaValue::List inputs;
  for (Node* p : gm.graph().placeholders()) {
    // The program's value of this placeholder.
    std::string value_name;
    for (const auto& [n, v] : values_) {
      if (v.is_node() && v.to_node() == p) value_name = n;
    }
    auto tv = graph_.tensor_values.find(value_name);
    if (tv == graph_.tensor_values.end()) continue;
    MetaValue::List sizes;
    for (const ep::SymValue& s : tv->second.sizes) {
      if (s.kind == ep::SymValue::Kind::kExpr) {
        sizes.push_back(s.expr);
      } else {
        sizes.push_back(s.i);
      }
    }
    inputs.push_back(Meta{{"placeholder", p->name()}, {"sizes", std::move(sizes)}});
  }
  gm.meta().set(kInputConstraintsKey, Meta{{"symbols", std::move(symbols)}, {"inputs", std::move(inputs)}});
}

absl::Status ProgramWalker::prepare() { return build_root(); }

absl::StatusOr<GraphModule> ProgramWalker::run() {
  absl::StatusOr<const ModuleInfo*> root = info_for("");
  if (!root.ok()) return root.status();
  for (auto& ext : tracer_.extensions()) ext->begin_trace(tracer_, ModuleRef(*root));
  if (absl::Status s = add_placeholders(); !s.ok()) return s;
  if (absl::Status s = walk(0, {}); !s.ok()) return s;
  if (next_ != graph_.nodes.size()) {
    return absl::InternalError("the program's nodes were not all read (its module stacks are inconsistent)");
  }
  // State no node reads is still the program's (num_batches_tracked): its
  // get_attr goes before the output, for dead-code elimination to decide.
  for (const ep::InputSpec& s : program_.graph_module.input_specs) {
    if (lifted_.count(s.arg.names.empty() ? "" : s.arg.names[0]) > 0 && values_.count(s.arg.names[0]) == 0) {
      auto v = value(s.arg.names[0], "the program's state");
      if (!v.ok()) return v.status();
    }
  }
  if (absl::Status s = add_output(); !s.ok()) return s;
  record_graph_meta(*gm_);
  for (const std::string& w : loaded_.warnings) tracer_.warn(w);
  for (auto& ext : tracer_.extensions()) {
    if (absl::Status s = ext->end_trace(tracer_, *gm_); !s.ok()) return s;
  }
  return std::move(*gm_);
}

}  // namespace tracer_internal

using tracer_internal::ProgramWalker;

absl::StatusOr<GraphModule> Tracer::trace(const exported::LoadedProgram& program) {
  ProgramWalker walker(*this, program);
  if (absl::Status s = walker.prepare(); !s.ok()) return s;
  current_ = &walker.graph_module();
  reading_program_ = true;
  absl::Cleanup done = [this] {
    current_ = nullptr;
    reading_program_ = false;
  };
  return walker.run();
}

}  // namespace fx
