// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/exported_programs.h"

#include <torch/csrc/jit/serialization/pickle.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace testing {

const std::vector<std::string>& exported_program_versions() {
  static const auto* versions = new std::vector<std::string>{"2.6", "2.14"};
  return *versions;
}

const std::vector<std::string>& exported_program_names() {
  static const auto* names =
      new std::vector<std::string>{"linear_bn", "dynamic_batch", "conv_net", "special_floats", "rotary_block"};
  return *names;
}

std::string exported_program_path(const std::string& version, const std::string& name) {
  return runfile(absl::StrCat("tests/exported_programs/torch", version, "/", name, ".pt2"));
}

exported::LoadedProgram load_exported_program(const std::string& version, const std::string& name) {
  const std::string bytes = read_file(exported_program_path(version, name));
  auto p = exported::load_program(bytes, name + ".pt2");
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : exported::LoadedProgram();
}

ExpectedRun load_expected_run(const std::string& version, const std::string& name) {
  const std::string bytes =
      read_file(runfile(absl::StrCat("tests/exported_programs/torch", version, "/", name, ".expected.pt")));
  const c10::IValue saved = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
  ExpectedRun run;
  for (const auto& kv : saved.toGenericDict()) {
    if (kv.key().toStringRef() == "inputs") {
      for (const c10::IValue& v : kv.value().toTupleRef().elements()) run.inputs.push_back(v);
    } else if (kv.key().toStringRef() == "outputs") {
      for (const c10::IValue& v : kv.value().toTupleRef().elements()) run.outputs.push_back(v);
    }
  }
  return run;
}

std::vector<c10::IValue> flatten_outputs(const c10::IValue& value) {
  std::vector<c10::IValue> out;
  if (value.isTuple()) {
    for (const c10::IValue& v : value.toTupleRef().elements()) {
      for (c10::IValue& leaf : flatten_outputs(v)) out.push_back(std::move(leaf));
    }
  } else if (value.isList()) {
    for (const c10::IValue& v : value.toListRef()) {
      for (c10::IValue& leaf : flatten_outputs(v)) out.push_back(std::move(leaf));
    }
  } else if (value.isGenericDict()) {
    for (const auto& kv : value.toGenericDict()) {
      for (c10::IValue& leaf : flatten_outputs(kv.value())) out.push_back(std::move(leaf));
    }
  } else {
    out.push_back(value);
  }
  return out;
}

}  // namespace testing
}  // namespace fx
