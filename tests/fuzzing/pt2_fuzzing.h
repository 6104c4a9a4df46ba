// Copyright 2026 The FX for C++ Authors.
//
// pt2_fuzzing.h: what the fuzz targets of the .pt2 reader share: the checks
// on an error (one bounded line), and reading a program into the IR with
// state made from its own tensor_meta (the program JSON fuzzer has no
// archive to take weights from).
#ifndef FX_TESTS_FUZZING_PT2_FUZZING_H_
#define FX_TESTS_FUZZING_PT2_FUZZING_H_

#include "absl/status/status.h"
#include "exported_program/archive.h"

namespace fx {
namespace fuzzing {

// Every error a file can cause is one line of bounded length.
void check_error(const absl::Status& status, const char* what);

// Zeros for each parameter, buffer and constant the program lifts whose
// tensor_meta has small constant sizes (others are left out: the reader
// then says the archive lacks them).
void add_state_from_meta(exported::LoadedProgram& loaded);

// Reads `loaded` into the IR (Tracer::trace), checks the error, and on
// success what the runtime reads of the graph (its input constraints).
void read_into_ir(const exported::LoadedProgram& loaded);

}  // namespace fuzzing
}  // namespace fx

#endif  // FX_TESTS_FUZZING_PT2_FUZZING_H_
