"""Models for normalize_args's tests, scripted with Debian's torch (run at build time).

Usage: normalize_args_models.py OUT_DIR

`functional_calls` calls torch.nn.functional's functions, which the tracer
records as leaf functions: some are the ATen operator of their name with the
same parameters (normalised), some are not (left as written).
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn


class FunctionalCalls(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(8, 3, 3, 3))
        self.table = nn.Parameter(torch.randn(10, 6))
        self.norm_weight = nn.Parameter(torch.randn(6))

    def forward(self, x, ids):
        # The operator of their name, with its parameters:
        y = F.conv2d(x, self.weight, padding="same")           # aten::conv2d.padding
        y = F.max_pool2d(y, 2)                                 # aten::max_pool2d
        y = F.gelu(y, approximate="tanh")                      # aten::gelu
        y = F.softmax(y, dim=1)                                # aten::softmax.int (_stacklevel default)
        e = F.layer_norm(F.embedding(ids, self.table), [6], self.norm_weight)
        # Not the operator of their name:
        y = F.relu(y, inplace=True)                            # inplace: relu_, not relu
        z = F.adaptive_max_pool2d(y, 2)                        # one result; aten's has two
        z = F.dropout(z, 0.5, training=False)                  # aten::dropout's `train`
        return z.sum() + e.sum()                               # F.embedding: (weight, indices)


MODELS = {"functional_calls": FunctionalCalls}


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    for name, cls in MODELS.items():
        torch.jit.script(cls().eval()).save(os.path.join(out_dir, name + ".pt"))


if __name__ == "__main__":
    main(sys.argv[1])
