"""No C++ file of the repository includes libtorch's umbrella headers.

Usage: umbrella_includes.py ROOT

<ATen/ATen.h> declares every operator; <torch/torch.h>, <torch/script.h> and
<torch/all.h> add the C++ frontend and TorchScript's API on top. Parsing them
is most of what a file costs to compile: on the 2-core machine a test file's
own includes parse in 5.4 s of CPU, 11.3 s with ATen.h and TorchScript's
module.h beside them (docs/building.md, "What a file costs"). Every build of
every platform pays that once per file, so files include what they use:
<ATen/core/Tensor.h> and the per-operator headers (<ATen/ops/randn.h>),
<ATen/TensorOperators.h> for tensor arithmetic (`a + b`), <ATen/Context.h>
for at::manual_seed, and TorchScript's own headers only where a file uses
TorchScript. (<ATen/TensorOperators.h> includes ATen/Functions.h itself:
a file that does tensor arithmetic pays for it, one that does not, does not.)

Checked: every C++ file under ROOT (.h, .cc, .cpp, .cu, ...), tests,
benchmarks and fuzzers included, quoted or angled includes alike; and that the
test helpers' headers (tests/testing/, */testing/) include no TorchScript
header directly, so that a test pays for TorchScript's API only when it calls
it itself. Not checked: examples/, which are users' programs, written as
libtorch's documentation writes them (examples/custom_pass includes
<ATen/ATen.h>). Prints each offending include with its file and line; exits 1 when
there is one.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include(?:_next)?[ \t]*[<"]([^>"]+)[>"]')
# The umbrellas, and ATen/Functions.h, which declares every operator (most of
# ATen.h's cost); spelled from any include root.
UMBRELLA = re.compile(r"(^|/)(ATen/(ATen|Functions|NativeFunctions)\.h|"
                      r"torch/(torch|script|all|extension)\.h)$")
SOURCE_EXTENSIONS = (".h", ".cc", ".cpp", ".cu", ".cuh", ".hpp", ".inl")
TORCHSCRIPT = re.compile(r"^torch/csrc/jit/")
SKIPPED_FOLDERS = (".", "bazel-", "_build", "examples")


def main():
    root = os.path.realpath(sys.argv[1])
    bad, checked = [], 0
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders
                               if not (folder == root and d.startswith(SKIPPED_FOLDERS)) and
                               not d.startswith((".", "bazel-")))
        for name in sorted(names):
            if not name.endswith(SOURCE_EXTENSIONS):
                continue
            path = os.path.join(folder, name)
            shown = os.path.relpath(path, root)
            helper_header = name.endswith(".h") and "/testing/" in "/" + shown
            checked += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    header = m.group(1)
                    if UMBRELLA.search(header):
                        bad.append("%s:%d: includes <%s>: include <ATen/core/Tensor.h> and the "
                                   "per-operator headers it uses" % (shown, number, header))
                    elif helper_header and TORCHSCRIPT.match(header):
                        bad.append("%s:%d: a test helper's header includes <%s>: declare "
                                   "torch::jit::Module ahead (fixtures.h) and include it in the "
                                   ".cc" % (shown, number, header))
    for b in bad:
        print(b)
    print("umbrella_includes: %d files checked, %d includes to replace" % (checked, len(bad)))
    if checked < 100:
        print("umbrella_includes: fewer than 100 files under %s: is it the repository?" % root)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
