// Copyright 2026 The FX for C++ Authors.
//
// Program values in the IR: the node each value is, its tensor_meta
// (shape_prop's form, symbolic sizes as expressions) and the program's own
// metadata of it, kept to be written back; the schema's arguments as the IR's.
#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/jit_type.h>
#include <ATen/ops/empty_strided.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "core/well_known.h"
#include "core/sym_expr.h"
#include "tracer/program_walker.h"

namespace fx {
namespace tracer_internal {
namespace {

// A size or stride as tensor_meta shows it: the number, or the expression
// as Python prints it ("3*s77"; sympy's own text when it cannot be read).
MetaValue size_meta(const ep::SymValue& s) {
  if (s.kind != ep::SymValue::Kind::kExpr) return MetaValue(s.i);
  auto e = parse_sym_expr(s.expr);
  return MetaValue(e.ok() ? e->to_string() : s.expr);
}

// Whether libtorch can make a tensor of these sizes and strides (on the meta
// device, float): none negative, its element count and its bytes within
// int64 (else it throws).
bool addressable(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides) {
  int64_t numel = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || strides[i] < 0 || __builtin_mul_overflow(numel, sizes[i], &numel)) return false;
  }
  for (int64_t size : sizes) {
    if (size == 0) return true;
  }
  int64_t last = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t reach = 0;
    if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &reach) || __builtin_add_overflow(last, reach, &last)) {
      return false;
    }
  }
  int64_t bytes = 0;
  return !__builtin_add_overflow(last, 1, &bytes) && !__builtin_mul_overflow(bytes, int64_t{8}, &bytes);
}

// torch.fx's TensorMetadata (as shape_prop records it) of a program value.
MetaValue tensor_meta_of(const ep::TensorMeta& t) {
  MetaValue::List shape, stride;
  bool symbolic = false;
  std::vector<int64_t> sizes, strides;
  for (const ep::SymValue& s : t.sizes) {
    shape.push_back(size_meta(s));
    symbolic = symbolic || s.kind == ep::SymValue::Kind::kExpr;
    sizes.push_back(s.i);
  }
  for (const ep::SymValue& s : t.strides) {
    stride.push_back(size_meta(s));
    symbolic = symbolic || s.kind == ep::SymValue::Kind::kExpr;
    strides.push_back(s.i);
  }
  auto dtype = ep::to_c10(t.dtype);
  MetaValue memory_format;
  // (The memory format of sizes no tensor can have is none.)
  if (!symbolic && t.layout == ep::Layout::kStrided && sizes.size() == strides.size() &&
      addressable(sizes, strides)) {
    const at::Tensor probe = at::empty_strided(sizes, strides, at::TensorOptions().device(c10::kMeta));
    for (c10::MemoryFormat f : {c10::MemoryFormat::Contiguous, c10::MemoryFormat::ChannelsLast,
                                c10::MemoryFormat::ChannelsLast3d}) {
      if (probe.is_contiguous(f)) {
        memory_format = python_memory_format_name(f);
        break;
      }
    }
  }
  std::string device = t.device.type;
  if (t.device.index) absl::StrAppend(&device, ":", *t.device.index);
  return Meta{{"shape", std::move(shape)},
              {"dtype", dtype.ok() ? python_dtype_name(*dtype) : absl::StrCat("dtype ", static_cast<int>(t.dtype))},
              {"requires_grad", t.requires_grad},
              {"stride", std::move(stride)},
              {"memory_format", std::move(memory_format)},
              {"is_quantized", false},
              {"device", device}};
}

using ArgKind = ep::Argument::Kind;

