// Copyright 2026 The FX for C++ Authors.
#include "core/printer.h"

#include <limits>

#include "core/testing/seed_graphs.h"
#include "core/well_known.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace fx {
namespace {

TEST(PrinterTest, SeedMyModuleGraphPrintsExactlyAsTorchFx) {
  Graph g;
  testing::build_seed_my_module(g);
  EXPECT_EQ(format_graph(g),
            "graph():\n"
            "    %x : [num_users=1] = placeholder[target=x]\n"
            "    %linear_weight : [num_users=1] = get_attr[target=linear.weight]\n"
            "    %add : [num_users=1] = call_function[target=operator.add](args = (%x, %linear_weight), kwargs = {})\n"
            "    %linear : [num_users=1] = call_module[target=linear](args = (%add,), kwargs = {})\n"
            "    %relu : [num_users=1] = call_method[target=relu](args = (%linear,), kwargs = {})\n"
            "    %sum_1 : [num_users=1] = call_function[target=torch.sum](args = (%relu,), kwargs = {dim: -1})\n"
            "    %topk : [num_users=1] = call_function[target=torch.topk](args = (%sum_1, 3), kwargs = {})\n"
            "    return topk");
}

TEST(PrinterTest, TabularMatchesTabulateSimpleFormat) {
  // Seed 000's M1, default trace.
  Graph g;
  Node* x = g.placeholder("x");
  Node* relu = g.call_module("relu", {x});
  g.output(relu);
  EXPECT_EQ(format_tabular(g),
            "opcode       name    target    args     kwargs\n"
            "-----------  ------  --------  -------  --------\n"
            "placeholder  x       x         ()       {}\n"
            "call_module  relu    relu      (x,)     {}\n"
            "output       output  output    (relu,)  {}");
}

TEST(PrinterTest, TabularShowsOperatorTargetsAndKwargsAsPython) {
  // Seed 000's M1 traced through ReLU (LowerReluTracer).
  Graph g;
  Node* x = g.placeholder("x");
  Node* relu = g.call_function("aten::relu", {x}, {{"inplace", false}});
  g.output(relu);
  EXPECT_EQ(format_tabular(g),
            "opcode         name    target             args     kwargs\n"
            "-------------  ------  -----------------  -------  ------------------\n"
            "placeholder    x       x                  ()       {}\n"
            "call_function  relu    aten.relu.default  (x,)     {'inplace': False}\n"
            "output         output  output             (relu,)  {}");
}

TEST(PrinterTest, TabularCanShowMetaColumns) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* conv = g.call_module("layer1.0.conv1", {x});
  conv->meta().set("module_path", "layer1.0.conv1");
  x->meta().set("module_path", "");
  g.output(conv);
  EXPECT_EQ(format_tabular(g, {"module_path"}),
            "opcode       name            target          args               kwargs    module_path\n"
            "-----------  --------------  --------------  -----------------  --------  --------------\n"
            "placeholder  x               x               ()                 {}\n"
            "call_module  layer1_0_conv1  layer1.0.conv1  (x,)               {}        layer1.0.conv1\n"
            "output       output          output          (layer1_0_conv1,)  {}");
}

TEST(PrinterTest, TabularMetaColumnsCanShowFieldsOfMaps) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* split = g.call_function("aten::split.Tensor", {x, 1});
  x->meta().set("tensor_meta", Meta{{"shape", MetaValue::List{2, 3}}, {"dtype", "torch.float32"}});
  // A list of tensors: the field of each; None for a non-tensor element.
  split->meta().set("tensor_meta", MetaValue::List{Meta{{"shape", MetaValue::List{1, 3}}},
                                                   MetaValue()});
  g.output(split);
  EXPECT_EQ(format_tabular(g, {"tensor_meta.shape", "tensor_meta.dtype"}),
            "opcode         name    target             args      kwargs    shape           dtype\n"
            "-------------  ------  -----------------  --------  --------  --------------  -------------\n"
            "placeholder    x       x                  ()        {}        [2, 3]          torch.float32\n"
            "call_function  split   aten.split.Tensor  (x, 1)    {}        [[1, 3], None]  [None, None]\n"
            "output         output  output             (split,)  {}");
}

