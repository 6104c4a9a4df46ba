// Copyright 2026 The FX for C++ Authors.
#include "exported_program/archive.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/empty.h>
#include <torch/version.h>

#include <cstring>
#include <limits>
#include <map>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "exported_program/torch_load.h"
#include "exported_program/zip_file.h"

// Whether the libtorch built against is at least major.minor.
#define FX_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace fx {
namespace exported {
namespace {

constexpr char kLegacyProgram[] = "serialized_exported_program.json";
constexpr char kLegacyStateDict[] = "serialized_state_dict.pt";
constexpr char kLegacyConstants[] = "serialized_constants.pt";
constexpr char kLegacyExampleInputs[] = "serialized_example_inputs.pt";

// Reads a torch.save blob (torch_load.h: no code runs, parameters read as
// tensors).
absl::StatusOr<c10::IValue> read_torch_save(std::string bytes, const std::string& what) {
  return torch_load(bytes, what);
}

absl::StatusOr<nlohmann::json> parse_json(const std::string& text, const std::string& what) {
  auto j = parse_python_json(text);
  if (!j.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", j.status().message()));
  return j;
}

// `value` (a dict name -> tensor, as torch.save wrote a state dict) as pairs.
absl::StatusOr<std::vector<std::pair<std::string, at::Tensor>>> named_tensors(
    const c10::IValue& value, const std::string& what) {
  if (!value.isGenericDict()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not a dict of tensors (it holds ",
                                                   value.tagKind(), ")"));
  }
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (const auto& kv : value.toGenericDict()) {
    if (!kv.key().isString()) return absl::InvalidArgumentError(absl::StrCat(what, " has a key that is not a name"));
    if (!kv.value().isTensor()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": ", quote_for_message(kv.key().toStringRef()), " is a ",
                       kv.value().tagKind(), ", not a tensor (custom objects are not supported)"));
    }
    out.emplace_back(kv.key().toStringRef(), kv.value().toTensor());
  }
  return out;
}

int64_t constant_of(const SymValue& s) { return s.kind == SymValue::Kind::kInt ? s.i : s.hint_i; }

// Reads data/weights or data/constants of a PT2 archive.
absl::StatusOr<std::vector<std::pair<std::string, at::Tensor>>> read_payloads(
    const ZipReader& zip, const std::string& folder, const std::string& config_name,
    const std::string& display_name) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  if (!zip.contains(config_name)) return out;
  auto text = zip.read(config_name);
  if (!text.ok()) return text.status();
  auto j = parse_json(*text, config_name);
  if (!j.ok()) return j.status();
  auto config = parse_payload_config(*j, config_name);
  if (!config.ok()) return config.status();
  std::map<std::string, at::Storage> storages;
  for (const auto& [fqn, meta] : *config) {
    const std::string what = absl::StrCat(quote_for_message(fqn), " (", config_name, ")");
    if (meta.use_pickle) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " is pickled (a tensor subclass or a custom object), which FX for C++ does not read"));
    }
    if (!meta.tensor_meta) return absl::InvalidArgumentError(absl::StrCat(what, " has no tensor_meta"));
    const std::string member = absl::StrCat(folder, meta.path_name);
    auto found = storages.find(member);
    if (found == storages.end()) {
      auto bytes = zip.read(member);
      if (!bytes.ok()) return bytes.status();
      at::Tensor buffer = at::empty({static_cast<int64_t>(bytes->size())}, at::kByte);
      if (!bytes->empty()) std::memcpy(buffer.data_ptr(), bytes->data(), bytes->size());
      found = storages.emplace(member, buffer.storage()).first;
    }
    auto t = tensor_from_storage(*meta.tensor_meta, found->second, what);
    if (!t.ok()) return t.status();
    if (meta.is_param && meta.tensor_meta->requires_grad && !c10::isFloatingType(t->scalar_type()) &&
        !c10::isComplexType(t->scalar_type())) {
      // (libtorch throws: only floating-point and complex tensors require grad.)
      return absl::InvalidArgumentError(absl::StrCat(what, " is a parameter of dtype ", c10::toString(t->scalar_type()),
                                                     " that requires grad, which only floating-point and "
                                                     "complex tensors can"));
    }
    if (meta.is_param) t->set_requires_grad(meta.tensor_meta->requires_grad);
    out.emplace_back(fqn, std::move(*t));
  }
  return out;
}

