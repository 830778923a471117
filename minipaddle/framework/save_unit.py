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
"""
from __future__ import annotations

import os
import re
import tempfile
from typing import BinaryIO, Callable

__all__ = ["SaveUnit", "remove_stale_temps"]

_RANDOM = r"[A-Za-z0-9_]{8}"   # what tempfile.mkstemp puts between prefix and suffix


def _temp_prefix(path: str) -> str:
    return f".{os.path.basename(path)}."


def remove_stale_temps(path: str) -> list[str]:
    """Remove the temporary files an interrupted save of `path` left beside it; returns their paths."""
    directory = os.path.dirname(path) or "."
    pattern = re.compile(re.escape(_temp_prefix(path)) + _RANDOM + r"\.tmp$")
    removed = []
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        if pattern.match(name):
            try:
                os.unlink(os.path.join(directory, name))
                removed.append(os.path.join(directory, name))
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
        self.pending = []
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
