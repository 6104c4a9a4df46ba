"""Models for mkldnn_layout's tests, scripted with Debian's torch (run at build time).

Usage: mkldnn_layout_models.py OUT_DIR

Each is a small convolutional network with one pattern the layout pass must
get right; inputs are 1x3x16x16.
"""
import os
import sys

import torch
import torch.nn.functional as F
from torch import nn


def convs(n, channels=8):
    layers = [nn.Conv2d(3, channels, 3, padding=1)]
    for _ in range(n - 1):
        layers.append(nn.Conv2d(channels, channels, 3, padding=1))
    return nn.ModuleList(layers)


class Chain(nn.Module):
    """Convolutions, ReLU6, relu and in-place relu, a residual add, pooling,
    then a hardtanh on 8 channels (which stays strided) and a head."""

    def __init__(self):
        super().__init__()
        self.c = nn.ModuleList([nn.Conv2d(3, 16, 3, padding=1), nn.Conv2d(16, 16, 3, padding=1),
                                nn.Conv2d(16, 16, 3, padding=1), nn.Conv2d(16, 8, 3, padding=1)])
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        x = F.relu6(self.c[0](x * 4))
        y = F.relu(self.c[1](x), inplace=True)
        y = F.hardtanh(self.c[2](y), -0.5, 0.5) + x
        y = F.hardtanh(self.pool(self.c[3](y)), -0.5, 0.5)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


class EightChannelRelu6(nn.Module):
    """ReLU6 after 8-channel convolutions, where TorchScript's frozen module
    is wrong: it stays strided here."""

    def __init__(self):
        super().__init__()
        self.c = convs(4)

    def forward(self, x):
        x = x * 4
        for conv in self.c:
            x = F.relu6(conv(x))
        return x


class HardswishBlocks(nn.Module):
    """MobileNetV3's activation: in-place hardswish as nn.Hardswish(inplace=True)
    calls it, the out-of-place one, then in-place on 8 channels (strided on
    libtorch 1.13, whose kernel gets padded channels wrong)."""

    def __init__(self):
        super().__init__()
        self.c = nn.ModuleList([nn.Conv2d(3, 16, 3, padding=1), nn.Conv2d(16, 16, 3, padding=1),
                                nn.Conv2d(16, 8, 3, padding=1)])
        self.act = nn.Hardswish(inplace=True)

    def forward(self, x):
        x = self.act(self.c[0](x * 4))
        y = F.hardswish(self.c[1](x)) + x
        return self.act(self.c[2](y))


class OutOverloads(nn.Module):
    """hardswish and hardtanh writing an out= buffer, which is returned: the
    out overloads stay as they are (strided)."""

    def __init__(self):
        super().__init__()
        self.c = convs(3, channels=16)
        # out= refuses tensors that require gradients.
        for p in self.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        y = self.c[1](self.c[0](x * 4))
        a = torch.zeros([1, 16, 16, 16])
        b = torch.zeros([1, 16, 16, 16])
        torch._C._nn.hardswish(y, out=a)
        torch._C._nn.hardtanh(y, -0.5, 0.5, out=b)
        return self.c[2](y), a, b


