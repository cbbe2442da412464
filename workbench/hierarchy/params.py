"""The parameter table of the edge hierarchy (paper values and the workbench's choices)."""

from __future__ import annotations

from workbench.params import CONFIDENCE, REPLICATIONS, SEED, WARMUP, Param, Params

MODELS = (
    "advanced",
    "without_enhancement_1",
    "without_enhancement_2",
    "original",
    "pure_cloud",
    "pure_local",
)
# the five models the paper compares, in its order
PAPER_MODELS = (
    "advanced",
    "pure_cloud",
    "pure_local",
    "without_enhancement_1",
    "without_enhancement_2",
)
TOPOLOGIES = ("tree", "skewed", "ba-1", "ba-2", "ba-3", "ba-4", "ba-5")

# the paper's words the plausible ranges rest on (verbatim, the paper's Chinese text)
_BUSY = (
    "当服务器正在处理一个请求（例如，做决策、执行计算或处理卸载请求）时，其他请求必须进入队列等待"
)
_LIGHT = "保持整个框架的轻量级特性"
_WORST = (
    "RED假设所有这些请求都将在本地执行是有效且可靠的，这样“队列大小”将按最坏情况评估。"
    "这与第3.2.3节中评估潜在计算执行时间时采用的理念一致"
)
_PUSH = (
    "一个任务生成器负责定期向第一层的服务器推送请求。"
    "每个周期内的请求数量（表示工作负载率）遵循泊松分布确定"
)
_EQ11 = "此处 $ t {\\text{exe,avg}} $ 为这些排队中的请求的平均执行时间"
_CHANGED = "第三，还应修改一些其他关键参数，例如 $ w_q $ 和 $ \\text{maxp} $。"
_LINEAR = "高级决策模型的平均完成时间随着工作负载率或请求大小的增加而线性增长"
_TREE = "如图3所示，我们创建了一个严格的对称层次拓扑。"
_FIG6 = (
    "由于不同服务器的计算能力与相应连接带宽之间的关系，"
    "未包含第一项增强的模型也将所有请求调度到中心服务器。"
)
_SPEEDS_WHY = (
    "Fig. 3's speeds were not recovered («" + _TREE + "»). The calibration takes the least "
    "compute (1 : 2 : 4 by tier) meeting what the paper describes, the linear growth «"
    + _LINEAR
    + "» and Fig. 8; every faster hierarchy meets those targets too, so a careful reader "
    "accepts the calibrated speed up to twice it (still far from the regime where every "
    "model looks alike)."
)
# RED's two thresholds: one unit and one range (min_th < max_th is checked by P5Params)
_THRESHOLD = {"unit": "s", "low": 0.0, "high": 1e4}
# the three tiers' speeds: one unit, one range (a positive floor: 5e-324 would divide to inf
# and NaN), the workbench's choice, calibrated for one reason
_SPEED = {"unit": "work units/s", "low": 1e-6, "high": 1e6, "source": "choice", "why": _SPEEDS_WHY}

