// Copyright 2026 The FX for C++ Authors.
#include "runtime/kernels/elementwise_kernels.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <ATen/MemoryOverlap.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/add.h>
#include <ATen/ops/div.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/sub.h>
#include <torch/library.h>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/numbers.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace fx {

const char* elementwise_op_name(ElementwiseOp op) {
  switch (op) {
    case ElementwiseOp::kAdd: return "add";
    case ElementwiseOp::kSub: return "sub";
    case ElementwiseOp::kMul: return "mul";
    case ElementwiseOp::kDiv: return "div";
    case ElementwiseOp::kNeg: return "neg";
    case ElementwiseOp::kRelu: return "relu";
  }
  return "?";
}

std::optional<ElementwiseOp> elementwise_op_named(absl::string_view name) {
  for (ElementwiseOp op : {ElementwiseOp::kAdd, ElementwiseOp::kSub, ElementwiseOp::kMul,
                           ElementwiseOp::kDiv, ElementwiseOp::kNeg, ElementwiseOp::kRelu}) {
    if (name == elementwise_op_name(op)) return op;
  }
  return std::nullopt;
}

bool is_binary(ElementwiseOp op) { return op != ElementwiseOp::kNeg && op != ElementwiseOp::kRelu; }

namespace {

std::string number_text(const c10::Scalar& s) {
  if (s.isBoolean()) return s.toBool() ? "True" : "False";
  if (s.isIntegral(/*includeBool=*/false)) return absl::StrCat(s.toLong());
  const double d = s.toDouble();
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string text = absl::StrFormat("%.17g", d);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::optional<c10::Scalar> parse_number(absl::string_view text) {
  if (text == "True") return c10::Scalar(true);
  if (text == "False") return c10::Scalar(false);
  if (text == "inf") return c10::Scalar(std::numeric_limits<double>::infinity());
  if (text == "-inf") return c10::Scalar(-std::numeric_limits<double>::infinity());
  if (text == "nan") return c10::Scalar(std::numeric_limits<double>::quiet_NaN());
  if (text.find_first_of(".eE") != absl::string_view::npos) {
    double d = 0;
    if (!absl::SimpleAtod(text, &d)) return std::nullopt;
    return c10::Scalar(d);
  }
  int64_t i = 0;
  if (!absl::SimpleAtoi(text, &i)) return std::nullopt;
  return c10::Scalar(i);
}

std::string operand_text(const ElementwiseOperand& o) {
  switch (o.kind) {
    case ElementwiseOperand::Kind::kInput: return absl::StrCat("i", o.index);
    case ElementwiseOperand::Kind::kResult: return absl::StrCat("t", o.index);
    case ElementwiseOperand::Kind::kNumber: return number_text(o.number);
  }
  return "?";
}

}  // namespace

absl::StatusOr<ElementwiseProgram> ElementwiseProgram::parse(absl::string_view text) {
  constexpr int kMaxIndex = 1 << 24;
  ElementwiseProgram program;
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ';');
  for (size_t k = 0; k < parts.size(); ++k) {
    const absl::string_view source = absl::StripAsciiWhitespace(parts[k]);
    const auto bad = [&](absl::string_view why) {
      // Escaped: a NUL or a control character in the text would cut the
      // message where a C string ends, or garble a terminal.
      return absl::InvalidArgumentError(absl::StrCat("fx::elementwise: instruction ", k, " '",
                                                     absl::CHexEscape(source), "': ", why));
    };
    absl::string_view rest = source;
    const std::string result = absl::StrCat("t", k, "=");
    if (!absl::ConsumePrefix(&rest, result)) return bad(absl::StrCat("expected '", result, "OP(...)'"));
    const size_t open = rest.find('(');
    if (open == absl::string_view::npos || !absl::ConsumeSuffix(&rest, ")")) {
      return bad("expected OP(A) or OP(A,B)");
    }
    const auto op = elementwise_op_named(rest.substr(0, open));
    if (!op) return bad("unknown operation (add, sub, mul, div, neg, relu)");
    const std::vector<absl::string_view> operands = absl::StrSplit(rest.substr(open + 1), ',');
    if (operands.size() != (is_binary(*op) ? 2u : 1u)) {
      return bad(absl::StrCat(elementwise_op_name(*op), " takes ", is_binary(*op) ? 2 : 1,
                              " operand(s)"));
    }
    ElementwiseInstruction instruction;
    instruction.op = *op;
    for (size_t j = 0; j < operands.size(); ++j) {
      const absl::string_view o = absl::StripAsciiWhitespace(operands[j]);
      ElementwiseOperand& operand = j == 0 ? instruction.a : instruction.b;
      int index = 0;
      if (o.size() > 1 && (o[0] == 'i' || o[0] == 't') && absl::SimpleAtoi(o.substr(1), &index) &&
          index >= 0) {
        if (index >= kMaxIndex) {
          return bad(absl::StrCat("'", absl::CHexEscape(o), "': at most ", kMaxIndex, " of each"));
        }
        if (o[0] == 't' && index >= static_cast<int>(k)) {
          return bad(absl::StrCat("'", absl::CHexEscape(o), "' is not an earlier result"));
        }
        operand.kind = o[0] == 'i' ? ElementwiseOperand::Kind::kInput
                                   : ElementwiseOperand::Kind::kResult;
        operand.index = index;
        if (o[0] == 'i') program.inputs = std::max(program.inputs, index + 1);
        continue;
      }
      auto number = parse_number(o);
      if (!number || j == 0) {
        return bad(absl::StrCat("operand '", absl::CHexEscape(o), "' is not ", j == 0 ? "" : "a number, ",
                                "an input (iJ) or an earlier result (tK)"));
      }
      operand.kind = ElementwiseOperand::Kind::kNumber;
      operand.number = *number;
    }
    program.instructions.push_back(std::move(instruction));
  }
  return program;
}

