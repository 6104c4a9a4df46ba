// Copyright 2026 The FX for C++ Authors.
#include "exported_program/writer.h"

#include <ATen/ATen.h>
#include <torch/version.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "core/python_operators.h"
#include "core/well_known.h"
#include "exported_program/archive.h"
#include "exported_program/schema.h"
#include "exported_program/torch_save.h"
#include "exported_program/treespec.h"
#include "exported_program/zip_file.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"

namespace fx {
namespace exported {
namespace {

// The IR's types (the schema's Node, Graph and Argument share their names).
using IrNode = ::fx::Node;
using IrGraphModule = ::fx::GraphModule;

// What a node's value is, for naming it in the program.
enum class ValueKind { kNone, kTensor, kTensors, kTuple, kSymInt, kSymFloat, kSymBool };

ValueKind kind_of_type(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::TensorType: return ValueKind::kTensor;
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType: return ValueKind::kSymInt;
    case c10::TypeKind::FloatType: return ValueKind::kSymFloat;
    case c10::TypeKind::BoolType: return ValueKind::kSymBool;
    case c10::TypeKind::ListType:
      if (type->expectRef<c10::ListType>().getElementType()->kind() == c10::TypeKind::TensorType) {
        return ValueKind::kTensors;
      }
      return ValueKind::kNone;
    default: return ValueKind::kNone;
  }
}

// The schema's name for a dtype, layout or memory format argument.
int64_t dtype_number(c10::ScalarType t) {
  auto n = from_c10(t);
  return n.ok() ? static_cast<int64_t>(*n) : 0;
}

// torch.fx's TensorMetadata as shape_prop records it, as the schema's
// TensorMeta; concrete sizes only.
absl::StatusOr<TensorMeta> from_shape_prop(const Meta& meta) {
  TensorMeta m;
  m.device.type = "cpu";
  auto ints = [&](const char* key, std::vector<SymValue>* out) -> bool {
    const MetaValue* v = meta.find(key);
    if (v == nullptr || !v->is_list()) return false;
    for (const MetaValue& e : v->to_list()) {
      if (!e.is_int()) return false;
      SymValue s;
      s.i = e.to_int();
      out->push_back(s);
    }
    return true;
  };
  const MetaValue* dtype_name = meta.find("dtype");
  std::optional<c10::ScalarType> dtype;
  for (int i = 0; i < static_cast<int>(c10::ScalarType::NumOptions) && dtype_name && dtype_name->is_string(); ++i) {
    const auto t = static_cast<c10::ScalarType>(i);
    if (python_dtype_name(t) == dtype_name->to_string()) dtype = t;
  }
  if (!dtype || !ints("shape", &m.sizes) || !ints("stride", &m.strides)) {
    return absl::InvalidArgumentError(
        "its tensor_meta has symbolic or missing sizes that were not read from a program; run shape_prop on "
        "concrete inputs first");
  }
  auto number = from_c10(*dtype);
  if (!number.ok()) return number.status();
  m.dtype = *number;
  if (const MetaValue* rg = meta.find("requires_grad"); rg && rg->is_bool()) m.requires_grad = rg->to_bool();
  if (const MetaValue* d = meta.find("device"); d && d->is_string()) {
    const std::string device = d->to_string();
    const size_t colon = device.find(':');
    m.device.type = device.substr(0, colon);
    int64_t index = 0;
    if (colon != std::string::npos && absl::SimpleAtoi(device.substr(colon + 1), &index)) m.device.index = index;
  }
  return m;
}

// What the program said of result `i` of a multi-result node, or shape_prop's.
absl::StatusOr<TensorMeta> result_meta(const IrNode& n, size_t i) {
  if (const MetaValue* e = n.meta().find(kExportedValueKey); e != nullptr && e->is_map()) {
    if (const MetaValue* r = e->to_map().find("results"); r != nullptr && r->is_list() && i < r->to_list().size() &&
                                                            r->to_list()[i].is_string()) {
      auto meta = parse_tensor_meta(nlohmann::json::parse(r->to_list()[i].to_string(), nullptr, false));
      if (meta.ok()) return meta;
    }
  }
  const MetaValue* tm = n.meta().find(kTensorMetaKey);
  if (tm != nullptr && tm->is_list() && i < tm->to_list().size() && tm->to_list()[i].is_map()) {
    return from_shape_prop(tm->to_list()[i].to_map());
  }
  return absl::InvalidArgumentError(absl::StrCat("cannot write node ", quote_for_message(n.name()), " (", n.target(),
                                                 ") to a torch.export program: its result ", i,
                                                 " is unused and has no tensor metadata (run shape_prop first)"));
}

class ProgramBuilder {
 public:
  ProgramBuilder(const IrGraphModule& gm, const WriteOptions& options) : gm_(gm), options_(options) {}

