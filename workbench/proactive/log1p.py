"""log1p over a whole array in one vectorised pass, equal bit for bit to the C library's.

The slot kernel's rate estimates (eq. 10) take ``log1p`` of every covered link's SINR every
slot; one call of the C library's scalar ``log1p`` per link was most of the kernel's time.
:func:`log1p_many` evaluates the same algorithm, the C library's (glibc's ``s_log1p.c``,
FDLIBM's argument reduction with the polynomial evaluated in four parts), written without
branches so that LLVM vectorises the loop: every case of the scalar function is computed
and the right one selected. The results equal the scalar ``log1p`` the kernel called before
(``math.log1p``, numba's ``np.log1p``) on every input checked, including 0, subnormals,
-1 < x < 0, 2^53 and above, inf and NaN (tests/test_proactive_speed.py;
``benchmarks/bench_p2_log1p.py`` on 10^7 and more inputs over the SINR range).

NumPy's own array ``np.log1p`` is not that function on every machine: where NumPy
dispatches to its AVX-512 loops, it differs from the C library's in the last bit on about
1.5 % of inputs, so it is not the reference here.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["log1p_many", "log1p_one", "platform_variant", "PROBE", "PLATFORM", "PLAIN", "FUSED"]


@intrinsic
def _bits(typingctx, x):
    """The IEEE-754 bits of a float64 as an int64 (a bit cast)."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@intrinsic
def _float(typingctx, b):
    """The float64 whose IEEE-754 bits are the int64 ``b`` (a bit cast)."""
    if b != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


