"""The benchmark programs for .pt2, and PyTorch's own figures on them (the anchor).

Usage (in a lane's Python: tools/platform.sh sid python3 tools/exported_program_anchor.py ...):
  exported_program_anchor.py export DIR [NAME...]
                                             writes DIR/NAME.pt2 and DIR/NAME.expected.pt
                                             (every program, or the ones named)
  exported_program_anchor.py onnx DIR [NAME...]
                                             writes DIR/NAME.onnx for ONNX Runtime, with
                                             NAME.onnx.json, NAME.onnx.inI.bin and
                                             NAME.onnx.outI.bin (tools/onnxruntime_anchor.js)
  exported_program_anchor.py time PROGRAM.pt2 ...
                                             torch.export.load time and ep.module() run time
  exported_program_anchor.py aoti PROGRAM.pt2 ...
                                             AOTInductor's run time, with freezing, beside
                                             ep.module()'s in interleaved rounds (compiles
                                             PROGRAM.aoti.pt2 once, next to PROGRAM.pt2)

The programs: torchvision's ResNet-50, ResNet-18, MobileNetV2 and MobileNetV3-Large at
1x3x224x224 and (NAME_b8) at 8x3x224x224 (ResNet-50 also at 32: resnet50_b32, for the GPU),
with the same weights; seed 003's tensor
product (batch 32); torch.nn's TransformerEncoderLayer (d_model 256, 8 heads,
batch-first, 1x64x256); add_chain, 1,000 adds of a constant on a 1-element tensor
(what a graph runtime spends per node).
Timing gives PyTorch what FX for C++'s side takes: one intra-op thread,
inference mode; the median of repeated runs after warm-up ones.
The C++ figures for the same files: bazel run --config=opt
//tools:exported_program_benchmark -- PROGRAM.pt2 ...

ONNX Runtime: `onnx` exports each program with the legacy (TorchScript) exporter,
torch.onnx.export(..., dynamo=False, opset_version=17), static shapes, the same
weights as the .pt2 (same seeds; checked against NAME.expected.pt when it is there).
It needs the `onnx` Python package (python3-onnx in the sid lane). Its inputs and
PyTorch's outputs (no_grad) go to raw little-endian float32 files, described by
NAME.onnx.json ({"inputs": [{"name", "dims", "file"}], "outputs": [...]}), which
tools/onnxruntime_anchor.js (onnxruntime-node) feeds, checks and times.
"""
import os
import statistics
import sys
import time
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import torch.utils._pytree  # noqa: E402
import torchvision  # noqa: E402

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fixtures"))


def _image(builder, batch=1):
    def make():
        import batch_norm_statistics  # noqa: E402 - tests/fixtures
        # Calibrated on the same batch whatever the batch size: the same weights.
        model = batch_norm_statistics.calibrate(builder(weights=None), (2, 3, 224, 224))
        return model, (torch.randn(batch, 3, 224, 224, generator=torch.Generator().manual_seed(1)),)
    return make


def _encoder_layer():
    layer = torch.nn.TransformerEncoderLayer(256, 8, dim_feedforward=1024, batch_first=True)
    return layer, (torch.randn(1, 64, 256, generator=torch.Generator().manual_seed(1)),)


def _tensor_product():
    import real_models  # noqa: E402 - tests/fixtures, with seed 003's workload
    return real_models.tensor_product()


class AddChain(torch.nn.Module):
    """1,000 adds on a 1-element tensor; torch.export unrolls the loop into 1,000 nodes."""

    def forward(self, x):
        for _ in range(1000):
            x = x + 1.0
        return x


def _add_chain():
    return AddChain(), (torch.randn(1, generator=torch.Generator().manual_seed(1)),)


PROGRAMS = {
    "resnet50": _image(torchvision.models.resnet50),
    "resnet18": _image(torchvision.models.resnet18),
    "mobilenet_v2": _image(torchvision.models.mobilenet_v2),
    "mobilenet_v3_large": _image(torchvision.models.mobilenet_v3_large),
    "tensor_product": _tensor_product,
    "transformer_encoder_layer": _encoder_layer,
    "resnet18_b8": _image(torchvision.models.resnet18, batch=8),
    "resnet50_b8": _image(torchvision.models.resnet50, batch=8),
    "resnet50_b32": _image(torchvision.models.resnet50, batch=32),
    "mobilenet_v2_b8": _image(torchvision.models.mobilenet_v2, batch=8),
    "mobilenet_v3_large_b8": _image(torchvision.models.mobilenet_v3_large, batch=8),
    "add_chain": _add_chain,
}


