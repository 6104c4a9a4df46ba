"""Models for fold_bn's tests, scripted with Debian's torch (run at build time).

Usage: fold_bn_models.py OUT_DIR

Each model's batch norms get running statistics and affine parameters far from
their defaults, so that a wrong fold shows in the outputs.
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn


def randomise(model):
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            if m.running_mean is not None:
                m.running_mean.uniform_(-1, 1)
                m.running_var.uniform_(0.5, 2)
            if m.weight is not None:
                m.weight.data.normal_()
                m.bias.data.normal_()
    return model


class ReusedConvSecondPath(nn.Module):
    """pytorch issue 197539: the conv is batch-normed on one path only."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x, y):
        return self.bn(self.conv(x)), self.conv(y)


class ReusedConvAdded(nn.Module):
    """pytorch issue 104593: conv1(x) + bn1(conv1(y))."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 1, 1)
        self.bn1 = nn.BatchNorm2d(1)

    def forward(self, x, y):
        return self.conv1(x) + self.bn1(self.conv1(y))


class ConvResultUsedTwice(nn.Module):
    """The conv's result feeds the batch norm and a residual add."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        y = self.conv(x)
        return self.bn(y) + y


class Functional(nn.Module):
    """pytorch issue 122070: F.conv2d and F.batch_norm, no modules."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(6, 3, 3, 3))
        self.gamma = nn.Parameter(torch.randn(6))
        self.beta = nn.Parameter(torch.randn(6))
        self.register_buffer("mean", torch.randn(6))
        self.register_buffer("var", torch.rand(6) + 0.5)
        self.lw = nn.Parameter(torch.randn(5, 4))
        self.lb = nn.Parameter(torch.randn(5))
        self.register_buffer("lmean", torch.randn(5))
        self.register_buffer("lvar", torch.rand(5) + 0.5)

    def forward(self, x, z):
        y = F.batch_norm(F.conv2d(x, self.w, padding=1), self.mean, self.var, self.gamma,
                         self.beta, False, 0.1, 1e-3)
        v = F.batch_norm(F.linear(z, self.lw, self.lb), self.lmean, self.lvar, eps=0.01)
        return torch.relu(y), v


class Variety(nn.Module):
    """Conv1d/3d, padding='same', no conv bias, a non-affine batch norm,
    Linear + BatchNorm1d, and two batch norms in a row."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(3, 4, 3)
        self.b1 = nn.BatchNorm1d(4)
        self.c2 = nn.Conv2d(3, 5, 3, padding="same", bias=False, groups=1, dilation=2)
        self.b2 = nn.BatchNorm2d(5, affine=False)
        self.b2b = nn.BatchNorm2d(5)
        self.c3 = nn.Conv3d(2, 4, 2, stride=2, groups=2)
        self.b3 = nn.BatchNorm3d(4, eps=1e-2)
        self.lin = nn.Linear(6, 7)
        self.bl = nn.BatchNorm1d(7)

    def forward(self, a, b, c, d):
        return (self.b1(self.c1(a)), self.b2b(self.b2(self.c2(b))), self.b3(self.c3(c)),
                self.bl(self.lin(d)))


class Training(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn(self.conv(x))


class AdaptsStatistics(nn.Module):
    """Test-time adaptation: forward moves the batch norm's running mean
    toward the batch's before using it, and scales its weight in place."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        y = self.conv(x)
        with torch.no_grad():
            self.bn.running_mean.mul_(0.9).add_(0.1 * y.mean((0, 2, 3)))
        return self.bn(y)


class ClipsWeight(nn.Module):
    """Clips the batch norm's weight in place before using it."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        with torch.no_grad():
            self.bn.weight.clamp_(-0.5, 0.5)
        return self.bn(self.conv(x))


def main():
    out_dir = sys.argv[1]
    models = {
        "reused_conv_second_path": ReusedConvSecondPath,
        "reused_conv_added": ReusedConvAdded,
        "conv_result_used_twice": ConvResultUsedTwice,
        "functional_bn": Functional,
        "variety_bn": Variety,
        "adapts_statistics": AdaptsStatistics,
        "clips_weight": ClipsWeight,
    }
    for name, cls in models.items():
        torch.manual_seed(0)
        m = randomise(cls()).eval()
        torch.jit.script(m).save(os.path.join(out_dir, name + ".pt"))
    torch.manual_seed(0)
    torch.jit.script(randomise(Training()).train()).save(os.path.join(out_dir, "training_bn.pt"))


if __name__ == "__main__":
    main()
