// Copyright 2026 The FX for C++ Authors.
#include "tools/run_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randn.h>
#include <caffe2/serialize/in_memory_adapter.h>
#include <caffe2/serialize/inline_container.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/message_text.h"
#include "runtime/devices.h"
#include "runtime/plan/execution_plan.h"
#include "runtime/interpreter/node_calls.h"
#include "runtime/operator_binding.h"
#include "runtime/value_conversion.h"
#include "exported_program/torch_load.h"
#include "fx/archive_check.h"
#include "fx/input_file.h"
#include "fx/model_file.h"
#include "tools/torchscript/saved_values.h"

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

constexpr char kInputsAre[] =
    "--input takes a tensor, or a tuple or list of tensors (one per placeholder, in order; "
    "dense, not on the meta device)";

enum class SavedFormat { kTorchSave, kTorchScript };

// Which of the formats --input reads `bytes` are in: a zip archive with a
// TorchScript module's code, or torch.save's zip archive. Anything else is
// an error saying what the file is.
absl::StatusOr<SavedFormat> saved_format(const std::string& bytes) {
  // torch.save(..., _use_new_zipfile_serialization=False) starts with a
  // pickled magic number (0x1950a86a20f9469cfc6c).
  static constexpr absl::string_view kLegacyMagic(
      "\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 14);
  if (absl::StartsWith(bytes, kLegacyMagic)) {
    return absl::InvalidArgumentError(
        "it was saved in torch.save's legacy format (_use_new_zipfile_serialization=False), "
        "which libtorch does not read; save it again with torch.save's default format");
  }
  if (bytes.empty()) return absl::InvalidArgumentError("the file is empty");
  std::vector<std::string> records;
  try {
    caffe2::serialize::PyTorchStreamReader reader(
        std::make_shared<caffe2::serialize::MemoryReadAdapter>(bytes.data(),
                                                              static_cast<off_t>(bytes.size())));
    records = reader.getAllRecords();
  } catch (const std::exception&) {
    return absl::InvalidArgumentError(
        "it is neither a file saved with torch.save nor a TorchScript module of buffers (not a "
        "zip archive)");
  }
  for (const std::string& r : records) {
    if (r == "constants.pkl" || absl::StartsWith(r, "code/")) return SavedFormat::kTorchScript;
  }
  for (const std::string& r : records) {
    if (r == "data.pkl") return SavedFormat::kTorchSave;
  }
  return absl::InvalidArgumentError(
      "it is a zip archive, but neither a file saved with torch.save (no data.pkl) nor a "
      "TorchScript module of buffers");
}

// What a file torch.save wrote holds that libtorch's reader refused, from
// libtorch's `reason` and the first value of its data.pkl.
std::string what_torch_save_holds(const std::string& bytes, const std::string& reason) {
  if (absl::StrContains(reason, "_rebuild_meta_tensor")) return "a tensor on the meta device (no data)";
  if (absl::StrContains(reason, "_get_layout") || absl::StrContains(reason, "sparse")) {
    return "a sparse tensor";
  }
  try {
    caffe2::serialize::PyTorchStreamReader reader(
        std::make_shared<caffe2::serialize::MemoryReadAdapter>(bytes.data(),
                                                              static_cast<off_t>(bytes.size())));
    auto [data, size] = reader.getRecord("data.pkl");
    const char* pickle = static_cast<const char*>(data.get());
    // After PROTO 2: EMPTY_DICT makes a dict.
    if (size > 2 && pickle[2] == '}') return "a dict";
  } catch (const std::exception&) {
  }
  return absl::StrCat("what libtorch cannot read (", escape_for_message(reason), ")");
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
    // An empty shape is a scalar; otherwise no size may be empty (`2,4,`
    // is a mistake, not a 2x4 tensor).
    std::vector<absl::string_view> sizes;
    if (!absl::StripAsciiWhitespace(dims).empty()) sizes = absl::StrSplit(dims, ',');
    for (absl::string_view dim : sizes) {
      if (absl::StripAsciiWhitespace(dim).empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--input-shape ", quote_for_message(text), " has an empty size in ",
            quote_for_message(part), " (a comma too many?): sizes are non-negative integers, as "
            "in 1,3,224,224 (';' between inputs)"));
      }
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

absl::StatusOr<std::vector<c10::IValue>> random_inputs(const std::vector<InputShape>& shapes,
                                                       const c10::Device& device) {
  // What the inputs take, before taking it: an overflowing shape would make
  // libtorch throw, and one larger than the machine would fail (or be
  // killed) allocating. Meta tensors take nothing.
  uint64_t total = 0;
  for (const InputShape& s : shapes) {
    uint64_t bytes = c10::elementSize(s.dtype);
    bool overflow = false;
    for (int64_t n : s.sizes) overflow = overflow || __builtin_mul_overflow(bytes, uint64_t(n), &bytes);
    overflow = overflow || bytes > uint64_t{INT64_MAX} || __builtin_add_overflow(total, bytes, &total);
    if (overflow) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--input-shape: a tensor of shape [", absl::StrJoin(s.sizes, ", "),
          "] has more bytes than a tensor can hold; give smaller sizes"));
    }
  }
  const uint64_t memory = physical_memory_bytes();
  if (!device.is_meta() && memory != 0 && total > memory) {
    return absl::ResourceExhaustedError(absl::StrFormat(
        "--input-shape: the inputs take %.1f GiB, more than this machine's memory (%.1f GiB); "
        "give smaller sizes",
        total / double(1 << 30), memory / double(1 << 30)));
  }
  at::manual_seed(0);
  std::vector<c10::IValue> inputs;
  try {
    for (const InputShape& s : shapes) {
      if (device.is_meta()) {
        inputs.push_back(at::empty(s.sizes, at::TensorOptions().dtype(s.dtype).device(device)));
        continue;
      }
      at::Tensor t;
      if (c10::isFloatingType(s.dtype)) {
        t = at::randn(s.sizes, at::TensorOptions().dtype(at::kFloat)).to(s.dtype);
      } else if (s.dtype == c10::ScalarType::Bool) {
        t = at::randint(0, 2, s.sizes, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
      } else {
        t = at::randint(0, 10, s.sizes, at::TensorOptions().dtype(s.dtype));
      }
      inputs.push_back(t.to(device));
    }
  } catch (const std::exception& e) {
    return absl::ResourceExhaustedError(absl::StrCat("--input-shape: cannot make the inputs on ",
                                                     device.str(), ": ",
                                                     first_line_of(exception_message(e))));
  }
  return inputs;
}

