// Copyright 2026 The FX for C++ Authors.
//
// schema.h: a torch.export program as PyTorch serialises it, in C++.
//
// `torch.export.save` writes an ExportedProgram as JSON that follows
// `torch/_export/serde/schema.py` (schema version 8.x in torch 2.1 to 2.14):
// ExportedProgram -> GraphModule (graph, signature, module call graph) ->
// Graph (inputs, outputs, nodes, tensor_values, sym_int_values, ...) -> Node
// (target `torch.ops.aten.conv2d.default`, named inputs, outputs, string
// metadata such as `nn_module_stack`). Every argument is a one-key union
// (`{"as_tensor": {"name": "x"}}`, `{"as_int": 3}`, ...). These structs are
// that JSON, checked and typed; reading it into the FX IR is
// tracer/trace_exported.cc (Tracer::trace of a program), writing it back
// exported_program/writer.h.
//
//   nlohmann::json j = nlohmann::json::parse(text);
//   std::vector<std::string> warnings;
//   absl::StatusOr<fx::exported::Program> p = fx::exported::parse_program(j, &warnings);
//   for (const fx::exported::Node& n : p->graph_module.graph.nodes) ...
//   nlohmann::ordered_json back = fx::exported::to_json(*p);
//
// Contracts:
//   * parse_program reads every argument kind the schema defines. Kinds the
//     IR cannot hold are kept as Argument::Kind::kUnsupported with their name,
//     so the reader refuses them by name where they are used.
//   * Versions: a schema major version other than kSchemaMajor is an error
//     naming both; a minor version newer than kSchemaMinor is read, and keys
//     or enum values this reader does not know are listed in `warnings`
//     (once each) instead of failing. Unknown keys of a known version are
//     errors: they mean the file is not what it claims.
//   * Errors name the place in the document: `graph_module.graph.nodes[3]
//     ('conv2d').inputs[1].arg: ...`.
//   * to_json writes what parse_program reads, in the key order PyTorch
//     writes: to_json(parse_program(to_json(p))) == to_json(p).
#ifndef FX_EXPORTED_PROGRAM_SCHEMA_H_
#define FX_EXPORTED_PROGRAM_SCHEMA_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "core/export.h"

