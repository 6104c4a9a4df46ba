// Copyright 2026 The FX for C++ Authors.
#include "fx/archive_check.h"

#include <ATen/EmptyTensor.h>
#include <caffe2/serialize/in_memory_adapter.h>
#include <caffe2/serialize/inline_container.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/message_text.h"

namespace fx {
namespace {

// The deepest run of unclosed '[' in `text` (type names nest that way).
int bracket_depth(absl::string_view text) {
  int depth = 0;
  int deepest = 0;
  for (char c : text) {
    if (c == '[') deepest = std::max(deepest, ++depth);
    if (c == ']' && depth > 0) --depth;
  }
  return deepest;
}

// Follows a pickle's opcodes over nesting depths only. Each value on the
// stack is an object with a depth (0 for atoms, 1 for an empty container);
// building a value from others makes it one deeper than the deepest of them.
class PickleScanner {
 public:
  explicit PickleScanner(absl::string_view data) : data_(data) {}

  absl::Status scan() {
    while (pos_ < data_.size()) {
      const unsigned char op = static_cast<unsigned char>(data_[pos_++]);
      absl::Status s = step(op);
      if (!s.ok() || stopped_) return s;
    }
    return absl::OkStatus();
  }

 private:
  struct Object {
    int depth = 0;
    bool mutable_container = false;  // a list, dict, set or object
    bool referenced = false;         // fetched from the memo (or DUP'ed) since it was made
  };

  // Opcodes this scanner cannot follow end the scan; libtorch refuses them.
  absl::Status give_up() {
    stopped_ = true;
    return absl::OkStatus();
  }

