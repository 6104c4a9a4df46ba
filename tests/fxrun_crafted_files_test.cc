// Copyright 2026 The FX for C++ Authors.
//
// fxrun under a hostile user, files: crafted graph files, pickles, models and
// inputs that nest without end, hold what printed code must not carry, name
// things that are not files, or hold what libtorch reads without a word. Each
// is one `fxrun: error: ...` line with exit status 1: never a crash, a hang or
// a silent success.
#include <sys/stat.h>
#include <unistd.h>

#include <ATen/core/Tensor.h>
#include <ATen/ops/ones.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fxrun_process.h"
#include "tests/testing/runfiles.h"

namespace fx {
namespace {

using ::testing::AnyOf;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::fx::testing::expect_one_error_line;
using ::fx::testing::read_file;
using ::fx::testing::repeat;
using ::fx::testing::runfile;
using ::fx::testing::temporary_path;
using ::fx::testing::write_file;

using Result = ::fx::testing::FxrunResult;

Result fxrun(const std::string& args) { return ::fx::testing::run_fxrun(args); }

std::string m1() { return runfile("tests/fixtures/m1.pt"); }


// m1's graph file, as fxrun writes it.
std::string m1_graph_file() {
  Result r = fxrun("--model=" + m1() + " --emit=json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(FxrunCraftedFilesTest, GraphFilesNestedWithoutEndAreErrors) {
  const std::string graph = m1_graph_file();
  const std::string args = "\"args\": [\n        {\n          \"node\": \"x\"\n        }\n      ]";
  ASSERT_THAT(graph, HasSubstr(args));
  struct Case {
    std::string name;
    std::string text;
  };
  std::vector<Case> cases;
  for (int depth : {10000, 1000000}) {
    cases.push_back({absl::StrCat("array in args ", depth),
                     absl::StrReplaceAll(graph, {{args, absl::StrCat("\"args\": [{\"node\": \"x\"}, ",
                                                                     repeat("[", depth),
                                                                     repeat("]", depth), "]")}})});
    cases.push_back({absl::StrCat("tuple in args ", depth),
                     absl::StrReplaceAll(graph, {{args, absl::StrCat("\"args\": [{\"node\": \"x\"}, ",
                                                                     repeat("{\"tuple\": [", depth),
                                                                     repeat("]}", depth), "]")}})});
    cases.push_back({absl::StrCat("unclosed ", depth),
                     absl::StrCat("{\"format\": \"fx-graph\", \"nodes\": ", repeat("[", depth))});
  }
  // nlohmann's ordered_json copies an object's values recursively when a
  // later key grows it: 30,000 levels and more keys after them used to crash
  // while parsing, before any check of the parsed document.
  cases.push_back({"deep value then more keys",
                   absl::StrCat("{\"meta\": ", repeat("[", 30000), repeat("]", 30000),
                                ", \"format\": \"fx-graph\", \"version\": 1, \"nodes\": []}")});
  for (const Case& c : cases) {
    const std::string path = temporary_path("deep.json");
    write_file(path, c.text);
    expect_one_error_line(fxrun("--model=" + m1() + " --graph=" + path),
                 "nested deeper than 200 arrays and objects; no graph needs that", c.name);
  }
  // Nesting inside a string: a placeholder's TorchScript type, which libtorch's
  // type parser (checking inputs) follows recursively.
  const std::string declared = "\"_torchscript_type\": \"Tensor\"";
  ASSERT_THAT(graph, HasSubstr(declared));
  const std::string path = temporary_path("deep_type.json");
  write_file(path, absl::StrReplaceAll(graph, {{declared, absl::StrCat("\"_torchscript_type\": \"",
                                                                  repeat("List[", 100000), "int",
                                                                  repeat("]", 100000), "\"")}}));
  expect_one_error_line(fxrun("--model=" + m1() + " --graph=" + path + " --run --input-shape=4"),
               "node 'x' meta _torchscript_type: 'List[List[", "deep type");
}

// A graph file that can only change what printed code means.
TEST(FxrunCraftedFilesTest, GraphFilesCannotChangeWhatPrintedCodeMeans) {
  const std::string graph = m1_graph_file();
  const std::string placeholder = "\"name\": \"x\",\n      \"op\": \"placeholder\",";
  ASSERT_THAT(graph, HasSubstr(placeholder));
  auto with_type = [&](const std::string& type) {
    return absl::StrReplaceAll(graph, {{placeholder, absl::StrCat(placeholder, " \"type\": \"", type,
                                                                  "\",")}});
  };
  struct Case {
    std::string text;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           // The type is pasted into `def forward(self, x : <type>)`.
           {with_type("torch.Tensor):\\n    return torch.neg(x)\\n    def f(self, y: torch.Tensor"),
            "node 'x' type: 'torch.Tensor):\\n    return torch.neg(x)\\n    def f(self, y: "
            "torch.Tensor' is not a type annotation"},
           {with_type("NotAType"), "node 'x' type: 'NotAType' names no type TorchScript knows"},
           {with_type("int"), "'int' is not the type of forward's argument 'x' ('Tensor'"},
           {absl::StrReplaceAll(graph, {{"\"class_name\": \"GraphModule\"", "\"class_name\": \"class\""}}),
            "class_name: 'class' is not a Python identifier that is not a keyword"},
           {absl::StrReplaceAll(graph, {{"\"x\"", "\"self\""}}),
            "nodes[0] ('self'): 'self' names the module itself in printed code"},
           // Only the node's name (its target is still the module relu).
           {absl::StrReplaceAll(graph, {{"\"name\": \"relu\"", "\"name\": \"self\""},
                                        {"\"node\": \"relu\"", "\"node\": \"self\""}}),
            "nodes[1] ('self'): 'self' names the module itself in printed code"},
       }) {
    const std::string path = temporary_path("crafted.json");
    write_file(path, c.text);
    Result r = fxrun("--model=" + m1() + " --graph=" + path + " --print=code");
    expect_one_error_line(r, c.message, c.message);
    EXPECT_THAT(r.out, Not(HasSubstr("def forward")));
  }
  // A node without a name or an op is a node without a name or an op.
  for (const char* field : {"name", "op"}) {
    const std::string path = temporary_path("no_field.json");
    write_file(path, absl::StrReplaceAll(graph, {{absl::StrCat("\"", field, "\": \"relu\",") , ""},
                                            {absl::StrCat("\"", field, "\": \"call_module\","), ""}}));
    Result r = fxrun("--model=" + m1() + " --graph=" + path);
    expect_one_error_line(r, absl::StrCat("nodes[1]: expected a string \"", field, "\""), field);
    EXPECT_THAT(r.err, Not(HasSubstr("not a graph file")));
  }
}

// A zip archive like `from` with record `name` (as the archive names it,
// without its folder) holding `bytes`.
void rewrite_archive(const std::string& from, const std::string& to, const std::string& name,
                     const std::string& bytes) {
  caffe2::serialize::PyTorchStreamReader reader(from);
  caffe2::serialize::PyTorchStreamWriter writer(to);
  bool replaced = false;
  for (const std::string& record : reader.getAllRecords()) {
    if (record == "version") continue;  // the writer writes its own
    if (record == name) {
      writer.writeRecord(record, bytes.data(), bytes.size());
      replaced = true;
      continue;
    }
    auto [data, size] = reader.getRecord(record);
    writer.writeRecord(record, data.get(), size);
  }
  writer.writeEndOfFile();
  ASSERT_TRUE(replaced) << name;
}

// Protocol-2 pickles libtorch reads: lists in lists, tuples in tuples.
std::string deep_lists(int n) { return absl::StrCat("\x80\x02", repeat("](", n), repeat("e", n), "."); }
std::string deep_tuples(int n) { return absl::StrCat("\x80\x02", repeat("(", n), ")", repeat("t", n), "."); }

TEST(FxrunCraftedFilesTest, PicklesNestedWithoutEndAreErrors) {
  // --input: torch.save's archive, its data.pkl 10^6 lists or tuples deep.
  for (const auto& [kind, pickle] : {std::make_pair("lists", deep_lists(1000000)),
                                     std::make_pair("tuples", deep_tuples(1000000))}) {
    const std::string input = temporary_path(absl::StrCat("deep_", kind, ".pt"));
    caffe2::serialize::PyTorchStreamWriter writer(input);
    writer.writeRecord("data.pkl", pickle.data(), pickle.size());
    writer.writeEndOfFile();
    expect_one_error_line(fxrun("--model=" + m1() + " --run --input=" + input),
                 "its data.pkl: it nests values deeper than 1000 levels", kind);
  }
  // Below the bound, the value is read, and the error about it is cut.
  const std::string input = temporary_path("tuples_900.pt");
  const std::string tuples = deep_tuples(900);
  {
    caffe2::serialize::PyTorchStreamWriter writer(input);
    writer.writeRecord("data.pkl", tuples.data(), tuples.size());
    writer.writeEndOfFile();
  }
  Result cut = fxrun("--model=" + m1() + " --run --print=none --input=" + input);
  expect_one_error_line(cut, "input 0 (placeholder 'x') must be Tensor but got Tuple[Tuple[", "900 deep");
  EXPECT_LT(cut.err.size(), 300u);
  // A TorchScript model: its data.pkl and constants.pkl.
  for (const char* record : {"data.pkl", "constants.pkl"}) {
    const std::string model = temporary_path(absl::StrCat("deep_", record, ".pt"));
    rewrite_archive(m1(), model, record, deep_lists(1000000));
    expect_one_error_line(fxrun("--model=" + model),
                 absl::StrCat("cannot load model ", model, ": its ", record,
                              ": it nests values deeper than 1000 levels"),
                 record);
    // Also from standard input.
    expect_one_error_line(fxrun("--model=- < " + model),
                 absl::StrCat("cannot load model from standard input: its ", record), record);
  }
}

TEST(FxrunCraftedFilesTest, TorchScriptCodeNestedWithoutEndIsAnError) {
  caffe2::serialize::PyTorchStreamReader reader(m1());
  auto [data, size] = reader.getRecord("code/__torch__.py");
  const std::string code(static_cast<const char*>(data.get()), size);
  const std::string call = "return (relu).forward(x, )";
  ASSERT_THAT(code, HasSubstr(call));
  // Each would overflow libtorch's recursive parser or compiler.
  for (const std::string& expression :
       {repeat("(", 100000) + "x" + repeat(")", 100000), repeat("-", 100000) + "x",
        "x" + repeat("+x", 100000), "x" + repeat(".neg()", 100000)}) {
    const std::string model = temporary_path("deep_code.pt");
    rewrite_archive(m1(), model, "code/__torch__.py",
                    absl::StrReplaceAll(code, {{call, absl::StrCat("return (relu).forward(",
                                                                   expression, ", )")}}));
    expect_one_error_line(fxrun("--model=" + model),
                 "its code/__torch__.py: line 10 nests brackets, operators and blocks deeper than "
                 "1000 levels",
                 expression.substr(0, 10));
  }
}

TEST(FxrunCraftedFilesTest, ATensorReachingPastItsStorageIsAnError) {
  // libtorch loads it, and running it read 508 bytes of a 16-byte storage.
  const std::string model = runfile("tests/fixtures/past_storage.pt");
  expect_one_error_line(fxrun("--model=" + model + " --run --input-shape=127 --print=none"),
               "cannot load model " + model + ": a tensor reaches past its storage (508 bytes of 16)",
               "past storage");
}

TEST(FxrunCraftedFilesTest, FilesTorchSaveWroteAreCalledSo) {
  struct Case {
    std::string file;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"saved_dict.pt", "it was saved with torch.save, but holds a dict; --input takes a tensor"},
           {"saved_sparse.pt", "it was saved with torch.save, but holds a sparse tensor"},
           {"saved_meta.pt", "it was saved with torch.save, but holds a tensor on the meta device"},
           {"saved_legacy.pt",
            "it was saved in torch.save's legacy format (_use_new_zipfile_serialization=False), "
            "which libtorch does not read; save it again with torch.save's default format"},
       }) {
    Result r = fxrun("--model=" + m1() + " --run --input=" + runfile("tests/fixtures/" + c.file));
    expect_one_error_line(r, c.message, c.file);
    EXPECT_THAT(r.err, Not(HasSubstr("neither"))) << c.file;
  }
  // A dict libtorch reads (several items): still not inputs.
  const std::string dict = temporary_path("dict.pt");
  c10::Dict<std::string, at::Tensor> items;
  items.insert("a", at::ones({2}));
  items.insert("b", at::ones({2}));
  const std::vector<char> bytes = torch::jit::pickle_save(items);
  write_file(dict, std::string(bytes.begin(), bytes.end()));
  expect_one_error_line(fxrun("--model=" + m1() + " --run --input=" + dict), "holds a dict", "dict");
}

