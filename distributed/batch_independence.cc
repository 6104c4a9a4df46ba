// Copyright 2026 The FX for C++ Authors.
#include "distributed/batch_independence.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include <ATen/core/Tensor.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/well_known.h"
#include "distributed/microbatches.h"
#include "passes/support/call_arguments.h"
#include "passes/support/normalized_call.h"
#include "runtime/interpreter/interpreter.h"
#include "runtime/meta_device.h"

namespace fx {
namespace {

// ---- the two runs ---------------------------------------------------------

// Each node's value (shapes only: on the meta device) in one run, over a
// GraphModule and its graph submodules.
using Records = absl::flat_hash_map<const Node*, c10::IValue>;

// A copy of `m` to run: its state on the meta device (or shared, on the CPU),
// its graph copied, its graph submodules copied alike.
std::shared_ptr<GraphModule> copy_to_run(const GraphModule& m, bool on_meta) {
  auto copy = std::make_shared<GraphModule>(on_meta ? module_on_meta(m.root()) : m.shared_root(),
                                            m.graph().copy(), m.class_name());
  for (const auto& [name, value] : m.own_attributes()) {
    (void)copy->add_attribute(name, on_meta ? state_to_meta(value) : value);
  }
  copy->set_script_functions(m.script_functions());
  for (const auto& [name, sub] : m.graph_submodules()) {
    (void)copy->add_graph_submodule(name, copy_to_run(*sub, on_meta));
  }
  return copy;
}

// Runs a GraphModule node by node, recording every value; a call of a graph
// submodule is run (and recorded) node by node too.
class RecordingRun : public Interpreter {
 public:
  RecordingRun(GraphModule& module, Records& records) : Interpreter(module), records_(records) {}

 protected:
  absl::StatusOr<c10::IValue> run_node(const Node& node) override {
    absl::StatusOr<c10::IValue> value = Interpreter::run_node(node);
    if (value.ok()) {
      if (records_.contains(&node)) {
        return absl::FailedPreconditionError("a graph submodule called twice");
      }
      records_.emplace(&node, to_meta(*value));
    }
    return value;
  }
  absl::StatusOr<c10::IValue> call_module(const Node& node, std::vector<c10::IValue> args,
                                          IValueKwargs kwargs) override {
    if (GraphModule* sub = module().graph_submodule(node.target())) {
      if (!kwargs.empty()) return absl::UnimplementedError("keywords to a graph submodule");
      RecordingRun nested(*sub, records_);
      return nested.run(std::move(args));
    }
    return Interpreter::call_module(node, std::move(args), std::move(kwargs));
  }

 private:
  Records& records_;
};

// ---- what a value carries of the batch -------------------------------------

struct Carried {
  enum class Kind { kFree, kBatch, kSize, kMixed, kItems };
  Kind kind = Kind::kFree;
  int64_t dim = 0;   // kBatch: the dimension carrying the batch
  int64_t rank = 0;  // kBatch: the tensor's rank
  std::string why;   // kMixed: the node that mixed samples, and how
  std::vector<Carried> items;      // kItems: a tuple's, list's or dict's
  std::vector<std::string> keys;   // kItems of a dict: the keys

  static Carried batch(int64_t dim, int64_t rank) {
    Carried c;
    c.kind = Kind::kBatch;
    c.dim = dim;
    c.rank = rank;
    return c;
  }
  static Carried size() {
    Carried c;
    c.kind = Kind::kSize;
    return c;
  }
  static Carried mixed(std::string why) {
    Carried c;
    c.kind = Kind::kMixed;
    c.why = std::move(why);
    return c;
  }
  bool free() const { return kind == Kind::kFree; }
  bool batched() const { return kind == Kind::kBatch; }
  bool is_mixed() const { return kind == Kind::kMixed; }
};

void leaves_of(const Carried& c, std::vector<const Carried*>& out) {
  if (c.kind == Carried::Kind::kItems) {
    for (const Carried& item : c.items) leaves_of(item, out);
  } else {
    out.push_back(&c);
  }
}

std::string describe(const at::Tensor& t) {
  return absl::StrCat(absl::AsciiStrToLower(c10::toString(t.scalar_type())), "[",
                      absl::StrJoin(t.sizes(), ", "), "]");
}

std::string describe(const c10::IValue& v) {
  if (v.isTensor()) return describe(v.toTensor());
  if (v.isTuple() || v.isList()) {
    const std::vector<c10::IValue> items =
        v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
    std::vector<std::string> parts;
    for (const c10::IValue& item : items) parts.push_back(describe(item));
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }
  return v.tagKind();
}

bool holds_tensor(const c10::IValue& v) {
  if (v.isTensor()) return true;
  if (v.isTuple() || v.isList()) {
    for (const c10::IValue& item : v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec()) {
      if (holds_tensor(item)) return true;
    }
  }
  if (v.isGenericDict()) {
    for (const auto& entry : v.toGenericDict()) {
      if (holds_tensor(entry.value())) return true;
    }
  }
  return false;
}

int64_t product(c10::IntArrayRef sizes, int64_t end) {
  int64_t p = 1;
  for (int64_t i = 0; i < end; ++i) p *= sizes[i];
  return p;
}

// ---- the operators ---------------------------------------------------------

const absl::flat_hash_set<std::string>& pointwise_ops() {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "abs", "absolute", "acos", "acosh", "add", "addcdiv", "addcmul", "alias", "alpha_dropout",
      "arccos", "arcsin", "arctan", "asin", "asinh", "atan", "atan2", "atanh", "bernoulli",
      "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bool", "byte", "ceil", "celu",
      "char", "clamp", "clamp_max", "clamp_min", "clip", "clone", "contiguous", "copysign", "cos",
      "cosh", "cpu", "cuda", "deg2rad", "detach", "div", "divide", "double", "dropout", "elu",
      "empty_like", "eq", "erf", "erfc", "erfinv", "exp", "exp2", "expm1", "feature_alpha_dropout",
      "feature_dropout", "float", "float_power", "floor", "floor_divide", "fmax", "fmin", "fmod",
      "frac", "full_like", "ge", "gelu", "greater", "greater_equal", "gt", "half", "hardshrink",
      "hardsigmoid", "hardswish", "hardtanh", "heaviside", "hypot", "int", "isfinite", "isinf",
      "isnan", "le", "leaky_relu", "lerp", "less", "less_equal", "lgamma", "lift_fresh_copy", "log",
      "log10", "log1p", "log2", "log_sigmoid", "logical_and", "logical_not", "logical_or",
      "logical_xor", "logit", "long", "lt", "masked_fill", "maximum", "minimum", "mish", "mul",
      "multiply", "nan_to_num", "native_dropout", "ne", "neg", "negative", "not_equal",
      "ones_like", "positive", "pow", "prelu", "rad2deg", "rand_like", "randn_like", "reciprocal",
      "relu", "relu6", "remainder", "round", "rrelu", "rsqrt", "rsub", "selu", "short", "sigmoid",
      "sign", "sgn", "silu", "sin", "sinc", "sinh", "softplus", "softshrink", "sqrt", "square",
      "sub", "subtract", "tan", "tanh", "tanhshrink", "threshold", "to", "_to_copy", "to_dense", "to_mkldnn", "true_divide",
      "trunc", "type_as", "where", "xlogy", "zeros_like", "expand", "expand_as", "broadcast_to",
      "max", "min",  // max.other, min.other (the dim overloads go to dim_ops)
  };
  return *ops;
}

// Operators that keep every dimension as one of its own, or pad, tile or
// drop size-1 ones: the result keeps samples apart wherever it still has the
// batch as a dimension of its own, with the rows as its size.
const absl::flat_hash_set<std::string>& layout_ops() {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "permute", "transpose", "t", "numpy_T", "swapaxes", "swapdims", "movedim", "moveaxis",
      "squeeze", "unsqueeze", "repeat", "tile", "constant_pad_nd", "pad", "reflection_pad1d",
      "reflection_pad2d", "reflection_pad3d", "replication_pad1d", "replication_pad2d",
      "replication_pad3d", "adjoint", "mT", "matrix_H",
  };
  return *ops;
}

const absl::flat_hash_set<std::string>& reshape_ops() {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "view", "reshape", "_unsafe_view", "flatten", "unflatten", "view_as", "reshape_as",
      "_reshape_alias",
  };
  return *ops;
}

