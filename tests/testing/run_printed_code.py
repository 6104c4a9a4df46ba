"""Runs the Python code FX for C++ prints for a graph, with PyTorch, against
the module's state, and compares what it computes with the model's outputs.

Usage: run_printed_code.py CASES_DIR [PYTHON_SOURCE.py ...]

Each directory under CASES_DIR is one case (written by
tests/printed_code_test.cc):
  code.py        GraphModule.code: `def forward(self, ...)`
  root.pt        the GraphModule's root module (TorchScript), whose
                 submodules, parameters and buffers `self.<path>` reaches
  constants.pt   torch.save'd dict of the GraphModule's own attributes
                 (tensor constants the tracer lifted: `self._tensor_constant0`)
  inputs.pt      torch.save'd tuple of forward's inputs
  expected.pt    torch.save'd (outputs, inputs after the run) of the
                 TorchScript model on those inputs
  named_tuples.txt  the NamedTuples among the outputs, one a line: the
                 indices that reach it (space-separated), a tab, its class
                 and field names (pickling loses them from expected.pt)
The code runs with what torch.fx's generated code has in its globals: torch,
typing, operator, math, torchvision, and the functions and classes of the
given Python sources (where user functions made leaves and NamedTuples are
defined, as torch.fx's code refers to them by name).

Prints `ok NAME` or `FAIL NAME: why` per case; exits 1 when any case fails.
"""
import importlib.util
import math
import operator
import os
import sys
import traceback
import typing
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import torchvision  # noqa: E402,F401


class Overloaded:
    """A scripted module whose forward TorchScript compiled per overload
    (nn.LSTM's forward__0, forward__1): Python calls reach the one that
    accepts the arguments, as calling the eager module would."""

    def __init__(self, module):
        self._module = module

    def __call__(self, *args, **kwargs):
        errors = []
        for name in sorted(n for n in self._module._c._method_names() if n.startswith("forward__")):
            try:
                return self._module._c._get_method(name)(*args, **kwargs)
            except RuntimeError as e:  # the schema does not accept these arguments
                errors.append(str(e).splitlines()[0])
        raise RuntimeError("no forward overload accepts the arguments: %s" % errors)

    def __getattr__(self, name):
        return getattr(self.__dict__["_module"], name)


def wrap(value):
    if isinstance(value, torch.jit.RecursiveScriptModule) and not hasattr(value, "forward"):
        return Overloaded(value)
    if isinstance(value, torch.jit.RecursiveScriptModule):
        return Module(value)
    return value


class Module:
    """A submodule, whose own submodules are reached through wrap()."""

    def __init__(self, module):
        self._module = module

    def __call__(self, *args, **kwargs):
        return self._module(*args, **kwargs)

    def __getattr__(self, name):
        return wrap(getattr(self.__dict__["_module"], name))


class Self:
    """`self` for the printed forward: the GraphModule's own attributes, then
    the root module's."""

    def __init__(self, root, constants):
        self._root = root
        self._constants = constants

    def __getattr__(self, name):
        constants = self.__dict__["_constants"]
        if name in constants:
            return constants[name]
        return wrap(getattr(self.__dict__["_root"], name))


def equal(a, b, path="output"):
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return "%s: %s vs %s" % (path, type(a).__name__, type(b).__name__)
        if a.shape != b.shape:
            return "%s: shape %s vs %s" % (path, tuple(a.shape), tuple(b.shape))
        if not torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-5):
            return "%s: values differ (max %g)" % (path, (a.double() - b.double()).abs().max())
        return None
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        if len(a) != len(b):
            return "%s: %d vs %d elements" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            why = equal(x, y, "%s[%d]" % (path, i))
            if why:
                return why
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a.keys()) != list(b.keys()):
            return "%s: keys %s vs %s" % (path, list(a.keys()), list(b.keys()))
        for k in a:
            why = equal(a[k], b[k], "%s[%r]" % (path, k))
            if why:
                return why
        return None
    return None if a == b else "%s: %r vs %r" % (path, a, b)


def named_tuples_differ(outputs, listing):
    """Why the NamedTuples `listing` names are not in `outputs` as such, or None."""
    for line in listing.splitlines():
        path, _, spec = line.partition("\t")
        cls, *fields = spec.split()
        value, where = outputs, "output"
        for i in path.split():
            value, where = value[int(i)], "%s[%s]" % (where, i)
        name = cls.rsplit(".", 1)[-1]
        if type(value).__name__ != name or tuple(getattr(value, "_fields", ())) != tuple(fields):
            return "%s: a %s%s, not the NamedTuple %s%s" % (
                where, type(value).__name__, tuple(getattr(value, "_fields", ())), name,
                tuple(fields))
    return None


def load_sources(paths):
    names = {}
    for path in paths:
        spec = importlib.util.spec_from_file_location(
            "fx_source_%d" % len(names), os.path.abspath(path))
        module = importlib.util.module_from_spec(spec)
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        spec.loader.exec_module(module)
        for name, value in vars(module).items():
            if callable(value) and not name.startswith("__"):
                names.setdefault(name, value)
    return names


def load_pickle(path):
    """A pickle the C++ test wrote (torch::jit::pickle_save). torch 2.6 and later
    load only tensors and plain containers by default (weights_only=True), which
    refuses these; they are this test's own files."""
    return torch.load(path, weights_only=False)


def run_case(case, user_functions):
    with open(os.path.join(case, "code.py")) as f:
        code = f.read()
    root = torch.jit.load(os.path.join(case, "root.pt"))
    constants = load_pickle(os.path.join(case, "constants.pt"))
    inputs = list(load_pickle(os.path.join(case, "inputs.pt")))
    expected_outputs, expected_inputs = load_pickle(os.path.join(case, "expected.pt"))
    scope = dict(user_functions)
    scope.update({"torch": torch, "typing": typing, "operator": operator, "math": math,
                  "torchvision": torchvision})
    exec(compile(code, os.path.join(case, "code.py"), "exec"), scope)
    # With autograd on, as the C++ side ran the model (torch 1.13's scripted
    # MultiheadAttention takes a native fast path under no_grad).
    outputs = scope["forward"](Self(root, constants), *inputs)
    listing_path = os.path.join(case, "named_tuples.txt")
    listing = open(listing_path).read() if os.path.exists(listing_path) else ""
    return (equal(outputs, expected_outputs) or named_tuples_differ(outputs, listing)
            or equal(inputs, list(expected_inputs), "inputs"))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cases_dir = sys.argv[1]
    user_functions = load_sources(sys.argv[2:])
    failed = 0
    for name in sorted(os.listdir(cases_dir)):
        try:
            why = run_case(os.path.join(cases_dir, name), user_functions)
        except Exception as e:  # the code does not run: report it
            lines = traceback.format_exception_only(type(e), e)
            why = " ".join(" ".join(lines).split())[:400]
        if why:
            failed += 1
            print("FAIL %s: %s" % (name, why))
        else:
            print("ok %s" % name)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