absl::StatusOr<std::vector<c10::IValue>> read_inputs(const std::string& path,
                                                     const c10::Device& device) {
  auto bytes = read_regular_file(path, "--input");
  if (!bytes.ok()) return bytes.status();
  const std::string shown = path_for_message(path);
  auto refused = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read --input ", shown, ": ", why));
  };
  auto format = saved_format(*bytes);
  if (!format.ok()) return refused(format.status().message());
  if (absl::Status s = check_archive_bytes(*bytes); !s.ok()) return refused(s.message());
  std::vector<c10::IValue> inputs;
  if (*format == SavedFormat::kTorchScript) {
    auto buffers = torchscript_module_buffers(*bytes);
    if (!buffers.ok()) {
      return refused(absl::StrCat("cannot load it as a TorchScript module of buffers: ",
                                  escape_for_message(buffers.status().message())));
    }
    inputs = *std::move(buffers);
  } else {
    const absl::StatusOr<c10::IValue> saved = unpickle_value(*bytes);
    if (!saved.ok()) {
      return refused(absl::StrCat("it was saved with torch.save, but holds ",
                                  what_torch_save_holds(*bytes, std::string(saved.status().message())),
                                  "; ", kInputsAre));
    }
    if (saved->isGenericDict()) {
      // (libtorch 1.13 cannot read the dicts Python's torch.save writes, 2.x
      // can: the message is the one what_torch_save_holds gives 1.13's.)
      return refused(absl::StrCat("it was saved with torch.save, but holds a dict; ", kInputsAre));
    }
    if (saved->isTuple() || saved->isList()) {
      inputs = saved->isTuple() ? saved->toTupleRef().elements().vec() : saved->toListRef().vec();
    } else {
      inputs = {*saved};
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s = check_tensors_in_bounds(inputs[i]); !s.ok()) {
      return refused(absl::StrCat("input ", i, ": ", s.message()));
    }
  }
  for (c10::IValue& v : inputs) {
    if (v.isTensor()) v = v.toTensor().to(device);
  }
  return inputs;
}

