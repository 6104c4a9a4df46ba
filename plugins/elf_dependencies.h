// Copyright 2026 The FX for C++ Authors.
//
// elf_dependencies.h (internal to libfx): the names a 64-bit ELF shared
// library's dynamic section gives, read from the file without loading it, as
// the dynamic loader reads them (program headers, PT_DYNAMIC, DT_STRTAB).
//
// The plugin loader reads a plugin's DT_NEEDED before dlopen: a plugin that
// needs another libfx (libfx.so.0.9 in a program running libfx.so.0.10, a
// source build's libfx.so in a release's fxrun) would load that second libfx
// into the process, whose operator registrations libtorch answers with an
// abort inside dlopen.
#ifndef FX_PLUGINS_ELF_DEPENDENCIES_H_
#define FX_PLUGINS_ELF_DEPENDENCIES_H_

#include <optional>
#include <string>
#include <vector>

namespace fx {

struct ElfDynamicNames {
  std::string soname;                // DT_SONAME; empty when there is none
  std::vector<std::string> needed;   // DT_NEEDED, in the file's order
};

// The names in the dynamic section of the ELF file at `path`; nothing when it
// cannot be read, is not 64-bit ELF of this machine's byte order, or its
// headers point outside the file (dlopen then says what is wrong with it).
std::optional<ElfDynamicNames> read_elf_dynamic_names(const std::string& path);

// Whether `name` is a name of libfx: libfx.so, or libfx.so.<version>.
bool is_libfx_name(const std::string& name);

}  // namespace fx

#endif  // FX_PLUGINS_ELF_DEPENDENCIES_H_
