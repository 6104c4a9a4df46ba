// Copyright 2026 The FX for C++ Authors.
#include "codegen/generated_elementwise.h"

#include <memory>
#include <string>
#include <utility>

#include <c10/util/Exception.h>

#include "absl/base/call_once.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "codegen/elementwise_source.h"

namespace fx {
namespace codegen {
namespace {

// One kernel of the process: made once, by the first thread that asks.
struct Made {
  absl::once_flag once;
  absl::Status status;
  std::shared_ptr<const KernelLibrary> library;  // kept for the process
  ElementwiseKernelFn kernel = nullptr;
  bool compiled = false;
};

// Every kernel asked for, by program, dtype, 0-dim pattern and options.
// Never shrinks: a kernel is held by the plans that ran it.
class Kernels {
 public:
  static Kernels& instance() {
    static Kernels* kernels = new Kernels();  // never destroyed: plans may outlive exit's destructors
    return *kernels;
  }

  std::shared_ptr<Made> find_or_add(const std::string& key, bool* added) {
    absl::MutexLock lock(&mu_);
    auto [it, inserted] = made_.try_emplace(key, nullptr);
    if (inserted) it->second = std::make_shared<Made>();
    *added = inserted;
    return it->second;
  }

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<Made>> made_ ABSL_GUARDED_BY(mu_);
};

std::string key_of(const ElementwiseProgram& program, c10::ScalarType dtype,
                   const std::vector<bool>& scalar_inputs, const CompilerOptions& options) {
  std::string pattern;
  for (bool scalar : scalar_inputs) pattern.push_back(scalar ? 's' : 't');
  // Length-prefixed: no field can end inside another.
  std::string key;
  for (const std::string& field :
       {program.to_string(), std::string(c10::toString(dtype)), pattern, options.compiler,
        options.cache_dir, std::string(isa_name(options.isa)),
        absl::StrCat(options.timeout_seconds)}) {
    absl::StrAppend(&key, field.size(), ":", field);
  }
  for (const std::string& flag : options.flags) absl::StrAppend(&key, flag.size(), ":", flag);
  return key;
}

// The maker fx::compiled_elementwise asks: the environment's compiler and
// cache; a failure said once, after which the operator interprets.
ElementwiseKernelFn make_for_operator(const ElementwiseProgram& program, c10::ScalarType dtype,
                                      const std::vector<bool>& scalar_inputs) {
  static const CompilerOptions options = CompilerOptions::from_environment();
  absl::StatusOr<ElementwiseKernelFn> kernel =
      elementwise_kernel(program, dtype, scalar_inputs, options);
  if (kernel.ok()) return *kernel;
  TORCH_WARN_ONCE("fx::compiled_elementwise: no kernel could be generated (",
                  kernel.status().message(),
                  "); the programs run through fx::elementwise's interpreter, which computes the "
                  "same, more slowly");
  return nullptr;
}

[[maybe_unused]] const bool maker_installed = [] {
  set_elementwise_kernel_maker(&make_for_operator);
  return true;
}();

}  // namespace

absl::StatusOr<ElementwiseKernelFn> elementwise_kernel(const ElementwiseProgram& program,
                                                       c10::ScalarType dtype,
                                                       const std::vector<bool>& scalar_inputs,
                                                       const CompilerOptions& options,
                                                       ElementwiseKernelOrigin* origin) {
  bool added = false;
  std::shared_ptr<Made> made =
      Kernels::instance().find_or_add(key_of(program, dtype, scalar_inputs, options), &added);
  absl::call_once(made->once, [&] {
    absl::StatusOr<std::string> source =
        elementwise_source(program, ElementwiseSignature{dtype, scalar_inputs});
    if (!source.ok()) {
      made->status = source.status();
      return;
    }
    absl::StatusOr<std::shared_ptr<const KernelLibrary>> library =
        KernelLibrary::compile(*source, options);
    if (!library.ok()) {
      made->status = library.status();
      return;
    }
    absl::StatusOr<ElementwiseKernel*> kernel =
        (*library)->function<ElementwiseKernel>(kElementwiseKernelName);
    if (!kernel.ok()) {
      made->status = kernel.status();
      return;
    }
    made->library = *std::move(library);
    made->kernel = *kernel;
    made->compiled = !made->library->from_cache();
  });
  if (origin != nullptr) {
    origin->made_in_this_process = added;
    origin->compiled = added && made->compiled;
  }
  if (!made->status.ok()) return made->status;
  return made->kernel;
}

}  // namespace codegen
}  // namespace fx
