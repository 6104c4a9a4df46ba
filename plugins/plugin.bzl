"""fx_plugin: a plugin as a shared library, plus a static library for its tests.

    fx_plugin(
        name = "module_path",
        srcs = ["module_path.cc"],
        hdrs = ["module_path.h"],
        plugin_srcs = ["plugin.cc"],   # the FX_PLUGIN entry point
        deps = ["//tracer"],           # for the static library (the plugin API is added)
    )

makes
    :module_path            cc_library, for unit tests that link the code directly;
    :libfx_module_path.so   the plugin, linked against libfx.so (//plugins:fx) so
                            that it shares the host's registry and libtorch.
The shared library is what fxrun loads, in-tree and out-of-tree alike.
"""

def fx_plugin(name, srcs, hdrs, plugin_srcs, deps = [], plugin_deps = [], visibility = None):
    native.cc_library(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        deps = deps + [str(Label("//plugins:api"))],
        visibility = visibility,
    )
    native.cc_binary(
        name = "libfx_" + name + ".so",
        srcs = srcs + hdrs + plugin_srcs,
        linkshared = 1,
        deps = [str(Label("//plugins:fx"))] + plugin_deps,
        visibility = ["//visibility:public"],
    )
