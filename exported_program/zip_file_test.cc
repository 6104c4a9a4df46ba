// Copyright 2026 The FX for C++ Authors.
#include "exported_program/zip_file.h"

#include <zip.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

std::string archive(const std::vector<std::pair<std::string, std::string>>& members) {
  ZipWriter out;
  for (const auto& [name, bytes] : members) out.add(name, bytes);
  auto bytes = out.finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return *bytes;
}

// An archive of one member, deflated (torch never compresses; users who
// zip a program again may).
std::string deflated(const std::string& name, const std::string& bytes) {
  zip_error_t error;
  zip_error_init(&error);
  zip_source_t* target = zip_source_buffer_create(nullptr, 0, 0, &error);
  zip_t* zip = zip_open_from_source(target, ZIP_TRUNCATE, &error);
  zip_source_keep(target);
  zip_source_t* data = zip_source_buffer(zip, bytes.data(), bytes.size(), 0);
  const zip_int64_t index = zip_file_add(zip, name.c_str(), data, 0);
  zip_set_file_compression(zip, static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 9);
  EXPECT_EQ(zip_close(zip), 0);
  zip_stat_t st;
  zip_source_stat(target, &st);
  std::string out(st.size, '\0');
  zip_source_open(target);
  zip_source_read(target, out.data(), out.size());
  zip_source_close(target);
  zip_source_free(target);
  return out;
}

// `bytes` with the 4-byte field at `offset` of `name`'s central directory
// record set to `value` (20: compressed size, 24: size).
std::string with_central_field(std::string bytes, const std::string& name, size_t offset, uint32_t value) {
  const std::string record = "PK\x01\x02";
  for (size_t at = bytes.find(record); at != std::string::npos; at = bytes.find(record, at + 4)) {
    const size_t length = static_cast<unsigned char>(bytes[at + 28]) | static_cast<unsigned char>(bytes[at + 29]) << 8;
    if (bytes.compare(at + 46, length, name) != 0) continue;
    for (int i = 0; i < 4; ++i) bytes[at + offset + i] = static_cast<char>((value >> (8 * i)) & 0xff);
    return bytes;
  }
  ADD_FAILURE() << "no record of " << name;
  return bytes;
}

std::string error_of(const std::string& bytes) {
  auto zip = ZipReader::open(bytes, "t.zip");
  EXPECT_FALSE(zip.ok());
  return zip.ok() ? "" : std::string(zip.status().message());
}

TEST(ZipReaderTest, ReadsWhatZipWriterWrites) {
  const std::string bytes = archive({{"a/x", "one"}, {"a/y", ""}});
  auto zip = ZipReader::open(bytes, "t.zip");
  ASSERT_TRUE(zip.ok()) << zip.status();
  EXPECT_EQ(zip->names(), (std::vector<std::string>{"a/x", "a/y"}));
  EXPECT_EQ(*zip->read("a/x"), "one");
  EXPECT_EQ(zip->size("a/y"), 0);
  EXPECT_EQ(zip->size("a/z"), -1);
  EXPECT_THAT(std::string(zip->read("a/z").status().message()), HasSubstr("t.zip has no member 'a/z'"));
}

// Readers disagree on which of two members of one name counts (PyTorch's
// takes the last, libzip's lookup the first): a program would compute other
// numbers here than in torch.export.load.
TEST(ZipReaderTest, TwoMembersOfOneNameAreRefused) {
  const std::string bytes = absl::StrReplaceAll(
      archive({{"p/data/weights/weight_0", "first"}, {"p/data/weights/weight_9", "last!"}}),
      {{"weight_9", "weight_0"}});
  EXPECT_THAT(error_of(bytes), HasSubstr("t.zip is a damaged or crafted zip archive: it holds two members named "
                                         "'p/data/weights/weight_0'"));
  // The names are still there to tell what the archive was meant to be.
  EXPECT_EQ(ZipReader::member_names(bytes),
            (std::vector<std::string>{"p/data/weights/weight_0", "p/data/weights/weight_0"}));
}

// A member whose data is not what its CRC says was read as it was: libzip
// checks the CRC only when a read finds the end of the data.
TEST(ZipReaderTest, DataThatIsNotWhatItsCrcSaysIsAnError) {
  for (const std::string& data : {std::string("{\"config\": {\"dtype\": 7}}"), std::string(1, '7'),
                                  std::string(100000, '7')}) {
    const std::string bytes = archive({{"p/config.json", data}, {"p/version", "3"}});
    std::string damaged = bytes;
    const size_t at = damaged.find(data);
    ASSERT_NE(at, std::string::npos);
    damaged[at + data.size() - 1] = '4';
    auto zip = ZipReader::open(damaged, "t.zip");
    ASSERT_TRUE(zip.ok()) << zip.status();
    auto read = zip->read("p/config.json");
    ASSERT_FALSE(read.ok()) << data.size();
    EXPECT_THAT(std::string(read.status().message()), HasSubstr("cannot read 'p/config.json' in t.zip: ")) << data.size();
    EXPECT_EQ(*ZipReader::open(bytes, "t.zip")->read("p/config.json"), data);
  }
}