PARAMS = Params(
    Param(
        "model",
        "model",
        "decision model",
        kind="choice",
        choices=MODELS,
        default="advanced",
        help="Where tasks run: the advanced model (RED at entry + queue-aware overhead rule), "
        "one enhancement removed, the original overhead rule, everything at the centre, "
        "or everything at its origin.",
    ),
    Param(
        "lam",
        "λ",
        "tasks per period per bottom server",
        "1/period",
        low=0.0,
        high=1000.0,
        low_open=True,
        default=8.0,
        slider=(1.0, 10.0),
        step=1.0,
        help="Mean of the Poisson number of tasks each bottom server generates per period "
        "(the paper sweeps 2..10 and fixes 8).",
    ),
    Param(
        "task_size",
        "μ",
        "mean task size",
        "work units",
        low=0.0,
        high=1000.0,
        low_open=True,
        default=7.0,
        slider=(1.0, 9.0),
        step=1.0,
        help="Mean of the Normal task size D before truncation at 0 (the paper sweeps 1..9 "
        "and fixes 7).",
    ),
    Param(
        "sigma",
        "σ",
        "task size std. dev.",
        "work units",
        low=0.0,
        high=100.0,
        default=1.0,
        slider=(0.0, 3.0),
        step=0.1,
        help="Standard deviation of the Normal task size before truncation (paper: σ² = 1).",
    ),
    Param(
        "topology",
        "topology",
        "hierarchy",
        kind="choice",
        choices=TOPOLOGIES,
        default="tree",
        help="The paper's symmetric 3-tier tree of 7 servers, the same tree with skewed load "
        "1:2:3:4, or one of five seeded Barabási–Albert graphs of 7 nodes.",
    ),
    Param(
        "periods",
        "n",
        "periods simulated",
        "periods",
        kind="int",
        low=10,
        high=1_000_000,
        default=2000,
        slider=(100, 20_000),
        step=100,
        help="Length of one replication: tasks are generated during n periods, then every "
        "task runs to completion.",
        source="choice",
    ),
    WARMUP,
    Param(
        "period",
        "T",
        "period length",
        "s",
        low=1e-6,  # a positive floor: 5e-324 would divide to inf and NaN
        high=3600.0,
        default=1.0,
        slider=(0.1, 5.0),
        step=0.1,
        help="Length of one generation period (not recovered from the paper).",
        source="choice",
    ),
    Param(
        "compute_bottom",
        "F_b",
        "bottom server speed",
        **_SPEED,
        default=100.0,
        slider=(10.0, 400.0),
        step=5.0,
        help="Speed of servers 3-6 (not recovered from the paper's Fig. 3).",
        plausible=(100.0, 200.0),
    ),
    Param(
        "compute_middle",
        "F_m",
        "middle server speed",
        **_SPEED,
        default=200.0,
        slider=(10.0, 800.0),
        step=5.0,
        help="Speed of servers 1-2 (not recovered from the paper's Fig. 3).",
        plausible=(200.0, 400.0),
    ),
    Param(
        "compute_top",
        "F_c",
        "centre speed",
        **_SPEED,
        default=400.0,
        slider=(20.0, 1600.0),
        step=10.0,
        help="Speed of the central server 0, the strongest (not recovered from Fig. 3).",
        plausible=(400.0, 800.0),
    ),
    Param(
        "bandwidth",
        "W",
        "link bandwidth",
        "Mbit/s",
        low=1e-6,  # a positive floor: 5e-324 would divide to inf and NaN
        high=1e6,
        default=100.0,
        slider=(1.0, 1000.0),
        step=1.0,
        help="Bandwidth of every wired link between adjacent tiers (paper: 100 Mbps).",
    ),
    Param(
        "data_per_work",
        "β",
        "input data per unit of work",
        "Mbit/work unit",
        low=0.0,
        high=1e3,
        default=0.1,
        slider=(0.0, 5.0),
        step=0.05,
        help="A task's input size is B = β·D (the paper gives no sizes for B).",
        source="choice",
        plausible=(0.01, 0.2),
        why="The paper gives no input sizes B. Its Fig. 6 says the blind rule sends every "
        "task to the centre, «" + _FIG6 + "»: with B = βD that holds for β below "
        "W (1/F_m − 1/F_c) = 0.25 Mbit per work unit at the calibrated speeds; 0.01..0.2 "
        "keeps it with a margin.",
    ),
    Param(
        "decision_time",
        "τ_d",
        "time of one overhead decision",
        "s",
        low=0.0,
        high=1.0,
        default=0.001,
        slider=(0.0, 0.01),
        step=0.0005,
        help="Worker time one overhead decision takes at the head of a queue (reading "
        "'decision_time', see READINGS): the paper says deciding occupies the single worker "
        "but gives no length. Default by rule: one tenth of the shortest mean execution on the "
        "grid (μ = 1 on a bottom server). 0 = decisions are free.",
        source="choice",
        plausible=(0.0, 0.005),
        why="Deciding occupies the single worker, «" + _BUSY + "», but no length is "
        "given; the framework is meant to stay light, «" + _LIGHT + "». From free decisions "
        "(0) to half the shortest mean execution on the grid (5 ms: μ = 1 on a bottom "
        "server takes 10 ms); the default 1 ms is a tenth of it.",
    ),
    Param(
        "in_decision",
        "n_dec",
        "how a task under decision counts",
        kind="choice",
        choices=("full", "zero", "remaining"),
        default="full",
        help="In another server's (eq. 10) or RED's view of the work ahead, a task whose "
        "decision is under way counts its whole work (worst case, as the paper evaluates RED's "
        "'queue size'), nothing (it is no longer queued), or the decision time left.",
        source="choice",
        plausible=("full", "zero", "remaining"),
        why="RED evaluates the queue in the worst case, «" + _WORST + "» (full); eq. 10 "
        "counts only queued requests («排队中的请求»), which counts a task under decision as "
        "zero; the decision time left is between the two.",
    ),
    Param(
        "offload_busy",
        "h_off",
        "handing an offload occupies the worker",
        kind="bool",
        default=True,
        help="Sec. 4.2 counts 'handling an offload request' as worker time: the worker stays "
        "busy for the transfer B/W of a task it decided to offload. False: the link takes "
        "it at no worker time. (RED's forwards at the entrance never use the worker.)",
        source="choice",
        plausible=(True, False),
        why="The sentence on the single worker counts handling an offload request as worker "
        "time, «" + _BUSY + "» (True); a reader who takes the transfer as the link's time "
        "alone reads False.",
    ),
    Param(
        "arrivals",
        "arr",
        "arrivals within a period",
        kind="choice",
        choices=("batch", "spread"),
        default="batch",
        help="'batch': the generator pushes each period's Poisson(λ) tasks at the start of the "
        "period (Sec. 5.1: 'periodically pushes requests'); 'spread': at uniform times "
        "inside the period (a Poisson process of rate λ/T).",
        source="choice",
        plausible=("batch", "spread"),
        why="The generator pushes periodically, «" + _PUSH + "»: a batch at the start of "
        "each period, or spread over it (a Poisson process). The calibration prefers batch "
        "(Fig. 8's queue growing with λ), but the words admit both.",
    ),
    Param(
        "eq11_unit",
        "u",
        "time unit of eq. 11",
        kind="choice",
        choices=("s", "ms", "period"),
        default="s",
        help="Unit in which eq. 11's min(1, t̄) and max(1, t̄) read the mean execution time "
        "and in which min_th, max_th are given (the paper names none).",
        source="choice",
        plausible=("s", "ms"),
        why="Eq. 11's min(1, t̄) depends on the unit of t̄, «" + _EQ11 + "», which the "
        "paper does not name: seconds or milliseconds ('period' equals seconds at T = 1 s "
        "and is left out).",
    ),
    Param(
        "power",
        "P",
        "transmit power",
        "W",
        low=0.0,
        high=1e3,
        default=0.5,
        slider=(0.0, 5.0),
        step=0.1,
        help="Energy per second of transfer in the offload overhead, eq. 7 (not given).",
        source="choice",
    ),
    Param(
        "kappa",
        "κ",
        "energy per cycle coefficient",
        "",
        low=0.0,
        high=1.0,
        default=1e-11,
        slider=(0.0, 1e-9),
        step=1e-11,
        help="ν_i = κ F_i² (eq. 4, paper: 10⁻¹¹).",
    ),
    Param(
        "min_th",
        "min_th",
        "RED lower threshold",
        **_THRESHOLD,
        default=5.0,
        slider=(0.0, 20.0),
        step=0.5,
        help="RED lower threshold before eq. 11's scaling (paper: 5, Fig. 13).",
    ),
    Param(
        "max_th",
        "max_th",
        "RED upper threshold",
        **_THRESHOLD,
        low_open=True,
        default=20.0,
        slider=(5.0, 80.0),
        step=1.0,
        help="RED upper threshold before eq. 11's scaling (paper: 20 or 40, Fig. 13).",
    ),
    Param(
        "max_p",
        "max_p",
        "RED drop probability at max_th",
        "",
        low=0.0,
        high=1.0,
        low_open=True,
        default=0.5,
        slider=(0.1, 1.0),
        step=0.01,
        help="RED's p_b at the upper threshold. The paper changed it from the packet value "
        "but does not say to what: plausible range 0.1..1, default by rule (see READINGS).",
        source="choice",
        plausible=(0.1, 1.0),
        why="The paper changed max_p from the packet value without saying to what, «"
        + _CHANGED
        + "»: from Floyd and Jacobson's 0.1 up to 1; the default 0.5 is the middle.",
    ),
    Param(
        "w_q",
        "w_q",
        "RED averaging weight",
        "",
        low=0.0,
        high=1.0,
        low_open=True,
        default=0.125,
        slider=(0.01, 0.5),
        step=0.005,
        help="Weight of the newest sample in RED's moving average, one update per arrival. "
        "The paper changed it from the packet value but does not say to what: plausible "
        "range 0.01..0.5, default by rule (see READINGS).",
        source="choice",
        plausible=(0.01, 0.5),
        why="The paper changed w_q from the packet value (0.002) without saying to what, «"
        + _CHANGED
        + "»: an average over a few arrivals (0.5) to about a hundred (0.01); the default "
        "0.125 remembers one period's push at λ = 8.",
    ),
    Param(
        "gentle",
        "gentle",
        "gentle RED",
        kind="bool",
        default=False,
        help="Replace RED's cliff at max_th by a ramp to 1 at 2·max_th.",
        source="choice",
    ),
    Param(
        "down_offload",
        "↓",
        "centre offloads down",
        kind="bool",
        default=False,
        help="Beyond the paper: the centre sends an arriving task down to the child that "
        "would finish it first, when that beats its own queue.",
        source="choice",
    ),
    Param(
        "overload",
        "overload",
        "overloaded regime",
        kind="choice",
        choices=("raise", "transient"),
        default="raise",
        help="'raise': refuse a model whose servers cannot carry the load (ρ ≥ 1) or a run "
        "the stationarity detector flags; 'transient': return the finite-run numbers, "
        "flagged not stationary.",
        source="choice",
    ),
    Param(
        "keep_records",
        "records",
        "keep per-task records",
        kind="bool",
        default=True,
        help="Return the per-task table (switch off for large sweeps).",
        source="choice",
    ),
    SEED,
    REPLICATIONS,
    CONFIDENCE,
)

# the readings and lost values with the paper's words: a view of the table's plausible rows
READINGS = {p.name: (p.plausible, p.why) for p in PARAMS.rows if p.plausible is not None}
