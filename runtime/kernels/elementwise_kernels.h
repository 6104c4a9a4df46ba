// Copyright 2026 The FX for C++ Authors.
//
// elementwise_kernels.h: one operator that runs a chain of elementwise
// operations in a single pass over memory, for the fuse_elementwise pass.
// aten runs each operation of a chain as its own kernel, with its own
// dispatch, its own result allocated and written and read back: a chain of
// 1,000 additions on one-element tensors costs 1,000 dispatches, where the
// arithmetic is 1,000 instructions. Here the chain is a small program that
// an interpreter runs block by block over plain loops the compiler
// vectorises (one clone per AVX-512, AVX2 and baseline, chosen when libfx is
// loaded), keeping each block's intermediates in cache-sized buffers, and
// allocating only the result:
//
//   fx::elementwise(str program, Tensor[] inputs) -> Tensor
//   fx::elementwise.out(str program, Tensor[] inputs, *, Tensor(a!) out) -> Tensor(a!)
//
//   program:  t0=add(i0,1.0);t1=mul(t0,i1);t2=relu(t1)
//
// Instructions are separated by ';'; instruction K is `tK=OP(A)` or
// `tK=OP(A,B)`, numbered 0, 1, 2... in order; an operand is an input (`iJ`,
// inputs[J]), an earlier result (`tK`) or, as B only, a number written as
// Python writes it (`2`, `0.5`, `True`, `inf`). The result is the last
// instruction's. The operations are aten's, on the same operands:
//   add, sub   aten::add / aten::sub, alpha 1
//   mul, div   aten::mul / aten::div (true division)
//   neg, relu  aten::neg / aten::relu
//
// Contracts:
//   * The result equals, bit for bit, what aten's operators give applied one
//     after another, for any inputs: the fast loop runs only where it
//     computes the same thing (every tensor a CPU float or double tensor of
//     one dtype, strided, with no conjugate or negative bit; those that are
//     not 0-dim all of the same sizes and strides, non-overlapping and dense;
//     the operations are IEEE-exact, so vector width and order do not
//     matter); anything else (broadcasting, other dtypes or devices, another
//     layout) runs aten's operators one by one.
//   * Autograd: where an input requires grad and grad mode is on, the
//     operator runs aten's operators, which record the graph; the out=
//     overload then fails, as aten's do.
//   * A malformed program is an error naming the instruction and what is
//     wrong. Programs are parsed once and kept (any number of threads may
//     run them).
//   * Registered when libfx is loaded. Graphs that call it run only where
//     libfx is: TorchScript and torch.export files cannot hold them
//     (GraphModule::check_storable).
#ifndef FX_RUNTIME_KERNELS_ELEMENTWISE_KERNELS_H_
#define FX_RUNTIME_KERNELS_ELEMENTWISE_KERNELS_H_

#include <optional>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/export.h"

namespace fx {

// The operator's name, and its namespace (operators of FX for C++'s runtime).
inline constexpr char kElementwise[] = "fx::elementwise";

enum class ElementwiseOp { kAdd, kSub, kMul, kDiv, kNeg, kRelu };

// The name a program uses ("add"), and the operation of a name.
FX_API const char* elementwise_op_name(ElementwiseOp op);
FX_API std::optional<ElementwiseOp> elementwise_op_named(absl::string_view name);
// Whether `op` takes two operands.
FX_API bool is_binary(ElementwiseOp op);

struct FX_API ElementwiseOperand {
  enum class Kind { kInput, kResult, kNumber };
  Kind kind = Kind::kInput;
  int index = 0;       // inputs[index] or the result of instruction `index`
  c10::Scalar number;  // kNumber: a double, an int or a bool
};

struct FX_API ElementwiseInstruction {
  ElementwiseOp op = ElementwiseOp::kAdd;
  ElementwiseOperand a, b;  // b: binary operations only
};

struct FX_API ElementwiseProgram {
  std::vector<ElementwiseInstruction> instructions;
  int inputs = 0;  // the highest input index + 1

  // Parses the text form above; the error names the instruction.
  static absl::StatusOr<ElementwiseProgram> parse(absl::string_view text);
  // The text form; parse(to_string()) gives the program back, numbers exact.
  std::string to_string() const;
  // What parse() checks, for a program built in code: each operand an input
  // below `inputs` or an earlier instruction's result, a number only as the
  // second operand. The error names the instruction.
  absl::Status validate() const;
};

// What a valid program's result depends on, found backwards from it: only
// those instructions are computed and those inputs read.
struct FX_API ElementwiseDependencies {
  std::vector<bool> needed;  // per instruction
  std::vector<bool> read;    // per input
  // The first such instruction (from the end) that subtracts a bool, which
  // aten refuses; -1 when none.
  int subtracts_bool = -1;
};
FX_API ElementwiseDependencies elementwise_dependencies(const ElementwiseProgram& program);

// Runs `program` on `inputs` (see the file comment): what fx::elementwise
// computes.
FX_API at::Tensor run_elementwise(const ElementwiseProgram& program,
                                  const std::vector<at::Tensor>& inputs);

// The same programs run through kernels generated for them (codegen/, the
// `compile` pass), where a generator is installed (libfx installs
// codegen's):
//
//   fx::compiled_elementwise(str program, Tensor[] inputs) -> Tensor
//   fx::compiled_elementwise.out(str program, Tensor[] inputs, *, Tensor(a!) out) -> Tensor(a!)
//
// It computes what fx::elementwise computes, bit for bit, and takes the same
// fast path: where the inputs fit it, the kernel made for the program, their
// dtype and which of them are 0-dim runs in place of the interpreter's loop
// (made at the first such call and kept with the parsed program, or found
// in the maker's cache); elsewhere, and where no kernel can be made, it runs
// what fx::elementwise runs.
inline constexpr char kCompiledElementwise[] = "fx::compiled_elementwise";

// A generated kernel: inputs[j] is input j's data (null for an input the
// program does not read), out the result's, n its number of elements, every
// non-scalar input and the result dense in one order (elementwise_source.h).
using ElementwiseKernelFn = void (*)(const void* const* inputs, void* out, int64_t n);
// Makes or finds the kernel of `program` for `dtype` (float or double) and
// for which inputs are 0-dim; null when it cannot (then it says why, once).
// Thread-safe.
using ElementwiseKernelMaker = ElementwiseKernelFn (*)(const ElementwiseProgram& program,
                                                       c10::ScalarType dtype,
                                                       const std::vector<bool>& scalar_inputs);
// Installs the maker fx::compiled_elementwise asks (null: none, the
// interpreter runs). Kernels already made are kept.
FX_API void set_elementwise_kernel_maker(ElementwiseKernelMaker maker);

}  // namespace fx

#endif  // FX_RUNTIME_KERNELS_ELEMENTWISE_KERNELS_H_
