"""Files tplab's Python tools write on the user's behalf (`tplab report -o DIR`, the results
folder of `tplab gpu-check`), by the same rules as the C++ side (host/safe_output.hpp):

  - a folder written into belongs to the user or to root and, if every user may write into it,
    has the sticky bit (as /tmp has): nobody else can replace or redirect what is put there;
  - a symbolic link of another user on the way is refused;
  - each file is written whole into a new temporary file beside it (O_EXCL | O_NOFOLLOW), flushed
    to the disk and renamed over the target, which is never written through.

As a program: `python3 safe_output.py new-folder DIR` makes DIR, and any missing folder above it,
by these rules; DIR itself must be new. Exit 0 when made, 2 with the reason otherwise.
"""
import os
import pwd
import secrets
import stat
import sys


class UnsafeTarget(Exception):
    """A path tplab will not write to; the message says why and what would work."""


def _user(uid):
    try:
        return f"user {pwd.getpwuid(uid).pw_name}"
    except KeyError:
        return f"user id {uid}"


def _trusted_owner(uid):
    return uid in (os.geteuid(), 0)


def untrusted_reason(st):
    """Why another user could change what is written into a folder with status `st`, or ""."""
    if not _trusted_owner(st.st_uid):
        return f"it belongs to {_user(st.st_uid)}, who could replace or redirect what is written there"
    if st.st_mode & stat.S_IWOTH and not st.st_mode & stat.S_ISVTX:
        return ("every user may write into it and it has no sticky bit, so anyone could replace or "
                "redirect what is written there")
    return ""


def _planted_link_reason(folder):
    walked = "/"
    for part in os.path.abspath(folder).split(os.sep)[1:]:
        walked = os.path.join(walked, part)
        try:
            st = os.lstat(walked)
        except FileNotFoundError:
            return ""
        if stat.S_ISLNK(st.st_mode) and not _trusted_owner(st.st_uid):
            return (f"{walked} is a symbolic link that belongs to {_user(st.st_uid)}, who could "
                    "point it elsewhere")
    return ""


def require_trusted_folder(folder, what):
    """Refuses (UnsafeTarget naming `what`) a folder that is missing or others could change."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        raise UnsafeTarget(f"{what}: the folder {folder} does not exist")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeTarget(f"{what}: {folder} is not a folder")
    why = _planted_link_reason(folder) or untrusted_reason(st)
    if why:
        raise UnsafeTarget(f"{what}: tplab writes nothing into {folder}: {why}. Write into a "
                           "folder of your own instead")
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=True):
        raise UnsafeTarget(f"{what}: you cannot write into {folder}; write elsewhere")


def make_folder(path, what, new=False):
    """Makes the folder `path` and any missing folder above it, each inside a folder that passes
    require_trusted_folder, and checks the result the same way. With `new`, `path` must not exist
    yet: its contents are then the caller's alone."""
    path = os.path.abspath(path)
    parent = os.path.dirname(path)
    if not os.path.lexists(parent):
        make_folder(parent, what)
    require_trusted_folder(parent, what)
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        if new:
            raise UnsafeTarget(f"{what}: {path} exists already; tplab writes only into a new "
                               "folder of its own there")
    require_trusted_folder(path, what)


def write_file(path, data, what):
    """Writes the bytes `data` as the file `path`, whole (see the rules above)."""
    folder = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    require_trusted_folder(folder, what)
    if os.path.lexists(path) and not (os.path.islink(path) or os.path.isfile(path)):
        raise UnsafeTarget(f"{what}: {path} exists and only a plain file is replaced")
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except OSError as e:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise UnsafeTarget(f"{what}: writing {path} failed ({e.strerror}); nothing was written")


def main(argv):
    if len(argv) != 2 or argv[0] != "new-folder":
        print("usage: safe_output.py new-folder DIR", file=sys.stderr)
        return 2
    try:
        make_folder(argv[1], argv[1], new=True)
    except UnsafeTarget as e:
        print(f"tplab: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
