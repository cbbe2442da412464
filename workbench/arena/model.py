"""The arena's theory: closed forms for the scenarios where a policy reduces to a textbook queue.

These are the oracles that :mod:`workbench.arena.claims`, the exercises and the notebook hold
the engine against (the tests hold it against their own slow twins as well):

- :func:`mm1_delay`: ``random`` over ``n`` identical one-server nodes splits a Poisson
  stream into ``n`` M/M/1 queues, so E[T] = 1 / (μ − λ/n).
- :func:`erlang_c_delay`: ``local`` on a node with ``c`` servers is M/M/c (Erlang C).
- :func:`power_of_d_delay`: ``power_of_d`` over many one-server nodes approaches the
  mean-field limit of Vvedenskaya, Dobrushin & Karpelevich and Mitzenmacher:
  P(Q ≥ k) = ρ^((d^k − 1)/(d − 1)).
- :func:`threshold_delay`: ``threshold`` (P1's rule) on one one-server node with no
  neighbour keeps a task when its estimated wait (tasks present × mean size) is at most θ,
  which is M/M/1/K with K = ⌊θ/s⌋ + 1 places; a refused task goes to the cloud.
- :func:`energy_per_task`: busy power × busy time + idle power × idle time, per task, plus
  the transmission energy of its input.

Every function validates its arguments and returns a float (seconds or joules).
"""

from __future__ import annotations

import math

from workbench.erlang import erlang_b
from workbench.validation import ParameterError, check_int, check_real

__all__ = [
    "mm1_delay",
    "erlang_c_delay",
    "power_of_d_delay",
    "threshold_delay",
    "energy_per_task",
]


def _stable(func: str, lam: float, capacity: float) -> None:
    if lam >= capacity:
        raise ParameterError(
            f"{func}: the arrival rate {lam:g} must be below the service capacity "
            f"{capacity:g}; at or above it the queue grows without bound and has no mean."
        )


def mm1_delay(lam, mu, n=1) -> float:
    """Mean sojourn time when a Poisson stream is split at random over ``n`` M/M/1 nodes.

    Parameters
    ----------
    lam : float
        The stream's arrival rate (tasks/s, >= 0), below ``n × mu``.
    mu : float
        Each node's service rate (tasks/s, > 0).
    n : int
        The identical nodes (1 to 10**6).

    Returns
    -------
    float
        E[T] = 1 / (μ − λ/n), in seconds.
    """
    f = "mm1_delay"
    lam = check_real(lam, "lam", f, 0.0, 1e12)
    mu = check_real(mu, "mu", f, 0.0, 1e12, low_open=True)
    n = check_int(n, "n", f, 1, 10**6)
    _stable(f, lam / n, mu)
    return 1.0 / (mu - lam / n)


def erlang_c_delay(servers, lam, mu) -> float:
    """Mean sojourn time of an M/M/c queue (Erlang C).

    Parameters
    ----------
    servers : int
        The servers c (1 to 10**5).
    lam : float
        The arrival rate (tasks/s, >= 0), below ``servers × mu``.
    mu : float
        Each server's service rate (tasks/s, > 0).

    Returns
    -------
    float
        C(c, a) / (cμ − λ) + 1/μ with a = λ/μ, in seconds.
    """
    f = "erlang_c_delay"
    c = check_int(servers, "servers", f, 1, 10**5)
    lam = check_real(lam, "lam", f, 0.0, 1e12)
    mu = check_real(mu, "mu", f, 0.0, 1e12, low_open=True)
    _stable(f, lam, c * mu)
    a = lam / mu
    b = erlang_b(c, a)
    wait_probability = b / (1.0 - (a / c) * (1.0 - b))
    return wait_probability / (c * mu - lam) + 1.0 / mu


def power_of_d_delay(rho, d, mu=1.0) -> float:
    """Mean sojourn time of power-of-``d`` choices over infinitely many one-server nodes.

    Parameters
    ----------
    rho : float
        The load per node, in (0, 1).
    d : int
        The nodes sampled per task (1 to 64); 1 is random assignment.
    mu : float
        Each node's service rate (tasks/s, > 0).

    Returns
    -------
    float
        The mean-field limit E[T] = Σ_k ρ^((d^k − 1)/(d − 1)) / (ρμ), k ≥ 1 (Little's law
        per node), in seconds; 1 / (μ(1 − ρ)) for d = 1.
    """
    f = "power_of_d_delay"
    rho = check_real(rho, "rho", f, 0.0, 1.0, low_open=True, high_open=True)
    d = check_int(d, "d", f, 1, 64)
    mu = check_real(mu, "mu", f, 0.0, 1e12, low_open=True)
    if d == 1:
        return 1.0 / (mu * (1.0 - rho))
    total, k = 0.0, 1
    while True:
        exponent = (d**k - 1) / (d - 1)
        term = rho**exponent
        total += term
        if term == 0.0 or term < 1e-16 * total or k > 200:  # 0: underflow (tiny rho)
            break
        k += 1
    return total / (rho * mu)


