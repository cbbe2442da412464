"""The offered load, calibrated to what the paper describes, and every gain against it.

The paper's λ_u, L̄ and B are lost (its Table 2 did not survive). The load is chosen from the
paper's *descriptions* of its system, never from the gains under test:

- "To overcome the large delay values due to long queues in the cloudlet's side, UNs
  leverage hedged requests": queues that matter, i.e. a loaded uplink;
- "BL2 suffers from increased delay due to having higher interference in denser networks
  [...] This effect is slightly alleviated as the number of cloudlets further increases":
  BL2's delay rises with density, then eases;
- "At low network density conditions, [...] boosting reliability through hedged-requests
  costs an increase in the system load".

:func:`load_table` measures, for each λ_u, the uplink utilisation of the four schemes
(upload time per cloudlet and second), BL2's and the proposed scheme's mean delay at every
density of Fig. 4, and every gain the paper states (Figs. 3-5). :func:`fitted_load` is the
declared hold-out reading "load fitted on Fig. 3 p90": the λ_u at which the Fig. 3 p90 gain
is the paper's 0.40; every other claim is then measured there (the fitted claim counts as
no evidence). The same claim code as :mod:`workbench.proactive.claims` runs everything.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from workbench.claims import load_claims
from workbench.plots import figure
from workbench.proactive import claims as C
from workbench.seeding import figure_seed
from workbench.validation import check_bool, check_seed

__all__ = ["LAMS", "load_table", "fitted_load", "hold_out", "load_frame", "plot_load"]

LAMS = (1.0, 1.25, 1.5, 1.75, 2.0)
"""The loads of the calibration table, inside the plausible 0.5-2 tasks/s."""
GAINS = {
    "fig3_p90_gain_vs_bl2": (0.40, "Fig. 3: p90 gain vs BL2"),
    "fig3_p99_gain_vs_bl2": (0.57, "Fig. 3: p99 gain vs BL2"),
    "fig3_mean_gain_vs_bl2": (np.nan, "Fig. 3: mean gain vs BL2"),
    "fig4_max_mean_gain": (0.50, "Fig. 4: largest mean gain"),
    "fig4_max_p99_gain": (0.65, "Fig. 4: largest p99 gain"),
    "fig5_mean_cut_2_to_4": (0.20, "Fig. 5: mean cut, s_e 2→4"),
    "fig5_p99_cut_2_to_4": (0.30, "Fig. 5: p99 cut, s_e 2→4"),
}
"""Every gain of the claims table: the paper's number (NaN: the paper gives none) and the
gain as the figure's legend names it."""


def _density_row(ctx) -> dict:
    """BL2's and the proposed scheme's mean delay [ms] per density, and the Fig. 4 maxima
    with and without the densities where BL2 is unbounded."""
    out = {}
    for e in C.DENSITY_CLOUDLETS:
        p, b = (C.scheme_run(s, ctx, **C.density_point(e)) for s in ("proposed", "BL2"))
        out[f"BL2_mean_ms_E{e}"] = 1e3 * b["mean_delay"]
        out[f"proposed_mean_ms_E{e}"] = 1e3 * p["mean_delay"]
    for q, short in (("mean_delay", "mean"), ("p99_delay", "p99")):
        gains = C.density_gains(q, ctx)
        unbounded = [e for e, g in gains.items() if g.note.startswith(C.UNBOUNDED)]
        both = [g.value for g in gains.values() if g.stationary]
        every = [g.value for e, g in gains.items() if g.stationary or e in unbounded]
        out[f"fig4_max_{short}_without_unbounded"] = max(both, default=np.nan)
        out[f"fig4_max_{short}_with_unbounded"] = max(every, default=np.nan)
    out["BL2_unbounded_at"] = " ".join(str(e) for e in unbounded)
    return out


