"""Where numba keeps compiled kernels, so a read-only install still runs.

Kernels are `@njit(cache=True)`: numba writes each compiled kernel next to its source (`__pycache__`),
or else under the user's cache directory (~/.cache/numba), and reuses it in the next process. When
neither is writable -- minipaddle installed read-only for a user whose HOME is not writable (a
container, a shared server) -- numba refuses to define any cached kernel: `RuntimeError: cannot cache
function ...: no locator available`, and no numba op runs at all. `configure()` runs before any kernel
module imports numba and, only in that case, points numba at a private directory under the system's
temporary directory (`NUMBA_CACHE_DIR`); when even that is impossible it turns caching off (every
process compiles again). Either way it says so in one warning.

The temporary directory is created for this user alone (mode 0700) and used only if it is a real
directory this user owns that nobody else can write: numba's cache files are pickles, so a directory
another user could fill would let them run code in this process.

minipaddle's own cache folders (fused kernels' source files, the autotuner's decisions) are found by
`minipaddle_cache_dir`: an environment variable, else the XDG cache directory.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
import warnings
from pathlib import Path

_KERNEL_CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cpu", "__pycache__")

# What configure() decided: "default" (numba's own places work), "user" (NUMBA_CACHE_DIR was set),
# "temporary" (a private temporary directory) or "off" (no cache anywhere).
status = "unconfigured"


def minipaddle_cache_dir(name: str, env_var: str) -> Path:
    """`$env_var` if set, else `$XDG_CACHE_HOME/minipaddle/<name>`, else `~/.cache/minipaddle/<name>`."""
    env = os.environ.get(env_var)
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "minipaddle" / name


def _writable(path: str) -> bool:
    """True if numba could create `path` and write a file in it (as numba's locators test it)."""
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return False
    return True


def _user_cache_dir() -> str:
    """numba's per-user cache directory (numba.misc.appdirs' answer, without importing numba)."""
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/numba")
    if sys.platform.startswith("win"):
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
        return os.path.join(base, "numba", "Cache")
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "numba")


def _private_temp_dir() -> str | None:
    """A directory under the system's temporary directory that only this user can write, or None."""
    user = os.getuid() if hasattr(os, "getuid") else os.getlogin()
    path = os.path.join(tempfile.gettempdir(), f"minipaddle-numba-cache-{user}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):  # a symlink or a file planted under our name
        return None
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        return None
    return path if _writable(path) else None


def _use_cache_dir(path: str) -> None:
    os.environ["NUMBA_CACHE_DIR"] = path
    numba = sys.modules.get("numba")
    if numba is not None:  # numba read its config already: tell it directly too
        numba.config.CACHE_DIR = path


def _turn_caching_off() -> None:
    """Make `cache=True` a no-op: every dispatcher keeps numba's NullCache (compile in each process)."""
    from numba.core import ccallback, dispatcher
    from numba.np.ufunc import ufuncbuilder

    def enable_caching(self) -> None:
        pass

    for cls in (dispatcher.Dispatcher, ufuncbuilder.UFuncDispatcher, ccallback.CFunc):
        cls.enable_caching = enable_caching


def configure() -> str:
    """Make sure numba can define cached kernels; returns the `status` chosen. Runs once, at import."""
    global status
    if os.environ.get("NUMBA_CACHE_DIR"):
        status = "user"
    elif _writable(_KERNEL_CACHE) or _writable(_user_cache_dir()):
        status = "default"
    else:
        temp = _private_temp_dir()
        if temp is not None:
            _use_cache_dir(temp)
            status = "temporary"
            warnings.warn(f"minipaddle: numba cannot cache compiled kernels beside the installed package or in "
                          f"{_user_cache_dir()} (neither is writable); caching them in {temp}.",
                          RuntimeWarning, stacklevel=2)
        else:
            _turn_caching_off()
            status = "off"
            warnings.warn("minipaddle: numba cannot cache compiled kernels anywhere (the package, the user's "
                          "cache directory and the temporary directory are not writable); every process compiles "
                          "its kernels again. Set NUMBA_CACHE_DIR to a writable directory to keep them.",
                          RuntimeWarning, stacklevel=2)
    return status