def threshold_delay(lam, mean_size, theta, cloud_delay) -> float:
    """Mean delay of P1's threshold rule on one one-server node with no neighbour.

    A task is kept when the node's estimated wait, (tasks present) × ``mean_size``, is at
    most ``theta``: the node is M/M/1/K with K = ⌊θ/s⌋ + 1 places.

    Parameters
    ----------
    lam : float
        The arrival rate (tasks/s, > 0); any load, the node refuses what it cannot keep.
    mean_size : float
        The mean service time s of a task at the node (s, > 0).
    theta : float
        The threshold on the estimated wait (s, >= 0; θ/s at most 10**6 places).
    cloud_delay : float
        The delay of a task refused to the cloud (s, >= 0): links, transmission and its
        service there.

    Returns
    -------
    float
        (1 − P_K) E[T | kept] + P_K × ``cloud_delay``, P_K the M/M/1/K blocking, in seconds.
    """
    f = "threshold_delay"
    lam = check_real(lam, "lam", f, 0.0, 1e12, low_open=True)
    s = check_real(mean_size, "mean_size", f, 0.0, 1e6, low_open=True)
    theta = check_real(theta, "theta", f, 0.0, 1e6)
    cloud = check_real(cloud_delay, "cloud_delay", f, 0.0, 1e6)
    ratio = theta / s  # inf when mean_size is tiny
    if not ratio <= 10**6:
        raise ParameterError(
            f"{f}: theta / mean_size = {theta:g} / {s:g} = {ratio:g} asks for more than "
            "10**6 places; a threshold that large never refuses a task (use an M/M/1 formula)."
        )
    places = math.floor(ratio + 1e-12) + 1
    rho = lam * s
    # stationary distribution of M/M/1/K in log space (rho may be far above 1)
    logs = [n * math.log(rho) for n in range(places + 1)]
    top = max(logs)
    weights = [math.exp(v - top) for v in logs]
    z = sum(weights)
    p = [w / z for w in weights]
    blocked = p[-1]
    in_system = sum(n * q for n, q in enumerate(p))
    kept = lam * (1.0 - blocked)
    stay = in_system / kept if kept > 0 else 0.0
    return (1.0 - blocked) * stay + blocked * cloud


def energy_per_task(
    lam, mean_size, power_idle, power_busy, input_bits=0.0, energy_per_bit=0.0
) -> float:
    """Energy per task of one one-server node that serves every task.

    Parameters
    ----------
    lam : float
        The arrival rate (tasks/s, > 0), with ρ = λ s below 1.
    mean_size : float
        The mean service time s (s, > 0).
    power_idle, power_busy : float
        The server's power when idle and when busy (W, >= 0).
    input_bits : float
        Bits each task carries to the node (>= 0).
    energy_per_bit : float
        The link's energy per bit (J/bit, in [0, 1]).

    Returns
    -------
    float
        (busy power × ρ + idle power × (1 − ρ)) / λ + ``input_bits`` × ``energy_per_bit``,
        in joules.
    """
    f = "energy_per_task"
    lam = check_real(lam, "lam", f, 0.0, 1e12, low_open=True)
    s = check_real(mean_size, "mean_size", f, 0.0, 1e6, low_open=True)
    idle = check_real(power_idle, "power_idle", f, 0.0, 1e9)
    busy = check_real(power_busy, "power_busy", f, 0.0, 1e9)
    bits = check_real(input_bits, "input_bits", f, 0.0, 1e15)
    epb = check_real(energy_per_bit, "energy_per_bit", f, 0.0, 1.0)
    rho = lam * s
    _stable(f, rho, 1.0)
    energy = (busy * rho + idle * (1.0 - rho)) / lam + bits * epb
    if not math.isfinite(energy):
        raise ParameterError(
            f"The 'lam' parameter of {f} is too small for a finite energy: each task carries "
            f"power_idle / lam = {idle:g} / {lam:g} J of idle time, more than a float holds. "
            f"Got lam = {lam!r}."
        )
    return energy
