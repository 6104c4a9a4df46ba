// Copyright 2026 The FX for C++ Authors.
//
// A main for fuzz targets where libFuzzer is not at hand (the g++ build): runs
// LLVMFuzzerTestOneInput on every file given, then on inputs mutated from
// them (bytes flipped, inserted, deleted, pieces of two inputs spliced) for
// FX_FUZZ_SECONDS seconds (default 3), with a fixed seed, so every
// `bazel test` fuzzes a little and repeatably. A crash or a sanitizer report
// fails the test; the input that did it is printed first.
#include <csignal>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string escaped(const std::string& input) {
  std::string out;
  for (unsigned char c : input) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

// The input being run, for the report of a crash (written before each run).
std::string* current = nullptr;

void report_and_die(int signal) {
  // Not async-signal-safe, but the process is dying anyway: say what did it.
  std::fprintf(stderr, "fuzz input that crashed (signal %d): \"%s\"\n", signal,
               escaped(*current).c_str());
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void run(const std::string& input) {
  *current = input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string mutate(const std::vector<std::string>& corpus, std::mt19937_64& rng) {
  std::string s = corpus[rng() % corpus.size()];
  const int steps = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < steps; ++i) {
    const size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 5) {
      case 0:  // insert a byte, often a delimiter
        s.insert(s.begin() + at, "{}=, '\"\n-\x00x"[rng() % 12]);
        break;
      case 1:  // delete a run
        if (!s.empty() && at < s.size()) s.erase(at, 1 + rng() % 4);
        break;
      case 2:  // flip a byte
        if (at < s.size()) s[at] = static_cast<char>(rng());
        break;
      case 3: {  // splice another input in
        const std::string& other = corpus[rng() % corpus.size()];
        if (!other.empty()) s.insert(at, other.substr(rng() % other.size()));
        break;
      }
      default:  // duplicate a run
        if (at < s.size()) s.insert(at, s.substr(at, 1 + rng() % 8));
        break;
    }
    if (s.size() > 4096) s.resize(4096);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::string now;
  current = &now;
  for (int s : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(s, report_and_die);
  std::vector<std::string> corpus;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (corpus.empty()) corpus.push_back("");
  for (const std::string& input : corpus) run(input);
  const char* seconds_env = std::getenv("FX_FUZZ_SECONDS");
  const double seconds = seconds_env != nullptr ? std::atof(seconds_env) : 3.0;
  std::mt19937_64 rng(20261122);
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  long runs = static_cast<long>(corpus.size());
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < 100; ++i, ++runs) run(mutate(corpus, rng));
  }
  std::printf("%ld inputs run (%zu seeds, %.1f s of mutations), no crash\n", runs, corpus.size(),
              seconds);
  return 0;
}
