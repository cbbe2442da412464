"""The load calibration's pieces that need no simulation: the hold-out fit."""

import numpy as np
import pandas as pd

from workbench.proactive.calibration import fitted_load


def test_fitted_load_interpolates_the_first_crossing_of_the_target():
    t = pd.DataFrame({"lam": [1.0, 1.25, 1.5, 1.75], "fig3_p90_gain_vs_bl2": [0.2, 0.3, 0.5, 0.3]})
    assert np.isclose(fitted_load(t), 1.25 + 0.25 * (0.4 - 0.3) / (0.5 - 0.3))
    assert fitted_load(t.iloc[::-1]) == fitted_load(t)  # the order of the rows is irrelevant
    assert np.isnan(fitted_load(t.assign(fig3_p90_gain_vs_bl2=0.1)))
    assert fitted_load(t.assign(fig3_p90_gain_vs_bl2=0.9)) == 1.0