  absl::Status step(unsigned char op) {
    switch (op) {
      case '(':  // MARK
        marks_.push_back(stack_.size());
        return absl::OkStatus();
      case '.':  // STOP
        stopped_ = true;
        return absl::OkStatus();
      case '0':  // POP
        if (stack_.empty()) return give_up();
        pop();
        return absl::OkStatus();
      case '1':  // POP_MARK
        if (marks_.empty()) return give_up();
        pop_to_mark();
        return absl::OkStatus();
      case '2':  // DUP
        if (stack_.empty()) return give_up();
        push_reference(stack_.back());
        return absl::OkStatus();
      case 'F': case 'I': case 'L':  // FLOAT, INT, LONG: a line
        return line_then_atom();
      case 'S': case 'V': {  // STRING, UNICODE: a line
        absl::string_view text;
        if (!read_line(&text)) return give_up();
        return string(text);
      }
      case 'P':  // PERSID
        return line_then_atom();
      case 'J': return skip_then_atom(4);  // BININT
      case 'K': return skip_then_atom(1);  // BININT1
      case 'M': return skip_then_atom(2);  // BININT2
      case 'G': return skip_then_atom(8);  // BINFLOAT
      case 0x82: return skip_then_atom(1);  // EXT1
      case 0x83: return skip_then_atom(2);  // EXT2
      case 0x84: return skip_then_atom(4);  // EXT4
      case 'N': case 0x88: case 0x89: case 0x97:  // NONE, NEWTRUE, NEWFALSE, NEXT_BUFFER
        push_new(0, false);
        return absl::OkStatus();
      case 0x98:  // READONLY_BUFFER
        return absl::OkStatus();
      case 'T': return sized_string(4, true);     // BINSTRING
      case 'U': return sized_string(1, true);     // SHORT_BINSTRING
      case 'X': return sized_string(4, true);     // BINUNICODE
      case 0x8c: return sized_string(1, true);    // SHORT_BINUNICODE
      case 0x8d: return sized_string(8, true);    // BINUNICODE8
      case 'B': return sized_string(4, false);    // BINBYTES
      case 'C': return sized_string(1, false);    // SHORT_BINBYTES
      case 0x8e: return sized_string(8, false);   // BINBYTES8
      case 0x96: return sized_string(8, false);   // BYTEARRAY8
      case 0x8a: return sized_string(1, false);   // LONG1
      case 0x8b: return sized_string(4, false);   // LONG4
      case 0x80: return skip(1);                  // PROTO
      case 0x95: return skip(8);                  // FRAME
      case 'c': {  // GLOBAL: module and name lines
        absl::string_view module, name;
        if (!read_line(&module) || !read_line(&name)) return give_up();
        push_new(0, false);
        return absl::OkStatus();
      }
      case 0x93:  // STACK_GLOBAL
        return combine(2, false);
      case 'Q':  // BINPERSID
        return combine(1, false);
      case 'R': case 'b': case 0x81:  // REDUCE, BUILD, NEWOBJ
        return combine(2, true);
      case 0x92:  // NEWOBJ_EX
        return combine(3, true);
      case 0x85: return combine(1, false);  // TUPLE1
      case 0x86: return combine(2, false);  // TUPLE2
      case 0x87: return combine(3, false);  // TUPLE3
      case ')':  // EMPTY_TUPLE
        push_new(1, false);
        return absl::OkStatus();
      case ']': case '}': case 0x8f:  // EMPTY_LIST, EMPTY_DICT, EMPTY_SET
        push_new(1, true);
        return absl::OkStatus();
      case 't': case 0x91:  // TUPLE, FROZENSET
        return combine_to_mark(false);
      case 'l': case 'd':  // LIST, DICT
        return combine_to_mark(true);
      case 'o':  // OBJ
        return combine_to_mark(true);
      case 'i': {  // INST: module and name lines, then the arguments to the mark
        absl::string_view module, name;
        if (!read_line(&module) || !read_line(&name)) return give_up();
        return combine_to_mark(true);
      }
      case 'a':  // APPEND
        return add_to_top(1);
      case 's':  // SETITEM
        return add_to_top(2);
      case 'e': case 'u': case 0x90:  // APPENDS, SETITEMS, ADDITEMS
        return add_to_mark();
      case 'p': {  // PUT: a decimal line
        absl::string_view line;
        uint64_t key = 0;
        if (!read_line(&line) || !absl::SimpleAtoi(line, &key)) return give_up();
        return put(key);
      }
      case 'q': return put_fixed(1);   // BINPUT
      case 'r': return put_fixed(4);   // LONG_BINPUT
      case 0x94: return put(memo_.size());  // MEMOIZE
      case 'g': {  // GET: a decimal line
        absl::string_view line;
        uint64_t key = 0;
        if (!read_line(&line) || !absl::SimpleAtoi(line, &key)) return give_up();
        return get(key);
      }
      case 'h': return get_fixed(1);  // BINGET
      case 'j': return get_fixed(4);  // LONG_BINGET
      default:
        return give_up();
    }
  }

  // ---- Reading ------------------------------------------------------------
  bool read(size_t n, absl::string_view* out) {
    if (data_.size() - pos_ < n) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool read_uint(size_t n, uint64_t* value) {
    absl::string_view bytes;
    if (!read(n, &bytes)) return false;
    *value = 0;
    for (size_t i = n; i-- > 0;) *value = (*value << 8) | static_cast<unsigned char>(bytes[i]);
    return true;
  }
  bool read_line(absl::string_view* out) {
    const size_t end = data_.find('\n', pos_);
    if (end == absl::string_view::npos) return false;
    *out = data_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return true;
  }
  absl::Status skip(size_t n) {
    absl::string_view ignored;
    return read(n, &ignored) ? absl::OkStatus() : give_up();
  }
  absl::Status skip_then_atom(size_t n) {
    if (absl::Status s = skip(n); !s.ok() || stopped_) return s;
    push_new(0, false);
    return absl::OkStatus();
  }
  absl::Status line_then_atom() {
    absl::string_view line;
    if (!read_line(&line)) return give_up();
    push_new(0, false);
    return absl::OkStatus();
  }
  absl::Status sized_string(size_t length_bytes, bool text) {
    uint64_t length = 0;
    absl::string_view bytes;
    if (!read_uint(length_bytes, &length) || length > data_.size() - pos_ ||
        !read(static_cast<size_t>(length), &bytes)) {
      return give_up();
    }
    if (!text) {
      push_new(0, false);
      return absl::OkStatus();
    }
    return string(bytes);
  }
  // A string may be a type name libtorch parses recursively.
  absl::Status string(absl::string_view text) {
    if (bracket_depth(text) > kMaxSavedNesting) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a string nests '[' deeper than ", kMaxSavedNesting,
          " levels (a type name such as List[List[...]]); no saved model needs that"));
    }
    push_new(0, false);
    return absl::OkStatus();
  }