std::string ElementwiseProgram::to_string() const {
  std::string text;
  for (size_t k = 0; k < instructions.size(); ++k) {
    const ElementwiseInstruction& ins = instructions[k];
    absl::StrAppend(&text, k == 0 ? "" : ";", "t", k, "=", elementwise_op_name(ins.op), "(",
                    operand_text(ins.a));
    if (is_binary(ins.op)) absl::StrAppend(&text, ",", operand_text(ins.b));
    absl::StrAppend(&text, ")");
  }
  return text;
}

absl::Status ElementwiseProgram::validate() const {
  for (size_t k = 0; k < instructions.size(); ++k) {
    const ElementwiseInstruction& ins = instructions[k];
    for (const ElementwiseOperand* o : {&ins.a, &ins.b}) {
      if (o == &ins.b && !is_binary(ins.op)) continue;
      const bool bad = (o->kind == ElementwiseOperand::Kind::kResult &&
                        (o->index < 0 || static_cast<size_t>(o->index) >= k)) ||
                       (o->kind == ElementwiseOperand::Kind::kInput &&
                        (o->index < 0 || o->index >= inputs)) ||
                       (o->kind == ElementwiseOperand::Kind::kNumber && o == &ins.a);
      if (bad) {
        return absl::InvalidArgumentError(absl::StrCat(
            "instruction ", k, " reads ",
            o->kind == ElementwiseOperand::Kind::kNumber ? "a number as its first operand"
            : o->kind == ElementwiseOperand::Kind::kResult
                ? absl::StrCat("result ", o->index, ", not made before it")
                : absl::StrCat("input ", o->index, " of a program of ", inputs)));
      }
    }
  }
  return absl::OkStatus();
}

ElementwiseDependencies elementwise_dependencies(const ElementwiseProgram& program) {
  const size_t n = program.instructions.size();
  ElementwiseDependencies d;
  d.needed.assign(n, false);
  d.read.assign(program.inputs, false);
  if (n > 0) d.needed[n - 1] = true;
  for (size_t k = n; k-- > 0;) {
    if (!d.needed[k]) continue;
    const ElementwiseInstruction& ins = program.instructions[k];
    for (const ElementwiseOperand* o : {&ins.a, &ins.b}) {
      if (o == &ins.b && !is_binary(ins.op)) continue;
      if (o->kind == ElementwiseOperand::Kind::kResult) d.needed[o->index] = true;
      if (o->kind == ElementwiseOperand::Kind::kInput) d.read[o->index] = true;
    }
    if (ins.op == ElementwiseOp::kSub && ins.b.kind == ElementwiseOperand::Kind::kNumber &&
        ins.b.number.isBoolean() && d.subtracts_bool < 0) {
      d.subtracts_bool = static_cast<int>(k);
    }
  }
  return d;
}

