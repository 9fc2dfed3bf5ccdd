"""Checks what `tplab report` wrote: report.md, and every plot it links as a real PNG file;
oversubscribed runs in the inputs must be marked in the report's tables.

usage: check_report.py DIR INPUT.json...
"""
import json
import os
import re
import sys

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def main():
    out = sys.argv[1]
    report = open(os.path.join(out, "report.md")).read()
    linked = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", report)
    assert len(linked) >= 2, f"report links {linked}"
    for name in linked:
        with open(os.path.join(out, name), "rb") as f:
            assert f.read(8) == PNG_MAGIC, f"{name} is not a PNG"
    records = []
    for path in sys.argv[2:]:
        data = json.load(open(path))
        records += data.get("runs", []) + data.get("rows", [])
    table_rows = [line for line in report.splitlines() if line.startswith("| ")]
    marked = sum("oversubscribed" in line for line in table_rows)
    if any(r.get("oversubscribed") for r in records):
        assert marked > 0, "the inputs hold oversubscribed runs, but no table row is marked"
    print(f"ok: report.md links {len(linked)} PNG files, {marked} rows marked oversubscribed")


if __name__ == "__main__":
    main()
