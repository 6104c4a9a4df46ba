// Copyright 2026 The FX for C++ Authors.
//
// argument.h: the values a Node's args and kwargs may hold.
//
// In torch.fx a Node's `args` is a tuple and its `kwargs` a dict whose leaves are
// Python values: None, bool, int, float, str, other Nodes, and the torch literals a
// graph needs (dtypes, devices, layouts, memory formats), nested in lists, tuples
// and string-keyed dicts. `Argument` is that value in C++: a small tagged union
// with value semantics. Equality is structural; Node references compare by
// identity.
//
//   fx::Argument a = fx::Argument::Tuple({node, 1, 2.5, "bilinear", c10::kFloat});
//   fx::for_each_node(a, [](fx::Node* n) { ... });           // visit references
//   fx::Argument b = fx::map_arg(a, [&](fx::Node* n) { ... });  // rewrite them
//
// `Arguments` (a Node's positional args) is a vector of Argument; `Kwargs` is an
// insertion-ordered list of (name, value) pairs, as Python dicts are ordered.
//
// Contract: an Argument never owns the Nodes it references; a Graph keeps every
// Node's users up to date when args change through Node's setters. Arguments
// that are not yet attached to a Node may reference any Node. Arguments are
// immutable values: copies share strings and containers (thread-safe counts).
#ifndef FX_CORE_ARGUMENT_H_
#define FX_CORE_ARGUMENT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

#include <c10/core/Device.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

#include "core/export.h"

namespace fx {

class Node;
class Argument;

// A Node's positional arguments.
using Arguments = std::vector<Argument>;
// A Node's keyword arguments, in insertion order (keys are unique).
using Kwargs = std::vector<std::pair<std::string, Argument>>;

class FX_API Argument {
 public:
  enum class Kind : uint8_t {
    kNone,
    kBool,
    kInt,
    kDouble,
    kString,
    kNode,
    kList,
    kTuple,
    kDict,
    kDtype,
    kDevice,
    kLayout,
    kMemoryFormat,
  };

  // None.
  Argument() : int_(0) {}
  Argument(bool v) : kind_(Kind::kBool), int_(0) { bool_ = v; }           // NOLINT: implicit by design
  Argument(int v) : kind_(Kind::kInt), int_(v) {}                         // NOLINT
  Argument(long v) : kind_(Kind::kInt), int_(v) {}                        // NOLINT
  Argument(long long v) : kind_(Kind::kInt), int_(v) {}                   // NOLINT
  Argument(double v) : kind_(Kind::kDouble), double_(v) {}                // NOLINT
  Argument(const char* v);                                                // NOLINT
  Argument(std::string v);                                                // NOLINT
  Argument(absl::string_view v);                                          // NOLINT
  Argument(Node* v) : kind_(Kind::kNode), node_(v) {}                     // NOLINT
  Argument(c10::ScalarType v) : kind_(Kind::kDtype), int_(0) { small_ = static_cast<int8_t>(v); }  // NOLINT
  Argument(c10::Device v) : kind_(Kind::kDevice), int_(0) {               // NOLINT
    small_ = static_cast<int8_t>(v.type());
    device_index_ = v.index();
  }
  Argument(c10::DeviceType v) : Argument(c10::Device(v)) {}               // NOLINT
  Argument(c10::Layout v) : kind_(Kind::kLayout), int_(0) { small_ = static_cast<int8_t>(v); }  // NOLINT
  Argument(c10::MemoryFormat v) : kind_(Kind::kMemoryFormat), int_(0) {   // NOLINT
    small_ = static_cast<int8_t>(v);
  }

  Argument(const Argument& other);
  Argument(Argument&& other) noexcept;
  Argument& operator=(const Argument& other);
  Argument& operator=(Argument&& other) noexcept;
  ~Argument();