namespace {

// aten's operators, one after another: the reference the fast loop must equal.
at::Tensor run_reference(const ElementwiseProgram& program, const std::vector<at::Tensor>& inputs) {
  std::vector<at::Tensor> results;
  results.reserve(program.instructions.size());
  const auto tensor = [&](const ElementwiseOperand& o) -> const at::Tensor& {
    return o.kind == ElementwiseOperand::Kind::kInput ? inputs[o.index] : results[o.index];
  };
  for (const ElementwiseInstruction& ins : program.instructions) {
    const at::Tensor& a = tensor(ins.a);
    const bool number = ins.b.kind == ElementwiseOperand::Kind::kNumber;
    switch (ins.op) {
      case ElementwiseOp::kAdd:
        results.push_back(number ? at::add(a, ins.b.number) : at::add(a, tensor(ins.b)));
        break;
      case ElementwiseOp::kSub:
        results.push_back(number ? at::sub(a, ins.b.number) : at::sub(a, tensor(ins.b)));
        break;
      case ElementwiseOp::kMul:
        results.push_back(number ? at::mul(a, ins.b.number) : at::mul(a, tensor(ins.b)));
        break;
      case ElementwiseOp::kDiv:
        results.push_back(number ? at::div(a, ins.b.number) : at::div(a, tensor(ins.b)));
        break;
      case ElementwiseOp::kNeg: results.push_back(at::neg(a)); break;
      case ElementwiseOp::kRelu: results.push_back(at::relu(a)); break;
    }
  }
  return results.back();
}

// The layout every full (not 0-dim) input shares, when the fast loop may run.
struct FastLayout {
  c10::ScalarType dtype = c10::kFloat;
  std::vector<int64_t> sizes, strides;  // empty: every input is 0-dim
  int64_t numel = 1;
};

// `used`: the inputs the result depends on (the others do not shape it).
std::optional<FastLayout> fast_layout(const std::vector<at::Tensor>& inputs,
                                      const std::vector<bool>& used) {
  FastLayout layout;
  bool first = true, have_full = false;
  for (size_t j = 0; j < inputs.size(); ++j) {
    if (j >= used.size() || !used[j]) continue;
    const at::Tensor& t = inputs[j];
    if (!t.defined() || !t.is_cpu() || t.layout() != c10::kStrided || t.is_conj() || t.is_neg()) {
      return std::nullopt;
    }
    if (first) {
      layout.dtype = t.scalar_type();
      if (layout.dtype != c10::kFloat && layout.dtype != c10::kDouble) return std::nullopt;
      first = false;
    } else if (t.scalar_type() != layout.dtype) {
      return std::nullopt;
    }
    if (t.dim() == 0) continue;
    if (!have_full) {
      if (!t.is_non_overlapping_and_dense()) return std::nullopt;
      layout.sizes = t.sizes().vec();
      layout.strides = t.strides().vec();
      layout.numel = t.numel();
      have_full = true;
    } else if (t.sizes() != at::IntArrayRef(layout.sizes) ||
               t.strides() != at::IntArrayRef(layout.strides)) {
      return std::nullopt;
    }
  }
  if (first) return std::nullopt;
  return layout;
}

// Kernels generated for a program (fx::compiled_elementwise), by
// signature_key; null where none could be made.
struct GeneratedKernels {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, ElementwiseKernelFn> by_signature ABSL_GUARDED_BY(mu);
};

// A program ready to run: each instruction's result register (the last
// writes the output), registers reused once their value is dead.
struct CompiledProgram {
  std::string text;
  ElementwiseProgram program;
  std::vector<int> register_of;
  int registers = 0;
  // The inputs the last result depends on.
  std::vector<bool> used;
  // Whether the fast loop computes it: not where aten refuses an operation
  // (a subtraction of a bool), which the operators one by one then do.
  bool fast = true;
  std::shared_ptr<GeneratedKernels> generated = std::make_shared<GeneratedKernels>();
};

CompiledProgram compile(std::string text, ElementwiseProgram program) {
  CompiledProgram c;
  c.text = std::move(text);
  const size_t n = program.instructions.size();
  std::vector<size_t> last_use(n, 0);
  for (size_t k = 0; k < n; ++k) {
    for (const ElementwiseOperand* o : {&program.instructions[k].a, &program.instructions[k].b}) {
      if (o->kind == ElementwiseOperand::Kind::kResult) last_use[o->index] = k;
    }
  }
  c.register_of.assign(n, -1);
  // Linear in the program's length: a register is freed once (`is_free`
  // answers whether it is, where a search of the free list would make the
  // whole quadratic).
  std::vector<int> free_registers;
  std::vector<char> is_free;
  for (size_t k = 0; k < n; ++k) {
    // Registers of the operands read for the last time are free to write:
    // the loops read an element before writing it.
    for (const ElementwiseOperand* o : {&program.instructions[k].a, &program.instructions[k].b}) {
      if (o->kind != ElementwiseOperand::Kind::kResult || last_use[o->index] != k) continue;
      const int r = c.register_of[o->index];
      if (r >= 0 && !is_free[r]) {
        is_free[r] = 1;
        free_registers.push_back(r);
      }
    }
    if (k + 1 == n) break;  // the last result goes to the output
    if (free_registers.empty()) {
      c.register_of[k] = c.registers++;
      is_free.push_back(0);
    } else {
      c.register_of[k] = free_registers.back();
      is_free[c.register_of[k]] = 0;
      free_registers.pop_back();
    }
  }
  // Backwards from the result: what it depends on. Subtracting a bool goes to
  // aten, which refuses it.
  ElementwiseDependencies dependencies = elementwise_dependencies(program);
  c.used = std::move(dependencies.read);
  if (dependencies.subtracts_bool >= 0) c.fast = false;
  c.program = std::move(program);
  return c;
}

// Parsed programs, kept by text, at most kMaxPrograms of them (a graph has
// a few; a process that makes programs without end, one per request, must
// not keep them all: past the bound the table starts again, the programs in
// use living on in their callers); each thread remembers the last few it ran
// (by the text's address, checked against the text itself).
constexpr size_t kMaxPrograms = 4096;

std::shared_ptr<const CompiledProgram> compiled(c10::string_view text) {
  struct Recent {
    const char* data = nullptr;
    std::shared_ptr<const CompiledProgram> program;
  };
  constexpr size_t kRecent = 8;
  thread_local Recent recent[kRecent];
  thread_local size_t next = 0;
  for (const Recent& r : recent) {
    if (r.program != nullptr && r.data == text.data() && r.program->text.size() == text.size() &&
        std::memcmp(r.program->text.data(), text.data(), text.size()) == 0) {
      return r.program;
    }
  }
  static std::mutex mutex;
  static auto* programs = new absl::flat_hash_map<std::string, std::shared_ptr<const CompiledProgram>>();
  std::shared_ptr<const CompiledProgram> found;
  const std::string key(text.data(), text.size());
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = programs->find(key);
    if (it != programs->end()) found = it->second;
  }
  if (!found) {
    absl::StatusOr<ElementwiseProgram> program = ElementwiseProgram::parse(key);
    TORCH_CHECK(program.ok(), std::string(program.status().message()));
    TORCH_CHECK(!program->instructions.empty(), "fx::elementwise: an empty program");
    found = std::make_shared<const CompiledProgram>(compile(key, *std::move(program)));
    std::lock_guard<std::mutex> lock(mutex);
    if (programs->size() >= kMaxPrograms) programs->clear();
    found = programs->emplace(key, found).first->second;
  }
  recent[next] = Recent{text.data(), found};
  next = (next + 1) % kRecent;
  return found;
}