absl::StatusOr<LoadedProgram> load_legacy(const ZipReader& zip, const std::string& display_name) {
  LoadedProgram out;
  out.layout = ArchiveLayout::kLegacy;
  auto text = zip.read(kLegacyProgram);
  if (!text.ok()) return text.status();
  auto j = parse_json(*text, absl::StrCat(display_name, ": ", kLegacyProgram));
  if (!j.ok()) return j.status();
  auto program = parse_program(*j, &out.warnings);
  if (!program.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(display_name, ": ", kLegacyProgram, ": ", program.status().message()));
  }
  out.program = std::move(*program);
  for (const auto& [member, target] :
       {std::pair<const char*, std::vector<std::pair<std::string, at::Tensor>>*>{kLegacyStateDict, &out.state},
        {kLegacyConstants, &out.constants}}) {
    if (!zip.contains(member)) continue;
    auto bytes = zip.read(member);
    if (!bytes.ok()) return bytes.status();
    const std::string what = absl::StrCat(display_name, ": ", member);
    auto value = read_torch_save(std::move(*bytes), what);
    if (!value.ok()) return value.status();
    auto tensors = named_tensors(*value, what);
    if (!tensors.ok()) return tensors.status();
    *target = std::move(*tensors);
  }
  if (zip.contains(kLegacyExampleInputs)) {
    auto bytes = zip.read(kLegacyExampleInputs);
    if (!bytes.ok()) return bytes.status();
    auto value = read_torch_save(std::move(*bytes), absl::StrCat(display_name, ": ", kLegacyExampleInputs));
    // Example inputs only feed --input defaults: a file whose inputs cannot
    // be read is still a program.
    if (value.ok()) {
      out.example_inputs = std::move(*value);
    } else {
      out.example_inputs_error = std::string(value.status().message());
      out.warnings.push_back(out.example_inputs_error);
    }
  }
  return out;
}

absl::StatusOr<LoadedProgram> load_pt2_archive(const ZipReader& zip, const std::string& display_name,
                                               const std::string& requested_model) {
  LoadedProgram out;
  out.layout = ArchiveLayout::kPt2Archive;
  const std::string& first = zip.names().front();
  out.archive_name = first.substr(0, first.find('/'));
  const std::string root = out.archive_name + "/";
  for (const std::string& name : zip.names()) {
    if (!absl::StartsWith(name, root)) {
      return absl::InvalidArgumentError(absl::StrCat(display_name, ": member ", quote_for_message(name),
                                                     " is outside the archive's folder ", quote_for_message(root)));
    }
  }
  if (zip.contains(root + "byteorder")) {
    auto order = zip.read(root + "byteorder");
    if (!order.ok()) return order.status();
    if (absl::StripAsciiWhitespace(*order) != "little") {
      return absl::InvalidArgumentError(absl::StrCat(display_name, " was written in ", quote_for_message(*order),
                                                     " byte order; FX for C++ reads little-endian archives"));
    }
  }
  std::vector<std::string> models;
  const std::string models_folder = root + "models/";
  for (const std::string& name : zip.names()) {
    if (absl::StartsWith(name, models_folder) && absl::EndsWith(name, ".json") &&
        name.find('/', models_folder.size()) == std::string::npos) {
      models.push_back(name.substr(models_folder.size(), name.size() - models_folder.size() - 5));
    }
  }
  if (models.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        display_name, " is a PT2 archive without a model (no ", models_folder,
        "*.json): an AOTInductor package or another kind of archive, not a torch.export program"));
  }
  if (!requested_model.empty()) {
    if (std::find(models.begin(), models.end(), requested_model) == models.end()) {
      return absl::NotFoundError(absl::StrCat(display_name, " has no model ", quote_for_message(requested_model),
                                              "; its models: ", absl::StrJoin(models, ", ")));
    }
    out.model_name = requested_model;
  } else if (models.size() == 1) {
    out.model_name = models[0];
  } else {
    return absl::InvalidArgumentError(absl::StrCat(display_name, " holds ", models.size(),
                                                   " models (", absl::StrJoin(models, ", "),
                                                   "); pick one by name"));
  }
  const std::string json_name = absl::StrCat(models_folder, out.model_name, ".json");
  auto text = zip.read(json_name);
  if (!text.ok()) return text.status();
  auto j = parse_json(*text, absl::StrCat(display_name, ": ", json_name));
  if (!j.ok()) return j.status();
  auto program = parse_program(*j, &out.warnings);
  if (!program.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(display_name, ": ", json_name, ": ", program.status().message()));
  }
  out.program = std::move(*program);
  auto weights = read_payloads(zip, root + "data/weights/",
                               absl::StrCat(root, "data/weights/", out.model_name, "_weights_config.json"),
                               display_name);
  if (!weights.ok()) return weights.status();
  out.state = std::move(*weights);
  auto constants = read_payloads(zip, root + "data/constants/",
                                 absl::StrCat(root, "data/constants/", out.model_name, "_constants_config.json"),
                                 display_name);
  if (!constants.ok()) return constants.status();
  out.constants = std::move(*constants);
  const std::string inputs = absl::StrCat(root, "data/sample_inputs/", out.model_name, ".pt");
  if (zip.contains(inputs)) {
    auto bytes = zip.read(inputs);
    if (!bytes.ok()) return bytes.status();
    auto value = read_torch_save(std::move(*bytes), absl::StrCat(display_name, ": ", inputs));
    if (value.ok()) {
      out.example_inputs = std::move(*value);
    } else {
      out.example_inputs_error = std::string(value.status().message());
      out.warnings.push_back(out.example_inputs_error);
    }
  }
  return out;
}

}  // namespace

