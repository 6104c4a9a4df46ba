// Copyright 2026 The FX for C++ Authors.
//
// tracer.h: turns a TorchScript module into an FX graph, keeping the module
// hierarchy, the way torch.fx's symbolic_trace would have in Python.
//
//   torch::jit::Module model = torch::jit::load("resnet18.pt");
//   absl::StatusOr<fx::GraphModule> gm = fx::Tracer().trace(model);
//   if (!gm.ok()) { std::cerr << gm.status() << "\n"; return 1; }
//   std::cout << fx::format_tabular(gm->graph());
//
// What the tracer does with a scripted model:
//   * `forward`'s arguments become placeholders named as in Python (`x`), with
//     their defaults; non-Tensor arguments keep their annotation as node type,
//     and every placeholder records its TorchScript type in
//     meta["_torchscript_type"] (the interpreter checks inputs against it).
//   * A submodule call becomes a `call_module` node (target `layer1.0.conv1`)
//     when the module is a leaf, and is traced through otherwise. The default
//     leaf rule is torch.fx's: modules of torch.nn are leaves, except the
//     containers (Sequential, ModuleList, ModuleDict); user modules are not.
//   * Other methods (ResNet's `_forward_impl`) and TorchScript functions
//     (`F.relu` in `nn.ReLU.forward`) are traced through.
//   * Parameters and buffers become `get_attr` nodes with qualified targets,
//     created once per trace; tensor constants become attributes of the
//     GraphModule (`_tensor_constant0`).
//   * Operators become `call_function` nodes of the exact overload
//     (`aten::add.Tensor`); trailing arguments equal to their default are
//     dropped and keyword-only arguments go to kwargs. Operators with several
//     results produce one node; each result used alone gets an
//     `operator.getitem` node.
//   * Everything known at trace time is evaluated then, as Python would while
//     torch.fx traces: module attributes (`self.training`, flags, sizes, None
//     submodules), arithmetic and comparisons on them, and `if`/`for` whose
//     condition or trip count they decide. Modules are traced in eval mode
//     unless TraceOptions::training says otherwise.
//   * A branch that only raises (an input check such as "expected 4D input")
//     becomes a `torch._assert` node, or is dropped (TraceOptions::assertions).
//     Control flow that depends on an input is an error naming the source line;
//     making the module a leaf, or the function a leaf function
//     (TraceOptions::leaf_functions, torch.fx's wrap), gets past it.
//   * In-place operators on values nothing else can observe (ResNet's
//     `out += identity`) are recorded out of place (`aten::add.Tensor`, named
//     `add` as torch.fx names it), since torch.fx's Python semantics rebind the
//     variable; in-place operators on inputs, parameters, views or tensors
//     with views stay in place and are marked impure. Leaf modules are assumed
//     to return tensors that do not alias their inputs.
//
// Customising a trace: TracerExtensions take part in the hooks torch.fx users
// override (is_leaf_module, call_module, create_proxy, create_node). Several
// extensions compose; each calls `next` where torch.fx code calls `super()`.
// This is the seed's ModulePathTracer:
//
//   class ModulePath : public fx::TracerExtension {
//     std::string current_;
//     absl::StatusOr<fx::Argument> call_module(fx::Tracer& t, const fx::ModuleRef& m,
//         const fx::ModuleForward& forward, const fx::Arguments& args,
//         const fx::Kwargs& kwargs, fx::CallModuleNext next) override {
//       std::string old = std::exchange(current_, t.path_of_module(m));
//       auto result = next(m, forward, args, kwargs);
//       current_ = old;
//       return result;
//     }
//     fx::Node* create_proxy(fx::Tracer& t, fx::Op op, absl::string_view target,
//         fx::Arguments args, fx::Kwargs kwargs, absl::string_view name,
//         fx::CreateProxyNext next) override {
//       fx::Node* n = next(op, target, std::move(args), std::move(kwargs), name);
//       n->meta().set("module_path", current_);
//       return n;
//     }
//   };
//
// As in torch.fx, placeholders, get_attr, call_function and leaf call_module
// nodes are created through create_proxy; the output node only through
// create_node. Every node goes through create_node.
#ifndef FX_TRACER_TRACER_H_
#define FX_TRACER_TRACER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/argument.h"
#include "core/export.h"
#include "core/graph.h"
#include "runtime/graph_module.h"
#include "tracer/module_ref.h"
#include "tracer/proxy.h"

