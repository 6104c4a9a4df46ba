// Copyright 2026 The FX for C++ Authors.
//
// input_file.h: reading the files a user names as inputs (--graph, --input,
// --flagfile, --model=-) so that no name can make fxrun hang, read without
// end or run out of memory.
//
//   absl::StatusOr<std::string> text = fx::read_regular_file(path, "--graph");
//   absl::StatusOr<std::string> model = fx::read_standard_input("--model=-", "PK\x03\x04");
//
// Contracts:
//   * Only regular files are read: a directory, FIFO, socket or device
//     (/dev/zero, /dev/stdin on a terminal) is refused at once, without
//     blocking (the file is opened non-blocking and checked with fstat).
//   * A file is read up to the size fstat gave it, never further: a file
//     that claims no size (/proc/self/pagemap) reads as empty, and one that
//     grows while read stops at its size. A file larger than the machine's
//     memory is refused before reading.
//   * Standard input, which has no size, is read up to `max_bytes`; when it
//     does not start with `magic` it is refused after those first bytes (an
//     endless stream of anything else costs nothing).
//   * Errors name the flag and the path and say why (strerror, or "it is a
//     directory"), as one line.
#ifndef FX_FX_INPUT_FILE_H_
#define FX_FX_INPUT_FILE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

// The most fxrun reads from standard input (--model=-): 2 GiB.
inline constexpr size_t kMaxStandardInputBytes = size_t{1} << 31;

// Checks that `path` names a regular file, without blocking; `flag` names it
// in messages ("--graph"). `fix` is appended to the "not a regular file"
// error (what to give instead).
FX_API absl::Status check_regular_file(const std::string& path, absl::string_view flag,
                                       absl::string_view fix = {});

// The contents of the regular file `path`, read up to its size.
FX_API absl::StatusOr<std::string> read_regular_file(const std::string& path,
                                                     absl::string_view flag);

// Reads file descriptor `fd` (a pipe, a terminal, a file) to its end, at most
// `max_bytes`; `magic`, when given, must be how the data starts. `what` names
// the stream in messages ("--model=-: standard input").
FX_API absl::StatusOr<std::string> read_stream(int fd, absl::string_view what, size_t max_bytes,
                                               absl::string_view magic = {});

// read_stream of standard input, at most kMaxStandardInputBytes.
FX_API absl::StatusOr<std::string> read_standard_input(absl::string_view what,
                                                       absl::string_view magic = {});

// This machine's physical memory in bytes (0 when unknown).
FX_API uint64_t physical_memory_bytes();

}  // namespace fx

#endif  // FX_FX_INPUT_FILE_H_
