"""Every file of this repository named in a comment or a doc exists.

Usage: named_paths.py ROOT

Comments and documents point readers at files (`see runtime/plan/plan_steps.h`,
`[the graph file](file-formats.md#...)`); a file that moved leaves them
pointing nowhere. This reads every source, build and document file under ROOT
and checks:

  * each path that starts with one of ROOT's top-level folders and ends in a
    source or document extension (`tools/graph_file.h`, `docs/fxrun.md`)
    names a file under ROOT; `fx/<path>`, the installed spelling of a header
    (`#include <fx/plugins/fx_plugin.h>`), names ROOT/<path>;
  * each relative link of a Markdown file (`[text](file-formats.md#anchor)`)
    names a file or folder relative to that Markdown file.

Files the build generates (GENERATED) count as present. A path preceded by
`/`, `.` or a word character is part of another path (`torch/csrc/jit/...`,
`include/fx/core/graph.h`) and is not read as one of ours.
Prints each missing path with its file and line; exits 1 when there is one.
"""
import os
import re
import sys

GENERATED = {"fx/version.h"}  # //fx:version_header
EXTENSIONS = ("h", "cc", "py", "sh", "md", "bzl")
READ = (".h", ".cc", ".py", ".sh", ".md", ".bzl", ".in", ".txt", ".def", ".js", "BUILD", "WORKSPACE",
        "CMakeLists.txt", ".bazelrc")
SKIPPED_FOLDERS = (".", "bazel-", "_build")
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def files_under(root):
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith(SKIPPED_FOLDERS))
        for name in sorted(names):
            if name.endswith(READ) or name == "run":
                yield os.path.join(folder, name)


def main():
    root = os.path.realpath(sys.argv[1])
    top = sorted(d for d in os.listdir(root)
                 if os.path.isdir(os.path.join(root, d)) and not d.startswith(SKIPPED_FOLDERS))
    named = re.compile(r"(?<![\w/.\-])((?:%s)/[\w./\-]*\.(?:%s))(?!\w)"
                       % ("|".join(map(re.escape, top)), "|".join(EXTENSIONS)))
    missing = []
    checked = 0
    for path in files_under(root):
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except (UnicodeDecodeError, OSError):
            continue
        shown = os.path.relpath(path, root)
        for number, line in enumerate(lines, 1):
            for match in named.finditer(line):
                name = match.group(1)
                checked += 1
                installed = name[len("fx/"):] if name.startswith("fx/") else None
                if (name in GENERATED or os.path.exists(os.path.join(root, name)) or
                        (installed and os.path.exists(os.path.join(root, installed)))):
                    continue
                missing.append("%s:%d: %s does not exist" % (shown, number, name))
            if not path.endswith(".md"):
                continue
            for match in MARKDOWN_LINK.finditer(line):
                target = match.group(1).split("#", 1)[0]
                if not target or re.match(r"^[a-z]+:", target):
                    continue  # an anchor in the same file, or a URL
                checked += 1
                if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(path), target))):
                    missing.append("%s:%d: the link %s leads nowhere" % (shown, number, target))
    for m in missing:
        print(m)
    print("named_paths: %d path(s) named, %d missing" % (checked, len(missing)))
    if checked < 100:
        print("named_paths: fewer than 100 paths found under %s: is it the repository?" % root)
        return 1
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
