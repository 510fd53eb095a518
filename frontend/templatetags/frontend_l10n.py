"""Template helpers for the pages' languages: money in the locale's number format and a
way to hand a piece of markup to {% blocktranslate %} as one named value.

    {% load frontend_l10n %}
    {{ vegas_start|dollars }}                       -$52 (en) · -52 $ (it, es)
    {% capture as code %}<code id="c">{{ x }}</code>{% endcapture %}
    {% blocktranslate with code=code %}The deal {{ code }} …{% endblocktranslate %}
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import formats
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

register = template.Library()

NBSP = "\u00a0"

# Where the dollar sign goes, as the browser's Intl.NumberFormat(language, {style: "currency",
# currency: "USD", currencyDisplay: "narrowSymbol"}) puts it (formatDollars in i18n.js):
# before the number in English ("-$52"), after it and a no-break space in Italian and
# Spanish ("-52 $"). A language not named here writes it the English way.
SYMBOL_AFTER = frozenset({"it", "es"})


@register.filter
def dollars(amount: Any, signed: Any = True) -> str:
    """Whole dollars in the active language's number format, the sign first and the
    dollar kept: ``-$52``, ``+$5``, ``$0``, ``+$1,208`` in English; ``-52 $``, ``+5 $``
    in Italian and Spanish. ``|dollars:False`` leaves out the ``+`` of a gain.
    Not for attributes that code reads: those take the plain integer."""
    try:
        value = int(amount)
    except (TypeError, ValueError):
        return "" if amount is None else str(amount)
    number = formats.number_format(abs(value), decimal_pos=0, use_l10n=True)
    sign = "-" if value < 0 else "+" if value > 0 and signed not in (False, "False", "false", "0", 0) else ""
    language = (get_language() or "en").split("-")[0].lower()
    if language in SYMBOL_AFTER:
        return f"{sign}{number}{NBSP}$"
    return f"{sign}${number}"


class CaptureNode(template.Node):
    def __init__(self, nodelist: template.NodeList, name: str) -> None:
        self.nodelist, self.name = nodelist, name

    def render(self, context: template.Context) -> str:
        # The block is rendered (its variables escaped as ever), so it is safe markup.
        context[self.name] = mark_safe(self.nodelist.render(context).strip())
        return ""


@register.tag
def capture(parser: template.base.Parser, token: template.base.Token) -> CaptureNode:
    """``{% capture as name %}…{% endcapture %}``: render the block into ``name`` (safe
    markup) instead of the page, e.g. to put an element with its id and data-* attributes
    into a translated sentence as one placeholder that translators move but cannot break."""
    bits = token.split_contents()
    if len(bits) != 3 or bits[1] != "as":
        raise template.TemplateSyntaxError("usage: {% capture as name %}…{% endcapture %}")
    nodelist = parser.parse(("endcapture",))
    parser.delete_first_token()
    return CaptureNode(nodelist, bits[2])


