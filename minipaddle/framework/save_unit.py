"""Writing the files of one save as a unit: temporary files first, then renames, the manifest last.

A saved model is often several files (a program and its parameters; parameters and optimizer
state). Rewriting them one after the other in place means a crash -- a full disk, a killed
process -- can leave the old program beside half of the new parameters. So every save here goes:

    with SaveUnit("jit.save") as unit:
        unit.add("out/m.pdiparams", write_params)   # written to out/.m.pdiparams.<random>.tmp, fsync'ed
        unit.add("out/m.json", write_program)       # the manifest: it lists the other files' digests
    # leaving the block renames each temporary file over its final name, in order, the manifest last

Until the first rename the old files are untouched (a crash while writing loses nothing); the
renames take microseconds, and if a crash falls between two of them the manifest -- still the old
one -- does not match the new file beside it, so loading refuses the pair instead of mixing them.
Each `write` function returns the digest the manifest records for its file.

A killed save leaves its temporary files behind; the next save of the same files removes them.
A temporary file's name carries the id of the process writing it (`.m.pdiparams.4242.k3j2x9q1.tmp`),
so a save removes only those whose writer is gone, never those of another save still under way.
"""
from __future__ import annotations

import os
import re
import tempfile
import threading
from typing import BinaryIO, Callable

__all__ = ["SaveUnit", "remove_stale_temps"]

_RANDOM = r"[A-Za-z0-9_]{8}"   # what tempfile.mkstemp puts between prefix and suffix
_IN_FLIGHT: set[str] = set()   # this process's temporary files of saves under way (any thread)
_LOCK = threading.Lock()


def _temp_prefix(path: str) -> str:
    return f".{os.path.basename(path)}.{os.getpid()}."


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return False          # this process's own: in flight or not is decided by _IN_FLIGHT
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:   # another user's live process
        return True
    return True


def remove_stale_temps(path: str) -> list[str]:
    """Remove the temporary files an interrupted save of `path` left beside it (their writer is gone);
    returns their paths."""
    directory = os.path.dirname(path) or "."
    pattern = re.compile(re.escape(f".{os.path.basename(path)}.") + r"(?:(\d+)\.)?" + _RANDOM + r"\.tmp$")
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        found = pattern.match(name)
        full = os.path.join(directory, name)
        with _LOCK:
            busy = full in _IN_FLIGHT
        if found and not busy and not (found.group(1) and _alive(int(found.group(1)))):
            try:
                os.unlink(full)
                removed.append(full)
            except OSError:
                pass
    return removed


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class SaveUnit:
    """The files of one save: `add` each (the manifest last), then leave the `with` block to commit."""

    def __init__(self, api: str) -> None:
        self.api = api
        self.pending: list[tuple[str, str]] = []   # (temporary path, final path), in commit order
        self.removals: list[str] = []             # old files the new save no longer has

    def add(self, path: str, write: Callable[[BinaryIO], str]) -> str:
        """Write a file of the unit through `write(f)` into a temporary file beside `path`; return the
        digest `write` returns (what a manifest lists for the file)."""
        directory = os.path.dirname(path) or "."
        os.makedirs(directory, exist_ok=True)
        remove_stale_temps(path)
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=directory)
        with _LOCK:
            _IN_FLIGHT.add(tmp)
        self.pending.append((tmp, path))
        with os.fdopen(fd, "wb") as f:
            digest = write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())   # mkstemp makes 0600 files; give the usual permissions
        return digest

    def remove(self, path: str) -> None:
        """Delete `path` (a file of the previous save this one does not write) when the unit commits,
        before any rename: a crash then leaves the old files without it, never the new ones with it."""
        self.removals.append(path)

    def commit(self) -> None:
        for path in self.removals:
            if os.path.exists(path):
                os.unlink(path)
        directories = set()
        for tmp, path in self.pending:
            os.replace(tmp, path)
            directories.add(os.path.dirname(path) or ".")
        self._forget()
        for directory in directories:   # make the renames themselves durable
            try:
                fd = os.open(directory, os.O_RDONLY)
            except OSError:
                continue
            try:
                os.fsync(fd)
            except OSError:
                pass
            finally:
                os.close(fd)

    def abort(self) -> None:
        for tmp, _ in self.pending:
            if os.path.exists(tmp):
                os.unlink(tmp)
        self._forget()

    def _forget(self) -> None:
        with _LOCK:
            _IN_FLIGHT.difference_update(tmp for tmp, _ in self.pending)
        self.pending = []

    def __enter__(self) -> "SaveUnit":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            try:
                self.commit()
            except BaseException:
                self.abort()
                raise
        else:
            self.abort()
