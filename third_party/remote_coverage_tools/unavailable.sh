#!/bin/sh
echo "bazel coverage is not available in this offline workspace (no coverage tools)" >&2
exit 1
