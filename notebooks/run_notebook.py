"""Runs notebooks top to bottom without a browser, as CI does.

usage: run_notebook.py NOTEBOOK.ipynb...      execute each; fail on the first cell that raises
       run_notebook.py --check-clean DIR      fail unless every notebook in DIR has no outputs
       run_notebook.py --clear NOTEBOOK...    remove the outputs of notebooks saved with them

Notebooks are stored without outputs (cells unexecuted), so a diff shows only what a person
wrote. Execution happens in memory with the notebook's folder as working directory; the file
on disk is never rewritten. Inputs come from environment variables that each notebook names
(TPLAB_BIN, TPLAB_PLACEMENTS_DIR, TPLAB_SCALING_JSON). Exit codes: 0 pass, 1 a notebook
failed or holds outputs, 2 bad usage.
"""
import argparse
import pathlib
import re
import sys

import nbformat


def stored_outputs(path):
    # The cells of the notebook at `path` that hold outputs or an execution count.
    nb = nbformat.read(path, as_version=4)
    return [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code" and (
        cell.get("outputs") or cell.get("execution_count") is not None)]


def check_clean(folder):
    notebooks = sorted(pathlib.Path(folder).glob("*.ipynb"))
    if not notebooks:
        print(f"{folder}: no notebooks")
        return 1
    dirty = {str(p): stored_outputs(p) for p in notebooks}
    dirty = {p: cells for p, cells in dirty.items() if cells}
    for path, cells in dirty.items():
        print(f"{path}: cells {cells} hold outputs; clear them before committing "
              f"(python3 {sys.argv[0]} --clear {path})")
    if not dirty:
        print(f"ok: {len(notebooks)} notebooks stored without outputs")
    return 1 if dirty else 0


def clear(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    nbformat.write(nb, path)
    print(f"cleared {path}")
    return 0


def execute(path, timeout):
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = pathlib.Path(path).resolve()
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"{path.name}: a cell failed\n" + re.sub(r"\x1b\[[0-9;]*m", "", str(e)))
        return 1
    code_cells = sum(1 for c in nb.cells if c.cell_type == "code")
    print(f"ok: {path.name}: {code_cells} code cells ran top to bottom")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebooks to execute")
    parser.add_argument("--check-clean", metavar="DIR", help="check DIR's notebooks hold no outputs")
    parser.add_argument("--clear", action="store_true", help="remove the notebooks' outputs")
    parser.add_argument("--timeout", type=int, default=120, help="seconds per cell")
    args = parser.parse_args()
    if bool(args.notebooks) == bool(args.check_clean):
        parser.error("give notebooks to execute, or --check-clean DIR")
    if args.check_clean:
        return check_clean(args.check_clean)
    if args.clear:
        return max(clear(path) for path in args.notebooks)
    code = 0
    for path in args.notebooks:
        if stored_outputs(path):
            print(f"{path}: stored with outputs; clear them before committing (--clear)")
            code = 1
        code = max(code, execute(path, args.timeout))
    return code


if __name__ == "__main__":
    sys.exit(main())