  static Argument None() { return Argument(); }
  static Argument List(std::vector<Argument> items);
  static Argument Tuple(std::vector<Argument> items);
  static Argument Dict(Kwargs items);
  // A NamedTuple: a tuple whose class, `type_name` (its Python qualified
  // name, `torchvision.models.googlenet.GoogLeNetOutputs`), names its
  // elements `fields` (as many as `items`). torch.fx keeps NamedTuples in
  // args; so does every printer, the graph file and the runtime.
  static Argument NamedTuple(std::string type_name, std::vector<std::string> fields,
                             std::vector<Argument> items);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_bool() const { return kind_ == Kind::kBool; }
  bool is_int() const { return kind_ == Kind::kInt; }
  bool is_double() const { return kind_ == Kind::kDouble; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_node() const { return kind_ == Kind::kNode; }
  bool is_list() const { return kind_ == Kind::kList; }
  bool is_tuple() const { return kind_ == Kind::kTuple; }
  // A list or a tuple.
  bool is_sequence() const { return is_list() || is_tuple(); }
  bool is_dict() const { return kind_ == Kind::kDict; }
  bool is_dtype() const { return kind_ == Kind::kDtype; }
  bool is_device() const { return kind_ == Kind::kDevice; }
  bool is_layout() const { return kind_ == Kind::kLayout; }
  bool is_memory_format() const { return kind_ == Kind::kMemoryFormat; }

  // Accessors. Each requires the matching kind; a mismatch is a programming
  // error and throws std::logic_error naming both kinds.
  bool to_bool() const { return expect(Kind::kBool), bool_; }
  int64_t to_int() const { return expect(Kind::kInt), int_; }
  double to_double() const { return expect(Kind::kDouble), double_; }
  const std::string& to_string() const;
  Node* to_node() const { return expect(Kind::kNode), node_; }
  // The elements of a list or a tuple.
  const std::vector<Argument>& elements() const;
  // A tuple's NamedTuple class and field names; "" and none for a plain tuple.
  bool is_named_tuple() const;
  const std::string& tuple_type_name() const;
  const std::vector<std::string>& tuple_fields() const;
  // A tuple (named as this one is) or a list like this one, of `items`.
  Argument with_elements(std::vector<Argument> items) const;
  const Kwargs& dict_items() const;
  c10::ScalarType to_dtype() const {
    return expect(Kind::kDtype), static_cast<c10::ScalarType>(small_);
  }
  c10::Device to_device() const {
    return expect(Kind::kDevice), c10::Device(static_cast<c10::DeviceType>(small_), device_index_);
  }
  c10::Layout to_layout() const { return expect(Kind::kLayout), static_cast<c10::Layout>(small_); }
  c10::MemoryFormat to_memory_format() const {
    return expect(Kind::kMemoryFormat), static_cast<c10::MemoryFormat>(small_);
  }

  // True when this value or anything nested in it references a Node.
  bool contains_node() const;

  bool operator==(const Argument& other) const;
  bool operator!=(const Argument& other) const { return !(*this == other); }

 private:
  struct Payload;
  // An Argument of `kind` (a string or container) with a new, empty payload.
  static Argument with_payload(Kind kind);
  void expect(Kind kind) const;
  void release();

  // 16 bytes: the kind and one word. Strings and containers live in immutable,
  // reference-counted payloads, so copying an Argument never copies them.
  Kind kind_ = Kind::kNone;
  int8_t small_ = 0;         // dtype, device type, layout, memory format
  int8_t device_index_ = -1;
  union {
    bool bool_;
    int64_t int_;
    double double_;
    Node* node_;
    Payload* payload_;
    uint64_t bits_;
  };
};

// The name of a Kind ("None", "bool", "int", "float", "str", "Node", "list",
// "tuple", "dict", "dtype", "device", "layout", "memory_format").
FX_API absl::string_view kind_name(Argument::Kind kind);

// Looks a key up in kwargs; nullptr when absent.
FX_API const Argument* find_kwarg(const Kwargs& kwargs, absl::string_view key);

// Calls `fn` for every Node reference in `arg`, depth first, in order (a Node
// referenced twice is visited twice). The torch.fx equivalent is
// `map_arg(arg, fn)` used for its side effects.
template <typename Fn>
void for_each_node(const Argument& arg, Fn&& fn) {
  switch (arg.kind()) {
    case Argument::Kind::kNode:
      fn(arg.to_node());
      return;
    case Argument::Kind::kList:
    case Argument::Kind::kTuple:
      for (const Argument& a : arg.elements()) for_each_node(a, fn);
      return;
    case Argument::Kind::kDict:
      for (const auto& kv : arg.dict_items()) for_each_node(kv.second, fn);
      return;
    default:
      return;
  }
}

template <typename Fn>
void for_each_node(const Arguments& args, Fn&& fn) {
  for (const Argument& a : args) for_each_node(a, fn);
}

template <typename Fn>
void for_each_node(const Kwargs& kwargs, Fn&& fn) {
  for (const auto& kv : kwargs) for_each_node(kv.second, fn);
}

// Returns a copy of `arg` in which every Node reference `n` is replaced by
// `fn(n)` (which may be any Argument, not only a Node). torch.fx: `map_arg`.
using NodeMapFn = std::function<Argument(Node*)>;
FX_API Argument map_arg(const Argument& arg, const NodeMapFn& fn);
FX_API Arguments map_arg(const Arguments& args, const NodeMapFn& fn);
FX_API Kwargs map_arg(const Kwargs& kwargs, const NodeMapFn& fn);

}  // namespace fx

#endif  // FX_CORE_ARGUMENT_H_