// The schema argument kinds a parameter of `type` takes: those PyTorch's
// serializer writes for a value that parameter accepts (numbers stand for
// each other as in Python: an int where a float is taken, a bool where an
// int is). Types with no entry (dicts, unions, Any) take any kind.
bool takes_kind(const c10::TypePtr& type, const ep::Argument& a, bool numbers_as_tensors) {
  const ArgKind k = a.kind;
  const bool integer = k == ArgKind::kInt || k == ArgKind::kSymInt || k == ArgKind::kBool || k == ArgKind::kSymBool;
  const bool number = integer || k == ArgKind::kFloat || k == ArgKind::kSymFloat;
  const bool empty_list = a.names.empty() && a.ints.empty() && a.floats.empty() && a.strings.empty() &&
                          a.int_lists.empty() && a.float_lists.empty() && a.nested_names.empty();
  switch (type->kind()) {
    case c10::TypeKind::OptionalType:
      return k == ArgKind::kNone || takes_kind(type->expectRef<c10::OptionalType>().getElementType(), a,
                                               numbers_as_tensors);
    case c10::TypeKind::TensorType:
      // (None is an undefined tensor to PyTorch's argument parser.)
      return k == ArgKind::kTensor || k == ArgKind::kOptionalTensor || k == ArgKind::kNone ||
             (numbers_as_tensors && number);
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
    case c10::TypeKind::BoolType:
      return integer;
    case c10::TypeKind::FloatType:
    case c10::TypeKind::NumberType:
      return number;
    case c10::TypeKind::StringType:
      return k == ArgKind::kString;
    case c10::TypeKind::ScalarTypeType:
      return k == ArgKind::kScalarType || k == ArgKind::kInt;
    case c10::TypeKind::LayoutType:
      return k == ArgKind::kLayout || k == ArgKind::kInt;
    case c10::TypeKind::MemoryFormatType:
      return k == ArgKind::kMemoryFormat || k == ArgKind::kInt;
    case c10::TypeKind::DeviceObjType:
      return k == ArgKind::kDevice || k == ArgKind::kString;
    case c10::TypeKind::GeneratorType:
      return k == ArgKind::kNone;
    case c10::TypeKind::ListType: {
      const bool list = k == ArgKind::kTensors || k == ArgKind::kOptionalTensors || k == ArgKind::kInts ||
                        k == ArgKind::kFloats || k == ArgKind::kBools || k == ArgKind::kStrings ||
                        k == ArgKind::kSymInts || k == ArgKind::kSymFloats || k == ArgKind::kSymBools ||
                        k == ArgKind::kIntLists || k == ArgKind::kFloatLists || k == ArgKind::kNestedTensors;
      // An empty list is written as whichever kind (older versions: None).
      if ((list && empty_list) || k == ArgKind::kNone) return true;
      c10::TypePtr element = type->expectRef<c10::ListType>().getElementType();
      if (element->kind() == c10::TypeKind::OptionalType) {
        element = element->expectRef<c10::OptionalType>().getElementType();
      }
      const bool integers = k == ArgKind::kInts || k == ArgKind::kSymInts || k == ArgKind::kBools ||
                            k == ArgKind::kSymBools;
      switch (element->kind()) {
        case c10::TypeKind::TensorType:
          return k == ArgKind::kTensors || k == ArgKind::kOptionalTensors;
        case c10::TypeKind::IntType:
        case c10::TypeKind::SymIntType:
          // (`int[1] dim` takes one int too.)
          return integers || k == ArgKind::kInt || k == ArgKind::kSymInt;
        case c10::TypeKind::BoolType:
          return k == ArgKind::kBools || k == ArgKind::kSymBools;
        case c10::TypeKind::FloatType:
        case c10::TypeKind::NumberType:
          return integers || k == ArgKind::kFloats || k == ArgKind::kSymFloats;
        case c10::TypeKind::StringType:
          return k == ArgKind::kStrings;
        default:
          return true;
      }
    }
    default:
      return true;
  }
}

// PyTorch's argument parser takes a number for a Tensor parameter of these
// operators only (torch/csrc/utils/python_arg_parser's
// should_allow_numbers_as_tensors, and every prims:: operator).
bool takes_numbers_as_tensors(const c10::FunctionSchema& schema) {
  static const absl::flat_hash_set<absl::string_view> kOperators = {
      "add",          "add_",         "add_out",      "div",           "div_",           "div_out",
      "divide",       "divide_",      "divide_out",   "mul",           "mul_",           "mul_out",
      "multiply",     "multiply_",    "multiply_out", "sub",           "sub_",           "sub_out",
      "subtract",     "subtract_",    "subtract_out", "true_divide",   "true_divide_",   "true_divide_out",
      "to",           "_to_copy",     "copy_",        "floor_divide",  "floor_divide_",  "floor_divide_out",
      "_conj"};
  absl::string_view name = schema.name();
  if (absl::ConsumePrefix(&name, "prims::")) return true;
  return absl::ConsumePrefix(&name, "aten::") && kOperators.contains(name);
}

}  // namespace

