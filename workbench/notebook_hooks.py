"""Keep opening, running and closing a notebook from changing the repository.

``bash run.sh lab`` starts JupyterLab with
``--FileContentsManager.pre_save_hook=workbench.notebook_hooks.strip_outputs``: every save
(autosave included) writes the notebook without outputs, execution counts or widget state.
Your edits to cells are kept; figures come back by running the cells again. A reopened
notebook therefore never shows widgets whose kernel-side models are gone.

The notebook's own metadata is written in one canonical form (:data:`CANONICAL_METADATA`):
JupyterLab otherwise rewrites the kernelspec's display name and adds the running kernel's
``language_info`` (version, codemirror mode, ...) on its first autosave, so a notebook that
was only opened and run would differ from the committed file. Other metadata keys are kept.
"""

from __future__ import annotations

CANONICAL_METADATA = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


def strip_outputs(model: dict, **_kwargs) -> None:
    """Remove outputs, execution counts and saved widget state from a notebook model, and
    write its kernelspec and language_info in the canonical form."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    nb = model["content"]
    meta = nb.setdefault("metadata", {})
    meta.pop("widgets", None)
    for key, value in CANONICAL_METADATA.items():
        meta[key] = dict(value)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
