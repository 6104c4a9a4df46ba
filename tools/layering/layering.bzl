"""layer_test: the arrows between packages point down (docs/architecture.md)."""

def layer_test(name, targets, allowed, kinds = "cc_library"):
    """A test that `targets` reach no package outside `allowed`.

    Args:
      name: the test's name.
      targets: the layer's targets (its libraries; tests may reach higher).
      allowed: packages the layer may depend on: "//pkg", or "//pkg/..." for it
        and its subpackages.
      kinds: the rule kinds counted (a regular expression of kind()); the
        default, libraries, leaves out data such as generated fixtures.
    """
    # The query reads labels from the root: ":x" is this package's x.
    targets = [
        "//%s%s" % (native.package_name(), t) if t.startswith(":") else t
        for t in targets
    ]
    native.genquery(
        name = name + "_deps",
        testonly = 1,
        expression = "kind('%s', %s)" % (kinds, " + ".join(["deps(%s)" % t for t in targets])),
        scope = targets,
    )
    native.sh_test(
        name = name,
        size = "small",
        srcs = ["//tools/layering:layer_test.sh"],
        args = ["$(location :%s_deps)" % name, "//" + native.package_name()] + allowed,
        data = [":%s_deps" % name],
    )

def package_sources(name = "cc_sources"):
    """This package's C++ files (.def tables included), for //tools/layering:torchscript_includes_test.

    Args:
      name: the filegroup's name.
    """
    native.filegroup(
        name = name,
        srcs = native.glob(["**/*.h", "**/*.cc", "**/*.def"]),
        visibility = ["//tools/layering:__pkg__"],
    )