absl::Status check_argument_kinds(const ep::Node& n, const c10::FunctionSchema& schema, const std::string& where) {
  const bool numbers_as_tensors = takes_numbers_as_tensors(schema);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const ep::NamedArgument& input = n.inputs[i];
    // Kinds the IR cannot hold are refused by name where they are converted.
    if (input.arg.kind == ArgKind::kUnsupported || input.arg.kind == ArgKind::kGraph) continue;
    for (const c10::Argument& param : schema.arguments()) {
      if (param.name() != input.name || takes_kind(param.real_type(), input.arg, numbers_as_tensors)) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": inputs[", i, "] ", quote_for_message(input.name), " is ", ep::argument_key(input.arg.kind),
          ", and ", schema.name(), schema.overload_name().empty() ? "" : ".", schema.overload_name(),
          " takes ", param.real_type()->annotation_str(), " there (PyTorch refuses such a call: the "
          "program is damaged or was made by hand)"));
    }
  }
  return absl::OkStatus();
}

Meta& exported_meta(Node* node) {
  MetaValue* m = node->meta().find(kExportedValueKey);
  if (m == nullptr || !m->is_map()) {
    node->meta().set(kExportedValueKey, Meta());
    m = node->meta().find(kExportedValueKey);
  }
  return m->to_map();
}

void ProgramWalker::bind_value(const std::string& name, Node* node) {
  values_[name] = Argument(node);
  if (auto t = graph_.tensor_values.find(name); t != graph_.tensor_values.end()) {
    node->meta().set(kTensorMetaKey, tensor_meta_of(t->second));
    exported_meta(node).set("tensor_meta", ep::to_json(t->second).dump());
    return;
  }
  for (const auto* table : {&graph_.sym_int_values, &graph_.sym_float_values, &graph_.sym_bool_values}) {
    if (auto v = table->find(name); v != table->end()) {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();
      j["table"] = table == &graph_.sym_int_values ? "sym_int_values"
                   : table == &graph_.sym_float_values ? "sym_float_values" : "sym_bool_values";
      j["value"] = nlohmann::ordered_json::parse(ep::sym_value_to_json(v->second).dump());
      exported_meta(node).set("sym", j.dump());
      return;
    }
  }
}

absl::StatusOr<Argument> ProgramWalker::value(const std::string& name, const std::string& where) {
  auto it = values_.find(name);
  if (it != values_.end()) return it->second;
  auto lifted = lifted_.find(name);
  if (lifted != lifted_.end()) {
    // Parameters, buffers and constants are fetched where first used, as a
    // trace of the module would fetch them (so hooks see them in the module
    // that uses them).
    Node* n = tracer_.create_proxy(Op::kGetAttr, lifted->second, {}, {});
    bind_value(name, n);
    return Argument(n);
  }
  return absl::InvalidArgumentError(absl::StrCat(where, " reads value ", quote_for_message(name),
                                                 ", which nothing before it defines"));
}