// Operators along dims given by one parameter, and what they do along it.
struct DimOp {
  const char* param;
  const char* verb;
};
const absl::flat_hash_map<std::string, DimOp>& dim_ops() {
  static const auto* ops = new absl::flat_hash_map<std::string, DimOp>{
      {"sum", {"dim", "sums over"}}, {"nansum", {"dim", "sums over"}},
      {"mean", {"dim", "averages over"}}, {"nanmean", {"dim", "averages over"}},
      {"prod", {"dim", "multiplies over"}}, {"amax", {"dim", "reduces over"}},
      {"amin", {"dim", "reduces over"}}, {"max", {"dim", "reduces over"}},
      {"min", {"dim", "reduces over"}}, {"argmax", {"dim", "reduces over"}},
      {"argmin", {"dim", "reduces over"}}, {"aminmax", {"dim", "reduces over"}},
      {"std", {"dim", "reduces over"}}, {"var", {"dim", "reduces over"}},
      {"std_mean", {"dim", "reduces over"}}, {"var_mean", {"dim", "reduces over"}},
      {"norm", {"dim", "reduces over"}}, {"linalg_vector_norm", {"dim", "reduces over"}},
      {"logsumexp", {"dim", "reduces over"}}, {"all", {"dim", "reduces over"}},
      {"any", {"dim", "reduces over"}}, {"count_nonzero", {"dim", "reduces over"}},
      {"median", {"dim", "reduces over"}}, {"nanmedian", {"dim", "reduces over"}},
      {"mode", {"dim", "reduces over"}}, {"kthvalue", {"dim", "reduces over"}},
      {"softmax", {"dim", "normalises over"}}, {"log_softmax", {"dim", "normalises over"}},
      {"_softmax", {"dim", "normalises over"}}, {"_log_softmax", {"dim", "normalises over"}},
      {"softmin", {"dim", "normalises over"}}, {"cumsum", {"dim", "accumulates along"}},
      {"cumprod", {"dim", "accumulates along"}}, {"cummax", {"dim", "accumulates along"}},
      {"cummin", {"dim", "accumulates along"}}, {"logcumsumexp", {"dim", "accumulates along"}},
      {"sort", {"dim", "sorts along"}}, {"argsort", {"dim", "sorts along"}},
      {"topk", {"dim", "sorts along"}}, {"flip", {"dims", "reverses"}},
      {"roll", {"dims", "rolls"}}, {"glu", {"dim", "halves"}}, {"diff", {"dim", "differences along"}},
      {"split", {"dim", "splits"}}, {"split_with_sizes", {"dim", "splits"}},
      {"unsafe_split", {"dim", "splits"}}, {"chunk", {"dim", "splits"}},
      {"unsafe_chunk", {"dim", "splits"}}, {"tensor_split", {"dim", "splits"}},
      {"unbind", {"dim", "unbinds"}}, {"narrow", {"dim", "indexes across"}},
      {"select", {"dim", "indexes across"}}, {"slice", {"dim", "indexes across"}},
      {"index_select", {"dim", "indexes across"}}, {"gather", {"dim", "indexes across"}},
      {"unfold", {"dimension", "unfolds"}}, {"renorm", {"dim", "normalises over"}},
  };
  return *ops;
}

// Parameters that may take the batch's row count (shapes).
bool takes_sizes(const std::string& op, const std::string& param) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "view", "reshape", "_unsafe_view", "expand", "broadcast_to", "zeros", "ones", "empty",
      "full", "rand", "randn", "new_zeros", "new_ones", "new_empty", "new_full", "unflatten",
      "_reshape_alias"};
  if (op == "native_group_norm") return param == "N";
  return ops->contains(op) && (param == "size" || param == "shape" || param == "sizes");
}

// Operators whose result is made from the sizes alone (constant-filled or
// random per element): with the rows in a size, batched.
const absl::flat_hash_set<std::string>& filled_ops() {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "zeros", "ones", "empty", "full", "rand", "randn", "new_zeros", "new_ones", "new_empty",
      "new_full"};
  return *ops;
}

// Operators that read a tensor's metadata only.
const absl::flat_hash_set<std::string>& metadata_ops() {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "size", "sym_size", "dim", "numel", "sym_numel", "stride", "sym_stride", "len", "shape",
      "dtype", "device", "layout", "is_floating_point", "is_complex", "requires_grad", "ndim",
      "is_cuda", "is_contiguous"};
  return *ops;
}

// torch.nn's leaf modules, by class name.
enum class ModuleKind { kPointwise, kLayout, kReshape, kSampleWise, kLinear, kLast, kEmbedding,
                        kSoftmax, kSpatial };
std::optional<std::pair<ModuleKind, int>> module_kind(const std::string& name) {
  static const auto* kinds = new absl::flat_hash_map<std::string, std::pair<ModuleKind, int>>{
      {"ReLU", {ModuleKind::kPointwise, 0}}, {"ReLU6", {ModuleKind::kPointwise, 0}},
      {"LeakyReLU", {ModuleKind::kPointwise, 0}}, {"ELU", {ModuleKind::kPointwise, 0}},
      {"SELU", {ModuleKind::kPointwise, 0}}, {"CELU", {ModuleKind::kPointwise, 0}},
      {"GELU", {ModuleKind::kPointwise, 0}}, {"SiLU", {ModuleKind::kPointwise, 0}},
      {"Mish", {ModuleKind::kPointwise, 0}}, {"Sigmoid", {ModuleKind::kPointwise, 0}},
      {"Tanh", {ModuleKind::kPointwise, 0}}, {"Hardswish", {ModuleKind::kPointwise, 0}},
      {"Hardsigmoid", {ModuleKind::kPointwise, 0}}, {"Hardtanh", {ModuleKind::kPointwise, 0}},
      {"Softplus", {ModuleKind::kPointwise, 0}}, {"Softsign", {ModuleKind::kPointwise, 0}},
      {"Tanhshrink", {ModuleKind::kPointwise, 0}}, {"Hardshrink", {ModuleKind::kPointwise, 0}},
      {"Softshrink", {ModuleKind::kPointwise, 0}}, {"LogSigmoid", {ModuleKind::kPointwise, 0}},
      {"Threshold", {ModuleKind::kPointwise, 0}}, {"Dropout", {ModuleKind::kPointwise, 0}},
      {"AlphaDropout", {ModuleKind::kPointwise, 0}},
      {"FeatureAlphaDropout", {ModuleKind::kPointwise, 0}},
      {"Identity", {ModuleKind::kLayout, 0}}, {"ZeroPad1d", {ModuleKind::kLayout, 0}},
      {"ZeroPad2d", {ModuleKind::kLayout, 0}}, {"ZeroPad3d", {ModuleKind::kLayout, 0}},
      {"ConstantPad1d", {ModuleKind::kLayout, 0}}, {"ConstantPad2d", {ModuleKind::kLayout, 0}},
      {"ConstantPad3d", {ModuleKind::kLayout, 0}}, {"ReflectionPad1d", {ModuleKind::kLayout, 0}},
      {"ReflectionPad2d", {ModuleKind::kLayout, 0}}, {"ReflectionPad3d", {ModuleKind::kLayout, 0}},
      {"ReplicationPad1d", {ModuleKind::kLayout, 0}},
      {"ReplicationPad2d", {ModuleKind::kLayout, 0}},
      {"ReplicationPad3d", {ModuleKind::kLayout, 0}},
      {"Flatten", {ModuleKind::kReshape, 0}}, {"Unflatten", {ModuleKind::kReshape, 0}},
      // Dropout1d/2d/3d zero whole channels of a sample: the batch in dim 0.
      {"Dropout1d", {ModuleKind::kSampleWise, 0}}, {"Dropout2d", {ModuleKind::kSampleWise, 0}},
      {"Dropout3d", {ModuleKind::kSampleWise, 0}},
      {"Conv1d", {ModuleKind::kSampleWise, 1}}, {"Conv2d", {ModuleKind::kSampleWise, 2}},
      {"Conv3d", {ModuleKind::kSampleWise, 3}}, {"ConvTranspose1d", {ModuleKind::kSampleWise, 1}},
      {"ConvTranspose2d", {ModuleKind::kSampleWise, 2}},
      {"ConvTranspose3d", {ModuleKind::kSampleWise, 3}},
      {"BatchNorm1d", {ModuleKind::kSampleWise, 0}}, {"BatchNorm2d", {ModuleKind::kSampleWise, 0}},
      {"BatchNorm3d", {ModuleKind::kSampleWise, 0}}, {"SyncBatchNorm", {ModuleKind::kSampleWise, 0}},
      {"InstanceNorm1d", {ModuleKind::kSampleWise, 0}},
      {"InstanceNorm2d", {ModuleKind::kSampleWise, 0}},
      {"InstanceNorm3d", {ModuleKind::kSampleWise, 0}}, {"GroupNorm", {ModuleKind::kSampleWise, 0}},
      {"LocalResponseNorm", {ModuleKind::kSampleWise, 0}},
      {"Linear", {ModuleKind::kLinear, 0}}, {"LayerNorm", {ModuleKind::kLast, 0}},
      {"Embedding", {ModuleKind::kEmbedding, 0}}, {"Softmax", {ModuleKind::kSoftmax, 0}},
      {"LogSoftmax", {ModuleKind::kSoftmax, 0}}, {"Softmin", {ModuleKind::kSoftmax, 0}},
      {"MaxPool1d", {ModuleKind::kSpatial, 1}}, {"MaxPool2d", {ModuleKind::kSpatial, 2}},
      {"MaxPool3d", {ModuleKind::kSpatial, 3}}, {"AvgPool1d", {ModuleKind::kSpatial, 1}},
      {"AvgPool2d", {ModuleKind::kSpatial, 2}}, {"AvgPool3d", {ModuleKind::kSpatial, 3}},
      {"AdaptiveAvgPool1d", {ModuleKind::kSpatial, 1}},
      {"AdaptiveAvgPool2d", {ModuleKind::kSpatial, 2}},
      {"AdaptiveAvgPool3d", {ModuleKind::kSpatial, 3}},
      {"AdaptiveMaxPool1d", {ModuleKind::kSpatial, 1}},
      {"AdaptiveMaxPool2d", {ModuleKind::kSpatial, 2}},
      {"AdaptiveMaxPool3d", {ModuleKind::kSpatial, 3}}, {"LPPool1d", {ModuleKind::kSpatial, 1}},
      {"LPPool2d", {ModuleKind::kSpatial, 2}}, {"PixelShuffle", {ModuleKind::kSpatial, 3}},
      {"PixelUnshuffle", {ModuleKind::kSpatial, 3}},
  };
  auto it = kinds->find(name);
  if (it == kinds->end()) return std::nullopt;
  return it->second;
}

