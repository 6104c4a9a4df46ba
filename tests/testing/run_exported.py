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


def close(a, b, where):
    """None when a and b match (tensors allclose), else where they differ."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return "%s: %s vs %s" % (where, type(a).__name__, type(b).__name__)
        if a.shape != b.shape or a.dtype != b.dtype:
            return "%s: %s %s vs %s %s" % (where, tuple(a.shape), a.dtype, tuple(b.shape), b.dtype)
        if a.is_floating_point() or a.is_complex():
            ok = torch.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            ok = torch.equal(a, b)
        return None if ok else "%s: values differ" % where
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return "%s: %d vs %d elements" % (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            why = close(x, y, "%s[%d]" % (where, i))
            if why:
                return why
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a.keys()) != list(b.keys()):
            return "%s: keys %s vs %s" % (where, list(a.keys()), list(b.keys()))
        for k in a:
            why = close(a[k], b[k], "%s[%r]" % (where, k))
            if why:
                return why
        return None
    return None if a == b else "%s: %r vs %r" % (where, a, b)


def run_case(directory):
    module = torch.jit.load(os.path.join(directory, "exported.pt"))
    module.eval()
    inputs = list(torch.load(os.path.join(directory, "inputs.pt")))
    outputs, inputs_after = torch.load(os.path.join(directory, "expected.pt"))
    with torch.no_grad():
        got = module(*inputs)
    return close(got, outputs, "output") or close(tuple(inputs), tuple(inputs_after), "inputs")


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
