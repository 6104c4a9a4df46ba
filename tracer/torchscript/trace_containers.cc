// Copyright 2026 The FX for C++ Authors.
//
// Lists, tuples and dicts built and changed in the code, followed at trace
// time as torch.fx follows Python's containers: `out = {}; out["a"] = f(x)`
// makes a dict the tracer holds, whose values may be traced; the graph sees
// it only where it escapes (returned, passed to an operator or a leaf), as an
// Argument. Lists and dicts are shared by every name bound to them, so
// mutation through one name is seen through the others, as in Python.
//
// Operations that only move elements (append, item assignment, indexing with
// a known index or key, len, slicing, keys/values/items, ...) run here.
// An operation that changes a container in a way the tracer cannot follow (an
// index that depends on an input) is an error naming the source line, never a
// node that would mutate a copy.
#include <algorithm>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "core/well_known.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"
#include "tracer/torchscript/trace_engine.h"

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

// Python's slice bounds: [start, end) with `step`, clamped as list slicing
// clamps them. Returns the chosen indices.
std::vector<size_t> slice_indices(size_t size, c10::optional<int64_t> start,
                                  c10::optional<int64_t> end, int64_t step) {
  const int64_t n = static_cast<int64_t>(size);
  auto clamp = [&](c10::optional<int64_t> v, int64_t fallback, int64_t low, int64_t high) {
    if (!v) return fallback;
    int64_t i = *v < 0 ? *v + n : *v;
    return std::max(low, std::min(high, i));
  };
  std::vector<size_t> out;
  if (step > 0) {
    for (int64_t i = clamp(start, 0, 0, n), e = clamp(end, n, 0, n); i < e; i += step) {
      out.push_back(static_cast<size_t>(i));
    }
  } else {
    for (int64_t i = clamp(start, n - 1, -1, n - 1), e = clamp(end, -1, -1, n - 1); i > e;
         i += step) {
      out.push_back(static_cast<size_t>(i));
    }
  }
  return out;
}

bool is_list_construct_of_results(const std::vector<TraceValue>& items, Node** whole) {
  *whole = nullptr;
  if (items.empty() || !items[0].is_result()) return false;
  Node* node = items[0].result_of().node;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_result() || items[i].result_of().node != node ||
        items[i].result_of().index != static_cast<int>(i)) {
      return false;
    }
  }
  const MetaValue* n = node->meta().find(kNumResultsKey);
  if (n == nullptr || n->to_int() != static_cast<int64_t>(items.size())) return false;
  *whole = node;
  return true;
}

}  // namespace

absl::StatusOr<Argument> TraceEngine::tuple_to_argument(const std::vector<TraceValue>& items,
                                                        const c10::TypePtr& type) {
  const auto* tuple_type = type ? type->castRaw<c10::TupleType>() : nullptr;
  const auto named = named_tuple_of(type);
  // All results of one multi-result node, in order: that node itself.
  Node* whole = nullptr;
  if (!named && is_list_construct_of_results(items, &whole)) {
    return Argument(aliases_.current(whole));
  }
  std::vector<Argument> out;
  out.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const c10::TypePtr element =
        tuple_type != nullptr && i < tuple_type->elements().size() ? tuple_type->elements()[i]
                                                                   : nullptr;
    auto a = to_argument(items[i], element);
    if (!a.ok()) return a.status();
    out.push_back(std::move(*a));
  }
  // A NamedTuple stays one (torchvision's GoogLeNetOutputs, `out.logits`).
  if (named && named->second.size() == out.size()) {
    return Argument::NamedTuple(named->first, named->second, std::move(out));
  }
  return Argument::Tuple(std::move(out));
}

