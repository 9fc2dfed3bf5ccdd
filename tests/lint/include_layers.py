#!/usr/bin/env python3
"""include_layers.py [SOURCE_DIR] [--table]

Every quoted #include of the project's C++ (.cpp, .hpp, .cu, .cuh) points down: a file may
include its own layer and the layers below it (LAYERS, bottom up), never one above it or one
beside it. Prints each include that points the wrong way as

    file:line: includes X (layer A may not include layer B above it)

and their count; exits 1 if there is any, or if a C++ file lies in no layer. --table prints
the layers, bottom up, with everything each may include.

An include is resolved as the compiler resolves it: next to the including file first, then in
the include folders of the project's libraries (INCLUDE_ROOTS). Includes that resolve to no
file of the tree (system and third-party headers written with quotes) are not judged.

Tests are judged as the code they test: a library's tests/ folder belongs to that library,
except where its tests link more than the library does; those are layers of their own, right
above what they use: parallel/tests (the tests of the whole TP library), model/tests (the cost
model against verify's runs) and verify/tests (verify on the CUDA backend too). tests/cli
holds the lesson checker's cheating submissions, which are fixtures, not code of the project,
and is skipped. Build trees (folders with a CMakeCache.txt) and hidden folders are skipped too.
"""

import os
import re
import sys

# The layers, bottom up: (name, the paths it holds, the layers right below it). A layer may
# include itself and, transitively, every layer below it; a path is a folder or one file, and a
# file belongs to the layer with the longest path that holds it. A layer can only name layers
# above it in this table, so the table has no cycle.
LAYERS = [
    # The single-device reference: Eigen only, no code shared with the TP library.
    ("reference", ["reference"], []),
    # The TP library (parallel/), folder by folder.
    ("core", ["parallel/core"], []),
    ("trace", ["parallel/trace"], ["core"]),  # Device records its operations on a timeline
    ("device", ["parallel/device"], ["trace"]),
    ("comm", ["parallel/comm"], ["device"]),  # collectives on a device's tensors (NCCL, staging)
    ("backend", ["parallel/backend"], ["comm"]),  # a rank's Device and Comm, for the programs
    ("grid", ["parallel/grid"], ["comm"]),
    ("scheme", ["parallel/scheme"], ["comm"]),  # the interface: it names no grid
    ("layers", ["parallel/layers"], ["scheme"]),
    ("tp1d", ["parallel/tp1d"], ["layers", "grid"]),
    ("tp2d", ["parallel/tp2d"], ["layers", "grid"]),
    ("tp2p5d", ["parallel/tp2p5d"], ["tp2d"]),  # SUMMA on every depth layer
    ("tp3d", ["parallel/tp3d"], ["layers", "grid"]),
    ("mesh", ["parallel/mesh"], ["scheme"]),  # data parallelism around any Scheme
    ("optim", ["parallel/optim"], ["scheme"]),  # over any ParallelModule's shards
    ("gpt", ["parallel/gpt"], ["tp1d", "tp2p5d", "tp3d"]),
    ("pipeline", ["parallel/pipeline"], ["gpt", "mesh"]),  # stages of the GPT, their schedules
    ("registry", ["parallel/registry"], ["gpt", "mesh"]),  # the one place that names every scheme
    ("parallel/tests", ["parallel/tests"], ["registry", "optim", "backend", "pipeline"]),
    # The libraries above it, as their target_link_libraries say.
    ("host", ["host"], ["trace"]),  # safe output, job results, traces, process resources
    ("model", ["model"], ["registry", "pipeline"]),
    ("verify", ["verify"], ["model", "reference"]),
    ("model/tests", ["model/tests", "model/plan/tests"], ["verify"]),
    ("verify/tests", ["verify/tests"], ["verify", "backend"]),
    ("train", ["train"], ["verify", "optim", "pipeline"]),
    ("bench", ["bench"], ["train", "host", "backend"]),  # times the block, and the training's GPT
    ("lessons", ["lessons"], ["verify", "host"]),
    ("app", ["app"], ["train", "bench", "lessons"]),
]

