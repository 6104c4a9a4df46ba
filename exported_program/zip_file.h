// Copyright 2026 The FX for C++ Authors.
//
// zip_file.h: zip archives in memory, read and written with Debian's libzip.
//
// torch.export programs are zip files: torch 2.1-2.7 write a plain zip of
// five members, torch 2.8 and later a PyTorch archive (every member under one
// top-level folder). libtorch's own PyTorchStreamReader reads only the
// second, and only when it knows the archive's version record, so both are
// read here with libzip; the torch.save blobs inside them go to libtorch.
//
//   absl::StatusOr<fx::ZipReader> zip = fx::ZipReader::open(bytes, "r18.pt2");
//   for (const std::string& name : zip->names()) ...
//   absl::StatusOr<std::string> json = zip->read("r18/models/model.json");
//
//   fx::ZipWriter out;
//   out.add("r18/archive_format", "pt2");
//   absl::StatusOr<std::string> file = out.finish();
//
// Contracts:
//   * ZipReader::open checks the archive's structure (libzip's consistency
//     checks) and fails with libzip's reason for anything that is not a zip
//     or is damaged; read() fails for a missing member or one whose data is
//     damaged (a CRC error), naming the member, and never reads more than the
//     member's declared size.
//   * ZipReader::open also refuses, naming the member, what a damaged or
//     crafted archive holds and torch never writes: two members of one name
//     (readers disagree on which counts: PyTorch takes the last), a name that
//     is absolute or climbs out with `..`, a stored member whose sizes
//     disagree, one claiming more bytes than the whole file, and a
//     compressed one that would inflate to more than kMaxInflation times its
//     compressed bytes (plus kInflationAllowance) or to more than
//     kMaxInflatedBytes: what a member may cost in memory and time is bounded
//     by the file given.
//   * member_names() lists the names an archive declares even when open()
//     refuses it (from libzip, else from the central directory's records as
//     they are), so that callers can tell which kind of archive a damaged
//     one was meant to be.
//   * ZipWriter stores members uncompressed (as torch does), in the order
//     added; finish() returns the whole archive.
#ifndef FX_EXPORTED_PROGRAM_ZIP_FILE_H_
#define FX_EXPORTED_PROGRAM_ZIP_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

// A compressed member may inflate to this many times its compressed bytes,
// plus kInflationAllowance (torch stores every member uncompressed; JSON
// compresses some 10 times)...
inline constexpr int64_t kMaxInflation = 100;
inline constexpr int64_t kInflationAllowance = int64_t{1} << 20;
// ... and never to more than this.
inline constexpr int64_t kMaxInflatedBytes = int64_t{2} << 30;

class FX_API ZipReader {
 public:
  // `bytes` must outlive the reader. `display_name` names the file in errors.
  static absl::StatusOr<ZipReader> open(absl::string_view bytes, std::string display_name);
  // A temporary string would not outlive the reader.
  static absl::StatusOr<ZipReader> open(std::string&& bytes, std::string display_name) = delete;
  ZipReader(ZipReader&&) noexcept;
  ZipReader& operator=(ZipReader&&) noexcept;
  ~ZipReader();

  // The members' names, in the archive's order.
  const std::vector<std::string>& names() const { return names_; }
  bool contains(absl::string_view name) const;
  // The member's uncompressed size, or -1 when there is none of that name.
  int64_t size(absl::string_view name) const;
  // The member's bytes.
  absl::StatusOr<std::string> read(absl::string_view name) const;

  // The names of the members of the zip in `bytes`, best effort (see the
  // file comment); empty for what is no zip at all.
  static std::vector<std::string> member_names(absl::string_view bytes);

 private:
  struct Archive;
  ZipReader() = default;
  // The member's index, or -1.
  int64_t index_of(absl::string_view name) const;
  std::unique_ptr<Archive> archive_;
  std::string display_name_;
  std::vector<std::string> names_;
  std::vector<int64_t> sizes_;  // uncompressed, by index
  absl::flat_hash_map<std::string, size_t> index_;  // name -> index
};

class FX_API ZipWriter {
 public:
  ZipWriter() = default;
  void add(std::string name, std::string bytes) { members_.emplace_back(std::move(name), std::move(bytes)); }
  absl::StatusOr<std::string> finish() const;

 private:
  std::vector<std::pair<std::string, std::string>> members_;
};

}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_ZIP_FILE_H_