// One operation over `length` elements: dst[i] = op(a[i], b[i]), where an
// operand with a null pointer is the value given beside it. dst may be a or
// b (each element is read before it is written) but overlaps neither
// otherwise, so the loops carry no dependence (FX_IVDEP).
#if defined(__clang__)
#define FX_IVDEP _Pragma("clang loop vectorize(assume_safety)")
#else
#define FX_IVDEP _Pragma("GCC ivdep")
#endif

template <typename T, typename Op>
[[gnu::always_inline]] inline void loop(const T* a, T a_value, const T* b, T b_value, T* dst,
                                        int64_t length, Op op) {
  if (a != nullptr && b != nullptr) {
    FX_IVDEP for (int64_t i = 0; i < length; ++i) dst[i] = op(a[i], b[i]);
  } else if (a != nullptr) {
    FX_IVDEP for (int64_t i = 0; i < length; ++i) dst[i] = op(a[i], b_value);
  } else if (b != nullptr) {
    FX_IVDEP for (int64_t i = 0; i < length; ++i) dst[i] = op(a_value, b[i]);
  } else {
    const T r = op(a_value, b_value);
    for (int64_t i = 0; i < length; ++i) dst[i] = r;
  }
}

template <typename T>
[[gnu::always_inline]] inline void apply_operation(ElementwiseOp op, const T* a, T a_value,
                                                   const T* b, T b_value, T* dst, int64_t length) {
  // (Each call written out: a helper between would not be inlined into the
  // clones below, and would run the baseline's code.)
  switch (op) {
    case ElementwiseOp::kAdd:
      loop(a, a_value, b, b_value, dst, length, [](T x, T y) { return x + y; });
      break;
    case ElementwiseOp::kSub:
      loop(a, a_value, b, b_value, dst, length, [](T x, T y) { return x - y; });
      break;
    case ElementwiseOp::kMul:
      loop(a, a_value, b, b_value, dst, length, [](T x, T y) { return x * y; });
      break;
    case ElementwiseOp::kDiv:
      loop(a, a_value, b, b_value, dst, length, [](T x, T y) { return x / y; });
      break;
    case ElementwiseOp::kNeg:
      loop(a, a_value, b, b_value, dst, length, [](T x, T) { return -x; });
      break;
    case ElementwiseOp::kRelu:  // NaN and -0.0 stay as they are, as in aten
      loop(a, a_value, b, b_value, dst, length, [](T x, T) { return x < T(0) ? T(0) : x; });
      break;
  }
}