absl::StatusOr<Argument> ProgramWalker::convert(const ep::Argument& a, const std::string& where) {
  using K = ep::Argument::Kind;
  auto list = [](std::vector<Argument> items) { return Argument::List(std::move(items)); };
  switch (a.kind) {
    case K::kNone: return Argument();
    case K::kTensor: return value(a.names.at(0), where);
    case K::kTensors:
    case K::kOptionalTensors:
    case K::kOptionalTensor: {
      std::vector<Argument> items;
      for (const std::string& n : a.names) {
        if (n.empty()) {
          items.emplace_back();
          continue;
        }
        auto v = value(n, where);
        if (!v.ok()) return v.status();
        items.push_back(std::move(*v));
      }
      if (a.kind == K::kOptionalTensor) return items.at(0);
      return list(std::move(items));
    }
    case K::kInt: return Argument(a.ints.at(0));
    case K::kBool: return Argument(a.ints.at(0) != 0);
    case K::kFloat: return Argument(a.floats.at(0));
    case K::kString: return Argument(a.strings.at(0));
    case K::kInts: {
      std::vector<Argument> items(a.ints.begin(), a.ints.end());
      return list(std::move(items));
    }
    case K::kBools: {
      std::vector<Argument> items;
      for (int64_t v : a.ints) items.emplace_back(v != 0);
      return list(std::move(items));
    }
    case K::kFloats: {
      std::vector<Argument> items(a.floats.begin(), a.floats.end());
      return list(std::move(items));
    }
    case K::kStrings: {
      std::vector<Argument> items(a.strings.begin(), a.strings.end());
      return list(std::move(items));
    }
    case K::kSymInt:
    case K::kSymFloat:
    case K::kSymBool:
    case K::kSymInts:
    case K::kSymFloats:
    case K::kSymBools: {
      std::vector<Argument> items;
      for (size_t i = 0; i < a.is_name.size(); ++i) {
        if (a.is_name[i]) {
          auto v = value(a.names[i], where);
          if (!v.ok()) return v.status();
          items.push_back(std::move(*v));
        } else if (a.kind == K::kSymFloat || a.kind == K::kSymFloats) {
          items.emplace_back(a.floats[i]);
        } else if (a.kind == K::kSymBool || a.kind == K::kSymBools) {
          items.emplace_back(a.ints[i] != 0);
        } else {
          items.emplace_back(a.ints[i]);
        }
      }
      if (a.kind == K::kSymInt || a.kind == K::kSymFloat || a.kind == K::kSymBool) return items.at(0);
      return list(std::move(items));
    }
    case K::kScalarType: {
      auto t = ep::to_c10(static_cast<ep::ScalarType>(a.ints.at(0)));
      if (!t.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", t.status().message()));
      return Argument(*t);
    }
    case K::kLayout: {
      auto l = ep::to_c10(static_cast<ep::Layout>(a.ints.at(0)));
      if (!l.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", l.status().message()));
      return Argument(*l);
    }
    case K::kMemoryFormat: {
      auto m = ep::to_c10(static_cast<ep::MemoryFormat>(a.ints.at(0)));
      if (!m.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", m.status().message()));
      return Argument(*m);
    }
    case K::kDevice: {
      try {
        c10::Device d(a.device.type);
        if (a.device.index) d = c10::Device(d.type(), static_cast<c10::DeviceIndex>(*a.device.index));
        return Argument(d);
      } catch (const std::exception& e) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": unknown device ", quote_for_message(a.device.type)));
      }
    }
    case K::kIntLists: {
      std::vector<Argument> outer;
      for (const auto& inner : a.int_lists) outer.push_back(list(std::vector<Argument>(inner.begin(), inner.end())));
      return list(std::move(outer));
    }
    case K::kFloatLists: {
      std::vector<Argument> outer;
      for (const auto& inner : a.float_lists) outer.push_back(list(std::vector<Argument>(inner.begin(), inner.end())));
      return list(std::move(outer));
    }
    case K::kNestedTensors: {
      std::vector<Argument> outer;
      for (const auto& inner : a.nested_names) {
        std::vector<Argument> items;
        for (const std::string& n : inner) {
          auto v = value(n, where);
          if (!v.ok()) return v.status();
          items.push_back(std::move(*v));
        }
        outer.push_back(list(std::move(items)));
      }
      return list(std::move(outer));
    }
    case K::kStringToArgument: {
      Kwargs items;
      for (const auto& [k, v] : a.items) {
        auto c = convert(v, where);
        if (!c.ok()) return c.status();
        items.emplace_back(k, std::move(*c));
      }
      return Argument::Dict(std::move(items));
    }
    case K::kGraph:
      return absl::UnimplementedError(absl::StrCat(
          where, " takes a subgraph (", quote_for_message(a.names.at(0)),
          "): higher-order operators (cond, while_loop, map) are not supported yet"));
    case K::kUnsupported:
      return absl::UnimplementedError(absl::StrCat(where, " takes an argument of kind ", a.names.at(0),
                                                   ", which FX for C++ does not support"));
  }
  return Argument();
}

}  // namespace tracer_internal
}  // namespace fx
