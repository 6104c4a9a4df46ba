// Copyright 2026 The FX for C++ Authors.
//
// value_conversion.h: between graph literals (fx::Argument) and libtorch values
// (c10::IValue).
//
// A graph holds literals as Arguments; operators take IValues typed as their
// schema says. The conversions follow TorchScript's conventions: dtypes,
// layouts and memory formats are ints, a Python list of ints is an `int[]`
// (c10::List<int64_t>), of tensors a `Tensor[]`, and so on. When a schema type
// is known, conversion follows it (an int becomes a float where a float is
// expected, None is accepted where the type is Optional); without one, the
// IValue type is inferred from the value.
#ifndef FX_RUNTIME_VALUE_CONVERSION_H_
#define FX_RUNTIME_VALUE_CONVERSION_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <ATen/core/ivalue.h>
#include <ATen/core/jit_type.h>

#include "absl/status/statusor.h"
#include "core/argument.h"
#include "core/export.h"

namespace fx {

// Supplies the runtime value of a node referenced by an argument.
using NodeValueFn = std::function<absl::StatusOr<c10::IValue>(Node*)>;

// Converts `arg` to an IValue of `type` (nullptr: inferred). Node references
// are resolved with `node_value` (may be empty when `arg` has none). Errors
// say what was expected and what was found.
FX_API absl::StatusOr<c10::IValue> argument_to_ivalue(const Argument& arg, const c10::TypePtr& type,
                                                      const NodeValueFn& node_value = nullptr);

// Converts a value known when tracing to a graph literal: None, bool, int,
// float, str, device, and lists, tuples and string-keyed dicts of those.
// `type` (a schema's real type, may be nullptr) turns ints into dtypes,
// layouts or memory formats where that is what they mean. Tensors, modules and
// other objects are not literals: the error says so.
FX_API absl::StatusOr<Argument> ivalue_to_argument(const c10::IValue& value,
                                                   const c10::TypePtr& type = nullptr);

// True when `type` is, or contains, a Tensor type.
FX_API bool type_contains_tensor(const c10::TypePtr& type);

// The kind of literal an int stands for under `type`: dtype, layout, memory
// format, or a plain int (TorchScript passes all four as int).
FX_API Argument int_as_literal(int64_t value, const c10::TypePtr& type);

// A NamedTuple's class as the graph names it (`torchvision.models.googlenet.
// GoogLeNetOutputs`, the Python qualified name) and its fields, for a
// TorchScript NamedTuple type (`__torch__.torchvision...`); nullopt for other
// types.
FX_API std::optional<std::pair<std::string, std::vector<std::string>>> named_tuple_of(
    const c10::TypePtr& type);
// The TorchScript qualified name of a class the graph names by its Python
// name: `__torch__.` in front.
FX_API std::string torchscript_class_name(absl::string_view python_name);

// `T` for `Optional[T]`; any other type (or nullptr) unchanged.
FX_API c10::TypePtr without_optional(const c10::TypePtr& type);

// The elements of a list or tuple value, in order. Requires a list or tuple.
FX_API std::vector<c10::IValue> sequence_elements(const c10::IValue& sequence);

// A list of `element`s as operators expect it: `int[]`, `float[]`, `bool[]`
// and `Tensor[]` as specialised lists, other element types as a generic list.
// Requires every value to be of the element type.
FX_API c10::IValue make_typed_list(const c10::TypePtr& element, std::vector<c10::IValue> values);

// `v` with `fn` applied to every tensor in it: tuples (NamedTuples keep their
// type), lists and dicts rebuilt around the results; other values as they are.
FX_API c10::IValue map_tensors(const c10::IValue& v,
                               const std::function<at::Tensor(const at::Tensor&)>& fn);

// A copy of `value` that shares no tensor with it, laid out as it is: each
// tensor a view, with its sizes, strides and storage offset, of a copy of
// its storage (an expanded input stays expanded, so an in-place operator
// rejects the copy as it rejects the original), tensors sharing a storage in
// `value` sharing the copy of it; tuples, lists and dicts rebuilt around the
// copies; other values as they are. For running a model twice on the same
// inputs when it changes them in place. (Tensors of other layouts, and
// conjugate or negative views, are cloned.)
FX_API c10::IValue deep_copy(const c10::IValue& value);
// The same for several values at once: storages shared between them are
// shared between their copies.
FX_API std::vector<c10::IValue> deep_copy(const std::vector<c10::IValue>& values);

// The memory `t` reads, as a key: its storage, or the tensor itself when it
// has none (sparse, MKLDNN). Views of one storage share the key; passes that
// must know which tensors a write reaches group by it.
FX_API const void* storage_identity(const at::Tensor& t);

}  // namespace fx

#endif  // FX_RUNTIME_VALUE_CONVERSION_H_