  // ---- The stack of depths ------------------------------------------------
  void push_new(int depth, bool mutable_container) {
    objects_.push_back(Object{depth, mutable_container, false});
    stack_.push_back(static_cast<uint32_t>(objects_.size() - 1));
  }
  void push_reference(uint32_t object) {
    objects_[object].referenced = true;
    stack_.push_back(object);
  }
  uint32_t pop() {
    const uint32_t object = stack_.back();
    stack_.pop_back();
    return object;
  }
  // Pops down to the last mark; the deepest popped depth (-1 when none).
  int pop_to_mark() {
    const size_t mark = std::min(marks_.back(), stack_.size());
    marks_.pop_back();
    int deepest = -1;
    while (stack_.size() > mark) deepest = std::max(deepest, objects_[pop()].depth);
    return deepest;
  }
  absl::Status too_deep() const {
    return absl::InvalidArgumentError(absl::StrCat(
        "it nests values deeper than ", kMaxSavedNesting, " levels; no saved model needs that"));
  }
  // Pops `n` values and pushes one made of them.
  absl::Status combine(size_t n, bool mutable_container) {
    if (stack_.size() < n) return give_up();
    int deepest = 0;
    for (size_t i = 0; i < n; ++i) deepest = std::max(deepest, objects_[pop()].depth);
    if (deepest + 1 > kMaxSavedNesting) return too_deep();
    push_new(deepest + 1, mutable_container);
    return absl::OkStatus();
  }
  absl::Status combine_to_mark(bool mutable_container) {
    if (marks_.empty()) return give_up();
    const int deepest = pop_to_mark();
    if (deepest + 1 > kMaxSavedNesting) return too_deep();
    push_new(std::max(deepest + 1, 1), mutable_container);
    return absl::OkStatus();
  }
  // Adds values to the container on top of the stack (APPEND, SETITEM).
  absl::Status add_to_top(size_t n) {
    if (stack_.size() < n + 1) return give_up();
    int deepest = 0;
    for (size_t i = 0; i < n; ++i) deepest = std::max(deepest, objects_[pop()].depth);
    return grow_top(deepest);
  }
  absl::Status add_to_mark() {
    if (marks_.empty() || marks_.back() == 0 || marks_.back() > stack_.size()) return give_up();
    return grow_top(pop_to_mark());
  }
  absl::Status grow_top(int item_depth) {
    if (stack_.empty()) return give_up();
    Object& target = objects_[stack_.back()];
    // Pickles fill a container right after making it, before anything refers
    // to it: filling one that was referred to can make it contain itself.
    if (target.referenced && target.mutable_container) {
      return absl::InvalidArgumentError(
          "it fills a list or dict after referring to it (through the memo), which makes values "
          "that contain themselves; no saved model does that");
    }
    target.depth = std::max(target.depth, item_depth + 1);
    if (target.depth > kMaxSavedNesting) return too_deep();
    return absl::OkStatus();
  }

  // ---- The memo -----------------------------------------------------------
  absl::Status put(uint64_t key) {
    if (stack_.empty()) return give_up();
    memo_[key] = stack_.back();
    return absl::OkStatus();
  }
  absl::Status put_fixed(size_t n) {
    uint64_t key = 0;
    if (!read_uint(n, &key)) return give_up();
    return put(key);
  }
  absl::Status get(uint64_t key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) return give_up();
    push_reference(it->second);
    return absl::OkStatus();
  }
  absl::Status get_fixed(size_t n) {
    uint64_t key = 0;
    if (!read_uint(n, &key)) return give_up();
    return get(key);
  }

  absl::string_view data_;
  size_t pos_ = 0;
  bool stopped_ = false;
  std::vector<Object> objects_;
  std::vector<uint32_t> stack_;  // objects
  std::vector<size_t> marks_;
  absl::flat_hash_map<uint64_t, uint32_t> memo_;
};