def load_table(lams=LAMS, *, quick: bool = True, seed: int = 0) -> pd.DataFrame:
    """The claims' runs at several loads: what each λ_u does to the uplink and the gains.

    Parameters
    ----------
    lams : sequence of float
        The loads λ_u [tasks/s per user], each in the table's range of ``lam``.
    quick : bool or "atlas"
        As in :func:`workbench.proactive.claims.measure` (the same runs, with ``lam``
        changed; warm-up 30 tasks per user); ``"atlas"``: the quick atlas' shorter runs
        (3 replications × 500 measured slots).
    seed : int
        The root seed of the runs.

    Returns
    -------
    pandas.DataFrame
        One row per λ_u: uplink utilisation of every scheme at E = 30, the proposed
        scheme's hit rate, every gain of :data:`GAINS`, the Fig. 4 delays per density and
        whether every run behind a gain was stationary.
    """
    func = "load_table"
    quick = (
        "atlas" if isinstance(quick, str) and quick == "atlas" else check_bool(quick, "quick", func)
    )
    seed = check_seed(seed, func)
    lams = [float(C.PARAMS["lam"].check(lam, func)) for lam in lams]
    rows = []
    for lam in lams:
        ctx = C.measured_at(quick, seed, {"lam": lam})
        row = {"lam": lam, "seed": seed}
        for s in ("proposed", "BL1", "BL2", "BL3"):
            row[f"utilisation_{s}"] = C.scheme_run(s, ctx)["uplink_utilisation"]
        row["hit_rate_proposed"] = C.scheme_run("proposed", ctx)["hit_rate"]
        stationary = True
        for claim in GAINS:
            m = C.MEASURES[claim](ctx)
            row[claim] = m.value
            stationary &= m.stationary
        row["all_stationary"] = stationary
        rows.append(row | _density_row(ctx))
    return pd.DataFrame(rows)


def fitted_load(table: pd.DataFrame, claim="fig3_p90_gain_vs_bl2", target=0.40) -> float:
    """λ_u where ``claim``'s gain first reaches ``target``, by linear interpolation.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`load_table`.
    claim : str
        A gain column of the table.
    target : float
        The gain to reach (the paper's 0.40 for the Fig. 3 p90 gain).

    Returns
    -------
    float
        The load λ_u [tasks/s per user] between the table's loads; NaN if the gain never
        reaches ``target`` (the hold-out reading then has no point).
    """
    t = table.sort_values("lam")
    lam, g = t["lam"].to_numpy(float), t[claim].to_numpy(float)
    reached = np.flatnonzero(g >= target)
    if not reached.size:
        return float("nan")
    i = reached[0]
    if i == 0:
        return float(lam[0])
    return float(lam[i - 1] + (target - g[i - 1]) * (lam[i] - lam[i - 1]) / (g[i] - g[i - 1]))


LOAD_SEED = 0
"""The calibration figure's base seed (shifted by the caller's ``seed``)."""


def load_frame(quick: bool = False, seed: int = 0) -> pd.DataFrame:
    """The calibration table in tidy form, the ``load`` figure's data.

    Parameters
    ----------
    quick : bool
        False: the claims' quick runs at every load of :data:`LAMS`; True: the quick
        atlas' runs (3 replications × 500 measured slots) at λ_u = 1, 1.5, 2.
    seed : int
        The caller's seed (the notebook's ``SEED``; 0: the published table).

    Returns
    -------
    pandas.DataFrame
        Columns ``lam``, ``seed``, ``quantity`` and ``value`` (:func:`load_table`'s
        columns melted).
    """
    quick = check_bool(quick, "quick", "load_frame")
    seed = figure_seed(LOAD_SEED, seed)
    if quick:
        table = load_table((1.0, 1.5, 2.0), quick="atlas", seed=seed)
    else:
        table = load_table(quick=True, seed=seed)
    return table.drop(columns=["BL2_unbounded_at"]).melt(
        id_vars=["lam", "seed"], var_name="quantity"
    )


