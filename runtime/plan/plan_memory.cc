// Copyright 2026 The FX for C++ Authors.
//
// How an ExecutionPlan plans a specialisation's memory from the values of its
// first run (memory_planner.h), and how a run state makes the arena's tensors.
#include <algorithm>

#include <c10/core/Allocator.h>
#include <c10/core/Storage.h>
#include <ATen/ops/empty.h>

#include "absl/strings/str_cat.h"
#include "core/last_uses.h"
#include "runtime/plan/memory_planner.h"
#include "runtime/operator_aliasing.h"
#include "runtime/plan/out_variants.h"
#include "runtime/plan/plan_steps.h"
#include "runtime/value_conversion.h"

namespace fx {

void ExecutionPlan::plan_memory(const std::vector<c10::IValue>& values,
                                Specialisation& spec) const {
  if (!options_.plan_memory || !options_.inference_mode ||
      options_.device.type() == c10::kMeta) {
    return;
  }
  const size_t n = nodes_.size();
  // Which values may share memory: an operator's result and its inputs when
  // the schema says so (views, in-place ops) or the first run saw it; any
  // other call's result and all its inputs.
  AliasClasses sets(n);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = *nodes_[i].node;
    const Step& step = spec.steps[i];
    const bool functional = step.kind == StepKind::kOperator && is_functional_schema(*step.schema);
    for (const Node* input : node.input_nodes()) {
      const uint32_t j = slot_of_.at(input);
      if (!functional || shares_storage(values[i], values[j])) sets.unite(i, j);
    }
  }
  // Each set's lifetime: from its first definition to its last use.
  std::vector<int> first(n, static_cast<int>(n)), last(n, 0);
  std::vector<char> escapes(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = *nodes_[i].node;
    int last_use = static_cast<int>(i);
    for (const Node* user : node.users()) last_use = std::max<int>(last_use, slot_of_.at(user));
    const size_t root = sets.find(i);
    first[root] = std::min(first[root], static_cast<int>(i));
    last[root] = std::max(last[root], last_use);
    // What outlives the run never lives in the arena, nor anything sharing
    // its storage: the graph's outputs, and whatever is handed to code that
    // may keep it (a submodule's forward, a TorchScript function, a nested
    // graph: `self.prev = x` keeps x for the next call, which this run
    // state's next run would overwrite).
    const Step& step = spec.steps[i];
    const bool may_keep = node.op() == Op::kOutput ||
                          (step.kind == StepKind::kCall && step.builtin == Builtin::kNone);
    if (may_keep) {
      for (const Node* input : node.input_nodes()) escapes[sets.find(slot_of_.at(input))] = 1;
    }
    // So does whatever shares storage with the caller's inputs or the
    // module's state, or is stored into them (`cache.append(y)` on a list
    // given as an input, `x.set_(y)`).
    if (node.op() == Op::kPlaceholder || node.op() == Op::kGetAttr) escapes[root] = 1;
  }
  // Values computed from an attribute a module's code may rebind (read at
  // each run), or from what such code returns (`self.step += 1` then a
  // result whose dtype follows the state), may differ in dtype and shape
  // from this first run's under the same inputs, where an out= overload
  // would cast to the planned dtype: they are allocated by their
  // operators, as the first run's were.
  std::vector<char> varies(n, 0);
  for (size_t i = 0; i < n; ++i) {
    varies[i] = nodes_[i].target.attr_owner != nullptr || spec.steps[i].rebinds_module_state;
    for (const Node* input : nodes_[i].node->input_nodes()) varies[i] |= varies[slot_of_.at(input)];
  }
  // What goes into the arena: operator results written through `.out`
  // overloads, contraction results and their scratch.
  enum Role { kOutVariant, kContractionResult, kScratch };
  struct Placement {
    size_t step;
    Role role;
    int scratch = 0;  // kScratch: which
    PlannedTensorSpec spec;
  };
  std::vector<PlannedTensor> tensors;
  std::vector<Placement> placements;
  for (size_t i = 0; i < n; ++i) {
    const Step& step = spec.steps[i];
    if (step.kind != StepKind::kOperator || !values[i].isTensor() || varies[i]) continue;
    const size_t root = sets.find(i);
    const at::Tensor& t = values[i].toTensor();
    if (step.contraction != nullptr) {
      // Its result is new, dense and laid out as aten's; scratch lives
      // during the step only. (A contraction on another device than the
      // plan's, after a .cpu(), allocates its own.)
      if (t.device() != options_.device) continue;
      const Contraction& c = step.contraction->contraction;
      const size_t item = t.element_size();
      if (!escapes[root]) {
        // Its size when made (a later in-place op of the first run may have
        // resized the value).
        size_t numel = 1;
        for (int64_t size : c.out_sizes()) numel *= static_cast<size_t>(size);
        tensors.push_back({numel * item, first[root], last[root]});
        placements.push_back({i, kContractionResult, 0,
                              {t.scalar_type(), c.out_sizes(), c.out_strides(), 0, 0}});
      }
      for (int k = 0; k < 3; ++k) {
        const int64_t numel = c.scratch_numel(static_cast<Contraction::Scratch>(k));
        if (numel == 0) continue;
        tensors.push_back({static_cast<size_t>(numel) * item, static_cast<int>(i),
                           static_cast<int>(i)});
        placements.push_back({i, kScratch, k, {t.scalar_type(), {numel}, {1}, 0, 0}});
      }
      continue;
    }
    if (escapes[root]) continue;
    if (!t.defined() || t.device() != options_.device || t.layout() != c10::kStrided ||
        t.requires_grad() || t.numel() == 0 || !t.is_contiguous() || t.storage_offset() != 0 ||
        t.storage().nbytes() != t.nbytes()) {
      continue;
    }
    bool aliases_input = false;
    for (const Node* input : nodes_[i].node->input_nodes()) {
      aliases_input |= shares_storage(values[i], values[slot_of_.at(input)]);
    }
    if (aliases_input || !is_functional_schema(*step.schema)) continue;
    if (!find_out_variant(*step.schema)) continue;
    tensors.push_back({t.nbytes(), first[root], last[root]});
    placements.push_back(
        {i, kOutVariant, 0, {t.scalar_type(), t.sizes().vec(), t.strides().vec(), 0, 0}});
  }
  if (tensors.empty()) return;
  const ArenaLayout layout = plan_arena(tensors);
  for (size_t k = 0; k < placements.size(); ++k) {
    Placement& p = placements[k];
    Step& step = spec.steps[p.step];
    const int index = static_cast<int>(k);
    switch (p.role) {
      case kOutVariant: {
        const BoundOperator out = *find_out_variant(*step.schema);
        step.operation = out.operation();
        step.schema = out.schema;
        step.single_return = true;
        step.planned = index;
        ++spec.stats.out_variant_steps;
        break;
      }
      case kContractionResult:
        step.contraction->planned_result = index;
        break;
      case kScratch:
        step.contraction->planned_scratch[p.scratch] = index;
        break;
    }
    p.spec.offset = layout.offsets[k];
    p.spec.bytes = tensors[k].bytes;
    spec.planned.push_back(std::move(p.spec));
  }
  spec.arena_bytes = layout.arena_bytes;
  spec.stats.planned_bytes = layout.total_bytes;
  spec.stats.arena_bytes = layout.arena_bytes;
}