TEST(ZipReaderTest, NamesOutsideTheArchiveAreRefused) {
  struct Case {
    std::string written, crafted, why;
  };
  for (const Case& c : std::vector<Case>{
           {"XX/p/version", "../p/version", "climbs out of the archive's folder ('..')"},
           {"p/XX/version", "p/../version", "climbs out of the archive's folder ('..')"},
           {"_p/version", "/p/version", "has an absolute path"},
           {"Cx/p/version", "C:/p/version", "has an absolute path"},
       }) {
    const std::string bytes = absl::StrReplaceAll(archive({{c.written, "3\n"}}), {{c.written, c.crafted}});
    EXPECT_THAT(error_of(bytes), HasSubstr(absl::StrCat("member '", c.crafted, "' ", c.why))) << c.crafted;
  }
}

// What reading a member costs is bounded by the file: read() allocates the
// size a member declares.
TEST(ZipReaderTest, SizesAMemberCannotHaveAreRefused) {
  const std::string plain = archive({{"p/model.json", std::string(1000, '{')}});
  EXPECT_THAT(error_of(with_central_field(plain, "p/model.json", 24, 0xFFFFFFF0u)),
              HasSubstr("member 'p/model.json' claims 4294967280 bytes but stores 1000 uncompressed"));
  EXPECT_THAT(error_of(with_central_field(with_central_field(plain, "p/model.json", 24, 0xF0000000u),
                                          "p/model.json", 20, 0xF0000000u)),
              HasSubstr("claims 4026531840 stored bytes, more than the whole file's"));
  // A compressed member: some ten times is what text compresses; a thousand
  // times is whitespace, a zip bomb.
  std::string text;
  for (int i = 0; i < 20000; ++i) absl::StrAppend(&text, "{\"node\": ", i, "}, ");
  const std::string compressed = deflated("p/model.json", text);
  auto zip = ZipReader::open(compressed, "t.zip");
  ASSERT_TRUE(zip.ok()) << zip.status();
  EXPECT_EQ(*zip->read("p/model.json"), text);
  const std::string bomb = deflated("p/model.json", "{}" + std::string(64 << 20, ' '));
  EXPECT_LT(bomb.size(), size_t{100} << 10);
  EXPECT_THAT(error_of(bomb), HasSubstr("member 'p/model.json' would inflate from "));
  EXPECT_THAT(error_of(bomb), HasSubstr("more than 100 times as many: refused as a zip bomb"));
  EXPECT_THAT(error_of(with_central_field(compressed, "p/model.json", 24, 0xC0000000u)),
              HasSubstr("would inflate to 3221225472 bytes, more than the 2 GiB a compressed member may"));
}

TEST(ZipReaderTest, ADirectoryLibzipCannotReadIsCalledDamagedAndItsNamesAreRead) {
  // Sizes of 0xFFFFFFFF point to zip64 records that are not there.
  const std::string bytes = with_central_field(
      with_central_field(archive({{"p/archive_format", "pt2"}, {"p/version", "3"}}), "p/version", 24, 0xFFFFFFFFu),
      "p/version", 20, 0xFFFFFFFFu);
  // (libzip 1.11 and later read such a directory; then our own size check
  // names the member.)
  EXPECT_THAT(error_of(bytes), AnyOf(HasSubstr("t.zip is a damaged zip archive: libzip cannot read its directory"),
                                     HasSubstr("t.zip is a damaged or crafted zip archive: member 'p/version' "
                                               "claims 4294967295 stored bytes")));
  EXPECT_EQ(ZipReader::member_names(bytes), (std::vector<std::string>{"p/archive_format", "p/version"}));
  // libzip 1.7 calls a lone local header no zip; 1.12 a truncated one.
  EXPECT_THAT(error_of("PK\x03\x04 and nothing else"),
              AnyOf(HasSubstr("t.zip is not a zip archive"),
                    HasSubstr("t.zip is a damaged zip archive: libzip cannot read its directory")));
  EXPECT_TRUE(ZipReader::member_names("not a zip").empty());
}

}  // namespace
}  // namespace fx