absl::Status TraceEngine::run_construct(const jit::Node* n, Frame& frame) {
  std::vector<TraceValue> inputs = inputs_of(n, frame);
  const c10::Symbol kind = n->kind();
  if (kind == c10::prim::ListConstruct) {
    // Lists are mutable: always a container of the trace, shared by name.
    frame.values[n->output()] = TraceValue::list(std::move(inputs));
    return absl::OkStatus();
  }
  if (kind == c10::prim::DictConstruct) {
    std::vector<std::pair<c10::IValue, TraceValue>> items;
    for (size_t i = 0; i + 1 < inputs.size(); i += 2) {
      if (!inputs[i].is_known()) {
        return error(n, "a dict whose keys depend on an input cannot be traced");
      }
      items.emplace_back(inputs[i].known_value(), std::move(inputs[i + 1]));
    }
    frame.values[n->output()] = TraceValue::dict(std::move(items));
    return absl::OkStatus();
  }
  // Tuples are immutable: known when every element is, else kept as trace
  // values (so modules, lists and results unpack back to what they were).
  const c10::TypePtr& type = n->output()->type();
  std::vector<c10::IValue> values;
  bool known = true;
  for (size_t i = 0; i < inputs.size() && known; ++i) {
    if (auto c = as_known(inputs[i], n->input(i)->type())) {
      values.push_back(std::move(*c));
    } else {
      known = false;
    }
  }
  auto tuple_type = type->cast<c10::TupleType>();
  if (!known) {
    frame.values[n->output()] = TraceValue::tuple(
        std::move(inputs), tuple_type && tuple_type->name() ? tuple_type : nullptr);
    return absl::OkStatus();
  }
  frame.values[n->output()] = TraceValue::known(
      tuple_type && tuple_type->name()
          ? c10::IValue(c10::ivalue::Tuple::createNamed(std::move(values), tuple_type))
          : c10::IValue(c10::ivalue::Tuple::create(std::move(values))));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TraceValue>> TraceEngine::elements_of(const TraceValue& v,
                                                                 const c10::TypePtr& type,
                                                                 size_t expected) {
  if (v.is_list()) return v.list_items();
  if (v.is_tuple()) return v.tuple_items();
  if (v.is_known()) {
    const c10::IValue& c = v.known_value();
    if (!c.isList() && !c.isTuple()) {
      return absl::InvalidArgumentError("unpacking a value that is not a sequence");
    }
    std::vector<TraceValue> items;
    for (c10::IValue& e : sequence_elements(c)) items.push_back(TraceValue::known(std::move(e)));
    return items;
  }
  if (v.is_traced() && v.traced_argument().is_sequence()) {
    std::vector<TraceValue> items;
    for (const Argument& e : v.traced_argument().elements()) items.push_back(from_argument(e, nullptr));
    return items;
  }
  // A node (or one result of one) holding a sequence: its elements by index.
  Node* whole = nullptr;
  if (v.is_traced() && v.traced_argument().is_node()) whole = v.traced_argument().to_node();
  if (v.is_result()) whole = result_node(v.result_of().node, v.result_of().index);
  if (whole == nullptr) return absl::InvalidArgumentError("unpacking a value that is not a sequence");
  // Its elements now, in order, as torch.fx's `a, b = proxy` makes them.
  std::vector<TraceValue> items;
  for (size_t i = 0; i < expected; ++i) {
    items.push_back(TraceValue::traced(result_node(whole, static_cast<int>(i))));
  }
  return items;
}

absl::Status TraceEngine::run_unpack(const jit::Node* n, Frame& frame) {
  const TraceValue v = lookup(frame, n->input(0));
  const size_t outs = n->outputs().size();
  auto items = elements_of(v, n->input(0)->type(), outs);
  if (!items.ok()) return error(n, items.status().message());
  if (items->size() != outs) {
    return error(n, absl::StrCat("unpacking ", items->size(), " values into ", outs));
  }
  for (size_t i = 0; i < outs; ++i) {
    // An element of a graph value (a leaf's result) typed Optional may be None.
    const bool of_a_node = (v.is_traced() && v.traced_argument().is_node()) || v.is_result();
    if (of_a_node && (*items)[i].is_traced() && (*items)[i].traced_argument().is_node()) {
      note_optional((*items)[i].traced_argument().to_node(), n->outputs()[i]->type());
    }
    frame.values[n->outputs()[i]] = std::move((*items)[i]);
  }
  return absl::OkStatus();
}

absl::Status TraceEngine::run_container_operator(const jit::Node* n, Frame& frame, bool* handled) {
  *handled = false;
  if (n->inputs().empty()) return absl::OkStatus();
  const c10::Symbol kind = n->kind();
  const TraceValue container = lookup(frame, n->input(0));
  if (kind == c10::prim::TupleIndex || kind == c10::aten::__getitem__ ||
      kind == c10::aten::len) {
    // len() of a sequence of `size` items, or its item at a known index;
    // `item(i)` gives the i-th as a trace value.
    auto read_sequence = [&](size_t size, absl::string_view what, auto item) -> absl::Status {
      if (kind == c10::aten::len) {
        frame.values[n->output()] = TraceValue::known(static_cast<int64_t>(size));
        *handled = true;
        return absl::OkStatus();
      }
      const TraceValue& index = lookup(frame, n->input(1));
      if (index.is_known() && index.known_value().isInt()) {
        auto i = python_index(index.known_value().toInt(), size);
        if (!i) return error(n, absl::StrCat(what, " ", index.known_value().toInt(), " out of range"));
        frame.values[n->output()] = item(*i);
        *handled = true;
      }
      return absl::OkStatus();
    };
    // A tuple of trace values.
    if (container.is_tuple()) {
      const auto& items = container.tuple_items();
      return read_sequence(items.size(), "tuple index", [&](size_t i) { return items[i]; });
    }
    // A sequence the graph holds (a traced tuple or list): read directly.
    if (container.is_traced() && container.traced_argument().is_sequence()) {
      const auto& items = container.traced_argument().elements();
      return read_sequence(items.size(), "index", [&](size_t i) {
        return from_argument(items[i], n->output()->type());
      });
    }
  }
  // dict(pairs): `OrderedDict([(k, v) for k, v in zip(names, results)])`.
  if (kind == c10::aten::dict && container.is_list()) {
    std::vector<std::pair<c10::IValue, TraceValue>> items;
    for (const TraceValue& pair : container.list_items()) {
      auto kv = elements_of(pair, nullptr, 2);
      if (!kv.ok() || kv->size() != 2 || !(*kv)[0].is_known()) {
        return untraceable(n, "dict() of pairs whose keys depend on an input");
      }
      const c10::IValue key = (*kv)[0].known_value();
      auto it = std::find_if(items.begin(), items.end(),
                             [&](const auto& existing) { return existing.first == key; });
      if (it != items.end()) {
        it->second = (*kv)[1];
      } else {
        items.emplace_back(key, (*kv)[1]);
      }
    }
    frame.values[n->output()] = TraceValue::dict(std::move(items));
    *handled = true;
    return absl::OkStatus();
  }
  if (container.is_list()) return run_list_operation(n, frame, container, handled);
  if (container.is_dict()) return run_dict_operation(n, frame, container, handled);
  return absl::OkStatus();
}

absl::Status TraceEngine::run_list_operation(const jit::Node* n, Frame& frame,
                                             const TraceValue& list, bool* handled) {
  std::vector<TraceValue>& items = list.list_items();
  const c10::Symbol kind = n->kind();
  auto known_int = [&](size_t i) -> c10::optional<int64_t> {
    if (i >= n->inputs().size()) return c10::nullopt;
    const TraceValue& v = lookup(frame, n->input(i));
    if (v.is_known() && v.known_value().isInt()) return v.known_value().toInt();
    return c10::nullopt;
  };
  auto is_none = [&](size_t i) { return i >= n->inputs().size() || lookup(frame, n->input(i)).is_none(); };
  auto set_output = [&](TraceValue v) {
    if (n->outputs().size() == 1) frame.values[n->output()] = std::move(v);
    *handled = true;
    return absl::OkStatus();
  };
  const std::string name = kind.toUnqualString();
  if (name == "append") {
    items.push_back(lookup(frame, n->input(1)));
    return set_output(list);
  }
  if (name == "len") return set_output(TraceValue::known(static_cast<int64_t>(items.size())));
  if (name == "__getitem__") {
    auto index = known_int(1);
    if (!index) return absl::OkStatus();  // recorded as operator.getitem below
    auto i = python_index(*index, items.size());
    if (!i) return error(n, absl::StrCat("list index ", *index, " out of range"));
    return set_output(items[*i]);
  }
  if (name == "_set_item" || name == "insert" || name == "pop" || name == "Delete") {
    auto index = known_int(1);
    if (!index && !(name == "pop" && n->inputs().size() == 1)) {
      return untraceable(n, absl::StrCat("list.", name, " at an index that depends on an input"));
    }
    const int64_t at = index.value_or(-1);
    if (name == "insert") {
      const int64_t size = static_cast<int64_t>(items.size());
      const int64_t pos = std::max<int64_t>(0, std::min(size, at < 0 ? at + size : at));
      items.insert(items.begin() + pos, lookup(frame, n->input(2)));
      return set_output(TraceValue());
    }
    auto i = python_index(at, items.size());
    if (!i) return error(n, absl::StrCat("list index ", at, " out of range"));
    if (name == "_set_item") {
      items[*i] = lookup(frame, n->input(2));
      return set_output(list);
    }
    TraceValue removed = items[*i];
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(*i));
    return set_output(name == "pop" ? std::move(removed) : TraceValue());
  }
  if (name == "extend") {
    auto more = elements_of(lookup(frame, n->input(1)), n->input(1)->type(), 0);
    if (!more.ok()) return error(n, more.status().message());
    items.insert(items.end(), more->begin(), more->end());
    return set_output(TraceValue());
  }
  if (name == "clear") {
    items.clear();
    return set_output(TraceValue());
  }
  if (name == "reverse") {
    std::reverse(items.begin(), items.end());
    return set_output(TraceValue());
  }
  if (name == "copy" || name == "list") return set_output(TraceValue::list(items));
  if (name == "slice") {
    auto start = known_int(1);
    auto end = known_int(2);
    auto step = known_int(3);
    if ((!start && !is_none(1)) || (!end && !is_none(2)) || (n->inputs().size() > 3 && !step)) {
      return absl::OkStatus();  // bounds that depend on an input: recorded
    }
    if (step && *step == 0) return error(n, "slice step cannot be zero");
    std::vector<TraceValue> out;
    for (size_t i : slice_indices(items.size(), start, end, step.value_or(1))) out.push_back(items[i]);
    return set_output(TraceValue::list(std::move(out)));
  }
  if (name == "add" && n->inputs().size() == 2) {
    auto more = elements_of(lookup(frame, n->input(1)), n->input(1)->type(), 0);
    if (!more.ok()) return absl::OkStatus();
    std::vector<TraceValue> out = items;
    out.insert(out.end(), more->begin(), more->end());
    return set_output(TraceValue::list(std::move(out)));
  }
  if (n->maybeSchema() != nullptr && n->schema().is_mutable()) {
    return untraceable(n, absl::StrCat("list operation ", kind.toQualString(),
                                       " on a list built in forward is not supported"));
  }
  return absl::OkStatus();
}

