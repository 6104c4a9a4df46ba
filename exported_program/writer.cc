// Copyright 2026 The FX for C++ Authors.
//
// write_program: which node of the graph becomes what in the program
// (classify), then the program's inputs, nodes and outputs in torch.export's
// order (build). program_builder.h says where the other parts live.
#include "exported_program/writer.h"

#include <torch/version.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/python_operators.h"
#include "core/well_known.h"
#include "exported_program/program_builder.h"
#include "runtime/operator_binding.h"

namespace fx {
namespace exported {
namespace writer_internal {

namespace {

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

}  // namespace

absl::Status ProgramBuilder::classify() {
  for (const IrNode* n : gm_.graph().nodes()) taken_.insert(n->name());
  for (const IrNode* n : gm_.graph().nodes()) {
    switch (n->op()) {
      case Op::kPlaceholder:
        if (absl::Status s = add_user_input(*n); !s.ok()) return s;
        break;
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
            structures_.count(n->args()[0].to_node()) > 0) {
          if (absl::Status s = add_structure_item(*n); !s.ok()) return s;
          break;
        }
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
      s.persistent = l.persistent;
      program_.graph_module.input_specs.push_back(s);
      graph().inputs.push_back(s.arg);
    }
  }
  auto user_inputs = flat_user_inputs();
  if (!user_inputs.ok()) return user_inputs.status();
  for (const InputSpec& s : *user_inputs) {
    program_.graph_module.input_specs.push_back(s);
    // A constant input is its value in the graph's inputs too.
    graph().inputs.push_back(s.kind == InputSpec::Kind::kConstantInput ? s.constant : s.arg);
  }
  for (const IrNode* n : gm_.graph().nodes()) {
    if (n->op() != Op::kCallFunction || mutations_.count(n) > 0) continue;
    // getitems of multi-result nodes are those nodes' named results; those
    // of structured inputs their flat inputs.
    if (n->target() == kGetItemTarget && n->args().size() == 2 && n->args()[0].is_node() &&
        (results_.count(n->args()[0].to_node()) > 0 || structures_.count(n->args()[0].to_node()) > 0)) {
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

}  // namespace writer_internal

using writer_internal::IrGraphModule;
using writer_internal::ProgramBuilder;

WriteLayout chosen_layout(const IrGraphModule& gm, const WriteOptions& options) {
  if (options.layout) return *options.layout;
  const MetaValue* source = gm.meta().find(kExportedProgramKey);
  const MetaValue* layout = source && source->is_map() ? source->to_map().find("layout") : nullptr;
  return layout != nullptr && layout->is_string() && layout->to_string() == "legacy" ? WriteLayout::kLegacy
                                                                                    : WriteLayout::kPt2Archive;
}

std::string describe_layout(WriteLayout layout) {
  return layout == WriteLayout::kLegacy
             ? "the legacy torch.export zip, which torch 2.1 to 2.14 read (--pt2-layout=pt2 writes the PT2 archive "
               "of torch 2.8 and later)"
             : "the PT2 archive, which torch 2.8 and later read (--pt2-layout=legacy writes the zip of torch 2.1 "
               "to 2.7)";
}

absl::StatusOr<std::string> write_program(const IrGraphModule& gm, const WriteOptions& options) {
  if (absl::Status s = gm.check_storable("a torch.export program"); !s.ok()) return s;
  try {
    return ProgramBuilder(gm, options).build();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("cannot write the program: ", e.what()));
  }
}

}  // namespace exported
}  // namespace fx
