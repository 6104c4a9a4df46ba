#!/usr/bin/env python3
# Copyright 2026 The FX for C++ Authors.
"""Fails when C++ code outside the TorchScript format reaches a TorchScript header.

    torchscript_includes.py FILE...

TorchScript is one model format of two (docs/architecture.md): its code lives
in the `torchscript/` folder of the layer that needs it (runtime/torchscript/,
tracer/torchscript/, fx/torchscript/, tools/torchscript/). No other file may
include a TorchScript header, directly or through the repository's own
headers, so that a pass, a .pt2 reader or a program embedding FX for C++ does
not build on TorchScript. TorchScript's headers are torch/csrc/jit/... and
libtorch's umbrella headers that include its API (TORCHSCRIPT below).
libtorch's own headers are not followed: torch/library.h, libtorch's operator
registration (which the kernels and c10d's headers include), includes
TorchScript's schema parser, and that is libtorch's to change.

Tests, benchmarks and fuzzers are not checked: they run TorchScript models as
references and workloads.

FILES are every C++ file of the checked packages, as paths from the
repository's root (tools/layering/layering.bzl's package_sources). A quoted
include of a repository file that is not among them fails the check (its
package lacks package_sources(), or tools/layering/BUILD does not list it),
so that no file is left unchecked by omission. A file still on the way out
of a layer is listed in REMAINING with what keeps it; the check fails as well
when a listed file no longer reaches TorchScript, so that the list only
shrinks.
"""

import os
import re
import sys

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include(?:_next)?[ \t]*([<"])([^>"]+)[>"]', re.M)
TORCHSCRIPT = re.compile(
    r"^torch/(csrc/jit/|(torch|all|script|jit|extension|nn|serialize)\.h$)")
NOT_CHECKED = re.compile(r"(_test|_benchmark|_fuzzer)\.cc$|(^|/)testing/")
# Headers the build generates (not among FILES); none includes TorchScript.
GENERATED = {"fx/version.h"}

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
    top_dirs = {p.split("/", 1)[0] for p in text if "/" in p}

    # Each file's includes: TorchScript's headers, and the repository's files
    # (a quoted name from the file's folder, else from the root).
    torchscript, includes, unresolved = {}, {}, []
    for path, body in text.items():
        torchscript[path], includes[path] = None, []
        for quote, name in INCLUDE.findall(body):
            if TORCHSCRIPT.match(name):
                torchscript[path] = torchscript[path] or name
                continue
            if quote != '"':
                continue
            beside = os.path.normpath(os.path.join(os.path.dirname(path), name))
            installed = name[len("fx/"):] if name.startswith("fx/") else None
            if beside in text:
                includes[path].append(beside)
            elif name in text:
                includes[path].append(name)
            elif installed in text:  # a release's layout: fx/core/graph.h (examples/)
                includes[path].append(installed)
            elif (name.split("/", 1)[0] in top_dirs and name not in GENERATED and
                  not NOT_CHECKED.search(path)):
                unresolved.append("  %s includes %s" % (path, name))

    def chain(path):
        """The include chain from `path` to a TorchScript header, or None."""
        seen, stack = {path}, [(path, [])]
        while stack:  # depth-first, every path through the includes
            here, via = stack.pop()
            if torchscript[here] is not None:
                return via + [torchscript[here]]
            for name in reversed(includes[here]):
                if name not in seen:
                    seen.add(name)
                    stack.append((name, via + [name]))
        return None

    bad, stale = [], []
    checked = [p for p in sorted(text) if not in_format(p) and not NOT_CHECKED.search(p)]
    for path in checked:
        reached = chain(path)
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
    if unresolved:
        ok = False
        print("These includes name repository files the check was not given (give their\n"
              "package package_sources() and list it in tools/layering/BUILD):", file=sys.stderr)
        print("\n".join(sorted(unresolved)), file=sys.stderr)
    if ok:
        print("%d files checked; %d still on the way out of their layers" %
              (len(checked), len(REMAINING)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
