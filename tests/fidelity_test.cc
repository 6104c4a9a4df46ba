// Copyright 2026 The FX for C++ Authors.
//
// How close the graphs of the corpus (tests/fixtures/real_models.py) come to
// Python torch.fx's graphs of the same models (NAME.fx.json, recorded at build
// time), node by node: names, opcodes and targets.
//
// Targets are compared as torch.fx's name of the function (`add` for
// operator.add and aten::add.Tensor, `relu` for torch.nn.functional.relu):
// this tracer keeps the exact aten overload where torch.fx has the Python
// function, by design. Each model is traced as a torch.fx user would (the
// functions its code wraps with torch.fx.wrap as leaf functions) and gets a
// verdict:
//   identical   every node has torch.fx's name, opcode and function;
//   methods     identical but for `x.relu()` recorded as a call_function:
//               TorchScript compiles tensor methods and functions alike;
//   differs     the first node that differs is shown.
// The table goes to the test log; the test fails when a model that matched
// stops matching.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/naming.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/real_models.h"
#include "tests/testing/tracing.h"
#include "tracer/tracer.h"

namespace fx {
namespace {

struct Entry {
  std::string name;
  std::string op;
  std::string target;
};

// torch.fx's function name of a call target.
std::string function_of(const std::string& op, const std::string& target) {
  if (op != "call_function" && op != "call_method") return target;
  if (target.find("::") != std::string::npos) return std::string(function_base_name(target));
  const size_t dot = target.rfind('.');
  return dot == std::string::npos ? target : target.substr(dot + 1);
}

struct Verdict {
  std::string kind;  // identical, methods, differs, refused
  std::string detail;
};

Verdict compare(const std::vector<Entry>& ours, const std::vector<Entry>& theirs) {
  bool methods = false;
  const size_t n = std::min(ours.size(), theirs.size());
  for (size_t i = 0; i < n; ++i) {
    const Entry& a = ours[i];
    const Entry& b = theirs[i];
    const bool same_function = function_of(a.op, a.target) == function_of(b.op, b.target);
    if (a.name == b.name && a.op == b.op && same_function) continue;
    if (a.name == b.name && same_function && b.op == "call_method" && a.op == "call_function") {
      methods = true;
      continue;
    }
    return {"differs", absl::StrCat("node ", i, ": ours ", a.op, " ", a.name, " (", a.target,
                                    "), torch.fx ", b.op, " ", b.name, " (", b.target, ")")};
  }
  if (ours.size() != theirs.size()) {
    return {"differs", absl::StrCat(ours.size(), " nodes, torch.fx ", theirs.size())};
  }
  return {methods ? "methods" : "identical", ""};
}

TEST(FidelityTest, CorpusGraphsAgainstTorchFx) {
  std::map<std::string, Verdict> verdicts;
  int traceable = 0;
  for (const std::string& name : testing::real_model_names()) {
    std::ifstream in(testing::fixture_path(name + ".fx.json"));
    const nlohmann::json reference = nlohmann::json::parse(in);
    if (!reference["traceable"].get<bool>()) continue;
    ++traceable;
    std::vector<Entry> theirs;
    for (const auto& node : reference["nodes"]) {
      theirs.push_back({node["name"], node["op"], node["target"]});
    }
    TraceOptions options = testing::real_model_trace_options(name);
    // What the model's own code wraps for torch.fx (torch.fx.wrap), as a
    // torch.fx user has it.
    if (name == "tensor_product") options.leaf_functions = {"tensor_product._empty0"};
    auto gm = testing::trace_fixture_result(name + ".pt", options);
    if (!gm.ok()) {
      verdicts[name] = {"refused", std::string(gm.status().message()).substr(0, 120)};
      continue;
    }
    std::vector<Entry> ours;
    for (const Node* n : gm->graph().nodes()) {
      ours.push_back({n->name(), std::string(op_name(n->op())), n->target()});
    }
    verdicts[name] = compare(ours, theirs);
  }
  std::map<std::string, int> counts;
  std::ostringstream table;
  table << "| model | verdict | first difference |\n|---|---|---|\n";
  for (const auto& [name, v] : verdicts) {
    ++counts[v.kind];
    table << "| " << name << " | " << v.kind << " | " << v.detail << " |\n";
  }
  std::cout << table.str() << "\n"
            << traceable << " models torch.fx traces: " << counts["identical"] << " identical, "
            << counts["methods"] << " identical but for tensor methods, " << counts["differs"]
            << " differ, " << counts["refused"] << " refused\n";
  // No model torch.fx traces may be refused, and these must stay as close as
  // they are.
  EXPECT_EQ(counts["refused"], 0);
  for (const char* name :
       {"conv_no_bias", "dict_items", "functional_image", "functional_seq", "gru", "inplace_alias_relu",
        "inplace_iadd_fresh", "inplace_input_add", "inplace_view_mul", "list_append", "lstm",
        "mc3_18", "mlp_bn1d", "multihead_attention", "optional_arg", "r2plus1d_18", "r3d_18", "rnn",
        "swin_tiny", "transformer_decoder_layer"}) {
    auto it = verdicts.find(name);
    ASSERT_NE(it, verdicts.end()) << name;
    EXPECT_NE(it->second.kind, "differs") << name << ": " << it->second.detail;
  }
}

}  // namespace
}  // namespace fx