// "aten::flatten.using_ints" -> "flatten"; other namespaces keep theirs.
std::string short_name(absl::string_view base) {
  if (!absl::ConsumePrefix(&base, "aten::")) absl::ConsumePrefix(&base, "prim::");
  return std::string(base);
}

// The trailing digit of a name ("max_pool2d" -> 2), or 0.
int spatial_dims_of(absl::string_view name) {
  for (int k = 3; k >= 1; --k) {
    if (absl::StrContains(name, absl::StrCat(k, "d"))) return k;
  }
  return 0;
}

// ---- the analysis ----------------------------------------------------------

class Analysis {
 public:
  Analysis(const Records& whole, const Records& micro) : whole_(whole), micro_(micro) {}

  // The Carried of `gm`'s output, its placeholders carrying `inputs`.
  Carried run_graph(const GraphModule& gm, const std::vector<Carried>& inputs) {
    size_t next_input = 0;
    Carried result;
    for (const Node* n : gm.graph().nodes()) {
      Carried c;
      switch (n->op()) {
        case Op::kPlaceholder:
          c = next_input < inputs.size() ? inputs[next_input] : Carried();
          ++next_input;
          break;
        case Op::kGetAttr:
          break;  // state: free of the batch
        case Op::kOutput:
          result = n->args().empty() ? Carried() : of(n->args()[0]);
          break;
        default:
          c = visit(gm, *n);
          break;
      }
      state_[n] = std::move(c);
    }
    return result;
  }

  // Set when an in-place operator wrote batched or mixed values where later
  // readers cannot tell: every output is then refused with it.
  const std::string& tainted() const { return tainted_; }

  Carried of(const Argument& a) const {
    if (a.is_node()) {
      auto it = state_.find(a.to_node());
      return it == state_.end() ? Carried() : it->second;
    }
    if (a.is_sequence() || a.is_dict()) {
      Carried c;
      c.kind = Carried::Kind::kItems;
      if (a.is_dict()) {
        for (const auto& [key, value] : a.dict_items()) {
          c.keys.push_back(key);
          c.items.push_back(of(value));
        }
      } else {
        for (const Argument& item : a.elements()) c.items.push_back(of(item));
      }
      return c;
    }
    return Carried();
  }

 private:
  const c10::IValue* whole(const Node& n) const {
    auto it = whole_.find(&n);
    return it == whole_.end() ? nullptr : &it->second;
  }
  const c10::IValue* micro(const Node& n) const {
    auto it = micro_.find(&n);
    return it == micro_.end() ? nullptr : &it->second;
  }

  static std::string shown(const Node& n, const GraphModule& gm) {
    if (n.op() == Op::kCallModule) {
      auto sub = gm.get_submodule(n.target());
      return absl::StrCat("node '", n.name(), "' (module ", n.target(),
                          sub.ok() ? absl::StrCat(", ", (*sub)->class_name()) : std::string(), ")");
    }
    if (n.op() == Op::kCallMethod) return absl::StrCat("node '", n.name(), "' (method ", n.target(), ")");
    return absl::StrCat("node '", n.name(), "' (", n.target(), ")");
  }

  Carried mixes(const GraphModule& gm, const Node& n, const std::string& how) const {
    return Carried::mixed(absl::StrCat(shown(n, gm), " ", how));
  }

  // The Carried of each leaf of the node's value, learnt from its sizes at
  // both batch sizes; or why it has no batch dimension of its own.
  std::optional<Carried> from_shapes(const c10::IValue& w, const c10::IValue& m, std::string* why) const {
    if (w.isTensor() && m.isTensor()) {
      const at::Tensor& a = w.toTensor();
      const at::Tensor& b = m.toTensor();
      if (a.dim() != b.dim()) {
        *why = absl::StrCat("gives ", describe(a), " at the whole batch and ", describe(b),
                            " at a micro-batch: the batch dimension is dropped");
        return std::nullopt;
      }
      std::vector<int64_t> changed;
      for (int64_t d = 0; d < a.dim(); ++d) {
        if (a.size(d) != b.size(d)) changed.push_back(d);
      }
      if (changed.empty()) {
        if (a.numel() == 0) return Carried();
        *why = absl::StrCat("gives ", describe(a), " at both batch sizes: no dimension of it is the "
                            "batch");
        return std::nullopt;
      }
      if (changed.size() != 1 || a.size(changed[0]) != rows_ || b.size(changed[0]) != micro_rows_) {
        *why = absl::StrCat("gives ", describe(a), " at the whole batch of ", rows_, " rows and ",
                            describe(b), " at a micro-batch of ", micro_rows_,
                            ": no dimension of it is the batch alone");
        return std::nullopt;
      }
      return Carried::batch(changed[0], a.dim());
    }
    if ((w.isTuple() && m.isTuple()) || (w.isList() && m.isList())) {
      const std::vector<c10::IValue> wi = w.isTuple() ? w.toTupleRef().elements().vec() : w.toListRef().vec();
      const std::vector<c10::IValue> mi = m.isTuple() ? m.toTupleRef().elements().vec() : m.toListRef().vec();
      if (wi.size() != mi.size()) {
        *why = "gives a sequence whose length depends on the batch";
        return std::nullopt;
      }
      Carried c;
      c.kind = Carried::Kind::kItems;
      for (size_t i = 0; i < wi.size(); ++i) {
        auto item = from_shapes(wi[i], mi[i], why);
        if (!item) return std::nullopt;
        c.items.push_back(*std::move(item));
      }
      return c;
    }
    if (w.isTensor() || m.isTensor()) {
      *why = "gives a tensor at one batch size only";
      return std::nullopt;
    }
    return Carried();  // None, a scalar: no tensor to carry the batch
  }

  // The node's result from its shapes, or the node mixing with `how`.
  Carried result(const GraphModule& gm, const Node& n, const std::string& how = "") const {
    const c10::IValue* w = whole(n);
    const c10::IValue* m = micro(n);
    if (w == nullptr || m == nullptr) return mixes(gm, n, "did not run at both batch sizes");
    std::string why;
    std::optional<Carried> c = from_shapes(*w, *m, &why);
    if (!c) return mixes(gm, n, how.empty() ? why : absl::StrCat(how, ": it ", why));
    return *c;
  }

