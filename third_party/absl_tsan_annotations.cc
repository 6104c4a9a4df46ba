// Copyright 2026 The FX for C++ Authors.
//
// absl::Mutex made visible to ThreadSanitizer, for --config=tsan alone
// (//third_party:absl links it in then).
//
// Debian's Abseil is compiled without ThreadSanitizer, so the annotations an
// instrumented Abseil makes in Mutex::Lock and Unlock are not there: every
// variable our code guards with an absl::Mutex would be reported as a race
// between its lockers. These definitions take the place of the library's
// (the program's symbols come first in the dynamic lookup), tell
// ThreadSanitizer what each call does with its mutex, and call the
// library's own function for the locking itself. Only
// the calls FX for C++ makes are covered: Lock, Unlock, ReaderLock,
// ReaderUnlock, TryLock, ReaderTryLock (no CondVar, Await or LockWhen).
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/base/config.h"
#include "absl/synchronization/mutex.h"

namespace {

// "_ZN4absl" and the inline namespace, as Itanium mangling spells them.
std::string mangled_absl() {
  std::string name = "_ZN4absl";
#if ABSL_OPTION_USE_INLINE_NAMESPACE
  const std::string inline_namespace = ABSL_INTERNAL_TOKEN_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  name += std::to_string(inline_namespace.size()) + inline_namespace;
#endif
  return name;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "absl_tsan_annotations: %s: %s\n", what.c_str(), dlerror());
  std::abort();
}

// Abseil's synchronization library itself, found through a function these
// definitions do not replace (Mutex::ForgetDeadlockInfo). (Not RTLD_NEXT: a
// program and the shared library it links, libfx.so, may each hold these
// definitions, and the first would find the second's, annotating each call
// twice.)
void* absl_synchronization() {
  static void* handle = [] {
    const std::string probe = mangled_absl() + "5Mutex18ForgetDeadlockInfoEv";
    void* f = dlsym(RTLD_DEFAULT, probe.c_str());
    Dl_info info;
    if (f == nullptr || dladdr(f, &info) == 0) fail("no " + probe + " in the process");
    void* h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (h == nullptr) fail(std::string("cannot open ") + info.dli_fname);
    return h;
  }();
  return handle;
}

// Abseil's definition of the member function whose mangled name ends in
// `member` ("4LockEv" for Mutex::Lock()).
template <typename Result>
Result (*library_function(const char* member))(absl::Mutex*) {
  const std::string name = mangled_absl() + "5Mutex" + member;
  void* f = dlsym(absl_synchronization(), name.c_str());
  if (f == nullptr) fail("no " + name + " in Abseil's synchronization library");
  return reinterpret_cast<Result (*)(absl::Mutex*)>(f);
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

// Abseil 20250814 made lock(), unlock() and the rest (std::mutex's names)
// the functions its library defines, and Lock(), Unlock()... inline calls of
// them (Debian unstable has 20260526); up to 20250512 the capitalised ones
// were the library's (Debian 13 has 20240722, Debian 12 20220623). An Abseil
// built from its head carries no release number, and is new.
#if !defined(ABSL_LTS_RELEASE_VERSION) || ABSL_LTS_RELEASE_VERSION >= 20250814
#define FX_ABSL_NAME(lower, upper) lower
#else
#define FX_ABSL_NAME(lower, upper) upper
#endif

void Mutex::FX_ABSL_NAME(lock, Lock)() {
  static auto* real = library_function<void>(FX_ABSL_NAME("4lockEv", "4LockEv"));
  __tsan_mutex_pre_lock(this, 0);
  real(this);
  __tsan_mutex_post_lock(this, 0, 0);
}

void Mutex::FX_ABSL_NAME(lock_shared, ReaderLock)() {
  static auto* real = library_function<void>(FX_ABSL_NAME("11lock_sharedEv", "10ReaderLockEv"));
  __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  real(this);
  __tsan_mutex_post_lock(this, __tsan_mutex_read_lock, 0);
}

bool Mutex::FX_ABSL_NAME(try_lock, TryLock)() {
  static auto* real = library_function<bool>(FX_ABSL_NAME("8try_lockEv", "7TryLockEv"));
  __tsan_mutex_pre_lock(this, __tsan_mutex_try_lock);
  const bool locked = real(this);
  __tsan_mutex_post_lock(this, locked ? __tsan_mutex_try_lock : __tsan_mutex_try_lock_failed, 0);
  return locked;
}

bool Mutex::FX_ABSL_NAME(try_lock_shared, ReaderTryLock)() {
  static auto* real =
      library_function<bool>(FX_ABSL_NAME("15try_lock_sharedEv", "13ReaderTryLockEv"));
  const unsigned flags = __tsan_mutex_read_lock | __tsan_mutex_try_lock;
  __tsan_mutex_pre_lock(this, flags);
  const bool locked = real(this);
  __tsan_mutex_post_lock(this, locked ? flags : flags | __tsan_mutex_try_lock_failed, 0);
  return locked;
}

void Mutex::FX_ABSL_NAME(unlock, Unlock)() {
  static auto* real = library_function<void>(FX_ABSL_NAME("6unlockEv", "6UnlockEv"));
  __tsan_mutex_pre_unlock(this, 0);
  real(this);
  __tsan_mutex_post_unlock(this, 0);
}

void Mutex::FX_ABSL_NAME(unlock_shared, ReaderUnlock)() {
  static auto* real =
      library_function<void>(FX_ABSL_NAME("13unlock_sharedEv", "12ReaderUnlockEv"));
  __tsan_mutex_pre_unlock(this, __tsan_mutex_read_lock);
  real(this);
  __tsan_mutex_post_unlock(this, __tsan_mutex_read_lock);
}

ABSL_NAMESPACE_END
}  // namespace absl
