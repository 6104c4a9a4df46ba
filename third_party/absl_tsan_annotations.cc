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
// library's own function (dlsym's RTLD_NEXT) for the locking itself. Only
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

// The library's definition of the member function whose Itanium mangled
// name ends in `member` ("4LockEv" for Mutex::Lock()), e.g.
// _ZN4absl7debian35Mutex4LockEv with Debian's inline namespace.
template <typename Result>
Result (*library_function(const char* member))(absl::Mutex*) {
  std::string name = "_ZN4absl";
#if ABSL_OPTION_USE_INLINE_NAMESPACE
  const std::string inline_namespace = ABSL_INTERNAL_TOKEN_STR(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  name += std::to_string(inline_namespace.size()) + inline_namespace;
#endif
  name += std::string("5Mutex") + member;
  void* f = dlsym(RTLD_NEXT, name.c_str());
  if (f == nullptr) {
    std::fprintf(stderr, "absl_tsan_annotations: %s is not in any library loaded: %s\n",
                 name.c_str(), dlerror());
    std::abort();
  }
  return reinterpret_cast<Result (*)(absl::Mutex*)>(f);
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

void Mutex::Lock() {
  static auto* lock = library_function<void>("4LockEv");
  __tsan_mutex_pre_lock(this, 0);
  lock(this);
  __tsan_mutex_post_lock(this, 0, 0);
}

void Mutex::ReaderLock() {
  static auto* lock = library_function<void>("10ReaderLockEv");
  __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  lock(this);
  __tsan_mutex_post_lock(this, __tsan_mutex_read_lock, 0);
}

bool Mutex::TryLock() {
  static auto* try_lock = library_function<bool>("7TryLockEv");
  __tsan_mutex_pre_lock(this, __tsan_mutex_try_lock);
  const bool locked = try_lock(this);
  __tsan_mutex_post_lock(this, locked ? __tsan_mutex_try_lock : __tsan_mutex_try_lock_failed, 0);
  return locked;
}

bool Mutex::ReaderTryLock() {
  static auto* try_lock = library_function<bool>("13ReaderTryLockEv");
  const unsigned flags = __tsan_mutex_read_lock | __tsan_mutex_try_lock;
  __tsan_mutex_pre_lock(this, flags);
  const bool locked = try_lock(this);
  __tsan_mutex_post_lock(this, locked ? flags : flags | __tsan_mutex_try_lock_failed, 0);
  return locked;
}

void Mutex::Unlock() {
  static auto* unlock = library_function<void>("6UnlockEv");
  __tsan_mutex_pre_unlock(this, 0);
  unlock(this);
  __tsan_mutex_post_unlock(this, 0);
}

void Mutex::ReaderUnlock() {
  static auto* unlock = library_function<void>("12ReaderUnlockEv");
  __tsan_mutex_pre_unlock(this, __tsan_mutex_read_lock);
  unlock(this);
  __tsan_mutex_post_unlock(this, __tsan_mutex_read_lock);
}

ABSL_NAMESPACE_END
}  // namespace absl
