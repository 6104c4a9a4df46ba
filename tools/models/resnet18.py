"""Saves the model fxrun traces when no --model is given (run at build time).

Usage: resnet18.py OUT.pt

torchvision's ResNet-18, the model of the seed examples, with random (seeded)
weights, scripted in eval mode: what a C++ user receives from PyTorch.
"""
import sys

import torch
import torchvision


def main():
    torch.manual_seed(0)
    model = torchvision.models.resnet18().eval()
    torch.jit.script(model).save(sys.argv[1])


if __name__ == "__main__":
    main()
