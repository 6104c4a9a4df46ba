#!/usr/bin/env python3
"""Checks the C++ tracer on every torchvision classification model (by hand).

Usage (from the repository root, with Debian's Python):
    /usr/bin/python3 tests/torchvision/check_torchvision.py [MODEL...]

Each model is built with random weights, scripted in eval mode and saved;
Python's torch.fx records its call_module order; //tests/torchvision:trace_check traces the
scripted model in C++, lints it, checks its call_module order against torch.fx
and its outputs against the scripted model's. Prints a table and exits non-zero
when a model fails. `bazel test` covers a handful (tests/torchvision_test).
"""
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.fx
import torchvision

DEFAULT_MODELS = [
    "alexnet", "convnext_tiny", "densenet121", "efficientnet_b0", "efficientnet_v2_s",
    "googlenet", "inception_v3", "mnasnet0_5", "mobilenet_v2", "mobilenet_v3_small",
    "regnet_x_400mf", "regnet_y_400mf", "resnet18", "resnet50", "resnext50_32x4d",
    "shufflenet_v2_x1_0", "squeezenet1_0", "vgg11", "vgg11_bn", "wide_resnet50_2",
    "swin_t", "vit_b_16", "maxvit_t",
]


def main():
    models = sys.argv[1:] or DEFAULT_MODELS
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run(["bazel", "build", "--config=opt", "//tests/torchvision:trace_check"], cwd=root, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checker = os.path.join(root, "bazel-out/k8-opt/bin/tests/torchvision/trace_check")
    failures = 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in models:
            torch.manual_seed(0)
            try:
                model = getattr(torchvision.models, name)().eval()
                path = os.path.join(tmp, name + ".pt")
                torch.jit.script(model).save(path)
            except Exception as e:
                rows.append((name, "cannot script: " + " ".join(str(e).split())[:80]))
                continue
            ref = os.path.join(tmp, name + ".txt")
            try:
                gm = torch.fx.symbolic_trace(model)
                lines = [n.target for n in gm.graph.nodes if n.op == "call_module"]
            except Exception as e:
                lines = ["# torch.fx cannot trace: " + " ".join(str(e).split())]
            with open(ref, "w") as f:
                f.write("\n".join(lines) + "\n")
            # Functions torch.fx users wrap (torch.fx.wrap) are leaf functions here too.
            wrapped = ["--leaf_function=%s.%s" % (g.get("__name__"), fn)
                       for g, fn in torch.fx._symbolic_trace._wrapped_fns_to_patch]
            out = subprocess.run([checker, path, ref] + wrapped, capture_output=True, text=True)
            report = json.loads(out.stdout.strip().splitlines()[-1]) if out.stdout.strip() else {
                "error": out.stderr.strip()[-200:]}
            ok = (report.get("traced") and report.get("lint") and report.get("same_outputs")
                  and report.get("same_call_modules_as_torch_fx", True))
            failures += 0 if ok else 1
            if not report.get("traced"):
                status = "FAIL: " + report.get("error", "")[:100]
            else:
                order = ("same call_module order as torch.fx"
                         if report.get("same_call_modules_as_torch_fx")
                         else ("torch.fx fails: " + report.get("torch_fx", "")[:40]
                               if "torch_fx" in report else "DIFFERENT call_module order"))
                status = "%s, %d nodes (%d call_module, %d asserts), %.2f ms, outputs %s, %s" % (
                    "ok" if ok else "FAIL", report["nodes"], report["call_modules"],
                    report["asserts"], report["trace_ms"],
                    "equal" if report.get("same_outputs") else report.get("run_error", "DIFFER"),
                    order)
            rows.append((name, status))
            print("%-20s %s" % rows[-1], flush=True)
    print("\n%d of %d models traced, linted, matched torch.fx and computed the same outputs"
          % (len(models) - failures, len(models)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
