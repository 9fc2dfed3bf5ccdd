#!/usr/bin/env python3
"""Checks that the lessons' solutions point at the library code they say they do.

    lessons/common/check_library_references.py SOURCE_DIR

A solution names the library's version of each step in a comment, as a file and a function
with its line: "parallel/tp1d/mlp_1d.cpp, Mlp1D::forward (line 13)" or "apply at line 18". For
each such reference the file must exist and the function's name must be written within two
lines of the one named. Every library file a lesson's README.md names must exist. Run by CTest, so that moving library code without updating the lessons
fails a test. Prints one line per reference it could not confirm; exits 1 if there is one.
"""
import pathlib
import re
import sys

PATH = re.compile(r"\b((?:parallel|verify|reference|model|bench)/[\w/]+\.(?:cpp|hpp|cu))\b")
NAMED_LINE = re.compile(r"\b([A-Za-z_][\w:]*)\s*\(line (\d+)|\b([A-Za-z_][\w:]*) at line (\d+)")


def comment_blocks(source):
    """The text of each run of consecutive // comment lines, joined by spaces."""
    block = []
    for line in source.splitlines():
        text = line.strip()
        if text.startswith("//"):
            block.append(text[2:].strip())
        elif block:
            yield " ".join(block)
            block = []
    if block:
        yield " ".join(block)


def references(text):
    """(path, name, line) for each name with a line, under the path mentioned last before it."""
    events = [(m.start(), "path", m.group(1)) for m in PATH.finditer(text)]
    for m in NAMED_LINE.finditer(text):
        name, line = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        events.append((m.start(), "name", (name, int(line))))
    path = None
    for _, kind, value in sorted(events, key=lambda e: e[0]):
        if kind == "path":
            path = value
        elif path is not None:
            yield path, value[0], value[1]


def main():
    root = pathlib.Path(sys.argv[1])
    problems, checked = [], 0
    for solution in sorted(root.glob("lessons/[0-9][0-9]-*/solution.cpp")):
        for block in comment_blocks(solution.read_text()):
            for path, name, line in references(block):
                checked += 1
                where = f"{solution.relative_to(root)}: {path}, {name} (line {line})"
                target = root / path
                if not target.is_file():
                    problems.append(f"{where}: there is no {path}")
                    continue
                lines = target.read_text().splitlines()
                short = name.split("::")[-1]
                near = lines[max(0, line - 3):line + 2]
                if not any(re.search(rf"\b{re.escape(short)}\b", text) for text in near):
                    problems.append(f"{where}: '{short}' is not within two lines of line {line}")
    for readme in sorted(root.glob("lessons/[0-9][0-9]-*/README.md")):
        for path in sorted(set(PATH.findall(readme.read_text()))):
            checked += 1
            if not (root / path).is_file():
                problems.append(f"{readme.relative_to(root)}: there is no {path}")
    for p in problems:
        print(p)
    print(f"{checked - len(problems)} of {checked} references to library code confirmed (solutions and READMEs)")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
