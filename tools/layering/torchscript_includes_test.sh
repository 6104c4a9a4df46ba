#!/usr/bin/env bash
# Runs torchscript_includes.py on the files Bazel gives (paths from the root).
set -euo pipefail
exec python3 tools/layering/torchscript_includes.py "$@"
