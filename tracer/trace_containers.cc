// Copyright 2026 The FX for C++ Authors.
//
// Lists, tuples and dicts built and changed in the code. Lists are mutable
// trace values shared by every name bound to them (`out.append(x)`), so they
// can hold traced values; all-known containers are IValues.
#include "absl/strings/str_cat.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"
#include "tracer/trace_engine.h"
#include "core/well_known.h"

namespace fx {
namespace tracer_internal {
namespace {

// `index` into a sequence of `size` elements as Python reads it (negative
// from the end); nullopt when out of range.
c10::optional<size_t> python_index(int64_t index, size_t size) {
  const int64_t n = static_cast<int64_t>(size);
  const int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) return c10::nullopt;
  return static_cast<size_t>(i);
}

}  // namespace

absl::Status TraceEngine::run_construct(const jit::Node* n, Frame& frame) {
  std::vector<TraceValue> inputs = inputs_of(n, frame);
  const c10::TypePtr& type = n->output()->type();
  if (n->kind() == c10::prim::ListConstruct) {
    // Lists that may hold tensors, or that start empty (to be appended to),
    // stay mutable abstract lists; all-constant lists are IValues.
    bool concrete = !inputs.empty() && !type_contains_tensor(type);
    for (const TraceValue& v : inputs) concrete = concrete && v.is_known();
    if (!concrete) {
      frame.values[n->output()] = TraceValue::list(std::move(inputs));
      return absl::OkStatus();
    }
  }
  std::vector<c10::IValue> values;
  bool concrete = true;
  for (size_t i = 0; i < inputs.size() && concrete; ++i) {
    auto c = as_known(inputs[i], n->input(i)->type());
    if (c) {
      values.push_back(std::move(*c));
    } else {
      concrete = false;
    }
  }
  if (concrete) {
    // TorchScript's construct operators are not exported by libtorch: build
    // the value here.
    c10::IValue out;
    if (n->kind() == c10::prim::ListConstruct) {
      c10::impl::GenericList generic(c10::AnyType::get());
      for (auto& v : values) generic.push_back(std::move(v));
      auto typed = coerce_to_type(c10::IValue(generic), type);
      if (!typed.ok()) return error(n, typed.status().message());
      out = std::move(*typed);
    } else if (n->kind() == c10::prim::TupleConstruct) {
      auto tuple_type = type->cast<c10::TupleType>();
      out = tuple_type && tuple_type->name()
                ? c10::IValue(c10::ivalue::Tuple::createNamed(std::move(values), tuple_type))
                : c10::IValue(c10::ivalue::Tuple::create(std::move(values)));
    } else {
      const auto& dict_type = type->expectRef<c10::DictType>();
      c10::impl::GenericDict dict(dict_type.getKeyType(), dict_type.getValueType());
      for (size_t i = 0; i + 1 < values.size(); i += 2) dict.insert(values[i], values[i + 1]);
      out = dict;
    }
    frame.values[n->output()] = TraceValue::known(std::move(out));
    return absl::OkStatus();
  }

  if (n->kind() == c10::prim::TupleConstruct) {
    // All results of one multi-result node, in order: that node itself.
    Node* whole = inputs.empty() || !inputs[0].is_result() ? nullptr : inputs[0].result_of().node;
    for (size_t i = 0; whole != nullptr && i < inputs.size(); ++i) {
      if (!inputs[i].is_result() || inputs[i].result_of().node != whole ||
          inputs[i].result_of().index != static_cast<int>(i)) {
        whole = nullptr;
      }
    }
    if (whole != nullptr && whole->meta().find(kNumResultsKey) != nullptr &&
        whole->meta().find(kNumResultsKey)->to_int() == static_cast<int64_t>(inputs.size())) {
      frame.values[n->output()] = TraceValue::traced(aliases_.current(whole));
      return absl::OkStatus();
    }
    std::vector<Argument> items;
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto a = to_argument(inputs[i], n->input(i)->type());
      if (!a.ok()) return error(n, a.status().message());
      items.push_back(std::move(*a));
    }
    frame.values[n->output()] = TraceValue::traced(Argument::Tuple(std::move(items)));
    return absl::OkStatus();
  }
  // DictConstruct: keys and values alternate; keys must be known strings.
  Kwargs items;
  for (size_t i = 0; i + 1 < inputs.size(); i += 2) {
    if (!inputs[i].is_known() || !inputs[i].known_value().isString()) {
      return error(n, "a dict with keys that are not constant strings cannot be traced");
    }
    auto a = to_argument(inputs[i + 1], n->input(i + 1)->type());
    if (!a.ok()) return error(n, a.status().message());
    items.emplace_back(inputs[i].known_value().toStringRef(), std::move(*a));
  }
  frame.values[n->output()] = TraceValue::traced(Argument::Dict(std::move(items)));
  return absl::OkStatus();
}

