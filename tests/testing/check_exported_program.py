"""Loads .pt2 files FX for C++ wrote with torch.export.load and checks what they compute.

Usage: check_exported_program.py PROGRAM.pt2 EXPECTED.pt [PROGRAM.pt2 EXPECTED.pt ...]

EXPECTED.pt is torch.save of {"inputs": tuple, "outputs": tuple of the flat
pytree leaves the program must return}, as tests/exported_programs writes it.
For each pair: torch.export.load reads the program, `ep.module()(*inputs)`
runs it, and its flattened outputs must be allclose to the expected ones.
Prints "ok NAME" or "FAIL NAME: why" per program; exits 1 when any failed.
"""
import sys
import traceback
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import torch.utils._pytree as pytree  # noqa: E402


def check(program, expected_path):
    expected = torch.load(expected_path)
    ep = torch.export.load(program)
    # Each input as the model took it: a tensor, a dict of tensors, a bool.
    inputs = pytree.tree_map(lambda v: v.clone() if isinstance(v, torch.Tensor) else v,
                             tuple(expected["inputs"]))
    with torch.no_grad():
        out = ep.module()(*inputs)
    leaves = pytree.tree_leaves(out)
    want = list(expected["outputs"])
    if len(leaves) != len(want):
        return "%d outputs, expected %d" % (len(leaves), len(want))
    for i, (a, b) in enumerate(zip(leaves, want)):
        if not torch.allclose(a, b, rtol=1e-4, atol=1e-5):
            return "output %d differs by %s" % (i, (a - b).abs().max().item())
    return None


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    failed = 0
    for program, expected in zip(args[::2], args[1::2]):
        try:
            why = check(program, expected)
        except Exception as e:  # noqa: BLE001 - any failure is the program's
            why = traceback.format_exception_only(type(e), e)[-1].strip()[:400]
        if why:
            failed += 1
            print("FAIL %s: %s" % (program, why))
        else:
            print("ok %s" % program)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
