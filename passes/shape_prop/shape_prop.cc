// Copyright 2026 The FX for C++ Authors.
#include "passes/shape_prop/shape_prop.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/printer.h"
#include "core/well_known.h"
#include "passes/support/state_shadow.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/meta_device.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace {

MetaValue int_list(c10::IntArrayRef values) {
  MetaValue::List out;
  out.reserve(values.size());
  for (int64_t v : values) out.emplace_back(v);
  return out;
}

// torch.fx's _extract_tensor_metadata, plus the device. A tensor on the meta
// device is recorded as if on `meta_means`.
Meta tensor_metadata(const at::Tensor& t, const c10::Device& meta_means) {
  const bool strided = t.layout() == c10::kStrided;
  MetaValue memory_format;
  if (strided) {
    for (c10::MemoryFormat f : {c10::MemoryFormat::Contiguous, c10::MemoryFormat::ChannelsLast,
                                c10::MemoryFormat::ChannelsLast3d}) {
      if (t.is_contiguous(f)) {
        memory_format = python_memory_format_name(f);
        break;
      }
    }
  }
  return Meta{{"shape", int_list(t.sizes())},
              {"dtype", python_dtype_name(t.scalar_type())},
              {"requires_grad", t.requires_grad()},
              {"stride", strided ? int_list(t.strides()) : MetaValue()},
              {"memory_format", std::move(memory_format)},
              {"is_quantized", t.is_quantized()},
              {"device", (t.is_meta() ? meta_means : t.device()).str()}};
}

// The tensor_meta of a value (see the header): sequences and string-keyed
// dicts mirrored, None for what is not a tensor. `found` is set when a tensor
// is in it.
MetaValue value_meta(const c10::IValue& v, const c10::Device& meta_means, bool* found) {
  if (v.isTensor()) {
    if (!v.toTensor().defined()) return MetaValue();
    *found = true;
    return tensor_metadata(v.toTensor(), meta_means);
  }
  if (v.isTuple() || v.isList()) {
    MetaValue::List items;
    for (const c10::IValue& item : sequence_elements(v)) {
      items.push_back(value_meta(item, meta_means, found));
    }
    return items;
  }
  if (v.isGenericDict()) {
    Meta items;
    for (const auto& entry : v.toGenericDict()) {
      if (!entry.key().isString()) return MetaValue();
      items.set(entry.key().toStringRef(), value_meta(entry.value(), meta_means, found));
    }
    return items;
  }
  return MetaValue();
}

// The device tensors computed on the meta device would have had in the real
// run: the first tensor input's, else the CPU.
c10::Device real_device_of(const std::vector<c10::IValue>& inputs) {
  for (const c10::IValue& input : inputs) {
    if (input.isTensor() && input.toTensor().defined() && !input.toTensor().is_meta()) {
      return input.toTensor().device();
    }
  }
  return c10::Device(c10::kCPU);
}

absl::Status check_input_count(const Graph& graph, size_t given) {
  const std::vector<Node*> placeholders = graph.placeholders();
  size_t required = 0;
  for (const Node* p : placeholders) required += p->args().empty() ? 1 : 0;
  if (given >= required && given <= placeholders.size()) return absl::OkStatus();
  const std::string expected =
      required == placeholders.size()
          ? absl::StrCat(required)
          : absl::StrCat(required, " to ", placeholders.size());
  return absl::InvalidArgumentError(absl::StrCat(
      "shape_prop needs ", expected, " example input(s), one per placeholder (",
      absl::StrJoin(placeholders, ", ", NodeNameFormatter()), "), but ", given,
      given == 1 ? " was" : " were", " given"));
}

bool is_call(const Node& node) {
  return node.op() == Op::kCallFunction || node.op() == Op::kCallMethod ||
         node.op() == Op::kCallModule;
}

using Results = absl::flat_hash_map<const Node*, MetaValue>;

// Records what each node produced, on the CPU.
class RecordingRun : public Interpreter {
 public:
  RecordingRun(GraphModule& module, Results& results)
      : Interpreter(module), results_(results), cpu_(c10::kCPU) {}

 protected:
  absl::StatusOr<c10::IValue> run_node(const Node& node) override {
    absl::StatusOr<c10::IValue> value = Interpreter::run_node(node);
    if (value.ok()) {
      bool found = false;
      MetaValue meta = value_meta(*value, cpu_, &found);
      if (found) results_[&node] = std::move(meta);
    }
    return value;
  }

 private:
  Results& results_;
  c10::Device cpu_;
};

