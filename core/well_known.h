// Copyright 2026 The FX for C++ Authors.
//
// well_known.h: the metadata keys and call targets that more than one part of
// FX for C++ agrees on, named once.
//
// Metadata keys (Node::meta, Graph::meta). Keys starting with `_` are
// bookkeeping handed from one tool to another; fxrun's table leaves them out,
// JSON keeps them.
//
//   kModulePathKey        "module_path": the qualified name of the module a node
//                         came from (ModulePathTracer, inline);
//   kTagKey               "tag": the seed's TaggingTracer;
//   kExecOrderKey         "exec_order" (graph meta): FSDP's execution order;
//   kTorchScriptTypeKey   "_torchscript_type": a placeholder's TorchScript type
//                         (`Tensor`, `Optional[int]`), set by the tracer; the
//                         runtime checks caller inputs against it;
//   kNumResultsKey        "_num_results": how many results a call_function of a
//                         multi-result operator returns (its `operator.getitem`
//                         users select them);
//   kTraceOptionsKey      "_trace_options" (graph meta): the options a module
//                         was traced with that decide what a body looks like
//                         (leaf and traced-through functions, assertions), so
//                         that passes which trace bodies again (inline) trace
//                         them the same way;
//   kModuleMethodKey      "_method": the method a call_module node calls when it
//                         is not `forward` (TorchScript compiles an overloaded
//                         forward once per overload: nn.LSTM's `forward__0`);
//                         the TorchScript export calls it by this name;
//   kHooksTracedKey       "_hooks_traced": true on a call_module node of a
//                         module with forward hooks or pre-hooks, which
//                         TorchScript compiles into the caller and the tracer
//                         records as nodes of their own; the call runs the
//                         method alone (Python code calls `self.head.forward(x)`,
//                         as calling `self.head(x)` would run the hooks again);
//   kTensorMetaKey        "tensor_meta": torch.fx's TensorMetadata of a node's
//                         value, set by shape_prop: a map with "shape" (list of
//                         ints), "dtype" ("torch.float32"), "requires_grad",
//                         "stride", "memory_format" ("torch.channels_last" or
//                         None), "is_quantized" and "device" ("cpu"); a list of
//                         such maps (None for non-tensors) for tuples and lists.
//                         Printers (fxrun's table, pictures) read "shape" and
//                         "dtype";
//   kShapePropKey         "shape_prop" (graph meta): how shape_prop ran
//                         ("device": "cpu" or "meta", "fallback_nodes");
//   kExportedProgramKey   "exported_program" (graph meta): the torch.export
//                         program a graph was read from ("torch_version",
//                         "schema_version", "layout": "legacy" or "pt2",
//                         "root_type", and "non_persistent_buffers": the
//                         targets of buffers it keeps out of its state dict);
//   kExportedValueKey     "_exported": what a torch.export program said of a
//                         node's value, kept so that it can be written back
//                         exactly: "metadata" (the program's stack_trace,
//                         nn_module_stack, ...), "tensor_meta" (the schema's
//                         TensorMeta as JSON, symbolic sizes included), "sym"
//                         (a symbolic int's expression and hint, as JSON),
//                         and on placeholders "input": the argument of the
//                         program's forward it is ("spec": its pytree
//                         TreeSpec JSON, "keyword": a keyword argument,
//                         "constant": a non-tensor the program was
//                         specialised for, whose value is the placeholder's
//                         default; a structure's "leaves": [{"name",
//                         "tensor_meta"}] in order);
//   kInputConstraintsKey  "input_constraints" (graph meta): the shapes the
//                         inputs must have ("inputs": [{"placeholder",
//                         "sizes": [int or symbolic expression]}], "symbols":
//                         {name: [min, max]}); the runtime checks them.
//
// Targets of call_function nodes that the tracer records and the runtime and
// passes recognise: torch._assert (input checks; kept by dead-code
// elimination) and torch.fx's _assert_is_none (concrete_args), the tracer's
// assert_is_not_none (Optional values it took as given), operator.getitem,
// operator.not_, and Python's getattr.
#ifndef FX_CORE_WELL_KNOWN_H_
#define FX_CORE_WELL_KNOWN_H_

#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

inline constexpr absl::string_view kModulePathKey = "module_path";
inline constexpr absl::string_view kModuleMethodKey = "_method";
inline constexpr absl::string_view kTagKey = "tag";
inline constexpr absl::string_view kExecOrderKey = "exec_order";
inline constexpr absl::string_view kTorchScriptTypeKey = "_torchscript_type";
inline constexpr absl::string_view kNumResultsKey = "_num_results";
inline constexpr absl::string_view kTraceOptionsKey = "_trace_options";
inline constexpr absl::string_view kHooksTracedKey = "_hooks_traced";
inline constexpr absl::string_view kTensorMetaKey = "tensor_meta";
inline constexpr absl::string_view kShapePropKey = "shape_prop";
inline constexpr absl::string_view kExportedProgramKey = "exported_program";
inline constexpr absl::string_view kInputConstraintsKey = "input_constraints";
inline constexpr absl::string_view kExportedValueKey = "_exported";

inline constexpr absl::string_view kAssertTarget = "torch._assert";
// torch.fx's check that a concrete_args argument given as None is None.
inline constexpr absl::string_view kAssertIsNoneTarget = "torch.fx._symbolic_trace._assert_is_none";
// The tracer's check that a value which may be None (an Optional argument of
// forward, an Optional result of a leaf) is not, where the trace took the
// path for a value: `(value, message)`. torch.fx has no such check (it
// assumes a Proxy is never None); printed as `torch._assert(x is not None,
// message)` in Python and `assert x is not None, message` in TorchScript,
// which refines x's type as TorchScript's own code does.
inline constexpr absl::string_view kAssertIsNotNoneTarget = "fx.assert_is_not_none";
// True for call_function targets that check something and compute nothing
// (their result, if any, is None): torch._assert, torch.fx's _assert_is_none,
// fx.assert_is_not_none, and the ATen assertions torch.export records
// (aten::_assert_async, _assert_scalar, _assert_tensor_metadata,
// sym_constrain_range, sym_constrain_range_for_size, any overload), as
// torch.fx's `_side_effectful_functions` lists them. Dead-code elimination
// keeps them; passes that look for what writes or reads a value's data may
// pass them by.
FX_API bool is_assertion_target(absl::string_view target);

inline constexpr absl::string_view kGetItemTarget = "operator.getitem";
inline constexpr absl::string_view kNotTarget = "operator.not_";
inline constexpr absl::string_view kGetAttrTarget = "getattr";

}  // namespace fx

#endif  // FX_CORE_WELL_KNOWN_H_