// (torch::jit::Module, which trace() takes, is declared by module_ref.h: this
// header includes no TorchScript header.)
namespace fx {

class Tracer;
namespace exported {
struct LoadedProgram;
}  // namespace exported

// Traces through a module's forward with the given argument values and returns
// its result (torch.fx's `forward` argument of call_module).
using ModuleForward = std::function<absl::StatusOr<Argument>(const Arguments&, const Kwargs&)>;

// The rest of a hook chain. Calling it is torch.fx's `super().<hook>(...)`.
using IsLeafModuleNext = absl::FunctionRef<bool(const ModuleRef&)>;
using CallModuleNext = absl::FunctionRef<absl::StatusOr<Argument>(
    const ModuleRef&, const ModuleForward&, const Arguments&, const Kwargs&)>;
using CreateNodeNext =
    absl::FunctionRef<Node*(Op, absl::string_view, Arguments, Kwargs, absl::string_view)>;
using CreateProxyNext = CreateNodeNext;

// One participant in a trace. Override any hook; call `next` to continue the
// chain (eventually the default behaviour). Extensions are not shared between
// concurrent traces.
class FX_API TracerExtension {
 public:
  virtual ~TracerExtension() = default;

  // Before the first node is created.
  virtual void begin_trace(Tracer& tracer, const ModuleRef& root) {}
  // After the output node, with the finished GraphModule (write graph meta here).
  virtual absl::Status end_trace(Tracer& tracer, GraphModule& result) { return absl::OkStatus(); }

  // Whether `m` is called as a whole (a call_module node) or traced through.
  virtual bool is_leaf_module(Tracer& tracer, const ModuleRef& m, IsLeafModuleNext next) {
    return next(m);
  }
  // Each call of a submodule's forward.
  virtual absl::StatusOr<Argument> call_module(Tracer& tracer, const ModuleRef& m,
                                               const ModuleForward& forward, const Arguments& args,
                                               const Kwargs& kwargs, CallModuleNext next) {
    return next(m, forward, args, kwargs);
  }
  // Each recorded operation (all nodes but the output). Returns its node.
  virtual Node* create_proxy(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                             Kwargs kwargs, absl::string_view name, CreateProxyNext next) {
    return next(op, target, std::move(args), std::move(kwargs), name);
  }
  // Each node, the output included.
  virtual Node* create_node(Tracer& tracer, Op op, absl::string_view target, Arguments args,
                            Kwargs kwargs, absl::string_view name, CreateNodeNext next) {
    return next(op, target, std::move(args), std::move(kwargs), name);
  }
};

enum class AssertionMode {
  kKeep,  // a branch that only raises becomes a torch._assert node
  kDrop,  // ... or is left out
};

struct FX_API TraceOptions {
  // Trace the module in training mode (default: eval mode, as for deployment).
  // The module is switched to that mode.
  bool training = false;
  AssertionMode assertions = AssertionMode::kKeep;
  // Record in-place operators out of place where nothing can observe the
  // difference (see the file comment).
  bool functionalize_inplace = true;
  // The method to trace.
  std::string method = "forward";
  // TorchScript functions to record as call_function nodes instead of tracing
  // through, by Python qualified name (`torchvision.models.swin_transformer.
  // shifted_window_attention`, `clip` for a function of the script itself):
  // torch.fx's `torch.fx.wrap`. The runtime runs them through their body.
  std::vector<std::string> leaf_functions;
  // Functions of torch's Python API that torch.fx records as one call
  // (`torch.nn.functional.interpolate`, `torch.functional.tensordot`: public
  // functions of torch.nn.functional and torch.functional) are leaf functions
  // by default, as in torch.fx. These are traced through instead, by
  // qualified name or by module (`torch.nn.functional.relu`,
  // `torch.nn.functional`).
  std::vector<std::string> trace_through_functions;
  // forward's arguments fixed to a value while tracing (torch.fx's
  // concrete_args): branches on them are decided, and the graph checks at run
  // time that the argument has that value (a torch._assert, or torch.fx's
  // _assert_is_none for None). Values: None, bool, int, float, str.
  std::vector<std::pair<std::string, Argument>> concrete_args;
};

// The options that decide what traced bodies look like, recorded in a traced
// module's graph meta (kTraceOptionsKey) by Tracer::trace, and read back by
// passes that trace bodies again (inline) so that they trace them the same
// way. A module without them gets the defaults.
FX_API void record_trace_options(const TraceOptions& options, GraphModule& gm);
FX_API TraceOptions recorded_trace_options(const GraphModule& gm);

class FX_API Tracer : public TracerBase {
 public:
  Tracer();
  explicit Tracer(TraceOptions options);
  ~Tracer() override;
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // Adds an extension. The first added is the outermost: its hooks run first
  // and its `next` reaches the second.
  Tracer& add_extension(std::shared_ptr<TracerExtension> extension);
  const std::vector<std::shared_ptr<TracerExtension>>& extensions() const { return extensions_; }
  const TraceOptions& options() const { return options_; }
  TraceOptions& mutable_options() { return options_; }

