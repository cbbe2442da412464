"""Numbers as a reader reads them, and as a student types them: one formatter, one parser.

:func:`format_number` is the one way the workbench writes a number for people (slider
readouts, refusal messages, glossaries, tables, figure labels): a few significant digits,
plain decimals from 10⁻³ to 10⁶ (never ``1e+03``), ``1.2 × 10⁻⁵`` outside, an optional unit.
:func:`parse_number` reads what a student types (``"1,5"`` and ``"1.5"`` are both 1.5).
"""

from __future__ import annotations

import decimal
import math
import numbers
import re

from workbench.validation import check_bool, check_int, check_type

__all__ = ["format_number", "format_value", "parse_number"]

PLAIN_LOW, PLAIN_HIGH = 1e-3, 1e6  # plain decimals inside this band, powers of ten outside
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_NO_SPACE_UNITS = {"%", "°", "‰"}


def format_number(value, digits: int = 3, unit: str = "") -> str:
    """``value`` with ``digits`` significant digits, for people.

    >>> format_number(1600.4), format_number(1e6), format_number(33.333333333333336)
    ('1600', '1000000', '33.3')
    >>> format_number(0.09090909090909091), format_number(2.5e-5), format_number(0.35, unit="s")
    ('0.0909', '2.5 × 10⁻⁵', '0.35 s')

    - plain decimals (no exponent) for 10⁻³ ≤ |value| ≤ 10⁶, trailing zeros dropped
      (0.750 → 0.75); integers below 10⁶ in full (1234567 is 1.23 × 10⁶);
    - outside that band, ``m × 10ⁿ`` with ``digits`` significant digits;
    - a negative number has a minus sign (−), ``nan`` reads "–", infinities "∞";
    - ``unit`` follows after a space (no space before %, °).
    """
    func = "format_number"
    if not isinstance(value, numbers.Real) and type(value).__name__ != "bool_":
        check_type(value, "value", func, numbers.Real, "a real number")
    digits = check_int(digits, "digits", func, 1, 17)
    check_type(unit, "unit", func, str, "a string")
    text = _format(value, digits)
    if not unit:
        return text
    return f"{text}{unit}" if unit in _NO_SPACE_UNITS else f"{text} {unit}"


def _format(value, digits: int) -> str:
    """``value`` as :func:`format_number` writes it (``digits`` checked there)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":  # numpy's bool is no Real
        return str(bool(value))
    if isinstance(value, numbers.Integral) and abs(int(value)) <= PLAIN_HIGH:
        return str(int(value)).replace("-", "−")
    try:
        x = float(value)
    except OverflowError:  # an int beyond a float's range (10**400): exact, in decimal
        x = decimal.Decimal(int(value))
    else:
        if math.isnan(x):
            return "–"
        if math.isinf(x):
            return "∞" if x > 0 else "−∞"
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    exponent = int(exponent)  # after rounding: 999.7 at 3 digits is 1.00e+03
    if PLAIN_LOW <= abs(float(f"{mantissa}e{exponent}")) <= PLAIN_HIGH:
        decimals = max(0, digits - 1 - exponent)
        text = f"{float(mantissa + 'e' + str(exponent)):.{decimals}f}"
        if "." in text:
            text = text.rstrip("0").rstrip(".")
    else:
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        text = f"{mantissa} × 10{str(exponent).translate(_SUPERSCRIPT)}"
    return text.replace("-", "−") if text.startswith("-") else text


def format_value(value, digits: int = 3) -> str:
    """Any value of a table cell: numbers through :func:`format_number`, sequences of numbers
    item by item (``[64.3, 69]``), anything else as ``str``."""
    if isinstance(value, numbers.Real):
        return format_number(value, digits)
    if isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Real) for v in value):
        inner = ", ".join(format_number(v, digits) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    return "–" if value is None else str(value)


def parse_number(text: str, *, integer: bool = False):
    """A number typed by a student: ``"1,5"`` and ``"1.5"`` are both 1.5.

    Accepts a decimal point or a single decimal comma, a leading ``−`` (Unicode minus),
    spaces and exponents (``2e-3``). Raises ``ValueError`` with a sentence to show for
    anything else: two separators (``"1.000,5"``), a thousands separator in an integer,
    text, ``nan`` or ``inf``, a fraction where an integer is needed.
    """
    check_type(text, "text", "parse_number", (str, numbers.Real), "a string or a number")
    integer = check_bool(integer, "integer", "parse_number")
    raw = str(text)
    t = re.sub(r"[\s\u00a0\u202f\u2009]", "", raw).replace("−", "-")
    if not t:
        raise ValueError("type a number")
    if "," in t:
        if t.count(",") > 1 or "." in t:
            raise ValueError(f"“{raw}” is not a number: use one decimal separator (1.5 or 1,5)")
        t = t.replace(",", ".")
    try:
        value = float(t)
    except ValueError:
        raise ValueError(f"“{raw}” is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"“{raw}” is not a finite number")
    if integer:
        if value != int(value):
            raise ValueError(f"“{raw}” is not a whole number")
        return int(value)
    return value
