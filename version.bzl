"""The version of FX for C++: the one place it is written.

Bazel reads it here (fx/version.h, the release archive's name, libfx.so's
SONAME); the CMake build parses this line (CMakeLists.txt). Semantic
versioning: the major version changes with the plugin API's
(FX_PLUGIN_API_VERSION) or the embedding API's incompatible changes.
"""

FX_VERSION = "0.9.0"
