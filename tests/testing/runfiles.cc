// Copyright 2026 The FX for C++ Authors.
#include "tests/testing/runfiles.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace fx {
namespace testing {

std::string runfile(const std::string& workspace_relative) {
  const char* workspace = std::getenv("TEST_WORKSPACE");
  const std::string ws = workspace != nullptr ? workspace : "fx_cpp";
  std::string root = ".";
  if (const char* srcdir = std::getenv("TEST_SRCDIR")) {
    root = std::string(srcdir) + "/" + ws;
  } else if (const char* runfiles = std::getenv("RUNFILES_DIR")) {
    root = std::string(runfiles) + "/" + ws;
  }
  return root + "/" + workspace_relative;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream contents;
  contents << in.rdbuf();
  return contents.str();
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

}  // namespace testing
}  // namespace fx
