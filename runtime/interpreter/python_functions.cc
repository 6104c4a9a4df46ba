// Copyright 2026 The FX for C++ Authors.
#include "runtime/interpreter/python_functions.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/ops/frobenius_norm.h>
#include <ATen/ops/log_softmax.h>
#include <ATen/ops/norm.h>
#include <ATen/ops/nuclear_norm.h>
#include <ATen/ops/softmax.h>
#include <torch/library.h>

#include <numeric>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace fx {
namespace {

// torch.nn.functional's functions that take `inplace`: the Python signature
// after `input` and before `inplace` (the aten operator's, position by
// position; the aten operator may take more, left to their defaults), the
// aten operator run out of place (`name_` in place).
struct InplaceFunction {
  const char* name;     // torch.nn.functional.<name>
  const char* params;   // between `Tensor input, ` and `bool inplace=False`
  const char* aten;     // aten::<aten> and aten::<aten>_
};

constexpr InplaceFunction kInplaceFunctions[] = {
    {"relu", "", "relu"},
    {"relu6", "", "relu6"},
    {"silu", "", "silu"},
    {"mish", "", "mish"},
    {"hardswish", "", "hardswish"},
    {"hardsigmoid", "", "hardsigmoid"},
    {"selu", "", "selu"},
    {"celu", "float alpha=1.0, ", "celu"},
    {"elu", "float alpha=1.0, ", "elu"},
    {"leaky_relu", "float negative_slope=0.01, ", "leaky_relu"},
    {"hardtanh", "float min_val=-1.0, float max_val=1.0, ", "hardtanh"},
    {"threshold", "float threshold, float value, ", "threshold"},
    // Python checks p (0 <= p <= 1) first: check_dropout_p below.
    {"dropout", "float p=0.5, bool training=True, ", "dropout"},
    {"alpha_dropout", "float p=0.5, bool training=False, ", "alpha_dropout"},
    {"feature_alpha_dropout", "float p=0.5, bool training=False, ", "feature_alpha_dropout"},
};

// Tensor methods that convert to a dtype: x.float() is x.to(torch.float32).
struct DtypeMethod {
  const char* name;
  c10::ScalarType dtype;
};

constexpr DtypeMethod kDtypeMethods[] = {
    {"float", c10::ScalarType::Float},     {"double", c10::ScalarType::Double},
    {"half", c10::ScalarType::Half},       {"bfloat16", c10::ScalarType::BFloat16},
    {"long", c10::ScalarType::Long},       {"int", c10::ScalarType::Int},
    {"short", c10::ScalarType::Short},     {"char", c10::ScalarType::Char},
    {"byte", c10::ScalarType::Byte},       {"bool", c10::ScalarType::Bool},
    {"cfloat", c10::ScalarType::ComplexFloat}, {"cdouble", c10::ScalarType::ComplexDouble},
};

constexpr const char* kSoftmaxFunctions[] = {"softmax", "log_softmax", "softmin"};

// torch.nn.functional's max pooling functions, which Python dispatches on
// `return_indices` (boolean_dispatch): the Python signature between `input`
// and `return_indices`, and the spatial rank. `stride=None` means the kernel
// size (aten's empty stride); the adaptive ones' aten operators return the
// indices too, dropped.
struct PoolFunction {
  const char* name;    // torch.nn.functional.<name>, aten::<name>
  const char* params;  // between `Tensor input, ` and `bool return_indices=False`
  int rank;
};

constexpr PoolFunction kPoolFunctions[] = {
    {"max_pool1d", "int[1] kernel_size, int[1]? stride=None, int[1] padding=0, int[1] dilation=1, bool ceil_mode=False, ", 1},
    {"max_pool2d", "int[2] kernel_size, int[2]? stride=None, int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, ", 2},
    {"max_pool3d", "int[3] kernel_size, int[3]? stride=None, int[3] padding=0, int[3] dilation=1, bool ceil_mode=False, ", 3},
    {"adaptive_max_pool1d", "int[1] output_size, ", 1},
    {"adaptive_max_pool2d", "int[2] output_size, ", 2},
    {"adaptive_max_pool3d", "int[3] output_size, ", 3},
};

const PoolFunction* find_pool_function(absl::string_view name) {
  for (const PoolFunction& f : kPoolFunctions) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

const InplaceFunction* find_inplace_function(absl::string_view name) {
  for (const InplaceFunction& f : kInplaceFunctions) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

void fail(const std::string& message) { TORCH_CHECK(false, message); }

// Runs aten::<name> on `args` (its leading arguments), its other arguments
// left to their defaults; the returns replace `stack`'s contents.
void run_aten(const std::string& name, std::vector<c10::IValue> args, torch::jit::Stack* stack) {
  const c10::OperatorHandle op = c10::Dispatcher::singleton().findSchemaOrThrow(name.c_str(), "");
  const auto& params = op.schema().arguments();
  TORCH_CHECK(args.size() <= params.size(), name, " takes ", params.size(), " arguments");
  for (size_t i = args.size(); i < params.size(); ++i) {
    TORCH_CHECK(params[i].default_value().has_value(), name, " needs argument ", params[i].name());
    args.push_back(*params[i].default_value());
  }
  torch::jit::Stack inner(std::move(args));
  op.callBoxed(&inner);
  stack->clear();
  for (c10::IValue& v : inner) stack->push_back(std::move(v));
}

// fx_python::<f>(Tensor input, ..., bool inplace=False) and its `.inplace`
// overload: aten::<aten> or aten::<aten>_ on the arguments before `inplace`.
void inplace_function(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  absl::string_view name = op.schema().name();
  absl::ConsumePrefix(&name, "fx_python::");
  const InplaceFunction* f = find_inplace_function(name);
  TORCH_CHECK(f != nullptr, "no Python function ", op.schema().name());
  const bool in_place = op.schema().overload_name() == "inplace";
  std::vector<c10::IValue> args(stack->begin(), stack->end());
  TORCH_CHECK(!args.empty() && args.back().isBool(), "inplace must be a bool");
  // The overload was chosen by the node's literal; a value that says
  // otherwise would run the other function.
  TORCH_CHECK(args.back().toBool() == in_place, "inplace=", args.back().toBool() ? "True" : "False",
              " reached the ", in_place ? "in-place" : "out-of-place", " overload");
  args.pop_back();
  if (absl::StrContains(f->name, "dropout")) {
    const double p = args[1].toDouble();
    if (p < 0.0 || p > 1.0) {
      fail(absl::StrCat("dropout probability has to be between 0 and 1, but got ", p));
    }
  }
  run_aten(absl::StrCat("aten::", f->aten, in_place ? "_" : ""), std::move(args), stack);
}

// An `int[N]` argument as a list: Python's `2` for a 2-d kernel is [2, 2].
c10::IValue int_list(const c10::IValue& v, int rank) {
  if (v.isInt()) return c10::IValue(std::vector<int64_t>(rank, v.toInt()));
  return c10::IValue(v.toIntVector());
}

// fx_python::<max pool>(Tensor input, ..., bool return_indices=False):
// aten::<name> on the arguments before `return_indices`.
void pool_function(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  absl::string_view name = op.schema().name();
  absl::ConsumePrefix(&name, "fx_python::");
  const PoolFunction* f = find_pool_function(name);
  TORCH_CHECK(f != nullptr, "no Python function ", op.schema().name());
  std::vector<c10::IValue> args(stack->begin(), stack->end());
  TORCH_CHECK(!args.empty() && args.back().isBool(), "return_indices must be a bool");
  TORCH_CHECK(!args.back().toBool(), "torch.nn.functional.", f->name,
              " with return_indices=True is not supported here (it returns a tuple): call "
              "torch.nn.functional.", f->name, "_with_indices");
  args.pop_back();
  const bool adaptive = absl::StartsWith(f->name, "adaptive_");
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i].isInt() || args[i].isIntList()) args[i] = int_list(args[i], f->rank);
  }
  if (!adaptive && args[2].isNone()) args[2] = c10::IValue(std::vector<int64_t>());  // stride
  run_aten(absl::StrCat("aten::", f->name), std::move(args), stack);
  if (adaptive) stack->resize(1);  // (output, indices)
}

