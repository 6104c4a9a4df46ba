// Copyright 2026 The FX for C++ Authors.
//
// The files around the program's JSON: the PT2 archive (torch 2.8+: models/,
// data/weights, data/constants, sample inputs) and the legacy zip of torch
// 2.1 to 2.7 (schema 8.2, torch.save pickles).
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/jit_type.h>

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "core/message_text.h"
#include "exported_program/archive.h"
#include "exported_program/program_builder.h"
#include "exported_program/schema.h"
#include "exported_program/torch_save.h"
#include "exported_program/zip_file.h"

namespace fx {
namespace exported {
namespace writer_internal {

namespace {

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

}  // namespace

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
    auto& list = l.with_constants() ? constants : weights;
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
    (l.with_constants() ? constants : state).insert(l.target, l.tensor);
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

}  // namespace writer_internal
}  // namespace exported
}  // namespace fx