// torch.export programs and saved runs, each a committed program with one
// thing changed (tests/fixtures/crafted_programs.py).
std::string crafted(const std::string& file) { return runfile("tests/fixtures/crafted/" + file); }

TEST(FxrunCraftedFilesTest, Pt2ArchivesThatAreDamagedOrCraftedSayWhatIsWrong) {
  const std::string damaged = " is a damaged or crafted zip archive: ";
  for (const auto& [file, message] : std::vector<std::pair<std::string, std::string>>{
           // Readers disagree on which counts; PyTorch reads the last.
           {"dup_program.pt2", damaged + "it holds two members named 'serialized_exported_program.json'"},
           {"dup_weight.pt2", damaged + "it holds two members named 'linear_bn/data/weights/weight_0'"},
           // These were reported as broken TorchScript files.
           {"dotdot.pt2", damaged + "member '../linear_bn/data/weights/weight_0' climbs out of the archive's folder"},
           {"absolute.pt2", damaged + "member '/linear_bn/data/weights/weight_0' has an absolute path"},
           // read() allocated the size claimed before finding the data short.
           {"claims_6gib.pt2", damaged + "member 'linear_bn/models/model.json' claims 6442450944 bytes but stores"},
           // 1 MB inflating to 1 GiB of whitespace: minutes and gigabytes.
           {"bomb.pt2", damaged + "member 'linear_bn/models/model.json' would inflate from "},
       }) {
    Result r = fxrun("--model=" + crafted(file) + " --run --print=none");
    expect_one_error_line(r, "cannot load model: " + crafted(file) + message, file);
    EXPECT_THAT(r.err, Not(HasSubstr("TorchScript"))) << file;
  }
  // Sizes of 0xFFFFFFFF without their zip64 records: libzip 1.7 (Debian 12)
  // cannot read the directory; libzip 1.11 and later read it, and the
  // reader's own size check names the member.
  const std::string file = crafted("no_directory.pt2");
  Result r = fxrun("--model=" + file + " --run --print=none");
  expect_one_error_line(r, "cannot load model: " + file + " is a damaged", "no_directory.pt2");
  EXPECT_THAT(r.err, AnyOf(HasSubstr(" is a damaged zip archive: libzip cannot read its directory"),
                           HasSubstr(damaged + "member 'serialized_exported_program.json' claims 4294967295 "
                                               "stored bytes")));
}