def selected(names):
    """The programs named (all of them when none is), in the order given."""
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        sys.exit("unknown program(s) %s; the programs: %s" % (" ".join(unknown), " ".join(PROGRAMS)))
    return names or list(PROGRAMS)


def build(name):
    """The program's model (eval mode) and inputs; weights seeded as `export` seeds them."""
    torch.manual_seed(0)
    model, inputs = PROGRAMS[name]()
    return model.eval(), inputs


def export(out_dir, names):
    os.makedirs(out_dir, exist_ok=True)
    for name in selected(names):
        model, inputs = build(name)
        with torch.no_grad():
            expected = model(*[t.clone() for t in inputs])
        ep = torch.export.export(model, tuple(t.clone() for t in inputs))
        torch.export.save(ep, os.path.join(out_dir, name + ".pt2"))
        torch.save({"inputs": inputs, "outputs": tuple(torch.utils._pytree.tree_leaves(expected))},
                   os.path.join(out_dir, name + ".expected.pt"))
        print("wrote", os.path.join(out_dir, name + ".pt2"), flush=True)


def _write_f32(tensor, path):
    import numpy  # noqa: E402 - needed by the onnx package too
    if tensor.dtype != torch.float32:
        sys.exit("%s: only float32 tensors are written for ONNX Runtime, not %s" % (path, tensor.dtype))
    tensor.detach().contiguous().numpy().astype("<f4", copy=False).tofile(path)


class _Positional(torch.nn.Module):
    """The model called with its inputs only: the legacy ONNX exporter fills in a
    forward's defaults as traced inputs, and a bool default becomes a tensor
    (TransformerEncoderLayer's is_causal, which scaled_dot_product_attention refuses)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, *inputs):
        return self.model(*inputs)


def export_onnx(out_dir, names):
    """DIR/NAME.onnx (legacy exporter, opset 17, static shapes), with its feeds and
    PyTorch's outputs as raw little-endian float32 files described by NAME.onnx.json."""
    import json
    os.makedirs(out_dir, exist_ok=True)
    for name in selected(names):
        model, inputs = build(name)
        with torch.no_grad():
            expected = torch.utils._pytree.tree_leaves(model(*[t.clone() for t in inputs]))
        saved = os.path.join(out_dir, name + ".expected.pt")
        if os.path.exists(saved):  # the .pt2's weights and inputs: the same seeds
            pt2 = torch.load(saved)
            same = all(torch.equal(a, b) for a, b in zip(pt2["inputs"], inputs)) and all(
                torch.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(pt2["outputs"], expected))
            if not same or len(pt2["outputs"]) != len(expected):
                sys.exit("%s: the model built now differs from %s (export it again)" % (name, saved))
        path = os.path.join(out_dir, name + ".onnx")
        input_names = ["input%d" % i for i in range(len(inputs))]
        output_names = ["output%d" % i for i in range(len(expected))]
        start = time.perf_counter()
        torch.onnx.export(_Positional(model), tuple(t.clone() for t in inputs), path, dynamo=False, opset_version=17,
                          input_names=input_names, output_names=output_names)
        seconds = time.perf_counter() - start
        meta = {"program": name, "torch": torch.__version__, "inputs": [], "outputs": []}
        for kind, names_, tensors in (("in", input_names, inputs), ("out", output_names, expected)):
            for i, (n, t) in enumerate(zip(names_, tensors)):
                file = "%s.onnx.%s%d.bin" % (name, kind, i)
                _write_f32(t, os.path.join(out_dir, file))
                meta["inputs" if kind == "in" else "outputs"].append(
                    {"name": n, "dims": list(t.shape), "dtype": "float32", "file": file})
        with open(path + ".json", "w") as f:
            json.dump(meta, f, indent=1)
        print("wrote %s in %.1f s" % (path, seconds), flush=True)


