// Copyright 2026 The FX for C++ Authors.
//
// embed_model: load a model, run built-in passes, call it, save it (the
// program fx/fx.h and the README show, with a device to run on).
#include <iostream>

#include "fx/fx.h"

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: " << argv[0] << " MODEL.pt2|MODEL.pt OUT.pt2|OUT.pt [cpu|cuda|cuda:N]\n";
    return 2;
  }
  // Refused here, saying why, on a machine or a libtorch without that device.
  absl::StatusOr<c10::Device> device = fx::parse_device(argc == 4 ? argv[3] : "cpu");
  if (!device.ok()) return fx::report(device.status());
  // A TorchScript .pt or a torch.export .pt2, told apart by content.
  absl::StatusOr<fx::Model> model = fx::Model::load(argv[1]);
  if (!model.ok()) return fx::report(model.status());
  // The built-in passes run in-process; fx::load_plugin(path) adds others.
  if (absl::Status s = model->run_passes("fold_bn,const_fold,dce"); !s.ok()) return fx::report(s);
  // A .pt2 keeps the inputs it was exported with; a .pt needs yours.
  absl::StatusOr<std::vector<c10::IValue>> inputs = model->example_inputs();
  if (!inputs.ok()) return fx::report(inputs.status());
  // The model's state goes to the device with its plan; the inputs go there too.
  fx::PlanOptions run_options;
  run_options.device = *device;
  if (absl::Status s = model->set_run_options(run_options); !s.ok()) return fx::report(s);
  absl::StatusOr<c10::IValue> outputs = model->run(fx::to_device(*inputs, *device));
  if (!outputs.ok()) return fx::report(outputs.status());
  std::cout << fx::describe_outputs(*outputs);
  if (absl::Status s = model->save(argv[2]); !s.ok()) return fx::report(s);  // format by extension
  return 0;
}
