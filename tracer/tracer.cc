// Copyright 2026 The FX for C++ Authors.
//
// fx::Tracer: the hook chains extensions take part in, and the trace options
// a traced module records. The entry points are the formats': tracing a
// TorchScript module (trace, trace_into) is torchscript/trace_module.cc, on
// the engine that walks TorchScript graphs (torchscript/trace_engine.h);
// reading a torch.export program is trace_exported.cc.
#include "tracer/tracer.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/meta.h"
#include "core/well_known.h"

namespace fx {

namespace {

MetaValue::List to_meta_list(const std::vector<std::string>& items) {
  return MetaValue::List(items.begin(), items.end());
}

std::vector<std::string> from_meta_list(const Meta& meta, absl::string_view key) {
  std::vector<std::string> out;
  if (const MetaValue* v = meta.find(key); v != nullptr && v->is_list()) {
    for (const MetaValue& item : v->to_list()) {
      if (item.is_string()) out.push_back(item.to_string());
    }
  }
  return out;
}

}  // namespace

void record_trace_options(const TraceOptions& options, GraphModule& gm) {
  gm.meta().set(kTraceOptionsKey,
                Meta{{"leaf_functions", to_meta_list(options.leaf_functions)},
                     {"trace_through_functions", to_meta_list(options.trace_through_functions)},
                     {"assertions", options.assertions == AssertionMode::kKeep ? "keep" : "drop"}});
}

TraceOptions recorded_trace_options(const GraphModule& gm) {
  TraceOptions options;
  const MetaValue* recorded = gm.meta().find(kTraceOptionsKey);
  if (recorded == nullptr || !recorded->is_map()) return options;
  const Meta& meta = recorded->to_map();
  options.leaf_functions = from_meta_list(meta, "leaf_functions");
  options.trace_through_functions = from_meta_list(meta, "trace_through_functions");
  if (const MetaValue* a = meta.find("assertions"); a != nullptr && a->is_string()) {
    options.assertions = a->to_string() == "drop" ? AssertionMode::kDrop : AssertionMode::kKeep;
  }
  return options;
}

Tracer::Tracer() = default;
Tracer::Tracer(TraceOptions options) : options_(std::move(options)) {}
Tracer::~Tracer() = default;

Tracer& Tracer::add_extension(std::shared_ptr<TracerExtension> extension) {
  extensions_.push_back(std::move(extension));
  return *this;
}

Graph& Tracer::graph() { return current_->graph(); }
GraphModule& Tracer::graph_module() { return *current_; }

bool Tracer::default_is_leaf_module(const ModuleRef& m) {
  return m.is_torch_nn() && !m.is_container();
}

bool Tracer::is_leaf_module(const ModuleRef& m) { return is_leaf_from(0, m); }

bool Tracer::is_leaf_from(size_t i, const ModuleRef& m) {
  if (i == extensions_.size()) return default_is_leaf_module(m);
  return extensions_[i]->is_leaf_module(*this, m,
                                        [this, i](const ModuleRef& mm) { return is_leaf_from(i + 1, mm); });
}

absl::StatusOr<Argument> Tracer::call_module(const ModuleRef& m, const ModuleForward& forward,
                                             const Arguments& args, const Kwargs& kwargs) {
  return call_module_from(0, m, forward, args, kwargs);
}

absl::StatusOr<Argument> Tracer::call_module_from(size_t i, const ModuleRef& m,
                                                  const ModuleForward& forward,
                                                  const Arguments& args, const Kwargs& kwargs) {
  if (i == extensions_.size()) {
    if (!reading_program_ && is_leaf_module(m)) {
      return Argument(create_proxy(Op::kCallModule, path_of_module(m), args, kwargs));
    }
    return forward(args, kwargs);
  }
  return extensions_[i]->call_module(
      *this, m, forward, args, kwargs,
      [this, i](const ModuleRef& mm, const ModuleForward& f, const Arguments& a, const Kwargs& k) {
        return call_module_from(i + 1, mm, f, a, k);
      });
}

Node* Tracer::create_proxy(Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                           absl::string_view name) {
  return create_proxy_from(0, op, target, std::move(args), std::move(kwargs), name);
}

Node* Tracer::create_proxy_from(size_t i, Op op, absl::string_view target, Arguments args,
                                Kwargs kwargs, absl::string_view name) {
  if (i == extensions_.size()) return create_node(op, target, std::move(args), std::move(kwargs), name);
  return extensions_[i]->create_proxy(
      *this, op, target, std::move(args), std::move(kwargs), name,
      [this, i](Op o, absl::string_view t, Arguments a, Kwargs k, absl::string_view nm) {
        return create_proxy_from(i + 1, o, t, std::move(a), std::move(k), nm);
      });
}

Node* Tracer::create_node(Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                          absl::string_view name) {
  return create_node_from(0, op, target, std::move(args), std::move(kwargs), name);
}

Node* Tracer::create_node_from(size_t i, Op op, absl::string_view target, Arguments args,
                               Kwargs kwargs, absl::string_view name) {
  if (i == extensions_.size()) {
    return current_->graph().create_node(op, target, std::move(args), std::move(kwargs), name);
  }
  return extensions_[i]->create_node(
      *this, op, target, std::move(args), std::move(kwargs), name,
      [this, i](Op o, absl::string_view t, Arguments a, Kwargs k, absl::string_view nm) {
        return create_node_from(i + 1, o, t, std::move(a), std::move(k), nm);
      });
}

}  // namespace fx