TEST(FxrunCraftedFilesTest, Pt2ProgramsAreReadOnlyAsPyTorchWouldRunThem) {
  for (const auto& [file, message] : std::vector<std::pair<std::string, std::string>>{
           // relu of an int ran, and printed a long[] where float[2, 2] was declared.
           {"relu_of_int.pt2",
            "node 'relu' (torch.ops.aten.relu.default): inputs[0] 'self' is as_int, and aten::relu takes Tensor "
            "there (PyTorch refuses such a call"},
           {"relu_of_list.pt2",
            "node 'relu' (torch.ops.aten.relu.default): inputs[0] 'self' is as_tensors, and aten::relu takes Tensor"},
           {"split_by_string.pt2",
            "node 'split' (torch.ops.aten.split.Tensor): inputs[1] 'split_size' is as_string, and aten::split.Tensor "
            "takes int there"},
           // JSON strings parsed again: 100,000 arrays deep overflowed the stack.
           {"in_spec_deep.pt2",
            "graph_module.module_call_graph[0].signature.in_spec: the tree spec: the JSON nests arrays and "
            "objects deeper than 204 levels"},
           {"out_spec_deep.pt2", "graph_module.module_call_graph[0].signature.out_spec: the tree spec: the JSON nests"},
           {"context_deep.pt2",
            "graph_module.module_call_graph[0].signature.in_spec: [1].children_spec[1].context: builtins.dict "
            "without its keys"},
           // Was nlohmann's raw type_error.302, with no place in the file.
           {"in_spec_null_key.pt2",
            "graph_module.module_call_graph[0].signature.in_spec: [1].children_spec[1].context[0]: a dict key "
            "that is null; the keys of a program's dicts are strings or ints"},
       }) {
    expect_one_error_line(fxrun("--model=" + crafted(file) + " --print=none"),
                          "cannot read " + crafted(file) + ": " + message, file);
  }
  // Symbolic sizes, evaluated at every run: SIGFPE, and for ever.
  for (const auto& [file, message] : std::vector<std::pair<std::string, std::string>>{
           {"floordiv_min.pt2",
            "input 0 ('x'): dimension 1 must be -9223372036854775808//-1, which cannot be computed: a symbolic "
            "size overflows"},
           {"mod_min.pt2", "input 0 ('x'): dimension 1 is 4, and the program needs -9223372036854775808 % -1 = 0"},
           {"pow_huge.pt2", "input 0 ('x'): dimension 1 is 4, and the program needs 1**1000000000000000000 = 1"},
       }) {
    expect_one_error_line(fxrun("--model=" + crafted(file) + " --run --print=none"), message, file);
  }
}

