// Copyright 2026 The FX for C++ Authors.
//
// The program's values: fresh names, lifted state (each get_attr target
// once, as a parameter, buffer or tensor constant), and the tensor and
// symbolic metadata of every value.
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "core/printer.h"
#include "core/well_known.h"
#include "exported_program/archive.h"
#include "exported_program/program_builder.h"
#include "exported_program/schema.h"
#include "runtime/module.h"

namespace fx {
namespace exported {
namespace writer_internal {

namespace {

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

}  // namespace

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

std::string ProgramBuilder::fresh_name(const std::string& base) {
  std::string name = base;
  for (int i = 1; taken_.count(name) > 0; ++i) name = absl::StrCat(base, "_", i);
  taken_.insert(name);
  return name;
}

const absl::flat_hash_set<std::string>& ProgramBuilder::non_persistent_buffers() {
  if (!non_persistent_buffers_) {
    non_persistent_buffers_.emplace();
    const MetaValue* source = gm_.meta().find(kExportedProgramKey);
    const MetaValue* list = source && source->is_map() ? source->to_map().find("non_persistent_buffers") : nullptr;
    if (list != nullptr && list->is_list()) {
      for (const MetaValue& target : list->to_list()) {
        if (target.is_string()) non_persistent_buffers_->insert(target.to_string());
      }
    }
  }
  return *non_persistent_buffers_;
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
    if (auto slot = gm_.root().find_qualified(n.target()); slot.ok()) {
      if ((*slot)->kind == SlotKind::kParameter) kind = InputSpec::Kind::kParameter;
      if ((*slot)->kind == SlotKind::kBuffer) kind = InputSpec::Kind::kBuffer;
    }
  }
  const char* prefix = kind == InputSpec::Kind::kParameter ? "p_" : kind == InputSpec::Kind::kBuffer ? "b_" : "c_";
  // torch.export's names: the target with every character that cannot be in
  // an identifier (`.`, the `-` of RegNet's `block1-0`) made `_`.
  std::string name = absl::StrCat(prefix, n.target());
  for (char& c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  Lifted l{n.target(), fresh_name(name), kind, value->toTensor()};
  l.persistent = kind != InputSpec::Kind::kBuffer || !non_persistent_buffers().contains(n.target());
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

}  // namespace writer_internal
}  // namespace exported
}  // namespace fx
