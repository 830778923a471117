"""`%paddle_profile` / `%%paddle_profile`: run code under paddle.profiler.Profiler and show the tables.

    %load_ext minipaddle
    %paddle_profile -s CPUAvg -n 10 train_step()

    %%paddle_profile --trace step.json -o
    for _ in range(3):
        train_step()

Options: `-s KEY` sorts the Operator table (a SortedKeys name: CPUTotal, CPUAvg, CPUMax, CPUMin; or total,
avg, max, min), `-n N` shows the N slowest operators, `--trace PATH` also writes the Chrome trace JSON
(open it in Perfetto), `-m` records memory (bytes of op outputs), `--shapes` input shapes, `-g` also records
the graph (a `paddle.debug.record(values="none")` around the run: the Graph tab is filled and a timeline
slice selects its node there; the recorder's own work then shows in the op times), `-o` returns the
ProfileResult instead of the code's value. The output is one MIME bundle: the summary tables as
script-free HTML, as text/plain for a terminal, and the trace document with its `profile` section for the
JupyterLab extension's profile view. The result is also kept in `_paddle_profile`.
"""
from __future__ import annotations

import contextlib

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class

__all__ = ["ProfileMagics", "load_ipython_extension", "profile_bundle"]

_SORT_ALIASES = {"total": "CPUTotal", "avg": "CPUAvg", "max": "CPUMax", "min": "CPUMin"}


def sort_key(text: str):
    """'CPUTotal' / 'cputotal' / 'total' -> SortedKeys.CPUTotal; anything else is a usage error."""
    from ..profiler import SortedKeys
    name = _SORT_ALIASES.get(text.lower(), text)
    for key in SortedKeys:
        if key.name.lower() == name.lower():
            return key
    names = ", ".join(k.name for k in SortedKeys)
    raise UsageError(f"%paddle_profile: -s {text!r} is not a sort key; expected one of {names} "
                     "(or total, avg, max, min).")


def profile_bundle(result, sorted_by=None, max_rows: int | None = None, recorder=None) -> dict:
    """The MIME bundle of a ProfileResult: text/plain and text/html tables, and the trace document
    (with the recorder's graph when one recorded the same run)."""
    from ..profiler import SortedKeys
    from .display import MIME_TYPE
    options = {"sorted_by": sorted_by or SortedKeys.CPUTotal, "max_rows": max_rows}
    return {"text/plain": result.summary_text(**options), "text/html": result.summary_html(**options),
            MIME_TYPE: result.trace_document(recorder)}


@magics_class
class ProfileMagics(Magics):
    """`%paddle_profile STATEMENT` and `%%paddle_profile` (options on the magic line)."""

    @line_cell_magic
    def paddle_profile(self, line: str, cell: str | None = None):
        """Run a statement (or the cell) under the profiler; display its summary tables and timeline."""
        opts, statement = self.parse_options(line, "os:n:mg", "trace=", "shapes", "graph", posix=False, strict=False)
        code = cell if cell is not None else statement
        if not code.strip():
            raise UsageError("%paddle_profile: nothing to run; give a statement (`%paddle_profile f()`) "
                             "or put code below `%%paddle_profile`.")
        if cell is not None and statement.strip():
            raise UsageError(f"%%paddle_profile: unexpected {statement.strip()!r} on the magic line; "
                             "options are -s KEY, -n N, --trace PATH, -m, --shapes, -g, -o.")
        key = sort_key(opts["s"]) if "s" in opts else None
        rows = None
        if "n" in opts:
            try:
                rows = int(opts["n"])
            except ValueError:
                rows = 0
            if rows < 1:
                raise UsageError(f"%paddle_profile: -n {opts['n']!r} must be an integer >= 1.")
        from ..profiler import Profiler
        from .magics import run_cell_code
        prof = Profiler(with_flops=True, profile_memory="m" in opts, record_shapes="shapes" in opts)
        recorder = None
        if "g" in opts or "graph" in opts:
            from ..debug import record
            recorder = record(values="none")
        try:
            with recorder or contextlib.nullcontext(), prof:
                value = run_cell_code(self.shell, code)
        except Exception:  # the code failed: show what ran up to the error, then let the error show
            if prof.result is not None:
                self._show(prof.result, key, rows, None, False, None, recorder)
            raise
        return self._show(prof.result, key, rows, opts.get("trace"), "o" in opts, value, recorder)

    def _show(self, result, key, rows, trace_path, return_result: bool, value, recorder=None):
        from IPython.display import display
        self.shell.user_ns["_paddle_profile"] = result
        if trace_path:
            path = result.export(trace_path)
            print(f"Chrome trace written to {path} (open it in https://ui.perfetto.dev or chrome://tracing)")
        display(profile_bundle(result, key, rows, recorder), raw=True)
        return result if return_result else value


def load_ipython_extension(ipython) -> None:
    """Register `%paddle_profile` (minipaddle's `%load_ext minipaddle` does this)."""
    ipython.register_magics(ProfileMagics)
