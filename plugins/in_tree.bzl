"""The in-tree plugins: every fx_plugin of this repository, by name.

libfx.so links their code (IN_TREE_PLUGIN_STATIC, through
//fx:builtin_plugins), which fx/builtin_plugins.h registers in-process; fxrun and the release carry their shared
libraries (IN_TREE_PLUGIN_LIBRARIES). A new in-tree plugin is added here and to
fx/builtin_plugins.cc.
"""

IN_TREE_PLUGINS = {
    "compile": "//passes/compile",
    "const_fold": "//passes/const_fold",
    "cse": "//passes/cse",
    "dce": "//passes/dce",
    "fold_bn": "//passes/fold_bn",
    "fuse_elementwise": "//passes/fuse_elementwise",
    "inline": "//passes/inline",
    "invert": "//passes/invert",
    "mkldnn_fusion": "//passes/mkldnn_fusion",
    "mkldnn_layout": "//passes/mkldnn_layout",
    "normalize_args": "//passes/normalize_args",
    "rewrite": "//passes/rewrite",
    "shape_prop": "//passes/shape_prop",
    "split": "//passes/split",
    "transpose_linear": "//passes/transpose_linear",
    "exec_order": "//tracer/exec_order",
    "leaf_policy": "//tracer/leaf_policy",
    "module_path": "//tracer/module_path",
    "tagging": "//tracer/tagging",
}

# Their static libraries (code and dependencies), which fx/builtin_plugins links.
IN_TREE_PLUGIN_STATIC = [package + ":" + name for name, package in IN_TREE_PLUGINS.items()]

IN_TREE_PLUGIN_LIBRARIES = [package + ":libfx_" + name + ".so" for name, package in IN_TREE_PLUGINS.items()]

# Their folders' headers, installed by the release.
IN_TREE_PLUGIN_HEADER_FILES = [package + ":release_headers" for name, package in IN_TREE_PLUGINS.items()]