// The loops compiled for AVX-512, AVX2 and the baseline, the CPU's chosen
// when libfx loads (inlined into each: a function they call would be
// compiled for the baseline alone). (Plain loops the compiler vectorises, not
// at::vec::Vectorized: outside ATen's own kernels, which ATen compiles once
// per CPU capability, its headers give the generic element loops.) The
// operations are IEEE-exact, one rounding each, so every width computes the
// same; no multiply and add is contracted, each being its own loop. (The
// cost model -O2 takes vectorises no loop whose length is unknown.)
// Not under a sanitizer: the clones' resolver runs while the dynamic loader
// relocates libfx, before the sanitizer's runtime has started, and its
// instrumentation crashes there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FX_ELEMENTWISE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FX_ELEMENTWISE_SANITIZED 1
#endif
#endif

#if defined(FX_ELEMENTWISE_SANITIZED)
#define FX_ELEMENTWISE_CLONES
#elif defined(__x86_64__) && defined(__clang__)
#define FX_ELEMENTWISE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#elif defined(__x86_64__) && defined(__GNUC__)
#define FX_ELEMENTWISE_CLONES \
  __attribute__((target_clones("avx512f", "avx2", "default"), optimize("vect-cost-model=dynamic")))
#else
#define FX_ELEMENTWISE_CLONES
#endif

FX_ELEMENTWISE_CLONES void apply(ElementwiseOp op, const float* a, float a_value, const float* b,
                                 float b_value, float* dst, int64_t length) {
  apply_operation<float>(op, a, a_value, b, b_value, dst, length);
}

