#include <fstream>
#include <iostream>
#include <sstream>
#include <torch/csrc/jit/serialization/pickle.h>
#include <ATen/ATen.h>
#include "exported_program/archive.h"
#include "tracer/tracer.h"
#include "runtime/interpreter.h"
static std::vector<c10::IValue> flat(const c10::IValue& v) {
  std::vector<c10::IValue> out;
  if (v.isTuple()) { for (auto& e : v.toTupleRef().elements()) for (auto& x : flat(e)) out.push_back(x); }
  else if (v.isList()) { for (auto e : v.toListRef()) for (auto& x : flat(e)) out.push_back(x); }
  else if (v.isGenericDict()) { for (auto& kv : v.toGenericDict()) for (auto& x : flat(kv.value())) out.push_back(x); }
  else out.push_back(v);
  return out;
}
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string base = argv[i];
    std::ifstream in(base + ".pt2", std::ios::binary); std::stringstream ss; ss << in.rdbuf();
    auto p = fx::exported::load_program(ss.str(), base);
    if (!p.ok()) { std::cout << "LOADFAIL " << base << ": " << p.status().message() << "\n"; continue; }
    fx::Tracer t; auto gm = t.trace(*p);
    if (!gm.ok()) { std::cout << "TRACEFAIL " << base << ": " << gm.status().message() << "\n"; continue; }
    std::ifstream ein(base + ".expected.pt", std::ios::binary); std::stringstream es; es << ein.rdbuf();
    std::string eb = es.str();
    c10::IValue e = torch::jit::pickle_load(std::vector<char>(eb.begin(), eb.end()));
    std::vector<c10::IValue> inputs; std::vector<c10::IValue> want;
    for (auto& kv : e.toGenericDict()) {
      if (kv.key().toStringRef() == "inputs") for (auto& v : kv.value().toTupleRef().elements()) inputs.push_back(v);
      if (kv.key().toStringRef() == "outputs") for (auto& v : kv.value().toTupleRef().elements()) want.push_back(v);
    }
    auto out = (*gm)(inputs);
    if (!out.ok()) { std::cout << "RUNFAIL " << base << ": " << out.status().message() << "\n"; continue; }
    auto got = flat(*out);
    bool same = got.size() == want.size();
    double worst = 0;
    for (size_t k = 0; same && k < got.size(); ++k) {
      if (got[k].isTensor() && want[k].isTensor()) {
        auto a = got[k].toTensor(), b = want[k].toTensor();
        if (a.sizes() != b.sizes()) { same = false; break; }
        if (a.numel()) worst = std::max(worst, (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>());
      }
    }
    std::cout << (same && worst < 1e-3 ? "OK " : "DIFF ") << base << " nodes=" << gm->graph().size() << " maxdiff=" << worst << " n=" << got.size() << "/" << want.size() << "\n";
  }
}
