// Copyright 2026 The FX for C++ Authors.
#include "codegen/kernel_library.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <c10/util/hash.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

extern char** environ;

namespace fx {
namespace codegen {
namespace {

// Bumped when what a cached library holds changes meaning for the same key.
constexpr char kCacheFormat[] = "fx-kernel-library 1";
// The most of a compiler's messages an error quotes.
constexpr size_t kMaxCompilerMessage = 2000;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// The compiler's file: `compiler` itself when it names a path, else the
// first PATH entry holding an executable of that name. Empty when none.
std::string resolve_compiler(const std::string& compiler) {
  if (compiler.find('/') != std::string::npos) {
    return access(compiler.c_str(), X_OK) == 0 ? compiler : "";
  }
  for (absl::string_view dir : absl::StrSplit(environment("PATH"), ':', absl::SkipEmpty())) {
    const std::string candidate = absl::StrCat(dir, "/", compiler);
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

// What identifies the compiler without starting it: the file it resolves to
// (through symlinks: c++ -> g++-12), its size and its modification time.
absl::StatusOr<std::string> compiler_identity(const std::string& path) {
  std::error_code error;
  const std::filesystem::path real = std::filesystem::canonical(path, error);
  struct stat st;
  if (error || stat(real.c_str(), &st) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read the compiler ", path, ": ", std::strerror(errno)));
  }
  return absl::StrCat(real.string(), " ", st.st_size, " ", st.st_mtim.tv_sec, ".",
                      st.st_mtim.tv_nsec);
}

std::string cache_key(const std::string& identity, const std::vector<std::string>& flags,
                      absl::string_view source) {
  std::string text = absl::StrCat(kCacheFormat, "\n", identity, "\n", absl::StrJoin(flags, " "),
                                  "\n", source);
  return c10::sha1(text).str();
}

// Runs `argv` (no shell), returning its exit status and what it wrote on
// standard output and error together.
absl::StatusOr<std::pair<int, std::string>> run_command(const std::vector<std::string>& argv) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start the compiler ", argv[0], ": ", std::strerror(spawned)));
  }
  std::string output;
  char buffer[4096];
  ssize_t n;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    // Keep the start (the first error) and no more than a message needs.
    if (output.size() < 16 * kMaxCompilerMessage) output.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return std::make_pair(status, output);
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exit status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return absl::StrCat("signal ", WTERMSIG(status));
  return "an unknown status";
}

// A file in `dir` named PREFIX.XXXXXX.SUFFIX, made and closed; its name.
absl::StatusOr<std::string> temporary_file(const std::string& dir, const std::string& prefix,
                                           const std::string& suffix) {
  std::string name = absl::StrCat(dir, "/", prefix, ".XXXXXX", suffix);
  const int fd = mkstemps(name.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot write in the kernel cache ", dir, ": ", std::strerror(errno),
        " (set FX_CACHE_DIR to a folder of your own)"));
  }
  close(fd);
  return name;
}

// Code found in the cache runs in this process: the folder and the library
// must be writable by this user alone, else another user (or a process of
// theirs) could plant a library under a key's name, as a shared /tmp allows.
absl::Status check_private(const std::string& path, bool folder) {
  // (A folder through a link is the folder linked to, as ~/.cache often is;
  // a library must be a file of its own.)
  struct stat st;
  if ((folder ? stat(path.c_str(), &st) : lstat(path.c_str(), &st)) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  const char* what = folder ? "the kernel cache " : "the cached kernel ";
  if (folder ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, path, " is not a ", folder ? "folder" : "regular file (a link, or something else)",
        ": set FX_CACHE_DIR to a folder of your own"));
  }
  if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s%s is %s (mode %04o): code planted there would run in this process; use a folder only "
        "you can write (set FX_CACHE_DIR, or chmod go-w)",
        what, path, st.st_uid != geteuid() ? "another user's" : "writable by other users",
        st.st_mode & 07777));
  }
  return absl::OkStatus();
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kBaseline:
      return "baseline";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
  }
  return "?";
}

Isa this_cpu_isa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    return Isa::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
#endif
  return Isa::kBaseline;
}

std::vector<std::string> isa_flags(Isa isa) {
  switch (isa) {
    case Isa::kBaseline:
      return {};
    case Isa::kAvx2:
      return {"-mavx2", "-mfma", "-mf16c"};
    case Isa::kAvx512:
      return {"-mavx2", "-mfma", "-mf16c", "-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq"};
  }
  return {};
}

