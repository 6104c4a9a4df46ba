"""The version of FX for C++: the one place it is written.

Bazel reads it here (fx/version.h, the release archive's name, libfx.so's
SONAME); the CMake build parses this line (CMakeLists.txt). Semantic
versioning: the major version changes with the plugin API's
(FX_PLUGIN_API_VERSION) or the embedding API's incompatible changes; before
1.0 the minor version does (0.11.0: plugin API 5), and libfx.so's SONAME
carries both.
"""

FX_VERSION = "0.11.0"