TEST(PrinterTest, CodeFreesValuesAfterTheirLastUse) {
  // The torch.fx documentation's example (seed 003).
  Graph g;
  Node* x = g.placeholder("x");
  Node* param = g.get_attr("param");
  Node* add = g.call_function("operator.add", {x, param});
  Node* linear = g.call_module("linear", {add});
  Node* clamp = g.call_method("clamp", {linear}, {{"min", 0.0}, {"max", 1.0}});
  g.output(clamp);
  EXPECT_EQ(python_code(g),
            "def forward(self, x):\n"
            "    param = self.param\n"
            "    add = x + param;  x = param = None\n"
            "    linear = self.linear(add);  add = None\n"
            "    clamp = linear.clamp(min = 0.0, max = 1.0);  linear = None\n"
            "    return clamp\n");
}

TEST(PrinterTest, CodeOfTheSeedInverse) {
  // Seed 000's invert(f): `print(res.code)`.
  Graph g;
  Node* output = g.placeholder("output");
  Node* log = g.call_function("torch.log", {output});
  Node* arctan = g.call_function("torch.arctan", {log});
  g.output(arctan);
  EXPECT_EQ(python_code(g),
            "def forward(self, output):\n"
            "    log = torch.log(output);  output = None\n"
            "    arctan = torch.arctan(log);  log = None\n"
            "    return arctan\n");
}

TEST(PrinterTest, CodeSpellsOperatorsAttributesAndDefaults) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* scale = g.placeholder("scale", "", Argument(2.0));
  Node* w = g.get_attr("layer1.0.conv1.weight");
  Node* conv = g.call_module("layer1.0.conv1", {x});
  Node* add = g.call_function("aten::add.Tensor", {conv, w}, {{"alpha", scale}});
  Node* shape = g.call_function("getattr", {add, "shape"});
  Node* first = g.call_function("operator.getitem", {shape, 0});
  Node* neg = g.call_function("operator.neg", {add});
  Node* view = g.call_method("view", {neg, first, -1});
  Node* t = g.call_function("torch.empty", {Argument::Tuple({})},
                            {{"dtype", c10::kFloat}, {"device", c10::Device("cpu")},
                             {"mode", "bilinear"}});
  g.output(Argument::Tuple({view, t}));
  EXPECT_EQ(python_code(g),
            "def forward(self, x, scale = 2.0):\n"
            "    layer1_0_conv1_weight = getattr(self.layer1, \"0\").conv1.weight\n"
            "    layer1_0_conv1 = getattr(self.layer1, \"0\").conv1(x);  x = None\n"
            "    add = torch.ops.aten.add.Tensor(layer1_0_conv1, layer1_0_conv1_weight, alpha = scale);  "
            "layer1_0_conv1 = layer1_0_conv1_weight = scale = None\n"
            "    getattr_1 = add.shape\n"
            "    getitem = getattr_1[0];  getattr_1 = None\n"
            "    neg = -add;  add = None\n"
            "    view = neg.view(getitem, -1);  neg = getitem = None\n"
            "    empty = torch.empty((), dtype = torch.float32, device = torch.device('cpu'), mode = 'bilinear')\n"
            "    return (view, empty)\n");
}

TEST(PrinterTest, GraphFormOfOperatorsBuiltinsDefaultsAndTypes) {
  Graph g;
  Node* x = g.placeholder("x", "torch.Tensor");
  Node* k = g.placeholder("k", "", Argument(3));
  Node* len = g.call_function("len", {Argument::List({x, k})});
  Node* add = g.call_function("aten::add.Tensor", {x, x}, {{"mode", "bilinear"}});
  g.output(Argument::Tuple({len, add}));
  EXPECT_EQ(format_graph(g),
            "graph():\n"
            "    %x : torch.Tensor [num_users=2] = placeholder[target=x]\n"
            "    %k : [num_users=1] = placeholder[target=k](default=3)\n"
            "    %len_1 : [num_users=1] = call_function[target=builtins.len](args = ([%x, %k],), kwargs = {})\n"
            "    %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, %x), kwargs = {mode: bilinear})\n"
            "    return (len_1, add)");
}

TEST(PrinterTest, EmptyGraphCodeIsPass) {
  Graph g;
  EXPECT_EQ(python_code(g), "def forward(self):\n    pass\n");
  EXPECT_EQ(format_graph(g), "graph():");
}