  // Traces `root.<options.method>` into a new GraphModule whose root holds
  // `root`'s state (module_from_torchscript: a module tree of its own sharing
  // `root`'s tensors, each module's code its TorchScript class), with the
  // model's compilation unit recorded (set_script_unit) for the leaf
  // functions the graph calls. The state is taken at the trace: tensors
  // `root` changes in place later reach the GraphModule, attributes assigned
  // to `root` later (setattr, train()) do not; change them on the
  // GraphModule's modules (Module::set_value) or trace again.
  absl::StatusOr<GraphModule> trace(const torch::jit::Module& root);

  // Reads a torch.export program (exported_program/archive.h) into a new
  // GraphModule, presented as `ep.module()` presents it to torch.fx users:
  //   * forward's user inputs are placeholders (named as forward's arguments);
  //     parameters, buffers and constants are `get_attr` nodes of attributes
  //     of the root module under their qualified names (the root is a module
  //     tree of the program's own classes: `torchvision.models.resnet.ResNet`
  //     with `layer1.0.conv1` a `torch.nn.modules.conv.Conv2d`), made where
  //     first used;
  //   * each program node is a call_function of its operator
  //     (`aten::conv2d`, `aten::add.Tensor`, `operator.mul` on sizes), named
  //     as exported, its metadata (stack_trace, ...) kept in meta; a
  //     multi-result node is followed by one getitem per named result;
  //   * buffer and input mutations of the output signature become `copy_`
  //     nodes before the output, as ep.module() applies them; the output is
  //     arranged as the program's out_spec says (tuples, lists, dicts);
  //   * graph meta `exported_program` says where it came from, and
  //     `input_constraints` the input shapes and symbolic ranges the runtime
  //     checks at each run (runtime/input_constraints.h).
  // The hooks see what a trace shows: create_proxy/create_node for every
  // node, and call_module for every module call recorded in the nodes'
  // `nn_module_stack`, entered and left as the stack changes, its `forward`
  // reading that call's nodes. A flat program has no calls left to make whole:
  // is_leaf_module is not asked, and `next` of call_module always reads the
  // body (reading_program() says which kind of trace is running).
  // Errors name the node and the reason (an operator this libtorch lacks,
  // with the torch version that wrote the program; a higher-order operator;
  // a training program).
  absl::StatusOr<GraphModule> trace(const exported::LoadedProgram& program);
  // True while trace() reads a torch.export program.
  bool reading_program() const { return reading_program_; }

  // Traces the forward of `module_path` (a submodule of `gm`'s root, "" for the
  // root itself) into `gm`'s graph at its insertion point, with `args` and
  // `kwargs` as its inputs, and returns the value it computes. This is how a
  // call_module node is inlined (seed 000's GraphAppendingTracer recipe).
  // The module must have TorchScript code (read from a .pt); its body runs
  // on its slots as they are now. Extensions take part; begin_trace/end_trace
  // are not called.
  absl::StatusOr<Argument> trace_into(GraphModule& gm, absl::string_view module_path,
                                      const Arguments& args, const Kwargs& kwargs = {});

  // ---- The hooks, as the trace calls them (through every extension) -------
  bool is_leaf_module(const ModuleRef& m);
  absl::StatusOr<Argument> call_module(const ModuleRef& m, const ModuleForward& forward,
                                       const Arguments& args, const Kwargs& kwargs);
  Node* create_proxy(Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                     absl::string_view name = {}) override;
  Node* create_node(Op op, absl::string_view target, Arguments args, Kwargs kwargs,
                    absl::string_view name = {});
  // The qualified name of `m` in the root (torch.fx's path_of_module).
  std::string path_of_module(const ModuleRef& m) const { return m.qualname(); }

  // The defaults the chains end in (torch.fx's base Tracer behaviour).
  static bool default_is_leaf_module(const ModuleRef& m);

  // Reports something the user should know that does not stop the trace:
  // an option that matched nothing (a leaf function the model never calls),
  // with the closest names. Extensions call it too (in end_trace).
  void warn(std::string message) { warnings_.push_back(std::move(message)); }
  // The warnings of the traces so far.
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The graph being built; valid during trace() and trace_into().
  Graph& graph();
  // The module being traced into; valid during trace() and trace_into().
  GraphModule& graph_module();

 private:
  bool is_leaf_from(size_t i, const ModuleRef& m);
  absl::StatusOr<Argument> call_module_from(size_t i, const ModuleRef& m,
                                            const ModuleForward& forward, const Arguments& args,
                                            const Kwargs& kwargs);
  Node* create_proxy_from(size_t i, Op op, absl::string_view target, Arguments args,
                          Kwargs kwargs, absl::string_view name);
  Node* create_node_from(size_t i, Op op, absl::string_view target, Arguments args,
                         Kwargs kwargs, absl::string_view name);

  TraceOptions options_;
  std::vector<std::shared_ptr<TracerExtension>> extensions_;
  GraphModule* current_ = nullptr;
  bool reading_program_ = false;
  std::vector<std::string> warnings_;
};

}  // namespace fx

#endif  // FX_TRACER_TRACER_H_
