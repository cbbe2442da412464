"""P3's claim atlas: atlas_point at the defaults reproduces every atlas claim, and the reading
of 'the blocking probability' decides the paper's claim where class 2 pays."""

from __future__ import annotations

import math

from workbench.atlas import plausible_space
from workbench.claims import Measurement, load_claims
from workbench.datacenters.claims import ATLAS, CLAIMS, atlas_point
from workbench.datacenters.params import PARAMS


def _defaults() -> dict:
    ranges, _ = plausible_space(PARAMS)
    return {p.name: p.default for p in ranges} | {"blocking_reading": "total"}


def test_atlas_point_at_the_defaults_reproduces_every_atlas_claim():
    table = load_claims("p3").set_index("id")
    assert set(ATLAS.claims) <= set(CLAIMS) and ATLAS.evaluate is atlas_point
    out = atlas_point(quick=True, seed=0, **_defaults())
    assert set(out) == set(ATLAS.claims)
    for claim, value in out.items():
        if isinstance(value, Measurement):
            assert value.stationary, claim
            value = value.value
        assert math.isfinite(value), claim
        assert abs(value - table.at[claim, "value"]) <= table.at[claim, "tolerance"], claim


def test_forwarding_lowers_the_total_loss_but_class_2_pays():
    assert CLAIMS["forwarding_reduces_blocking"](True) == 1.0
    each = atlas_point(quick=True, seed=0, **(_defaults() | {"blocking_reading": "each class"}))
    assert each["forwarding_reduces_blocking"] == 0.0  # at the worked example, beta2 rises
