// Copyright 2026 The FX for C++ Authors.
//
// KernelLibrary with the machine's compiler: compiled once, found in the
// cache after (no compiler started, counted by a wrapper that logs each
// start), variants per instruction set, and the failures a user meets: no
// compiler, a cache folder that cannot be made, source the compiler refuses.
#include "codegen/kernel_library.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace codegen {
namespace {

using ::testing::HasSubstr;

constexpr char kAddOne[] = R"(
extern "C" __attribute__((visibility("default"))) void add_one(float* x, long n) {
  for (long i = 0; i < n; ++i) x[i] += 1.0f;
}
)";

// A fresh folder under the test's temporary directory.
std::string fresh_dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/", name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A compiler that appends a line to `log` each time it starts, then runs c++.
std::string counting_compiler(const std::string& dir, const std::string& log) {
  const std::string path = dir + "/counting-c++";
  std::ofstream(path) << "#!/bin/sh\necho started >> '" << log << "'\nexec c++ \"$@\"\n";
  chmod(path.c_str(), 0755);
  return path;
}

int lines(const std::string& path) {
  std::ifstream in(path);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    out.push_back(entry.path().filename().string());
  }
  return out;
}

CompilerOptions options_in(const std::string& cache) {
  CompilerOptions options;
  options.cache_dir = cache;
  options.isa = this_cpu_isa();
  return options;
}

TEST(KernelLibraryTest, CompilesOnceAndFindsTheLibraryInTheCacheAfter) {
  const std::string dir = fresh_dir("once");
  const std::string log = dir + "/compiler.log";
  CompilerOptions options = options_in(dir + "/cache");
  options.compiler = counting_compiler(dir, log);

  auto first = KernelLibrary::compile(kAddOne, options);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE((*first)->from_cache());
  auto add_one = (*first)->function<void(float*, long)>("add_one");
  ASSERT_TRUE(add_one.ok()) << add_one.status();
  std::vector<float> x = {1.0f, -2.5f, 0.0f};
  (*add_one)(x.data(), static_cast<long>(x.size()));
  EXPECT_EQ(x, (std::vector<float>{2.0f, -1.5f, 1.0f}));
  EXPECT_EQ(lines(log), 1);

  // Again, in this process: no compiler starts, and the library is the same file.
  auto second = KernelLibrary::compile(kAddOne, options);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE((*second)->from_cache());
  EXPECT_EQ((*second)->path(), (*first)->path());
  EXPECT_EQ(lines(log), 1);
  // The source is kept beside its library, and no temporary is left.
  EXPECT_THAT(
      files_in(options.cache_dir),
      ::testing::UnorderedElementsAre(::testing::EndsWith(".so"), ::testing::EndsWith(".cpp")));

  // Other source, or the same for another instruction set, is another entry.
  auto other = KernelLibrary::compile(absl::StrCat(kAddOne, "// another\n"), options);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_FALSE((*other)->from_cache());
  CompilerOptions baseline = options;
  baseline.isa = options.isa == Isa::kBaseline ? Isa::kAvx2 : Isa::kBaseline;
  auto variant = KernelLibrary::compile(kAddOne, baseline);
  ASSERT_TRUE(variant.ok()) << variant.status();
  EXPECT_NE((*variant)->path(), (*first)->path());
  EXPECT_EQ(lines(log), 3);
}

// Libraries held at once, each defining a function of the same name, each
// give their own: glibc knows a loaded library by the name it was opened
// under (/proc/self/fd/N), and a descriptor number reused for the next would
// have handed back the first.
TEST(KernelLibraryTest, LibrariesHeldAtOnceKeepTheirOwnFunctions) {
  const std::string dir = fresh_dir("held");
  std::vector<std::shared_ptr<const KernelLibrary>> held;
  for (int k = 0; k < 3; ++k) {
    auto library = KernelLibrary::compile(
        absl::StrCat("extern \"C\" __attribute__((visibility(\"default\"))) int which() { return ",
                     k, "; }"),
        options_in(dir));
    ASSERT_TRUE(library.ok()) << library.status();
    held.push_back(*library);
  }
  for (int k = 0; k < 3; ++k) {
    auto which = held[k]->function<int()>("which");
    ASSERT_TRUE(which.ok()) << which.status();
    EXPECT_EQ((*which)(), k);
  }
}