_LN2_HI = 6.93147180369123816490e-01  # 0x3fe62e42 fee00000
_LN2_LO = 1.90821492927058770002e-10  # 0x3dea39ef 35793c76
_LP1 = 6.666666666666735130e-01  # 3FE55555 55555593
_LP2 = 3.999999999940941908e-01  # 3FD99999 9997FA04
_LP3 = 2.857142874366239149e-01  # 3FD24924 94229359
_LP4 = 2.222219843214978396e-01  # 3FCC71C5 1D8E78AF
_LP5 = 1.818357216161805012e-01  # 3FC74664 96CB03DE
_LP6 = 1.531383769920937332e-01  # 3FC39A09 D078C69F
_LP7 = 1.479819860511658591e-01  # 3FC2F112 DF3E5244
_LOW_WORD = 0xFFFFFFFF


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c rounded once (LLVM's fma intrinsic)."""
    if not (a == b == c == types.float64):
        return None

    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        fnty = ir.FunctionType(double, [double, double, double])
        return builder.call(
            cgutils.get_or_insert_function(builder.module, fnty, "llvm.fma.f64"), args
        )

    return types.float64(types.float64, types.float64, types.float64), codegen


@njit(cache=True, inline="always")
def _mad(a, b, c, fused):
    """a * b + c, rounded once when ``fused`` (as a compiler contracting to FMA does)."""
    return _fma(a, b, c) if fused else a * b + c


@njit(cache=True, inline="always", error_model="numpy")
def log1p_one(x, fused):
    """log(1 + x) for one float64, as the C library computes it, without branches.

    Every case of the scalar algorithm is evaluated and the right one selected: the
    reduction 1 + x = 2^k (1 + f) with sqrt(2)/2 < 1 + f < sqrt(2) and its correction term
    c, the short forms for |f| < 2^-20 and |x| < 2^-29, and the special values. ``fused``:
    the products the C compiler contracts into fused multiply-adds (glibc's FMA build) are
    fused here too.
    """
    bits = _bits(x)
    hx = bits >> 32  # the high word, signed (an int32 in the C code)
    ax = hx & 0x7FFFFFFF
    # -0.2929 < x < 0.41422: no reduction, f = x exactly (k = 0)
    near = (hx < 0x3FDA827A) and (hx > 0 or hx <= -1076707645)  # (int32) 0xbfd2bec3
    big = hx >= 0x43400000  # x >= 2^53: 1 + x is x
    u = x if big else 1.0 + x
    ubits = _bits(u)
    hu = ubits >> 32
    k = (hu >> 20) - 1023
    c = 1.0 - (u - x) if k > 0 else x - (u - 1.0)
    c = 0.0 if big else c / u
    hu &= 0x000FFFFF
    low = ubits & _LOW_WORD
    if hu < 0x6A09E:
        u = _float(((hu | 0x3FF00000) << 32) | low)  # normalise u
    else:
        k += 1
        u = _float(((hu | 0x3FE00000) << 32) | low)  # normalise u / 2
        hu = (0x00100000 - hu) >> 2
    f = u - 1.0
    if near:
        k = 0
        f = x
        hu = 1
    dk = float(k)
    hfsq = 0.5 * f * f
    # |f| < 2^-20 (hu == 0)
    r_small = hfsq * _mad(-0.66666666666666666, f, 1.0, fused)
    if k == 0:
        tiny_f = 0.0 if f == 0.0 else f - r_small
    elif f == 0.0:
        tiny_f = _mad(dk, _LN2_HI, _mad(dk, _LN2_LO, c, fused), fused)
    else:
        tiny_f = _mad(dk, _LN2_HI, -((r_small - _mad(dk, _LN2_LO, c, fused)) - f), fused)
    # the general case
    s = f / (2.0 + f)
    z = s * s
    z2 = z * z
    z4 = z2 * z2
    z6 = z4 * z2
    r2 = _mad(z, _LP3, _LP2, fused)
    r3 = _mad(z, _LP5, _LP4, fused)
    r4 = _mad(z, _LP7, _LP6, fused)
    r = _mad(z6, r4, _mad(z4, r3, _mad(z, _LP1, z2 * r2, fused), fused), fused)
    if k == 0:
        general = f - (hfsq - s * (hfsq + r))
    else:
        lo = s * (hfsq + r) + _mad(dk, _LN2_LO, c, fused)
        general = _mad(dk, _LN2_HI, -((hfsq - lo) - f), fused)
    out = tiny_f if hu == 0 else general
    if ax < 0x3E200000:  # |x| < 2^-29
        out = x if ax < 0x3C900000 else _mad(-(x * x), 0.5, x, fused)
    if hx >= 0x7FF00000:  # +inf, NaN
        out = x + x
    if not x > -1.0:  # x <= -1 or NaN
        out = -np.inf if x == -1.0 else x + np.nan
    return out


PLATFORM = 0
"""Variant code of :func:`log1p_many`: the C library's scalar ``log1p``, one call a value."""
PLAIN = 1
"""The algorithm without fused multiply-adds (glibc's baseline x86-64 build)."""
FUSED = 2
"""The algorithm with glibc's fused multiply-adds (its FMA build, chosen at run time on CPUs
with FMA and AVX2)."""
PROBE = np.array(
    [
        0.24520318771285837,
        0.4072276179259423,
        0.3632125464359117,
        0.2765738204427741,
        0.17847177059062488,
        0.3621382222146792,
        0.49797787451318426,
        0.5016712336643471,
        1.6929847049895614,
        6437767.2005253155,
        0.5875140485858598,
        10.33333458917722,
        1.6178254077546137,
        10.925918957939766,
        0.42875701299296587,
        5.576379187915456,
    ]
)
"""Inputs where :data:`PLAIN` and :data:`FUSED` differ in the last bit (found by comparing
them on 500,000 values over the SINR range): which one the C library agrees with on all of
them tells which build it runs."""


@njit(cache=True, error_model="numpy")
def log1p_many(x, n, out, variant):
    """out[:n] = log1p(x[:n]) (float64 arrays) by ``variant`` (:func:`platform_variant`).

    :data:`PLAIN` and :data:`FUSED` are the vectorised loop; :data:`PLATFORM` calls the C
    library once a value (what the kernel did before, kept for a C library that neither
    variant reproduces).
    """
    if variant == FUSED:
        for i in range(n):
            out[i] = log1p_one(x[i], True)
    elif variant == PLAIN:
        for i in range(n):
            out[i] = log1p_one(x[i], False)
    else:
        for i in range(n):
            out[i] = np.log1p(x[i])


@njit(cache=True)
def platform_variant(probe):
    """The variant of :func:`log1p_many` equal to the C library's ``log1p`` on ``probe``
    (:data:`PROBE`): :data:`FUSED`, :data:`PLAIN`, or :data:`PLATFORM` if neither is."""
    n = probe.shape[0]
    want = np.empty(n)
    got = np.empty(n)
    log1p_many(probe, n, want, PLATFORM)
    for variant in (FUSED, PLAIN):
        log1p_many(probe, n, got, variant)
        same = True
        for i in range(n):
            if got[i] != want[i]:
                same = False
        if same:
            return variant
    return PLATFORM
