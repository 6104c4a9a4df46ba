#include <fstream>
#include <iostream>
#include <sstream>
#include "exported_program/archive.h"
#include "exported_program/writer.h"
#include "tracer/tracer.h"
int main(int argc, char** argv) {
  std::ifstream in(argv[1], std::ios::binary); std::stringstream ss; ss << in.rdbuf();
  auto p = fx::exported::load_program(ss.str(), argv[1]);
  if (!p.ok()) { std::cerr << p.status() << "\n"; return 1; }
  fx::Tracer t; auto gm = t.trace(*p);
  if (!gm.ok()) { std::cerr << gm.status() << "\n"; return 1; }
  fx::exported::WriteOptions o; o.layout = std::string(argv[3]) == "legacy" ? fx::exported::WriteLayout::kLegacy : fx::exported::WriteLayout::kPt2Archive;
  o.example_inputs = p->example_inputs; o.archive_name = argv[4];
  auto b = fx::exported::write_program(*gm, o);
  if (!b.ok()) { std::cerr << b.status() << "\n"; return 1; }
  std::ofstream(argv[2], std::ios::binary) << *b; return 0;
}
