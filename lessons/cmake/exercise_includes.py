#!/usr/bin/env python3
"""Compiles an exercise, then refuses it when it included anything but what the lesson allows.

Used as the compiler launcher of an exercise's object (lessons/CMakeLists.txt):

    exercise_includes.py --source FILE --allowed DIR [--system DIR ...] -- COMPILER ARGS...

It runs the compiler, reads the dependency file the compiler wrote (-MF), and accepts the
object only when every file the compiler read is the exercise itself, a header under the
allowed folder (the links to the primitives, followed to what they point at), or a header of
a system folder (the standard library, fmt, nlohmann/json). Any other file, by any path
(relative, absolute, through a link), is refused: a lesson's solution.cpp, the reference's
sources, the library's sources, a copy of them elsewhere. It also refuses inline assembly in
the exercise's own lines, as the preprocessor leaves them (so that a macro cannot spell it):
a system call made there would escape the link fence (check_exercise_links.cmake), which
refuses the library functions an exercise may not call. The object is then removed, so the
refusal stands until the source changes.
"""
import argparse
import os
import re
import sys
import subprocess

ASSEMBLY = re.compile(r"\b(asm|__asm__|__asm)\b")
MARKER = re.compile(r'^# (\d+) "((?:[^"\\]|\\.)*)"')


def dependencies(depfile):
    """The files a make-style dependency file lists after its target."""
    with open(depfile, encoding="utf-8", errors="replace") as f:
        text = f.read().replace("\\\n", " ")
    files = []
    for rule in text.splitlines():
        if ":" not in rule:
            continue
        _, _, deps = rule.partition(": ")
        # Spaces in names are written "\ ".
        files += [d.replace("\0", " ") for d in deps.replace("\\ ", "\0").split()]
    return files


def assembly_lines(command, source):
    """The exercise's own lines, after preprocessing, that hold inline assembly."""
    skip = {"-c", "-MD", "-MMD"}
    with_value = {"-o", "-MT", "-MF", "-MQ"}
    preprocess, i = [], 0
    while i < len(command):
        if command[i] in with_value:
            i += 2
            continue
        if command[i] not in skip:
            preprocess.append(command[i])
        i += 1
    result = subprocess.run(preprocess + ["-E"], capture_output=True, text=True)
    if result.returncode != 0:
        return []
    real_source = os.path.realpath(source)
    mine, line, found = False, 0, []
    for text in result.stdout.splitlines():
        marker = MARKER.match(text)
        if marker:
            line = int(marker.group(1))
            mine = os.path.realpath(marker.group(2)) == real_source
            continue
        if mine and ASSEMBLY.search(text):
            found.append((line, text.strip()))
        line += 1
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source", required=True)
    parser.add_argument("--allowed", required=True)
    parser.add_argument("--system", action="append", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    status = subprocess.call(command)
    if status != 0:
        return status
    if "-MF" not in command or "-o" not in command:
        return 0  # nothing to check it by (not the build's own compile)
    depfile = command[command.index("-MF") + 1]
    obj = command[command.index("-o") + 1]

    allowed = {os.path.realpath(args.source)}
    for folder, _, names in os.walk(args.allowed, followlinks=True):
        allowed.update(os.path.realpath(os.path.join(folder, n)) for n in names)
    system = [os.path.realpath(d) + os.sep for d in args.system if d]
    refused = []
    for dep in dependencies(depfile):
        real = os.path.realpath(dep)
        if real in allowed or any(real.startswith(d) for d in system):
            continue
        refused.append((dep, real))
    name = os.path.basename(args.source)
    assembly = assembly_lines(command, args.source)
    for line, text in assembly:
        print(f"{name}:{line}: error: inline assembly, which an exercise may not use: {text}",
              file=sys.stderr)
    if not refused and not assembly:
        return 0
    os.remove(obj)
    for dep, real in refused:
        shown = dep if dep == real else f"{dep} (that is {real})"
        print(f"{name}: error: it includes {shown}, which an exercise may not use: it may "
              f"include only the headers the lesson allows (build/lessons/include/<lesson>/) "
              f"and the standard library", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
