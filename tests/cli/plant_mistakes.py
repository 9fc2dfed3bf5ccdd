#!/usr/bin/env python3
"""plant_mistakes.py SOURCE TARGET [OLD NEW ...]: writes SOURCE to TARGET with each OLD replaced
by NEW, each OLD occurring exactly once in SOURCE: a lesson's solution with a student's mistakes
planted in it, as that student's exercise. Exits 1, naming the OLD, when one is not there once
(the solution changed under the test)."""
import os
import sys


def main():
    source, target, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
    if len(edits) % 2:
        sys.exit("plant_mistakes.py: give OLD NEW pairs")
    text = open(source).read()
    for old, new in zip(edits[::2], edits[1::2]):
        if text.count(old) != 1:
            sys.exit(f"'{old}' is not once in {source} (solution.cpp changed?)")
        text = text.replace(old, new)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    open(target, "w").write(text)


if __name__ == "__main__":
    main()
