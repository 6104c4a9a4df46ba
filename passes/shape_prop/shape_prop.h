// Copyright 2026 The FX for C++ Authors.
//
// shape_prop.h: shape propagation (torch.fx's ShapeProp), as a pass and as a
// library function.
//
// Runs the graph node by node on example inputs with the Interpreter and
// records in each node's meta["tensor_meta"] what torch.fx's TensorMetadata
// holds about the value the node produced:
//
//   fx::GraphModule gm = *fx::Tracer().trace(torch::jit::load("resnet18.pt"));
//   absl::Status s = fx::propagate_shapes(gm, {torch::rand({1, 3, 224, 224})});
//   // gm.graph().find_node("layer1_0_conv1")->meta()["tensor_meta"] is
//   //   {"shape": [1, 64, 56, 56], "dtype": "torch.float32", "requires_grad": True,
//   //    "stride": [200704, 3136, 56, 1], "memory_format": "torch.contiguous_format",
//   //    "is_quantized": False, "device": "cpu"}
//
//   // The cheap variant: no data, shapes only (see "The meta device" below).
//   fx::ShapePropOptions options;
//   options.device = fx::ShapePropDevice::kMeta;
//   fx::ShapePropReport report = *fx::propagate_shapes(gm, inputs, options);
//
// As a pass: `shape_prop` (`fxrun --passes=shape_prop --input-shape=1,3,224,224`)
// or `shape_prop{device=meta}`; it reads its inputs from
// PassContext::example_inputs() and fails, saying how to give them, without.
//
// What is recorded, per node, as torch.fx records it:
//   * a tensor: a map with "shape" and "stride" (lists of ints), "dtype"
//     (`torch.float32`), "requires_grad", "memory_format" (the first of
//     `torch.contiguous_format`, `torch.channels_last`,
//     `torch.channels_last_3d` the tensor is contiguous in, else None),
//     "is_quantized" and "device" (`cpu`); a tensor that is not strided
//     (sparse) has stride and memory_format None;
//   * a tuple or list holding tensors: a list with one entry per element (a
//     map for a tensor, None for anything else, nested for nested
//     sequences); a dict with string keys holding tensors: a map by key;
//   * anything else (ints, sizes, None): no tensor_meta. torch.fx also records
//     the Python type of every value (meta["type"]); that is left out here:
//     it would put a column in every table for little gain, and the type of a
//     node is already in its annotation where the tracer knew it.
// Placeholders, get_attr nodes and the output node are recorded too (the
// output's value is what forward returns). Graph meta "shape_prop" says how
// it ran: {"device": "cpu" | "meta", "fallback_nodes": [names]}.
//
// The meta device. With ShapePropDevice::kMeta the inputs, parameters and
// buffers become tensors on PyTorch's `meta` device: same shapes, dtypes and
// strides, no data, so every operator only computes its output's metadata
// (ResNet-18: milliseconds instead of a second; convolution and batch norm,
// whose meta kernels PyTorch registers from Python only, get C++ ones from
// runtime/meta_device.h). A node the meta device cannot run (an operator
// without a meta kernel, an output whose shape depends on data, as
// `nonzero`, a value read out of a tensor, as `item()`, a leaf function or
// submodule that fails) is computed
// on real CPU tensors instead: the real values of the nodes it depends on are
// computed from the example inputs (only those nodes, and each once), so its
// result is exact, and it continues on the meta device. Such nodes are listed
// in ShapePropReport::fallback_nodes, in graph meta and in a warning. Tensors
// computed on the meta device are recorded with the device the real run would
// have given them (the example inputs' device, the CPU when there is no
// tensor input), not `meta`. The caveat: where an operator's meta kernel
// accepts what its CPU kernel would refuse, or lays its output out
// differently, the meta run says so and the real one would not; PyTorch's
// meta kernels are written to agree with the CPU's.
//
// Contracts:
//   * The graph is not changed; only node meta ("tensor_meta" set, or removed
//     from nodes that no longer produce a tensor) and graph meta
//     ("shape_prop") are, and only when the whole run succeeded. The example
//     inputs are not changed: the graph runs on copies. Neither is the
//     module's state, unlike torch.fx's ShapeProp (whose run advances a
//     training-mode batch norm's statistics and any counter the model keeps,
//     so that every later run computes something else): a real run computes
//     on copies of the state (passes/support/state_shadow.h), made for
//     autograd, so that a model that writes a parameter in forward (weight
//     clipping, Embedding's max_norm) and attributes computed under
//     InferenceMode run too. The copies cost memory (the model's state, once);
//     the meta device copies nothing unless a node falls back to real tensors.
//   * Errors: no example inputs (the message says how to give them), a wrong
//     number of inputs (naming the placeholders), and a node that fails on
//     real tensors (the Interpreter's error, naming the node and its target).
//   * Runs on the CPU (the Interpreter's device) with autograd on, as
//     torch.fx's ShapeProp does: a value computed from parameters that
//     require grad requires grad.
#ifndef FX_PASSES_SHAPE_PROP_SHAPE_PROP_H_
#define FX_PASSES_SHAPE_PROP_SHAPE_PROP_H_

#include <string>
#include <vector>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "core/meta.h"
#include "plugins/pass.h"
#include "plugins/registry.h"
#include "runtime/graph_module.h"

namespace fx {

enum class ShapePropDevice { kCpu, kMeta };

struct FX_API ShapePropOptions {
  ShapePropDevice device = ShapePropDevice::kCpu;
};

// How a propagation went.
struct FX_API ShapePropReport {
  ShapePropDevice device = ShapePropDevice::kCpu;
  // With the meta device: the nodes that ran on real CPU tensors, in order.
  std::vector<std::string> fallback_nodes;
};

// Runs `module` on `example_inputs` (one per placeholder; trailing ones with a
// default may be left out) and records meta["tensor_meta"] on its nodes.
FX_API absl::StatusOr<ShapePropReport> propagate_shapes(
    GraphModule& module, const std::vector<c10::IValue>& example_inputs,
    const ShapePropOptions& options = {});

// torch.fx's TensorMetadata of one value (see above); None for a value that
// holds no tensor.
FX_API MetaValue tensor_meta_of(const c10::IValue& value);

class FX_API ShapeProp : public Pass {
 public:
  Option<std::string> device{*this, "device",
                             "cpu: run on real tensors; meta: shapes only, no data (falls back "
                             "to real tensors for nodes the meta device cannot run)",
                             "cpu", /*choices=*/{"cpu", "meta"}};

  absl::Status run(GraphModule& module, PassContext& context) override;
};

// Registers pass "shape_prop" (option `device`).
FX_API void register_shape_prop(PluginRegistrar& registrar);

}  // namespace fx

#endif  // FX_PASSES_SHAPE_PROP_SHAPE_PROP_H_