// Python's _get_softmax_dim: the dimension softmax takes when none is given.
int64_t implicit_softmax_dim(int64_t ndim) { return ndim == 0 || ndim == 1 || ndim == 3 ? 0 : 1; }

// fx_python::softmax|log_softmax|softmin(Tensor input, int? dim=None,
// int _stacklevel=3, ScalarType? dtype=None): `_stacklevel` only places
// Python's warning.
void softmax_function(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  const std::string& name = op.schema().name();
  const at::Tensor input = (*stack)[0].toTensor();
  const int64_t dim = (*stack)[1].isNone() ? implicit_softmax_dim(input.dim()) : (*stack)[1].toInt();
  const c10::optional<at::ScalarType> dtype =
      (*stack)[3].isNone() ? c10::nullopt : c10::optional<at::ScalarType>((*stack)[3].toScalarType());
  at::Tensor out;
  if (name == "fx_python::softmax") {
    out = at::softmax(input, dim, dtype);
  } else if (name == "fx_python::log_softmax") {
    out = at::log_softmax(input, dim, dtype);
  } else {
    out = at::softmax(input.neg(), dim, dtype);
  }
  stack->clear();
  stack->push_back(std::move(out));
}

// fx_python::Tensor_<dtype>(Tensor(a) self, MemoryFormat? memory_format=None).
void dtype_method(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  absl::string_view name = op.schema().name();
  absl::ConsumePrefix(&name, "fx_python::Tensor_");
  for (const DtypeMethod& m : kDtypeMethods) {
    if (name != m.name) continue;
    const at::Tensor self = (*stack)[0].toTensor();
    const c10::optional<c10::MemoryFormat> format =
        (*stack)[1].isNone() ? c10::nullopt
                             : c10::optional<c10::MemoryFormat>((*stack)[1].toMemoryFormat());
    at::Tensor out = self.to(m.dtype, /*non_blocking=*/false, /*copy=*/false, format);
    stack->clear();
    stack->push_back(std::move(out));
    return;
  }
  fail(absl::StrCat("no dtype method ", op.schema().name()));
}

