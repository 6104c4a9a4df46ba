// Copyright 2026 The FX for C++ Authors.
#include "exported_program/zip_file.h"

#include <zip.h>

#include "absl/strings/str_cat.h"
#include "core/message_text.h"

namespace fx {
namespace {

std::string zip_reason(zip_error_t* error) {
  std::string reason = zip_error_strerror(error);
  zip_error_fini(error);
  return reason;
}

}  // namespace

struct ZipReader::Archive {
  zip_t* zip = nullptr;
  ~Archive() {
    if (zip != nullptr) zip_discard(zip);
  }
};

ZipReader::ZipReader(ZipReader&&) noexcept = default;
ZipReader& ZipReader::operator=(ZipReader&&) noexcept = default;
ZipReader::~ZipReader() = default;

absl::StatusOr<ZipReader> ZipReader::open(absl::string_view bytes, std::string display_name) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
  if (source == nullptr) {
    return absl::InternalError(absl::StrCat("cannot read ", display_name, ": ", zip_reason(&error)));
  }
  // Not ZIP_CHECKCONS: PyTorch's writer pads local headers with an extra
  // field (to align each record's data) that the central directory does not
  // repeat, which libzip 1.11's consistency check (Debian unstable) calls
  // inconsistent. Each entry is still checked when read (its local header,
  // sizes and CRC).
  zip_t* zip = zip_open_from_source(source, ZIP_RDONLY, &error);
  if (zip == nullptr) {
    zip_source_free(source);
    return absl::InvalidArgumentError(
        absl::StrCat(display_name, " is not a zip archive or is damaged: ", zip_reason(&error)));
  }
  ZipReader reader;
  reader.archive_ = std::make_unique<Archive>();
  reader.archive_->zip = zip;
  reader.display_name_ = std::move(display_name);
  const zip_int64_t n = zip_get_num_entries(zip, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    reader.names_.push_back(name != nullptr ? name : "");
  }
  return reader;
}

bool ZipReader::contains(absl::string_view name) const { return size(name) >= 0; }

int64_t ZipReader::size(absl::string_view name) const {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat(archive_->zip, std::string(name).c_str(), ZIP_FL_ENC_RAW, &st) != 0) return -1;
  if ((st.valid & ZIP_STAT_SIZE) == 0) return -1;
  return static_cast<int64_t>(st.size);
}

absl::StatusOr<std::string> ZipReader::read(absl::string_view name) const {
  const std::string member(name);
  const int64_t expected = size(name);
  if (expected < 0) {
    return absl::NotFoundError(absl::StrCat(display_name_, " has no member ", quote_for_message(member)));
  }
  zip_file_t* file = zip_fopen(archive_->zip, member.c_str(), ZIP_FL_ENC_RAW);
  if (file == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", quote_for_message(member), " in ",
                                                   display_name_, ": ",
                                                   zip_strerror(archive_->zip)));
  }
  std::string out(static_cast<size_t>(expected), '\0');
  const zip_int64_t got = zip_fread(file, out.data(), out.size());
  std::string reason = got < 0 ? zip_file_strerror(file) : "";
  // A CRC mismatch shows when the member is closed, having been read whole.
  const int closed = zip_fclose(file);
  if (got < 0 || static_cast<size_t>(got) != out.size() || closed != 0) {
    if (reason.empty()) reason = closed != 0 ? "its data is damaged (CRC error)" : "it is shorter than it says";
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", quote_for_message(member), " in ",
                                                   display_name_, ": ", reason));
  }
  return out;
}

absl::StatusOr<std::string> ZipWriter::finish() const {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* target = zip_source_buffer_create(nullptr, 0, 0, &error);
  if (target == nullptr) return absl::InternalError(absl::StrCat("zip: ", zip_reason(&error)));
  zip_t* zip = zip_open_from_source(target, ZIP_TRUNCATE, &error);
  if (zip == nullptr) {
    zip_source_free(target);
    return absl::InternalError(absl::StrCat("zip: ", zip_reason(&error)));
  }
  // Keep the buffer after zip_close, to read the archive out of it.
  zip_source_keep(target);
  for (const auto& [name, bytes] : members_) {
    zip_source_t* data = zip_source_buffer(zip, bytes.data(), bytes.size(), 0);
    zip_int64_t index = data == nullptr ? -1 : zip_file_add(zip, name.c_str(), data, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      if (data != nullptr) zip_source_free(data);
      std::string reason = zip_strerror(zip);
      zip_discard(zip);
      zip_source_free(target);
      return absl::InternalError(absl::StrCat("zip: cannot add ", name, ": ", reason));
    }
    zip_set_file_compression(zip, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0);
    // Fixed times, so that the same program always gives the same bytes.
    zip_file_set_mtime(zip, static_cast<zip_uint64_t>(index), 315532800, 0);  // 1980-01-01
  }
  if (zip_close(zip) != 0) {
    std::string reason = zip_strerror(zip);
    zip_discard(zip);
    zip_source_free(target);
    return absl::InternalError(absl::StrCat("zip: ", reason));
  }
  zip_stat_t st;
  zip_stat_init(&st);
  std::string out;
  if (zip_source_stat(target, &st) == 0 && zip_source_open(target) == 0) {
    out.resize(static_cast<size_t>(st.size));
    const zip_int64_t got = zip_source_read(target, out.data(), out.size());
    zip_source_close(target);
    if (got < 0 || static_cast<size_t>(got) != out.size()) out.clear();
  }
  zip_source_free(target);
  if (out.empty()) return absl::InternalError("zip: cannot read back the archive written");
  return out;
}

}  // namespace fx
