#!/usr/bin/env python3
"""The plugin API surface, recorded per plugin API version.

A plugin is compiled against plugins/fx_plugin.h and every header of this
repository that it reaches (the classes a registration callback and a pass
use: Graph, Node, GraphModule, Module, Tracer...), and then runs against the
libfx.so of whoever loads it. plugins/plugin_loader.cc refuses a plugin built
for another FX_PLUGIN_API_VERSION; this check makes sure the version changes
when that surface does. plugins/plugin_abi.txt records, for the version it
names, a digest of each header's declarations (its text without comments,
spacing normalised).

  plugin_abi.py --check ROOT RECORD    exit 1, saying what changed, when the
                                       headers under ROOT differ from RECORD
                                       and the version is the same
  plugin_abi.py --update ROOT RECORD   write RECORD for the headers as they are

`bazel test //plugins:plugin_abi_test` runs the check;
`bazel run //plugins:plugin_abi_test -- --update` records the surface again
(after a version bump, or for a change that keeps the ABI: say why in the
commit).
"""

import hashlib
import os
import re
import sys

ENTRY = "plugins/fx_plugin.h"
HEADER = """\
# The plugin API surface (plugins/plugin_abi.py): every header of this repository that
# plugins/fx_plugin.h reaches, with a digest of its declarations (comments and spacing
# left out), recorded for the FX_PLUGIN_API_VERSION on the first line below.
# //plugins:plugin_abi_test fails when a header here changes while the version stays:
# bump FX_PLUGIN_API_VERSION (plugins/fx_plugin.h, with a line of its history), then
# record with `bazel run //plugins:plugin_abi_test -- --update`.
"""


def reachable_headers(root):
    """The repository's headers ENTRY includes, directly or not, sorted."""
    seen, stack = set(), [ENTRY]
    while stack:
        header = stack.pop()
        if header in seen:
            continue
        path = os.path.join(root, header)
        if not os.path.exists(path):
            continue  # a library's header (absl/, ATen/): not this repository's
        seen.add(header)
        with open(path, encoding="utf-8") as f:
            stack.extend(re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M))
    return sorted(seen)


def declarations(text):
    """`text` without comments, its spacing collapsed: string and character
    literals are kept as they are."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return " ".join("".join(out).split())


def api_version(root):
    with open(os.path.join(root, ENTRY), encoding="utf-8") as f:
        m = re.search(r"^#define FX_PLUGIN_API_VERSION (\d+)$", f.read(), re.M)
    if not m:
        sys.exit("plugin_abi.py: no FX_PLUGIN_API_VERSION in " + ENTRY)
    return int(m.group(1))


def surface(root):
    digests = {}
    for header in reachable_headers(root):
        with open(os.path.join(root, header), encoding="utf-8") as f:
            digests[header] = hashlib.sha256(declarations(f.read()).encode()).hexdigest()[:16]
    return api_version(root), digests


def read_record(path):
    version, digests = None, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, value = line.split()
            if key == "api_version":
                version = int(value)
            else:
                digests[key] = value
    return version, digests


def main(argv):
    if len(argv) != 4 or argv[1] not in ("--check", "--update"):
        sys.exit(__doc__.split("\n\n")[2])
    mode, root, record = argv[1:]
    version, digests = surface(root)
    if mode == "--update":
        with open(record, "w", encoding="utf-8") as f:
            f.write(HEADER + "api_version %d\n" % version)
            for header, digest in digests.items():
                f.write("%s %s\n" % (header, digest))
        print("plugin_abi.py: recorded plugin API %d: %d headers in %s" % (version, len(digests), record))
        return 0
    recorded_version, recorded = read_record(record)
    changed = sorted(h for h in set(digests) | set(recorded) if digests.get(h) != recorded.get(h))
    if recorded_version != version:
        print("FX_PLUGIN_API_VERSION is %d, and plugins/plugin_abi.txt was recorded for %s: "
              "record the surface of version %d with "
              "`bazel run //plugins:plugin_abi_test -- --update`" % (version, recorded_version, version))
        return 1
    if changed:
        print("the plugin API changed while FX_PLUGIN_API_VERSION stayed %d: %s %s since it was "
              "recorded. A plugin built before would load and run against other declarations. "
              "Bump FX_PLUGIN_API_VERSION in plugins/fx_plugin.h (with a line of its history), "
              "then record with `bazel run //plugins:plugin_abi_test -- --update`. A change that "
              "keeps every compiled plugin working (a new free function, a new non-virtual member "
              "function) may be recorded without a bump; say why in the commit."
              % (version, ", ".join(
                  h + (" (new)" if h not in recorded else " (gone)" if h not in digests else "")
                  for h in changed), "has changed" if len(changed) == 1 else "have changed"))
        return 1
    print("plugin API %d: %d headers as recorded" % (version, len(digests)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