  // The rank of the value an argument holds in the whole batch's run.
  int64_t rank_of(const Argument* a) const {
    if (a == nullptr || !a->is_node()) return -1;
    const c10::IValue* w = whole(*a->to_node());
    return w != nullptr && w->isTensor() ? w->toTensor().dim() : -1;
  }
  std::optional<at::Tensor> tensor_of(const Argument* a, bool whole_run) const {
    if (a == nullptr || !a->is_node()) return std::nullopt;
    const c10::IValue* v = whole_run ? whole(*a->to_node()) : micro(*a->to_node());
    if (v == nullptr || !v->isTensor()) return std::nullopt;
    return v->toTensor();
  }
  // An int argument: a literal, or a node's value (the same at both sizes).
  std::optional<int64_t> int_of(const Argument& a) const {
    if (a.is_int()) return a.to_int();
    if (a.is_node()) {
      const c10::IValue* w = whole(*a.to_node());
      const c10::IValue* m = micro(*a.to_node());
      if (w != nullptr && m != nullptr && w->isInt() && m->isInt() && w->toInt() == m->toInt()) {
        return w->toInt();
      }
    }
    return std::nullopt;
  }

  static std::string operand_name(const Argument* a) {
    return a != nullptr && a->is_node() ? absl::StrCat("'", a->to_node()->name(), "'") : "its operand";
  }

  // Dims a parameter names, normalised: nullopt where it names every dim (None,
  // [], absent) or cannot be read (`*readable` false).
  std::optional<std::vector<int64_t>> dims_of(const BoundCall& call, const char* param, int64_t rank,
                                              bool* readable) const {
    *readable = true;
    std::vector<int64_t> dims;
    const Argument* a = call.arg(param);
    if (call.index_of(param) >= call.given.size()) return std::nullopt;  // no such parameter: all
    if (a != nullptr) {
      if (a->is_none()) return std::nullopt;
      if (a->is_sequence()) {
        for (const Argument& e : a->elements()) {
          auto d = int_of(e);
          if (!d) {
            *readable = false;
            return std::nullopt;
          }
          dims.push_back(*d);
        }
      } else if (auto d = int_of(*a)) {
        dims.push_back(*d);
      } else {
        *readable = false;
        return std::nullopt;
      }
    } else if (const c10::IValue* d = call.default_of(param)) {
      if (d->isInt()) {
        dims.push_back(d->toInt());
      } else if (d->isIntList()) {
        dims = d->toIntVector();
      } else {
        return std::nullopt;  // None
      }
    } else {
      return std::nullopt;
    }
    if (dims.empty()) return std::nullopt;
    for (int64_t& d : dims) {
      if (rank > 0) d = ((d % rank) + rank) % rank;
    }
    return dims;
  }

  // The operands (tensor-valued arguments, by parameter) of a bound call.
  struct Operand {
    std::string param;
    const Argument* arg;
    Carried carried;
  };

  Carried visit(const GraphModule& gm, const Node& n) {
    // An item of a tuple is read before what its other items carry.
    if (n.op() == Op::kCallFunction && n.target() == kGetItemTarget) {
      if (whole(n) == nullptr) return mixes(gm, n, "did not run at both batch sizes");
      return visit_getitem(gm, n);
    }
    std::vector<Carried> held;
    for (const Argument& a : n.args()) held.push_back(of(a));
    for (const auto& kv : n.kwargs()) held.push_back(of(kv.second));
    std::vector<const Carried*> leaves;
    for (const Carried& c : held) leaves_of(c, leaves);
    for (const Carried* c : leaves) {
      if (c->is_mixed()) return *c;
    }
    if (std::all_of(leaves.begin(), leaves.end(), [](const Carried* c) { return c->free(); })) {
      return Carried();  // nothing of the batch reaches it
    }
    if (n.op() == Op::kCallModule) {
      if (const GraphModule* sub = gm.graph_submodule(n.target())) {
        if (!n.kwargs().empty()) return mixes(gm, n, "takes keywords, which the analysis does not follow");
        std::vector<Carried> inputs;
        for (const Argument& a : n.args()) inputs.push_back(of(a));
        return run_graph(*sub, inputs);
      }
      return visit_module(gm, n);
    }
    const bool any_tensor_batched = std::any_of(leaves.begin(), leaves.end(), [](const Carried* c) { return c->batched(); });
    const c10::IValue* w = whole(n);
    if (w == nullptr) return mixes(gm, n, "did not run at both batch sizes");
    // Python's operators on sizes (operator.getitem of a tuple is read below).
    const bool getitem = n.op() == Op::kCallFunction && n.target() == kGetItemTarget;
    if (getitem) return visit_getitem(gm, n);
    std::optional<NormalizedCall> normalized = normalize_call(gm, n);
    std::string op;
    if (normalized) {
      op = short_name(normalized->base_name());
    } else if (n.op() == Op::kCallMethod) {
      op = n.target();
    } else {
      absl::string_view t = n.target();
      if (absl::ConsumePrefix(&t, "torch.nn.functional.") || absl::ConsumePrefix(&t, "torch.") ||
          absl::ConsumePrefix(&t, "aten::")) {
        op = std::string(t.substr(0, t.find('.')));
      } else if (absl::StartsWith(t, "getattr")) {
        op = "getattr";
      }
    }
    const bool all_tensor_free = !any_tensor_batched;
    // Metadata of a batched tensor: free where equal at both sizes.
    if (metadata_ops().contains(op) || op == "getattr") {
      const c10::IValue* m = micro(n);
      if (m == nullptr) return mixes(gm, n, "did not run at both batch sizes");
      return sizes_of(*w, *m);
    }
    // Values that are not tensors, computed from sizes (B * T, B // 2).
    if (!holds_tensor(*w) && all_tensor_free) return Carried::size();
    const bool in_place = absl::EndsWith(op, "_") && !absl::EndsWith(op, "__");
    std::string base = op;
    if (in_place) base.pop_back();
    Carried out;
    if (!normalized) {
      out = visit_unbound(gm, n, base, leaves);
    } else {
      out = visit_call(gm, n, base, normalized->call);
    }
    if (in_place && !out.free()) {
      // The write lands in args[0] and whatever aliases it.
      Carried self = n.args().empty() ? Carried() : of(n.args()[0]);
      if (out.is_mixed() || !self.batched()) {
        if (tainted_.empty()) {
          tainted_ = out.is_mixed() ? out.why
                                    : absl::StrCat(shown(n, gm), " writes values of the batch into ",
                                                   "a tensor that does not carry it");
        }
      }
    }
    return out;
  }

  Carried sizes_of(const c10::IValue& w, const c10::IValue& m) const {
    if ((w.isTuple() || w.isList()) && (m.isTuple() || m.isList())) {
      const std::vector<c10::IValue> wi = w.isTuple() ? w.toTupleRef().elements().vec() : w.toListRef().vec();
      const std::vector<c10::IValue> mi = m.isTuple() ? m.toTupleRef().elements().vec() : m.toListRef().vec();
      if (wi.size() == mi.size()) {
        Carried c;
        c.kind = Carried::Kind::kItems;
        for (size_t i = 0; i < wi.size(); ++i) c.items.push_back(sizes_of(wi[i], mi[i]));
        return c;
      }
      return Carried::size();
    }
    try {
      if (w == m) return Carried();
    } catch (const std::exception&) {
    }
    return Carried::size();
  }

  Carried visit_getitem(const GraphModule& gm, const Node& n) {
    if (n.args().size() != 2) return mixes(gm, n, "is an indexing the analysis does not read");
    Carried from = of(n.args()[0]);
    std::optional<int64_t> index = int_of(n.args()[1]);
    const Argument& key = n.args()[1];
    if (from.kind == Carried::Kind::kItems) {
      if (!from.keys.empty() && key.is_string()) {
        for (size_t i = 0; i < from.keys.size(); ++i) {
          if (from.keys[i] == key.to_string()) return from.items[i];
        }
      }
      if (index && from.keys.empty()) {
        const int64_t size = static_cast<int64_t>(from.items.size());
        const int64_t i = *index < 0 ? *index + size : *index;
        if (i >= 0 && i < size) return from.items[i];
      }
      return mixes(gm, n, "indexes a sequence in a way the analysis does not read");
    }
    if (from.kind == Carried::Kind::kSize) return Carried::size();
    if (from.batched()) {
      // A tensor indexed by an int: its dim 0.
      if (index && from.dim == 0) {
        return mixes(gm, n, absl::StrCat("indexes across the batch (dim 0 of ", operand_name(&n.args()[0]), ")"));
      }
      if (index) return result(gm, n);
      return mixes(gm, n, "indexes a batched tensor in a way the analysis does not read");
    }
    // Free sequence indexed by a size of the batch.
    if (!of(key).free()) return mixes(gm, n, "indexes with a value that depends on the batch");
    return Carried();
  }