bool looks_like_zip(absl::string_view bytes) { return absl::StartsWith(bytes, "PK\x03\x04"); }

bool is_exported_program(absl::string_view bytes) {
  if (!looks_like_zip(bytes)) return false;
  // By the names alone, also of an archive the reader will refuse (damaged,
  // crafted): its error then says what is wrong with the program's archive,
  // not that it is no TorchScript file.
  for (const std::string& name : ZipReader::member_names(bytes)) {
    const absl::string_view base = absl::string_view(name).substr(name.find_last_of('/') + 1);
    if (base == kLegacyProgram || (base == "archive_format" && base.size() < name.size())) return true;
  }
  return false;
}

absl::StatusOr<LoadedProgram> load_program(absl::string_view bytes, const std::string& display_name,
                                           const std::string& model_name) {
  auto zip = ZipReader::open(bytes, display_name);
  if (!zip.ok()) return zip.status();
  if (zip->names().empty()) return absl::InvalidArgumentError(absl::StrCat(display_name, " is an empty zip archive"));
  if (zip->contains(kLegacyProgram)) return load_legacy(*zip, display_name);
  const std::string& first = zip->names().front();
  const std::string root = first.substr(0, first.find('/') + 1);
  if (root.empty() || !zip->contains(root + "archive_format")) {
    return absl::InvalidArgumentError(absl::StrCat(
        display_name, " is a zip archive but not a torch.export program (neither ", kLegacyProgram,
        " nor a PT2 archive's archive_format)"));
  }
  auto format = zip->read(root + "archive_format");
  if (!format.ok()) return format.status();
  if (absl::StripAsciiWhitespace(*format) != "pt2") {
    return absl::InvalidArgumentError(absl::StrCat(display_name, " is an archive of format ",
                                                   quote_for_message(*format), ", not a PT2 archive ('pt2')"));
  }
  return load_pt2_archive(*zip, display_name, model_name);
}

absl::StatusOr<at::Tensor> tensor_from_storage(const TensorMeta& meta, const at::Storage& storage,
                                               const std::string& what) {
  auto dtype = to_c10(meta.dtype);
  if (!dtype.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", dtype.status().message()));
  if (meta.layout != Layout::kStrided) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not a strided (dense) tensor"));
  }
  if (meta.sizes.size() != meta.strides.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " has ", meta.sizes.size(), " sizes but ",
                                                   meta.strides.size(), " strides"));
  }
  std::vector<int64_t> sizes, strides;
  for (size_t i = 0; i < meta.sizes.size(); ++i) {
    if (meta.sizes[i].kind == SymValue::Kind::kExpr || meta.strides[i].kind == SymValue::Kind::kExpr) {
      return absl::InvalidArgumentError(absl::StrCat(what, " has a symbolic size or stride"));
    }
    sizes.push_back(constant_of(meta.sizes[i]));
    strides.push_back(constant_of(meta.strides[i]));
  }
  const int64_t offset = constant_of(meta.storage_offset);
  // The last element's position, in elements; each step checked for overflow.
  const int64_t item = static_cast<int64_t>(c10::elementSize(*dtype));
  bool empty = false;
  int64_t last = offset;
  bool overflow = offset < 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || strides[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(what, " has a negative size or stride"));
    }
    if (sizes[i] == 0) empty = true;
    int64_t reach = 0;
    overflow = overflow || __builtin_mul_overflow(sizes[i] == 0 ? 0 : sizes[i] - 1, strides[i], &reach) ||
               __builtin_add_overflow(last, reach, &last);
  }
  int64_t bytes_needed = 0;
  overflow = overflow || __builtin_add_overflow(last, 1, &bytes_needed) ||
             __builtin_mul_overflow(bytes_needed, item, &bytes_needed);
  if (!empty && (overflow || bytes_needed > static_cast<int64_t>(storage.nbytes()))) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " reaches past its data: ", overflow ? "more than can be addressed" : absl::StrCat(bytes_needed, " bytes"),
        " needed, ", storage.nbytes(), " stored"));
  }
  at::Tensor t = at::empty({0}, at::TensorOptions().dtype(*dtype));
  t.set_(storage, offset, sizes, strides);
  return t;
}