absl::StatusOr<SavedRun> read_saved_run(const std::string& path, absl::string_view flag) {
  auto bytes = read_regular_file(path, flag);
  if (!bytes.ok()) return bytes.status();
  return parse_saved_run(*bytes, absl::StrCat(flag, " ", path_for_message(path)));
}

absl::StatusOr<SavedRun> parse_saved_run(absl::string_view bytes, const std::string& what) {
  const std::string holds =
      "it must hold what torch.save({'inputs': args, 'outputs': "
      "torch.utils._pytree.tree_leaves(model(*args))}, FILE) writes";
  auto saved = exported::torch_load(bytes, what);
  if (!saved.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(saved.status().message(), "; ", holds));
  }
  std::optional<SavedRun> run;
  if (saved->isGenericDict()) {
    c10::IValue inputs, outputs;
    for (const auto& kv : saved->toGenericDict()) {
      if (!kv.key().isString()) continue;
      if (kv.key().toStringRef() == "inputs") inputs = kv.value();
      if (kv.key().toStringRef() == "outputs") outputs = kv.value();
    }
    auto items = [](const c10::IValue& v) -> std::optional<std::vector<c10::IValue>> {
      if (v.isTuple()) return v.toTupleRef().elements().vec();
      if (v.isList()) return v.toListRef().vec();
      return std::nullopt;
    };
    auto in = items(inputs);
    auto out = items(outputs);
    if (in && out) run = SavedRun{*std::move(in), *std::move(out)};
  }
  if (!run) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is not a saved run: it holds no dict with 'inputs' and 'outputs' sequences; ", holds));
  }
  return *std::move(run);
}

std::string saved_run_beside(const std::string& model_path) {
  absl::string_view stem = model_path;
  absl::ConsumeSuffix(&stem, ".pt2");
  return absl::StrCat(stem, ".expected.pt");
}


CheckReference saved_run_reference(const SavedRun& run, const std::string& description) {
  CheckReference reference;
  reference.name = description;
  reference.other_kernels = true;
  c10::IValue outputs = c10::ivalue::Tuple::create(run.outputs);
  reference.run = [outputs](std::vector<c10::IValue>&) -> absl::StatusOr<c10::IValue> {
    return outputs;
  };
  return reference;
}

// What the runs on a GPU did besides computing: host synchronisations, and
// whether they replayed a CUDA graph.
std::string describe_cuda_runs(const ExecutionPlan& plan, const ExecutionPlan::RunState& state,
                               const RunOptions& options) {
  const CudaRunStatus status = plan.cuda_status(state);
  if (!status.observed) {
    return options.cuda_graphs ? "cuda graph: not captured: it is captured at the second run "
                                 "(add --warmup=1 or --repeat=2)\n"
                               : "";
  }
  std::string text = absl::StrCat(
      "host synchronisations: ",
      status.host_syncs.empty()
          ? "none"
          : absl::StrCat(absl::StrJoin(status.host_syncs, ", "),
                         " (each waits for the device to read a value on the host)"),
      "\n");
  if (options.cuda_graphs) {
    absl::StrAppend(&text, "cuda graph: ",
                    status.captured ? absl::StrCat("captured, replayed ", status.replays, " time(s)")
                                    : absl::StrCat("not captured: ", status.not_captured),
                    "\n");
  }
  return text;
}

