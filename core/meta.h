// Copyright 2026 The FX for C++ Authors.
//
// meta.h: metadata that tracers and passes attach to nodes and graphs.
//
// torch.fx's `node.meta` is a dict where tracers and passes leave what they learn
// (the module a node came from, a tag, a shape). `Meta` is that dict in C++: an
// insertion-ordered map from string keys to `MetaValue`s, which hold None, bool,
// int, double, string, lists of values and nested maps.
//
//   node->meta().set("module_path", "layer1.0.conv1");
//   if (const fx::MetaValue* v = node->meta().find("tag")) use(v->to_string());
//   graph.meta().set("exec_order", fx::MetaValue::List{...});
//
// Iteration follows insertion order, so printed and serialised metadata is
// deterministic. Lookups are linear: a node carries a handful of keys.
//
// Convention: keys that start with `_` are bookkeeping of the tools that set
// them (the tracer's `_torchscript_type` of a placeholder, `_num_results` of a
// multi-result operator); fxrun's table leaves them out, JSON keeps them.
#ifndef FX_CORE_META_H_
#define FX_CORE_META_H_

#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"
#include <utility>
#include <variant>
#include <vector>

#include "core/export.h"

namespace fx {

class MetaValue;

// An insertion-ordered string-keyed map of MetaValues.
class FX_API Meta {
 public:
  using Entry = std::pair<std::string, MetaValue>;

  Meta();
  Meta(std::initializer_list<Entry> entries);
  Meta(const Meta&);
  Meta(Meta&&) noexcept;
  Meta& operator=(const Meta&);
  Meta& operator=(Meta&&) noexcept;
  ~Meta();

  // Sets `key` to `value`, keeping the key's position when it already exists.
  void set(absl::string_view key, MetaValue value);
  // The value of `key`, or nullptr.
  const MetaValue* find(absl::string_view key) const;
  MetaValue* find(absl::string_view key);
  bool contains(absl::string_view key) const { return find(key) != nullptr; }
  // The value of `key`, inserting None first when it is absent.
  MetaValue& operator[](absl::string_view key);
  // Removes `key`; returns whether it was present.
  bool erase(absl::string_view key);
  void clear();

  size_t size() const;
  bool empty() const;
  std::vector<Entry>::const_iterator begin() const;
  std::vector<Entry>::const_iterator end() const;

  bool operator==(const Meta& other) const;
  bool operator!=(const Meta& other) const { return !(*this == other); }

 private:
  std::vector<Entry> entries_;
};

class FX_API MetaValue {
 public:
  enum class Kind : uint8_t { kNone, kBool, kInt, kDouble, kString, kList, kMap };
  using List = std::vector<MetaValue>;

  MetaValue() = default;
  MetaValue(bool v) : value_(v) {}                         // NOLINT: implicit by design
  MetaValue(int v) : value_(int64_t{v}) {}                 // NOLINT
  MetaValue(long v) : value_(int64_t{v}) {}                // NOLINT
  MetaValue(long long v) : value_(int64_t(v)) {}           // NOLINT
  MetaValue(double v) : value_(v) {}                       // NOLINT
  MetaValue(const char* v) : value_(std::string(v)) {}     // NOLINT
  MetaValue(std::string v) : value_(std::move(v)) {}       // NOLINT
  MetaValue(absl::string_view v) : value_(std::string(v)) {}  // NOLINT
  MetaValue(List v) : value_(std::move(v)) {}              // NOLINT
  MetaValue(Meta v) : value_(std::move(v)) {}              // NOLINT

  Kind kind() const { return static_cast<Kind>(value_.index()); }
  bool is_none() const { return kind() == Kind::kNone; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_int() const { return kind() == Kind::kInt; }
  bool is_double() const { return kind() == Kind::kDouble; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_list() const { return kind() == Kind::kList; }
  bool is_map() const { return kind() == Kind::kMap; }

  // Accessors, named as Argument's are; each requires the matching kind
  // (std::bad_variant_access otherwise).
  bool to_bool() const { return std::get<bool>(value_); }
  int64_t to_int() const { return std::get<int64_t>(value_); }
  double to_double() const { return std::get<double>(value_); }
  const std::string& to_string() const { return std::get<std::string>(value_); }
  const List& to_list() const { return std::get<List>(value_); }
  List& to_list() { return std::get<List>(value_); }
  const Meta& to_map() const { return std::get<Meta>(value_); }
  Meta& to_map() { return std::get<Meta>(value_); }

  bool operator==(const MetaValue& other) const { return value_ == other.value_; }
  bool operator!=(const MetaValue& other) const { return !(*this == other); }

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, List, Meta> value_;
};

}  // namespace fx

#endif  // FX_CORE_META_H_