  absl::StatusOr<std::string> build();

 private:
  absl::Status refuse(const IrNode& n, absl::string_view why) const {
    return absl::InvalidArgumentError(absl::StrCat("cannot write node ", quote_for_message(n.name()), " (",
                                                   op_name(n.op()), " ", n.target(),
                                                   ") to a torch.export program: ", why));
  }
  bool legacy() const { return options_.layout == WriteLayout::kLegacy; }
  std::string fresh_name(const std::string& base);
  absl::Status classify();
  absl::Status add_lifted(const IrNode& n);
  absl::StatusOr<Argument> argument(const IrNode& user, const ::fx::Argument& a, const c10::TypePtr& type);
  absl::StatusOr<Argument> python_operand(const IrNode& user, const ::fx::Argument& a);
  absl::Status add_call(const IrNode& n);
  absl::StatusOr<TreeSpec> output_structure(const ::fx::Argument& a, std::vector<Argument>* leaves);
  absl::Status add_outputs();
  absl::Status add_value_meta(const std::string& name, const IrNode& n);
  absl::Status add_sym_meta(const std::string& name, const IrNode& n, ValueKind kind);
  absl::StatusOr<std::string> archive();
  absl::StatusOr<std::string> legacy_archive();

  const IrGraphModule& gm_;
  const WriteOptions& options_;
  Program program_;
  Graph& graph() { return program_.graph_module.graph; }