std::vector<int64_t> all_dims(int64_t ndim) {
  std::vector<int64_t> dims(ndim);
  std::iota(dims.begin(), dims.end(), 0);
  return dims;
}

// fx_python::norm(Tensor input, Any p, Any dim, bool keepdim=False,
// Tensor? out=None, ScalarType? dtype=None): torch.functional.norm of torch
// 1.13, branch by branch; `out=` is refused (the graph's value is the result).
void norm_function(const c10::OperatorHandle&, torch::jit::Stack* stack) {
  const at::Tensor input = (*stack)[0].toTensor();
  const c10::IValue p = (*stack)[1];
  const c10::IValue dim = (*stack)[2];
  const bool keepdim = (*stack)[3].toBool();
  TORCH_CHECK((*stack)[4].isNone(), "torch.norm with out= is not supported here");
  const c10::optional<at::ScalarType> dtype =
      (*stack)[5].isNone() ? c10::nullopt : c10::optional<at::ScalarType>((*stack)[5].toScalarType());
  const int64_t ndim = input.dim();
  auto scalar_p = [&]() -> c10::optional<at::Scalar> {
    if (p.isNone()) return c10::nullopt;
    TORCH_CHECK(p.isInt() || p.isDouble(), "torch.norm: p must be a number, a string or None");
    return p.toScalar();
  };
  at::Tensor out;
  if (dim.isNone() && !dtype && !p.isNone()) {
    if (p.isString() && p.toStringRef() == "fro") {
      out = at::frobenius_norm(input, {}, keepdim);
    } else if (!p.isString()) {
      out = at::norm(input, scalar_p(), all_dims(ndim), keepdim);
    }
  }
  if (!out.defined()) {
    c10::optional<std::vector<int64_t>> dims;
    if (dim.isInt()) {
      dims = std::vector<int64_t>{dim.toInt()};
    } else if (dim.isIntList()) {
      dims = dim.toIntVector();
    } else if (dim.isList() || dim.isTuple()) {
      std::vector<int64_t> d;
      const std::vector<c10::IValue> items =
          dim.isList() ? dim.toListRef().vec() : dim.toTupleRef().elements().vec();
      for (const c10::IValue& v : items) {
        TORCH_CHECK(v.isInt(), "torch.norm: dim must be an int or a sequence of ints");
        d.push_back(v.toInt());
      }
      dims = std::move(d);
    } else {
      TORCH_CHECK(dim.isNone(), "torch.norm: dim must be an int or a sequence of ints");
    }
    if (p.isString()) {
      const std::string& s = p.toStringRef();
      if (s == "fro") {
        TORCH_CHECK(!dtype, "dtype argument is not supported in frobenius norm");
        out = at::frobenius_norm(input, dims ? *dims : all_dims(ndim), keepdim);
      } else if (s == "nuc") {
        TORCH_CHECK(!dtype, "dtype argument is not supported in nuclear norm");
        out = dims ? at::nuclear_norm(input, *dims, keepdim) : at::nuclear_norm(input, keepdim);
      } else {
        fail(absl::StrCat("only valid string values are 'fro' and 'nuc', found ", s));
      }
    } else {
      const std::vector<int64_t> d = dims ? *dims : all_dims(ndim);
      out = dtype ? at::norm(input, scalar_p(), d, keepdim, *dtype)
                  : at::norm(input, scalar_p(), d, keepdim);
    }
  }
  stack->clear();
  stack->push_back(std::move(out));
}

}  // namespace