FX_ELEMENTWISE_CLONES void apply(ElementwiseOp op, const double* a, double a_value, const double* b,
                                 double b_value, double* dst, int64_t length) {
  apply_operation<double>(op, a, a_value, b, b_value, dst, length);
}

template <typename T>
T number_as(const c10::Scalar& s) {
  // aten converts a number operand to the tensors' dtype with a plain cast.
  if (s.isBoolean()) return static_cast<T>(s.toBool());
  if (s.isIntegral(false)) return static_cast<T>(s.toLong());
  return static_cast<T>(s.toDouble());
}

template <typename T>
void run_fast(const CompiledProgram& c, const std::vector<at::Tensor>& inputs, int64_t numel,
              T* out) {
  // Elements per pass of the program: 1,024, fewer where the program's
  // registers would take more than kScratchBytes, which bounds the scratch
  // each thread keeps, whatever the program.
  constexpr int64_t kBlock = 1024;
  constexpr size_t kScratchBytes = size_t{16} << 20;
  const int64_t fits = static_cast<int64_t>(
      kScratchBytes / (std::max<size_t>(static_cast<size_t>(c.registers), 1) * sizeof(T)));
  const int64_t block = std::max<int64_t>(1, std::min({numel, kBlock, fits}));
  thread_local std::vector<char> scratch;
  const size_t bytes = static_cast<size_t>(c.registers) * block * sizeof(T) + 64;
  if (scratch.size() < bytes) scratch.resize(bytes);
  T* registers = reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  std::vector<const T*> data(inputs.size());
  std::vector<T> value(inputs.size(), T(0));
  for (size_t j = 0; j < inputs.size(); ++j) {
    if (j >= c.used.size() || !c.used[j]) continue;  // not read by the loop
    data[j] = inputs[j].data_ptr<T>();
    if (inputs[j].dim() == 0) {
      value[j] = *data[j];
      data[j] = nullptr;
    }
  }
  const size_t n = c.program.instructions.size();
  for (int64_t offset = 0; offset < numel; offset += block) {
    const int64_t length = std::min(block, numel - offset);
    const auto operand = [&](const ElementwiseOperand& o, const T*& p, T& v) {
      switch (o.kind) {
        case ElementwiseOperand::Kind::kInput:
          p = data[o.index] ? data[o.index] + offset : nullptr;
          v = value[o.index];
          break;
        case ElementwiseOperand::Kind::kResult:
          p = registers + c.register_of[o.index] * block;
          break;
        case ElementwiseOperand::Kind::kNumber:
          p = nullptr;
          v = number_as<T>(o.number);
          break;
      }
    };
    for (size_t k = 0; k < n; ++k) {
      const ElementwiseInstruction& ins = c.program.instructions[k];
      const T* a = nullptr;
      const T* b = nullptr;
      T a_value(0), b_value(0);
      operand(ins.a, a, a_value);
      if (is_binary(ins.op)) operand(ins.b, b, b_value);
      T* dst = k + 1 == n ? out + offset : registers + c.register_of[k] * block;
      apply(ins.op, a, a_value, b, b_value, dst, length);
    }
  }
}

// The fast loop into `out`, of the layout's sizes, strides and dtype.
std::atomic<ElementwiseKernelMaker> kernel_maker{nullptr};

// The kernel generated for `c` and these inputs (of one layout), made at the
// first call of its signature (the dtype, and per input whether it is 0-dim
// or not read); null where none is.
ElementwiseKernelFn generated_kernel(const CompiledProgram& c,
                                     const std::vector<at::Tensor>& inputs,
                                     const FastLayout& layout) {
  const ElementwiseKernelMaker maker = kernel_maker.load(std::memory_order_acquire);
  if (maker == nullptr) return nullptr;
  // The dtype, then per input: 0-dim, other, or not read.
  std::string key(1, layout.dtype == c10::kFloat ? 'f' : 'd');
  std::vector<bool> scalar_inputs(c.program.inputs, false);
  for (int j = 0; j < c.program.inputs; ++j) {
    scalar_inputs[j] = c.used[j] && inputs[j].dim() == 0;
    key.push_back(!c.used[j] ? '-' : scalar_inputs[j] ? 's' : 't');
  }
  GeneratedKernels& kernels = *c.generated;
  {
    absl::ReaderMutexLock lock(&kernels.mu);
    if (auto it = kernels.by_signature.find(key); it != kernels.by_signature.end()) {
      return it->second;
    }
  }
  // Made outside the lock (it may start a compiler); a second thread making
  // the same kernel finds the maker's own cache.
  const ElementwiseKernelFn kernel = maker(c.program, layout.dtype, scalar_inputs);
  absl::MutexLock lock(&kernels.mu);
  return kernels.by_signature.try_emplace(key, kernel).first->second;
}

