"""Writes a torch.fx graph as FX for C++'s graph file (fxrun --graph).

A torch.fx user brings the graph torch.fx made (symbolic_trace, a pass, a
graph written by hand) and runs it in C++ over the model's state:

    import torch, torch.fx, fx_graph_file
    gm = torch.fx.symbolic_trace(model)
    fx_graph_file.save(gm, "g.json")             # the graph
    torch.jit.script(model).save("m.pt")         # parameters, buffers, submodules

    fxrun --model=m.pt --graph=g.json --run --check

or from the command line, for a module a Python file defines:

    python3 fx_graph_file.py path/to/file.py:ClassName g.json [m.pt]

The format is docs/file-formats.md's "graph file": nodes with their
opcodes, targets and args in graph order, targets spelled as torch.fx's
printed code spells them (`operator.add`, `torch.nn.functional.relu`,
`torch._C._nn.gelu`, a method's name), and tensor constants the graph owns
(`_tensor_constant0`) inside the file. Parameters, buffers and submodules
(call_module, get_attr of the model's state) come from the model file given
with --model, which must hold the same paths: torch.jit.script of the model
the graph was traced from does.

Indexing with slices, Ellipsis or None (`x[:, 0]`, `x[..., 1:]`,
`x.shape[1:]`) is written as the aten calls Python's indexing makes of it
(aten::slice, select, unsqueeze), as TorchScript compiles it.

What the file cannot hold is refused naming the node: a Python object that
is not a graph value (a user class, a function as an argument), a slice or
Ellipsis anywhere but an index, a tensor in an index beside a slice
(advanced indexing), a tensor constant other than a tensor.
"""
import base64
import builtins
import io
import math
import operator
import sys

import torch
import torch.fx

FORMAT = "fx-graph"
VERSION = 1


class GraphFileError(ValueError):
    pass


def _target_name(node):
    if node.op in ("call_module", "get_attr", "placeholder", "output", "call_method"):
        return node.target
    name = torch.fx.node._get_qualified_name(node.target)
    # torch 1.13 says `_operator.add` and `getattr`, torch 2.x `operator.add`
    # and `builtins.getattr`; the graph file says `operator.add` and `getattr`.
    if name.startswith("_operator."):
        return name[1:]
    if name.startswith("builtins.") and getattr(builtins, name[9:], None) is node.target:
        return name[9:]
    return name


def _dtype_name(d):
    return str(d)  # torch.float32


def _encode(value, where):
    if isinstance(value, torch.fx.Node):
        return {"node": value.name}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return {"float": "nan"}
        if math.isinf(value):
            return {"float": "inf" if value > 0 else "-inf"}
        return value
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        cls = type(value)
        return {"named_tuple": {"class": cls.__module__ + "." + cls.__qualname__,
                               "fields": list(value._fields),
                               "items": [_encode(v, "%s[%d]" % (where, i)) for i, v in enumerate(value)]}}
    if isinstance(value, tuple):
        return {"tuple": [_encode(v, "%s[%d]" % (where, i)) for i, v in enumerate(value)]}
    if isinstance(value, list):
        return [_encode(v, "%s[%d]" % (where, i)) for i, v in enumerate(value)]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise GraphFileError("%s: a dict key %r is not a string" % (where, k))
            out[k] = _encode(v, "%s[%r]" % (where, k))
        return {"dict": out}
    if isinstance(value, torch.dtype):
        return {"dtype": _dtype_name(value)}
    if isinstance(value, torch.device):
        return {"device": str(value)}
    if isinstance(value, torch.layout):
        return {"layout": str(value)}
    if isinstance(value, torch.memory_format):
        return {"memory_format": str(value)}
    if isinstance(value, slice):
        return {"slice": [_encode(value.start, where + ".start"), _encode(value.stop, where + ".stop"),
                          _encode(value.step, where + ".step")]}
    if value is Ellipsis:
        return {"ellipsis": True}
    raise GraphFileError("%s: %r (a %s) is not a value a graph file holds" % (where, value, type(value).__name__))


