#!/usr/bin/env python3
# Copyright 2026 The FX for C++ Authors.
"""Fails when C++ code outside the TorchScript format reaches a TorchScript header.

    torchscript_includes.py FILE...

TorchScript is one model format of two (docs/architecture.md): its code lives
in the `torchscript/` folder of the layer that needs it (runtime/torchscript/,
tracer/torchscript/, fx/torchscript/, tools/torchscript/). No other file may
include a TorchScript header (torch/csrc/jit/..., torch/script.h,
torch/jit.h), directly or through the repository's own headers, so that a
pass, a .pt2 reader or a program embedding FX for C++ parses none of it.
Tests, benchmarks and fuzzers are not checked: they run TorchScript models as
references and workloads.

FILES are every C++ file of the checked packages, as paths from the
repository's root (tools/layering/layering.bzl's package_sources). A file
still on the way out of a layer is listed in REMAINING with what keeps it; the
check fails as well when a listed file no longer reaches TorchScript, so that
the list only shrinks.
"""

import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
TORCHSCRIPT = re.compile(r"^(torch/csrc/jit/|torch/script\.h$|torch/jit\.h$)")
NOT_CHECKED = re.compile(r"(_test|_benchmark|_fuzzer)\.cc$|(^|/)testing/")

# Files outside the format that still reach TorchScript, and why (issue 39
# moved the last ones into tools/torchscript/).
REMAINING = {}


def in_format(path):
    return "/torchscript/" in "/" + path


def main(paths):
    text = {}
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            text[path] = f.read()
    includes = {path: INCLUDE.findall(body) for path, body in text.items()}

    chains = {}  # path -> the include chain to a TorchScript header, or None

    def chain(path, visiting):
        if path in chains:
            return chains[path]
        if path in visiting:  # an include cycle: guarded headers stop it
            return None
        visiting.add(path)
        found = None
        for _, name in includes.get(path, []):
            if TORCHSCRIPT.match(name):
                found = [name]
                break
            if name in text:
                below = chain(name, visiting)
                if below is not None:
                    found = [name] + below
                    break
        visiting.discard(path)
        chains[path] = found
        return found

    bad, stale = [], []
    for path in sorted(text):
        if in_format(path) or NOT_CHECKED.search(path):
            continue
        reached = chain(path, set())
        if reached is not None and path not in REMAINING:
            bad.append("  %s -> %s" % (path, " -> ".join(reached)))
        elif reached is None and path in REMAINING:
            stale.append("  " + path)
    missing = [p for p in REMAINING if p not in text]
    ok = True
    if bad:
        ok = False
        print("These files reach a TorchScript header from outside the TorchScript format\n"
              "(move the TorchScript code into a torchscript/ folder, behind a header that\n"
              "includes no TorchScript header; docs/architecture.md):", file=sys.stderr)
        print("\n".join(bad), file=sys.stderr)
    if stale or missing:
        ok = False
        print("These files no longer reach TorchScript (or are gone): take them off\n"
              "REMAINING in tools/layering/torchscript_includes.py:", file=sys.stderr)
        print("\n".join(stale + ["  " + p for p in missing]), file=sys.stderr)
    if ok:
        print("%d files checked; %d still on the way out of their layers" %
              (sum(1 for p in text if not in_format(p) and not NOT_CHECKED.search(p)),
               len(REMAINING)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