void run_fast_into(const CompiledProgram& c, const std::vector<at::Tensor>& inputs,
                   const FastLayout& layout, at::Tensor& out, bool generated) {
  if (generated) {
    if (const ElementwiseKernelFn kernel = generated_kernel(c, inputs, layout)) {
      std::vector<const void*> data(inputs.size(), nullptr);
      for (int j = 0; j < c.program.inputs; ++j) {
        if (c.used[j]) data[j] = inputs[j].data_ptr();
      }
      kernel(data.data(), out.data_ptr(), layout.numel);
      return;
    }
  }
  if (layout.dtype == c10::kFloat) {
    run_fast<float>(c, inputs, layout.numel, out.data_ptr<float>());
  } else {
    run_fast<double>(c, inputs, layout.numel, out.data_ptr<double>());
  }
}

void check_inputs(const CompiledProgram& c, size_t given, bool generated) {
  TORCH_CHECK(static_cast<int>(given) >= c.program.inputs,
              generated ? "fx::compiled_elementwise" : "fx::elementwise", ": the program reads ",
              c.program.inputs, " input(s), ", given, " given");
}

at::Tensor elementwise_impl(c10::string_view text, at::TensorList inputs_list, bool generated) {
  const std::shared_ptr<const CompiledProgram> c = compiled(text);
  const std::vector<at::Tensor> inputs = inputs_list.vec();
  check_inputs(*c, inputs.size(), generated);
  const std::optional<FastLayout> layout =
      c->fast ? fast_layout(inputs, c->used) : std::optional<FastLayout>();
  if (!layout) return run_reference(c->program, inputs);
  at::Tensor out = at::empty_strided(layout->sizes, layout->strides,
                                     at::TensorOptions().dtype(layout->dtype));
  run_fast_into(*c, inputs, *layout, out, generated);
  return out;
}

at::Tensor& elementwise_out_impl(c10::string_view text, at::TensorList inputs_list, at::Tensor& out,
                                 bool generated) {
  const std::shared_ptr<const CompiledProgram> c = compiled(text);
  const std::vector<at::Tensor> inputs = inputs_list.vec();
  check_inputs(*c, inputs.size(), generated);
  const std::optional<FastLayout> layout =
      c->fast ? fast_layout(inputs, c->used) : std::optional<FastLayout>();
  bool fast = layout && out.is_cpu() && out.layout() == c10::kStrided &&
              out.scalar_type() == layout->dtype && !out.is_conj() && !out.is_neg() &&
              out.sizes() == at::IntArrayRef(layout->sizes) &&
              out.strides() == at::IntArrayRef(layout->strides);
  // The loop reads each block of an input before it writes that block of the
  // output: an output that is an input is fine, one overlapping it otherwise
  // is not.
  for (size_t j = 0; fast && j < inputs.size(); ++j) {
    fast = at::get_overlap_status(out, inputs[j]) != at::MemOverlapStatus::Partial;
  }
  if (fast) {
    run_fast_into(*c, inputs, *layout, out, generated);
    return out;
  }
  const at::Tensor result = elementwise_impl(text, inputs_list, generated);
  out.resize_(result.sizes());
  out.copy_(result);
  return out;
}

