"""The paper's ASCII notation as a reader sees it, in controls, tables and figure labels.

:func:`notation` renders ``p^I``, ``T_cl``, ``λ_m`` as HTML (controls, tables) or as Unicode
super- and subscripts (tooltips); :func:`mathtext` renders the same notation for matplotlib
labels, so a figure never shows a raw ``P_b`` or ``p^I``. :func:`control_label` is the label
``symbol meaning [unit]`` of a declared parameter.
"""

from __future__ import annotations

import html
import re

from workbench.params import Param, Params
from workbench.validation import check_bool, check_type

__all__ = ["notation", "mathtext", "control_label", "latex_html", "prose_html"]

_SUP = dict(
    zip(
        "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVW",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ",
        strict=True,
    )
)
_SUB = dict(
    zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True)
)
# base^X, base^{...}, base_x, base_{...}: the base is the token just before the mark; a
# subscript needs a short base (≤ 3 characters: T_cl, λ_u, min_th) so that a snake_case word
# of a sentence (cache_aware) is left alone
_SCRIPT = re.compile(
    r"(?P<base>[^\s\^_\[\]()/,;:|]+?)(?P<mark>[\^_])(?:\{(?P<braced>[^{}]+)\}"
    r"|(?P<bare>[A-Za-z0-9′'*+−-]+))"
)


def _scripts(text: str):
    """The super- and subscripts of ``text`` both renderers read: (match, base, mark, script);
    a subscript only after a base word of at most three characters (``T_cl``, not a
    snake_case word of a sentence)."""
    for m in _SCRIPT.finditer(text):
        base, mark = m.group("base"), m.group("mark")
        word = re.search(r"[A-Za-z0-9\u0370-\u03ff\u0300-\u036f]+$", base)
        if mark == "_" and (word is None or len(word.group()) > 3):
            continue
        yield m, base, mark, m.group("braced") or m.group("bare")


def notation(text: str, *, as_html: bool = True) -> str:
    """Render the paper's ASCII notation: ``p^I`` → pᴵ, ``X^FF`` → X<sup>FF</sup>,
    ``T_cl`` → T<sub>cl</sub>, ``λ_m`` → λ<sub>m</sub>, ``x^{n+1}`` → x<sup>n+1</sup>.

    ``as_html=True`` (control labels): HTML with the rest escaped, ``<sup>``/``<sub>`` for the
    scripts. ``as_html=False`` (tooltips, plain text): Unicode super- and subscript letters
    where every character has one (p^I → pᴵ, λ_m → λₘ), else the notation is left as typed.
    A subscript is only read after a base of at most three characters (``T_cl``, ``min_th``),
    so snake_case words in a sentence (``cache_aware``) stay as they are.
    """
    check_type(text, "text", "notation", str, "a string")
    as_html = check_bool(as_html, "as_html", "notation")
    out = []
    pos = 0
    for m, base, mark, script in _scripts(text):
        out.append(_escape(text[pos : m.start()], as_html))
        out.append(_escape(base, as_html))
        table = _SUP if mark == "^" else _SUB
        if as_html:
            out.append(_script_html(mark, html.escape(script)))
        elif all(c in table for c in script):
            out.append("".join(table[c] for c in script))
        else:
            out.append(m.group(0)[len(base) :])
        pos = m.end()
    out.append(_escape(text[pos:], as_html))
    return "".join(out)


def _script_html(mark: str, script: str) -> str:
    """``script`` (HTML) as the superscript (``mark`` ``^``) or the subscript (``_``)."""
    tag = "sup" if mark == "^" else "sub"
    return f"<{tag}>{script}</{tag}>"


def mathtext(text: str) -> str:
    """The notation of ``text`` for a matplotlib label: ``T_cl`` → ``T$_{\\mathregular{cl}}$``.

    The same reading as :func:`notation` (a subscript only after a base of at most three
    characters), with the scripts as mathtext in the label's own font. A text that already
    holds mathtext (a ``$``) is returned as it is.
    """
    check_type(text, "text", "mathtext", str, "a string")
    if "$" in text:
        return text
    out = []
    pos = 0
    for m, base, mark, script in _scripts(text):
        script = script.replace("−", "-").replace("′", "'")
        script = re.sub(r"([{}\\#%&])", r"\\\1", script)
        out.append(text[pos : m.start()] + base + f"${mark}{{\\mathregular{{{script}}}}}$")
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


_MACROS = {
    r"\lambda": "λ",
    r"\alpha": "α",
    r"\beta": "β",
    r"\gamma": "γ",
    r"\delta": "δ",
    r"\Delta": "Δ",
    r"\mu": "μ",
    r"\theta": "θ",
    r"\tau": "τ",
    r"\rho": "ρ",
    r"\sigma": "σ",
    r"\kappa": "κ",
    r"\nu": "ν",
    r"\phi": "φ",
    r"\Phi": "Φ",
    r"\pi": "π",
    r"\leq": "≤",
    r"\le": "≤",
    r"\geq": "≥",
    r"\ge": "≥",
    r"\neq": "≠",
    r"\in": "∈",
    r"\infty": "∞",
    r"\cdot": "·",
    r"\times": "×",
    r"\sum": "Σ",
    r"\min": "min",
    r"\max": "max",
    r"\prime": "′",
    r"\{": "\x00",
    r"\}": "\x01",
    r"\%": "%",
    r"\,": " ",
    r"\ldots": "…",
    r"\dots": "…",
}
_MACRO = re.compile(
    "|".join(
        re.escape(k) + (r"(?![A-Za-z])" if k[-1].isalpha() else "")
        for k in sorted(_MACROS, key=len, reverse=True)
    )
)
_WRAPPERS = re.compile(r"\\(?:operatorname|text|mathrm|mathit|mathbf)\{([^{}]*)\}")
_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$]+)\$", re.S)
_FRAC = re.compile(r"\\frac\{([^{}]*)\}\{([^{}]*)\}")
_LATEX_SCRIPT = re.compile(r"([_^])(?:\{([^{}]*)\}|([A-Za-z0-9′]))")


