#!/usr/bin/env bash
# The plugin API surface against its record (plugins/plugin_abi.py): fails when
# a header that plugins/fx_plugin.h reaches changed and FX_PLUGIN_API_VERSION
# did not.
#
#   bazel test //plugins:plugin_abi_test
#   bazel run //plugins:plugin_abi_test -- --update    record it again
set -euo pipefail
python=${FX_PYTHON:-python3}
script=plugins/plugin_abi.py
if [ "${1-}" = "--update" ]; then
  if [ -z "${BUILD_WORKSPACE_DIRECTORY-}" ]; then
    echo "plugin_abi_test.sh: --update writes into the source tree: run it with bazel run" >&2
    exit 2
  fi
  cd "$BUILD_WORKSPACE_DIRECTORY"
  exec "$python" "$script" --update . plugins/plugin_abi.txt
fi
exec "$python" "$script" --check . plugins/plugin_abi.txt