bool is_identifier_start(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool is_identifier_char(char c) { return absl::ascii_isalnum(c) || c == '_'; }

// Python's keywords that combine expressions (their chains nest the tree).
bool is_operator_word(absl::string_view word) {
  for (absl::string_view w : {"not", "and", "or", "if", "else", "is", "in", "lambda", "await"}) {
    if (word == w) return true;
  }
  return false;
}

// The nesting of TorchScript source: brackets, chains of operators within a
// bracket (each operator nests the expression tree one deeper) and indented
// blocks, all of which libtorch's parser and compiler follow recursively.
class SourceScanner {
 public:
  explicit SourceScanner(absl::string_view code) : code_(code) {}

  absl::Status scan() {
    while (pos_ < code_.size()) {
      if (line_start_ && open_.size() == 1) {
        if (absl::Status s = indentation(); !s.ok()) return s;
        continue;
      }
      const char c = code_[pos_];
      if (c == '#') {
        while (pos_ < code_.size() && code_[pos_] != '\n') ++pos_;
      } else if (c == '\'' || c == '"') {
        string_literal();
      } else if (c == '\n') {
        ++pos_;
        ++line_;
        if (open_.size() == 1) {
          separator();
          line_start_ = true;
        }
      } else if (c == '\\' && pos_ + 1 < code_.size() && code_[pos_ + 1] == '\n') {
        pos_ += 2;
        ++line_;
      } else if (c == '(' || c == '[' || c == '{') {
        ++pos_;
        if (absl::Status s = op(); !s.ok()) return s;
        open_.push_back(0);
      } else if (c == ')' || c == ']' || c == '}') {
        ++pos_;
        if (open_.size() > 1) {
          separator();
          open_.pop_back();
        }
      } else if (c == ',' || c == ';' || c == ':') {
        ++pos_;
        separator();
      } else if (c == '=' && !(pos_ + 1 < code_.size() && code_[pos_ + 1] == '=')) {
        ++pos_;  // an assignment or a keyword argument, not ==
        separator();
      } else if (absl::StrContains("+-*/%@&|^~<>!=.", c)) {
        // One operator; `<=`, `==`, `!=`, `>=` as one.
        ++pos_;
        if (pos_ < code_.size() && code_[pos_] == '=' && absl::StrContains("<>!=", c)) ++pos_;
        if (absl::Status s = op(); !s.ok()) return s;
      } else if (is_identifier_start(c)) {
        const size_t start = pos_;
        while (pos_ < code_.size() && is_identifier_char(code_[pos_])) ++pos_;
        if (is_operator_word(code_.substr(start, pos_ - start))) {
          if (absl::Status s = op(); !s.ok()) return s;
        }
      } else {
        ++pos_;
      }
    }
    return absl::OkStatus();
  }

 private:
  // At the start of a logical line: the indentation opens or closes blocks.
  absl::Status indentation() {
    line_start_ = false;
    size_t width = 0;
    while (pos_ < code_.size() && (code_[pos_] == ' ' || code_[pos_] == '\t')) {
      width += code_[pos_] == '\t' ? 8 - width % 8 : 1;
      ++pos_;
    }
    if (pos_ >= code_.size() || code_[pos_] == '\n' || code_[pos_] == '\r' || code_[pos_] == '#') {
      return absl::OkStatus();  // a blank or comment line
    }
    while (width < blocks_.back()) blocks_.pop_back();
    if (width > blocks_.back()) blocks_.push_back(width);
    return check();
  }
  void string_literal() {
    const char quote = code_[pos_];
    const bool triple = code_.substr(pos_, 3) == std::string(3, quote);
    pos_ += triple ? 3 : 1;
    while (pos_ < code_.size()) {
      const char c = code_[pos_];
      if (c == '\\') {
        if (pos_ + 1 < code_.size() && code_[pos_ + 1] == '\n') ++line_;
        pos_ += 2;
        continue;
      }
      if (c == '\n') {
        ++line_;
        if (!triple) return;  // unterminated: the parser says so
      }
      if (c == quote && (!triple || code_.substr(pos_, 3) == std::string(3, quote))) {
        pos_ += triple ? 3 : 1;
        return;
      }
      ++pos_;
    }
  }
  void separator() {
    chain_ -= open_.back();
    open_.back() = 0;
  }
  absl::Status op() {
    ++open_.back();
    ++chain_;
    return check();
  }
  absl::Status check() const {
    const size_t depth = chain_ + (open_.size() - 1) + (blocks_.size() - 1);
    if (depth <= static_cast<size_t>(kMaxSavedNesting)) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "line ", line_, " nests brackets, operators and blocks deeper than ", kMaxSavedNesting,
        " levels; no model's code needs that"));
  }

  absl::string_view code_;
  size_t pos_ = 0;
  int line_ = 1;
  bool line_start_ = true;
  std::vector<size_t> open_ = {0};    // per open bracket: operators chained in it so far
  size_t chain_ = 0;                  // the sum of open_
  std::vector<size_t> blocks_ = {0};  // indentation widths of the open blocks
};