def _pickle(value):
    buf = io.BytesIO()
    torch.save(value, buf)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _own_attributes(gm, nodes):
    """Tensor constants symbolic_trace lifted onto the GraphModule itself."""
    out = {}
    for n in nodes:
        if n.op != "get_attr" or "." in n.target or not n.target.startswith("_tensor_constant"):
            continue
        value = getattr(gm, n.target)
        if not isinstance(value, torch.Tensor):
            raise GraphFileError("node '%s': attribute %s is a %s, not a tensor"
                                 % (n.name, n.target, type(value).__name__))
        out[n.target] = {"pickle": _pickle(value.detach())}
    return dict(sorted(out.items()))


# Modules whose functions fxrun knows by name (aten's bindings, Python's
# operators and builtins, math on numbers); any other call_function target
# (a function torch.fx.wrap keeps whole, torchvision's stochastic_depth) is
# a leaf function, run as the TorchScript of the model file compiled it.
_KNOWN_MODULES = ("torch", "operator", "math")


def _leaf_functions(nodes):
    out = {}
    for n in nodes:
        if n.op != "call_function":
            continue
        target = _target_name(n)
        if "." in target and target.split(".", 1)[0] not in _KNOWN_MODULES:
            out[target] = ["__torch__." + target]
    return dict(sorted(out.items()))


def _indexes_with_slices(n):
    """Whether `n` is x[index] with a slice, Ellipsis or None in the index."""
    if n.op != "call_function" or n.target is not operator.getitem or len(n.args) != 2 or n.kwargs:
        return False
    index = n.args[1]
    if index == ():
        return True  # x[()]: all of x
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, slice) or i is Ellipsis or i is None for i in items)


def _index_calls(n, taken):
    """x[index] (see _indexes_with_slices) as the aten calls Python's indexing
    makes of it, as TorchScript compiles it: [(name, target, args, kwargs)],
    the last one named as `n`. Items before an Ellipsis count dimensions from
    the front, items after it from the back."""
    where = "node '%s'" % n.name
    x, index = n.args
    if index == ():
        return [(n.name, "call_function", "aten::alias", [_encode(x, where + ".args[0]")], {})]
    if isinstance(index, slice):
        # A tensor's or a list's (x.shape[1:]): the runtime picks the overload by x.
        kwargs = {"start": index.start, "end": index.stop, "step": 1 if index.step is None else index.step}
        return [(n.name, "call_function", "aten::slice", [_encode(x, where + ".args[0]")],
                 {k: _encode(v, "%s.args[1].%s" % (where, k)) for k, v in kwargs.items()})]
    items = index if isinstance(index, tuple) else (index,)
    if sum(i is Ellipsis for i in items) > 1:
        raise GraphFileError("node '%s': an index can only have a single ellipsis" % n.name)
    cut = items.index(Ellipsis) if Ellipsis in items else len(items)
    steps = []  # (target, args after the tensor)

    def step(item, dim):
        if isinstance(item, slice):
            steps.append(("aten::slice.Tensor", [dim, item.start, item.stop, 1 if item.step is None else item.step]))
        elif item is None:
            steps.append(("aten::unsqueeze", [dim]))
        elif isinstance(item, int) and not isinstance(item, bool):
            steps.append(("aten::select.int", [dim, item]))
        elif isinstance(item, torch.fx.Node):
            raise GraphFileError(
                "node '%s': index item %s next to a slice, Ellipsis or None is a value of the graph, "
                "which may be an int (x.select) or a tensor (advanced indexing): write x.select(dim, i) "
                "or torch.index_select(x, dim, i) in the model instead" % (n.name, item.name))
        else:
            raise GraphFileError(
                "node '%s': index item %r next to a slice, Ellipsis or None is not an int, a slice, "
                "None or Ellipsis" % (n.name, item))

    dim = 0
    for item in items[:cut]:
        step(item, dim)
        dim += 0 if isinstance(item, int) else 1
    dim = -1
    for item in reversed(items[cut + 1:]):
        step(item, dim)
        dim -= 0 if isinstance(item, int) else 1
    if not steps:
        steps.append(("aten::alias", []))  # x[...] and x[()]: a view of all of x
    # Items on both sides of an Ellipsis count dimensions from both ends:
    # Python refuses an x with fewer dimensions than they take, and so must
    # the graph (x[:, ..., 0] of a 1-d x would select from the sliced one).
    taken_dims = sum(1 for i in items if i is not None and i is not Ellipsis)
    checks = []
    if cut < len(items) and any(i is not None for i in items[:cut]) and \
            any(i is not None for i in items[cut + 1:]):
        dim_name, ok_name = _fresh("%s_dim" % n.name, taken), _fresh("%s_dim_ok" % n.name, taken)
        checks = [(dim_name, "call_method", "dim", [_encode(x, where + ".args[0]")], {}),
                  (ok_name, "call_function", "operator.ge", [{"node": dim_name}, taken_dims], {}),
                  (_fresh("_assert_%s" % n.name, taken), "call_function", "torch._assert",
                   [{"node": ok_name}, "too many indices for tensor of dimension (index of node '%s')" % n.name],
                   {})]
    calls, value = [], _encode(x, where + ".args[0]")
    for i, (target, rest) in enumerate(steps):
        name = n.name if i + 1 == len(steps) else _fresh("%s_index_%d" % (n.name, i), taken)
        calls.append((name, "call_function", target, [value] + [_encode(a, where + ".args[1]") for a in rest], {}))
        value = {"node": name}
    return checks + calls


