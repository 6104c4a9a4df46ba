// Copyright 2026 The FX for C++ Authors.
#include "tools/run_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"
#include "runtime/execution_plan.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"
#include "tools/model_file.h"

namespace fx {
namespace {

absl::StatusOr<c10::ScalarType> dtype_named(absl::string_view name) {
  if (name == "float" || name == "float32") return c10::ScalarType::Float;
  if (name == "double" || name == "float64") return c10::ScalarType::Double;
  if (name == "half" || name == "float16") return c10::ScalarType::Half;
  if (name == "long" || name == "int64") return c10::ScalarType::Long;
  if (name == "int" || name == "int32") return c10::ScalarType::Int;
  if (name == "bool") return c10::ScalarType::Bool;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown dtype ", quote_for_message(name),
      " in --input-shape: use float, double, half, long, int or bool"));
}

// A tensor's leaves of a value, named by their position ("0", "1.2").
void flatten(const c10::IValue& v, const std::string& name,
             std::vector<std::pair<std::string, at::Tensor>>& out) {
  if (v.isTensor()) {
    out.emplace_back(name, v.toTensor());
  } else if (v.isTuple() || v.isList()) {
    const std::vector<c10::IValue> items =
        v.isTuple() ? v.toTupleRef().elements().vec() : v.toListRef().vec();
    for (size_t i = 0; i < items.size(); ++i) {
      flatten(items[i], name.empty() ? std::to_string(i) : absl::StrCat(name, ".", i), out);
    }
  } else if (v.isGenericDict()) {
    for (const auto& item : v.toGenericDict()) {
      const std::string key = item.key().isString() ? item.key().toStringRef()
                                                    : item.key().tagKind();
      flatten(item.value(), name.empty() ? key : absl::StrCat(name, ".", key), out);
    }
  }
}

std::string describe(const at::Tensor& t) {
  return absl::StrCat(absl::AsciiStrToLower(c10::toString(t.scalar_type())), "[",
                      absl::StrJoin(t.sizes(), ", "), "]");
}

std::string checksum(const at::Tensor& t) {
  if (t.is_meta() || t.numel() == 0) return "";
  const at::Tensor d = t.detach().to(at::kCPU).to(at::kDouble);
  return absl::StrFormat(" sum %.6g, mean |x| %.6g", d.sum().item<double>(),
                         d.abs().mean().item<double>());
}

double millis(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

}  // namespace

absl::StatusOr<std::vector<InputShape>> parse_input_shapes(absl::string_view text) {
  std::vector<InputShape> shapes;
  for (absl::string_view part : absl::StrSplit(text, ';')) {
    InputShape shape;
    absl::string_view dims = part;
    if (const size_t colon = part.find(':'); colon != absl::string_view::npos) {
      auto dtype = dtype_named(part.substr(0, colon));
      if (!dtype.ok()) return dtype.status();
      shape.dtype = *dtype;
      dims = part.substr(colon + 1);
    }
    for (absl::string_view dim : absl::StrSplit(dims, ',', absl::SkipWhitespace())) {
      int64_t n = 0;
      if (!absl::SimpleAtoi(dim, &n) || n < 0 || n > (int64_t{1} << 32)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "bad size ", quote_for_message(dim), " in --input-shape ", quote_for_message(text),
            ": sizes are non-negative integers, as in 1,3,224,224 (';' between inputs)"));
      }
      shape.sizes.push_back(n);
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

std::vector<c10::IValue> random_inputs(const std::vector<InputShape>& shapes,
                                       const c10::Device& device) {
  at::manual_seed(0);
  std::vector<c10::IValue> inputs;
  for (const InputShape& s : shapes) {
    at::Tensor t;
    if (c10::isFloatingType(s.dtype)) {
      t = at::randn(s.sizes, at::TensorOptions().dtype(at::kFloat)).to(s.dtype);
    } else if (s.dtype == c10::ScalarType::Bool) {
      t = at::randint(0, 2, s.sizes, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
    } else {
      t = at::randint(0, 10, s.sizes, at::TensorOptions().dtype(s.dtype));
    }
    inputs.push_back(device.is_meta() ? at::empty_like(t, t.options().device(device))
                                      : t.to(device));
  }
  return inputs;
}

absl::StatusOr<std::vector<c10::IValue>> read_inputs(const std::string& path,
                                                     const c10::Device& device) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read --input ", path_for_message(path), ": ",
                                            std::strerror(errno)));
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<c10::IValue> inputs;
  std::string pickle_error;
  try {
    const c10::IValue saved = torch::jit::pickle_load(bytes);
    if (saved.isTuple() || saved.isList()) {
      inputs = saved.isTuple() ? saved.toTupleRef().elements().vec() : saved.toListRef().vec();
    } else {
      inputs = {saved};
    }
  } catch (const std::exception& e) {
    pickle_error = exception_message(e);
    try {
      torch::jit::Module buffers = torch::jit::load(path);
      for (const at::Tensor& b : buffers.buffers()) inputs.emplace_back(b);
    } catch (const std::exception&) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot read --input ", path_for_message(path),
          ": it is neither a file saved with torch.save nor a TorchScript module of buffers (",
          first_line_of(pickle_error), ")"));
    }
  }
  for (c10::IValue& v : inputs) {
    if (v.isTensor()) v = v.toTensor().to(device);
  }
  return inputs;
}

