// Copyright 2026 The FX for C++ Authors.
#include "exported_program/zip_file.h"

#include <zip.h>

#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/message_text.h"

namespace fx {
namespace {

std::string zip_reason(zip_error_t* error) {
  std::string reason = zip_error_strerror(error);
  zip_error_fini(error);
  return reason;
}

// Why a member's name is one no archive torch writes holds, or "".
std::string bad_name(absl::string_view name) {
  if (name.empty()) return "has an empty name";
  if (name.front() == '/' || name.front() == '\\' || (name.size() > 1 && std::isalpha(static_cast<unsigned char>(name[0])) && name[1] == ':')) {
    return "has an absolute path";
  }
  for (absl::string_view part : absl::StrSplit(name, absl::ByAnyChar("/\\"))) {
    if (part == "..") return "climbs out of the archive's folder ('..')";
  }
  return "";
}

// Why a member's declared sizes are ones it cannot have, or "": they bound
// what reading it costs (read() allocates the declared size).
std::string bad_sizes(const zip_stat_t& st, size_t archive_bytes) {
  const int64_t size = static_cast<int64_t>(st.size);
  const int64_t stored = static_cast<int64_t>(st.comp_size);
  if ((st.valid & ZIP_STAT_SIZE) == 0 || (st.valid & ZIP_STAT_COMP_SIZE) == 0 || size < 0 || stored < 0) {
    return "declares no size";
  }
  if (static_cast<uint64_t>(stored) > archive_bytes) {
    return absl::StrCat("claims ", stored, " stored bytes, more than the whole file's ", archive_bytes,
                        " (the archive is damaged or cut short)");
  }
  const bool compressed = (st.valid & ZIP_STAT_COMP_METHOD) != 0 && st.comp_method != ZIP_CM_STORE;
  if (!compressed) {
    if (size != stored) {
      return absl::StrCat("claims ", size, " bytes but stores ", stored, " uncompressed (the archive is damaged)");
    }
    return "";
  }
  const char* kStored = ": refused as a zip bomb (torch.export.save and torch.save store members uncompressed)";
  if (size > kMaxInflatedBytes) {
    return absl::StrCat("would inflate to ", size, " bytes, more than the ", kMaxInflatedBytes >> 30,
                        " GiB a compressed member may", kStored);
  }
  if (size > stored * kMaxInflation + kInflationAllowance) {
    return absl::StrCat("would inflate from ", stored, " bytes to ", size, ", more than ", kMaxInflation,
                        " times as many", kStored);
  }
  return "";
}

uint32_t le(absl::string_view bytes, size_t at, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[at + i])) << (8 * i);
  return v;
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
    const bool no_zip = zip_error_code_zip(&error) == ZIP_ER_NOZIP;
    const std::string reason = zip_reason(&error);
    // (libzip's reason alone can mislead: "No such file" for a member whose
    // sizes point to zip64 records that are not there.)
    return absl::InvalidArgumentError(no_zip ? absl::StrCat(display_name, " is not a zip archive (", reason, ")")
                                             : absl::StrCat(display_name, " is a damaged zip archive: libzip cannot read its directory (", reason, ")"));
  }
  ZipReader reader;
  reader.archive_ = std::make_unique<Archive>();
  reader.archive_->zip = zip;
  reader.display_name_ = std::move(display_name);
  const zip_int64_t n = zip_get_num_entries(zip, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    const bool stated = zip_stat_index(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW, &st) == 0;
    const char* name = zip_get_name(zip, static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    reader.names_.push_back(name != nullptr ? name : "");
    const std::string& added = reader.names_.back();
    auto refused = [&](absl::string_view why) {
      return absl::InvalidArgumentError(absl::StrCat(reader.display_name_, " is a damaged or crafted zip archive: member ",
                                                     quote_for_message(added), " ", why));
    };
    if (std::string why = bad_name(added); !why.empty()) return refused(why);
    if (!stated) return refused("cannot be read");
    if (std::string why = bad_sizes(st, bytes.size()); !why.empty()) return refused(why);
    reader.sizes_.push_back(static_cast<int64_t>(st.size));
  }
  for (size_t i = 0; i < reader.names_.size(); ++i) {
    const std::string& name = reader.names_[i];
    if (!reader.index_.emplace(name, i).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          reader.display_name_, " is a damaged or crafted zip archive: it holds two members named ",
          quote_for_message(name), ", and readers differ on which one counts (PyTorch reads the last): "
          "save the program again"));
    }
  }
  return reader;
}

std::vector<std::string> ZipReader::member_names(absl::string_view bytes) {
  auto zip = open(bytes, "");
  if (zip.ok()) return zip->names();
  // Refused, or not readable by libzip: the central directory's records as
  // they are ("PK\1\2", the name's length at 28, the name at 46).
  std::vector<std::string> names;
  constexpr absl::string_view kCentralRecord("PK\x01\x02", 4);
  for (size_t at = bytes.find(kCentralRecord); at != absl::string_view::npos && at + 46 <= bytes.size();
       at = bytes.find(kCentralRecord, at + 4)) {
    const size_t length = le(bytes, at + 28, 2);
    if (at + 46 + length <= bytes.size()) names.emplace_back(bytes.substr(at + 46, length));
  }
  return names;
}

int64_t ZipReader::index_of(absl::string_view name) const {
  auto found = index_.find(name);
  return found == index_.end() ? -1 : static_cast<int64_t>(found->second);
}

bool ZipReader::contains(absl::string_view name) const { return index_of(name) >= 0; }

int64_t ZipReader::size(absl::string_view name) const {
  const int64_t i = index_of(name);
  return i < 0 ? -1 : sizes_[static_cast<size_t>(i)];
}

absl::StatusOr<std::string> ZipReader::read(absl::string_view name) const {
  const std::string member(name);
  const int64_t index = index_of(name);
  if (index < 0) {
    return absl::NotFoundError(absl::StrCat(display_name_, " has no member ", quote_for_message(member)));
  }
  const int64_t expected = sizes_[static_cast<size_t>(index)];
  zip_file_t* file = zip_fopen_index(archive_->zip, static_cast<zip_uint64_t>(index), 0);
  if (file == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", quote_for_message(member), " in ",
                                                   display_name_, ": ",
                                                   zip_strerror(archive_->zip)));
  }
  std::string out(static_cast<size_t>(expected), '\0');
  zip_int64_t got = expected == 0 ? 0 : zip_fread(file, out.data(), out.size());
  // libzip checks the CRC when a read reaches the end of the data, which
  // reading exactly the declared size does not (libzip 1.7): one more read
  // must find the end, and fails on a CRC mismatch.
  char past_end = 0;
  const zip_int64_t more = got < 0 ? 0 : zip_fread(file, &past_end, 1);
  std::string reason = got < 0 || more < 0 ? zip_file_strerror(file) : "";
  const int closed = zip_fclose(file);
  if (got < 0 || static_cast<size_t>(got) != out.size() || more != 0 || closed != 0) {
    if (reason.empty()) {
      reason = more > 0     ? "it is longer than it says"
               : closed != 0 ? "its data is damaged (CRC error)"
                             : "it is shorter than it says";
    }
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
