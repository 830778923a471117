"""Builds the prebuilt (federated) extension into ../minipaddle/labextension.

Like `jupyter labextension build .`, but against the core metadata of the JupyterLab installed in
this Python environment (jupyterlab/staging/package.json), so the build needs no extra npm package
(@jupyterlab/core-meta) and shares exactly the singletons of the JupyterLab that will load it.
Usage: python build_labextension.py [--development]
"""
import sys
from pathlib import Path

import jupyterlab
from jupyter_builder.federated_extensions import build_labextension

if __name__ == "__main__":
    staging = Path(jupyterlab.__file__).resolve().parent / "staging"
    build_labextension(Path(__file__).resolve().parent, development="--development" in sys.argv,
                       core_package_file=str(staging / "package.json"))