absl::Status TraceEngine::run_dict_operation(const jit::Node* n, Frame& frame,
                                             const TraceValue& dict, bool* handled) {
  auto& items = dict.dict_items();
  const std::string name = n->kind().toUnqualString();
  auto set_output = [&](TraceValue v) {
    if (n->outputs().size() == 1) frame.values[n->output()] = std::move(v);
    *handled = true;
    return absl::OkStatus();
  };
  if (name == "len") return set_output(TraceValue::known(static_cast<int64_t>(items.size())));
  if (name == "keys" || name == "values" || name == "items") {
    std::vector<TraceValue> out;
    for (const auto& [key, value] : items) {
      if (name == "keys") {
        out.push_back(TraceValue::known(key));
      } else if (name == "values") {
        out.push_back(value);
      } else {
        out.push_back(TraceValue::tuple({TraceValue::known(key), value}));
      }
    }
    return set_output(TraceValue::list(std::move(out)));
  }
  if (name == "copy" || name == "dict") return set_output(TraceValue::dict(items));
  if (name == "clear") {
    items.clear();
    return set_output(TraceValue());
  }
  if (name == "update") {
    const TraceValue& other = lookup(frame, n->input(1));
    if (!other.is_dict()) return untraceable(n, "dict.update with a dict not built in forward");
    for (const auto& entry : other.dict_items()) {
      const c10::IValue& key = entry.first;
      auto it = std::find_if(items.begin(), items.end(), [&](const auto& kv) { return kv.first == key; });
      if (it != items.end()) {
        it->second = entry.second;
      } else {
        items.emplace_back(key, entry.second);
      }
    }
    return set_output(TraceValue());
  }
  // The rest take a key, which must be known.
  if (n->inputs().size() < 2) return absl::OkStatus();
  const TraceValue& key_value = lookup(frame, n->input(1));
  if (!key_value.is_known()) return untraceable(n, "a dict key that depends on an input");
  const c10::IValue& key = key_value.known_value();
  auto it = std::find_if(items.begin(), items.end(), [&](const auto& kv) { return kv.first == key; });
  const bool found = it != items.end();
  auto missing = [&] {
    std::ostringstream k;
    k << key;
    return error(n, absl::StrCat("KeyError: ", k.str(), " is not in the dict"));
  };
  if (name == "_set_item") {
    if (found) {
      it->second = lookup(frame, n->input(2));
    } else {
      items.emplace_back(key, lookup(frame, n->input(2)));
    }
    return set_output(TraceValue());
  }
  if (name == "__getitem__") return found ? set_output(it->second) : missing();
  if (name == "__contains__") return set_output(TraceValue::known(found));
  if (name == "get") {
    if (found) return set_output(it->second);
    return set_output(n->inputs().size() > 2 ? lookup(frame, n->input(2)) : TraceValue());
  }
  if (name == "setdefault") {
    if (!found) {
      items.emplace_back(key, lookup(frame, n->input(2)));
      return set_output(items.back().second);
    }
    return set_output(it->second);
  }
  if (name == "pop" || name == "Delete") {
    if (!found) {
      if (name == "pop" && n->inputs().size() > 2) return set_output(lookup(frame, n->input(2)));
      return missing();
    }
    TraceValue removed = it->second;
    items.erase(it);
    return set_output(name == "pop" ? std::move(removed) : TraceValue());
  }
  if (n->maybeSchema() != nullptr && n->schema().is_mutable()) {
    return untraceable(n, absl::StrCat("dict operation ", n->kind().toQualString(),
                                       " on a dict built in forward is not supported"));
  }
  return absl::OkStatus();
}

}  // namespace tracer_internal
}  // namespace fx
