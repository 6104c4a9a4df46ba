#include <iostream>
#include <torch/csrc/jit/mobile/type_parser.h>
#include <ATen/core/ivalue.h>
#include <ATen/core/Dict.h>
int main() {
  auto t = c10::parseType("Dict[str, Tensor]");
  std::cout << t->repr_str() << " kind=" << c10::typeKindToString(t->kind()) << "\n";
  c10::impl::GenericDict d(c10::AnyType::get(), c10::AnyType::get());
  d.insert(c10::IValue("a"), c10::IValue(int64_t(1)));
  std::cout << c10::IValue(d).type()->repr_str() << " isGenericDict=" << c10::IValue(d).isGenericDict() << "\n";
}
