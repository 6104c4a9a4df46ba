// Copyright 2026 The FX for C++ Authors.
//
// custom_pass: a pass written in C++ and run on a model, with no plugin: it
// replaces every relu by clamp_min(x, 0), which computes the same, and the
// program checks that the outputs did not change.
//
//   custom_pass MODEL.pt2|MODEL.pt
#include <iostream>
#include <utility>

#include <ATen/ATen.h>

#include "absl/strings/str_cat.h"

#include "fx/fx.h"

namespace {

class ReluAsClampMin : public fx::Pass {
 public:
  absl::Status run(fx::GraphModule& gm, fx::PassContext& context) override {
    fx::Graph& graph = gm.graph();
    int replaced = 0;
    // A TorchScript module's operators are named as TorchScript names them,
    // a torch.export program's with their overload.
    for (auto [relu, clamp_min] : {std::pair{"aten::relu", "aten::clamp_min"},
                                   std::pair{"aten.relu.default", "aten.clamp_min.default"}}) {
      for (fx::Node* n : graph.find_nodes(fx::Op::kCallFunction, relu)) {
        fx::Node* clamp;
        {
          auto at = graph.inserting_before(n);
          clamp = graph.call_function(clamp_min, {n->args().at(0), 0.0});
        }
        n->replace_all_uses_with(clamp);
        if (absl::Status s = graph.erase_node(n); !s.ok()) return s;
        ++replaced;
      }
    }
    context.warn(absl::StrCat("replaced ", replaced, " relu(s)"));
    return absl::OkStatus();
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " MODEL.pt2|MODEL.pt (a .pt2: it brings its inputs)\n";
    return 2;
  }
  absl::StatusOr<fx::Model> model = fx::Model::load(argv[1]);
  if (!model.ok()) return fx::report(model.status());
  // inline first, so that nn.ReLU modules become aten::relu calls.
  if (absl::Status s = model->run_passes("inline{recurse=true},dce"); !s.ok()) return fx::report(s);
  absl::StatusOr<std::vector<c10::IValue>> inputs = model->example_inputs();
  if (!inputs.ok()) return fx::report(inputs.status());
  absl::StatusOr<c10::IValue> before = model->run(*inputs);
  if (!before.ok()) return fx::report(before.status());
  const at::Tensor want = before->isTensor() ? before->toTensor().clone() : at::Tensor();

  fx::PassManager passes{fx::PassManagerOptions()};
  if (absl::Status s = passes.add(std::make_unique<ReluAsClampMin>(), "relu_as_clamp_min"); !s.ok()) {
    return fx::report(s);
  }
  if (absl::Status s = model->run_passes(passes); !s.ok()) return fx::report(s);
  absl::StatusOr<c10::IValue> after = model->run(*inputs);
  if (!after.ok()) return fx::report(after.status());
  std::cout << model->graph_module().code();
  if (want.defined() && !at::equal(after->toTensor(), want)) {
    return fx::report(absl::InternalError("the outputs changed"));
  }
  std::cout << fx::describe_outputs(*after) << "outputs unchanged\n";
  return 0;
}
