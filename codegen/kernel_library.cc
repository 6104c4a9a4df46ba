// Copyright 2026 The FX for C++ Authors.
#include "codegen/kernel_library.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <c10/util/hash.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
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

// Each field with its length before it, so that no two lists of fields
// make the same text ({"-DA=1 -DB"} and {"-DA=1", "-DB"} differ).
std::string cache_key(const std::string& identity, const std::vector<std::string>& flags,
                      absl::string_view source) {
  std::string text = kCacheFormat;
  auto field = [&text](absl::string_view f) { absl::StrAppend(&text, "\n", f.size(), ":", f); };
  field(identity);
  for (const std::string& flag : flags) field(flag);
  field(source);
  return c10::sha1(text).str();
}

// Runs `argv` (no shell; standard input empty; no descriptor of this
// process but the pipe; signals unblocked and at their defaults), returning
// its wait status and what it wrote on standard output and error together.
// Past `timeout` it is killed, and that is an error.
absl::StatusOr<std::pair<int, std::string>> run_command(const std::vector<std::string>& argv,
                                                        std::chrono::seconds timeout) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
#endif
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, argv[0].c_str(), &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start the compiler ", argv[0], ": ", std::strerror(spawned)));
  }
  // Read until the pipe closes or the deadline passes (a compiler that hangs,
  // or a helper of it that keeps the pipe open).
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string output;
  bool timed_out = false;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{pipe_fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // (the deadline is checked above)
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    // Keep the start (the first error) and no more than a message needs.
    if (output.size() < 16 * kMaxCompilerMessage) output.append(buffer, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  pid_t waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return absl::DeadlineExceededError(absl::StrCat("the compiler ", argv[0], " did not finish in ",
                                                    timeout.count(), " s and was stopped"));
  }
  if (waited < 0) {
    // (ECHILD: the process ignores SIGCHLD, so its children are reaped unseen.)
    return absl::FailedPreconditionError(absl::StrCat("cannot learn whether the compiler ", argv[0],
                                                      " succeeded: ", std::strerror(errno),
                                                      " (is SIGCHLD ignored in this process?)"));
  }
  return std::make_pair(status, output);
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exit status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return absl::StrCat("killed by signal ", WTERMSIG(status),
                        WTERMSIG(status) == SIGKILL ? ", out of memory?" : "");
  }
  return "an unknown status";
}

// A file in `dir` named PREFIX.XXXXXX.SUFFIX, made and closed; its name.
absl::StatusOr<std::string> temporary_file(const std::string& dir, const std::string& prefix,
                                           const std::string& suffix) {
  std::string name = absl::StrCat(dir, "/", prefix, ".XXXXXX", suffix);
  const int fd = mkstemps(name.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write in the kernel cache ", dir, ": ", std::strerror(errno),
                     " (set FX_CACHE_DIR to a folder of your own)"));
  }
  close(fd);
  return name;
}

// Code found in the cache runs in this process, so only this user may
// change what is there: the cache folder must be this user's and writable by
// no one else, and every folder above it this user's or root's and not
// writable by others unless sticky (as /tmp is: others may not rename what is
// not theirs there). Checked on the open folder, not by name, so that what is
// checked is what is used.
std::string mode_text(const struct stat& st) {
  return absl::StrFormat("mode %04o", st.st_mode & 07777);
}

absl::Status check_folders_above(const std::filesystem::path& folder) {
  for (std::filesystem::path p = folder.parent_path(); !p.empty(); p = p.parent_path()) {
    struct stat st;
    if (stat(p.c_str(), &st) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot read ", p.string(), ": ", std::strerror(errno)));
    }
    const bool owner_ok = st.st_uid == geteuid() || st.st_uid == 0;
    const bool others_write = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
    if (!owner_ok || (others_write && (st.st_mode & S_ISVTX) == 0)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the kernel cache ", folder.string(), " is inside ", p.string(), " (", mode_text(st),
          owner_ok ? ", writable by other users" : ", another user's",
          "), where others could replace it: code planted there would run in this process; set "
          "FX_CACHE_DIR to a folder only you can write"));
    }
    if (p == p.root_path()) break;
  }
  return absl::OkStatus();
}

absl::Status check_private(const struct stat& st, const std::string& what,
                           const std::string& path) {
  if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, path, " is ", st.st_uid != geteuid() ? "another user's" : "writable by other users",
        " (", mode_text(st),
        "): code planted there would run in this process; use a folder only "
        "you can write (set FX_CACHE_DIR, or chmod go-w)"));
  }
  return absl::OkStatus();
}

// Makes `folder` and any missing folder above it, each readable by this user
// alone (whatever the umask).
absl::Status make_folders(const std::filesystem::path& folder) {
  std::filesystem::path p;
  for (const std::filesystem::path& part : folder) {
    p /= part;
    if (mkdir(p.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot make the kernel cache ", folder.string(), ": ", p.string(), ": ",
                       std::strerror(errno), " (set FX_CACHE_DIR to a folder of your own)"));
    }
  }
  return absl::OkStatus();
}

// The cache folder, opened and checked (its descriptor; -1 with the error).
absl::StatusOr<int> open_cache(const std::filesystem::path& folder) {
  if (absl::Status s = make_folders(folder); !s.ok()) return s;
  const int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot make the kernel cache ", folder.string(), ": ", why,
                     " (set FX_CACHE_DIR to a folder of your own)"));
  }
  absl::Status s = check_private(st, "the kernel cache ", folder.string());
  if (s.ok()) {
    std::error_code error;
    const std::filesystem::path real = std::filesystem::canonical(folder, error);
    s = error ? absl::FailedPreconditionError(
                    absl::StrCat("cannot read ", folder.string(), ": ", error.message()))
              : check_folders_above(real);
  }
  if (!s.ok()) {
    close(fd);
    return s;
  }
  return fd;
}