def _fresh(name, taken):
    """`name`, or `name_1`, `name_2`, ...: the first not in `taken` (then taken)."""
    k, fresh = 0, name
    while fresh in taken:
        k += 1
        fresh = "%s_%d" % (name, k)
    taken.add(fresh)
    return fresh


def _set_users(nodes):
    """Each entry's "users": the entries whose arguments name it, in order."""
    users = {e["name"]: e["users"] for e in nodes}

    def visit(value, user):
        if isinstance(value, dict):
            if set(value) == {"node"} and isinstance(value["node"], str):
                if user not in users[value["node"]]:
                    users[value["node"]].append(user)
                return
            for v in value.values():
                visit(v, user)
        elif isinstance(value, list):
            for v in value:
                visit(v, user)

    for e in nodes:
        visit(e["args"], e["name"])
        visit(e["kwargs"], e["name"])


def graph_file(gm):
    """The graph file of `gm` (a torch.fx.GraphModule) as a JSON-ready dict."""
    nodes = []
    taken = {n.name for n in gm.graph.nodes}
    for n in gm.graph.nodes:
        where = "node '%s'" % n.name
        if _indexes_with_slices(n):
            for name, op, target, args, kwargs in _index_calls(n, taken):
                nodes.append({"name": name, "op": op, "target": target, "args": args,
                              "kwargs": kwargs, "users": [], "meta": {}})
            continue
        entry = {"name": n.name, "op": n.op, "target": _target_name(n),
                 "args": [_encode(a, "%s.args[%d]" % (where, i)) for i, a in enumerate(n.args)],
                 "kwargs": {k: _encode(v, "%s.kwargs[%r]" % (where, k)) for k, v in n.kwargs.items()},
                 "users": [], "meta": {}}
        nodes.append(entry)
    _set_users(nodes)
    return {"format": FORMAT, "version": VERSION, "class_name": "GraphModule", "nodes": nodes,
            "meta": {}, "functions": _leaf_functions(gm.graph.nodes), "attributes": _own_attributes(gm, gm.graph.nodes)}


def save(gm, path):
    import json
    text = json.dumps(graph_file(gm), indent=1) + "\n"
    with open(path, "w") as f:
        f.write(text)


def _main(argv):
    if len(argv) not in (3, 4) or ":" not in argv[1]:
        sys.stderr.write(__doc__)
        return 2
    import importlib.util
    file_name, class_name = argv[1].rsplit(":", 1)
    spec = importlib.util.spec_from_file_location("fx_graph_file_model", file_name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = getattr(module, class_name)().eval()
    save(torch.fx.symbolic_trace(model), argv[2])
    if len(argv) == 4:
        torch.jit.script(model).save(argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
