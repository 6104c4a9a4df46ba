// Copyright 2026 The FX for C++ Authors.
//
// The program's user inputs: each placeholder as the argument of forward it
// was read as (tracer/program_signature.cc records it on the placeholder):
// a tensor; a bool, int, float, string or None the program was specialised
// for (torch.export's constant input); a dict, list or tuple of tensors, whose
// getitems are its flat inputs. Their structure is the in_spec of the root
// module call, so that `ep.module()` takes the call the original took.
//
// A placeholder a pass added is a tensor argument, positional unless a
// keyword argument comes before it (then a keyword one, so the flat inputs
// keep the placeholders' order); one a pass removed is gone from the
// signature, as it is from the graph's.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"
#include "core/well_known.h"
#include "exported_program/program_builder.h"

namespace fx {
namespace exported {
namespace writer_internal {

namespace {

// The placeholder's record of the argument it was read as, if it was.
const Meta* input_record(const IrNode& p) {
  const MetaValue* e = p.meta().find(kExportedValueKey);
  if (e == nullptr || !e->is_map()) return nullptr;
  const MetaValue* r = e->to_map().find("input");
  return r != nullptr && r->is_map() ? &r->to_map() : nullptr;
}

bool is_set(const Meta& m, absl::string_view key) {
  const MetaValue* v = m.find(key);
  return v != nullptr && v->is_bool() && v->to_bool();
}

bool has_tensor_meta(const IrNode& p) {
  const MetaValue* tm = p.meta().find(kTensorMetaKey);
  if (tm != nullptr && tm->is_map()) return true;
  const MetaValue* e = p.meta().find(kExportedValueKey);
  return e != nullptr && e->is_map() && e->to_map().find("tensor_meta") != nullptr;
}

// The index of `leaf` among the leaves of `root`, in order; false when it is
// not one of them.
bool leaf_index(const TreeSpec& root, const TreeSpec* leaf, size_t& index) {
  if (&root == leaf) return true;
  if (root.kind == TreeSpec::Kind::kLeaf) {
    ++index;
    return false;
  }
  for (const TreeSpec& c : root.children) {
    if (leaf_index(c, leaf, index)) return true;
  }
  return false;
}

std::string key_text(const ::fx::Argument& key) {
  return key.is_string() ? quote_for_message(key.to_string())
                         : key.is_int() ? absl::StrCat(key.to_int()) : std::string(kind_name(key.kind()));
}

}  // namespace

absl::StatusOr<Argument> constant_value(const ::fx::Argument& v) {
  Argument c;
  if (v.is_none()) {
    c.kind = Argument::Kind::kNone;
  } else if (v.is_bool()) {
    c.kind = Argument::Kind::kBool;
    c.ints = {v.to_bool()};
  } else if (v.is_int()) {
    c.kind = Argument::Kind::kInt;
    c.ints = {v.to_int()};
  } else if (v.is_double()) {
    c.kind = Argument::Kind::kFloat;
    c.floats = {v.to_double()};
  } else if (v.is_string()) {
    c.kind = Argument::Kind::kString;
    c.strings = {v.to_string()};
  } else {
    return absl::InvalidArgumentError(absl::StrCat("a ", kind_name(v.kind())));
  }
  return c;
}

// A structure's node is read only by getitems of its items.
absl::Status ProgramBuilder::only_items_read(const IrNode& n, const std::string& input) const {
  for (const IrNode* u : n.users()) {
    if (u->op() != Op::kCallFunction || u->target() != kGetItemTarget || u->args().size() != 2 ||
        !u->args()[0].is_node() || u->args()[0].to_node() != &n) {
      return refuse(*u, absl::StrCat("it takes input ", quote_for_message(input),
                                     " (or a structure in it) whole; a torch.export program takes its tensors "
                                     "one by one (read them with getitem)"));
    }
  }
  return absl::OkStatus();
}

absl::Status ProgramBuilder::add_user_input(const IrNode& p) {
  const Meta* record = input_record(p);
  UserInput in;
  in.placeholder = &p;
  in.name = p.target();
  in.keyword = (record != nullptr && is_set(*record, "keyword")) ||
               (!user_inputs_.empty() && user_inputs_.back().keyword);
  if (const MetaValue* spec = record != nullptr ? record->find("spec") : nullptr; spec && spec->is_string()) {
    auto parsed = parse_treespec(spec->to_string());
    if (!parsed.ok()) return refuse(p, absl::StrCat("its recorded structure: ", parsed.status().message()));
    in.spec = *std::move(parsed);
  }
  if (in.spec.kind != TreeSpec::Kind::kLeaf) {
    if (absl::Status s = only_items_read(p, in.name); !s.ok()) return s;
    in.leaves.resize(in.spec.num_leaves());
    user_inputs_.push_back(std::move(in));
    structures_[&p] = {user_inputs_.size() - 1, &user_inputs_.back().spec};
    return absl::OkStatus();
  }
  InputSpec leaf;
  if (record != nullptr && is_set(*record, "constant")) {
    if (p.args().empty()) return refuse(p, "a constant input without its value (the placeholder's default)");
    auto value = constant_value(p.args()[0]);
    if (!value.ok()) {
      return refuse(p, absl::StrCat("its value is ", value.status().message(),
                                    "; a program's constant inputs are bools, ints, floats, strings or None"));
    }
    leaf.kind = InputSpec::Kind::kConstantInput;
    leaf.target = p.name();
    leaf.constant = *std::move(value);
    constant_inputs_.insert(&p);
  } else {
    const std::string& type = p.type();
    if (!has_tensor_meta(p) && !type.empty() && type != "torch.Tensor" && type != "Tensor") {
      return refuse(p, absl::StrCat("the input is a ", type,
                                    "; FX for C++ writes tensor inputs, and others (dicts, lists and tuples of "
                                    "tensors, constants the program was specialised for) as the torch.export "
                                    "program it read had them, which this placeholder was not read from"));
    }
    names_[&p] = p.name();
    kinds_[&p] = ValueKind::kTensor;
    leaf.arg.kind = Argument::Kind::kTensor;
    leaf.arg.names = {p.name()};
    if (absl::Status s = add_value_meta(p.name(), p); !s.ok()) return s;
  }
  in.leaves.push_back(std::move(leaf));
  user_inputs_.push_back(std::move(in));
  return absl::OkStatus();
}

absl::Status ProgramBuilder::add_structure_item(const IrNode& n) {
  const Structure parent = structures_.at(n.args()[0].to_node());
  UserInput& in = user_inputs_[parent.input];
  const TreeSpec& s = *parent.spec;
  const ::fx::Argument& key = n.args()[1];
  const TreeSpec* item = nullptr;
  if (s.kind == TreeSpec::Kind::kDict) {
    for (size_t i = 0; i < s.keys.size(); ++i) {
      const nlohmann::json& k = s.keys[i];
      if ((key.is_string() && k.is_string() && k.get<std::string>() == key.to_string()) ||
          (key.is_int() && k.is_number_integer() && k.get<int64_t>() == key.to_int())) {
        item = &s.children[i];
      }
    }
  } else if (key.is_int()) {
    const int64_t size = static_cast<int64_t>(s.children.size());
    const int64_t index = key.to_int() < 0 ? key.to_int() + size : key.to_int();
    if (index >= 0 && index < size) item = &s.children[index];
  }
  if (item == nullptr) {
    return refuse(n, absl::StrCat("it reads item ", key_text(key), " of input ", quote_for_message(in.name),
                                  ", which the program's input does not have (a pass changed what it reads)"));
  }
  if (item->kind == TreeSpec::Kind::kNone) {
    return refuse(n, absl::StrCat("it reads item ", key_text(key), " of input ", quote_for_message(in.name),
                                  ", which is None"));
  }
  if (item->kind != TreeSpec::Kind::kLeaf) {
    if (absl::Status st = only_items_read(n, in.name); !st.ok()) return st;
    structures_[&n] = {parent.input, item};
    return absl::OkStatus();
  }
  size_t index = 0;
  leaf_index(in.spec, item, index);
  InputSpec& leaf = in.leaves[index];
  kinds_[&n] = ValueKind::kTensor;
  if (!leaf.arg.names.empty()) {  // read twice: one input
    names_[&n] = leaf.arg.names[0];
    return absl::OkStatus();
  }
  names_[&n] = n.name();
  leaf.arg.kind = Argument::Kind::kTensor;
  leaf.arg.names = {n.name()};
  return add_value_meta(n.name(), n);
}

absl::StatusOr<std::vector<InputSpec>> ProgramBuilder::flat_user_inputs() {
  std::vector<InputSpec> flat;
  for (UserInput& in : user_inputs_) {
    const Meta* record = input_record(*in.placeholder);
    const MetaValue* leaves = record != nullptr ? record->find("leaves") : nullptr;
    for (size_t i = 0; i < in.leaves.size(); ++i) {
      InputSpec& leaf = in.leaves[i];
      if (leaf.kind == InputSpec::Kind::kUserInput && leaf.arg.names.empty()) {
        // No node reads it any more (dce removed its getitem); the caller
        // still passes it, so the program still takes it.
        const MetaValue* r = leaves != nullptr && leaves->is_list() && i < leaves->to_list().size()
                                 ? &leaves->to_list()[i]
                                 : nullptr;
        const MetaValue* name = r != nullptr && r->is_map() ? r->to_map().find("name") : nullptr;
        const MetaValue* tm = r != nullptr && r->is_map() ? r->to_map().find("tensor_meta") : nullptr;
        auto meta = tm != nullptr && tm->is_string()
                        ? parse_tensor_meta(nlohmann::json::parse(tm->to_string(), nullptr, false))
                        : absl::StatusOr<TensorMeta>(absl::NotFoundError("none recorded"));
        if (name == nullptr || !name->is_string() || !meta.ok()) {
          return refuse(*in.placeholder, absl::StrCat("no node reads its leaf ", i,
                                                      ", and what the program said of that leaf was not kept"));
        }
        leaf.arg.kind = Argument::Kind::kTensor;
        leaf.arg.names = {fresh_name(name->to_string())};
        graph().tensor_values[leaf.arg.names[0]] = *std::move(meta);
      }
      flat.push_back(leaf);
    }
  }
  return flat;
}

TreeSpec ProgramBuilder::in_spec() const {
  std::vector<TreeSpec> args;
  TreeSpec kwargs;
  kwargs.kind = TreeSpec::Kind::kDict;
  kwargs.type = "builtins.dict";
  for (const UserInput& in : user_inputs_) {
    if (in.keyword) {
      kwargs.keys.push_back(in.name);
      kwargs.children.push_back(in.spec);
    } else {
      args.push_back(in.spec);
    }
  }
  return tuple_spec({tuple_spec(std::move(args)), std::move(kwargs)});
}

std::vector<std::string> ProgramBuilder::forward_arg_names() const {
  std::vector<std::string> names;
  for (const UserInput& in : user_inputs_) names.push_back(in.name);
  return names;
}

const ::fx::Argument& ProgramBuilder::resolved(const ::fx::Argument& a) const {
  if (a.is_node() && constant_inputs_.count(a.to_node()) > 0) return a.to_node()->args()[0];
  return a;
}

}  // namespace writer_internal
}  // namespace exported
}  // namespace fx
