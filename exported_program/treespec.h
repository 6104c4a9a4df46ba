// Copyright 2026 The FX for C++ Authors.
//
// treespec.h: PyTorch's pytree TreeSpec, as torch.export serialises the
// structure of a program's inputs and outputs (`in_spec`, `out_spec` of the
// module call graph): JSON `[1, {"type": "builtins.tuple", "context": "null",
// "children_spec": [...]}]`, a leaf being `{"type": null, ...}`.
//
//   absl::StatusOr<fx::exported::TreeSpec> spec = fx::exported::parse_treespec(text);
//   spec->num_leaves();            // how many flat values it arranges
//
// Contracts:
//   * Types read: leaves, builtins.tuple, builtins.list, builtins.dict and
//     collections.OrderedDict (context: the JSON list of keys),
//     collections.namedtuple (context: the registered type name),
//     torch.fx.immutable_collections' immutable_list and immutable_dict,
//     and builtins.NoneType (no leaf). Other types (dataclasses and classes
//     registered with pytree) are errors naming the type.
//   * A dict's keys are strings or ints, each once; anything else is an
//     error naming its place in the spec (`[1].children_spec[1].context[0]`).
//   * The text is parsed only when it nests no deeper than the tree may
//     (100 levels), and so is a context: these strings inside a program are
//     JSON the program's own bound on nesting does not see into.
//   * to_string writes what parse_treespec reads, protocol 1.
#ifndef FX_EXPORTED_PROGRAM_TREESPEC_H_
#define FX_EXPORTED_PROGRAM_TREESPEC_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "core/export.h"

namespace fx {
namespace exported {

struct FX_API TreeSpec {
  enum class Kind { kLeaf, kTuple, kList, kDict, kNamedTuple, kNone };
  Kind kind = Kind::kLeaf;
  // The type as written ("builtins.tuple"), kept for writing back.
  std::string type;
  // kDict: the keys (JSON values: strings, or ints); kNamedTuple: the type name.
  std::vector<nlohmann::json> keys;
  std::string namedtuple_type;
  std::vector<TreeSpec> children;

  size_t num_leaves() const;
};

FX_API absl::StatusOr<TreeSpec> parse_treespec(const std::string& text);
FX_API std::string to_string(const TreeSpec& spec);

// A leaf; a tuple of `n` leaves (a program's flat outputs).
FX_API TreeSpec leaf_spec();
FX_API TreeSpec tuple_spec(std::vector<TreeSpec> children);

}  // namespace exported
}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_TREESPEC_H_