def plot_load(frame: pd.DataFrame, fast=False):
    """Left: uplink utilisation per scheme; middle: every gain; right: BL2's mean delay
    against density, one line per λ_u.

    Parameters
    ----------
    frame : pandas.DataFrame
        From :func:`load_frame`.
    fast : bool
        Ignored (the figures' shared signature): the legend below the panels needs the
        constrained layout that ``fast`` would turn off.

    Returns
    -------
    matplotlib.figure.Figure
    """
    w = frame.pivot_table(index="lam", columns="quantity", values="value")
    fig, axes = figure(3, width=4.4, height=4.4)  # width per panel
    for s in ("proposed", "BL1", "BL2", "BL3"):
        axes[0].plot(w.index, w[f"utilisation_{s}"], marker="o", label=s)
    axes[0].set(xlabel="λ_u [tasks/s]", ylabel="uplink utilisation", title="Offered load")
    axes[0].legend(fontsize=7)
    for claim, (paper, label) in GAINS.items():
        (line,) = axes[1].plot(w["utilisation_BL2"], w[claim], marker="o", label=label)
        if np.isfinite(paper):
            axes[1].axhline(paper, color=line.get_color(), ls=":", lw=0.8)
    axes[1].set(xlabel="BL2 uplink utilisation", ylabel="gain (dotted: paper)", title="Gains")
    # below the panels (the layout makes room): seven gains on one panel would cover it
    fig.legend(
        *axes[1].get_legend_handles_labels(),
        loc="outside lower center",
        ncol=4,
        fontsize=7,
        title="Gains (middle panel)",
    )
    for lam in w.index:
        y = [w.loc[lam, f"BL2_mean_ms_E{e}"] for e in C.DENSITY_CLOUDLETS]
        axes[2].plot(C.DENSITY_CLOUDLETS, y, marker="o", label=f"λ_u = {lam:g}")
    axes[2].set(
        xlabel="cloudlets E (U = 3E)",
        ylabel="BL2 mean delay [ms]",
        title="BL2 against density",
        yscale="log",
    )
    axes[2].yaxis.set_minor_formatter(NullFormatter())  # minor labels collide on a short span
    axes[2].legend(fontsize=7)
    return fig


def hold_out(table: pd.DataFrame, *, quick: bool = True, seed: int = 0) -> pd.DataFrame:
    """The hold-out reading "load fitted on Fig. 3 p90": every claim measured at the λ_u of
    :func:`fitted_load` (rounded to 0.01).

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`load_table`; it must reach the gain 0.40 at one of its loads.
    quick : bool
        The claims' quick or full runs.
    seed : int
        The root seed of the runs.

    Returns
    -------
    pandas.DataFrame
        One row per claim: the paper's value and tolerance (data/claims/p2.csv), the
        measured value, whether it agrees (within tolerance, on stationary runs) and
        ``evidence`` False for the fitted claim itself.
    """
    func = "hold_out"
    quick = check_bool(quick, "quick", func)
    seed = check_seed(seed, func)
    lam = round(fitted_load(table), 2)
    if not np.isfinite(lam):
        raise C.ParameterError(
            f"The 'table' parameter of {func} must reach a Fig. 3 p90 gain of 0.40 at one of "
            f"its loads. Got at most {table['fig3_p90_gain_vs_bl2'].max():.3f} instead."
        )
    ctx = C.measured_at(quick, seed, {"lam": lam})
    paper = load_claims("p2").set_index("id")
    rows = []
    for claim in C.MEASURES:
        m = C.MEASURES[claim](ctx)
        value, tol = float(paper.loc[claim, "value"]), float(paper.loc[claim, "tolerance"])
        rows.append(
            {
                "id": claim,
                "lam": lam,
                "paper": value,
                "tolerance": tol,
                "measured": m.value,
                "stationary": m.stationary,
                "agrees": bool(m.stationary and abs(m.value - value) <= tol),
                "evidence": claim != "fig3_p90_gain_vs_bl2",
                "source": paper.loc[claim, "source"],
                "note": m.note,
            }
        )
    return pd.DataFrame(rows)