  std::set<std::string> taken_;
  // Program value name of each node (placeholders, get_attrs, results).
  absl::flat_hash_map<const IrNode*, std::string> names_;
  absl::flat_hash_map<const IrNode*, ValueKind> kinds_;
  // get_attr targets lifted, in order, with their input names.
  struct Lifted {
    std::string target;
    std::string name;
    InputSpec::Kind kind;
    at::Tensor tensor;
  };
  std::vector<Lifted> lifted_;
  absl::flat_hash_map<std::string, size_t> lifted_by_target_;
  // Multi-result nodes: the names of their results by index.
  absl::flat_hash_map<const IrNode*, std::vector<std::string>> results_;
  // copy_ nodes written back as buffer mutations.
  absl::flat_hash_set<const IrNode*> mutations_;
  std::vector<OutputSpec> mutation_specs_;
  std::vector<std::string> user_inputs_;
};

std::string ProgramBuilder::fresh_name(const std::string& base) {
  std::string name = base;
  for (int i = 1; taken_.count(name) > 0; ++i) name = absl::StrCat(base, "_", i);
  taken_.insert(name);
  return name;
}

absl::Status ProgramBuilder::add_lifted(const IrNode& n) {
  if (lifted_by_target_.count(n.target()) > 0) {
    names_[&n] = lifted_[lifted_by_target_[n.target()]].name;
    kinds_[&n] = ValueKind::kTensor;
    return absl::OkStatus();
  }
  auto value = gm_.get_attr(n.target());
  if (!value.ok()) return refuse(n, value.status().message());
  if (!value->isTensor()) {
    return refuse(n, absl::StrCat("it fetches a ", value->tagKind(), "; torch.export programs lift tensors only"));
  }
  // What the owner module holds there: a parameter, a buffer, or (an own
  // attribute of the GraphModule, another attribute) a constant.
  InputSpec::Kind kind = InputSpec::Kind::kTensorConstant;
  if (gm_.own_attributes().count(n.target()) == 0) {
    const std::string& target = n.target();
    const size_t dot = target.rfind('.');
    auto owner = gm_.get_submodule(dot == std::string::npos ? "" : target.substr(0, dot));
    if (owner.ok()) {
      const std::string attr = dot == std::string::npos ? target : target.substr(dot + 1);
      const c10::ClassTypePtr type = owner->type();
      if (auto slot = type->findAttributeSlot(attr)) {
        if (type->is_parameter(*slot)) kind = InputSpec::Kind::kParameter;
        if (type->is_buffer(*slot)) kind = InputSpec::Kind::kBuffer;
      }
    }
  }
  const char* prefix = kind == InputSpec::Kind::kParameter ? "p_" : kind == InputSpec::Kind::kBuffer ? "b_" : "c_";
  Lifted l{n.target(), fresh_name(absl::StrCat(prefix, absl::StrReplaceAll(n.target(), {{".", "_"}}))), kind,
           value->toTensor()};
  lifted_by_target_[n.target()] = lifted_.size();
  lifted_.push_back(l);
  names_[&n] = l.name;
  kinds_[&n] = ValueKind::kTensor;
  return add_value_meta(l.name, n);
}

// The program's TensorMeta of a node's value: what the program said when it
// was read, else shape_prop's tensor_meta, else (get_attr) the tensor itself.
absl::Status ProgramBuilder::add_value_meta(const std::string& name, const IrNode& n) {
  if (const MetaValue* e = n.meta().find(kExportedValueKey); e != nullptr && e->is_map()) {
    if (const MetaValue* t = e->to_map().find("tensor_meta"); t != nullptr && t->is_string()) {
      auto meta = parse_tensor_meta(nlohmann::json::parse(t->to_string(), nullptr, false));
      if (meta.ok()) {
        graph().tensor_values[name] = *std::move(meta);
        return absl::OkStatus();
      }
    }
  }
  TensorMeta m;
  m.device.type = "cpu";
  if (n.op() == Op::kGetAttr) {
    auto v = gm_.get_attr(n.target());
    if (v.ok() && v->isTensor()) {
      const at::Tensor& t = v->toTensor();
      auto dtype = from_c10(t.scalar_type());
      if (!dtype.ok()) return refuse(n, dtype.status().message());
      m.dtype = *dtype;
      for (int64_t s : t.sizes()) m.sizes.push_back(SymValue::of_int(s));
      for (int64_t s : t.strides()) m.strides.push_back(SymValue::of_int(s));
      m.storage_offset = SymValue::of_int(t.storage_offset());
      m.requires_grad = t.requires_grad();
      m.device.type = c10::DeviceTypeName(t.device().type(), /*lower_case=*/true);
      if (t.device().has_index()) m.device.index = t.device().index();
      graph().tensor_values[name] = std::move(m);
      return absl::OkStatus();
    }
  }
  const MetaValue* tm = n.meta().find(kTensorMetaKey);
  if (tm == nullptr || !tm->is_map()) {
    return refuse(n, "its value has no tensor metadata, which a torch.export program records for every tensor: "
                     "run shape propagation first (--passes=...,shape_prop with --input-shape or --input)");
  }
  auto converted = from_shape_prop(tm->to_map());
  if (!converted.ok()) return refuse(n, converted.status().message());
  m = *std::move(converted);
  graph().tensor_values[name] = std::move(m);
  return absl::OkStatus();
}

absl::Status ProgramBuilder::add_sym_meta(const std::string& name, const IrNode& n, ValueKind kind) {
  if (const MetaValue* e = n.meta().find(kExportedValueKey); e != nullptr && e->is_map()) {
    if (const MetaValue* s = e->to_map().find("sym"); s != nullptr && s->is_string()) {
      const nlohmann::json j = nlohmann::json::parse(s->to_string(), nullptr, false);
      if (j.is_object() && j.contains("table") && j.contains("value")) {
        const std::string table = j["table"];
        const SymValue::Kind constant = table == "sym_float_values" ? SymValue::Kind::kFloat
                                        : table == "sym_bool_values" ? SymValue::Kind::kBool
                                                                     : SymValue::Kind::kInt;
        auto v = parse_sym_value(j["value"], constant);
        if (v.ok()) {
          auto& values = constant == SymValue::Kind::kFloat ? graph().sym_float_values
                         : constant == SymValue::Kind::kBool ? graph().sym_bool_values
                                                              : graph().sym_int_values;
          values[name] = *std::move(v);
          return absl::OkStatus();
        }
      }
    }
  }
  return refuse(n, absl::StrCat("its symbolic ", kind == ValueKind::kSymFloat ? "float" : kind == ValueKind::kSymBool ? "bool" : "int",
                                " was not read from a program, so its expression is unknown"));
}

absl::StatusOr<Argument> ProgramBuilder::python_operand(const IrNode& user, const ::fx::Argument& a) {
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
  if (a.is_int()) {
    out.kind = Argument::Kind::kInt;
    out.ints = {a.to_int()};
  } else if (a.is_double()) {
    out.kind = Argument::Kind::kFloat;
    out.floats = {a.to_double()};
  } else if (a.is_bool()) {
    out.kind = Argument::Kind::kBool;
    out.ints = {a.to_bool()};
  } else {
    return refuse(user, absl::StrCat("an operand of kind ", kind_name(a.kind())));
  }
  return out;
}

absl::StatusOr<Argument> ProgramBuilder::argument(const IrNode& user, const ::fx::Argument& a,
                                                  const c10::TypePtr& declared) {
  Argument out;
  if (a.is_none()) return out;  // as_none
  const c10::TypePtr type = without_optional(declared);
  const auto node_name = [&](const ::fx::Argument& e) -> absl::StatusOr<std::string> {
    if (!e.is_node()) return refuse(user, "a non-tensor where the operator takes a tensor");
    auto it = names_.find(e.to_node());
    if (it == names_.end()) return refuse(user, absl::StrCat("it reads '", e.to_node()->name(), "', which is not a value"));
    return it->second;
  };
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

// The buffer a trailing `copy_(get_attr, value)` writes: how ep.module()
// applies a buffer mutation. Only right before the output, unused.
const IrNode* buffer_written_back(const IrNode& n, const IrGraphModule& gm) {
  if (n.op() != Op::kCallFunction || n.target() != "aten::copy_" || !n.users().empty()) return nullptr;
  if (n.args().size() != 2 || !n.args()[0].is_node() || n.args()[0].to_node()->op() != Op::kGetAttr) return nullptr;
  for (const IrNode* next = n.next(); next != nullptr; next = next->next()) {
    if (next->op() == Op::kOutput) break;
    if (buffer_written_back(*next, gm) == nullptr) return nullptr;
  }
  return n.args()[0].to_node();
}

absl::Status ProgramBuilder::classify() {
  for (const IrNode* n : gm_.graph().nodes()) taken_.insert(n->name());
  for (const IrNode* n : gm_.graph().nodes()) {
    switch (n->op()) {
      case Op::kPlaceholder: {
        const MetaValue* tm = n->meta().find(kTensorMetaKey);
        const MetaValue* e = n->meta().find(kExportedValueKey);
        if ((tm == nullptr || !tm->is_map()) && (e == nullptr || !e->is_map())) {
          const std::string& type = n->type();
          if (!type.empty() && type != "torch.Tensor" && type != "Tensor") {
            return refuse(*n, absl::StrCat("the input is a ", type,
                                           "; FX for C++ writes programs whose inputs are tensors"));
          }
        }
        names_[n] = n->name();
        kinds_[n] = ValueKind::kTensor;
        user_inputs_.push_back(n->name());
        if (absl::Status s = add_value_meta(n->name(), *n); !s.ok()) return s;
        break;
      }
      case Op::kGetAttr:
        if (absl::Status s = add_lifted(*n); !s.ok()) return s;
        break;
      case Op::kCallModule:
        return refuse(*n, "it calls a submodule (a TorchScript module): inline it first (--passes=inline)");
      case Op::kCallMethod:
        return refuse(*n, "it calls a method; torch.export programs call operators");
      case Op::kOutput:
        break;
      case Op::kCallFunction: {
        if (n->target() == kGetItemTarget && n->args().size() == 2 && n->args()[0].is_node() &&
            results_.count(n->args()[0].to_node()) > 0 && n->args()[1].is_int()) {
          auto& results = results_[n->args()[0].to_node()];
          const int64_t index = n->args()[1].to_int();
          if (index < 0 || index >= static_cast<int64_t>(results.size()) || !results[index].empty()) {
            return refuse(*n, "a getitem of a result that does not exist or is taken twice");
          }
          results[index] = n->name();
          names_[n] = n->name();
          kinds_[n] = ValueKind::kTensor;
          if (absl::Status s = add_value_meta(n->name(), *n); !s.ok()) return s;
          break;
        }
        if (const IrNode* buffer = buffer_written_back(*n, gm_)) {
          auto lifted = lifted_by_target_.find(buffer->target());
          if (lifted != lifted_by_target_.end() && lifted_[lifted->second].kind == InputSpec::Kind::kBuffer &&
              n->args()[1].is_node()) {
            mutations_.insert(n);
            continue;  // named in add_outputs
          }
        }
        ValueKind kind = ValueKind::kNone;
        if (absl::StrContains(n->target(), "::")) {
          auto op = find_operator(n->target());
          if (!op.ok()) return refuse(*n, op.status().message());
          const auto& returns = op->schema->returns();
          if (returns.size() == 1) {
            kind = kind_of_type(returns[0].real_type());
          } else if (returns.size() > 1) {
            kind = ValueKind::kTuple;
          }
          if (kind == ValueKind::kTensors || kind == ValueKind::kTuple) {
            results_[n] = std::vector<std::string>(kind == ValueKind::kTuple ? returns.size() : 0);
            // A list's length: the getitems say, or the node's meta.
            if (kind == ValueKind::kTensors) {
              int64_t count = 0;
              if (const MetaValue* r = n->meta().find(kNumResultsKey); r && r->is_int()) count = r->to_int();
              for (const IrNode* u : n->users()) {
                if (u->target() == kGetItemTarget && u->args().size() == 2 && u->args()[1].is_int()) {
                  count = std::max<int64_t>(count, u->args()[1].to_int() + 1);
                }
              }
              results_[n].resize(static_cast<size_t>(count));
            }
          }
        } else if (find_python_operator(n->target()) != nullptr) {
          // Arithmetic on sizes: the operands say what it makes.
          kind = ValueKind::kSymInt;
          for (const ::fx::Argument& a : n->args()) {
            if (a.is_double() || (a.is_node() && kinds_[a.to_node()] == ValueKind::kSymFloat)) kind = ValueKind::kSymFloat;
          }
          if (absl::StartsWith(n->target(), "operator.truediv")) kind = ValueKind::kSymFloat;
          for (absl::string_view cmp : {"operator.eq", "operator.ne", "operator.lt", "operator.le", "operator.gt",
                                        "operator.ge", "operator.not_"}) {
            if (n->target() == cmp) kind = ValueKind::kSymBool;
          }
        } else {
          return refuse(*n, n->target() == kAssertTarget
                                ? "torch._assert is Python code (drop input checks with --assertions=drop, or "
                                  "use aten::_assert_async)"
                                : "it calls a Python function, not an operator overload (TorchScript leaf "
                                  "functions and Python-level targets have no place in a torch.export program)");
        }
        names_[n] = n->name();
        kinds_[n] = kind;
        if (kind == ValueKind::kTensor) {
          if (absl::Status s = add_value_meta(n->name(), *n); !s.ok()) return s;
        } else if (kind == ValueKind::kSymInt || kind == ValueKind::kSymFloat || kind == ValueKind::kSymBool) {
          if (absl::Status s = add_sym_meta(n->name(), *n, kind); !s.ok()) return s;
        }
        break;
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ProgramBuilder::add_call(const IrNode& n) {
  exported::Node out;
  out.name = n.name();
  const ValueKind kind = kinds_[&n];
  if (absl::StrContains(n.target(), "::")) {
    auto op = find_operator(n.target());
    if (!op.ok()) return refuse(n, op.status().message());
    const c10::FunctionSchema& schema = *op->schema;
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
      if (!legacy()) na.kind = params[i].kwarg_only() ? 2 : 1;
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

absl::StatusOr<TreeSpec> ProgramBuilder::output_structure(const ::fx::Argument& a, std::vector<Argument>* leaves) {
  TreeSpec spec;
  if (a.is_tuple() || a.is_list()) {
    spec.kind = a.is_tuple() ? TreeSpec::Kind::kTuple : TreeSpec::Kind::kList;
    spec.type = a.is_tuple() ? "builtins.tuple" : "builtins.list";
    for (const ::fx::Argument& e : a.elements()) {
      auto c = output_structure(e, leaves);
      if (!c.ok()) return c.status();
      spec.children.push_back(*std::move(c));
    }
    return spec;
  }
  if (a.is_dict()) {
    spec.kind = TreeSpec::Kind::kDict;
    spec.type = "builtins.dict";
    for (const auto& [key, value] : a.dict_items()) {
      spec.keys.push_back(key);
      auto c = output_structure(value, leaves);
      if (!c.ok()) return c.status();
      spec.children.push_back(*std::move(c));
    }
    return spec;
  }
  if (a.is_none()) {
    spec.kind = TreeSpec::Kind::kNone;
    spec.type = "builtins.NoneType";
    return spec;
  }
  Argument leaf;
  if (a.is_node()) {
    auto it = names_.find(a.to_node());
    if (it == names_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("the output reads '", a.to_node()->name(), "', which is not a value"));
    }
    const ValueKind k = kinds_[a.to_node()];
    leaf.kind = k == ValueKind::kTensor ? Argument::Kind::kTensor
                : k == ValueKind::kSymInt ? Argument::Kind::kSymInt
                : k == ValueKind::kSymFloat ? Argument::Kind::kSymFloat : Argument::Kind::kSymBool;
    if (k != ValueKind::kTensor && k != ValueKind::kSymInt && k != ValueKind::kSymFloat && k != ValueKind::kSymBool) {
      return absl::InvalidArgumentError(absl::StrCat("the output returns '", a.to_node()->name(),
                                                     "', which is neither a tensor nor a number"));
    }
    leaf.names = {it->second};
    if (k != ValueKind::kTensor) {
      leaf.is_name = {true};
      leaf.ints = {0};
      leaf.floats = {0};
    }
  } else if (a.is_int()) {
    leaf.kind = Argument::Kind::kInt;
    leaf.ints = {a.to_int()};
  } else if (a.is_double()) {
    leaf.kind = Argument::Kind::kFloat;
    leaf.floats = {a.to_double()};
  } else if (a.is_bool()) {
    leaf.kind = Argument::Kind::kBool;
    leaf.ints = {a.to_bool()};
  } else if (a.is_string()) {
    leaf.kind = Argument::Kind::kString;
    leaf.strings = {a.to_string()};
  } else {
    return absl::InvalidArgumentError(absl::StrCat("the output returns a ", kind_name(a.kind())));
  }
  leaves->push_back(std::move(leaf));
  return leaf_spec();
}

absl::Status ProgramBuilder::add_outputs() {
  const IrNode* output = gm_.graph().output_node();
  if (output == nullptr || output->args().empty()) return absl::InvalidArgumentError("the graph has no output");
  // Buffer mutations first, as torch.export orders its outputs.
  for (const IrNode* n : gm_.graph().nodes()) {
    if (mutations_.count(n) == 0) continue;
    const IrNode* value = n->args()[1].to_node();
    OutputSpec spec;
    spec.kind = OutputSpec::Kind::kBufferMutation;
    spec.arg.kind = Argument::Kind::kTensor;
    spec.arg.names = {names_[value]};
    spec.target = n->args()[0].to_node()->target();
    mutation_specs_.push_back(spec);
    graph().outputs.push_back(spec.arg);
  }
  std::vector<Argument> leaves;
  auto spec = output_structure(output->args()[0], &leaves);
  if (!spec.ok()) return spec.status();
  auto& specs = program_.graph_module.output_specs;
  specs = mutation_specs_;
  for (Argument& leaf : leaves) {
    OutputSpec s;
    s.kind = OutputSpec::Kind::kUserOutput;
    s.arg = leaf;
    specs.push_back(s);
    graph().outputs.push_back(std::move(leaf));
  }
  // The module call graph's root entry: forward(*user inputs) -> structure.
  ModuleCallEntry root;
  ModuleCallSignature sig;
  std::vector<TreeSpec> args(user_inputs_.size(), leaf_spec());
  TreeSpec kwargs;
  kwargs.kind = TreeSpec::Kind::kDict;
  kwargs.type = "builtins.dict";
  sig.in_spec = to_string(tuple_spec({tuple_spec(std::move(args)), kwargs}));
  sig.out_spec = to_string(*spec);
  sig.forward_arg_names = user_inputs_;
  root.signature = std::move(sig);
  program_.graph_module.module_call_graph.push_back(std::move(root));
  return absl::OkStatus();
}

absl::StatusOr<std::string> ProgramBuilder::build() {
  if (absl::Status s = classify(); !s.ok()) return s;
  // The program's inputs: lifted state (parameters, buffers, constants),
  // then the user's.
  for (InputSpec::Kind kind : {InputSpec::Kind::kParameter, InputSpec::Kind::kBuffer, InputSpec::Kind::kTensorConstant}) {
    for (const Lifted& l : lifted_) {
      if (l.kind != kind) continue;
      InputSpec s;
      s.kind = kind;
      s.arg.kind = Argument::Kind::kTensor;
      s.arg.names = {l.name};
      s.target = l.target;
      program_.graph_module.input_specs.push_back(s);
      graph().inputs.push_back(s.arg);
    }
  }
  for (const std::string& name : user_inputs_) {
    InputSpec s;
    s.kind = InputSpec::Kind::kUserInput;
    s.arg.kind = Argument::Kind::kTensor;
    s.arg.names = {name};
    program_.graph_module.input_specs.push_back(s);
    graph().inputs.push_back(s.arg);
  }
  for (const IrNode* n : gm_.graph().nodes()) {
    if (n->op() != Op::kCallFunction || mutations_.count(n) > 0) continue;
    // getitems of multi-result nodes are those nodes' named results.
    if (n->target() == kGetItemTarget && n->args().size() == 2 && n->args()[0].is_node() &&
        results_.count(n->args()[0].to_node()) > 0) {
      continue;
    }
    if (absl::Status s = add_call(*n); !s.ok()) return s;
  }
  if (absl::Status s = add_outputs(); !s.ok()) return s;

  // What the program was read from, when it was.
  program_.opset_version = {{"aten", 10}};
  program_.verifiers = {"TRAINING"};
  program_.torch_version = TORCH_VERSION;
  if (const MetaValue* source = gm_.meta().find(kExportedProgramKey); source && source->is_map()) {
    if (const MetaValue* v = source->to_map().find("torch_version"); v && v->is_string()) {
      program_.torch_version = v->to_string();
    }
  }
  if (const MetaValue* c = gm_.meta().find(kInputConstraintsKey); c && c->is_map()) {
    if (const MetaValue* symbols = c->to_map().find("symbols"); symbols && symbols->is_map()) {
      for (const auto& [name, range] : symbols->to_map()) {
        if (!range.is_list() || range.to_list().size() != 2) continue;
        RangeConstraint r;
        if (range.to_list()[0].is_int()) r.min_val = range.to_list()[0].to_int();
        if (range.to_list()[1].is_int()) r.max_val = range.to_list()[1].to_int();
        program_.range_constraints[name] = r;
      }
    }
  }
  if (legacy()) {
    program_.schema_major = 8;
    program_.schema_minor = 2;
    return legacy_archive();
  }
  return archive();
}

// The JSON text of `j` with its non-finite floats as Python's json module
// writes them (bare `Infinity`, `-Infinity`, `NaN`), which torch 2.7 and
// older read; they read the strings later versions write as strings.
std::string python_float_literals(nlohmann::ordered_json j) {
  static constexpr absl::string_view kMarker = "@@fx-float@@";
  std::function<void(nlohmann::ordered_json&)> mark = [&](nlohmann::ordered_json& v) {
    auto literal = [&](nlohmann::ordered_json& f) {
      if (f.is_string() && (f == "Infinity" || f == "-Infinity" || f == "NaN")) {
        f = absl::StrCat(kMarker, f.get<std::string>(), kMarker);
      }
    };
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (it.key() == "as_float") literal(it.value());
        if (it.key() == "as_floats" && it.value().is_array()) {
          for (auto& f : it.value()) literal(f);
        }
        mark(it.value());
      }
    } else if (v.is_array()) {
      for (auto& e : v) mark(e);
    }
  };
  mark(j);
  std::string text = j.dump();
  for (const char* literal : {"Infinity", "-Infinity", "NaN"}) {
    text = absl::StrReplaceAll(text, {{absl::StrCat("\"", kMarker, literal, kMarker, "\""), literal}});
  }
  return text;
}

// Example inputs of a program written without any: no args, no kwargs.
c10::IValue no_example_inputs() {
  return c10::ivalue::Tuple::create(
      {c10::ivalue::Tuple::create({}), c10::impl::GenericDict(c10::StringType::get(), c10::AnyType::get())});
}

// The tensors to save: one payload per storage, every tensor a view of one.
struct Payloads {
  std::vector<std::pair<std::string, PayloadMeta>> config;
  std::vector<std::pair<std::string, std::string>> files;  // path_name -> bytes
};

absl::StatusOr<Payloads> payloads(const std::vector<std::tuple<std::string, at::Tensor, bool>>& tensors,
                                  const std::string& prefix) {
  Payloads out;
  std::map<const void*, std::string> file_of_storage;
  for (const auto& [fqn, tensor, is_param] : tensors) {
    at::Tensor t = tensor;
    if (t.device().type() != c10::kCPU) t = t.cpu();
    if (t.layout() != c10::kStrided || t.is_quantized()) {
      return absl::InvalidArgumentError(absl::StrCat("cannot write ", quote_for_message(fqn),
                                                     ": only dense tensors are written"));
    }
    const at::Storage& storage = t.storage();
    const void* key = storage.unsafeGetStorageImpl();
    auto found = file_of_storage.find(key);
    if (found == file_of_storage.end()) {
      const std::string name = absl::StrCat(prefix, out.files.size());
      const char* data = static_cast<const char*>(storage.data());
      out.files.emplace_back(name, std::string(data, data + storage.nbytes()));
      found = file_of_storage.emplace(key, name).first;
    }
    PayloadMeta m;
    m.path_name = found->second;
    m.is_param = is_param;
    TensorMeta meta;
    auto dtype = from_c10(t.scalar_type());
    if (!dtype.ok()) return dtype.status();
    meta.dtype = *dtype;
    for (int64_t s : t.sizes()) meta.sizes.push_back(SymValue::of_int(s));
    for (int64_t s : t.strides()) meta.strides.push_back(SymValue::of_int(s));
    meta.storage_offset = SymValue::of_int(t.storage_offset());
    meta.requires_grad = is_param && t.requires_grad();
    meta.device.type = "cpu";
    m.tensor_meta = std::move(meta);
    out.config.emplace_back(fqn, std::move(m));
  }
  return out;
}

absl::StatusOr<std::string> ProgramBuilder::archive() {
  const std::string root = options_.archive_name + "/";
  const std::string& model = options_.model_name;
  ZipWriter zip;
  zip.add(root + "archive_format", "pt2");
  zip.add(root + "archive_version", "0");
  zip.add(root + ".data/version", "6");
  zip.add(root + "byteorder", "little");
  zip.add(absl::StrCat(root, "models/", model, ".json"), to_json(program_).dump());
  std::vector<std::tuple<std::string, at::Tensor, bool>> weights, constants;
  for (const Lifted& l : lifted_) {
    auto& list = l.kind == InputSpec::Kind::kTensorConstant ? constants : weights;
    list.emplace_back(l.target, l.tensor, l.kind == InputSpec::Kind::kParameter);
  }
  auto w = payloads(weights, "weight_");
  if (!w.ok()) return w.status();
  for (const auto& [name, bytes] : w->files) zip.add(absl::StrCat(root, "data/weights/", name), bytes);
  zip.add(absl::StrCat(root, "data/weights/", model, "_weights_config.json"), payload_config_to_json(w->config).dump());
  auto c = payloads(constants, "tensor_");
  if (!c.ok()) return c.status();
  for (const auto& [name, bytes] : c->files) zip.add(absl::StrCat(root, "data/constants/", name), bytes);
  zip.add(absl::StrCat(root, "data/constants/", model, "_constants_config.json"), payload_config_to_json(c->config).dump());
  if (options_.example_inputs) {
    auto bytes = torch_save(*options_.example_inputs);
    if (!bytes.ok()) return bytes.status();
    zip.add(absl::StrCat(root, "data/sample_inputs/", model, ".pt"), *bytes);
  }
  return zip.finish();
}

absl::StatusOr<std::string> ProgramBuilder::legacy_archive() {
  // Schema 8.2 has none of the keys later versions added.
  nlohmann::ordered_json j = to_json(program_);
  j.erase("guards_code");
  j["graph_module"].erase("treespec_namedtuple_fields");
  for (auto& node : j["graph_module"]["graph"]["nodes"]) {
    node.erase("name");
    node.erase("is_hop_single_tensor_return");
    for (auto& input : node["inputs"]) input.erase("kind");
  }
  j["graph_module"]["graph"].erase("sym_float_values");
  for (const std::string key : {"as_optional_tensor", "as_complex", "as_nested_tensors", "as_int_lists",
                                "as_string_to_argument", "as_float_lists"}) {
    if (j.dump().find("\"" + key + "\"") != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the program has an argument of kind ", key, ", which torch 2.7 and older cannot read: write the PT2 "
          "archive (torch 2.8 and later) instead"));
    }
  }
  c10::impl::GenericDict state(c10::StringType::get(), c10::TensorType::get());
  c10::impl::GenericDict constants(c10::StringType::get(), c10::TensorType::get());
  absl::flat_hash_set<const c10::TensorImpl*> parameters;
  for (const Lifted& l : lifted_) {
    (l.kind == InputSpec::Kind::kTensorConstant ? constants : state).insert(l.target, l.tensor);
    if (l.kind == InputSpec::Kind::kParameter) parameters.insert(l.tensor.unsafeGetTensorImpl());
  }
  auto state_dict = torch_save(state, &parameters);
  if (!state_dict.ok()) return state_dict.status();
  auto constants_pickle = torch_save(constants);
  if (!constants_pickle.ok()) return constants_pickle.status();
  c10::IValue inputs = options_.example_inputs ? *options_.example_inputs : no_example_inputs();
  auto example = torch_save(inputs);
  if (!example.ok()) return example.status();
  ZipWriter zip;
  zip.add("serialized_exported_program.json", python_float_literals(std::move(j)));
  zip.add("serialized_state_dict.pt", *state_dict);
  zip.add("serialized_constants.pt", *constants_pickle);
  zip.add("serialized_example_inputs.pt", *example);
  zip.add("version", absl::StrCat(program_.schema_major, ".", program_.schema_minor));
  return zip.finish();
}

}  // namespace

absl::StatusOr<std::string> write_program(const IrGraphModule& gm, const WriteOptions& options) {
  try {
    return ProgramBuilder(gm, options).build();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot write the program: ", e.what()));
  }
}

}  // namespace exported
}  // namespace fx
