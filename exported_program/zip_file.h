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
//   * ZipWriter stores members uncompressed (as torch does), in the order
//     added; finish() returns the whole archive.
#ifndef FX_EXPORTED_PROGRAM_ZIP_FILE_H_
#define FX_EXPORTED_PROGRAM_ZIP_FILE_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace fx {

class ZipReader {
 public:
  // `bytes` must outlive the reader. `display_name` names the file in errors.
  static absl::StatusOr<ZipReader> open(absl::string_view bytes, std::string display_name);
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

 private:
  struct Archive;
  ZipReader() = default;
  std::unique_ptr<Archive> archive_;
  std::string display_name_;
  std::vector<std::string> names_;
};

class ZipWriter {
 public:
  ZipWriter() = default;
  void add(std::string name, std::string bytes) { members_.emplace_back(std::move(name), std::move(bytes)); }
  absl::StatusOr<std::string> finish() const;

 private:
  std::vector<std::pair<std::string, std::string>> members_;
};

}  // namespace fx

#endif  // FX_EXPORTED_PROGRAM_ZIP_FILE_H_