TEST(FxrunCraftedFilesTest, Pt2PicklesThatContainThemselvesOrForgeTheReadersMarksAreErrors) {
  const std::string self = "a list or dict that contains itself";
  const std::string changed = "a list or dict changed after it was placed in another value";
  const std::string forged = "a storage id without its storage type";
  // Sample inputs: the program is still read (with a warning); --run needs
  // other inputs. Each crashed fxrun (a stack overflow, libtorch's quantizer
  // assert), some while only loading the program.
  for (const auto& [file, member, why] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"self_list.pt2", "linear_bn/data/sample_inputs/model.pt", self},
           {"self_dict_legacy.pt2", "serialized_example_inputs.pt", self},
           {"chain.pt2", "linear_bn/data/sample_inputs/model.pt", changed},
           {"forged.pt2", "linear_bn/data/sample_inputs/model.pt", forged},
       }) {
    const std::string cannot = absl::StrCat("cannot read ", crafted(file), ": ", member, ": ", why);
    Result loaded = fxrun("--model=" + crafted(file) + " --print=none");
    EXPECT_EQ(loaded.exit_code, 0) << file << ": " << loaded.err;
    EXPECT_THAT(loaded.err, HasSubstr("fxrun: warning: " + cannot)) << file;
    Result run = fxrun("--model=" + crafted(file) + " --run --print=none");
    EXPECT_EQ(run.exit_code, 1) << file << ": " << run.err;
    EXPECT_THAT(run.err, HasSubstr("fxrun: error: the program's example inputs cannot be read (" + cannot)) << file;
    EXPECT_THAT(run.err, EndsWith("): give --input=FILE (saved with torch.save) or --input-shape=SHAPES\n")) << file;
  }
  // Saved runs.
  const std::string model = runfile("tests/exported_programs/torch2.14/linear_bn.pt2");
  for (const auto& [file, why] : std::vector<std::pair<std::string, std::string>>{
           {"self_list.expected.pt", self}, {"chain.expected.pt", changed}, {"forged.expected.pt", forged}}) {
    expect_one_error_line(fxrun("--model=" + model + " --check --print=none --expected=" + crafted(file)),
                          absl::StrCat("cannot read --expected ", crafted(file), ": ", why), file);
  }
}

