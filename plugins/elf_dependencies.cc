// Copyright 2026 The FX for C++ Authors.
#include "plugins/elf_dependencies.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "absl/strings/match.h"

namespace fx {
namespace {

// A string table is a few KiB; a larger one is not read (no real library has
// one this size in its dynamic section).
constexpr uint64_t kMaxStringTableBytes = uint64_t{64} << 20;

class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) {}
  ~ReadOnlyFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

  bool ok() const { return fd_ >= 0; }
  uint64_t size() const {
    struct stat st;
    return ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
  }
  // Reads exactly `bytes` at `offset`.
  bool read(void* out, uint64_t bytes, uint64_t offset) const {
    auto* p = static_cast<char*>(out);
    while (bytes > 0) {
      const ssize_t n = ::pread(fd_, p, bytes, static_cast<off_t>(offset));
      if (n <= 0) return false;
      p += n;
      offset += static_cast<uint64_t>(n);
      bytes -= static_cast<uint64_t>(n);
    }
    return true;
  }

 private:
  int fd_;
};

}  // namespace

bool is_libfx_name(const std::string& name) {
  return name == "libfx.so" || absl::StartsWith(name, "libfx.so.");
}

namespace {

// The dynamic section's names, from the program headers `segments`.
std::optional<ElfDynamicNames> dynamic_names(const ReadOnlyFile& file, uint64_t size,
                                             const std::vector<ElfW(Phdr)>& segments) {
  ElfDynamicNames names;
  const ElfW(Phdr)* dynamic = nullptr;
  for (const ElfW(Phdr)& s : segments) {
    if (s.p_type == PT_DYNAMIC) dynamic = &s;
  }
  if (dynamic == nullptr) return names;  // statically linked: needs nothing
  if (dynamic->p_offset > size || dynamic->p_filesz > size - dynamic->p_offset) return std::nullopt;

  std::vector<ElfW(Dyn)> entries(dynamic->p_filesz / sizeof(ElfW(Dyn)));
  if (!entries.empty() && !file.read(entries.data(), entries.size() * sizeof(ElfW(Dyn)), dynamic->p_offset)) {
    return std::nullopt;
  }
  uint64_t strtab_address = 0, strtab_size = 0;
  std::optional<uint64_t> soname;
  std::vector<uint64_t> needed;
  for (const ElfW(Dyn)& e : entries) {
    if (e.d_tag == DT_NULL) break;
    if (e.d_tag == DT_STRTAB) strtab_address = e.d_un.d_ptr;
    if (e.d_tag == DT_STRSZ) strtab_size = e.d_un.d_val;
    if (e.d_tag == DT_SONAME) soname = e.d_un.d_val;
    if (e.d_tag == DT_NEEDED) needed.push_back(e.d_un.d_val);
  }
  if (!soname && needed.empty()) return names;
  if (strtab_size == 0 || strtab_size > kMaxStringTableBytes) return std::nullopt;
  // DT_STRTAB is an address: the loadable segment holding it says where in
  // the file it is.
  std::optional<uint64_t> strtab_offset;
  for (const ElfW(Phdr)& s : segments) {
    if (s.p_type == PT_LOAD && strtab_address >= s.p_vaddr && strtab_address - s.p_vaddr < s.p_filesz &&
        strtab_size <= s.p_filesz - (strtab_address - s.p_vaddr)) {
      strtab_offset = s.p_offset + (strtab_address - s.p_vaddr);
    }
  }
  if (!strtab_offset || *strtab_offset > size || strtab_size > size - *strtab_offset) return std::nullopt;
  std::string strings(strtab_size, '\0');
  if (!file.read(strings.data(), strtab_size, *strtab_offset)) return std::nullopt;
  auto string_at = [&](uint64_t offset) -> std::optional<std::string> {
    if (offset >= strings.size()) return std::nullopt;
    const size_t end = strings.find('\0', offset);
    if (end == std::string::npos) return std::nullopt;
    return strings.substr(offset, end - offset);
  };
  if (soname) {
    auto name = string_at(*soname);
    if (!name) return std::nullopt;
    names.soname = *name;
  }
  for (uint64_t offset : needed) {
    auto name = string_at(offset);
    if (!name) return std::nullopt;
    names.needed.push_back(*name);
  }
  return names;
}

}  // namespace

std::optional<ElfLibraryFile> read_elf_library_file(const std::string& path) {
  ReadOnlyFile file(path);
  if (!file.ok()) return std::nullopt;
  ElfLibraryFile out;
  out.file_bytes = file.size();
  ElfW(Ehdr) header;
  if (out.file_bytes < sizeof(header) || !file.read(&header, sizeof(header), 0) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64) {
    return std::nullopt;
  }
  const uint64_t size = out.file_bytes;
  out.described_bytes = std::max<uint64_t>(
      header.e_phoff + uint64_t{header.e_phnum} * header.e_phentsize,
      header.e_shoff + uint64_t{header.e_shnum} * header.e_shentsize);
  // The program headers, when they are this machine's and in the file: the
  // segments dlopen maps, and the dynamic section.
  const bool native =
      header.e_ident[EI_DATA] == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB);
  if (!native || header.e_phentsize != sizeof(ElfW(Phdr)) ||
      header.e_phoff + uint64_t{header.e_phnum} * sizeof(ElfW(Phdr)) > size) {
    return out;
  }
  std::vector<ElfW(Phdr)> segments(header.e_phnum);
  if (!segments.empty() &&
      !file.read(segments.data(), segments.size() * sizeof(ElfW(Phdr)), header.e_phoff)) {
    return out;
  }
  for (const ElfW(Phdr)& s : segments) {
    if (s.p_type == PT_LOAD) out.described_bytes = std::max<uint64_t>(out.described_bytes, s.p_offset + s.p_filesz);
  }
  out.names = dynamic_names(file, size, segments);
  return out;
}

}  // namespace fx
