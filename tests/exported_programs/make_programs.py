"""Writes the small torch.export programs committed under tests/exported_programs.

Usage: make_programs.py OUT_DIR [NAME...]    (run with a torch >= 2.1 Python)

The host platform (Debian 12, libtorch 1.13) has no torch.export, so the reader
is tested there on programs made once with Debian 13's torch 2.6 (the legacy
zip layout) and Debian unstable's torch 2.14 (the PT2 archive):

    tools/platform.sh trixie /usr/bin/python3 tests/exported_programs/make_programs.py tests/exported_programs/torch2.6
    tools/platform.sh sid /usr/bin/python3 tests/exported_programs/make_programs.py tests/exported_programs/torch2.14

For each model NAME it writes NAME.pt2 (torch.export.save of the exported
program) and NAME.expected.pt (torch.save of {"inputs": tuple (the positional
arguments, then the keyword arguments' values: the program's placeholders in
order), "outputs": the eager model's outputs on them as the flat tuple of
pytree leaves, in order, so that C++ reads them without the model's classes,
"torch": the version}), and VERSION with torch.__version__. Given NAMEs, only
those (to add a program without rewriting the others). Weights are random (seeded), inputs seeded. Kept small: the
whole directory is well under 1 MiB.
"""
import copy
import os
import sys
from typing import NamedTuple

import torch
import torch.utils._pytree
from torch import nn
from torch.utils._pytree import _register_namedtuple


class LinearBN(nn.Module):
    """A buffer updated in place, batch norm in eval mode, a multi-result op."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)
        self.register_buffer("count", torch.zeros(()))

    def forward(self, x):
        self.count.add_(1)
        y = self.bn(self.lin(x))
        a, b = y.split(2, dim=1)
        return torch.relu(a) * 2, b + self.count


class Out(NamedTuple):
    logits: torch.Tensor
    flat: torch.Tensor


_register_namedtuple(Out, serialized_type_name="fx_tests.Out")


class DynamicBatch(nn.Module):
    """A dynamic batch size, size arithmetic, a named tuple and a dict."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, x, scale: float = 2.0):
        y = self.lin(x)
        n = x.shape[0]
        return Out(y * scale, y.reshape(n * 3)), {"total": x.sum()}


class ConvNet(nn.Module):
    """A small ResNet-like stem with a tied pair of linear layers."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.block = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Linear(8, 8)
        self.fc2 = nn.Linear(8, 8)
        self.fc2.weight = self.fc1.weight  # shared storage must stay shared

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = y + self.block(y)
        y = torch.flatten(self.pool(y), 1)
        return self.fc2(torch.relu(self.fc1(y)))


class SpecialFloats(nn.Module):
    """Infinite and NaN literals, which torch.export writes as strings."""

    def forward(self, x):
        masked = x.masked_fill(x > 0.5, float("-inf"))
        big = torch.where(x > 0.9, float("inf"), 0.0)
        nan = x.masked_fill(x < 0.1, float("nan")).nan_to_num(nan=3.0)
        return torch.nan_to_num(masked, neginf=-1e4), nan, big


class StructuredInputs(nn.Module):
    """Inputs that are not all tensors: a dict (one entry unused), a bool the
    program is specialised for, and a keyword argument."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, feats, flag: bool, *, offset):
        y = self.lin(feats["a"]) + feats["b"]
        if flag:
            y = y * 2
        return y + offset


class RotaryBlock(nn.Module):
    """Attention as GPT-2 and Llama write it: a causal mask and rotary tables
    as non-persistent buffers (torch 2.8+ saves them with the constants), a
    cast to float32 and back (an _assert_tensor_metadata with a device before
    each), and a submodule whose name is no identifier (torchvision's RegNet
    names its blocks `block1-0`)."""

    def __init__(self):
        super().__init__()
        self.add_module("block1-0", nn.Linear(4, 12))
        self.register_buffer("causal", torch.tril(torch.ones(3, 3, dtype=torch.bool)), persistent=False)
        angles = torch.arange(3.0)[:, None] * torch.tensor([1.0, 0.1])
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)
        self.register_buffer("steps", torch.zeros(()))

    def forward(self, x):
        self.steps.add_(1)
        q, k, v = getattr(self, "block1-0")(x).split(4, dim=-1)
        q1, q2 = q[..., :2], q[..., 2:]
        q = torch.cat([q1 * self.cos - q2 * self.sin, q1 * self.sin + q2 * self.cos], dim=-1)
        scores = (q @ k.transpose(-1, -2)).to(torch.float64)
        scores = scores.masked_fill(~self.causal, float("-inf"))
        weights = torch.softmax(scores, dim=-1).to(torch.float32)
        return weights @ v + self.steps


def programs():
    g = torch.Generator().manual_seed(1)
    batch = torch.export.Dim("batch", min=2, max=64)
    return {
        "linear_bn": (LinearBN(), (torch.randn(2, 4, generator=g),), None),
        "dynamic_batch": (DynamicBatch(), (torch.randn(5, 4, generator=g),), {"x": {0: batch}}),
        "conv_net": (ConvNet(), (torch.randn(1, 3, 8, 8, generator=g),), None),
        "special_floats": (SpecialFloats(), (torch.rand(3, 4, generator=g),), None),
        "rotary_block": (RotaryBlock(), (torch.randn(2, 3, 4, generator=g),), None),
        "structured_inputs": (
            StructuredInputs(),
            ({"a": torch.randn(2, 4, generator=g), "b": torch.randn(2, 3, generator=g),
              "unused": torch.randn(2, generator=g)}, True),
            None,
            {"offset": torch.randn(3, generator=g)}),
    }


def _clone(v):
    return torch.utils._pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, v)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out, names = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    for name, (model, inputs, dynamic, *kwargs) in programs().items():
        if names and name not in names:
            continue
        kwargs = kwargs[0] if kwargs else {}
        torch.manual_seed(0)
        model = type(model)().eval()
        # The eager run on a copy, so that the exported module's buffers are
        # those it had before any run.
        with torch.no_grad():
            expected = copy.deepcopy(model)(*_clone(inputs), **_clone(kwargs))
        ep = torch.export.export(model, inputs, kwargs=kwargs or None, dynamic_shapes=dynamic)
        torch.export.save(ep, os.path.join(out, name + ".pt2"))
        leaves = torch.utils._pytree.tree_leaves(expected)
        # The program's arguments in the order of its placeholders: the
        # positional ones, then the keyword arguments' values.
        torch.save({"inputs": inputs + tuple(kwargs.values()), "outputs": tuple(leaves),
                    "torch": str(torch.__version__)},
                   os.path.join(out, name + ".expected.pt"))
    with open(os.path.join(out, "VERSION"), "w") as f:
        f.write(torch.__version__ + "\n")


if __name__ == "__main__":
    main()
