"""The pre-save hook that keeps opened-and-run notebooks out of git status."""

import nbformat

from workbench.notebook_hooks import strip_outputs


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
