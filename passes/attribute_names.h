// Copyright 2026 The FX for C++ Authors.
//
// attribute_names.h: names for attributes a pass adds to a GraphModule.
//
// Passes that make new tensors (fold_bn's folded weights, const_fold's
// results) store them as attributes of the GraphModule under names made the
// way torch.fx's get_unique_attr_name_in_module makes them, so that a
// TorchScript or torch.export file written afterwards has valid, unique names.
// Header-only: in-tree plugins link libfx.so, and this needs nothing of its.
#ifndef FX_PASSES_ATTRIBUTE_NAMES_H_
#define FX_PASSES_ATTRIBUTE_NAMES_H_

#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/graph_module.h"

namespace fx {

// `base` as torch.fx makes it an attribute name: every run of characters
// that cannot be in a Python identifier becomes `_`, a leading digit gets a
// `_` before it; then, while the name is taken (an attribute of the
// GraphModule or of its root, or `training`, which every torch.nn.Module has
// and a TorchScript file stores as an attribute), a trailing `_<n>` is
// incremented or `_1` appended ("w" -> "w_1" -> "w_2").
inline std::string unique_attribute_name(const GraphModule& gm, absl::string_view base) {
  std::string name;
  bool in_invalid_run = false;
  for (char c : base) {
    const bool valid = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (valid || !in_invalid_run) name += valid ? c : '_';
    in_invalid_run = !valid;
  }
  if (name.empty()) name = "_";
  if (absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) name.insert(0, "_");
  const auto taken = [&gm](const std::string& n) {
    return gm.own_attributes().count(n) > 0 || gm.root().contains(n) || n == "training";
  };
  while (taken(name)) {
    const size_t underscore = name.rfind('_');
    const absl::string_view suffix =
        underscore == std::string::npos ? "" : absl::string_view(name).substr(underscore + 1);
    bool digits = !suffix.empty();
    for (char c : suffix) digits &= absl::ascii_isdigit(static_cast<unsigned char>(c));
    int64_t number = 0;
    if (digits && absl::SimpleAtoi(suffix, &number)) {
      name = absl::StrCat(name.substr(0, underscore), "_", number + 1);
    } else {
      name += "_1";
    }
  }
  return name;
}

}  // namespace fx

#endif  // FX_PASSES_ATTRIBUTE_NAMES_H_