// A library loaded through /proc/self/fd/FD. The descriptor stays open while
// the library is loaded: glibc knows a loaded library by the name it was
// opened under, and a later library opened through the same descriptor
// number would be taken for it (its functions found in the first).
struct LoadedLibrary {
  void* handle = nullptr;
  int fd = -1;
};

// The library `name` of the open cache folder `dir`, loaded: no handle when
// there is none (or it does not load: a library another process left broken
// is compiled again); an error when it is not a private regular file. Opened
// once, checked and loaded through that descriptor, so that the file checked
// is the file loaded.
absl::StatusOr<LoadedLibrary> load_cached(int dir, const std::string& name,
                                          const std::string& shown) {
  const int fd = openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return LoadedLibrary();
    if (errno == ELOOP) {
      return absl::FailedPreconditionError(
          absl::StrCat("the cached kernel ", shown,
                       " is a link, not a file: set FX_CACHE_DIR to a folder of "
                       "your own"));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read the cached kernel ", shown, ": ", std::strerror(errno)));
  }
  struct stat st;
  absl::Status s = fstat(fd, &st) != 0 ? absl::FailedPreconditionError(absl::StrCat(
                                             "cannot read ", shown, ": ", std::strerror(errno)))
                   : !S_ISREG(st.st_mode)
                       ? absl::FailedPreconditionError(
                             absl::StrCat("the cached kernel ", shown, " is not a regular file"))
                       : check_private(st, "the cached kernel ", shown);
  LoadedLibrary loaded;
  if (s.ok()) {
    loaded.handle = dlopen(absl::StrCat("/proc/self/fd/", fd).c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (loaded.handle == nullptr) {
    close(fd);
  } else {
    loaded.fd = fd;
  }
  if (!s.ok()) return s;
  return loaded;
}

// $HOME, or the user's home folder in the password database when HOME is
// not set (a service's environment).
std::string home_folder() {
  std::string home = environment("HOME");
  if (!home.empty()) return home;
  struct passwd entry;
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &found) == 0 &&
      found != nullptr && found->pw_dir != nullptr) {
    return found->pw_dir;
  }
  return "";
}

}  // namespace

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::kBaseline: return "baseline";
    case Isa::kAvx2: return "avx2";
    case Isa::kAvx512: return "avx512";
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
    case Isa::kBaseline: return {};
    case Isa::kAvx2: return {"-mavx2", "-mfma", "-mf16c"};
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
    if (base.empty()) base = absl::StrCat(home_folder(), "/.cache");
    options.cache_dir = absl::StrCat(base, "/fx-cpp/kernels");
  }
  options.isa = this_cpu_isa();
  return options;
}

absl::StatusOr<std::shared_ptr<const KernelLibrary>> KernelLibrary::compile(
    absl::string_view source, const CompilerOptions& options) {
  const std::string compiler = resolve_compiler(options.compiler);
  if (compiler.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no C++ compiler: ", options.compiler,
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
  const std::filesystem::path folder = std::filesystem::absolute(options.cache_dir, error);
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad kernel cache folder ", options.cache_dir, ": ", error.message()));
  }
  auto dir = open_cache(folder);
  if (!dir.ok()) return dir.status();
  struct CloseDir {
    int fd;
    ~CloseDir() { close(fd); }
  } close_dir{*dir};
  const std::string name = key + ".so";
  const std::string path = (folder / name).string();

  auto cached = load_cached(*dir, name, path);
  if (!cached.ok()) return cached.status();
  if (cached->handle != nullptr) {
    return std::shared_ptr<const KernelLibrary>(
        new KernelLibrary(path, cached->handle, cached->fd, true));
  }

  auto source_file = temporary_file(folder.string(), key, ".cpp");
  if (!source_file.ok()) return source_file.status();
  auto library_file = temporary_file(folder.string(), key, ".so");
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
  auto ran = run_command(argv, std::chrono::seconds(options.timeout_seconds));
  if (!ran.ok() || ran->first != 0) {
    remove_temporaries();
    if (!ran.ok()) return ran.status();
    std::string message = ran->second.substr(0, kMaxCompilerMessage);
    return absl::InternalError(absl::StrCat(
        "the compiler ", compiler, " failed on the kernel's source (", describe_exit(ran->first),
        "): ", absl::StripTrailingAsciiWhitespace(message)));
  }
  // Into place, readable by others and writable by this user alone (a linker
  // may make its output as the umask says), the library last, so that
  // whoever finds it finds it whole.
  const std::string kept_source = (folder / (key + ".cpp")).string();
  if (chmod(source_file->c_str(), 0644) != 0 || chmod(library_file->c_str(), 0755) != 0 ||
      std::rename(source_file->c_str(), kept_source.c_str()) != 0 ||
      std::rename(library_file->c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    remove_temporaries();
    std::remove(kept_source.c_str());
    return absl::FailedPreconditionError(
        absl::StrCat("cannot put a compiled kernel into the cache ", folder.string(), ": ", why));
  }
  auto loaded = load_cached(*dir, name, path);
  if (!loaded.ok()) return loaded.status();
  if (loaded->handle == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot load the compiled kernel ", path, ": ", dlerror()));
  }
  return std::shared_ptr<const KernelLibrary>(
      new KernelLibrary(path, loaded->handle, loaded->fd, false));
}

KernelLibrary::~KernelLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
  if (fd_ >= 0) close(fd_);
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
