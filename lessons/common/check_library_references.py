#!/usr/bin/env python3
"""Checks that the lessons point at the library code they say they do.

    lessons/common/check_library_references.py SOURCE_DIR

A lesson cites the library's version of a step as a file and the name defined there, with no
line number, so that the citation survives edits above the code it names:

    // The library's version: parallel/tp1d/mlp_1d.cpp, Mlp1D::backward, with ...
    // parallel/layers/layernorm.cpp, LayerNorm::forward and LayerNorm::backward.

The name is a function (Mlp1D::backward for a member, bus_factor for a free function) or a
class (OperatorF). Citations are read from the // comments of every lesson's C++ files and from
its README.md and lesson.json. For each one the file must exist and must define the name, as
cpp_definitions.py reads it: a body, not a declaration and not a mention in a comment or a
string. A member declared in a header and defined in a .cpp is cited by the .cpp. Every library
file the lessons name must exist, and no citation may carry a line number. Run by CTest, so that
moving or renaming library code without updating the lessons fails a test. Prints one line per
reference it could not confirm; exits 1 if there is one.
"""
import pathlib
import re
import sys

from cpp_definitions import read_definitions

LIBRARY_DIRS = ("parallel", "verify", "reference", "model", "bench")
SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh")
PATH = rf"\b((?:{'|'.join(LIBRARY_DIRS)})/[\w/]+\.(?:cpp|hpp|cuh|cu))\b"
# A name ends where no identifier, qualifier, folder or file extension goes on.
NAME = r"~?[A-Za-z_]\w*(?:::~?[A-Za-z_]\w*)*(?![\w:/]|\.\w)"
CITATION = re.compile(rf"{PATH},\s+({NAME}(?:\s+and\s+{NAME})*)")
LINE_NUMBER = re.compile(r"\(lines? \d+|\bat lines? \d+|, lines? \d+")


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


def lesson_texts(root):
    """(lesson file, text) for each piece of a lesson that may cite library code: each comment
    block of its C++ files, and the whole of its README.md and lesson.json (backticks dropped)."""
    for lesson in sorted(root.glob("lessons/[0-9][0-9]-*")):
        for source in sorted(lesson.glob("*.[ch]pp")):
            for block in comment_blocks(source.read_text()):
                yield source, block
        for name in ("README.md", "lesson.json"):
            if (lesson / name).is_file():
                yield lesson / name, (lesson / name).read_text().replace("`", "")


def citations(text):
    """(path, name) for each name that text cites in a file: "PATH, NAME" or
    "PATH, NAME and NAME"."""
    for match in CITATION.finditer(text):
        for name in re.split(r"\s+and\s+", match.group(2)):
            yield match.group(1), name


class Library:
    """The library's files under root, each read once."""

    def __init__(self, root):
        self.root = root
        self._definitions = {}

    def definitions(self, path):
        if path not in self._definitions:
            self._definitions[path] = read_definitions((self.root / path).read_text())
        return self._definitions[path]

    def files_defining(self, parts):
        """Every library file that defines the name parts."""
        return [path for path in self._library_files() if self.definitions(path).defines(parts)]

    def _library_files(self):
        for top in LIBRARY_DIRS:
            for file in sorted((self.root / top).rglob("*")):
                if file.suffix in SUFFIXES and file.is_file():
                    yield file.relative_to(self.root).as_posix()


def grep_hint(path, parts):
    """A command that finds where the name parts are written."""
    top = path.split("/")[0]
    if len(parts) == 1 and parts[0][:1].isupper():
        return f"grep -rnE '(class|struct) {parts[0]}\\b' {top}/"
    return f"grep -rn '{parts[-1]}(' {top}/"


def citation_problem(library, path, name):
    """Why the citation of name in path cannot be confirmed, or None if it can."""
    if not (library.root / path).is_file():
        return f"there is no {path}"
    parts = tuple(name.split("::"))
    found = library.definitions(path)
    if found.defines(parts):
        return None
    elsewhere = [p for p in library.files_defining(parts) if p != path]
    where = (f"; it is defined in {', '.join(elsewhere)}" if elsewhere else
             f"; is it defined in another file? {grep_hint(path, parts)}")
    if found.declares(parts):
        return f"{path} only declares {name}: cite the file that defines it{where}"
    members = sorted({"::".join(e.least_name()) for e in found.members_named(parts)})
    if members:
        return f"{path} defines no {name} of its own, but {', '.join(members)}: cite it so"
    return f"{path} defines no {name} (outside comments and strings){where}"


def check(root):
    """(problems, references checked) for the lessons under root."""
    library = Library(root)
    problems, checked = [], 0
    for file, text in lesson_texts(root):
        where = file.relative_to(root).as_posix()
        for match in LINE_NUMBER.finditer(text):
            checked += 1
            paths_before = [m.start() for m in re.finditer(PATH, text[:match.start()])]
            cited = text[paths_before[-1] if paths_before else 0:match.end()]
            problems.append(f"{where}: '{cited}' names a line; cite the file and the function "
                            "only, as in 'parallel/tp1d/mlp_1d.cpp, Mlp1D::backward'")
        for path in sorted(set(re.findall(PATH, text))):
            checked += 1
            if not (root / path).is_file():
                problems.append(f"{where}: there is no {path}")
        for path, name in citations(text):
            checked += 1
            problem = citation_problem(library, path, name) if (root / path).is_file() else None
            if problem:
                problems.append(f"{where}: {path}, {name}: {problem}")
    return problems, checked


def main():
    problems, checked = check(pathlib.Path(sys.argv[1]))
    for p in problems:
        print(p)
    print(f"{checked - len(problems)} of {checked} references to library code confirmed "
          "(files named and functions cited by the lessons)")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