std::vector<std::string> python_function_operators(absl::string_view target, bool method) {
  auto op = [](absl::string_view name) { return absl::StrCat("fx_python::", name); };
  if (method) {
    for (const DtypeMethod& m : kDtypeMethods) {
      if (target == m.name) return {op(absl::StrCat("Tensor_", m.name))};
    }
    if (target == "norm") return {op("norm")};
    return {};
  }
  if (target == "torch.functional.norm" || target == "torch.norm") return {op("norm")};
  absl::string_view name = target;
  if (!absl::ConsumePrefix(&name, "torch.nn.functional.")) return {};
  for (const char* f : kSoftmaxFunctions) {
    if (name == f) return {op(name)};
  }
  if (find_inplace_function(name) != nullptr || find_pool_function(name) != nullptr) return {op(name)};
  return {};
}

bool has_inplace_overload(absl::string_view schema_name) {
  absl::string_view name = schema_name;
  return absl::ConsumePrefix(&name, "fx_python::") && find_inplace_function(name) != nullptr;
}

}  // namespace fx

TORCH_LIBRARY(fx_python, m) {
  for (const fx::InplaceFunction& f : fx::kInplaceFunctions) {
    m.def(absl::StrCat(f.name, "(Tensor input, ", f.params, "bool inplace=False) -> Tensor").c_str());
    m.def(absl::StrCat(f.name, ".inplace(Tensor(a!) input, ", f.params,
                       "bool inplace=False) -> Tensor(a!)").c_str());
  }
  for (const char* f : fx::kSoftmaxFunctions) {
    m.def(absl::StrCat(f, "(Tensor input, int? dim=None, int _stacklevel=3, ScalarType? dtype=None) -> Tensor").c_str());
  }
  for (const fx::DtypeMethod& d : fx::kDtypeMethods) {
    m.def(absl::StrCat("Tensor_", d.name, "(Tensor(a) self, MemoryFormat? memory_format=None) -> Tensor(a)").c_str());
  }
  for (const fx::PoolFunction& f : fx::kPoolFunctions) {
    m.def(absl::StrCat(f.name, "(Tensor input, ", f.params, "bool return_indices=False) -> Tensor").c_str());
  }
  m.def("norm(Tensor input, Any p, Any dim, bool keepdim=False, Tensor? out=None, "
        "ScalarType? dtype=None) -> Tensor");
}

TORCH_LIBRARY_IMPL(fx_python, CompositeImplicitAutograd, m) {
  for (const fx::InplaceFunction& f : fx::kInplaceFunctions) {
    m.impl(f.name, torch::CppFunction::makeFromBoxedFunction<&fx::inplace_function>());
    const std::string inplace = absl::StrCat(f.name, ".inplace");
    m.impl(inplace.c_str(), torch::CppFunction::makeFromBoxedFunction<&fx::inplace_function>());
  }
  for (const char* f : fx::kSoftmaxFunctions) {
    m.impl(f, torch::CppFunction::makeFromBoxedFunction<&fx::softmax_function>());
  }
  for (const fx::DtypeMethod& d : fx::kDtypeMethods) {
    const std::string name = absl::StrCat("Tensor_", d.name);
    m.impl(name.c_str(), torch::CppFunction::makeFromBoxedFunction<&fx::dtype_method>());
  }
  for (const fx::PoolFunction& f : fx::kPoolFunctions) {
    m.impl(f.name, torch::CppFunction::makeFromBoxedFunction<&fx::pool_function>());
  }
  m.impl("norm", torch::CppFunction::makeFromBoxedFunction<&fx::norm_function>());
}