absl::Status check_archive(caffe2::serialize::PyTorchStreamReader& reader) {
  for (const std::string& name : reader.getAllRecords()) {
    const bool pickle = absl::EndsWith(name, "pkl");
    const bool code = absl::StartsWith(name, "code/") && absl::EndsWith(name, ".py");
    if (!pickle && !code) continue;
    auto [data, size] = reader.getRecord(name);
    const absl::string_view bytes(static_cast<const char*>(data.get()), size);
    absl::Status s = pickle ? check_pickle(bytes) : check_torchscript_source(bytes);
    if (!s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("its ", escape_for_message(name), ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status check_pickle(absl::string_view pickle) { return PickleScanner(pickle).scan(); }

absl::Status check_torchscript_source(absl::string_view code) { return SourceScanner(code).scan(); }

absl::Status check_archive_bytes(absl::string_view bytes) {
  std::unique_ptr<caffe2::serialize::PyTorchStreamReader> reader;
  try {
    reader = std::make_unique<caffe2::serialize::PyTorchStreamReader>(
        std::make_shared<caffe2::serialize::MemoryReadAdapter>(bytes.data(),
                                                              static_cast<off_t>(bytes.size())));
  } catch (const std::exception&) {
    return absl::OkStatus();
  }
  try {
    return check_archive(*reader);
  } catch (const std::exception&) {
    return absl::OkStatus();
  }
}

absl::Status check_tensors_in_bounds(const c10::IValue& root) {
  std::vector<c10::IValue> work = {root};
  absl::flat_hash_set<const void*> seen;  // shared values are checked once
  while (!work.empty()) {
    c10::IValue value = std::move(work.back());
    work.pop_back();
    if (value.isPtrType() && !seen.insert(value.internalToPointer()).second) continue;
    if (value.isTensor()) {
      const at::Tensor& t = value.toTensor();
      if (!t.defined() || t.is_sparse() || !t.has_storage()) continue;
      size_t needed = 0;
      try {
        needed = at::detail::computeStorageNbytes(t.sizes(), t.strides(), t.itemsize(),
                                                  static_cast<size_t>(t.storage_offset()));
      } catch (const std::exception&) {
        return absl::InvalidArgumentError("a tensor's sizes overflow");
      }
      if (t.storage_offset() < 0 || needed > t.storage().nbytes()) {
        return absl::InvalidArgumentError(absl::StrCat("a tensor reaches past its storage (",
                                                       needed, " bytes of ",
                                                       t.storage().nbytes(), ")"));
      }
    } else if (value.isTuple()) {
      for (const c10::IValue& v : value.toTupleRef().elements()) work.push_back(v);
    } else if (value.isList()) {
      for (const c10::IValue& v : value.toListRef()) work.push_back(v);
    } else if (value.isGenericDict()) {
      for (const auto& entry : value.toGenericDict()) {
        work.push_back(entry.key());
        work.push_back(entry.value());
      }
    } else if (value.isObject()) {
      for (const c10::IValue& v : value.toObjectRef().slots()) work.push_back(v);
    }
  }
  return absl::OkStatus();
}

}  // namespace fx