CompilerOptions CompilerOptions::from_environment() {
  CompilerOptions options;
  if (std::string cxx = environment("FX_CXX"); !cxx.empty()) options.compiler = cxx;
  options.cache_dir = environment("FX_CACHE_DIR");
  if (options.cache_dir.empty()) {
    std::string base = environment("XDG_CACHE_HOME");
    if (base.empty()) base = absl::StrCat(environment("HOME"), "/.cache");
    options.cache_dir = absl::StrCat(base, "/fx-cpp/kernels");
  }
  options.isa = this_cpu_isa();
  return options;
}

absl::StatusOr<std::shared_ptr<const KernelLibrary>> KernelLibrary::compile(
    absl::string_view source, const CompilerOptions& options) {
  const std::string compiler = resolve_compiler(options.compiler);
  if (compiler.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no C++ compiler: ", options.compiler,
        options.compiler.find('/') != std::string::npos ? " is not an executable file"
                                                        : " is not on PATH",
        "; install one (apt-get install g++) or name it with FX_CXX"));
  }
  auto identity = compiler_identity(compiler);
  if (!identity.ok()) return identity.status();
  std::vector<std::string> flags = options.flags;
  for (std::string& f : isa_flags(options.isa)) flags.push_back(std::move(f));
  const std::string key = cache_key(*identity, flags, source);

  if (options.cache_dir.empty()) {
    return absl::InvalidArgumentError("no kernel cache folder: set FX_CACHE_DIR");
  }
  std::error_code error;
  std::filesystem::create_directories(options.cache_dir, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot make the kernel cache ", options.cache_dir, ": ", error.message(),
        " (set FX_CACHE_DIR to a folder of your own)"));
  }
  if (absl::Status s = check_private(options.cache_dir, /*folder=*/true); !s.ok()) return s;
  const std::string path = absl::StrCat(options.cache_dir, "/", key, ".so");

  if (access(path.c_str(), R_OK) == 0) {
    if (absl::Status s = check_private(path, /*folder=*/false); !s.ok()) return s;
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      return std::shared_ptr<const KernelLibrary>(new KernelLibrary(path, handle, true));
    }
    // (A library another process left unreadable: compiled again below.)
  }

  auto source_file = temporary_file(options.cache_dir, key, ".cpp");
  if (!source_file.ok()) return source_file.status();
  auto library_file = temporary_file(options.cache_dir, key, ".so");
  if (!library_file.ok()) {
    std::remove(source_file->c_str());
    return library_file.status();
  }
  auto remove_temporaries = [&] {
    std::remove(source_file->c_str());
    std::remove(library_file->c_str());
  };
  {
    std::ofstream out(*source_file, std::ios::binary);
    out << source;
    if (!out.flush()) {
      remove_temporaries();
      return absl::FailedPreconditionError(absl::StrCat("cannot write ", *source_file));
    }
  }
  std::vector<std::string> argv = {compiler};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {"-o", *library_file, *source_file});
  auto ran = run_command(argv);
  if (!ran.ok() || ran->first != 0) {
    remove_temporaries();
    if (!ran.ok()) return ran.status();
    std::string message = ran->second.substr(0, kMaxCompilerMessage);
    return absl::InternalError(absl::StrCat(
        "the compiler ", compiler, " failed on generated code (", describe_exit(ran->first),
        "; a bug of the code generator, please report it): ",
        absl::StripTrailingAsciiWhitespace(message)));
  }
  // Into place: the library last, so that whoever finds it finds it whole.
  const std::string kept_source = absl::StrCat(options.cache_dir, "/", key, ".cpp");
  if (std::rename(source_file->c_str(), kept_source.c_str()) != 0 ||
      std::rename(library_file->c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    remove_temporaries();
    return absl::FailedPreconditionError(
        absl::StrCat("cannot put a compiled kernel into the cache ", options.cache_dir, ": ", why));
  }
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::InternalError(absl::StrCat("cannot load the compiled kernel ", path, ": ", dlerror()));
  }
  return std::shared_ptr<const KernelLibrary>(new KernelLibrary(path, handle, false));
}

KernelLibrary::~KernelLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

absl::StatusOr<void*> KernelLibrary::symbol(const std::string& name) const {
  dlerror();
  void* address = dlsym(handle_, name.c_str());
  if (address == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("the compiled kernel library ", path_, " has no function ", name));
  }
  return address;
}

}  // namespace codegen
}  // namespace fx