absl::StatusOr<std::string> run_graph(const GraphModule& gm, const torch::jit::Module& original,
                                      const std::vector<c10::IValue>& inputs,
                                      const RunOptions& options) {
  PlanOptions plan_options;
  plan_options.device = options.device;
  auto plan = ExecutionPlan::compile(gm, plan_options);
  if (!plan.ok()) return plan.status();
  std::string report;
  std::vector<std::string> described;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name =
        i < (*plan)->input_names().size() ? (*plan)->input_names()[i] : std::to_string(i);
    described.push_back(absl::StrCat(
        name, " ", inputs[i].isTensor() ? describe(inputs[i].toTensor()) : inputs[i].tagKind()));
  }
  absl::StrAppend(&report, "run on ", options.device.str(), ": ", absl::StrJoin(described, ", "),
                  "\n");
  if (options.check && options.device.is_meta()) {
    return absl::InvalidArgumentError(
        "--check compares values, and the meta device has none: run on cpu or cuda");
  }
  // Both sides start from the model's state as it is now: the plan shares
  // the model's parameters and buffers (on the CPU), and a model that
  // updates a buffer (`self.count.add_(1)`) changes them in every run. The
  // module checked against is a copy of the model taken before any run.
  torch::jit::Module module;
  if (options.check) {
    try {
      module = original.clone();
      module.to(options.device);
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError(absl::StrCat("--check: cannot copy the original module: ",
                                                     first_line_of(exception_message(e))));
    }
  }
  // Every run gets its own copy of the inputs, laid out as given (the plan
  // may change them in place, and must see what the module sees).
  auto state = (*plan)->make_state();
  std::vector<double> times;
  c10::IValue first;  // the first run's result: what one run of the model gives
  const int runs = options.warmup + std::max(1, options.repeat);
  for (int i = 0; i < runs; ++i) {
    std::vector<c10::IValue> run_inputs = deep_copy(inputs);
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<c10::IValue> result = (*plan)->run(*state, std::move(run_inputs));
    const auto end = std::chrono::steady_clock::now();
    if (!result.ok() && options.device.is_meta()) {
      return absl::InvalidArgumentError(absl::StrCat(
          result.status().message(),
          "; the meta device runs only what needs no data (operators with meta kernels, no "
          "values read out of tensors): run on cpu, or get the shapes from "
          "--passes='shape_prop{device=meta}', which computes such nodes on real tensors"));
    }
    if (!result.ok()) return result.status();
    if (i >= options.warmup) times.push_back(millis(end - start));
    // (Copied when more runs follow: it may be a buffer they change.)
    if (i == 0) first = runs > 1 ? deep_copy(*result) : *std::move(result);
  }
  std::vector<std::pair<std::string, at::Tensor>> outputs;
  flatten(first, "", outputs);
  for (const auto& [name, t] : outputs) {
    absl::StrAppend(&report, "output ", name.empty() ? "0" : name, ": ", describe(t), checksum(t),
                    "\n");
  }
  if (options.check) {
    c10::IValue want;
    try {
      want = module.forward(deep_copy(inputs));
    } catch (const std::exception& e) {
      return absl::InvalidArgumentError(
          absl::StrCat("--check: the original module failed on these inputs: ",
                       first_line_of(exception_message(e))));
    }
    std::vector<std::pair<std::string, at::Tensor>> expected;
    flatten(want, "", expected);
    if (expected.size() != outputs.size()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "--check: the graph returns ", outputs.size(), " tensor(s), the original module ",
          expected.size()));
    }
    double worst = 0;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const std::string& name = outputs[i].first.empty() ? "0" : outputs[i].first;
      const at::Tensor got = outputs[i].second.detach().to(at::kCPU).to(at::kDouble);
      const at::Tensor exp = expected[i].second.detach().to(at::kCPU).to(at::kDouble);
      if (got.sizes() != exp.sizes()) {
        return absl::FailedPreconditionError(
            absl::StrCat("--check: output ", name, " has shape ", describe(outputs[i].second),
                         " but the original module's is ", describe(expected[i].second)));
      }
      if (got.numel() == 0) continue;
      const double diff = (got - exp).abs().max().item<double>();
      worst = std::max(worst, diff);
      if (!at::allclose(got, exp, options.rtol, options.atol, /*equal_nan=*/true)) {
        const std::string how = std::isnan(diff) ? "NaN where the other has a number"
                                                  : absl::StrFormat("max abs difference %.3g", diff);
        return absl::FailedPreconditionError(absl::StrFormat(
            "--check: output %s differs from the original module's: %s (beyond --atol=%g "
            "--rtol=%g); a pass changed what the model computes",
            name, how, options.atol, options.rtol));
      }
    }
    absl::StrAppend(&report,
                    absl::StrFormat("check: max abs difference %.3g against the TorchScript "
                                    "module (atol %g, rtol %g): ok\n",
                                    worst, options.atol, options.rtol));
  }
  std::sort(times.begin(), times.end());
  absl::StrAppend(&report, absl::StrFormat(
                               "latency: median %.3f ms, min %.3f ms, max %.3f ms over %d run(s) "
                               "after %d warmup, %d thread(s)%s\n",
                               times[times.size() / 2], times.front(), times.back(),
                               static_cast<int>(times.size()), options.warmup,
                               at::get_num_threads(),
                               options.warmup == 0
                                   ? " (the first run compiles the plan for these inputs: "
                                     "add --warmup=1 to time later runs)"
                                   : ""));
  return report;
}

}  // namespace fx
