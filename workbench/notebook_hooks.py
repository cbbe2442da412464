"""Keep opening, running and closing a notebook from changing the repository.

``bash run.sh lab`` starts JupyterLab with
``--FileContentsManager.pre_save_hook=workbench.notebook_hooks.strip_outputs``: every save
(autosave included) writes the notebook without outputs, execution counts or widget state.
Your edits to cells are kept; figures come back by running the cells again. A reopened
notebook therefore never shows widgets whose kernel-side models are gone.
"""

from __future__ import annotations


def strip_outputs(model: dict, **_kwargs) -> None:
    """Remove outputs, execution counts and saved widget state from a notebook model."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    nb = model["content"]
    nb.get("metadata", {}).pop("widgets", None)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
