// Copyright 2026 The FX for C++ Authors.
#include "runtime/torchscript/node_operations.h"

#include <memory>

#include <ATen/core/jit_type.h>
#include <torch/csrc/jit/ir/ir.h>

namespace fx {

torch::jit::Operation tensor_node_operation(
    c10::Symbol kind, const std::vector<std::pair<std::string, double>>& float_attributes) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Value* input = graph->addInput();
  input->setType(c10::TensorType::get());
  torch::jit::Node* node = graph->create(kind, {input}, 1);
  for (const auto& [name, value] : float_attributes) node->f_(c10::Symbol::attr(name), value);
  node->output()->setType(c10::TensorType::get());
  graph->insertNode(node);
  graph->registerOutput(node->output());
  return node->getOperation();
}

}  // namespace fx
