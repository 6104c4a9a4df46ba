// Copyright 2026 The FX for C++ Authors.
//
// program_builder.h: the ProgramBuilder that writes a GraphModule as a
// torch.export program (writer.h). Internal to //exported_program:writer; not
// part of the API (include exported_program/writer.h).
//
// Where each part lives:
//   writer.cc           write_program; which node becomes what (classify) and
//                       the order of the program's inputs and nodes (build)
//   writer_values.cc    value names, lifted state (parameters, buffers,
//                       constants), tensor and symbolic metadata
//   writer_nodes.cc     operator calls and their arguments by the schema
//   writer_inputs.cc    the user inputs: each placeholder as the argument
//                       it was read as (a tensor, a constant the program
//                       was specialised for, a dict or list of tensors) and
//                       their structure (in_spec)
//   writer_outputs.cc   the outputs, their structure (out_spec), buffer
//                       mutations and the root module call signature
//   writer_archive.cc   the PT2 archive and the legacy zip around the JSON
#ifndef FX_EXPORTED_PROGRAM_PROGRAM_BUILDER_H_
#define FX_EXPORTED_PROGRAM_PROGRAM_BUILDER_H_

#include <ATen/core/Tensor.h>
#include <ATen/core/jit_type.h>

#include <cstddef>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "core/message_text.h"
#include "core/node.h"
#include "exported_program/schema.h"
#include "exported_program/treespec.h"
#include "exported_program/writer.h"
#include "runtime/graph_module.h"

namespace fx {
namespace exported {
namespace writer_internal {

// The IR's types (the schema's Node, Graph and Argument share their names).
using IrNode = ::fx::Node;
using IrGraphModule = ::fx::GraphModule;

// What a node's value is, for naming it in the program.
enum class ValueKind { kNone, kTensor, kTensors, kTuple, kSymInt, kSymFloat, kSymBool };

// The schema's constant of a Python one (None, bool, int, float, string);
// otherwise an error saying what it is ("a list").
absl::StatusOr<Argument> constant_value(const ::fx::Argument& v);

// What the program said of result `i` of a multi-result node, or shape_prop's.
absl::StatusOr<TensorMeta> result_meta(const IrNode& n, size_t i);

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
  bool legacy() const { return chosen_layout(gm_, options_) == WriteLayout::kLegacy; }
  std::string fresh_name(const std::string& base);
  // The buffers the program the graph was read from kept out of its state
  // dict (graph meta "exported_program"), by target.
  const absl::flat_hash_set<std::string>& non_persistent_buffers();
  absl::Status classify();
  absl::Status add_lifted(const IrNode& n);
  absl::Status add_user_input(const IrNode& p);
  absl::Status add_structure_item(const IrNode& getitem);
  absl::Status only_items_read(const IrNode& n, const std::string& input) const;
  // Every user input's flat inputs, in order; leaves no node reads any more
  // (dce removed their getitem) from what the program said of them.
  absl::StatusOr<std::vector<InputSpec>> flat_user_inputs();
  // forward(*args, **kwargs)'s structure, and its argument names.
  TreeSpec in_spec() const;
  std::vector<std::string> forward_arg_names() const;
  // The value a constant input's placeholder stands for; any other argument as it is.
  const ::fx::Argument& resolved(const ::fx::Argument& a) const;
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
  std::optional<absl::flat_hash_set<std::string>> non_persistent_buffers_;
  // Program value name of each node (placeholders, get_attrs, results).
  absl::flat_hash_map<const IrNode*, std::string> names_;
  absl::flat_hash_map<const IrNode*, ValueKind> kinds_;
  // get_attr targets lifted, in order, with their input names.
  struct Lifted {
    std::string target;
    std::string name;
    InputSpec::Kind kind;
    at::Tensor tensor;
    bool persistent = true;  // a buffer in the state dict (else kept with the constants)
    // Stored with the constants (tensor constants, non-persistent buffers).
    bool with_constants() const {
      return kind == InputSpec::Kind::kTensorConstant || (kind == InputSpec::Kind::kBuffer && !persistent);
    }
  };
  std::vector<Lifted> lifted_;
  absl::flat_hash_map<std::string, size_t> lifted_by_target_;
  // Multi-result nodes: the names of their results by index.
  absl::flat_hash_map<const IrNode*, std::vector<std::string>> results_;
  // copy_ nodes written back as buffer mutations.
  absl::flat_hash_set<const IrNode*> mutations_;
  std::vector<OutputSpec> mutation_specs_;
  // The arguments of the program's forward, one per placeholder, in order.
  struct UserInput {
    const IrNode* placeholder = nullptr;
    std::string name;  // the placeholder's target: forward's argument name
    bool keyword = false;
    TreeSpec spec;
    // Its flat inputs in the spec's order; a leaf no node reads has no name yet.
    std::vector<InputSpec> leaves;
  };
  std::deque<UserInput> user_inputs_;
  // Placeholders and getitems whose value is a structure inside a user input.
  struct Structure {
    size_t input;
    const TreeSpec* spec;
  };
  absl::flat_hash_map<const IrNode*, Structure> structures_;
  // Placeholders of constant inputs (their value is their default).
  absl::flat_hash_set<const IrNode*> constant_inputs_;
};

}  // namespace writer_internal
}  // namespace exported
}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_PROGRAM_BUILDER_H_