void ExecutionPlan::RunState::Impl::use(std::shared_ptr<const Specialisation> new_spec,
                                        const c10::Device& new_device) {
  spec = std::move(new_spec);
  device = new_device;
  planned.clear();
  arena = at::Tensor();
  if (spec->arena_bytes == 0) return;
  arena = at::empty({static_cast<int64_t>(spec->arena_bytes)},
                    at::TensorOptions().dtype(at::kByte).device(device));
  planned.reserve(spec->planned.size());
  for (const PlannedTensorSpec& p : spec->planned) planned.push_back(make_planned(p));
}

at::Tensor ExecutionPlan::RunState::Impl::make_planned(const PlannedTensorSpec& p) const {
  char* base = static_cast<char*>(arena.data_ptr()) + p.offset;
  // A storage of its own over the tensor's bytes of the arena, owning none:
  // an operator that grows the tensor reallocates this storage, never the
  // arena.
  c10::Storage storage(c10::Storage::use_byte_size_t(), p.bytes, at::DataPtr(base, device),
                       c10::GetAllocator(device.type()), /*resizable=*/true);
  at::Tensor t = at::empty({0}, at::TensorOptions().dtype(p.dtype).device(device));
  t.set_(storage, 0, p.sizes, p.strides);
  return t;
}

void ExecutionPlan::RunState::Impl::refresh_arena() {
  if (!spec) return;
  for (size_t k = 0; k < planned.size(); ++k) {
    const PlannedTensorSpec& p = spec->planned[k];
    if (planned[k].data_ptr() != static_cast<char*>(arena.data_ptr()) + p.offset) {
      planned[k] = make_planned(p);
    }
  }
}

}  // namespace fx