def median_seconds(fn, warmup, min_seconds):
    """Median wall and CPU (this process) seconds of fn() after warm-up runs.

    CPU time is what to compare on a shared machine: with one thread it is the
    work done, whatever else the machine runs (the C++ benchmark reports both).
    """
    for _ in range(warmup):
        fn()
    wall, cpu = [], []
    start = time.perf_counter()
    while len(wall) < 5 or time.perf_counter() - start < min_seconds:
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def time_programs(paths):
    torch.set_num_threads(1)
    print("torch %s, %d thread(s), inference mode; load: torch.export.load, run: ep.module()"
          % (torch.__version__, torch.get_num_threads()))
    print("%-30s %10s %10s %10s %10s" % ("program", "load ms", "load cpu", "run ms", "run cpu"))
    for path in paths:
        load, load_cpu = median_seconds(lambda: torch.export.load(path), 1, 2.0)
        ep = torch.export.load(path)
        module = ep.module()
        args, kwargs = ep.example_inputs
        with torch.inference_mode():
            run, run_cpu = median_seconds(lambda: module(*args, **kwargs), 3, 2.0)
        print("%-30s %10.3f %10.3f %10.3f %10.3f" % (os.path.basename(path), load * 1e3, load_cpu * 1e3,
                                                     run * 1e3, run_cpu * 1e3))


def aoti_package(path):
    """PROGRAM.aoti.pt2: AOTInductor's package of the program, compiled once.

    Freezing (weights as constants: convolutions prepacked for oneDNN and fused
    with their pointwise successors) is what makes it fast on the CPU; it
    takes effect only when compiling under no_grad. Inductor fixes its thread
    count when it compiles, so the package is compiled with one thread.
    """
    package = path[:-len(".pt2")] + ".aoti.pt2"
    if not os.path.exists(package):
        import torch._inductor  # noqa: E402
        torch._inductor.config.freezing = True
        ep = torch.export.load(path)
        start = time.perf_counter()
        with torch.no_grad():
            torch._inductor.aoti_compile_and_package(ep, package_path=package)
        print("compiled %s in %.0f s" % (package, time.perf_counter() - start), flush=True)
    return package


def time_aoti(paths, rounds=5):
    torch.set_num_threads(1)
    print("torch %s, %d thread(s), inference mode; AOTInductor (freezing) and ep.module(), "
          "%d interleaved rounds, CPU ms, medians" % (torch.__version__, torch.get_num_threads(), rounds))
    sides = []
    for path in paths:
        ep = torch.export.load(path)
        args, kwargs = ep.example_inputs
        runner = torch._inductor.aoti_load_package(aoti_package(path))
        module = ep.module()
        with torch.inference_mode():
            expected = torch.utils._pytree.tree_leaves(module(*args, **kwargs))
            got = torch.utils._pytree.tree_leaves(runner(*args, **kwargs))
        for e, g in zip(expected, got):
            if not torch.allclose(e, g, rtol=1e-3, atol=1e-3):
                sys.exit("%s: AOTInductor's outputs differ from ep.module()'s by %g"
                         % (path, (e - g).abs().max().item()))
        sides.append((os.path.basename(path), module, runner, args, kwargs))
    wall = {(name, side): [] for name, *_ in sides for side in ("aoti", "eager")}
    cpu = {(name, side): [] for name, *_ in sides for side in ("aoti", "eager")}
    with torch.inference_mode():
        for _ in range(rounds):
            for name, module, runner, args, kwargs in sides:
                for side, fn in (("aoti", runner), ("eager", module)):
                    w, c = median_seconds(lambda: fn(*args, **kwargs), 3, 1.0)
                    wall[(name, side)].append(w)
                    cpu[(name, side)].append(c)
    print("%-30s %10s %10s %14s %14s %8s" % ("program", "aoti ms", "aoti cpu", "ep.module ms",
                                            "ep.module cpu", "ratio"))
    for name, *_ in sides:
        aw, ac, ew, ec = (statistics.median(d[(name, side)]) * 1e3
                          for side in ("aoti", "eager") for d in (wall, cpu))
        print("%-30s %10.3f %10.3f %14.3f %14.3f %8.2f" % (name, aw, ac, ew, ec, ec / ac))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "onnx":
        export_onnx(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "time":
        time_programs(sys.argv[2:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "aoti":
        time_aoti(sys.argv[2:])
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