  // A call the operator registry could not bind: only operators whose
  // parameters do not matter.
  Carried visit_unbound(const GraphModule& gm, const Node& n, const std::string& op,
                        const std::vector<const Carried*>& leaves) {
    // x.view(rows, -1) as a method of varargs: the sizes may hold the rows.
    if (reshape_ops().contains(op) && !n.args().empty() && n.kwargs().empty()) {
      if (of(n.args()[0]).kind == Carried::Kind::kSize) return mixes(gm, n, "uses the batch size as a value");
      return reshape(gm, n, &n.args()[0]);
    }
    for (const Carried* c : leaves) {
      if (c->kind == Carried::Kind::kSize) {
        return mixes(gm, n, "uses the batch size as a value");
      }
    }
    if (pointwise_ops().contains(op) && op != "max" && op != "min" && op != "expand") {
      std::vector<Operand> operands;
      for (const Argument& a : n.args()) operands.push_back({"", &a, of(a)});
      for (const auto& kv : n.kwargs()) operands.push_back({kv.first, &kv.second, of(kv.second)});
      return pointwise(gm, n, operands);
    }
    if (layout_ops().contains(op)) return layout(gm, n, n.args().empty() ? nullptr : &n.args()[0]);
    return mixes(gm, n, "is an operator the analysis does not know to keep samples apart");
  }

  // The pointwise rule: every batched operand's batch dim is the result's,
  // aligned from the right as broadcasting aligns them.
  Carried pointwise(const GraphModule& gm, const Node& n, const std::vector<Operand>& operands) {
    Carried out = result(gm, n);
    if (out.is_mixed()) return out;
    std::vector<const Carried*> outs;
    leaves_of(out, outs);
    for (const Operand& o : operands) {
      std::vector<const Carried*> in;
      leaves_of(o.carried, in);
      for (const Carried* c : in) {
        if (!c->batched()) continue;
        for (const Carried* r : outs) {
          if (!r->batched() || c->dim + (r->rank - c->rank) != r->dim) {
            return mixes(gm, n, absl::StrCat("broadcasts the batch dimension of ", operand_name(o.arg),
                                             " (its dim ", c->dim, ") against another dimension"));
          }
        }
      }
    }
    return out;
  }

  // Layout operators: sound wherever the result keeps the batch dim whole.
  Carried layout(const GraphModule& gm, const Node& n, const Argument* self) {
    return result(gm, n, absl::StrCat("rearranges ", operand_name(self)));
  }

  // Reshapes: the batch dimension whole, with the same elements before it.
  Carried reshape(const GraphModule& gm, const Node& n, const Argument* self) {
    Carried in = self != nullptr ? of(*self) : Carried();
    std::optional<at::Tensor> wi = tensor_of(self, true), mi = tensor_of(self, false);
    if (!in.batched() || !wi || !mi) {
      return mixes(gm, n, "reshapes a value whose batch dimension the analysis does not know");
    }
    const std::string how = absl::StrCat("reshapes ", operand_name(self), " (", describe(*wi),
                                         ", the batch in dim ", in.dim,
                                         ") so that the batch dimension is merged with another");
    Carried out = result(gm, n, how);
    if (out.is_mixed()) return out;
    const c10::IValue* wo = whole(n);
    const c10::IValue* mo = micro(n);
    if (!out.batched() || !wo->isTensor() || !mo->isTensor() ||
        product(wi->sizes(), in.dim) != product(wo->toTensor().sizes(), out.dim) ||
        product(mi->sizes(), in.dim) != product(mo->toTensor().sizes(), out.dim)) {
      return mixes(gm, n, absl::StrCat("reshapes ", operand_name(self), " (", describe(*wi),
                                       ", the batch in dim ", in.dim, ") into ", describe(*wo),
                                       ": the rows of the batch no longer hold one sample each"));
    }
    return out;
  }

  Carried visit_call(const GraphModule& gm, const Node& n, const std::string& op, const BoundCall& call) {
    const auto& params = call.schema->arguments();
    std::vector<Operand> operands;
    for (size_t i = 0; i < params.size(); ++i) {
      const Argument* a = call.given[i];
      if (a == nullptr) continue;
      Carried c = of(*a);
      std::vector<const Carried*> leaves;
      leaves_of(c, leaves);
      for (const Carried* l : leaves) {
        if (l->kind == Carried::Kind::kSize && !takes_sizes(op, params[i].name())) {
          return mixes(gm, n, absl::StrCat("uses the batch size as a value (its argument '",
                                           params[i].name(), "')"));
        }
      }
      operands.push_back({params[i].name(), a, std::move(c)});
    }
    auto operand = [&](const char* name) -> const Operand* {
      for (const Operand& o : operands) {
        if (o.param == name) return &o;
      }
      return nullptr;
    };
    auto carried = [&](const char* name) { const Operand* o = operand(name); return o ? o->carried : Carried(); };
    // Every operand but `except` free of the batch.
    auto others_free = [&](std::initializer_list<const char*> except, std::string* which) {
      for (const Operand& o : operands) {
        bool skip = false;
        for (const char* e : except) skip = skip || o.param == e;
        if (skip) continue;
        std::vector<const Carried*> leaves;
        leaves_of(o.carried, leaves);
        for (const Carried* l : leaves) {
          if (!l->free()) {
            *which = o.param;
            return false;
          }
        }
      }
      return true;
    };
    const char* self_name = operand("self") ? "self" : "input";
    const Operand* self = operand(self_name);
    const Carried self_c = self ? self->carried : Carried();
    std::string which;

    if (filled_ops().contains(op)) {
      if (!others_free({"size", "self"}, &which)) {
        return mixes(gm, n, absl::StrCat("fills a tensor with '", which, "', which depends on the batch"));
      }
      return result(gm, n);
    }
    if (dim_ops().contains(op) && !(op == "max" || op == "min") ) return dim_op(gm, n, op, call, operands);
    if (op == "max" || op == "min") {
      if (call.index_of("other") < params.size()) return pointwise(gm, n, operands);
      return dim_op(gm, n, op, call, operands);
    }
    if (pointwise_ops().contains(op)) return pointwise(gm, n, operands);
    if (layout_ops().contains(op)) {
      if (!others_free({self_name}, &which)) {
        return mixes(gm, n, absl::StrCat("takes '", which, "' from the batch"));
      }
      return layout(gm, n, self ? self->arg : nullptr);
    }
    if (reshape_ops().contains(op)) return reshape(gm, n, self ? self->arg : nullptr);
    if (op == "cat" || op == "concat" || op == "concatenate" || op == "stack") {
      return join(gm, n, op, call, operands);
    }
    if (op == "mm" || op == "bmm" || op == "matmul" || op == "mv" || op == "dot" || op == "vdot" ||
        op == "outer" || op == "ger" || op == "linear" || op == "addmm" || op == "addmv" ||
        op == "baddbmm" || op == "addbmm" || op == "addr" || op == "einsum") {
      return contraction(gm, n, op, call, operands);
    }
    if (absl::StartsWith(op, "conv") || op == "convolution" || op == "_convolution") {
      if (!others_free({"input"}, &which)) {
        return mixes(gm, n, absl::StrCat("convolves with '", which, "', which depends on the batch"));
      }
      const Carried in = carried("input");
      const int64_t weight_rank = rank_of(call.arg("weight"));
      if (!in.batched() || in.dim != 0 || in.rank != weight_rank) {
        return mixes(gm, n, absl::StrCat("convolves across the batch (dim ", in.dim, " of ",
                                         operand_name(call.arg("input")), ")"));
      }
      return result(gm, n);
    }
    if (op == "batch_norm" || op == "native_batch_norm" || op == "_native_batch_norm_legit" ||
        op == "_native_batch_norm_legit_no_training" || op == "instance_norm") {
      if (op != "_native_batch_norm_legit_no_training" && op != "instance_norm") {
        std::optional<bool> training = call.boolean("training");
        if (!training || *training) {
          return mixes(gm, n, "normalises with statistics of the whole batch (batch norm in training mode)");
        }
      }
      if (!others_free({"input"}, &which)) {
        return mixes(gm, n, absl::StrCat("normalises with '", which, "', which depends on the batch"));
      }
      const Carried in = carried("input");
      if (!in.batched() || in.dim != 0) {
        return mixes(gm, n, absl::StrCat("normalises across the batch (dim ", in.dim, " of ",
                                         operand_name(call.arg("input")), ")"));
      }
      return result(gm, n);
    }
    if (op == "layer_norm" || op == "native_layer_norm") {
      if (!others_free({"input"}, &which)) {
        return mixes(gm, n, absl::StrCat("normalises with '", which, "', which depends on the batch"));
      }
      const Carried in = carried("input");
      auto shape = call.ints("normalized_shape", 1);
      if (!in.batched() || !shape || in.dim >= in.rank - static_cast<int64_t>(shape->size())) {
        return mixes(gm, n, absl::StrCat("normalises over the batch dimension of ",
                                         operand_name(call.arg("input"))));
      }
      return result(gm, n);
    }
    if (op == "group_norm" || op == "native_group_norm") {
      if (!others_free({"input", "N"}, &which)) {
        return mixes(gm, n, absl::StrCat("normalises with '", which, "', which depends on the batch"));
      }
      const Carried in = carried("input");
      if (!in.batched() || in.dim != 0) {
        return mixes(gm, n, absl::StrCat("normalises across the batch (dim ", in.dim, " of ",
                                         operand_name(call.arg("input")), ")"));
      }
      return result(gm, n);
    }
    if (op == "embedding") {
      if (!carried("weight").free()) {
        return mixes(gm, n, "looks up a table that depends on the batch");
      }
      return result(gm, n);
    }
    const int spatial = spatial_dims_of(op);
    if ((absl::StrContains(op, "pool") || absl::StartsWith(op, "upsample") ||
         absl::StartsWith(op, "_upsample") || op == "pixel_shuffle" || op == "pixel_unshuffle") &&
        (spatial > 0 || op == "pixel_shuffle" || op == "pixel_unshuffle")) {
      const int k = spatial > 0 ? spatial : 3;
      if (!others_free({self_name}, &which)) {
        return mixes(gm, n, absl::StrCat("takes '", which, "' from the batch"));
      }
      if (!self_c.batched() || self_c.dim >= self_c.rank - k) {
        return mixes(gm, n, absl::StrCat("pools or resamples over the batch dimension of ",
                                         operand_name(self ? self->arg : nullptr)));
      }
      return result(gm, n);
    }
    if (op == "index") {
      // self[indices]: indices free of the batch, none along its dim.
      const Argument* indices = call.arg("indices");
      if (!self_c.batched() || indices == nullptr || !indices->is_sequence()) {
        return mixes(gm, n, "indexes with values that depend on the batch");
      }
      for (size_t i = 0; i < indices->elements().size(); ++i) {
        const Argument& e = indices->elements()[i];
        if (e.is_none()) continue;
        if (!of(e).free()) return mixes(gm, n, "indexes with values that depend on the batch");
        if (static_cast<int64_t>(i) == self_c.dim) {
          return mixes(gm, n, absl::StrCat("indexes across the batch (dim ", self_c.dim, " of ",
                                           operand_name(self->arg), ")"));
        }
      }
      return result(gm, n);
    }
    return mixes(gm, n, "is an operator the analysis does not know to keep samples apart");
  }