// Real values of single nodes, for the meta run's fallbacks: each request
// runs, in graph order, only the nodes the requested one depends on (and, in a
// graph that changes values in place, every in-place node before it and what
// that depends on), on fresh copies of the example inputs.
class ShadowRun : public Interpreter {
 public:
  ShadowRun(GraphModule& module, const std::vector<c10::IValue>& inputs)
      : Interpreter(module), inputs_(inputs) {
    const Graph& graph = module.graph();
    graph.ensure_order();
    for (const Node* n : graph.nodes()) {
      const bool check = n->op() == Op::kCallFunction && is_assertion_target(n->target());
      if (is_call(*n) && n->is_impure() && !check) in_place_.push_back(n);
    }
  }

  absl::StatusOr<c10::IValue> compute(const Node& target) {
    // Values a later request may need are kept, unless an in-place node could
    // have changed them since (then every request starts afresh).
    if (!in_place_.empty()) known_.clear();
    if (auto it = known_.find(&target); it != known_.end()) return it->second;
    needed_.clear();
    add_with_inputs(&target);
    for (const Node* n : in_place_) {
      if (Graph::order_of(*n) < Graph::order_of(target)) add_with_inputs(n);
    }
    std::vector<c10::IValue> inputs;
    inputs.reserve(inputs_.size());
    for (const c10::IValue& input : inputs_) inputs.push_back(deep_copy(input));
    // Each request runs from the module's own state.
    if (state_ == nullptr) {
      auto shadow = StateShadow::enter(module());
      if (!shadow.ok()) return shadow.status();
      state_ = *std::move(shadow);
    } else if (absl::Status s = state_->renew(); !s.ok()) {
      return s;
    }
    absl::StatusOr<c10::IValue> ran = run(std::move(inputs));
    if (!ran.ok()) return ran.status();
    return known_.at(&target);
  }

 protected:
  absl::StatusOr<c10::IValue> run_node(const Node& node) override {
    if (auto it = known_.find(&node); it != known_.end()) return it->second;
    if (!needed_.contains(&node)) return c10::IValue();
    absl::StatusOr<c10::IValue> value = Interpreter::run_node(node);
    if (value.ok()) known_[&node] = *value;
    return value;
  }

 private:
  void add_with_inputs(const Node* node) {
    std::vector<const Node*> stack = {node};
    while (!stack.empty()) {
      const Node* n = stack.back();
      stack.pop_back();
      if (known_.contains(n) || !needed_.insert(n).second) continue;
      for (const Node* input : n->input_nodes()) stack.push_back(input);
    }
  }

  const std::vector<c10::IValue>& inputs_;
  std::unique_ptr<StateShadow> state_;  // made before the first run
  std::vector<const Node*> in_place_;
  absl::flat_hash_set<const Node*> needed_;
  absl::flat_hash_map<const Node*, c10::IValue> known_;
};

// Runs a copy of the graph on the meta device; a node that fails there gets
// its value from the shadow run on real tensors.
class MetaRun : public Interpreter {
 public:
  MetaRun(GraphModule& meta_module, absl::flat_hash_map<const Node*, const Node*> original_of,
          ShadowRun& shadow, const c10::Device& real_device, Results& results,
          std::vector<std::string>& fallbacks)
      : Interpreter(meta_module),
        original_of_(std::move(original_of)),
        shadow_(shadow),
        real_device_(real_device),
        results_(results),
        fallbacks_(fallbacks) {}

 protected:
  absl::StatusOr<c10::IValue> run_node(const Node& node) override {
    const Node& original = *original_of_.at(&node);
    absl::StatusOr<c10::IValue> value = Interpreter::run_node(node);
    if (!value.ok() && is_call(node)) {
      absl::StatusOr<c10::IValue> real = shadow_.compute(original);
      if (!real.ok()) return real.status();  // fails for real too: the real error
      fallbacks_.push_back(node.name());
      record(original, *real);
      return to_meta(*real);
    }
    if (value.ok()) record(original, *value);
    return value;
  }

 private:
  void record(const Node& node, const c10::IValue& value) {
    bool found = false;
    MetaValue meta = value_meta(value, real_device_, &found);
    if (found) results_[&node] = std::move(meta);
  }

  absl::flat_hash_map<const Node*, const Node*> original_of_;
  ShadowRun& shadow_;
  c10::Device real_device_;
  Results& results_;
  std::vector<std::string>& fallbacks_;
};

