"""Where the grader writes: an output folder it made itself, files it opens itself.

The grader runs as root and its workers run student code, so nothing a worker can
reach may decide where a report lands. :func:`open_outbox` creates ``--out`` before
any worker starts (or, when asked, reuses one that only its owner can write), keeps a
file descriptor on it, and every later write goes through that descriptor:

- folders are made with ``mkdir(dir_fd=...)`` and entered with ``O_NOFOLLOW``, so a
  symbolic link planted in place of a student's folder is refused, not followed;
- files are created with ``O_CREAT | O_EXCL | O_NOFOLLOW``: whatever sits at the name
  (a symbolic link, a FIFO, an old report) is removed first, so a write can neither
  land elsewhere nor block;
- text is written as UTF-8 with unencodable characters (a lone surrogate from a file
  name or an exception message) escaped, so no report is lost to one bad character.

>>> import tempfile, os
>>> root = tempfile.mkdtemp()
>>> box = open_outbox(os.path.join(root, "out"))
>>> box.write("results.json", "{}")
>>> sorted(os.listdir(os.path.join(root, "out")))
['results.json']
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["Outbox", "OutboxError", "open_outbox", "safe_text"]


class OutboxError(ValueError):
    """The output folder cannot be used (the instructor's mistake: a clear message)."""


def safe_text(text: object) -> str:
    """``text`` as a string that encodes as UTF-8: lone surrogates (file names that are
    not UTF-8, exception messages) become ``\\udcxx`` escapes.

    >>> safe_text("caf\\udce9")
    'caf\\\\udce9'
    """
    return str(text).encode("utf-8", "backslashreplace").decode("utf-8")


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class Outbox:
    """An open output folder; :meth:`write` and :meth:`folder` never follow links."""

    def __init__(self, path: Path, fd: int):
        self.path = Path(path)
        self._fd = fd

    def folder(self, name: str) -> Outbox:
        """The sub-folder ``name`` (one path component), made here if missing."""
        _one_component(name)
        try:
            os.mkdir(name, 0o755, dir_fd=self._fd)
        except FileExistsError:
            pass
        try:
            fd = os.open(name, _DIR_FLAGS, dir_fd=self._fd)
        except OSError:  # a link or a file where a folder should be
            _remove(name, self._fd)
            os.mkdir(name, 0o755, dir_fd=self._fd)
            fd = os.open(name, _DIR_FLAGS, dir_fd=self._fd)
        return Outbox(self.path / name, fd)

    def write(self, name: str, text: str) -> None:
        """Create file ``name`` (one path component) holding ``text``; whatever was at
        that name before is removed, never followed or opened."""
        _one_component(name)
        data = str(text).encode("utf-8", "backslashreplace")
        _remove(name, self._fd)
        fd = os.open(name, _FILE_FLAGS, 0o644, dir_fd=self._fd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> Outbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _one_component(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise OutboxError(f"not a plain file or folder name: {name!r}")


def _remove(name: str, dir_fd: int) -> None:
    """Remove whatever is at ``name`` (a file, link, FIFO or a whole folder)."""
    try:
        st = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        fd = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        try:
            for entry in os.listdir(fd):
                _remove(entry, fd)
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=dir_fd)
    else:
        os.unlink(name, dir_fd=dir_fd)


def open_outbox(path: Path | str, *, overwrite: bool = False) -> Outbox:
    """Create the output folder ``path`` and open it for the grader's writes.

    A folder that already exists is refused when it holds anything, unless
    ``overwrite``; it is refused in every case when it is a symbolic link or is not
    owned by this user (a worker could have made it). Writes stay safe in a folder
    others can write to (Gradescope's ``/autograder/results``): nothing is followed.
    Raises :class:`OutboxError` with what to do instead.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.mkdir(path, 0o755)
        made = True
    except FileExistsError:
        made = False
    except OSError as err:
        raise OutboxError(f"cannot create the output folder {path}: {err}") from err
    try:
        fd = os.open(path, _DIR_FLAGS)
    except OSError as err:
        raise OutboxError(
            f"the output folder {path} is not a folder (or is a symbolic link); "
            "choose another --out"
        ) from err
    st = os.fstat(fd)
    problem = None
    if st.st_uid != os.geteuid():
        problem = f"is owned by uid {st.st_uid}, not by the grader (uid {os.geteuid()})"
    elif not made and os.listdir(fd) and not overwrite:
        problem = "exists and is not empty (pass --overwrite to replace its reports)"
    if problem:
        os.close(fd)
        raise OutboxError(f"the output folder {path} {problem}; choose another --out")
    return Outbox(path, fd)
