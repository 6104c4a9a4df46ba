// Copyright 2026 The FX for C++ Authors.
//
// kernel_library.h: C++ source that FX for C++ generated, compiled with the
// machine's compiler into a shared library, cached on disk, and loaded into
// the process. The first piece of generated kernels (docs/codegen.md): the
// generator writes extern "C" functions over raw pointers, sizes and
// strides; this compiles them once per machine and finds them again.
//
//   auto library = fx::codegen::KernelLibrary::compile(
//       "extern \"C\" void add_one(float* x, long n) { for (long i = 0; i < n; ++i) x[i] += 1; }",
//       fx::codegen::CompilerOptions::from_environment());
//   if (!library.ok()) return library.status();  // no compiler, or it refused the source
//   auto add_one = (*library)->function<void(float*, long)>("add_one");
//
// Contracts:
//   * The cache key is a SHA-1 of the source, the flags (the instruction set
//     among them), and the compiler's identity (its resolved path, size and
//     modification time, so that no compiler is started to ask it): the same
//     source compiled again, in this process or a later one, starts no
//     compiler. Changing the compiler (an upgrade) compiles anew.
//   * Entries are written under a temporary name and renamed into place, so
//     processes compiling the same source at once each find a whole library;
//     the source is kept beside its library (KEY.cpp) for reading.
//   * Code found in the cache runs in this process, so only this user may
//     change what is there: the cache folder (made 0700, whatever the umask)
//     and each library in it must be this user's and writable by no one else,
//     a library must be a file (not a link), and every folder above the cache
//     must be this user's or root's and not writable by others unless sticky
//     (a cache in a shared /tmp would let another user plant a library under a
//     key's name). The folder and the library are checked through the
//     descriptors they are used through. Otherwise the status names the file
//     and its mode.
//   * No compiler (FX_CXX or c++ not found), a cache folder that cannot be
//     made, source the compiler refuses (quoting it), a compiler killed or
//     running past the timeout: a status naming the cause and the fix;
//     nothing is left in the cache. (A process killed while compiling leaves
//     its KEY.XXXXXX temporaries.)
//   * Loaded libraries stay loaded while a KernelLibrary holds them; kernels
//     taken from one must not outlive it. Each holds a file descriptor while
//     loaded (glibc knows a library by the /proc/self/fd name it was opened
//     under: a name reused while it is loaded would find it again).
#ifndef FX_CODEGEN_KERNEL_LIBRARY_H_
#define FX_CODEGEN_KERNEL_LIBRARY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {
namespace codegen {

// The instruction sets kernels are compiled for (as aten's CPU capability).
enum class Isa { kBaseline, kAvx2, kAvx512 };

// "baseline", "avx2", "avx512".
FX_API const char* isa_name(Isa isa);
// The widest this CPU runs.
FX_API Isa this_cpu_isa();
// The compiler flags that target `isa` (none for the baseline).
FX_API std::vector<std::string> isa_flags(Isa isa);

struct FX_API CompilerOptions {
  // The compiler: a path, or a name looked up on PATH.
  std::string compiler = "c++";
  // Where compiled libraries are kept (made when missing).
  std::string cache_dir;
  Isa isa = Isa::kBaseline;
  // A compiler running longer is stopped, and that is an error.
  int timeout_seconds = 300;
  // Flags besides the ISA's: optimisation and the C++ standard. Kernels must
  // round as aten's do: no fast math (said, for compilers that default to it,
  // as Intel's icpx does), and no contraction of a multiply and an add into
  // one fused multiply-add (rounded once where aten rounds twice).
  // (-fno-fast-math first: it turns math errno back on, -fno-math-errno off.)
  std::vector<std::string> flags = {"-std=c++17",
                                    "-O3",
                                    "-fPIC",
                                    "-shared",
                                    "-fvisibility=hidden",
                                    "-fno-fast-math",
                                    "-fno-math-errno",
                                    "-ffp-contract=off"};

  // FX_CXX (default c++); FX_CACHE_DIR (default $XDG_CACHE_HOME/fx-cpp/kernels,
  // or ~/.cache/fx-cpp/kernels, the home folder from the password database
  // where HOME is not set); this CPU's instruction set. A relative folder is
  // taken from the working directory when compile() runs.
  static CompilerOptions from_environment();
};

class FX_API KernelLibrary {
 public:
  // `source` compiled with `options` and loaded, or found in the cache and
  // loaded.
  static absl::StatusOr<std::shared_ptr<const KernelLibrary>> compile(
      absl::string_view source, const CompilerOptions& options);

  ~KernelLibrary();
  KernelLibrary(const KernelLibrary&) = delete;
  KernelLibrary& operator=(const KernelLibrary&) = delete;

  // The address of the extern "C" function `name` (exported by the source:
  // __attribute__((visibility("default")))); an error naming it when the
  // library has none.
  absl::StatusOr<void*> symbol(const std::string& name) const;
  template <typename Signature>
  absl::StatusOr<Signature*> function(const std::string& name) const {
    auto address = symbol(name);
    if (!address.ok()) return address.status();
    return reinterpret_cast<Signature*>(*address);
  }

  // The library's file in the cache, and whether it was there already (no
  // compiler ran).
  const std::string& path() const { return path_; }
  bool from_cache() const { return from_cache_; }

 private:
  KernelLibrary(std::string path, void* handle, int fd, bool from_cache)
      : path_(std::move(path)), handle_(handle), fd_(fd), from_cache_(from_cache) {}

  std::string path_;
  void* handle_;
  int fd_;  // the descriptor it was loaded through, open while it is loaded
  bool from_cache_;
};

}  // namespace codegen
}  // namespace fx

#endif  // FX_CODEGEN_KERNEL_LIBRARY_H_
