"""Packaging: environment.yml mirrors pyproject.toml; the CLI and claims tables are wired."""

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest
import yaml

from workbench.__main__ import OutputFolderError, _reproduced, _site_built, check_out, main
from workbench.registry import PAPERS
from workbench.reproduce import reproduce
from workbench.validation import ParameterError

ROOT = Path(__file__).resolve().parent.parent


def _name_spec(req: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9_.\-]+)(\[[^\]]*\])?\s*(.*)$", req)
    return m.group(1).lower().replace("_", "-"), m.group(3).replace(" ", "")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = project["dependencies"] + project["optional-dependencies"]["test"]
    wanted = dict(_name_spec(r) for r in reqs)
    if "dask" in wanted:  # dask[distributed] is two packages on conda-forge
        wanted["distributed"] = wanted["dask"]
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = dict(_name_spec(d) for d in env["dependencies"] if isinstance(d, str))
    conda.pop("python"), conda.pop("pip")
    assert conda == wanted


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "bash run.sh test" in readme and "exec bash run.sh test" in ci
    assert "bash run.sh lab" in readme


def test_run_sh_figures_quick_passes_its_options_through(tmp_path):
    """`bash run.sh figures --quick --out DIR --only NAME` regenerates just that, quickly."""
    env = {**os.environ, "WORKBENCH_VENV": sys.prefix}
    out = subprocess.run(
        ["bash", str(ROOT / "run.sh"), "figures", "--quick", "--out", str(tmp_path)]
        + ["--only", "fig3"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert (tmp_path / "p4" / "fig3.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.rglob("*.csv")) == ["fig3.csv"]


def test_cli_reproduces_figures_as_csv_and_png(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "workbench",
            "reproduce",
            "p4",
            "--quick",
            "--out",
            str(tmp_path),
            "--only",
            "fig3",
            "fig5",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert "p4/fig3" in out.stdout
    for name in ("fig3", "fig5"):
        frame = pd.read_csv(tmp_path / "p4" / f"{name}.csv")
        assert len(frame) > 10 and not frame.isna().all().any()
        assert (tmp_path / "p4" / f"{name}.png").read_bytes()[:4] == b"\x89PNG"


class _SeedFigure:
    """A figure whose frame is the seed it was drawn with (workbench.seeding.figure_seed)."""

    def make(self, quick, seed=0):
        import matplotlib.pyplot as plt

        from workbench.seeding import figure_seed

        return pd.DataFrame({"seed": [figure_seed(10, seed)]}), plt.figure()


def test_reproduce_seed_is_the_notebooks_seed_for_the_run(tmp_path, monkeypatch, capsys):
    """``--seed S`` is passed to every figure's ``make``, as a notebook passes its SEED: it
    shifts the figure's seed by S; 0 (the default) keeps the published seeds."""
    from workbench import reproduce as rep

    monkeypatch.setattr(rep, "_figures", lambda pid: {"seeded": _SeedFigure()})
    seeds = {}
    for seed in (None, 0, 7):
        out = tmp_path / str(seed)
        extra = [] if seed is None else ["--seed", str(seed)]
        assert main(["reproduce", "p4", "--quick", "--out", str(out), *extra]) == 0
        seeds[seed] = int(pd.read_csv(out / "p4" / "seeded.csv")["seed"].iloc[0])
    assert seeds == {None: 10, 0: 10, 7: 17}
    assert main(["reproduce", "p4", "--seed", "-1", "--out", str(tmp_path / "bad")]) == 2
    assert "'seed' parameter of reproduce" in capsys.readouterr().err


def test_reproduce_refuses_an_unknown_figure_listing_the_valid_ones(tmp_path, capsys):
    code = main(["reproduce", "p4", "--quick", "--only", "no_such_figure", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("python -m workbench: error: The 'only' parameter")
    assert "fig3, fig4, fig5" in err and "no_such_figure" in err
    assert not any(tmp_path.iterdir())  # nothing done
    with pytest.raises(ParameterError, match="'only' parameter of reproduce"):
        reproduce("p4", out=tmp_path, only=["fig3", "nope"])


@pytest.mark.parametrize("command", [["reproduce", "p4", "--quick"], ["site", "--quick"]])
def test_out_onto_a_file_or_a_foreign_folder_is_refused_before_any_work(tmp_path, capsys, command):
    (tmp_path / "a_file").write_text("mine")
    code = main([*command, "--out", str(tmp_path / "a_file")])
    assert code == 2 and "a file, not a folder" in capsys.readouterr().err
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    code = main([*command, "--out", str(foreign)])
    assert code == 2 and "a non-empty folder that" in capsys.readouterr().err
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]


def test_out_may_be_a_folder_the_command_wrote_before(tmp_path):
    (tmp_path / "p4").mkdir()
    (tmp_path / "atlas").mkdir()
    assert check_out(tmp_path, "reproduce", _reproduced(PAPERS)) == tmp_path
    (tmp_path / "index.html").write_text("")
    (tmp_path / ".buildinfo").write_text("")
    assert check_out(tmp_path, "site", _site_built) == tmp_path
    with pytest.raises(OutputFolderError, match="did not write"):
        check_out(tmp_path, "reproduce", _reproduced(PAPERS))


def test_cli_rejects_unknown_paper():
    out = subprocess.run(
        [sys.executable, "-m", "workbench", "reproduce", "p9"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "invalid choice" in out.stderr


def test_readme_python_examples_run():
    """The README's Python blocks run as printed (placeholders of the building-blocks line
    given small values); a line whose comment names an error must raise it."""
    import re

    import numpy as np

    import workbench

    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 2
    ns = {
        "proposer_prefs": [[0, 1], [1, 0]],
        "receiver_prefs": [[0, 1], [1, 0]],
        "capacities": [1, 1],
        "trace": np.array([1, 2, 1, 3, 1]),
        "capacity": 2,
        "avg": 10.0,
    }
    for block in blocks:
        for line in block.splitlines():
            code = line.split("  #")[0].rstrip()
            if not code or code.startswith("#"):
                continue
            error = re.search(r"#\s*(\w+Error)", line)
            if error:
                with pytest.raises(getattr(workbench, error.group(1))):
                    exec(code, ns)
            else:
                exec(code, ns)
