"""fx_plugin: a plugin as a shared library, its code in libfx.so, and a static library for its tests.

    fx_plugin(
        name = "module_path",
        srcs = ["module_path.cc"],
        hdrs = ["module_path.h"],         # declares register_module_path(PluginRegistrar&)
        plugin_srcs = ["plugin.cc"],     # the FX_PLUGIN entry point, calling it
        deps = ["//tracer"],             # for the static library (the plugin API is added)
        plugin_deps = [],                # libraries compiled against headers alone that the code needs
    )

makes
    :module_path              cc_library, for unit tests that link the code directly;
    :module_path_code         the code, compiled once against libfx.so's headers;
                              libfx.so (//plugins:libfx.so) links the in-tree ones
                              (in_tree.bzl), so programs that embed FX for C++ have
                              them in-process (fx/builtin_plugins.h: no dlopen);
    :libfx_module_path.so     the plugin: its entry point alone, linked against
                              libfx.so, whose code it registers. It shares the
                              host's registry and libtorch, and is loaded as an
                              out-of-tree plugin is (fxrun loads every in-tree one).

An out-of-tree plugin (plugins/examples/out_of_tree, the release's CMake
fx_add_plugin) compiles its code into its own library instead.
"""

def fx_plugin(name, srcs, hdrs, plugin_srcs, deps = [], plugin_deps = [], visibility = None):
    headers = name + "_headers"
    code = name + "_code"
    native.cc_library(
        name = headers,
        hdrs = hdrs,
        deps = [str(Label("//plugins:fx_headers"))],
        visibility = ["//visibility:public"],
    )
    native.cc_library(
        name = code,
        srcs = srcs,
        deps = [":" + headers] + plugin_deps,
        # Linked whole into libfx.so and into the static library.
        alwayslink = 1,
        visibility = ["//visibility:public"],
    )
    native.cc_library(
        name = name,
        deps = [":" + code] + deps + plugin_deps + [str(Label("//plugins:api"))],
        visibility = visibility,
    )
    # Every header of the plugin's folder, for the release (tools/release).
    native.filegroup(
        name = "release_headers",
        srcs = native.glob(["*.h"]),
        visibility = ["//tools/release:__pkg__"],
    )
    native.cc_binary(
        name = "libfx_" + name + ".so",
        srcs = plugin_srcs,
        linkshared = 1,
        deps = [":" + headers, str(Label("//fx:version")), str(Label("//plugins:fx"))],
        visibility = ["//visibility:public"],
    )