  Carried dim_op(const GraphModule& gm, const Node& n, const std::string& op, const BoundCall& call,
                 const std::vector<Operand>& operands) {
    const DimOp& rule = dim_ops().at(op);
    const char* self_name = call.index_of("self") < call.schema->arguments().size() ? "self" : "input";
    const Argument* self_arg = call.arg(self_name);
    Carried self = self_arg ? of(*self_arg) : Carried();
    // A free table looked up by batched indices (an embedding).
    if ((op == "index_select" || op == "gather") && self.free()) {
      return result(gm, n);
    }
    for (const Operand& o : operands) {
      if (o.param == self_name) continue;
      std::vector<const Carried*> leaves;
      leaves_of(o.carried, leaves);
      for (const Carried* l : leaves) {
        if (l->free()) continue;
        if (op == "gather" && o.param == "index" && l->batched() && self.batched() && l->dim == self.dim) {
          continue;
        }
        return mixes(gm, n, absl::StrCat("takes '", o.param, "' from the batch"));
      }
    }
    if (!self.batched()) return mixes(gm, n, "reads a value whose batch dimension the analysis does not know");
    bool readable = true;
    std::optional<std::vector<int64_t>> dims = dims_of(call, rule.param, self.rank, &readable);
    if (!readable) return mixes(gm, n, absl::StrCat("takes a '", rule.param, "' the analysis cannot read"));
    if (!dims) {
      return mixes(gm, n, absl::StrCat(rule.verb, " every dimension of ", operand_name(self_arg),
                                       ", the batch's (dim ", self.dim, ") included"));
    }
    if (std::find(dims->begin(), dims->end(), self.dim) != dims->end()) {
      // A slice of the whole batch is no indexing.
      if (op == "slice") {
        auto start = call.arg("start") ? int_of(*call.arg("start")) : std::optional<int64_t>(0);
        if (call.arg("start") != nullptr && call.arg("start")->is_none()) start = 0;
        auto step = call.arg("step") ? int_of(*call.arg("step")) : std::optional<int64_t>(1);
        Carried out = result(gm, n);
        if (start && *start == 0 && step && *step == 1 && out.batched() && out.dim == self.dim) return out;
      }
      return mixes(gm, n, absl::StrCat(rule.verb, " the batch dimension of ", operand_name(self_arg),
                                       " (its dim ", self.dim, ")"));
    }
    return result(gm, n);
  }

  Carried join(const GraphModule& gm, const Node& n, const std::string& op, const BoundCall& call,
               const std::vector<Operand>& operands) {
    const Argument* tensors = call.arg("tensors");
    if (tensors == nullptr || !tensors->is_sequence()) {
      return mixes(gm, n, "joins values the analysis cannot read");
    }
    std::optional<int64_t> batch_dim, rank;
    for (const Argument& e : tensors->elements()) {
      Carried c = of(e);
      if (!c.batched() || (batch_dim && (*batch_dim != c.dim || *rank != c.rank))) {
        return mixes(gm, n, absl::StrCat("joins ", operand_name(&e),
                                         ", which does not carry the batch as the others do"));
      }
      batch_dim = c.dim;
      rank = c.rank;
    }
    for (const Operand& o : operands) {
      if (o.param != "tensors" && !o.carried.free()) {
        return mixes(gm, n, absl::StrCat("takes '", o.param, "' from the batch"));
      }
    }
    if (!batch_dim) return result(gm, n);
    if (op != "stack") {
      bool readable = true;
      auto dims = dims_of(call, "dim", *rank, &readable);
      if (!dims || dims->size() != 1) return mixes(gm, n, "joins along a dim the analysis cannot read");
      if ((*dims)[0] == *batch_dim) {
        return mixes(gm, n, absl::StrCat("concatenates along the batch dimension (dim ", *batch_dim, ")"));
      }
    }
    return result(gm, n);
  }

