#!/usr/bin/env bash
# core/ depends on nothing of ours: every target the core library, its test
# helpers and its tests reach is in //core or //third_party (or external:
# libtorch's c10, Abseil, GoogleTest, Bazel's own tools).
set -euo pipefail
deps=$1
ours=$(grep '^//' "$deps" | grep -v -E '^//(core|third_party)[/:]' || true)
if [ -n "$ours" ]; then
  echo "core/ must depend on nothing of ours, but reaches:" >&2
  echo "$ours" >&2
  exit 1
fi
count=$(wc -l < "$deps")
echo "core/ reaches $count targets, none outside //core and //third_party"
