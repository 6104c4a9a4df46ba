"""fx_plugin: a plugin as a shared library, plus a static library for its tests.

    fx_plugin(
        name = "module_path",
        srcs = ["module_path.cc"],
        hdrs = ["module_path.h"],
        plugin_srcs = ["plugin.cc"],   # the FX_PLUGIN entry point
        deps = ["//tracer"],           # for the static library (the plugin API is added)
        plugin_deps = [],              # header-only or self-contained libraries both links need
    )

makes
    :module_path            cc_library, for unit tests that link the code directly;
    :libfx_module_path.so   the plugin, linked against libfx.so (//plugins:fx) so
                            that it shares the host's registry and libtorch.
The shared library is what fxrun loads, in-tree and out-of-tree alike.

The sources are compiled once (:module_path_code), against the headers of
libfx.so alone, and linked into both: the static library adds the
implementations from `deps`, the plugin takes them from libfx.so. So
`plugin_deps` must not link //core, //runtime or //tracer statically (a
plugin with its own copy of them would have a registry of its own).
"""

def fx_plugin(name, srcs, hdrs, plugin_srcs, deps = [], plugin_deps = [], visibility = None):
    code = name + "_code"
    native.cc_library(
        name = code,
        srcs = srcs,
        hdrs = hdrs,
        deps = [str(Label("//plugins:fx_headers"))] + plugin_deps,
        # Linked whole into both, as sources of each were before.
        alwayslink = 1,
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        deps = [":" + code] + deps + plugin_deps + [str(Label("//plugins:api"))],
        visibility = visibility,
    )
    native.cc_binary(
        name = "libfx_" + name + ".so",
        srcs = plugin_srcs,
        linkshared = 1,
        deps = [":" + code, str(Label("//plugins:fx"))] + plugin_deps,
        visibility = ["//visibility:public"],
    )
