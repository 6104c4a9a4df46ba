// Copyright 2026 The FX for C++ Authors.
//
// elf_dependencies.h (internal to libfx): what the loader checks of a 64-bit
// ELF shared library before dlopen, read from the file once without loading
// it, as the dynamic loader reads it (ELF header, program headers,
// PT_DYNAMIC, DT_STRTAB):
//   * how far into the file its headers reach: a file cut short (a copy or
//     build that did not finish) makes dlopen fault on the missing pages
//     instead of failing;
//   * the names of its dynamic section: a plugin that needs another libfx
//     (libfx.so.0.10 in a program running libfx.so.0.11, a source build's
//     libfx.so in a release's fxrun) would load that second libfx into the
//     process, whose operator registrations libtorch answers with an abort
//     inside dlopen.
#ifndef FX_PLUGINS_ELF_DEPENDENCIES_H_
#define FX_PLUGINS_ELF_DEPENDENCIES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fx {

struct ElfDynamicNames {
  std::string soname;                // DT_SONAME; empty when there is none
  std::vector<std::string> needed;   // DT_NEEDED, in the file's order
};

struct ElfLibraryFile {
  uint64_t file_bytes = 0;
  // The end of the furthest of the header tables and the PT_LOAD segments
  // the headers describe: more than file_bytes in a file cut short.
  uint64_t described_bytes = 0;
  // Nothing when the dynamic section cannot be read: another byte order, or
  // headers that point outside the file (dlopen then says what is wrong).
  std::optional<ElfDynamicNames> names;
};

// The ELF file at `path`; nothing when it cannot be opened, is not a regular
// file or is not 64-bit ELF.
std::optional<ElfLibraryFile> read_elf_library_file(const std::string& path);

// Whether `name` is a name of libfx: libfx.so, or libfx.so.<version>.
bool is_libfx_name(const std::string& name);

}  // namespace fx

#endif  // FX_PLUGINS_ELF_DEPENDENCIES_H_