TEST(KernelLibraryTest, AMissingFunctionIsNamed) {
  const std::string dir = fresh_dir("missing");
  auto library = KernelLibrary::compile(kAddOne, options_in(dir));
  ASSERT_TRUE(library.ok()) << library.status();
  auto missing = (*library)->symbol("add_two");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("no function add_two"));
}

TEST(KernelLibraryTest, NoCompilerIsAnErrorSayingHowToGetOne) {
  const std::string dir = fresh_dir("no_compiler");
  for (const std::string& compiler : {std::string("no-such-c++"), dir + "/nothing/c++"}) {
    CompilerOptions options = options_in(dir + "/cache");
    options.compiler = compiler;
    auto library = KernelLibrary::compile(kAddOne, options);
    ASSERT_FALSE(library.ok());
    EXPECT_EQ(library.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(library.status().message()), HasSubstr("no C++ compiler: " + compiler));
    EXPECT_THAT(std::string(library.status().message()), HasSubstr("FX_CXX"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/cache"));
}

TEST(KernelLibraryTest, SourceTheCompilerRefusesLeavesNothingInTheCache) {
  const std::string dir = fresh_dir("refused");
  auto library = KernelLibrary::compile("extern \"C\" void broken( {", options_in(dir));
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(library.status().message()),
              HasSubstr("failed on the kernel's source (exit status 1): "));
  EXPECT_THAT(std::string(library.status().message()), HasSubstr("error: "));
  EXPECT_THAT(files_in(dir), ::testing::IsEmpty());
}

TEST(KernelLibraryTest, ACacheFolderThatCannotBeMadeIsNamed) {
  const std::string dir = fresh_dir("unmakeable");
  std::ofstream(dir + "/file") << "a file, not a folder";
  auto library = KernelLibrary::compile(kAddOne, options_in(dir + "/file/cache"));
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(library.status().message()),
              HasSubstr("cannot make the kernel cache " + dir + "/file/cache"));
  EXPECT_THAT(std::string(library.status().message()), HasSubstr("FX_CACHE_DIR"));
}

// Code found in the cache runs in the process: a cache others may write to
// (a shared /tmp), a library in it others may write, or a link in place of
// either, is refused, naming it.
TEST(KernelLibraryTest, ACacheOthersCanWriteIsRefused) {
  const std::string dir = fresh_dir("shared");
  CompilerOptions options = options_in(dir + "/cache");
  auto first = KernelLibrary::compile(kAddOne, options);
  ASSERT_TRUE(first.ok()) << first.status();
  const std::string library = (*first)->path();

  chmod(library.c_str(), 0666);
  auto planted = KernelLibrary::compile(kAddOne, options);
  ASSERT_FALSE(planted.ok());
  EXPECT_THAT(
      std::string(planted.status().message()),
      HasSubstr("the cached kernel " + library + " is writable by other users (mode 0666)"));
  chmod(library.c_str(), 0644);

  chmod(options.cache_dir.c_str(), 0777);
  auto shared = KernelLibrary::compile(kAddOne, options);
  ASSERT_FALSE(shared.ok());
  EXPECT_THAT(std::string(shared.status().message()),
              HasSubstr("the kernel cache " + options.cache_dir +
                        " is writable by other users (mode 0777)"));
  EXPECT_THAT(std::string(shared.status().message()), HasSubstr("FX_CACHE_DIR"));
  chmod(options.cache_dir.c_str(), 0755);

  // A library replaced by a link (to code elsewhere) is refused; the cache
  // folder may be reached through a link, as ~/.cache often is.
  const std::string elsewhere = dir + "/elsewhere.so";
  std::filesystem::rename(library, elsewhere);
  ASSERT_EQ(symlink(elsewhere.c_str(), library.c_str()), 0);
  auto linked = KernelLibrary::compile(kAddOne, options);
  ASSERT_FALSE(linked.ok());
  EXPECT_THAT(std::string(linked.status().message()),
              HasSubstr("the cached kernel " + library + " is a link, not a file"));
  std::filesystem::remove(library);

  const std::string link = dir + "/link";
  ASSERT_EQ(symlink(options.cache_dir.c_str(), link.c_str()), 0);
  CompilerOptions through_link = options;
  through_link.cache_dir = link;
  auto again = KernelLibrary::compile(kAddOne, through_link);
  EXPECT_TRUE(again.ok()) << again.status();
}

// A folder above the cache that others may write (and is not sticky, as
// /tmp is) lets them replace the cache: refused, naming it.
TEST(KernelLibraryTest, AFolderAboveTheCacheOthersCanWriteIsRefused) {
  const std::string dir = fresh_dir("above");
  std::filesystem::create_directories(dir + "/open");
  chmod((dir + "/open").c_str(), 0777);
  auto refused = KernelLibrary::compile(kAddOne, options_in(dir + "/open/cache"));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("is inside " + dir + "/open (mode 0777, writable by other users)"));
  chmod((dir + "/open").c_str(), 01777);  // sticky, as /tmp
  auto sticky = KernelLibrary::compile(kAddOne, options_in(dir + "/open/cache"));
  EXPECT_TRUE(sticky.ok()) << sticky.status();
}