# Where the compiler looks for a quoted include that is not next to the including file: the
# PUBLIC include folders of the libraries (target_include_directories).
INCLUDE_ROOTS = [
    "parallel",
    "reference/include",
    "host",
    "model",
    "verify",
    "train",
    "bench",
    "app/files",
    "app/runner",
    "app/lesson",
    "app",
    ".",
]

SKIPPED = ["tests/cli"]
SOURCE_SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def closures():
    """Every layer's name -> the set of layers it may include (itself and all below)."""
    below = {}
    for name, _, under in LAYERS:
        if name in below:
            sys.exit(f"include_layers.py: layer {name} is declared twice")
        allowed = {name}
        for lower in under:
            if lower not in below:
                sys.exit(f"include_layers.py: layer {name} names {lower}, which is not below it")
            allowed |= below[lower]
        below[name] = allowed
    return below


def layer_of(path):
    """The layer holding `path` (relative, with '/'), or None."""
    best, best_length = None, -1
    for name, paths, _ in LAYERS:
        for held in paths:
            if (path == held or path.startswith(held + "/")) and len(held) > best_length:
                best, best_length = name, len(held)
    return best


def sources(root):
    """The C++ files of the tree, relative to root, sorted."""
    found = []
    for folder, subfolders, files in os.walk(root):
        relative = os.path.relpath(folder, root).replace(os.sep, "/")
        if relative != "." and (relative in SKIPPED or "CMakeCache.txt" in files):
            subfolders[:] = []
            continue
        subfolders[:] = [d for d in subfolders if not d.startswith(".")]
        for file in files:
            if file.endswith(SOURCE_SUFFIXES):
                found.append(os.path.normpath(os.path.join(relative, file)).replace(os.sep, "/"))
    return sorted(found)


def resolve(root, including, target):
    """The file (relative to root) that `#include "target"` in `including` names, or None."""
    folders = [os.path.dirname(including)] + INCLUDE_ROOTS
    for folder in folders:
        candidate = os.path.normpath(os.path.join(folder, target)).replace(os.sep, "/")
        if not candidate.startswith("../") and os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def wrong_way(root, path, below):
    """The wrong-way includes of one file, as messages."""
    layer = layer_of(path)
    messages = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as text:
        for number, line in enumerate(text, start=1):
            match = INCLUDE.match(line)
            target = resolve(root, path, match.group(1)) if match else None
            if target is None:
                continue
            other = layer_of(target)
            if other in below[layer]:
                continue
            if other is None:
                where = f"{target}, which is in no layer"
            elif layer in below[other]:
                where = f"layer {other} above it"
            else:
                where = f"layer {other} beside it"
            messages.append(f"{path}:{number}: includes {match.group(1)} "
                            f"(layer {layer} may not include {where})")
    return messages


def print_table(below):
    order = [name for name, _, _ in LAYERS]
    for name, paths, _ in LAYERS:
        allowed = [other for other in order if other in below[name] and other != name]
        print(f"{name:<15} {', '.join(paths):<20} may include: {', '.join(allowed) or 'nothing'}")


def main(argv):
    arguments = [a for a in argv if a != "--table"]
    root = arguments[0] if arguments else os.path.join(os.path.dirname(__file__), "..", "..")
    below = closures()
    if "--table" in argv:
        print_table(below)
        return 0
    files = sources(root)
    unplaced = [path for path in files if layer_of(path) is None]
    wrong = [message for path in files if path not in unplaced
             for message in wrong_way(root, path, below)]
    for path in unplaced:
        print(f"{path}: belongs to no layer (add its folder to LAYERS in include_layers.py)")
    for message in wrong:
        print(message)
    if unplaced or wrong:
        print(f"{len(wrong)} wrong-way includes, {len(unplaced)} files in no layer; the layers, "
              f"bottom up: tests/lint/include_layers.py --table")
        return 1
    print(f"every include points down: {len(files)} files in {len(LAYERS)} layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