TEST(PrinterTest, PythonFloatRepr) {
  EXPECT_EQ(python_float_repr(1.0), "1.0");
  EXPECT_EQ(python_float_repr(0.0), "0.0");
  EXPECT_EQ(python_float_repr(-0.0), "-0.0");
  EXPECT_EQ(python_float_repr(0.1), "0.1");
  EXPECT_EQ(python_float_repr(1e-05), "1e-05");
  EXPECT_EQ(python_float_repr(0.0001), "0.0001");
  EXPECT_EQ(python_float_repr(1e16), "1e+16");
  EXPECT_EQ(python_float_repr(1e15), "1000000000000000.0");
  EXPECT_EQ(python_float_repr(1.5e300), "1.5e+300");
  EXPECT_EQ(python_float_repr(0.28867513459481292), "0.2886751345948129");
  EXPECT_EQ(python_float_repr(-2.5), "-2.5");
  EXPECT_EQ(python_float_repr(123456.789), "123456.789");
  EXPECT_EQ(python_float_repr(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(python_float_repr(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(python_float_repr(std::nan("")), "nan");
}

TEST(PrinterTest, PythonReprOfValues) {
  EXPECT_EQ(python_string_repr("a"), "'a'");
  EXPECT_EQ(python_string_repr("it's"), "\"it's\"");
  EXPECT_EQ(python_string_repr("a'\"b"), "'a\\'\"b'");
  EXPECT_EQ(python_string_repr("line\nnext\\"), "'line\\nnext\\\\'");
  EXPECT_EQ(python_repr(Argument::Tuple({1})), "(1,)");
  EXPECT_EQ(python_repr(Argument::Tuple({})), "()");
  EXPECT_EQ(python_repr(Argument::List({1, 2.5, true, Argument()})), "[1, 2.5, True, None]");
  EXPECT_EQ(python_repr(Argument::Dict({{"dim", -1}})), "{'dim': -1}");
  EXPECT_EQ(python_repr(c10::kLong), "torch.int64");
  EXPECT_EQ(python_repr(c10::Device("cuda:1")), "device(type='cuda', index=1)");
  EXPECT_EQ(format_arg(c10::Device("cuda:1")), "cuda:1");
  EXPECT_EQ(python_repr(c10::kStrided), "torch.strided");
  EXPECT_EQ(python_repr(c10::MemoryFormat::ChannelsLast), "torch.channels_last");
  EXPECT_EQ(format_arg(Argument::Dict({{"mode", "nearest"}})), "{mode: nearest}");
}

TEST(PrinterTest, FunctionTargetSpellings) {
  EXPECT_EQ(spell_function_target("aten::add.Tensor", TargetStyle::kGraph), "torch.ops.aten.add.Tensor");
  EXPECT_EQ(spell_function_target("aten::relu", TargetStyle::kCode), "torch.ops.aten.relu.default");
  EXPECT_EQ(spell_function_target("aten::relu", TargetStyle::kTabular), "aten.relu.default");
  EXPECT_EQ(spell_function_target("getattr", TargetStyle::kGraph), "builtins.getattr");
  EXPECT_EQ(spell_function_target("getattr", TargetStyle::kCode), "getattr");
  EXPECT_EQ(spell_function_target("torch.sum", TargetStyle::kTabular), "torch.sum");
}

TEST(PrinterTest, MetaValuesInCells) {
  EXPECT_EQ(format_meta_value(MetaValue("foo")), "foo");
  EXPECT_EQ(format_meta_value(MetaValue(3)), "3");
  EXPECT_EQ(format_meta_value(MetaValue(MetaValue::List{"a", 1})), "['a', 1]");
  EXPECT_EQ(format_meta_value(MetaValue(Meta{{"k", true}})), "{'k': True}");
}

TEST(PrinterTest, CodeWritesTorchScriptBuiltinsAsPythonSyntax) {
  // TorchScript's list, dict and str builtins have no torch.ops form Python
  // can call: the code writes the syntax they stand for.
  Graph g;
  Node* l = g.placeholder("l", "typing.List[int]");
  Node* d = g.placeholder("d", "typing.Dict[str, torch.Tensor]");
  Node* n = g.call_function("aten::len.t", {l});
  Node* s = g.call_function("aten::slice.t", {l, 1, Argument(), 2});
  Node* head = g.call_function("aten::slice.t", {l, Argument(), -1});
  Node* v = g.call_function("aten::__getitem__.Dict_str", {d, "a"});
  g.call_function("aten::_set_item.str", {d, "b", v});
  Node* in = g.call_function("aten::__contains__.str", {d, "b"});
  Node* inf = g.call_function("aten::full.default", {Argument::List({2}), 1.0 / 0.0});
  g.output(Argument::Tuple({n, s, head, in, inf}));
  EXPECT_EQ(python_code(g),
            "def forward(self, l : typing.List[int], d : typing.Dict[str, torch.Tensor]):\n"
            "    len_1 = len(l)\n"
            "    slice_1 = l[1::2]\n"
            "    slice_2 = l[:-1];  l = None\n"
            "    getitem = d['a']\n"
            "    d['b'] = getitem;  _set_item = None;  getitem = None\n"
            "    contains = 'b' in d;  d = None\n"
            "    full = torch.ops.aten.full.default([2], float('inf'))\n"
            "    return (len_1, slice_1, slice_2, contains, full)\n");
}

TEST(PrinterTest, CodeWritesGenericListAndDictMethodsAsPython) {
  // Schemas with type variables (`t[]`, `Dict(str, t)`), which torch.ops
  // cannot convert Python values for: every one a traced list or dict meets.
  Graph g;
  Node* l = g.placeholder("l", "typing.List[int]");
  Node* d = g.placeholder("d", "typing.Dict[str, int]");
  Node* popped = g.call_function("aten::pop.t", {l, -1});
  g.call_function("aten::reverse.t", {l});
  Node* copy = g.call_function("aten::copy.t", {l});
  Node* picked = g.call_function("aten::select.t", {copy, 0});
  g.call_function("aten::Delete.t", {copy, 0});
  Node* more = g.call_function("aten::add_.t", {copy, Argument::List({1})});
  Node* sorted = g.call_function("aten::sorted.any", {more});
  g.call_function("aten::sort.any", {more, true});
  Node* got = g.call_function("aten::get.default_str", {d, "a", 0});
  Node* kept = g.call_function("aten::setdefault.str", {d, "b", 1});
  Node* item = g.call_function("aten::popitem.str", {d});
  Node* hashed = g.call_function("aten::hash.generic", {popped});
  g.output(Argument::Tuple({picked, sorted, got, kept, item, hashed}));
  EXPECT_EQ(python_code(g),
            "def forward(self, l : typing.List[int], d : typing.Dict[str, int]):\n"
            "    pop = l.pop(-1)\n"
            "    l.reverse();  reverse = None\n"
            "    copy = l.copy();  l = None\n"
            "    select = copy[0]\n"
            "    del copy[0];  delete = None\n"
            "    copy += [1];  add_ = copy;  copy = None\n"
            "    sorted_1 = sorted(add_)\n"
            "    add_.sort(reverse = True);  sort = None;  add_ = None\n"
            "    get = d.get('a', 0)\n"
            "    setdefault = d.setdefault('b', 1)\n"
            "    popitem = d.popitem();  d = None\n"
            "    hash_1 = hash(pop);  pop = None\n"
            "    return (select, sorted_1, get, setdefault, popitem, hash_1)\n");
}

TEST(PrinterTest, CodeWritesLiteralTensorsDtypesAndTensorAttributesAsPython) {
  // torch.ops.aten.tensor cannot take a Python list (its data is `t[]`), and
  // torch.ops.prim.dtype gives TorchScript's int, not a torch.dtype.
  Graph g;
  Node* x = g.placeholder("x");
  Node* dtype = g.call_function("prim::dtype", {x});
  Node* device = g.call_function("prim::device", {x});
  Node* layout = g.call_function("prim::layout", {x});
  Node* t = g.call_function("aten::tensor", {Argument::List({1.0, 2.0})},
                            {{"dtype", dtype}, {"device", device}});
  Node* s = g.call_function("aten::tensor.float", {0.5}, {{"dtype", c10::kDouble}});
  Node* a = g.call_function("aten::as_tensor.list", {Argument::List({1, 2})});
  Node* half = g.call_function("operator.eq", {dtype, c10::kHalf});
  g.output(Argument::Tuple({t, s, a, layout, half}));
  EXPECT_EQ(python_code(g),
            "def forward(self, x):\n"
            "    dtype = x.dtype\n"
            "    device_1 = x.device\n"
            "    layout = x.layout;  x = None\n"
            "    tensor = torch.tensor([1.0, 2.0], dtype = dtype, device = device_1);  device_1 = None\n"
            "    tensor_1 = torch.tensor(0.5, dtype = torch.float64)\n"
            "    as_tensor = torch.as_tensor([1, 2])\n"
            "    eq = dtype == torch.float16;  dtype = None\n"
            "    return (tensor, tensor_1, as_tensor, layout, eq)\n");
}

TEST(PrinterTest, AttributesThatAreNoIdentifiersAreReachedWithGetattr) {
  // torchvision's RegNet names blocks `block1-0`; a module may be named `class`.
  Graph g;
  Node* x = g.placeholder("x");
  Node* w = g.get_attr("trunk.block1-0.class.weight");
  Node* y = g.call_module("trunk.block1-0.proj.0", {x});
  Node* z = g.call_module("odd.say\"hi\"", {y});
  g.output(Argument::Tuple({w, z}));
  EXPECT_EQ(python_code(g),
            "def forward(self, x):\n"
            "    trunk_block1_0_class_weight = getattr(getattr(self.trunk, \"block1-0\"), \"class\").weight\n"
            "    trunk_block1_0_proj_0 = getattr(getattr(self.trunk, \"block1-0\").proj, \"0\")(x);  x = None\n"
            "    odd_say_hi_ = getattr(self.odd, 'say\"hi\"')(trunk_block1_0_proj_0);  "
            "trunk_block1_0_proj_0 = None\n"
            "    return (trunk_block1_0_class_weight, odd_say_hi_)\n");
}

TEST(PrinterTest, ChecksAreAssertionsInTorchScriptAndCallsInPython) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* bias = g.placeholder("bias", "typing.Optional[torch.Tensor]", Argument());
  Node* mask = g.placeholder("mask", "typing.Optional[torch.Tensor]", Argument());
  g.call_function(kAssertIsNotNoneTarget, {bias, "bias was traced as given"});
  g.call_function(kAssertIsNoneTarget, {mask, "mask is None"});
  Node* add = g.call_function("aten::add.Tensor", {x, bias});
  g.output(add);
  EXPECT_EQ(python_code(g),
            "def forward(self, x, bias : typing.Optional[torch.Tensor] = None, "
            "mask : typing.Optional[torch.Tensor] = None):\n"
            "    assert_is_not_none = torch._assert(bias is not None, 'bias was traced as given')\n"
            "    _assert_is_none = torch.fx._symbolic_trace._assert_is_none(mask, 'mask is None');  "
            "mask = None\n"
            "    add = torch.ops.aten.add.Tensor(x, bias);  x = bias = None\n"
            "    return add\n");
  // TorchScript refines `bias` to a Tensor after `assert bias is not None`.
  EXPECT_THAT(python_code(g, CodeDialect::kTorchScript),
              ::testing::AllOf(
                  ::testing::HasSubstr("    assert bias is not None, 'bias was traced as given'\n"),
                  ::testing::HasSubstr("    assert mask is None, 'mask is None'\n")));
}

TEST(PrinterTest, NamedTuplesPrintAsTheirClassesAndAreImportedInCode) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* relu = g.call_function("aten::relu", {x});
  g.output(Argument::NamedTuple("torchvision.models.googlenet.GoogLeNetOutputs",
                                {"logits", "aux_logits2", "aux_logits1"}, {relu, Argument(), x}));
  EXPECT_THAT(format_graph(g),
              ::testing::HasSubstr(
                  "return GoogLeNetOutputs(logits=relu, aux_logits2=None, aux_logits1=x)"));
  EXPECT_EQ(python_code(g),
            "from torchvision.models.googlenet import GoogLeNetOutputs\n"
            "\n"
            "def forward(self, x):\n"
            "    relu = torch.ops.aten.relu.default(x)\n"
            "    return GoogLeNetOutputs(relu, None, x)\n");
  // TorchScript's source names the class in full; the exporter resolves it.
  EXPECT_THAT(python_code(g, CodeDialect::kTorchScript),
              ::testing::HasSubstr(
                  "return torchvision.models.googlenet.GoogLeNetOutputs(relu, None, x)"));
}

TEST(PrinterTest, HookedLeafModulesAreCalledThroughForwardInPython) {
  // The module's hooks are nodes of the graph: `self.head(x)` would run them again.
  Graph g;
  Node* x = g.placeholder("x");
  Node* head = g.call_module("head", {x});
  head->meta().set(kHooksTracedKey, true);
  Node* body = g.call_module("body", {head});
  g.output(body);
  EXPECT_EQ(python_code(g),
            "def forward(self, x):\n"
            "    head = self.head.forward(x);  x = None\n"
            "    body = self.body(head);  head = None\n"
            "    return body\n");
}

}  // namespace
}  // namespace fx
