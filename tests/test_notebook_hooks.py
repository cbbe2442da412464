"""The pre-save hook that keeps opened-and-run notebooks out of git status."""

import copy
from pathlib import Path

import nbformat
import pytest

from workbench.notebook_hooks import strip_outputs

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_strip_outputs_removes_outputs_counts_and_widget_state_but_keeps_edits():
    nb = nbformat.v4.new_notebook()
    code = nbformat.v4.new_code_cell("x = 1  # edited by the user")
    code.outputs = [nbformat.v4.new_output("stream", text="1\n")]
    code.execution_count = 3
    nb.cells = [nbformat.v4.new_markdown_cell("# title"), code]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    model = {"type": "notebook", "content": nb}
    strip_outputs(model=model, path="p.ipynb", contents_manager=None)
    assert nb.cells[1].outputs == [] and nb.cells[1].execution_count is None
    assert "widgets" not in nb.metadata
    assert nb.cells[1].source == "x = 1  # edited by the user"


def test_strip_outputs_leaves_other_files_alone():
    model = {"type": "file", "content": "print(1)"}
    strip_outputs(model=model, path="a.py", contents_manager=None)
    assert model["content"] == "print(1)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_a_lab_save_of_a_run_notebook_is_byte_identical_to_the_committed_file(path):
    """What JupyterLab changes on its first autosave after Run All (outputs, counts, widget
    state, the kernel's display name and a full language_info), written as Jupyter's contents
    manager writes it, gives back the committed bytes: git status stays clean."""
    nb = nbformat.read(path, as_version=4)
    lab = copy.deepcopy(nb)
    lab.metadata["kernelspec"] = {"display_name": "Python 3 (venv)", "name": "python3"}
    lab.metadata["language_info"] = {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
        "version": "3.11.2",
    }
    lab.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    for cell in lab.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", text="x\n")]
            cell.execution_count = 7
    strip_outputs(model={"type": "notebook", "content": lab}, path=path.name)
    written = nbformat.writes(lab, version=nbformat.NO_CONVERT) + "\n"
    assert written.encode() == path.read_bytes()
