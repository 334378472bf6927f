"""Advice as the reader can type it: a Python argument, or the command line's flag.

Messages, summary notes and reports name options as Python arguments (``rates='pooled'``,
``bins=5``, ``lower_is_better=['mqm']``).  Someone who ran ``binaryeval fit ...`` in a shell
types ``--rates pooled``, ``--bins 5``, ``--lower-is-better mqm``: :func:`as_flags` rewrites the
arguments the command line has into its flags, and leaves everything else as it is.
"""

from __future__ import annotations

import ast
import re
import shlex
from typing import Any

__all__ = ["FLAGS", "as_flags"]

#: argument -> command-line flag, for every argument a subcommand offers
FLAGS = {
    "bins": "--bins", "by": "--by", "chains": "--chains", "dependence": "--dependence",
    "draws": "--draws", "first": "--first",
    "include_prior_dominated": "--include-prior-dominated", "item": "--item", "level": "--level",
    "lower_is_better": "--lower-is-better", "method": "--method", "order": "--order",
    "overwrite": "--overwrite", "pairs": "--pairs", "prior": "--prior",
    "rate_prior": "--rate-prior", "rates": "--rates", "second": "--second", "seed": "--seed",
    "shown_first": "--shown-first", "sig_level": "--sig-level", "threshold": "--threshold",
    "tolerance": "--tolerance", "unpaired": "--unpaired", "min_prob": "--min-prob",
}


def _names(flags: dict[str, str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.\-'\"])(" + "|".join(sorted(flags, key=len, reverse=True))
                      + r")=")


_NAME = _names(FLAGS)
#: the text before a word that is a flag's value as typed: ``--rates `` before ``rho=0.7,...``
_FLAG_VALUE = re.compile(r"(?:^|\s)--[a-z][\w\-]*\s+[^\s]*\Z")
_CLOSE = {"[": "]", "(": ")", "{": "}"}


def _literal_end(text: str, start: int) -> int:
    """Where the Python literal starting at ``start`` ends (``start`` when there is none)."""
    if start >= len(text):
        return start
    c = text[start]
    if c in "'\"":
        end = text.find(c, start + 1)
        return start if end < 0 else end + 1
    if c in _CLOSE:
        depth, quote = 0, None
        for i in range(start, len(text)):
            ch = text[i]
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch in _CLOSE:
                depth += 1
            elif ch in _CLOSE.values():
                depth -= 1
                if depth == 0:
                    return i + 1
        return start
    m = re.match(r"[\w.+\-]+", text[start:])
    # a full stop after the value ends the sentence ("... draws=2000.")
    return start + (len(m.group().rstrip(".")) if m else 0)


def _word(value: Any) -> str:
    text = str(value)
    return text if re.fullmatch(r"[\w.+\-:/=,]+", text) else shlex.quote(text)


#: flags whose list is one word with commas (``--order A,B,C``), not words apart
_COMMA_LISTS = frozenset({"order"})


def _flag_value(value: Any, name: str = "") -> str | None:
    """The flag's value as typed on the command line (None: no spelling for it)."""
    if value is Ellipsis or (isinstance(value, (list, tuple)) and Ellipsis in value):
        return None   # "lower_is_better=[...]": a placeholder, not a value
    if isinstance(value, bool):
        return ""
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return _word(value)
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, tuple) and all(isinstance(v, (int, float)) for v in value):
        return ",".join(f"{v:g}" for v in value)
    if isinstance(value, (list, tuple)):
        if name in _COMMA_LISTS:
            return _word(",".join(str(v) for v in value))
        return " ".join(_word(v) for v in value)
    return None


def as_flags(text: str, extra: dict[str, str] | None = None) -> str:
    """``text`` with every command-line argument written as its flag.

    Parameters
    ----------
    text : str
        A message, note or piece of advice naming Python arguments.
    extra : dict, optional
        Further ``argument -> flag`` pairs: the options of the command that ran (``plan``'s
        ``alpha=1.5`` is its ``--alpha 1.5``), beside :data:`FLAGS`.

    Returns
    -------
    str

    Examples
    --------
    >>> from binaryeval._advice import as_flags
    >>> as_flags("pass bins=5 (or bins={'score': 5}), or use rates='pooled'")
    'pass --bins 5 (or --bins score=5), or use --rates pooled'
    >>> as_flags("likely fix: lower_is_better=['mqm'] if lower mqm is better")
    'likely fix: --lower-is-better mqm if lower mqm is better'
    >>> as_flags("run more draws, e.g. draws=2000 (or chains=6); give threshold= too")
    'run more draws, e.g. --draws 2000 (or --chains 6); give --threshold too'
    >>> as_flags("alpha=1.5 is outside [0, 1]", {"alpha": "--alpha"})
    '--alpha 1.5 is outside [0, 1]'

    A flag's value already typed (``--rates rho=0.7,eta=0.7``) is left as it is:

    >>> as_flags("give --rho 0.7, or known rates --rates rho=0.7,eta=0.7", {"rho": "--rho"})
    'give --rho 0.7, or known rates --rates rho=0.7,eta=0.7'
    """
    flags, names = (FLAGS, _NAME) if not extra else ({**FLAGS, **extra},
                                                      _names({**FLAGS, **extra}))
    out, pos = [], 0
    for m in names.finditer(text):
        if m.start() < pos or _FLAG_VALUE.search(text, 0, m.start()):
            continue
        name = m.group(1)
        start = m.end()
        end = _literal_end(text, start)
        if end == start:
            out.append(text[pos:m.start()] + flags[name])
            pos = start
            continue
        try:
            value = ast.literal_eval(text[start:end])
        except (ValueError, SyntaxError):
            if re.fullmatch(r"[\w.+\-]+", text[start:end]):
                value = text[start:end]
            else:
                continue
        shown = _flag_value(value, name)
        if shown is None:
            continue
        out.append(text[pos:m.start()] + flags[name] + (f" {shown}" if shown else ""))
        pos = end
    out.append(text[pos:])
    joined = "".join(out)
    for flag in flags.values():   # "overwrite=True (--overwrite)" says the flag once
        joined = joined.replace(f"{flag} ({flag})", flag)
    return joined