absl::Status TraceEngine::run_unpack(const jit::Node* n, Frame& frame) {
  const TraceValue v = lookup(frame, n->input(0));
  const size_t outs = n->outputs().size();
  std::vector<TraceValue> items;
  if (auto c = as_known(v, n->input(0)->type())) {
    if (!c->isList() && !c->isTuple()) return error(n, "unpacking a value that is not a sequence");
    for (c10::IValue& e : sequence_elements(*c)) {
      items.push_back(TraceValue::known(std::move(e)));
    }
  } else if (v.is_list()) {
    items = v.list_items();
  } else if (v.is_traced() && v.traced_argument().is_sequence()) {
    const auto& elements = v.traced_argument().elements();
    for (size_t i = 0; i < elements.size(); ++i) {
      const c10::TypePtr type = i < outs ? n->outputs()[i]->type() : nullptr;
      items.push_back(from_argument(elements[i], type));
    }
  } else {
    Node* whole = nullptr;
    if (v.is_traced() && v.traced_argument().is_node()) whole = v.traced_argument().to_node();
    if (v.is_result()) whole = result_node(v.result_of().node, v.result_of().index);
    if (whole == nullptr) return error(n, "unpacking a value that is not a sequence");
    for (size_t i = 0; i < outs; ++i) items.push_back(TraceValue::result(whole, static_cast<int>(i)));
  }
  if (items.size() != outs) {
    return error(n, absl::StrCat("unpacking ", items.size(), " values into ", outs));
  }
  for (size_t i = 0; i < outs; ++i) frame.values[n->outputs()[i]] = std::move(items[i]);
  return absl::OkStatus();
}

absl::Status TraceEngine::run_list_operator(const jit::Node* n, Frame& frame, bool* handled) {
  *handled = false;
  if (n->inputs().empty()) return absl::OkStatus();
  const TraceValue list = lookup(frame, n->input(0));
  const c10::Symbol kind = n->kind();
  auto concrete_int = [&](size_t i) -> c10::optional<int64_t> {
    const TraceValue& v = lookup(frame, n->input(i));
    if (v.is_known() && v.known_value().isInt()) return v.known_value().toInt();
    return c10::nullopt;
  };
  if (list.is_list()) {
    std::vector<TraceValue>& items = list.list_items();
    if (kind == c10::aten::append) {
      items.push_back(lookup(frame, n->input(1)));
      frame.values[n->output()] = list;
      *handled = true;
      return absl::OkStatus();
    }
    if (kind == c10::aten::len) {
      frame.values[n->output()] = TraceValue::known(static_cast<int64_t>(items.size()));
      *handled = true;
      return absl::OkStatus();
    }
    if (kind == c10::aten::__getitem__) {
      auto index = concrete_int(1);
      if (!index) return absl::OkStatus();  // recorded as a node below
      auto i = python_index(*index, items.size());
      if (!i) return error(n, absl::StrCat("list index ", *index, " out of range"));
      frame.values[n->output()] = items[*i];
      *handled = true;
      return absl::OkStatus();
    }
    if (kind == c10::Symbol::fromQualString("aten::_set_item")) {
      auto index = concrete_int(1);
      if (!index) return error(n, "assigning to a list at an index that depends on an input");
      auto i = python_index(*index, items.size());
      if (!i) return error(n, absl::StrCat("list index ", *index, " out of range"));
      items[*i] = lookup(frame, n->input(2));
      frame.values[n->output()] = list;
      *handled = true;
      return absl::OkStatus();
    }
    if (n->maybeSchema() != nullptr && n->schema().is_mutable()) {
      return error(n, absl::StrCat("list operation ", kind.toQualString(),
                                   " on a list holding traced values is not supported"));
    }
    return absl::OkStatus();
  }
  // A sequence built of traced values: read elements and lengths directly.
  if (list.is_traced() && list.traced_argument().is_sequence()) {
    const auto& items = list.traced_argument().elements();
    if (kind == c10::aten::len) {
      frame.values[n->output()] = TraceValue::known(static_cast<int64_t>(items.size()));
      *handled = true;
    } else if (kind == c10::aten::__getitem__) {
      if (auto index = concrete_int(1)) {
        auto i = python_index(*index, items.size());
        if (!i) return error(n, absl::StrCat("index ", *index, " out of range"));
        frame.values[n->output()] = from_argument(items[*i], n->output()->type());
        *handled = true;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace tracer_internal
}  // namespace fx
