"""The arena's parameter table: run length and every policy's parameters, declared once, and
:class:`ArenaParams`, the object built from it that the arena's runs take."""

from __future__ import annotations

import math
from functools import partial

from workbench.params import (
    CONFIDENCE,
    REPLICATIONS,
    SEED,
    WARMUP,
    Param,
    Params,
    ParamsModel,
)
from workbench.validation import ParameterError

__all__ = ["PARAMS", "ArenaParams", "RUN", "MAX_REQUESTS", "MAX_TOTAL"]

#: tasks per replication at most (memory: about 150 bytes per task and copy)
MAX_REQUESTS = 10**7
#: tasks over all replications at most
MAX_TOTAL = 2 * 10**8

#: a row of the arena's table: the arena is not a paper, so every default is the workbench's
#: choice (``source="choice"``)
_choice = partial(Param, source="choice")

PARAMS = Params(
    _choice(
        "requests",
        "n",
        "tasks per replication",
        kind="int",
        low=100,
        high=MAX_REQUESTS,
        default=20_000,
        slider=(1_000, 100_000),
        step=1_000,
        help="Tasks drawn per replication (all sources together); the warm-up drops the "
        "first fraction of them.",
    ),
    REPLICATIONS,
    SEED,
    WARMUP,
    CONFIDENCE,
    _choice(
        "load",
        "ρ",
        "edge load (winner map)",
        low=0.0,
        high=1.5,
        low_open=True,
        default=0.7,
        slider=(0.1, 1.2),
        step=0.05,
        plausible=(0.3, 0.95),
        why="Edge nodes run from lightly loaded to near saturation; beyond 1 no policy "
        "without the cloud is stable, so the mechanism claims are judged below it.",
        help="Arrival work over the edge's service capacity in the map's scenario.",
    ),
    _choice(
        "link_delay",
        "δ",
        "edge link delay (winner map)",
        unit="s",
        low=0.0,
        high=1.0,
        default=0.002,
        slider=(0.0, 0.05),
        step=0.001,
        plausible=(0.0, 0.02),
        why="A metro edge link: from co-located nodes to 20 ms, a fifth of the mean task size.",
        help="Delay of an edge-to-edge link (the cloud's is its own parameter, cloud_rtt).",
    ),
    _choice(
        "cloud_rtt",
        "δ_c",
        "round trip to the cloud (winner map)",
        unit="s",
        low=0.0,
        high=1.0,
        default=0.04,
        slider=(0.0, 0.2),
        step=0.005,
        plausible=(0.01, 0.1),
        why="From an access network to the nearest public-cloud region: about 10 ms with a "
        "region in the same metro, 30–50 ms within a continent, 100 ms across one. The "
        "engine does not send results back, so the cloud link carries the whole round "
        "trip.",
        help="Delay of an edge-to-cloud link (the round trip, the result's return "
        "included); a map axis and a slider.",
    ),
    _choice(
        "cloud_speed",
        "s_c",
        "speed of a cloud server (winner map)",
        unit="work/s",
        low=0.0,
        high=100.0,
        low_open=True,
        default=2.0,
        slider=(0.5, 8.0),
        step=0.25,
        plausible=(1.0, 4.0),
        why="An edge box is often a low-power part (10–30 W) and a cloud server a "
        "data-centre part (150–300 W) of the same generation: one cloud core runs a task "
        "about as fast to a few times faster; 4 is the upper end, not the typical case.",
        help="Work per second of one cloud server, edge server = 1.",
    ),
    _choice(
        "cloud_servers",
        "c_c",
        "servers the cloud gives this deployment (winner map)",
        kind="int",
        low=1,
        high=10**6,
        default=32,
        slider=(1, 256),
        step=1,
        plausible=(8, 256),
        why="A tenant's pool of cloud instances: from a few reserved machines to an "
        "autoscaled group of hundreds; unbounded servers are an idealisation no bill "
        "allows.",
        help="Cloud servers (FCFS waiting room without bound).",
    ),
    _choice(
        "edge_servers",
        "c_e",
        "servers per edge node (winner map)",
        kind="int",
        low=1,
        high=1024,
        default=4,
        slider=(1, 32),
        step=1,
        plausible=(1, 16),
        why="A street cabinet or base-station site holds one to a few small servers, each "
        "with a few cores: 1 to 16 tasks in service at once.",
        help="Servers of each of the four edge nodes; capacity 10 per server.",
    ),
    _choice(
        "edge_speed",
        "s_e",
        "speed of an edge server (winner map)",
        unit="work/s",
        low=0.0,
        high=100.0,
        low_open=True,
        default=1.0,
        slider=(0.25, 4.0),
        step=0.25,
        plausible=(0.5, 2.0),
        why="The unit of work: a task of size 0.1 takes 0.1 s on an edge server; half to "
        "twice that speed covers the small parts an edge site runs.",
        help="Work per second of one edge server (the load axis scales the arrivals with it).",
    ),
    _choice(
        "scv",
        "c²",
        "task-size squared coefficient of variation",
        low=0.0,
        high=100.0,
        default=1.0,
        slider=(0.0, 10.0),
        step=0.25,
        plausible=(0.0, 4.0),
        why="From fixed-size tasks to highly variable ones (H2: every moment finite).",
        help="0: deterministic; below 1: shifted exponential; 1: exponential; above: H2.",
    ),
    _choice(
        "p",
        "p",
        "forwarding probability (overflow, P3)",
        low=0.0,
        high=1.0,
        default=1.0,
        slider=(0.0, 1.0),
        step=0.05,
        help="A task that finds its node full is forwarded to a neighbour with room with "
        "probability p, else lost (Fricker et al.'s p_i).",
    ),
    _choice(
        "theta",
        "θ",
        "offloading threshold (threshold, P1)",
        unit="s",
        low=0.0,
        high=1e6,
        extra=(math.inf,),
        default=0.2,
        slider=(0.0, 2.0),
        step=0.05,
        help="A node keeps a task when its estimated wait is at most θ; otherwise it "
        "forwards it to its best neighbour (Yousefpour et al.'s θ).",
    ),
    _choice(
        "e_max",
        "e_max",
        "most forwards (threshold, P1)",
        kind="int",
        low=0,
        high=10,
        default=1,
        slider=(0, 5),
        step=1,
        help="After e_max forwards a task that is still refused goes to the cloud.",
    ),
    _choice(
        "m",
        "m",
        "copies per task (replicate, P4)",
        kind="int",
        low=1,
        high=64,
        default=2,
        slider=(1, 8),
        step=1,
        help="Copies on distinct servers: the home first, then its neighbours; a node "
        "takes one copy per idle server, or one waiting copy; no place at all: the cloud "
        "(Peng & Soljanin).",
    ),
    _choice(
        "cancel",
        "cancel",
        "when the other copies leave (replicate, P4)",
        kind="choice",
        choices=("finish", "start"),
        default="finish",
        help="'finish': the first copy to finish cancels the others (Peng & Soljanin); "
        "'start': the first to start service cancels them (the variant that wastes no "
        "server time on duplicates).",
    ),
    _choice(
        "d",
        "d",
        "candidates drawn (power_of_d)",
        kind="int",
        low=1,
        high=64,
        default=2,
        slider=(1, 8),
        step=1,
        help="d candidates drawn with replacement; the task joins the least loaded.",
    ),
    _choice(
        "min_th",
        "min_th",
        "RED lower threshold (red, P5)",
        low=0.0,
        high=1e6,
        default=5.0,
        slider=(0.0, 30.0),
        step=0.5,
        help="Below this averaged queue a task is never offloaded upwards.",
    ),
    _choice(
        "max_th",
        "max_th",
        "RED upper threshold (red, P5)",
        low=0.0,
        low_open=True,
        high=1e6,
        default=15.0,
        slider=(1.0, 60.0),
        step=0.5,
        help="Above this averaged queue every task is offloaded upwards.",
    ),
    _choice(
        "max_p",
        "max_p",
        "RED's largest probability below max_th (red, P5)",
        low=0.0,
        high=1.0,
        low_open=True,
        default=0.1,
        slider=(0.01, 1.0),
        step=0.01,
        help="The offloading probability reached at max_th.",
    ),
    _choice(
        "w_q",
        "w_q",
        "RED averaging weight (red, P5)",
        low=0.0,
        high=1.0,
        low_open=True,
        default=0.02,
        slider=(0.001, 0.5),
        step=0.001,
        help="Weight of the current queue in the moving average, per arriving task.",
    ),
    _choice(
        "cache_size",
        "K",
        "task types computed proactively (hedge_cache, P2)",
        kind="int",
        low=0,
        high=10**6,
        default=10,
        slider=(0, 100),
        step=1,
        help="Tasks of the K most popular types are served from the edge's cache at once.",
    ),
    _choice(
        "deadline",
        "τ",
        "reliability check (hedge_cache, P2)",
        unit="s",
        low=0.0,
        high=1e6,
        extra=(math.inf,),
        default=0.5,
        slider=(0.0, 5.0),
        step=0.05,
        help="When the first copy's estimated wait exceeds τ a second copy goes to the "
        "best neighbour; the first to finish cancels the other (Elbamby et al.'s hedging).",
    ),
)

#: a run's rows (simulate's and compare's keywords, in their signatures' order)
RUN = ("requests", "replications", "seed", "warmup", "confidence")


class _Relations(ParamsModel):
    def check_relations(self, func: str, fields) -> None:
        """A run's tasks over all replications at most :data:`MAX_TOTAL`."""
        if "requests" in fields and "replications" in fields:
            total = self.requests * self.replications
            if total > MAX_TOTAL:
                raise ParameterError(
                    f"{func}: requests × replications must be at most {MAX_TOTAL:.0e}; got "
                    f"{total:.3g}"
                )


ArenaParams = PARAMS.model(
    "ArenaParams",
    base=_Relations,
    doc="""The arena's parameters, one validated object: a row of :data:`PARAMS` per field.

    :func:`~workbench.arena.simulation.simulate` and the other runs take it, or its keywords
    (:func:`workbench.params.takes`); a built-in policy reads its own fields (``m``,
    ``theta``, ...).
    """,
)
