// Copyright 2026 The FX for C++ Authors.
#include "core/message_text.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

using ::testing::EndsWith;
using ::testing::StartsWith;

// libtorch's messages: the reason on the first line, a C++ backtrace after it.
TEST(MessageTextTest, FirstLineOfAMessageIsItsFirstNonEmptyLineTrimmed) {
  EXPECT_EQ(first_line_of("  CUDA error: out of memory \nException raised from ...\nframe #0"),
            "CUDA error: out of memory");
  EXPECT_EQ(first_line_of("\n \n  second\nthird"), "second");
  EXPECT_EQ(first_line_of(""), "no reason given");
  EXPECT_EQ(first_line_of(" \n\t\n"), "no reason given");
}

TEST(MessageTextTest, QuotesAsPythonDoes) {
  EXPECT_EQ(quote_for_message("inlin"), "'inlin'");
  EXPECT_EQ(quote_for_message("it's"), "\"it's\"");
  EXPECT_EQ(quote_for_message(""), "''");
}

TEST(MessageTextTest, EscapesControlCharactersAndEscapeSequences) {
  // A terminal escape that would clear the screen is shown, not sent.
  EXPECT_EQ(quote_for_message("a\x1b[2Jb\n\t\x7f"), "'a\\x1b[2Jb\\n\\t\\x7f'");
  EXPECT_EQ(escape_for_message("/tmp/x\ry"), "/tmp/x\\ry");
  EXPECT_EQ(escape_for_message("caf\xc3\xa9"), "caf\\xc3\\xa9");
}

TEST(MessageTextTest, CutsLongInputAndSaysHowLong) {
  const std::string huge(1 << 20, 'x');
  const std::string quoted = quote_for_message(huge);
  EXPECT_THAT(quoted, StartsWith("'" + std::string(kMaxQuotedChars, 'x') + "..."));
  EXPECT_THAT(quoted, EndsWith("(1048576 characters)'"));
  EXPECT_LT(quoted.size(), 140u);
}

// Found by the command-line fuzzer: bytes that escape to four characters each
// made a "cut" value four times too long.
TEST(MessageTextTest, CutsByTheEscapedLength) {
  const std::string bytes(500, '\xff');
  const std::string quoted = quote_for_message(bytes);
  EXPECT_THAT(quoted, StartsWith("'\\xff\\xff"));
  EXPECT_THAT(quoted, EndsWith("(500 characters)'"));
  EXPECT_LT(quoted.size(), 140u);
}

TEST(MessageTextTest, SuggestsTheClosestName) {
  EXPECT_EQ(did_you_mean("inlin", {"inline", "invert", "dce"}), " (did you mean 'inline'?)");
  EXPECT_EQ(did_you_mean("zzzzzz", {"inline", "dce"}), "");
  EXPECT_EQ(closest_name(std::string(1 << 20, 'd'), {"dce"}), "");
}

}  // namespace
}  // namespace fx
