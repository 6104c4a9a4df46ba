"""PyTorch's side of the GPU check (tools/gpu_check.sh), on a machine with a CUDA GPU.

Usage:
  gpu_anchor.py export DIR NAME...       DIR/NAME.pt2, exported with model and inputs on
                                         cuda:0 (as one exports for a GPU), DIR/NAME_cpu.pt2
                                         exported on the CPU, and DIR/NAME.expected.pt: the
                                         inputs (CPU) and the outputs of the model run on
                                         cuda:0, for fxrun --check
  gpu_anchor.py scripted DIR             TorchScript models for fxrun's --check against
                                         TorchScript on the GPU: resnet18.pt (torchvision),
                                         host_sync.pt (reads a value on the host mid-graph),
                                         writes_input.pt (adds to its input in place)
  gpu_anchor.py time DIR READY NAME...   ep.module() eager and torch.compile(ep.module(),
                                         mode="reduce-overhead") on cuda:0: compiles and warms
                                         both up first, waits until the file READY exists
                                         (a build may share the machine until then), then
                                         times them in interleaved rounds; prints a table
                                         and writes DIR/anchor_times.json (median ms)

The programs are tools/exported_program_anchor.py's (the CPU benchmark's), with the same
weights. TF32 is off on both sides (fxrun's default), as is autograd (inference mode).
Times are CUDA-event spans of one call each, after warm-up, medians.
"""
import json
import os
import statistics
import sys
import time
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import torch.utils._pytree  # noqa: E402

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import exported_program_anchor as anchor  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
# FX_ANCHOR_DEVICE=cpu runs every step on the CPU (CPU timers): for trying the
# script on a machine with no GPU.
GPU = torch.device(os.environ.get("FX_ANCHOR_DEVICE", "cuda:0"))


def on(device, values):
    return tuple(v.to(device) if isinstance(v, torch.Tensor) else v for v in values)


def export(out_dir, names):
    os.makedirs(out_dir, exist_ok=True)
    for name in anchor.selected(names):
        start = time.perf_counter()
        model, inputs = anchor.build(name)
        cpu_ep = torch.export.export(model, on("cpu", inputs))
        torch.export.save(cpu_ep, os.path.join(out_dir, name + "_cpu.pt2"))
        model = model.to(GPU)
        with torch.no_grad():
            outputs = model(*on(GPU, inputs))
        gpu_ep = torch.export.export(model, on(GPU, inputs))
        torch.export.save(gpu_ep, os.path.join(out_dir, name + ".pt2"))
        leaves = tuple(t.cpu() for t in torch.utils._pytree.tree_leaves(outputs))
        torch.save({"inputs": on("cpu", inputs), "outputs": leaves},
                   os.path.join(out_dir, name + ".expected.pt"))
        print("exported %s in %.1f s" % (name, time.perf_counter() - start), flush=True)


class HostSync(torch.nn.Module):
    """Scales by a value read on the host: the read waits for the GPU."""

    def forward(self, x):
        y = torch.relu(x)
        scale = float(y.sum())
        return y * scale


class WritesInput(torch.nn.Module):
    def forward(self, x):
        x.add_(1.0)
        return torch.sigmoid(x) * 2.0


def scripted(out_dir):
    import torchvision  # noqa: E402
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    models = {
        "resnet18": torchvision.models.resnet18(weights=None).eval(),
        "host_sync": HostSync().eval(),
        "writes_input": WritesInput().eval(),
    }
    for name, model in models.items():
        torch.jit.save(torch.jit.script(model), os.path.join(out_dir, name + ".pt"))
        print("scripted", name, flush=True)


def event_ms(fn, warmup, runs):
    """Median of CUDA-event spans of single calls, after warm-up calls."""
    for _ in range(warmup):
        fn()
    if GPU.type != "cuda":
        spans = []
        for _ in range(runs):
            start = time.perf_counter()
            fn()
            spans.append((time.perf_counter() - start) * 1e3)
        return statistics.median(spans)
    torch.cuda.synchronize()
    spans = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        spans.append(start.elapsed_time(end))
    return statistics.median(spans)


def time_programs(out_dir, ready, names, rounds=3):
    sides = []
    with torch.inference_mode():
        for name in names:
            start = time.perf_counter()
            ep = torch.export.load(os.path.join(out_dir, name + ".pt2"))
            args, kwargs = ep.example_inputs
            eager = ep.module()
            compiled = torch.compile(ep.module(), mode="reduce-overhead")
            for _ in range(3):  # reduce-overhead records its CUDA graph on the third call
                compiled(*args, **kwargs)
            if GPU.type == "cuda":
                torch.cuda.synchronize()
            print("compiled %s in %.1f s" % (name, time.perf_counter() - start), flush=True)
            sides.append((name, eager, compiled, args, kwargs))
    while not os.path.exists(ready):
        time.sleep(0.5)
    times = {name: {"eager": [], "compile": []} for name, *_ in sides}
    with torch.inference_mode():
        for _ in range(rounds):
            for name, eager, compiled, args, kwargs in sides:
                for side, fn in (("eager", eager), ("compile", compiled)):
                    times[name][side].append(event_ms(lambda: fn(*args, **kwargs), 5, 30))
    medians = {name: {side: statistics.median(v) for side, v in sides_.items()}
               for name, sides_ in times.items()}
    device = torch.cuda.get_device_name(0) if GPU.type == "cuda" else str(GPU)
    print("torch %s on %s, 1 stream, TF32 off, inference mode; CUDA-event ms, medians of %d "
          "rounds of 30 calls" % (torch.__version__, device, rounds))
    print("%-28s %12s %20s" % ("program", "ep.module()", "compile(reduce-overhead)"))
    for name, m in medians.items():
        print("%-28s %12.3f %20.3f" % (name, m["eager"], m["compile"]))
    with open(os.path.join(out_dir, "anchor_times.json"), "w") as f:
        json.dump({"torch": torch.__version__, "device": device,
                   "medians_ms": medians}, f, indent=1)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 3 and sys.argv[1] == "scripted":
        scripted(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "time":
        time_programs(sys.argv[2], sys.argv[3], anchor.selected(sys.argv[4:]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
