// Copyright 2026 The FX for C++ Authors.
//
// trace_check: traces TorchScript models and checks each trace, for
// tests/torchvision/check_torchvision.py (run by hand over the whole
// torchvision zoo).
//
//   trace_check MODEL.pt [REFERENCE.txt] [--leaf_function=NAME ...]
//
// Prints one JSON object: whether the model traced (and the error if not),
// node counts, whether lint passed, whether the traced GraphModule computes
// what the scripted model computes on a random 1x3x224x224 batch, and, given
// the call_module targets torch.fx records (one per line), whether ours come
// in the same order.
#include <chrono>
#include <fstream>
#include <iostream>

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/rand.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/serialization/import.h>

#include "tests/testing/values.h"
#include "tracer/tracer.h"

int main(int argc, char** argv) {
  fx::TraceOptions options;
  std::vector<char*> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::string flag = "--leaf_function=";
    if (arg.rfind(flag, 0) == 0) {
      options.leaf_functions.push_back(arg.substr(flag.size()));
    } else {
      positional.push_back(argv[i]);
    }
  }
  if (positional.empty() || positional.size() > 2) {
    std::cerr << "usage: trace_check MODEL.pt [REFERENCE.txt] [--leaf_function=NAME ...]\n";
    return 2;
  }
  const std::string model_path = positional[0];
  nlohmann::json report = {{"model", model_path}};
  torch::jit::Module model;
  try {
    model = torch::jit::load(model_path);
  } catch (const c10::Error& e) {
    report["error"] = std::string("load: ") + e.what_without_backtrace();
    std::cout << report.dump() << "\n";
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  auto gm = fx::Tracer(options).trace(model);
  const auto end = std::chrono::steady_clock::now();
  report["traced"] = gm.ok();
  if (!gm.ok()) {
    report["error"] = std::string(gm.status().message());
    std::cout << report.dump() << "\n";
    return 1;
  }
  report["trace_ms"] = std::chrono::duration<double, std::milli>(end - start).count();
  report["nodes"] = gm->graph().size();
  std::vector<std::string> call_modules;
  for (const fx::Node* n : gm->graph().find_nodes(fx::Op::kCallModule)) {
    call_modules.push_back(n->target());
  }
  report["call_modules"] = call_modules.size();
  report["asserts"] = gm->graph().find_nodes(fx::Op::kCallFunction, "torch._assert").size();
  report["lint"] = gm->lint().ok();

  if (positional.size() == 2) {
    std::ifstream in(positional[1]);
    std::vector<std::string> reference;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) reference.push_back(line);
    }
    if (!reference.empty() && reference[0].rfind("# torch.fx cannot trace", 0) == 0) {
      report["torch_fx"] = reference[0].substr(2);
    } else {
      report["same_call_modules_as_torch_fx"] = reference == call_modules;
    }
  }
  at::manual_seed(0);
  std::vector<c10::IValue> inputs = {at::rand({1, 3, 224, 224})};
  auto ours = (*gm)(inputs);
  if (!ours.ok()) {
    report["run_error"] = std::string(ours.status().message());
  } else {
    std::string why;
    report["same_outputs"] = fx::testing::all_close(*ours, model.forward(inputs), &why);
    if (!why.empty()) report["difference"] = why;
  }
  std::cout << report.dump() << "\n";
  return 0;
}
