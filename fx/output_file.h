// Copyright 2026 The FX for C++ Authors.
//
// output_file.h: writing a result so that a failed run never costs the user a
// file.
//
//   fx::OutputFile out = *fx::OutputFile::prepare("/tmp/graph.json");  // checks, creates nothing
//   ... the whole run, writing into out.stream() ...
//   absl::Status s = out.commit();   // temporary file beside the target, renamed over it
//
// The result goes to a temporary file in the target's directory,
// TARGET.fxrun-XXXXXX, which replaces the target only once it is complete
// (rename(2) is atomic within a file system): a run that fails or is killed
// leaves an existing file as it was, and the replacement keeps the mode and,
// where the user may give it, the owner and group of the file it replaces.
// SIGINT and SIGTERM while the temporary is written remove it before the
// process ends (RemovedOnSignal); SIGKILL cannot be caught, and leaves the
// partial TARGET.fxrun-XXXXXX beside the intact target. prepare() checks
// early that the directory exists and is writable, so a long run does not
// end in that error. same_file() tells whether two paths name one file, for
// refusing an output that would overwrite an input.
#ifndef FX_FX_OUTPUT_FILE_H_
#define FX_FX_OUTPUT_FILE_H_

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/export.h"

namespace fx {

class RemovedOnSignal;

class FX_API OutputFile {
 public:
  // `flag` names the output in messages ("--output", "--save"). A symbolic
  // link is followed: the file it names is replaced, not the link. A path
  // that names something other than a regular file (a directory, a device
  // such as /dev/null, a FIFO) is refused: renaming over it would replace it.
  static absl::StatusOr<OutputFile> prepare(std::string path, std::string flag = "--output");

  OutputFile& operator=(OutputFile&&) = default;

  std::ostream& stream() { return buffer_; }
  const std::string& path() const { return path_; }
  // Writes what the stream holds to a temporary file beside the target, then
  // renames it over the target. Errors carry strerror and the path.
  absl::Status commit();

  // commit() in two steps, for several files: write() leaves the complete
  // temporary file (an error removes it), replace() renames it over the
  // target, abandon() removes a written one.
  absl::Status write();
  absl::Status replace();
  void abandon();

  OutputFile(OutputFile&&) = default;
  ~OutputFile();

 private:
  OutputFile(std::string path, std::string flag)
      : path_(std::move(path)), flag_(std::move(flag)) {}
  absl::Status error(int err) const;
  std::string path_;
  std::string flag_;
  std::ostringstream buffer_;
  std::string temporary_;  // written, not yet renamed
  std::unique_ptr<RemovedOnSignal> removed_;
};

// Writes every file in full, then replaces the targets: when a file cannot
// be written (a full disk, a file-size limit) no target is replaced, and the
// error names that file.
FX_API absl::Status commit_all(const std::vector<OutputFile*>& files);

// A path removed if SIGINT or SIGTERM ends the process while this object
// lives. The handler, installed in the process with the first object (an
// ignored signal stays ignored), is async-signal-safe. Where the program had
// a handler of its own for the signal (a server that lets work in progress
// finish), it calls that handler and removes nothing: the process goes on,
// and so does the write. Where the signal's action was the default (ending
// the process), it unlinks the registered paths, restores the default
// disposition and raises the signal again, so that the process ends as the
// signal would have ended it. At most 16 paths at once; beyond that,
// registered() is false and the path is not removed.
class FX_API RemovedOnSignal {
 public:
  explicit RemovedOnSignal(const std::string& path);
  ~RemovedOnSignal();
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;
  bool registered() const { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

// True when both paths exist and name the same file (same device and inode,
// symbolic links followed).
FX_API bool same_file(const std::string& a, const std::string& b);

}  // namespace fx

#endif  // FX_FX_OUTPUT_FILE_H_
