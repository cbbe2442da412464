"""How the workbench starts JupyterLab and Voila: one list of options for run.sh and tests.

``python -m workbench lab`` (what ``bash run.sh lab`` runs) and ``python -m workbench app``
(``bash run.sh app``) use these options; the browser tests start their servers with the
same lists, so what is tested is what a user gets.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
INDEX = "00_index.ipynb"

# saves (autosave included) never write outputs or widget state: git status stays clean
LAB_OPTIONS = [
    "--FileContentsManager.pre_save_hook=workbench.notebook_hooks.strip_outputs",
]
# a kernel left idle (its tab closed) is shut down after 15 minutes, checked every 30 s.
# Not less: while Voila executes the notebook before the page shows, the kernel has no
# connection and its activity is not seen, so a long first run (a claims table or an atlas
# on a cold cache: minutes on 2 cores) would be culled mid-execution (seen at 120 s)
CULL_IDLE_SECONDS = 900
VOILA_OPTIONS = [
    f"--MappingKernelManager.cull_idle_timeout={CULL_IDLE_SECONDS}",
    "--MappingKernelManager.cull_interval=30",
]


def _exe(name: str) -> str:
    here = Path(sys.executable).parent / name
    return str(here) if here.exists() else (shutil.which(name) or name)


def lab_command(extra: list[str]) -> list[str]:
    root = ["--allow-root"] if hasattr(os, "getuid") and os.getuid() == 0 else []
    return [
        _exe("jupyter"),
        "lab",
        *root,
        f"--ServerApp.root_dir={NOTEBOOKS}",
        f"--LabApp.default_url=/lab/tree/{INDEX}",
        *LAB_OPTIONS,
        *extra,
    ]


def app_command(notebook: str | None, extra: list[str]) -> list[str]:
    target = NOTEBOOKS if notebook is None else NOTEBOOKS / Path(notebook).name
    if not target.exists():
        raise SystemExit(f"no notebook {target.name} in {NOTEBOOKS}")
    return [_exe("voila"), str(target), "--Voila.ip=127.0.0.1", *VOILA_OPTIONS, *extra]
