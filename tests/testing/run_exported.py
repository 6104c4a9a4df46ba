"""Loads the TorchScript modules FX for C++ exported (fxrun --save,
fx::save_torchscript) with Python's torch.jit.load, runs them, and compares
what they compute with what the original models computed.

Usage: run_exported.py CASES_DIR

Each directory under CASES_DIR is one case (written by tests/export_test.cc):
  exported.pt   the exported module
  inputs.pt     torch.save'd tuple of forward's inputs
  expected.pt   torch.save'd (outputs, inputs after the run) of the original
                TorchScript model on those inputs

Prints `ok NAME` or `FAIL NAME: why` per case; exits 1 when any case fails.
"""
import os
import sys
import traceback
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import torchvision  # noqa: E402,F401  (registers torchvision's operators)

from run_printed_code import equal, load_pickle  # noqa: E402  (its comparison and loading)


def run_case(directory):
    module = torch.jit.load(os.path.join(directory, "exported.pt"))
    module.eval()
    inputs = list(load_pickle(os.path.join(directory, "inputs.pt")))
    outputs, inputs_after = load_pickle(os.path.join(directory, "expected.pt"))
    with torch.no_grad():
        got = module(*inputs)
    return equal(got, outputs, "output") or equal(tuple(inputs), tuple(inputs_after), "inputs")


def main():
    cases = sys.argv[1]
    failed = False
    for name in sorted(os.listdir(cases)):
        try:
            why = run_case(os.path.join(cases, name))
        except Exception:  # noqa: BLE001  (any failure is the case's)
            why = traceback.format_exc().strip().splitlines()[-1]
        if why:
            failed = True
            print("FAIL %s: %s" % (name, why))
        else:
            print("ok %s" % name)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
