// Copyright 2026 The FX for C++ Authors.
#include "codegen/generated_elementwise.h"

#include <memory>
#include <string>
#include <utility>

#include <c10/util/Exception.h>

#include "absl/base/call_once.h"
#include "absl/base/const_init.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
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

// Every kernel made, by program, dtype, 0-dim pattern and options. Holds no
// failure once its callers have it (the next ask tries again: a compiler
// killed at its timeout, a full disk), and never drops a kernel: plans that
// ran it hold its function.
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

  // Drops `made` (a failure) if `key` still holds it.
  void forget(const std::string& key, const std::shared_ptr<Made>& made) {
    absl::MutexLock lock(&mu_);
    if (auto it = made_.find(key); it != made_.end() && it->second == made) made_.erase(it);
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

// Whether `message` is said for the first time in this process.
bool first_time(const std::string& message) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* said = new absl::flat_hash_set<std::string>();  // never destroyed, as Kernels
  absl::MutexLock lock(&mu);
  return said->insert(message).second;
}

// The maker fx::compiled_elementwise asks (once per program and signature:
// the operator keeps what it returns): the environment's compiler and cache,
// read as the pass reads them, so that a kernel the pass made is found. Each
// distinct failure is said once; the program then runs through the
// interpreter.
ElementwiseKernelFn make_for_operator(const ElementwiseProgram& program, c10::ScalarType dtype,
                                      const std::vector<bool>& scalar_inputs) {
  absl::StatusOr<ElementwiseKernelFn> kernel =
      elementwise_kernel(program, dtype, scalar_inputs, CompilerOptions::from_environment());
  if (kernel.ok()) return *kernel;
  if (first_time(std::string(kernel.status().message()))) {
    TORCH_WARN("fx::compiled_elementwise: no kernel could be generated (",
               kernel.status().message(),
               "); such programs run through fx::elementwise's interpreter, which computes the "
               "same, more slowly");
  }
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
  const std::string key = key_of(program, dtype, scalar_inputs, options);
  std::shared_ptr<Made> made = Kernels::instance().find_or_add(key, &added);
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
  if (!made->status.ok()) {
    Kernels::instance().forget(key, made);
    return made->status;
  }
  return made->kernel;
}

}  // namespace codegen
}  // namespace fx
