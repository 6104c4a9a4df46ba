"""fx_fuzzer: a libFuzzer target that is also a short test.

    fx_fuzzer(
        name = "pipeline_text_fuzzer",
        srcs = ["pipeline_text_fuzzer.cc"],   # defines LLVMFuzzerTestOneInput
        deps = ["//plugins:api"],
        corpus = glob(["corpus/pipeline_text/*"]),
    )

makes
    :pipeline_text_fuzzer       the fuzzer. Under --config=fuzz (clang, libFuzzer,
                                ASan, UBSan) it is a libFuzzer binary:
                                  bazel run --config=fuzz //tests/fuzzing:pipeline_text_fuzzer -- \\
                                      -runs=1000000 $PWD/tests/fuzzing/corpus/pipeline_text
                                otherwise the standalone driver (below);
    :pipeline_text_fuzzer_test  a test that runs the target on the seed corpus and
                                then on a few seconds of inputs mutated from it
                                (standalone_main.cc), in every `bazel test`.
"""

def fx_fuzzer(name, srcs, deps, corpus):
    # The target, compiled once for the fuzzer and its test.
    native.cc_library(
        name = name + "_target",
        testonly = 1,
        srcs = srcs,
        deps = deps + ["//tests/fuzzing:fuzz_check"],
        # LLVMFuzzerTestOneInput is called by the driver only.
        alwayslink = 1,
        visibility = ["//visibility:private"],
    )
    native.cc_binary(
        name = name,
        testonly = 1,
        deps = [":" + name + "_target"] + select({
            "//tests/fuzzing:fuzzing": [],
            "//conditions:default": ["//tests/fuzzing:standalone_main"],
        }),
        linkopts = select({
            "//tests/fuzzing:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    native.cc_test(
        name = name + "_test",
        size = "small",
        args = ["$(locations %s)" % c for c in corpus],
        data = corpus,
        deps = [":" + name + "_target", "//tests/fuzzing:standalone_main"],
        # Linked as the fuzzer is, statically: fuzzers call code their
        # libraries do not export (built with hidden visibility, .bazelrc),
        # which the shared libraries of Bazel's dynamic mode would not link.
        linkstatic = 1,
    )