  // Contractions read as einsum: each operand's dims as indices.
  Carried contraction(const GraphModule& gm, const Node& n, const std::string& op, const BoundCall& call,
                      const std::vector<Operand>& operands) {
    struct Term {
      const Argument* arg;
      std::vector<int> letters;
    };
    std::vector<Term> terms;
    std::vector<int> out_letters;
    int next = 0;
    auto fresh = [&](int count) {
      std::vector<int> v;
      for (int i = 0; i < count; ++i) v.push_back(next++);
      return v;
    };
    auto cat = [](std::vector<int> a, const std::vector<int>& b) {
      a.insert(a.end(), b.begin(), b.end());
      return a;
    };
    auto arg = [&](const char* name) { return call.arg(name); };
    // The additive term of addmm and kin, right-aligned with the result.
    auto additive = [&](const char* name) {
      const Argument* a = arg(name);
      const int64_t r = rank_of(a);
      if (a == nullptr || r < 0) return;
      if (r > static_cast<int64_t>(out_letters.size())) return;
      terms.push_back({a, std::vector<int>(out_letters.end() - r, out_letters.end())});
    };
    const int i = next++, j = next++, k = next++, b = next++;
    if (op == "mm") {
      terms = {{arg("self"), {i, k}}, {arg("mat2"), {k, j}}};
      out_letters = {i, j};
    } else if (op == "bmm") {
      terms = {{arg("self"), {b, i, k}}, {arg("mat2"), {b, k, j}}};
      out_letters = {b, i, j};
    } else if (op == "mv") {
      terms = {{arg("self"), {i, k}}, {arg("vec"), {k}}};
      out_letters = {i};
    } else if (op == "dot" || op == "vdot") {
      terms = {{arg("self"), {k}}, {arg("tensor"), {k}}};
    } else if (op == "outer" || op == "ger") {
      terms = {{arg("self"), {i}}, {arg("vec2"), {j}}};
      out_letters = {i, j};
    } else if (op == "addmm") {
      terms = {{arg("mat1"), {i, k}}, {arg("mat2"), {k, j}}};
      out_letters = {i, j};
      additive("self");
    } else if (op == "addmv") {
      terms = {{arg("mat"), {i, k}}, {arg("vec"), {k}}};
      out_letters = {i};
      additive("self");
    } else if (op == "addr") {
      terms = {{arg("vec1"), {i}}, {arg("vec2"), {j}}};
      out_letters = {i, j};
      additive("self");
    } else if (op == "baddbmm" || op == "addbmm") {
      terms = {{arg("batch1"), {b, i, k}}, {arg("batch2"), {b, k, j}}};
      out_letters = op == "baddbmm" ? std::vector<int>{b, i, j} : std::vector<int>{i, j};
      additive("self");
    } else if (op == "linear") {
      const int64_t r = rank_of(arg("input"));
      const int64_t wr = rank_of(arg("weight"));
      if (r < 1 || wr < 1 || wr > 2) return mixes(gm, n, "is a linear map the analysis cannot read");
      const std::vector<int> lead = fresh(static_cast<int>(r - 1));
      terms = {{arg("input"), cat(lead, {k})}, {arg("weight"), wr == 2 ? std::vector<int>{j, k} : std::vector<int>{k}}};
      out_letters = wr == 2 ? cat(lead, {j}) : lead;
      if (!call.is_none("bias")) additive("bias");
    } else if (op == "matmul") {
      const int64_t ra = rank_of(arg("self"));
      const int64_t rb = rank_of(arg("other"));
      if (ra < 1 || rb < 1) return mixes(gm, n, "is a product the analysis cannot read");
      const int64_t batch = std::max<int64_t>(std::max<int64_t>(ra, rb) - 2, 0);
      const std::vector<int> batch_letters = fresh(static_cast<int>(batch));
      auto lead = [&](int64_t r) {
        const int64_t own = std::max<int64_t>(r - 2, 0);
        return std::vector<int>(batch_letters.end() - own, batch_letters.end());
      };
      std::vector<int> la = ra == 1 ? std::vector<int>{k} : cat(lead(ra), {i, k});
      std::vector<int> lb = rb == 1 ? std::vector<int>{k} : cat(lead(rb), {k, j});
      terms = {{arg("self"), la}, {arg("other"), lb}};
      out_letters = batch_letters;
      if (ra > 1) out_letters.push_back(i);
      if (rb > 1) out_letters.push_back(j);
    } else if (op == "einsum") {
      const Argument* eq = arg("equation");
      const Argument* tensors = arg("tensors");
      if (eq == nullptr || !eq->is_string() || tensors == nullptr || !tensors->is_sequence()) {
        return mixes(gm, n, "is an einsum the analysis cannot read");
      }
      std::vector<int64_t> ranks;
      for (const Argument& t : tensors->elements()) ranks.push_back(rank_of(&t));
      std::vector<std::vector<int>> parsed;
      if (!parse_einsum(eq->to_string(), ranks, &parsed, &out_letters)) {
        return mixes(gm, n, "is an einsum the analysis cannot read");
      }
      terms.clear();
      for (size_t t = 0; t < parsed.size(); ++t) terms.push_back({&tensors->elements()[t], parsed[t]});
    }
    // Every operand read: any other that depends on the batch is unread.
    for (const Operand& o : operands) {
      bool read = false;
      for (const Term& t : terms) read = read || t.arg == o.arg;
      if (o.param == "equation" || o.param == "tensors") read = true;
      if (!read && !o.carried.free()) return mixes(gm, n, absl::StrCat("takes '", o.param, "' from the batch"));
    }
    std::optional<int> batch_letter;
    const Argument* batch_arg = nullptr;
    int64_t batch_dim = 0;
    for (const Term& t : terms) {
      if (t.arg == nullptr) continue;
      Carried c = of(*t.arg);
      if (c.free()) continue;
      if (!c.batched()) return mixes(gm, n, absl::StrCat("takes ", operand_name(t.arg), " from the batch"));
      if (static_cast<int64_t>(t.letters.size()) != c.rank) {
        return mixes(gm, n, "is a product the analysis cannot read");
      }
      const int letter = t.letters[c.dim];
      if (batch_letter && *batch_letter != letter) {
        return mixes(gm, n, absl::StrCat("multiplies the batch dimension of ", operand_name(batch_arg),
                                         " (its dim ", batch_dim, ") with the batch dimension of ",
                                         operand_name(t.arg), " (its dim ", c.dim,
                                         "): every sample meets the others"));
      }
      batch_letter = letter;
      batch_arg = t.arg;
      batch_dim = c.dim;
    }
    if (!batch_letter) return result(gm, n);
    auto at = std::find(out_letters.begin(), out_letters.end(), *batch_letter);
    if (at == out_letters.end()) {
      return mixes(gm, n, absl::StrCat("sums over the batch dimension of ", operand_name(batch_arg),
                                       " (its dim ", batch_dim, ")"));
    }
    Carried out = result(gm, n);
    if (out.batched() && out.dim != at - out_letters.begin()) {
      return mixes(gm, n, "moves the batch dimension where the analysis does not expect it");
    }
    return out;
  }

  // "bij,bjk->bik" (with "..." and implicit outputs) as index lists.
  static bool parse_einsum(const std::string& equation, const std::vector<int64_t>& ranks,
                           std::vector<std::vector<int>>* terms, std::vector<int>* out) {
    std::string eq;
    for (char c : equation) {
      if (c != ' ') eq += c;
    }
    const size_t arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    std::vector<std::string> inputs = absl::StrSplit(lhs, ',');
    if (inputs.size() != ranks.size()) return false;
    int64_t ellipsis = 0;
    std::vector<std::pair<bool, std::vector<int>>> raw;
    constexpr int kEllipsisBase = 1000;
    for (size_t t = 0; t < inputs.size(); ++t) {
      const std::string& s = inputs[t];
      std::vector<int> letters;
      int64_t named = 0;
      bool has_ellipsis = false;
      for (size_t p = 0; p < s.size(); ++p) {
        if (s.compare(p, 3, "...") == 0) {
          has_ellipsis = true;
          p += 2;
        } else if (absl::ascii_isalpha(s[p])) {
          ++named;
        } else {
          return false;
        }
      }
      if (ranks[t] < 0) return false;
      const int64_t own = has_ellipsis ? ranks[t] - named : 0;
      if (own < 0 || (!has_ellipsis && named != ranks[t])) return false;
      ellipsis = std::max(ellipsis, own);
      for (size_t p = 0; p < s.size(); ++p) {
        if (s.compare(p, 3, "...") == 0) {
          for (int64_t e = 0; e < own; ++e) letters.push_back(static_cast<int>(kEllipsisBase - own + e));
          p += 2;
        } else {
          letters.push_back(s[p]);
        }
      }
      terms->push_back(letters);
    }
    out->clear();
    if (arrow != std::string::npos) {
      const std::string rhs = eq.substr(arrow + 2);
      for (size_t p = 0; p < rhs.size(); ++p) {
        if (rhs.compare(p, 3, "...") == 0) {
          for (int64_t e = 0; e < ellipsis; ++e) out->push_back(static_cast<int>(kEllipsisBase - ellipsis + e));
          p += 2;
        } else if (absl::ascii_isalpha(rhs[p])) {
          out->push_back(rhs[p]);
        } else {
          return false;
        }
      }
    } else {
      for (int64_t e = 0; e < ellipsis; ++e) out->push_back(static_cast<int>(kEllipsisBase - ellipsis + e));
      std::map<int, int> count;
      for (const auto& t : *terms) {
        for (int l : t) {
          if (l < kEllipsisBase - 100) ++count[l];
        }
      }
      for (const auto& [l, c] : count) {
        if (c == 1) out->push_back(l);
      }
    }
    return true;
  }