// Whether an input wants a gradient (grad mode on and it requires grad) or
// carries a forward-mode tangent: aten's operators then, which record both.
bool grad_needed(at::TensorList inputs) {
  return std::any_of(inputs.begin(), inputs.end(), [](const at::Tensor& t) {
    return t.defined() && ((at::GradMode::is_enabled() && t.requires_grad()) ||
                           t._fw_grad(/*level=*/0).defined());
  });
}

// Above autograd: aten's operators where a gradient is wanted (they record
// it), the kernels below otherwise.
at::Tensor elementwise_autograd_impl(c10::string_view text, at::TensorList inputs, bool generated) {
  if (grad_needed(inputs)) {
    const std::shared_ptr<const CompiledProgram> c = compiled(text);
    check_inputs(*c, inputs.size(), generated);
    return run_reference(c->program, inputs.vec());
  }
  at::AutoDispatchBelowADInplaceOrView guard;
  return elementwise_impl(text, inputs, generated);
}

at::Tensor& elementwise_out_autograd_impl(c10::string_view text, at::TensorList inputs,
                                          at::Tensor& out, bool generated) {
  TORCH_CHECK(!grad_needed(inputs) && !(at::GradMode::is_enabled() && out.requires_grad()),
              generated ? "fx::compiled_elementwise.out()" : "fx::elementwise.out()",
              ": functions with out=... arguments don't support automatic differentiation, but "
              "one of the arguments requires grad");
  {
    at::AutoDispatchBelowADInplaceOrView guard;
    elementwise_out_impl(text, inputs, out, generated);
  }
  // A write, as aten's out= overloads record it: autograd then refuses a
  // backward through a value this overwrote.
  out.unsafeGetTensorImpl()->bump_version();
  return out;
}

// The operators' kernels, by whether they run generated kernels.
template <bool kGenerated>
at::Tensor elementwise_op(c10::string_view text, at::TensorList inputs) {
  return elementwise_impl(text, inputs, kGenerated);
}
template <bool kGenerated>
at::Tensor& elementwise_out_op(c10::string_view text, at::TensorList inputs, at::Tensor& out) {
  return elementwise_out_impl(text, inputs, out, kGenerated);
}
template <bool kGenerated>
at::Tensor elementwise_autograd(c10::string_view text, at::TensorList inputs) {
  return elementwise_autograd_impl(text, inputs, kGenerated);
}
template <bool kGenerated>
at::Tensor& elementwise_out_autograd(c10::string_view text, at::TensorList inputs,
                                     at::Tensor& out) {
  return elementwise_out_autograd_impl(text, inputs, out, kGenerated);
}

TORCH_LIBRARY(fx, m) {
  m.def("elementwise(str program, Tensor[] inputs) -> Tensor");
  m.def("elementwise.out(str program, Tensor[] inputs, *, Tensor(a!) out) -> Tensor(a!)");
  m.def("compiled_elementwise(str program, Tensor[] inputs) -> Tensor");
  m.def("compiled_elementwise.out(str program, Tensor[] inputs, *, Tensor(a!) out) -> Tensor(a!)");
}

TORCH_LIBRARY_IMPL(fx, CompositeExplicitAutograd, m) {
  m.impl("elementwise", &elementwise_op<false>);
  m.impl("elementwise.out", &elementwise_out_op<false>);
  m.impl("compiled_elementwise", &elementwise_op<true>);
  m.impl("compiled_elementwise.out", &elementwise_out_op<true>);
}

TORCH_LIBRARY_IMPL(fx, Autograd, m) {
  m.impl("elementwise", &elementwise_autograd<false>);
  m.impl("elementwise.out", &elementwise_out_autograd<false>);
  m.impl("compiled_elementwise", &elementwise_autograd<true>);
  m.impl("compiled_elementwise.out", &elementwise_out_autograd<true>);
}

}  // namespace

at::Tensor run_elementwise(const ElementwiseProgram& program, const std::vector<at::Tensor>& inputs) {
  const std::string text = program.to_string();
  return elementwise_impl(text, inputs, /*generated=*/false);
}

void set_elementwise_kernel_maker(ElementwiseKernelMaker maker) {
  kernel_maker.store(maker, std::memory_order_release);
}

}  // namespace fx
