"""Seed corpora of the .pt2 reader's fuzzers, from the committed programs.

    python3 pt2_seeds.py OUT_DIR PROGRAM.pt2 PROGRAM.expected.pt ...

For each program torchVERSION/NAME.pt2 (with NAME.expected.pt beside it),
writes into OUT_DIR:
  json/VERSION_NAME.json        its program JSON (program_json_fuzzer);
  spec/VERSION_NAME_in, _out    its in_spec and out_spec (treespec_fuzzer);
  pickle/VERSION_NAME_inputs    the data.pkl of its sample inputs, of its
  pickle/VERSION_NAME_expected  saved run and, for the legacy layout, of its
  pickle/VERSION_NAME_state     state dict (torch_load_fuzzer).
The archives themselves are the seeds of pt2_archive_fuzzer.
"""
import io
import json
import os
import sys
import zipfile


def data_pkl(torch_saved):
    with zipfile.ZipFile(io.BytesIO(torch_saved)) as z:
        return next(z.read(n) for n in z.namelist() if n.endswith("/data.pkl"))


def write(out, path, data):
    os.makedirs(os.path.dirname(os.path.join(out, path)), exist_ok=True)
    with open(os.path.join(out, path), "wb") as f:
        f.write(data)


def main(out, paths):
    for path in paths:
        if not path.endswith(".pt2"):
            continue
        version = os.path.basename(os.path.dirname(path)).replace("torch", "").replace(".", "_")
        stem = f"{version}_{os.path.basename(path)[:-4]}"
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            program = next(n for n in names if n.endswith("models/model.json") or
                           n == "serialized_exported_program.json")
            text = z.read(program)
            write(out, f"json/{stem}.json", text)
            signature = json.loads(text)["graph_module"]["module_call_graph"][0]["signature"]
            write(out, f"spec/{stem}_in", signature["in_spec"].encode())
            write(out, f"spec/{stem}_out", signature["out_spec"].encode())
            inputs = next(n for n in names if n.endswith("sample_inputs/model.pt") or
                          n == "serialized_example_inputs.pt")
            write(out, f"pickle/{stem}_inputs", data_pkl(z.read(inputs)))
            write(out, f"pickle/{stem}_state", data_pkl(z.read("serialized_state_dict.pt"))
                  if "serialized_state_dict.pt" in names else b"\x80\x02}.")
        with open(path[:-4] + ".expected.pt", "rb") as f:
            write(out, f"pickle/{stem}_expected", data_pkl(f.read()))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
