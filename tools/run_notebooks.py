"""Run the tutorial notebooks headless, as a learner's JupyterLab would, and keep what they printed.

    python tools/run_notebooks.py tutorials --out demo_out

Each notebook runs top to bottom in a fresh `python3` kernel of this interpreter's environment,
with the notebook's own folder as working directory. The executed copy (`NAME.ipynb`), a plain
transcript of code and text outputs (`NAME.md`) and any images go to the output folder.
`make demo` uses this; tests/test_notebooks.py uses `run_notebook`.
"""
from __future__ import annotations

import argparse
import base64
import os
import re
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from traitlets.config import Config

REPO_ROOT = Path(__file__).resolve().parent.parent
CELL_TIMEOUT_S = 300
ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


def kernel_env() -> dict[str, str]:
    """The kernel's environment: this checkout's minipaddle comes first on the import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH")) if p)
    return env


def execute(nb: nbformat.NotebookNode, folder: Path, timeout: int = CELL_TIMEOUT_S) -> None:
    """Run `nb` in place with `folder` as working directory; cells up to a failing one keep their outputs.

    Raises nbclient's CellExecutionError (its message holds the cell's traceback) when a cell raises.
    """
    # "python3" resolves to the kernel of the interpreter running this: jupyter_client finds the
    # ipykernel spec installed in sys.prefix and replaces its "python" with sys.executable.
    # The kernel talks over local IPC sockets (in a temporary folder), never over TCP ports.
    with tempfile.TemporaryDirectory(prefix="minipaddle-kernel-") as sockets:
        ipc = Config({"KernelManager": {"transport": "ipc", "ip": os.path.join(sockets, "kernel")}})
        client = NotebookClient(nb, config=ipc, timeout=timeout, kernel_name="python3", coalesce_streams=True,
                                resources={"metadata": {"path": str(folder)}})
        client.execute(env=kernel_env())


def run_notebook(path: str | os.PathLike, timeout: int = CELL_TIMEOUT_S) -> nbformat.NotebookNode:
    """Read and execute a notebook file; return it with outputs."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    execute(nb, path.parent, timeout)
    return nb


def error_text(exc: CellExecutionError) -> str:
    """The failing cell and its traceback, without the terminal colour codes IPython adds."""
    return ANSI_COLOUR.sub("", str(exc))


def transcript(nb: nbformat.NotebookNode, name: str, out_dir: Path) -> str:
    """Markdown text of a run: every code cell with its text outputs; images saved beside it."""
    lines = [f"# {name} (executed)\n"]
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        lines += [f"## In [{cell.get('execution_count') or ' '}]", "```python", cell.source, "```"]
        for j, output in enumerate(cell.get("outputs", [])):
            lines += _output_text(output, f"{name}_cell{i}_{j}", out_dir)
    return "\n".join(lines) + "\n"


def _output_text(output: dict, stem: str, out_dir: Path) -> list[str]:
    if output["output_type"] == "stream":
        return ["```", output["text"].rstrip(), "```"]
    if output["output_type"] == "error":
        return ["```", f"{output['ename']}: {output['evalue']}", "```"]
    data = output.get("data", {})
    if "image/png" in data:
        (out_dir / f"{stem}.png").write_bytes(base64.b64decode(data["image/png"]))
        return [f"![output]({stem}.png)"]
    if "image/svg+xml" in data:
        (out_dir / f"{stem}.svg").write_text(data["image/svg+xml"])
        return [f"![output]({stem}.svg)"]
    if "text/plain" in data:
        return ["```", data["text/plain"].rstrip(), "```"]
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(REPO_ROOT / "tutorials"))
    parser.add_argument("--out", default=str(REPO_ROOT / "demo_out"), help="where executed copies go")
    args = parser.parse_args(argv)

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    notebooks = sorted(Path(args.folder).glob("*.ipynb"))
    if not notebooks:
        print(f"no notebooks in {args.folder}")
        return 1
    failed = []
    for path in notebooks:
        start = time.perf_counter()
        nb = nbformat.read(path, as_version=4)
        try:
            execute(nb, path.parent)
            status = "ok"
        except CellExecutionError as exc:
            # keep going, so one broken notebook doesn't hide the others; its partial run is still written
            status = "FAILED"
            failed.append((path.name, error_text(exc)))
        print(f"{status:6} {path.name}  ({time.perf_counter() - start:.1f} s)")
        nbformat.write(nb, out_dir / path.name)
        (out_dir / f"{path.stem}.md").write_text(transcript(nb, path.stem, out_dir))
    for name, error in failed:
        print(f"\n=== {name} ===\n{error}", file=sys.stderr)
    print(f"executed copies and transcripts in {out_dir}/")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
