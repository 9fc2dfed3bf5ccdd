#!/usr/bin/env python3
"""Every command-line option of the program is declared in one place.

    option_declarations.py SOURCE_DIR [--list]

Finds each declaration of an option in SOURCE_DIR/app (a call of CLI11's add_option, add_flag
or add_option_function, or of the options library's add_choice, add_choices and
add_named_option, whose first quoted argument is the option's name) and fails (exit 1) naming
every option declared in more than one place: an option's name, its values and its help are
written once (app/options/), and each command that takes it calls that declaration. --list
prints every option with its count and where it is declared.
"""
import collections
import pathlib
import re
import sys

DECLARATION = re.compile(
    r"\b(?:add_option|add_flag|add_option_function<[^>]*>|add_choice|add_choices|add_named_option)"
    r"\(\s*(?:[\w.*>-]+\s*,\s*)?\"(--[a-z0-9-]+)")


def declarations(root):
    found = collections.defaultdict(list)
    for path in sorted((root / "app").rglob("*")):
        if path.suffix not in (".cpp", ".hpp") or "tests" in path.parts:
            continue
        text = path.read_text()
        for match in DECLARATION.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found[match.group(1)].append(f"{path.relative_to(root)}:{line}")
    return found


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    found = declarations(pathlib.Path(sys.argv[1]))
    if len(sys.argv) == 3:
        for name, places in sorted(found.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print(f"{len(places):3} {name:22} {', '.join(places)}")
    repeated = {name: places for name, places in found.items() if len(places) > 1}
    for name, places in sorted(repeated.items()):
        print(f"FAIL: {name} is declared in {len(places)} places: {', '.join(places)}")
    if repeated:
        sys.exit(1)
    print(f"{len(found)} options, each declared in one place")


if __name__ == "__main__":
    main()