absl::StatusOr<c10::ScalarType> to_c10(ScalarType t) {
  switch (t) {
    case ScalarType::kByte: return c10::kByte;
    case ScalarType::kChar: return c10::kChar;
    case ScalarType::kShort: return c10::kShort;
    case ScalarType::kInt: return c10::kInt;
    case ScalarType::kLong: return c10::kLong;
    case ScalarType::kHalf: return c10::kHalf;
    case ScalarType::kFloat: return c10::kFloat;
    case ScalarType::kDouble: return c10::kDouble;
    case ScalarType::kComplexHalf: return c10::kComplexHalf;
    case ScalarType::kComplexFloat: return c10::kComplexFloat;
    case ScalarType::kComplexDouble: return c10::kComplexDouble;
    case ScalarType::kBool: return c10::kBool;
    case ScalarType::kBFloat16: return c10::kBFloat16;
#if FX_TORCH_AT_LEAST(2, 3)
    case ScalarType::kUInt16: return c10::kUInt16;
    case ScalarType::kUInt32: return c10::kUInt32;
    case ScalarType::kUInt64: return c10::kUInt64;
#endif
#if FX_TORCH_AT_LEAST(2, 1)
    case ScalarType::kFloat8E4M3FN: return c10::ScalarType::Float8_e4m3fn;
    case ScalarType::kFloat8E5M2: return c10::ScalarType::Float8_e5m2;
#endif
#if FX_TORCH_AT_LEAST(2, 2)
    case ScalarType::kFloat8E4M3FNUZ: return c10::ScalarType::Float8_e4m3fnuz;
    case ScalarType::kFloat8E5M2FNUZ: return c10::ScalarType::Float8_e5m2fnuz;
#endif
#if FX_TORCH_AT_LEAST(2, 7)
    case ScalarType::kFloat8E8M0FNU: return c10::ScalarType::Float8_e8m0fnu;
#endif
    default:
      return absl::InvalidArgumentError(absl::StrCat("dtype number ", static_cast<int>(t),
                                                     " of torch.export's schema is not supported by libtorch ",
                                                     TORCH_VERSION));
  }
}

absl::StatusOr<ScalarType> from_c10(c10::ScalarType t) {
  for (int i = 0; i <= 40; ++i) {
    auto c = to_c10(static_cast<ScalarType>(i));
    if (c.ok() && *c == t) return static_cast<ScalarType>(i);
  }
  return absl::InvalidArgumentError(absl::StrCat("dtype ", c10::toString(t), " has no number in torch.export's schema"));
}

absl::StatusOr<c10::Layout> to_c10(Layout l) {
  switch (l) {
    case Layout::kStrided: return c10::kStrided;
    case Layout::kSparseCoo: return c10::kSparse;
    case Layout::kSparseCsr: return c10::kSparseCsr;
    case Layout::kSparseCsc: return c10::kSparseCsc;
    case Layout::kSparseBsr: return c10::kSparseBsr;
    case Layout::kSparseBsc: return c10::kSparseBsc;
    case Layout::kMkldnn: return c10::kMkldnn;
    default:
      return absl::InvalidArgumentError(absl::StrCat("layout number ", static_cast<int>(l),
                                                     " of torch.export's schema is unknown"));
  }
}

Layout from_c10(c10::Layout l) {
  for (int i = 1; i <= 7; ++i) {
    auto c = to_c10(static_cast<Layout>(i));
    if (c.ok() && *c == l) return static_cast<Layout>(i);
  }
  return Layout::kUnknown;
}

absl::StatusOr<c10::MemoryFormat> to_c10(MemoryFormat m) {
  switch (m) {
    case MemoryFormat::kContiguous: return c10::MemoryFormat::Contiguous;
    case MemoryFormat::kChannelsLast: return c10::MemoryFormat::ChannelsLast;
    case MemoryFormat::kChannelsLast3d: return c10::MemoryFormat::ChannelsLast3d;
    case MemoryFormat::kPreserve: return c10::MemoryFormat::Preserve;
    default:
      return absl::InvalidArgumentError(absl::StrCat("memory format number ", static_cast<int>(m),
                                                     " of torch.export's schema is unknown"));
  }
}

MemoryFormat from_c10(c10::MemoryFormat m) {
  for (int i = 1; i <= 4; ++i) {
    auto c = to_c10(static_cast<MemoryFormat>(i));
    if (c.ok() && *c == m) return static_cast<MemoryFormat>(i);
  }
  return MemoryFormat::kUnknown;
}

}  // namespace exported
}  // namespace fx