namespace {

// A graph whose output is in oneDNN's opaque layout (a graph file calling
// aten::to_mkldnn last) gives values nothing outside the graph can read:
// printing, checking or comparing them fails inside libtorch.
absl::Status refuse_opaque_outputs(const c10::IValue& outputs) {
  std::vector<std::pair<std::string, at::Tensor>> flat;
  flatten_tensors(outputs, "", flat);
  for (const auto& [name, t] : flat) {
    if (t.defined() && t.is_mkldnn()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output ", name.empty() ? "0" : name,
          " is an MKLDNN tensor (oneDNN's opaque layout), which no reader outside the graph "
          "takes: return aten::to_dense of it (the mkldnn_layout pass does so for its own)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> run_graph(const GraphModule& gm, const std::vector<c10::IValue>& inputs,
                                      const RunOptions& options,
                                      const CheckReference* reference) {
  PlanOptions plan_options;
  plan_options.device = options.device;
  plan_options.cuda_graphs = options.cuda_graphs;
  if (options.device.is_cuda()) allow_tf32(options.tf32);
  auto plan = ExecutionPlan::compile(gm, plan_options);
  if (!plan.ok()) return plan.status();
  std::string report;
  std::vector<std::string> described;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name =
        i < (*plan)->input_names().size() ? (*plan)->input_names()[i] : std::to_string(i);
    described.push_back(absl::StrCat(
        name, " ", inputs[i].isTensor() ? describe_tensor(inputs[i].toTensor()) : inputs[i].tagKind()));
  }
  absl::StrAppend(&report, "run on ", options.device.str(), ": ", absl::StrJoin(described, ", "),
                  "\n");
  if (reference != nullptr && options.device.is_meta()) {
    return absl::InvalidArgumentError(
        "--check compares values, and the meta device has none: run on cpu or cuda");
  }
  // Every run gets its own copy of the inputs, laid out as given (the plan
  // may change them in place, and must see what the module sees).
  auto state = (*plan)->make_state();
  std::vector<double> times;
  c10::IValue first;  // the first run's result: what one run of the model gives
  std::vector<c10::IValue> first_inputs;  // and its inputs as it left them
  const int runs = options.warmup + std::max(1, options.repeat);
  for (int i = 0; i < runs; ++i) {
    std::vector<c10::IValue> run_inputs = deep_copy(inputs);
    if (i == 0) first_inputs = run_inputs;  // (the same tensors)
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<c10::IValue> result = (*plan)->run(*state, std::move(run_inputs));
    wait_for_device(options.device);  // (a GPU runs the kernels after run() returns)
    const auto end = std::chrono::steady_clock::now();
    if (!result.ok() && options.device.is_meta()) {
      return absl::InvalidArgumentError(absl::StrCat(
          result.status().message(),
          "; the meta device runs only what needs no data (operators with meta kernels, no "
          "values read out of tensors): run on cpu, or get the shapes from "
          "--passes='shape_prop{device=meta}', which computes such nodes on real tensors"));
    }
    if (!result.ok()) return result.status();
    if (i == 0) {
      if (absl::Status s = refuse_opaque_outputs(*result); !s.ok()) return s;
    }
    if (i >= options.warmup) times.push_back(millis(end - start));
    // (Copied when more runs follow: it may be a buffer they change.)
    if (i == 0) first = runs > 1 ? deep_copy(*result) : *std::move(result);
  }
  absl::StrAppend(&report, describe_outputs(first));
  if (options.device.is_cuda()) absl::StrAppend(&report, describe_cuda_runs(**plan, *state, options));
  if (reference != nullptr) {
    absl::StatusOr<std::string> checked =
        check_outputs(first, inputs, *reference, Tolerance{options.atol, options.rtol}, &first_inputs);
    if (!checked.ok()) return checked.status();
    absl::StrAppend(&report, *checked);
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
