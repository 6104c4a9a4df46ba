// Copyright 2026 The FX for C++ Authors.
//
// writer.h: a GraphModule written as a torch.export program (`.pt2`) that
// `torch.export.load` reads and whose `module()` computes what the graph
// computes.
//
//   fx::exported::WriteOptions options;                 // the PT2 archive (torch 2.8+)
//   absl::StatusOr<std::string> bytes = fx::exported::write_program(gm, options);
//   // python: ep = torch.export.load("out.pt2"); ep.module()(x)
//
// What is written:
//   * Placeholders as the arguments of the program's forward, as a program
//     read had them (the in_spec): tensors; a dict, list or tuple of tensors
//     (its getitems are the flat inputs; one dce removed still is, so the
//     caller passes what it passed); a bool, int, float, string or None the
//     program was specialised for (a constant input: ep.module() checks the
//     caller passes that value); keyword arguments as keyword arguments. A
//     placeholder a pass added is a tensor argument; one a pass removed is
//     gone from the signature.
//   * The graph as the program's graph:
//     each get_attr target becomes one lifted input (a parameter `p_...`, a
//     buffer `b_...` or a tensor constant `c_...`, by what the module holds
//     there), written once with the weights; call_function nodes of exact
//     ATen overloads become nodes with arguments named by the operator's
//     schema; `operator.*` on sizes become `_operator.*`; getitem nodes of a
//     multi-result operator become its named results; the output is
//     flattened into user outputs, its structure kept as the out_spec.
//   * A trailing `copy_` into a buffer (how ep.module() applies a program's
//     buffer mutation, and how the reader shows one) becomes the buffer
//     mutation output again.
//   * Metadata the program had when it was read (node meta `_exported`) is
//     written back as it was: tensor metadata with symbolic sizes, stack
//     traces, module stacks, range constraints. Other tensor values take
//     theirs from `tensor_meta` (shape_prop's), and get_attr values from
//     the tensors themselves.
//   * Weights: parameters and buffers once each (tensors that share storage
//     share one entry), constants likewise; the example inputs when given.
//
// Layouts: WriteLayout::kPt2Archive is what torch 2.8 and later write and
// read. kLegacy is the zip torch 2.1 to 2.7 write (schema 8.2, without the
// fields later versions added), for readers of those versions; its state dict
// is a torch.save pickle with parameters as nn.Parameter. By default a graph
// read from a program is written in the layout it was read in (the torch
// that wrote it reads that one), any other graph as the PT2 archive.
//
// Contracts:
//   * A graph that is not expressible as a torch.export program is refused,
//     naming the node and why: a call_module (of a TorchScript submodule) or
//     call_method, a leaf function (TorchScript code), a Python-level target
//     that is not an operator overload, an input that is not a tensor and
//     was not read as one of those above from a program, a structured input
//     used whole or read at an item it does not have, a tensor value without
//     metadata (run shape_prop first).
//   * Deterministic: the same graph and options give the same bytes.
#ifndef FX_EXPORTED_PROGRAM_WRITER_H_
#define FX_EXPORTED_PROGRAM_WRITER_H_

#include <optional>
#include <string>

#include <ATen/core/ivalue.h>

#include "absl/status/statusor.h"
#include "core/export.h"
#include "runtime/graph_module.h"

namespace fx {
namespace exported {

enum class WriteLayout { kPt2Archive, kLegacy };

struct FX_API WriteOptions {
  // Unset: the layout the graph's program was read in, else the PT2 archive.
  std::optional<WriteLayout> layout;
  // The PT2 archive's top folder (torch uses the file's name) and model name.
  std::string archive_name = "model";
  std::string model_name = "model";
  // Saved as the program's example inputs: a tuple (args tuple, kwargs dict).
  std::optional<c10::IValue> example_inputs;
};

FX_API absl::StatusOr<std::string> write_program(const ::fx::GraphModule& gm,
                                                 const WriteOptions& options = {});

// The layout write_program writes `gm` in with `options`.
FX_API WriteLayout chosen_layout(const ::fx::GraphModule& gm, const WriteOptions& options);

// "the PT2 archive (torch 2.8 and later read it)", "the legacy zip (...)".
FX_API std::string describe_layout(WriteLayout layout);

}  // namespace exported
}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_WRITER_H_