  Carried visit_module(const GraphModule& gm, const Node& n) {
    auto sub = gm.get_submodule(n.target());
    if (!sub.ok()) return mixes(gm, n, "calls a module the analysis cannot find");
    const Module& m = **sub;
    const std::string class_name = m.class_name();
    std::optional<std::pair<ModuleKind, int>> kind;
    if (absl::StartsWith(m.type_name(), "torch.nn.modules.")) kind = module_kind(class_name);
    if (!kind) {
      return mixes(gm, n, "is a module the analysis does not know to keep samples apart");
    }
    // One batched tensor in, the module's own state free.
    std::vector<Operand> operands;
    const Argument* input = nullptr;
    for (const Argument& a : n.args()) {
      Carried c = of(a);
      if (!c.free()) {
        if (input != nullptr) return mixes(gm, n, "takes more than one value of the batch");
        input = &a;
      }
      operands.push_back({"", &a, std::move(c)});
    }
    for (const auto& kv : n.kwargs()) {
      if (!of(kv.second).free()) return mixes(gm, n, "takes a keyword argument from the batch");
    }
    const Carried in = input ? of(*input) : Carried();
    if (!in.batched()) return mixes(gm, n, "takes a value of the batch the analysis cannot follow");
    const int spatial = kind->second;
    switch (kind->first) {
      case ModuleKind::kPointwise:
        return pointwise(gm, n, operands);
      case ModuleKind::kLayout:
        return layout(gm, n, input);
      case ModuleKind::kReshape:
        return reshape(gm, n, input);
      case ModuleKind::kSampleWise:
        if (absl::StrContains(class_name, "BatchNorm") && m.training()) {
          return mixes(gm, n, "normalises with statistics of the whole batch (batch norm in training mode)");
        }
        if (in.dim != 0 || (absl::StartsWith(class_name, "Conv") && in.rank != spatial + 2)) {
          return mixes(gm, n, absl::StrCat("works across the batch (dim ", in.dim, " of ",
                                           operand_name(input), ")"));
        }
        return result(gm, n);
      case ModuleKind::kLinear:
        if (in.dim == in.rank - 1) {
          return mixes(gm, n, absl::StrCat("sums over the batch dimension of ", operand_name(input)));
        }
        return result(gm, n);
      case ModuleKind::kLast: {
        // Its normalised sizes are fixed: the batch dim, whose size differs
        // between the runs that both succeeded, cannot be among them.
        return result(gm, n);
      }
      case ModuleKind::kEmbedding:
        return result(gm, n);
      case ModuleKind::kSoftmax: {
        const Module::Slot* slot = m.find("dim");
        int64_t dim = 0;
        if (slot != nullptr && slot->value.isInt()) {
          dim = ((slot->value.toInt() % in.rank) + in.rank) % in.rank;
        } else if (slot != nullptr && slot->value.isNone()) {
          dim = (in.rank == 0 || in.rank == 1 || in.rank == 3) ? 0 : 1;  // torch's legacy choice
        } else {
          return mixes(gm, n, "normalises over a dim the analysis cannot read");
        }
        if (dim == in.dim) {
          return mixes(gm, n, absl::StrCat("normalises over the batch dimension of ", operand_name(input),
                                           " (its dim ", in.dim, ")"));
        }
        return result(gm, n);
      }
      case ModuleKind::kSpatial:
        if (in.dim >= in.rank - spatial) {
          return mixes(gm, n, absl::StrCat("pools or resamples over the batch dimension of ",
                                           operand_name(input), " (its dim ", in.dim, ")"));
        }
        return result(gm, n);
    }
    return mixes(gm, n, "is a module the analysis does not know to keep samples apart");
  }

 public:
  int64_t rows_ = 0;
  int64_t micro_rows_ = 0;

 private:
  const Records& whole_;
  const Records& micro_;
  absl::flat_hash_map<const Node*, Carried> state_;
  std::string tainted_;
};

// Gives the nodes of `gm` (and its graph submodules) a tensor_meta where the
// run made a tensor, so that normalize_call reads methods and Python's
// operators on them.
void mark_tensors(GraphModule& gm, const Records& records) {
  for (Node* n : gm.graph().nodes()) {
    auto it = records.find(n);
    if (it != records.end() && it->second.isTensor()) {
      std::vector<MetaValue> shape;
      for (int64_t s : it->second.toTensor().sizes()) shape.emplace_back(s);
      Meta meta;
      meta.set("shape", MetaValue(std::move(shape)));
      n->meta().set(kTensorMetaKey, MetaValue(std::move(meta)));
    }
  }
  for (const auto& [name, sub] : gm.graph_submodules()) mark_tensors(*sub, records);
}

// The refusal of each output leaf that does not keep samples apart.
absl::Status check_output(const Carried& c, const c10::IValue& whole, const std::string& name,
                          const std::string& tainted) {
  const std::string shown = name.empty() ? "the output" : absl::StrCat("output ", name);
  auto child = [&](const std::string& key) { return name.empty() ? key : absl::StrCat(name, ".", key); };
  if (c.kind == Carried::Kind::kItems) {
    std::vector<c10::IValue> items;
    if (whole.isTuple()) items = whole.toTupleRef().elements().vec();
    if (whole.isList()) items = whole.toListRef().vec();
    if (whole.isGenericDict()) {
      for (const auto& entry : whole.toGenericDict()) items.push_back(entry.value());
    }
    for (size_t i = 0; i < c.items.size(); ++i) {
      const std::string key = i < c.keys.size() ? c.keys[i] : std::to_string(i);
      const c10::IValue item = i < items.size() ? items[i] : c10::IValue();
      if (absl::Status s = check_output(c.items[i], item, child(key), tainted); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (!tainted.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(shown, " may mix samples of the batch: ", tainted,
                                                   ": run with --microbatches=1"));
  }
  if (c.is_mixed()) {
    return absl::InvalidArgumentError(absl::StrCat(shown, " mixes samples of the batch: ", c.why,
                                                   ": run with --microbatches=1"));
  }
  if (c.batched() && c.dim != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        shown, " carries the batch in its dim ", c.dim, ", not dim 0, along which the micro-batches' "
        "outputs are put back together: run with --microbatches=1"));
  }
  if (c.kind == Carried::Kind::kSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        shown, " depends on the batch size, which differs between micro-batches: run with "
        "--microbatches=1"));
  }
  return absl::OkStatus();
}

std::vector<c10::IValue> on_device(const std::vector<c10::IValue>& values, bool on_meta) {
  if (!on_meta) return values;
  std::vector<c10::IValue> out;
  for (const c10::IValue& v : values) out.push_back(to_meta(v));
  return out;
}

}  // namespace

absl::Status check_samples_kept_apart(const GraphModule& module, const std::vector<c10::IValue>& inputs,
                                      int count) {
  if (count <= 1) return absl::OkStatus();
  auto parts = split_microbatches(inputs, count);
  if (!parts.ok()) return parts.status();
  int64_t rows = 0, micro_rows = 0;
  for (const c10::IValue& v : inputs) {
    if (v.isTensor()) rows = v.toTensor().size(0);
  }
  for (const c10::IValue& v : parts->front()) {
    if (v.isTensor()) micro_rows = v.toTensor().size(0);
  }
  ensure_meta_kernels();
  // Both runs on the meta device, else both on the CPU.
  std::shared_ptr<GraphModule> copy;
  Records whole, micro;
  bool ran = false;
  for (bool on_meta : {true, false}) {
    whole.clear();
    micro.clear();
    try {
      copy = copy_to_run(module, on_meta);
      RecordingRun whole_run(*copy, whole);
      if (!whole_run.run(on_device(inputs, on_meta)).ok()) continue;
      RecordingRun micro_run(*copy, micro);
      if (!micro_run.run(on_device(parts->front(), on_meta)).ok()) continue;
      ran = true;
      break;
    } catch (const std::exception&) {
      continue;
    }
  }
  if (!ran) return absl::OkStatus();  // the run itself says what fails
  mark_tensors(*copy, whole);
  Analysis analysis(whole, micro);
  analysis.rows_ = rows;
  analysis.micro_rows_ = micro_rows;
  std::vector<Carried> carried;
  for (const c10::IValue& v : inputs) {
    carried.push_back(v.isTensor() ? Carried::batch(0, v.toTensor().dim()) : Carried());
  }
  Carried out = analysis.run_graph(*copy, carried);
  const Node* output = copy->graph().output_node();
  const c10::IValue* value = nullptr;
  if (output != nullptr && !output->args().empty() && output->args()[0].is_node()) {
    auto it = whole.find(output->args()[0].to_node());
    if (it != whole.end()) value = &it->second;
  }
  // The output's structure as concat_microbatches names it: from the run.
  auto it = whole.find(output);
  const c10::IValue whole_out = it != whole.end() ? it->second : value != nullptr ? *value : c10::IValue();
  return check_output(out, whole_out, "", analysis.tainted());
}

}  // namespace fx
