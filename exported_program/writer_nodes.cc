// Copyright 2026 The FX for C++ Authors.
//
// Operator calls as the program's nodes: ATen overloads with their arguments
// named by the operator's schema, `operator.*` on sizes as `_operator.*`,
// the named results of multi-result operators.
#include <ATen/core/function_schema.h>
#include <ATen/core/jit_type.h>
#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>
#include <c10/core/Layout.h>
#include <c10/core/MemoryFormat.h>
#include <c10/core/ScalarType.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/well_known.h"
#include "exported_program/archive.h"
#include "exported_program/program_builder.h"
#include "runtime/interpreter/node_calls.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace exported {
namespace writer_internal {

namespace {

// The schema's name for a dtype, layout or memory format argument.
int64_t dtype_number(c10::ScalarType t) {
  auto n = from_c10(t);
  return n.ok() ? static_cast<int64_t>(*n) : 0;
}

}  // namespace

absl::StatusOr<Argument> ProgramBuilder::python_operand(const IrNode& user, const ::fx::Argument& given) {
  const ::fx::Argument& a = resolved(given);
  Argument out;
  if (a.is_node()) {
    const ValueKind k = kinds_[a.to_node()];
    if (k != ValueKind::kSymInt && k != ValueKind::kSymFloat && k != ValueKind::kSymBool) {
      return refuse(user, "a Python operator on a tensor (write the graph with aten operators)");
    }
    out.kind = k == ValueKind::kSymInt ? Argument::Kind::kSymInt
               : k == ValueKind::kSymFloat ? Argument::Kind::kSymFloat : Argument::Kind::kSymBool;
    out.is_name = {true};
    out.names = {names_[a.to_node()]};
    out.ints = {0};
    out.floats = {0};
    return out;
  }
  if (!a.is_int() && !a.is_double() && !a.is_bool()) {
    return refuse(user, absl::StrCat("an operand of kind ", kind_name(a.kind())));
  }
  return constant_value(a);
}

absl::StatusOr<Argument> ProgramBuilder::argument(const IrNode& user, const ::fx::Argument& given,
                                                  const c10::TypePtr& declared) {
  const ::fx::Argument& a = resolved(given);
  Argument out;
  if (a.is_none()) return out;  // as_none
  const c10::TypePtr type = without_optional(declared);
  const auto node_name = [&](const ::fx::Argument& e) -> absl::StatusOr<std::string> {
    if (!e.is_node()) return refuse(user, "a non-tensor where the operator takes a tensor");
    auto it = names_.find(e.to_node());
    if (it == names_.end()) return refuse(user, absl::StrCat("it reads '", e.to_node()->name(), "', which is not a value"));
    return it->second;
  };
  // libtorch's schemas declare `ScalarType? dtype`, `Layout?` and
  // `MemoryFormat?` as ints (their fake type): write what the value is.
  if (type->kind() == c10::TypeKind::IntType) {
    if (a.is_dtype()) return argument(user, a, c10::ScalarTypeType::get());
    if (a.is_layout()) return argument(user, a, c10::LayoutType::get());
    if (a.is_memory_format()) return argument(user, a, c10::MemoryFormatType::get());
  }
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
      if (a.is_node()) {
        auto name = node_name(a);
        if (!name.ok()) return name.status();
        out.kind = Argument::Kind::kTensor;
        out.names = {*name};
        return out;
      }
      [[fallthrough]];  // a Python number where a tensor is taken (aten::add.Tensor(x, 1))
    case c10::TypeKind::NumberType:
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::BoolType: {
      if (a.is_node()) {
        auto p = python_operand(user, a);
        if (!p.ok()) return p.status();
        return p;
      }
      if (a.is_int() && type->kind() == c10::TypeKind::FloatType) return python_operand(user, ::fx::Argument(static_cast<double>(a.to_int())));
      return python_operand(user, a);
    }
    case c10::TypeKind::StringType:
      if (!a.is_string()) break;
      out.kind = Argument::Kind::kString;
      out.strings = {a.to_string()};
      return out;
    case c10::TypeKind::ScalarTypeType:
      out.kind = Argument::Kind::kScalarType;
      if (a.is_dtype()) {
        out.ints = {dtype_number(a.to_dtype())};
      } else if (a.is_int()) {
        out.ints = {dtype_number(static_cast<c10::ScalarType>(a.to_int()))};
      } else {
        break;
      }
      return out;
    case c10::TypeKind::LayoutType:
      out.kind = Argument::Kind::kLayout;
      if (a.is_layout()) {
        out.ints = {static_cast<int64_t>(from_c10(a.to_layout()))};
      } else if (a.is_int()) {
        out.ints = {static_cast<int64_t>(from_c10(static_cast<c10::Layout>(a.to_int())))};
      } else {
        break;
      }
      return out;
    case c10::TypeKind::MemoryFormatType:
      out.kind = Argument::Kind::kMemoryFormat;
      if (a.is_memory_format()) {
        out.ints = {static_cast<int64_t>(from_c10(a.to_memory_format()))};
      } else if (a.is_int()) {
        out.ints = {static_cast<int64_t>(from_c10(static_cast<c10::MemoryFormat>(a.to_int())))};
      } else {
        break;
      }
      return out;
    case c10::TypeKind::DeviceObjType: {
      out.kind = Argument::Kind::kDevice;
      c10::Device d(c10::kCPU);
      if (a.is_device()) {
        d = a.to_device();
      } else if (a.is_string()) {
        try {
          d = c10::Device(a.to_string());
        } catch (const std::exception&) {
          break;
        }
      } else {
        break;
      }
      out.device.type = c10::DeviceTypeName(d.type(), /*lower_case=*/true);
      if (d.has_index()) out.device.index = d.index();
      return out;
    }
    case c10::TypeKind::ListType: {
      const c10::TypePtr element = type->expectRef<c10::ListType>().getElementType();
      std::vector<::fx::Argument> items;
      if (a.is_sequence()) {
        items = a.elements();
      } else {
        items = {a};  // `int[2]` given one int
      }
      const c10::TypePtr inner = without_optional(element);
      const bool optional = element->kind() == c10::TypeKind::OptionalType;
      if (inner->kind() == c10::TypeKind::TensorType) {
        out.kind = optional ? Argument::Kind::kOptionalTensors : Argument::Kind::kTensors;
        for (const ::fx::Argument& e : items) {
          if (optional && e.is_none()) {
            out.names.emplace_back();
            continue;
          }
          auto name = node_name(e);
          if (!name.ok()) return name.status();
          out.names.push_back(*name);
        }
        return out;
      }
      const bool any_node = std::any_of(items.begin(), items.end(), [](const ::fx::Argument& e) { return e.is_node(); });
      switch (inner->kind()) {
        case c10::TypeKind::IntType:
        case c10::TypeKind::SymIntType:
          if (any_node) {
            out.kind = Argument::Kind::kSymInts;
            for (const ::fx::Argument& e : items) {
              auto p = python_operand(user, e);
              if (!p.ok()) return p.status();
              out.is_name.push_back(p->kind != Argument::Kind::kInt);
              out.names.push_back(p->names.empty() ? "" : p->names[0]);
              out.ints.push_back(p->ints.empty() ? 0 : p->ints[0]);
              out.floats.push_back(0);
            }
            return out;
          }
          out.kind = Argument::Kind::kInts;
          for (const ::fx::Argument& e : items) {
            if (!e.is_int()) return refuse(user, "a list of ints holds something else");
            out.ints.push_back(e.to_int());
          }
          return out;
        case c10::TypeKind::FloatType:
          out.kind = Argument::Kind::kFloats;
          for (const ::fx::Argument& e : items) {
            if (e.is_double()) {
              out.floats.push_back(e.to_double());
            } else if (e.is_int()) {
              out.floats.push_back(static_cast<double>(e.to_int()));
            } else {
              return refuse(user, "a list of floats holds something else");
            }
          }
          return out;
        case c10::TypeKind::BoolType:
          out.kind = Argument::Kind::kBools;
          for (const ::fx::Argument& e : items) {
            if (!e.is_bool()) return refuse(user, "a list of bools holds something else");
            out.ints.push_back(e.to_bool());
          }
          return out;
        case c10::TypeKind::StringType:
          out.kind = Argument::Kind::kStrings;
          for (const ::fx::Argument& e : items) {
            if (!e.is_string()) return refuse(user, "a list of strings holds something else");
            out.strings.push_back(e.to_string());
          }
          return out;
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  return refuse(user, absl::StrCat("an argument of kind ", kind_name(a.kind()), " for a parameter of type ",
                                   declared->annotation_str()));
}

absl::Status ProgramBuilder::add_call(const IrNode& n) {
  exported::Node out;
  out.name = n.name();
  const ValueKind kind = kinds_[&n];
  if (absl::StrContains(n.target(), "::")) {
    const c10::FunctionSchema* known = builtin_schema(n.target());
    if (known == nullptr) {
      auto op = find_operator(n.target());
      if (!op.ok()) return refuse(n, op.status().message());
      known = op->schema;
    }
    const c10::FunctionSchema& schema = *known;
    const std::string& overload = schema.overload_name();
    std::vector<std::string> parts = absl::StrSplit(schema.name(), "::");
    out.target = absl::StrCat("torch.ops.", parts[0], ".", parts[1], ".", overload.empty() ? "default" : overload);
    std::vector<std::string> kwarg_names;
    for (const auto& kv : n.kwargs()) kwarg_names.push_back(kv.first);
    auto bindings = bind_positions(schema, n.args().size(), kwarg_names);
    if (!bindings.ok()) return refuse(n, bindings.status().message());
    const auto& params = schema.arguments();
    for (size_t i = 0; i < params.size(); ++i) {
      const ParamBinding& b = (*bindings)[i];
      const ::fx::Argument* value = nullptr;
      ::fx::Argument packed;
      if (b.kind == ParamBinding::kPositional) {
        value = &n.args()[b.index];
      } else if (b.kind == ParamBinding::kKeyword) {
        value = &n.kwargs()[b.index].second;
      } else if (b.kind == ParamBinding::kPacked) {
        packed = ::fx::Argument::List(std::vector<::fx::Argument>(n.args().begin() + b.index, n.args().begin() + b.end));
        value = &packed;
      } else {
        continue;  // left to its default, as torch.export leaves it
      }
      auto a = argument(n, *value, params[i].type());
      if (!a.ok()) return a.status();
      NamedArgument na;
      na.name = params[i].name();
      na.arg = *std::move(a);
      // Given by keyword, a keyword (torch reads the positional ones in
      // order: `dtype` after a defaulted `size` must not become the size).
      if (!legacy()) na.kind = params[i].kwarg_only() || b.kind == ParamBinding::kKeyword ? 2 : 1;
      out.inputs.push_back(std::move(na));
    }
  } else {
    // `operator.mul` on sizes: `_operator.mul(a, b)`, as torch.export writes it.
    out.target = absl::StrCat("_", n.target());
    const char* names[] = {"a", "b", "c"};
    for (size_t i = 0; i < n.args().size() && i < 3; ++i) {
      auto a = python_operand(n, n.args()[i]);
      if (!a.ok()) return a.status();
      NamedArgument na;
      na.name = names[i];
      na.arg = *std::move(a);
      if (!legacy()) na.kind = 1;
      out.inputs.push_back(std::move(na));
    }
  }
  Argument result;
  switch (kind) {
    case ValueKind::kNone:
      break;
    case ValueKind::kTensor:
      result.kind = Argument::Kind::kTensor;
      result.names = {n.name()};
      out.outputs.push_back(result);
      break;
    case ValueKind::kSymInt:
    case ValueKind::kSymFloat:
    case ValueKind::kSymBool:
      result.kind = kind == ValueKind::kSymInt ? Argument::Kind::kSymInt
                    : kind == ValueKind::kSymFloat ? Argument::Kind::kSymFloat : Argument::Kind::kSymBool;
      result.is_name = {true};
      result.names = {n.name()};
      result.ints = {0};
      result.floats = {0};
      out.outputs.push_back(result);
      break;
    case ValueKind::kTensors:
    case ValueKind::kTuple: {
      // Results nobody reads still need names: the program lists them all.
      std::vector<std::string>& names = results_[&n];
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i].empty()) names[i] = fresh_name(absl::StrCat(n.name(), "_", i));
      }
      if (kind == ValueKind::kTensors) {
        result.kind = Argument::Kind::kTensors;
        result.names = names;
        out.outputs.push_back(result);
      } else {
        for (const std::string& name : names) {
          Argument r;
          r.kind = Argument::Kind::kTensor;
          r.names = {name};
          out.outputs.push_back(r);
        }
      }
      // Results without a getitem (dead-code elimination removed it) have
      // their metadata on the node: what the program said of each result, or
      // shape_prop's list.
      for (size_t i = 0; i < names.size(); ++i) {
        if (graph().tensor_values.count(names[i]) > 0) continue;
        auto meta = result_meta(n, i);
        if (!meta.ok()) return meta.status();
        graph().tensor_values[names[i]] = *std::move(meta);
      }
      break;
    }
  }
  if (const MetaValue* e = n.meta().find(kExportedValueKey); e != nullptr && e->is_map()) {
    if (const MetaValue* m = e->to_map().find("metadata"); m != nullptr && m->is_map()) {
      for (const auto& [key, value] : m->to_map()) {
        if (value.is_string()) out.metadata[key] = value.to_string();
      }
    }
  }
  if (legacy()) out.name.reset();
  graph().nodes.push_back(std::move(out));
  return absl::OkStatus();
}

}  // namespace writer_internal
}  // namespace exported
}  // namespace fx