TEST(FxrunCraftedFilesTest, InputsThatAreNoRegularFilesAreErrorsAtOnce) {
  const std::string fifo = temporary_path("inputs.fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  struct Case {
    std::string flags;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {"--run --input=" + fifo, "cannot read --input " + fifo + ": it is not a regular file but a FIFO"},
           {"--run --input=/dev/zero", "cannot read --input /dev/zero: it is not a regular file but a device"},
           {absl::StrCat("--run --input=", getenv("TEST_TMPDIR")), "it is a directory"},
           // A /proc file claims no size: read as empty, not for ever.
           {"--run --input=/proc/self/pagemap", "cannot read --input /proc/self/pagemap: the file is empty"},
           {"--graph=/proc/self/pagemap", "--graph /proc/self/pagemap is empty"},
       }) {
    expect_one_error_line(fxrun("--model=" + m1() + " " + c.flags), c.message, c.flags);
  }
}

TEST(FxrunCraftedFilesTest, AForwardWithoutArgumentsRunsWithoutInputs) {
  torch::jit::Module constant("Constant");
  constant.define("def forward(self):\n    return torch.ones(2, 3)\n");
  const std::string model = temporary_path("constant.pt");
  constant.save(model);
  Result r = fxrun("--model=" + model + " --run --print=none");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output 0: float[2, 3]"));
  // A forward with arguments still needs them, and says which.
  expect_one_error_line(fxrun("--model=" + m1() + " --run"), "--run needs inputs for forward's x", "m1");
}

// A graph file returning a tensor in oneDNN's opaque layout: nothing outside
// the graph reads one (printing it used to fail inside libtorch, "a bug").
TEST(FxrunCraftedFilesTest, AnOutputInOneDnnsOpaqueLayoutIsRefusedNamingIt) {
  const std::string path = temporary_path("mkldnn_output.json");
  write_file(path, R"({"format": "fx-graph", "version": 1, "nodes": [
    {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": {}},
    {"name": "dense", "op": "call_function", "target": "aten::relu", "args": [{"node": "x"}], "kwargs": {}},
    {"name": "opaque", "op": "call_function", "target": "aten::to_mkldnn", "args": [{"node": "x"}], "kwargs": {}},
    {"name": "output", "op": "output", "target": "output",
     "args": [{"tuple": [{"node": "dense"}, {"node": "opaque"}]}], "kwargs": {}}], "meta": {}})");
  expect_one_error_line(fxrun("--model=" + m1() + " --graph=" + path + " --run --input-shape=2,3"),
                        "output 1 is an MKLDNN tensor (oneDNN's opaque layout)", "mkldnn output");
}

}  // namespace
}  // namespace fx