absl::Status propagate_on_meta(GraphModule& module, const std::vector<c10::IValue>& inputs,
                               Results& results, std::vector<std::string>& fallbacks) {
  ensure_meta_kernels();
  // The module's state on the meta device, its code and script functions shared.
  NodeMap copy_of;
  GraphModule meta_module(module_on_meta(module.root()), module.graph().copy(&copy_of),
                          module.class_name());
  for (const auto& [name, value] : module.own_attributes()) {
    if (absl::Status s = meta_module.add_attribute(name, state_to_meta(value)); !s.ok()) return s;
  }
  meta_module.set_script_functions(module.script_functions());
  absl::flat_hash_map<const Node*, const Node*> original_of;
  for (const auto& [original, copy] : copy_of) original_of.emplace(copy, original);

  std::vector<c10::IValue> meta_inputs;
  meta_inputs.reserve(inputs.size());
  for (const c10::IValue& input : inputs) meta_inputs.push_back(to_meta(input));
  ShadowRun shadow(module, inputs);
  MetaRun run(meta_module, std::move(original_of), shadow, real_device_of(inputs), results,
              fallbacks);
  return run.run(std::move(meta_inputs)).status();
}

}  // namespace

MetaValue tensor_meta_of(const c10::IValue& value) {
  bool found = false;
  MetaValue meta = value_meta(value, c10::Device(c10::kMeta), &found);
  return found ? meta : MetaValue();
}

absl::StatusOr<ShapePropReport> propagate_shapes(GraphModule& module,
                                                 const std::vector<c10::IValue>& example_inputs,
                                                 const ShapePropOptions& options) {
  if (absl::Status s = check_input_count(module.graph(), example_inputs.size()); !s.ok()) {
    return s;
  }
  ShapePropReport report;
  report.device = options.device;
  Results results;
  try {
    if (options.device == ShapePropDevice::kMeta) {
      if (absl::Status s = propagate_on_meta(module, example_inputs, results,
                                             report.fallback_nodes);
          !s.ok()) {
        return s;
      }
    } else {
      std::vector<c10::IValue> inputs;
      inputs.reserve(example_inputs.size());
      for (const c10::IValue& input : example_inputs) inputs.push_back(deep_copy(input));
      auto state = StateShadow::enter(module);
      if (!state.ok()) return state.status();
      RecordingRun run(module, results);
      if (absl::Status ran = run.run(std::move(inputs)).status(); !ran.ok()) return ran;
    }
  } catch (const std::exception& e) {  // libtorch outside a node (copying the state)
    return absl::InternalError(absl::StrCat("shape_prop: ", exception_message(e)));
  }
  // Only a run that succeeded changes meta, and what it says replaces what an
  // earlier run said.
  for (Node* n : module.graph().nodes()) {
    if (auto it = results.find(n); it != results.end()) {
      n->meta().set(kTensorMetaKey, std::move(it->second));
    } else {
      n->meta().erase(kTensorMetaKey);
    }
  }
  MetaValue::List fallback_nodes(report.fallback_nodes.begin(), report.fallback_nodes.end());
  module.meta().set(kShapePropKey,
                    Meta{{"device", options.device == ShapePropDevice::kMeta ? "meta" : "cpu"},
                         {"fallback_nodes", std::move(fallback_nodes)}});
  return report;
}

absl::Status ShapeProp::run(GraphModule& module, PassContext& context) {
  const std::vector<c10::IValue>* inputs = context.example_inputs();
  if (inputs == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "shape_prop runs the graph and needs example inputs, one per placeholder (",
        absl::StrJoin(module.graph().placeholders(), ", ", NodeNameFormatter()),
        "): give fxrun --input-shape=SHAPES (e.g. 1,3,224,224; ';' between inputs) or "
        "--input=FILE (saved with torch.save)"));
  }
  ShapePropOptions options;
  options.device = *device == "meta" ? ShapePropDevice::kMeta : ShapePropDevice::kCpu;
  absl::StatusOr<ShapePropReport> report = propagate_shapes(module, *inputs, options);
  if (!report.ok()) return report.status();
  const std::vector<std::string>& fallbacks = report->fallback_nodes;
  if (!fallbacks.empty()) {
    constexpr size_t kShown = 10;
    const std::vector<std::string> shown(fallbacks.begin(),
                                         fallbacks.begin() + std::min(fallbacks.size(), kShown));
    context.warn(absl::StrCat(
        "shape_prop{device=meta}: ", fallbacks.size(),
        " node(s) ran on real CPU tensors, which the meta device cannot run: ",
        absl::StrJoin(shown, ", "),
        fallbacks.size() > kShown ? absl::StrCat(" and ", fallbacks.size() - kShown, " more")
                                  : ""));
  }
  return absl::OkStatus();
}

void register_shape_prop(PluginRegistrar& registrar) {
  registrar.add_pass<ShapeProp>(
      "shape_prop",
      "runs the graph on example inputs and records each node's meta['tensor_meta'] (shape, "
      "dtype, stride, ...)");
}

}  // namespace fx
