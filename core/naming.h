// Copyright 2026 The FX for C++ Authors.
//
// naming.h: torch.fx's rules for naming the values of a graph.
//
// Every Node has a name that is a valid, unique Python identifier; printers and
// generated code refer to values by it. torch.fx derives the name from the node's
// target and makes it unique within the graph (`torch.fx.graph._Namespace`):
//
//   * candidate: the target, with a function's namespace, module and overload
//     dropped (`aten::add.Tensor` -> `add`, `torch.nn.functional.relu` -> `relu`),
//     dunder names stripped (`__add__` -> `add`) and CamelCase turned into
//     snake_case (`MyOp` -> `my_op`);
//   * every run of characters illegal in an identifier becomes one `_`
//     (`layer1.0.conv1` -> `layer1_0_conv1`), and a leading digit gets a `_`;
//   * the first use keeps the bare name, later uses get `_1`, `_2`, ... (a
//     candidate that already ends in `_<n>` continues from n);
//   * Python keywords, builtins and FX's reserved names (`torch`, `device`, `inf`,
//     ...) always get a suffix: `sum` -> `sum_1`, `input` -> `input_1`.
//
// Names are never reused within a Namespace, even after the value they named
// is gone. Creating a name is amortised O(1) (torch.fx 1.13 scans the suffixes
// from 1 each time, which is quadratic on long chains; the names are the same).
#ifndef FX_CORE_NAMING_H_
#define FX_CORE_NAMING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "core/export.h"

namespace fx {

class FX_API Namespace {
 public:
  // Returns a unique name for `candidate` and reserves it (FX's create_name).
  std::string create_name(absl::string_view candidate);
  std::string create_name(const char* candidate) {
    return create_name(absl::string_view(candidate));
  }
  // The same, reusing the candidate's storage for the result.
  std::string create_name(std::string&& candidate);
  // True when `name` has been handed out or reserved.
  bool is_used(absl::string_view name) const;
  // Reserves `name` exactly as given (no sanitising), e.g. a global in generated
  // code or a name copied from another graph. Returns false when it was taken.
  bool reserve(absl::string_view name);
  // Number of names handed out or reserved.
  size_t size() const { return size_; }

 private:
  // Names are kept by base: `add`, `add_1`, `add_2` are the base `add` with no
  // number, 1 and 2. Long chains of `add_<n>` then cost a counter, not a set of
  // a million strings.
  struct Base {
    bool bare_taken = false;  // the name `base` itself
    bool reserved = false;    // `base` is a Python keyword, builtin or FX global
    int64_t prefix = 0;       // base_1 .. base_<prefix> are all taken
    // Other taken numbers (0, > prefix + 1); allocated when first needed.
    std::unique_ptr<absl::flat_hash_set<int64_t>> numbers;
  };
  Base& base_entry(absl::string_view base);
  static bool taken(const Base& b, int64_t number);
  static void take(Base& b, int64_t number);

  absl::flat_hash_map<std::string, Base> bases_;
  size_t size_ = 0;
};

// The candidate name torch.fx derives from a node's target before it is made
// unique (snake_case, illegal characters rewritten): see the file comment.
// `is_function` selects the rule for call_function targets (qualified names).
FX_API std::string candidate_name_for_target(absl::string_view target, bool is_function);

// Splits a name as create_name spells it into base and number: `add_12` ->
// (`add`, 12), `layer1_0` -> (`layer1`, 0). Returns false for names without a
// `_<digits>` suffix or with leading zeros in it; every name then has exactly
// one (base, number) or bare form.
FX_API bool split_name_suffix(absl::string_view name, absl::string_view* base, int64_t* number);

// torch.fx's `_snake_case`: `pascalCase` -> `pascal_case`, `ALL_CAPS` -> `all_caps`.
FX_API std::string snake_case(absl::string_view s);

// The base name of a qualified function name: `aten::add.Tensor` -> `add`,
// `torch.nn.functional.relu` -> `relu`, `operator.add` -> `add`, `len` -> `len`.
FX_API absl::string_view function_base_name(absl::string_view qualified_name);

// The qualified name of `atom` under `prefix`: `layer1.0` + `conv1` ->
// `layer1.0.conv1`; an empty prefix (the root module) gives `atom` itself.
FX_API std::string qualified_name(absl::string_view prefix, absl::string_view atom);
// The atoms of a qualified name: `layer1.0.conv1` -> {`layer1`, `0`, `conv1`};
// "" (the root) has none. Views into `qualified_name`.
FX_API std::vector<absl::string_view> qualified_name_atoms(absl::string_view qualified_name);

// The Python name of a TorchScript qualified name: TorchScript prefixes user
// code with `__torch__` and renames a class or function it compiled twice to
// `___torch_mangle_<n>.<name>`, so `__torch__.torchvision.models.x.___torch_mangle_3.f`
// is `torchvision.models.x.f`.
FX_API std::string python_qualified_name(absl::string_view torchscript_name);

// True for Python's special names such as `__add__` (torch.fx's `_is_magic`).
FX_API bool is_magic_name(absl::string_view name);

// PyTorch's naming convention for in-place operators: a trailing underscore
// (`add_`, `relu_`), except special names such as `__and__`.
FX_API bool is_inplace_name(absl::string_view name);

// True for names a generated Python function cannot bind: keywords, builtins
// and FX's reserved globals.
FX_API bool is_reserved_python_name(absl::string_view name);

// True when `s` is a valid Python identifier made of ASCII characters.
FX_API bool is_python_identifier(absl::string_view s);
// True for Python's keywords (`class`, `if`, `None`).
FX_API bool is_python_keyword(absl::string_view s);
// True when `obj.s` is valid Python: an identifier that is no keyword
// (a submodule named `block1-0` or `class` is reached with getattr).
FX_API bool is_python_attribute_name(absl::string_view s);

}  // namespace fx

#endif  // FX_CORE_NAMING_H_