namespace fx {
namespace exported {

// The schema version this reader knows (torch 2.14 writes 8.20; 2.6 writes 8.2).
inline constexpr int kSchemaMajor = 8;
inline constexpr int kSchemaMinor = 20;

// ScalarType, Layout and MemoryFormat as the schema numbers them (their own
// numbering, not c10's).
enum class ScalarType : int {
  kUnknown = 0, kByte = 1, kChar = 2, kShort = 3, kInt = 4, kLong = 5, kHalf = 6,
  kFloat = 7, kDouble = 8, kComplexHalf = 9, kComplexFloat = 10, kComplexDouble = 11,
  kBool = 12, kBFloat16 = 13, kUInt16 = 28, kFloat8E4M3FN = 29, kFloat8E5M2 = 30,
  kFloat8E4M3FNUZ = 31, kFloat8E5M2FNUZ = 32, kFloat8E8M0FNU = 33, kUInt32 = 34, kUInt64 = 35,
};
enum class Layout : int {
  kUnknown = 0, kSparseCoo = 1, kSparseCsr = 2, kSparseCsc = 3, kSparseBsr = 4,
  kSparseBsc = 5, kMkldnn = 6, kStrided = 7,
};
enum class MemoryFormat : int {
  kUnknown = 0, kContiguous = 1, kChannelsLast = 2, kChannelsLast3d = 3, kPreserve = 4,
};

struct FX_API Device {
  std::string type;  // "cpu", "cuda", "meta"
  std::optional<int64_t> index;
};

// A symbolic integer, float or bool: a constant, or an expression over the
// program's symbols (`s0`, sympy's `Symbol('s77', positive=True, integer=True)`,
// `Mul(Integer(3), Symbol('s77', ...))`) with the value it had when exported.
struct FX_API SymValue {
  enum class Kind { kInt, kFloat, kBool, kExpr };
  static SymValue of_int(int64_t v) {
    SymValue s;
    s.i = v;
    return s;
  }
  Kind kind = Kind::kInt;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::string expr;  // kExpr
  // The hint of an expression, as its own SymValue kind (kInt, kFloat, kBool).
  std::optional<Kind> hint_kind;
  int64_t hint_i = 0;
  double hint_f = 0;
  bool hint_b = false;
};

struct FX_API TensorMeta {
  ScalarType dtype = ScalarType::kUnknown;
  std::vector<SymValue> sizes;
  bool requires_grad = false;
  Device device;
  std::vector<SymValue> strides;
  SymValue storage_offset;
  Layout layout = Layout::kStrided;
};

struct Graph;

// One argument of a node, an input or an output: the schema's Argument union.
struct FX_API Argument {
  enum class Kind {
    kNone,
    kTensor,          // as_tensor: a tensor value by name
    kTensors,         // as_tensors
    kOptionalTensors, // as_optional_tensors: names, "" for None
    kOptionalTensor,  // as_optional_tensor
    kInt, kInts, kFloat, kFloats, kString, kStrings, kBool, kBools,
    kSymInt,          // as_sym_int: a symbolic int value by name, or a constant
    kSymInts,         // as_sym_ints: each element a name or a constant
    kSymFloat, kSymFloats, kSymBool, kSymBools,
    kScalarType, kMemoryFormat, kLayout, kDevice,
    kIntLists,        // as_int_lists
    kFloatLists,      // as_float_lists
    kStringToArgument,// as_string_to_argument
    kNestedTensors,   // as_nested_tensors
    kGraph,           // as_graph: a subgraph of a higher-order operator
    kUnsupported,     // a kind the IR cannot hold (as_custom_obj, as_operator,
                      // as_complex, ...); `name` holds the schema's key
  };
  Kind kind = Kind::kNone;
  // Names of values (kTensor: one; kTensors, kOptionalTensors: each, "" is
  // None); the schema key of kUnsupported; the graph name of kGraph.
  std::vector<std::string> names;
  // Constants: kInt(s), kBool(s), kScalarType, kMemoryFormat, kLayout.
  std::vector<int64_t> ints;
  std::vector<double> floats;      // kFloat(s)
  std::vector<std::string> strings;  // kString(s)
  // kSymInt(s), kSymFloat(s), kSymBool(s): each element a value name
  // (`is_name` true) or a constant (in ints/floats).
  std::vector<bool> is_name;
  Device device;                               // kDevice
  std::vector<std::vector<int64_t>> int_lists; // kIntLists
  std::vector<std::vector<double>> float_lists;  // kFloatLists
  std::vector<std::vector<std::string>> nested_names;  // kNestedTensors
  std::vector<std::pair<std::string, Argument>> items; // kStringToArgument
  std::shared_ptr<const Graph> graph;          // kGraph
  // The original JSON of a kUnsupported argument, written back as it was.
  nlohmann::json raw;

};

// The schema key of a kind ("as_tensor", ...).
FX_API const char* argument_key(Argument::Kind kind);

struct FX_API NamedArgument {
  std::string name;  // the parameter's name in the operator's schema
  Argument arg;
  // 1 positional, 2 keyword, 0 unknown; absent in files before 8.x minors.
  std::optional<int> kind;
};

struct FX_API Node {
  std::string target;  // "torch.ops.aten.conv2d.default", "_operator.getitem"
  std::vector<NamedArgument> inputs;
  std::vector<Argument> outputs;
  std::map<std::string, std::string> metadata;  // stack_trace, nn_module_stack, ...
  std::optional<bool> is_hop_single_tensor_return;
  std::optional<std::string> name;
};

struct FX_API Graph {
  std::vector<Argument> inputs;
  std::vector<Argument> outputs;
  std::vector<Node> nodes;
  std::map<std::string, TensorMeta> tensor_values;
  std::map<std::string, SymValue> sym_int_values;
  std::map<std::string, SymValue> sym_bool_values;
  std::map<std::string, SymValue> sym_float_values;
  bool is_single_tensor_return = false;
  nlohmann::json custom_obj_values = nlohmann::json::object();
};

// One entry of the signature's input_specs / output_specs.
struct FX_API InputSpec {
  enum class Kind { kUserInput, kParameter, kBuffer, kTensorConstant, kCustomObj, kToken, kConstantInput };
  Kind kind = Kind::kUserInput;
  Argument arg;        // user_input: any argument; others: a tensor (or token/custom obj) name
  std::string target;  // parameter_name / buffer_name / tensor_constant_name / custom_obj_name / name
  bool persistent = true;  // buffers
  Argument constant;   // constant_input: its value (kNone, kInt, kFloat, kString, kBool)
};

struct FX_API OutputSpec {
  enum class Kind {
    kUserOutput, kLossOutput, kBufferMutation, kGradientToParameter, kGradientToUserInput,
    kUserInputMutation, kToken, kParameterMutation,
  };
  Kind kind = Kind::kUserOutput;
  Argument arg;
  std::string target;  // buffer_name / parameter_name / user_input_name
};

struct FX_API ModuleCallSignature {
  std::vector<Argument> inputs;
  std::vector<Argument> outputs;
  std::string in_spec;   // pytree TreeSpec JSON (treespec.h)
  std::string out_spec;
  std::optional<std::vector<std::string>> forward_arg_names;
};

struct FX_API ModuleCallEntry {
  std::string fqn;
  std::optional<ModuleCallSignature> signature;
};

struct FX_API RangeConstraint {
  std::optional<int64_t> min_val;
  std::optional<int64_t> max_val;
};

struct FX_API GraphModule {
  Graph graph;
  std::vector<InputSpec> input_specs;
  std::vector<OutputSpec> output_specs;
  std::vector<ModuleCallEntry> module_call_graph;
  std::map<std::string, std::string> metadata;
  // NamedTuple type name -> field names (treespec_namedtuple_fields).
  std::map<std::string, std::vector<std::string>> namedtuple_fields;
};

struct FX_API Program {
  GraphModule graph_module;
  std::map<std::string, int64_t> opset_version;  // {"aten": 10}
  std::map<std::string, RangeConstraint> range_constraints;
  int schema_major = kSchemaMajor;
  int schema_minor = kSchemaMinor;
  std::vector<std::string> verifiers;  // "TRAINING", "ATEN", ...
  std::string torch_version;           // "2.14.1+debian"; "<=2.4" when absent
  std::vector<std::string> guards_code;
};

// JSON as Python's json module writes it: also the bare `NaN`, `Infinity`
// and `-Infinity` it writes for such floats (torch 2.6 does; later versions
// write them as strings), read as those strings. Errors give the line and
// column.
FX_API absl::StatusOr<nlohmann::json> parse_python_json(const std::string& text);

// Reads a program. Warnings (a newer minor version's unknown keys) are
// appended to `warnings` when given.
FX_API absl::StatusOr<Program> parse_program(const nlohmann::json& j,
                                             std::vector<std::string>* warnings = nullptr);
// Reads a weights or constants config of the PT2 archive
// (`{"config": {fqn: {"path_name", "is_param", "use_pickle", "tensor_meta"}}}`).
struct FX_API PayloadMeta {
  std::string path_name;
  bool is_param = false;
  bool use_pickle = false;
  std::optional<TensorMeta> tensor_meta;
};
FX_API absl::StatusOr<std::map<std::string, PayloadMeta>> parse_payload_config(
    const nlohmann::json& j, const std::string& where);

// In the key order PyTorch writes.
FX_API nlohmann::ordered_json to_json(const Program& program);
FX_API nlohmann::ordered_json to_json(const TensorMeta& meta);
FX_API nlohmann::ordered_json sym_value_to_json(const SymValue& value);
// The reverse of both, for one value kept aside (the IR's node meta).
FX_API absl::StatusOr<TensorMeta> parse_tensor_meta(const nlohmann::json& j);
FX_API absl::StatusOr<SymValue> parse_sym_value(const nlohmann::json& j, SymValue::Kind constant);
FX_API nlohmann::ordered_json payload_config_to_json(
    const std::vector<std::pair<std::string, PayloadMeta>>& config);

}  // namespace exported
}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_SCHEMA_H_