def _group(term: str) -> str:
    """A fraction's numerator or denominator, in parentheses when it is a sum or a list."""
    return f"({term})" if re.search(r"[-+−,]", term) else term


def _math_html(tex: str) -> str:
    """One ``$…$`` segment as HTML: macros as Unicode, scripts as ``<sub>``/``<sup>``."""
    tex = tex.replace(r"\mathbb{E}", "𝔼")
    for _ in range(3):  # nested wrappers: \operatorname{\mathbb{E}}
        tex = _WRAPPERS.sub(r"\1", tex)
    tex = re.sub(r"\\overline\{([^{}]*)\}", "\\1\u0304", tex)
    tex = _MACRO.sub(lambda m: _MACROS[m.group(0)], tex)
    tex = re.sub(r"\^\{′\}", "′", tex)
    tex = html.escape(tex, quote=False)
    for _ in range(4):  # innermost braces first: scripts, then the fractions around them
        tex = _LATEX_SCRIPT.sub(lambda m: _script_html(m.group(1), m.group(2) or m.group(3)), tex)
        tex = _FRAC.sub(lambda m: f"{_group(m.group(1))}/{_group(m.group(2))}", tex)
    tex = tex.replace("{", "").replace("}", "").replace("\\", "")
    tex = tex.replace("\x00", "{").replace("\x01", "}")
    return tex


def latex_html(text: str) -> str:
    r"""A paper's words with inline LaTeX (``$P_{b}$``, ``$\operatorname{S-Exp}(\Delta,m\mu)$``)
    as HTML a page shows without MathJax: Greek letters and relations in Unicode, scripts as
    ``<sub>``/``<sup>``; the rest escaped."""
    check_type(text, "text", "latex_html", str, "a string")
    out, pos = [], 0
    for m in _MATH.finditer(text):
        out.append(html.escape(text[pos : m.start()], quote=False))
        out.append(_math_html(m.group(1) or m.group(2)))
        pos = m.end()
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out)


# a symbol's Greek letters as code spells them (lam_u for λ_u): the small Greek letters of
# _MACROS but π
_GREEK_NAMES = {
    letter: macro[1:].replace("lambda", "lam")
    for macro, letter in _MACROS.items()
    if "α" <= letter <= "ω" and letter != "π"
}


def prose_html(text: str, params=None) -> str:
    """A note written with code names, for people: a parameter's name or the ASCII spelling
    of its symbol (``lam_u`` for λ_u) becomes the rendered symbol, a quoted code value
    (``'least_wait'``) reads “least wait”, inline LaTeX and the notation (``T_cl``) are
    rendered. ``params``: the paper's :class:`~workbench.params.Params` (None: no names)."""
    check_type(text, "text", "prose_html", str, "a string")
    check_type(
        params,
        "params",
        "prose_html",
        (Params, type(None)),
        "a workbench.params.Params table or None",
    )
    names = {}
    for p in params.rows if params is not None else ():
        symbol = notation(p.symbol) if p.symbol else ""
        if not symbol or p.symbol == p.name:
            continue
        spelled = "".join(_GREEK_NAMES.get(c, c) for c in p.symbol)
        for key in {p.name, spelled, p.symbol.replace("λ", "lambda")}:
            # only spellings that are code: snake_case (cache_aware, lam_u), never an English
            # word that happens to name a parameter (slot, area, budget)
            if re.fullmatch(r"[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+", key):
                names[key] = symbol
    out, pos = [], 0
    token = re.compile(r"\$[^$]+\$|'([A-Za-z][A-Za-z0-9_]*)'|\b([A-Za-z][A-Za-z0-9_]*)\b")
    for m in token.finditer(text):
        out.append(notation(text[pos : m.start()]))
        word = m.group(0)
        if word.startswith("$"):
            out.append(_math_html(word[1:-1]))
        elif m.group(1):
            out.append(f"“{html.escape(m.group(1).replace('_', ' '))}”")
        elif word in names:
            out.append(names[word])
        else:
            out.append(notation(word))
        pos = m.end()
    out.append(notation(text[pos:]))
    return "".join(out)


def _escape(text: str, as_html: bool) -> str:
    return html.escape(text, quote=False) if as_html else text


def control_label(param: Param) -> str:
    """``symbol meaning [unit]`` without saying a name twice.

    A symbol that is a plain word already in the meaning is dropped: ``seed`` "random seed"
    reads "random seed", ``gentle`` "gentle RED" reads "gentle RED" (not "gentle gentle RED").
    """
    check_type(param, "param", "control_label", Param, "a declared parameter (workbench.Param)")
    unit = f" [{param.unit}]" if param.unit else ""
    symbol, meaning = param.symbol.strip(), param.meaning.strip()
    if _said_in(symbol, meaning):
        return f"{meaning}{unit}"
    return f"{symbol} {meaning}{unit}".strip()


def _said_in(symbol: str, meaning: str) -> bool:
    if not re.fullmatch(r"[A-Za-z][A-Za-z-]{2,}", symbol):
        return False  # a mathematical symbol (λ, T_cl, n_slots) is not a word of the meaning
    words = re.findall(r"[A-Za-z-]+", meaning.lower())
    return any(word.startswith(symbol.lower()) for word in words)


# ------------------------------------------------------------------------------ numbers
