"""Integrity of every save format: a sampled single-byte corruption sweep over every file of every
format (each damaged file is refused with a clear error naming it, or loads exactly as saved --
never loads changed), stray archive members, files of different saves paired, and edits that
recompute nothing. The formats and their fingerprints are in save_formats.py."""
from __future__ import annotations

import io
import json
import os
import warnings
import zipfile

import numpy as np
import pytest

import minipaddle as paddle
from minipaddle.framework.errors import MinipaddleError

from .save_formats import FORMATS, X, files_of, load_jit, load_model, make_model, save_jit_plain, save_model

POSITIONS_PER_FILE = 160


def _positions(size: int, rng) -> list[int]:
    """Every byte of the zip/JSON head and tail (headers, central directory, the JSON's closing keys)
    plus a random sample of the middle."""
    edges = set(range(min(size, 48))) | set(range(max(0, size - 96), size))
    middle = rng.choice(size, size=min(size, POSITIONS_PER_FILE), replace=False)
    return sorted(edges | {int(p) for p in middle})


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_single_byte_corruptions_are_refused_by_name_or_load_unchanged(fmt, tmp_path):
    save, load = FORMATS[fmt]
    prefix = save(str(tmp_path))
    expected = load(prefix)
    rng = np.random.default_rng(16)
    refused = unchanged = 0
    for path in files_of(str(tmp_path)):
        good = open(path, "rb").read()
        for pos in _positions(len(good), rng):
            bad = bytearray(good)
            bad[pos] ^= int(rng.integers(1, 256))
            with open(path, "wb") as f:
                f.write(bad)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = load(prefix)
            except MinipaddleError as err:
                assert os.path.basename(path) in str(err), f"{fmt}: byte {pos} of {path}: {err}"
                refused += 1
            else:
                assert got == expected, f"{fmt}: byte {pos} of {os.path.basename(path)} loads changed"
                unchanged += 1
        with open(path, "wb") as f:
            f.write(good)
    assert load(prefix) == expected
    assert refused > unchanged   # what loads unchanged is zip bookkeeping nothing reads (times, attributes)
