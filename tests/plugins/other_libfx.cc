// Copyright 2026 The FX for C++ Authors.
//
// A stand-in for another build's libfx (SONAME libfx.so.0.1, as a release of
// another version has): the plugin loader must refuse a plugin that needs it
// before the dynamic loader maps it. Loading it aborts the process, as a real
// second libfx does (libtorch aborts on its second registration of the fx
// operators), so a loader that let it in fails its test by crashing.
#include <cstdio>
#include <cstdlib>

namespace {

struct AbortWhenLoaded {
  AbortWhenLoaded() {
    std::fputs("other_libfx: a second libfx was loaded into the process\n", stderr);
    std::abort();
  }
} abort_when_loaded;

}  // namespace

extern "C" __attribute__((visibility("default"))) int other_libfx_version() { return 1; }