class LoneConv(nn.Module):
    """One convolution between strided operators: converting costs more."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return torch.sin(self.conv(torch.cos(x)))


class ReadBeforeInPlace(nn.Module):
    """A strided user reads a value before an in-place relu writes it, and
    another after: each must see what it saw before."""

    def __init__(self):
        super().__init__()
        self.c = convs(4)

    def forward(self, x):
        y = self.c[1](self.c[0](x))
        before = torch.sin(y)
        y = self.c[3](self.c[2](y.relu_()))
        after = torch.sin(y)
        return before, after, y


class WrittenByStridedUser(nn.Module):
    """An operator with no MKLDNN kernel writes a value in place: converting
    would write a copy."""

    def __init__(self):
        super().__init__()
        self.c = convs(6)

    def forward(self, x):
        y = self.c[2](self.c[1](self.c[0](x)))
        F.elu(y, inplace=True)
        return self.c[5](self.c[4](self.c[3](y))) + y


class BroadcastAdd(nn.Module):
    """An add that broadcasts (MKLDNN's add does not) stays strided."""

    def __init__(self):
        super().__init__()
        self.c = convs(6)
        self.shift = nn.Parameter(torch.randn(1, 8, 1, 1))

    def forward(self, x):
        y = self.c[2](self.c[1](self.c[0](x))) + self.shift
        return self.c[5](self.c[4](self.c[3](y)))


class AvgPoolCeilMode(nn.Module):
    """avg_pool2d in ceil mode counting padding: oneDNN divides the windows
    that ceil mode adds by the whole kernel, aten by the part of it over the
    input and its padding."""

    def __init__(self):
        super().__init__()
        self.c = convs(4)

    def forward(self, x):
        y = F.avg_pool2d(self.c[1](self.c[0](x)), 3, 2, 0, ceil_mode=True)
        return self.c[3](self.c[2](y))


class DilatedMaxPool(nn.Module):
    """max_pool2d with dilation, which MKLDNN's max pooling refuses."""

    def __init__(self):
        super().__init__()
        self.c = convs(4)

    def forward(self, x):
        y = F.max_pool2d(self.c[1](self.c[0](x)), 3, 1, 1, dilation=2)
        return self.c[3](self.c[2](y))


class AdaptivePoolOddSize(nn.Module):
    """adaptive_avg_pool2d to a size that does not divide the input's, which
    MKLDNN's adaptive pooling refuses."""

    def __init__(self):
        super().__init__()
        self.c = convs(4)

    def forward(self, x):
        y = F.adaptive_avg_pool2d(self.c[1](self.c[0](x)), 3)
        return self.c[3](self.c[2](y))


class ViewBeforeInPlace(nn.Module):
    """Strided views of a value taken before an in-place relu writes it, read
    after: they see the write."""

    def __init__(self):
        super().__init__()
        self.c = convs(4)

    def forward(self, x):
        y = self.c[1](self.c[0](x))
        flat = y.view(-1)
        first = y[0]
        y = self.c[3](self.c[2](y.relu_()))
        return flat * 1, first, y


class ViewOfWrittenInput(nn.Module):
    """Two convolutions read a view of a tensor written in place between them:
    the second reads the written values."""

    def __init__(self):
        super().__init__()
        self.a = convs(3)
        self.b = convs(3)

    def forward(self, x):
        t = x * 1
        v = t[:, 0:3]
        a = self.a[2](self.a[1](self.a[0](v)))
        t.mul_(2)
        b = self.b[2](self.b[1](self.b[0](v)))
        return a + b


class WrittenThroughAnUnannotatedAlias(nn.Module):
    """In-place relus write a value through type_as and eval alpha_dropout,
    which return their input although their schemas do not say so."""

    def __init__(self):
        super().__init__()
        self.c = convs(6)

    def forward(self, x):
        y = self.c[1](self.c[0](x))
        d = y.type_as(x)
        d.relu_()
        z = self.c[4](self.c[3](self.c[2](y)))
        e = F.alpha_dropout(z, 0.5, False)
        e.relu_()
        return self.c[5](z), d, e


class DuplicateBranches(nn.Module):
    """Two copies of one branch, which cse merges: the strided reader of the
    copy comes first in the graph but last among the users of the value."""

    def __init__(self):
        super().__init__()
        self.c = convs(3)

    def forward(self, x):
        a = self.c[2](self.c[1](self.c[0](x)))
        b = self.c[2](self.c[1](self.c[0](x)))
        return torch.cos(b), torch.sin(a)


class WeightWrittenByTheGraph(nn.Module):
    """A convolution's weight that the graph writes after reading it: each
    run reads what the last wrote, which a weight reordered once would not."""

    def __init__(self):
        super().__init__()
        self.c = convs(2)
        self.register_buffer("w", torch.randn(8, 8, 3, 3))

    def forward(self, x):
        y = F.conv2d(self.c[1](self.c[0](x)), self.w, None, 1, 1)
        self.w.mul_(-0.5)
        return y


class AddsIntoOperands(nn.Module):
    """Residual adds: the first may write its right operand (the left is read
    by a convolution too); the second neither (both are returned)."""

    def __init__(self):
        super().__init__()
        self.c = convs(4)

    def forward(self, x):
        a = self.c[0](x)
        s = a + self.c[1](a)
        p = self.c[2](s)
        q = self.c[3](s)
        return p + q, p, q


def main():
    out_dir = sys.argv[1]
    models = {
        "chain": Chain,
        "lone_conv": LoneConv,
        "eight_channel_relu6": EightChannelRelu6,
        "hardswish_blocks": HardswishBlocks,
        "out_overloads": OutOverloads,
        "read_before_in_place": ReadBeforeInPlace,
        "written_by_strided_user": WrittenByStridedUser,
        "broadcast_add": BroadcastAdd,
        "avg_pool_ceil_mode": AvgPoolCeilMode,
        "dilated_max_pool": DilatedMaxPool,
        "adaptive_pool_odd_size": AdaptivePoolOddSize,
        "view_before_in_place": ViewBeforeInPlace,
        "view_of_written_input": ViewOfWrittenInput,
        "written_through_an_unannotated_alias": WrittenThroughAnUnannotatedAlias,
        "duplicate_branches": DuplicateBranches,
        "weight_written_by_the_graph": WeightWrittenByTheGraph,
        "adds_into_operands": AddsIntoOperands,
    }
    for name, cls in models.items():
        torch.manual_seed(0)
        torch.jit.script(cls().eval()).save(os.path.join(out_dir, name + ".pt"))


if __name__ == "__main__":
    main()
