#!/usr/bin/env python3
"""Holds `./tplab help` to the commands themselves, so that it cannot drift from them.

    check_help.py TPLAB_PROGRAM LAUNCHER

Reads the program's command tree from its own --help (every command and subcommand, and the
options each declares), and the launcher's `help` text, then fails (exit 1), naming each
difference, when:
  - a command of the program has no entry in `./tplab help`, or more than one (a subcommand of
    lesson is named in lesson's entry);
  - an option a command declares is named nowhere in `./tplab help`;
  - an entry names an option its command does not take;
  - a command of the launcher's own (report, test, ...) in the text is not one it runs.
"""
import re
import subprocess
import sys

LAUNCHER_ONLY = {"report", "test", "build", "gpu-check", "gpu-bundle", "help"}
# Commands whose subcommands share their entry: `lesson list | next | show N ...`.
SHARED_ENTRY = {"lesson"}


def run(args):
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done.stdout


def sections(text):
    """The lines of each titled section of a CLI11 help text ("Options:", "Subcommands:")."""
    found, title = {}, None
    for line in text.splitlines():
        heading = re.match(r"^([A-Z][A-Za-z ]*):\s*$", line)
        if heading:
            title = heading.group(1)
            found[title] = []
        elif title is not None and line.startswith("  "):
            found[title].append(line)
    return found


def command_tree(program, path=()):
    """{path: set of long options} for every command under `path`, read from --help."""
    found = sections(run([program, *path, "--help"]))
    options = set()
    for line in found.get("Options", []):
        options.update(re.findall(r"--[a-z][a-z0-9-]*", line.split()[0]))
    options.discard("--help")
    tree = {path: options} if path else {}
    for line in found.get("Subcommands", []):
        # "  name   its description"; a description's own further lines are not names
        named = re.match(r"^  ([a-z][a-z0-9-]*)(\s{2,}|$)", line)
        if named:
            tree.update(command_tree(program, (*path, named.group(1))))
    return tree


def usage_entries(text):
    """(head line, the entry's text) of each command in the usage's list, which runs from its
    first line to the next line that is not indented: each entry starts with two spaces and a
    lower-case word and runs to the next one (or a blank line)."""
    entries, head, body = [], None, []
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if re.match(r"^  [a-z]", line))
    last = next((i for i in range(first, len(lines)) if lines[i] and not lines[i].startswith(" ")),
                len(lines))
    for line in lines[first:last]:
        if re.match(r"^  [a-z]", line):
            if head:
                entries.append((head, "\n".join(body)))
            head, body = line.strip(), [line]
        elif line.strip() == "" or not line.startswith(" "):
            if head:
                entries.append((head, "\n".join(body)))
            head, body = None, []
        elif head:
            body.append(line)
    if head:
        entries.append((head, "\n".join(body)))
    return entries


def option_words(text):
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    program, launcher = sys.argv[1], sys.argv[2]
    usage = run([launcher, "help"])
    tree = command_tree(program)
    entries = usage_entries(usage)
    problems = []

    def entries_of(path):
        words = " ".join(path)
        if path[0] in SHARED_ENTRY and len(path) > 1:
            return [e for e in entries if e[0].startswith(path[0] + " ") and
                    re.search(rf"(^|[ |]){re.escape(path[1])}( |$)", e[0] + " " + e[1])]
        return [e for e in entries
                if e[0] == words or e[0].startswith(words + " ")
                and not any(e[0].startswith(" ".join(other) + " ") or e[0] == " ".join(other)
                            for other in tree if len(other) > len(path) and other[:len(path)] == path)]

    for path, options in sorted(tree.items()):
        has_children = any(len(p) > len(path) and p[:len(path)] == path for p in tree)
        if has_children and not options and path[0] not in SHARED_ENTRY:
            continue  # a group of subcommands (bench): its subcommands have the entries
        if path == ("lesson",):
            continue
        found = entries_of(path)
        if len(found) != 1:
            problems.append(f"'{' '.join(path)}' has {len(found)} entries in ./tplab help, not 1")
            continue
        named = option_words(found[0][1])
        taken = set(options)
        if path[0] in SHARED_ENTRY:
            for other, other_options in tree.items():
                if other[0] == path[0]:
                    taken |= other_options
        for option in sorted(named - taken):
            problems.append(f"./tplab help names {option} under '{' '.join(path)}', which takes no such option")
    everywhere = option_words(usage)
    for path, options in sorted(tree.items()):
        for option in sorted(options - everywhere):
            problems.append(f"'{' '.join(path)}' takes {option}, which ./tplab help names nowhere")
    program_commands = {p[0] for p in tree}
    launcher_text = open(launcher).read()
    for head, _ in entries:
        word = head.split()[0]
        if word in program_commands:
            continue
        if word not in LAUNCHER_ONLY:
            problems.append(f"./tplab help lists '{word}', which is neither a command of the program nor the launcher's")
        elif not (re.search(rf"^\s+([\w -]*\| *)?{re.escape(word)}( *\|[^)]*)?\)", launcher_text, re.M)
                  or f'"$command" == {word} ' in launcher_text):
            problems.append(f"./tplab help lists '{word}', which the launcher does not run")
    for problem in problems:
        print("FAIL:", problem)
    if problems:
        sys.exit(1)
    print(f"./tplab help names each of the program's {len(tree)} commands once and every option "
          f"they take ({sum(len(o) for o in tree.values())} in all), and no option they do not")


if __name__ == "__main__":
    main()