// A umask that lets the group write (002, common) still makes a cache only
// this user can write, and libraries the next run accepts.
TEST(KernelLibraryTest, TheCacheIsPrivateWhateverTheUmask) {
  const std::string dir = fresh_dir("umask");
  const mode_t previous = umask(002);
  CompilerOptions options = options_in(dir + "/a/b/cache");
  auto first = KernelLibrary::compile(kAddOne, options);
  auto second = KernelLibrary::compile(kAddOne, options);
  umask(previous);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_TRUE((*second)->from_cache());
  struct stat st;
  ASSERT_EQ(stat(options.cache_dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

// A compiler that hangs is stopped at the timeout, one that is killed is
// named so; neither leaves anything in the cache.
TEST(KernelLibraryTest, ACompilerThatHangsOrDiesIsNamed) {
  const std::string dir = fresh_dir("hangs");
  const std::string hangs = dir + "/hangs", dies = dir + "/dies";
  std::ofstream(hangs) << "#!/bin/sh\nexec sleep 30\n";
  std::ofstream(dies) << "#!/bin/sh\nkill -9 $$\n";
  chmod(hangs.c_str(), 0755);
  chmod(dies.c_str(), 0755);
  CompilerOptions options = options_in(dir + "/cache");
  options.compiler = hangs;
  options.timeout_seconds = 1;
  auto hung = KernelLibrary::compile(kAddOne, options);
  EXPECT_EQ(hung.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(hung.status().message()), HasSubstr("did not finish in 1 s"));
  options.compiler = dies;
  auto died = KernelLibrary::compile(kAddOne, options);
  EXPECT_THAT(std::string(died.status().message()), HasSubstr("killed by signal 9"));
  EXPECT_THAT(files_in(options.cache_dir), ::testing::IsEmpty());
}

TEST(KernelLibraryTest, TheEnvironmentChoosesCompilerAndCache) {
  setenv("FX_CXX", "my-c++", 1);
  setenv("FX_CACHE_DIR", "/somewhere/kernels", 1);
  CompilerOptions options = CompilerOptions::from_environment();
  EXPECT_EQ(options.compiler, "my-c++");
  EXPECT_EQ(options.cache_dir, "/somewhere/kernels");
  unsetenv("FX_CXX");
  unsetenv("FX_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  options = CompilerOptions::from_environment();
  EXPECT_EQ(options.compiler, "c++");
  EXPECT_EQ(options.cache_dir, "/xdg/fx-cpp/kernels");
  EXPECT_EQ(options.isa, this_cpu_isa());
}

}  // namespace
}  // namespace codegen
}  // namespace fx
