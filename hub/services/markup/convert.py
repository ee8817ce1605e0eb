"""Jira's wiki markup as Markdown, as sanitised HTML and as plain text.

Three maintained libraries, each doing what it is made for:

- jira2markdown (a pyparsing grammar of Jira's markup) turns wiki text into
  Markdown. Where the hub wants something else than its defaults, an element of
  its own grammar is replaced (``MarkupElements.replace``/``insert_after``):
  mentions by Jira Server's login names (e-mail addresses too) shown with the
  display name the users catalogue knows, bare URLs as autolinks, emoticons,
  ``{code}`` without a language, and for HTML the constructs Markdown has no
  syntax for (underline, citations, colours, mentions) as attribute spans.
- markdown-it-py (CommonMark, raw HTML disabled: Jira's ``<b>`` is text, as Jira
  shows it) with tables and strikethrough, and mdit-py-plugins for ``^sup^``,
  ``~sub~`` and ``[text]{.class}`` spans, turns that Markdown into HTML; its
  render rules place images from the mirrored attachments.
- nh3 (Ammonia) sanitises the HTML with an allow-list of tags, attributes,
  classes and URL schemes (http, https, mailto, and the hub's own attachment
  content path), so that nothing Jira's text holds can ever run script.

The grammars are built once per thread (pyparsing elements keep parse state);
a text's mentions are looked up through the context of the one conversion under
way, its images by the render rules.
"""

from __future__ import annotations

import functools
import html
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import nh3
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.subscript import sub_plugin
from mdit_py_plugins.superscript import superscript_plugin

from hub.services.markup.wiki_grammar import CELL_BREAK, COLOR_NAMES, Context, transform
from hub.services.markup.wiki_grammar import grammar as wiki_grammar

#: Where the page fetches an attachment's content (the CSP's ``img-src 'self'``).
CONTENT_PATH = "/api/v1/attachments/{id}/content"

# Characters of Unicode's private use area that the conversion uses as
# placeholders (line breaks in table cells, a snippet's match markers); taken
# out of Jira's text first, so that no text can forge one.
_MARK_OPEN, _MARK_CLOSE = "\ue001", "\ue002"
_PLACEHOLDERS = str.maketrans("", "", CELL_BREAK + _MARK_OPEN + _MARK_CLOSE)

SPAN_CLASSES = frozenset({"underline", "citation", "mention", "attachment-missing", "attachment-file",
                          *(f"jira-color-{name}" for name in COLOR_NAMES)})
_LANGUAGE_CLASS = re.compile(r"language-[A-Za-z0-9#+_-]{1,40}")
_SAFE_SCHEMES = ("http://", "https://", "mailto:")
_ATTACHMENT_URL = re.compile(r"/api/v1/attachments/[1-9][0-9]{0,17}/content")
_ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "sup", "sub", "code", "pre",
    "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "a", "img", "span",
}
_ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"}, "img": {"src", "alt", "width", "height"}, "ol": {"start"},
    "th": {"style"}, "td": {"style"}, "span": {"class", "data-attachment-id"}, "code": {"class"},
}
# The only style a table cell keeps: its alignment (markdown-it writes it so), which the page
# does not apply (the CSP's style-src 'self' ignores style attributes) but costs nothing.
_CELL_STYLE = re.compile(r"text-align:(left|right|center)")


@dataclass(frozen=True)
class AttachmentRef:
    """An attachment an image or ``[^file]`` in the text may name: its id, whether its
    content is in the hub's store (``ready``), and its type."""

    attachment_id: str
    ready: bool
    mime_type: str | None = None



# -- markdown-it: Markdown to HTML -----------------------------------------------------------------

def _demoted_heading(renderer: RendererHTML, tokens, idx, options, env) -> str:
    # A description's "h1." sits under the page's own headings (the h1, the section's h2).
    token = tokens[idx]
    level = min(6, int(token.tag[1]) + 2)
    return f"<h{level}>" if token.nesting == 1 else f"</h{level}>\n"


def _image(renderer: RendererHTML, tokens, idx, options, env) -> str:
    """An image the text names by its file: the mirrored attachment's content when it is in
    the store; a placeholder carrying its id (the page's Fetch button) when it is not; the name
    alone when the issue has no such attachment (an image from elsewhere: the CSP allows none)."""
    token = tokens[idx]
    name = str(token.attrGet("src") or "")
    alt = html.escape(renderer.renderInlineAsText(token.children or [], options, env) or name)
    found = env.get("attachments", {}).get(name)
    if found is None:
        if name.lower().startswith(_SAFE_SCHEMES[:2]):
            url = html.escape(name)
            return f'<a href="{url}">{alt}</a>'
        return f'<span class="attachment-file">{alt}</span>'
    if found.ready:
        src = CONTENT_PATH.format(id=found.attachment_id)
        return f'<img src="{src}" alt="{alt}">'
    return f'<span class="attachment-missing" data-attachment-id="{html.escape(found.attachment_id)}">{alt}</span>'


def _link_open(renderer: RendererHTML, tokens, idx, options, env) -> str:
    # "[^file.pdf]" links to the file by name: the mirrored attachment's content.
    token = tokens[idx]
    found = env.get("attachments", {}).get(str(token.attrGet("href") or ""))
    if found is not None:
        token.attrSet("href", CONTENT_PATH.format(id=found.attachment_id))
    return renderer.renderToken(tokens, idx, options, env)


def _markdown_it() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(superscript_plugin).use(sub_plugin)
    md.use(attrs_plugin, spans=True, after=("span_close",), allowed=("class",))
    md.add_render_rule("heading_open", _demoted_heading)
    md.add_render_rule("heading_close", _demoted_heading)
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", _link_open)
    return md


def _attribute(element: str, attribute: str, value: str) -> str | None:
    """nh3's last word on each attribute: URLs of a safe scheme or the hub's attachment
    content; classes of the hub's own; a cell's alignment."""
    if attribute in ("href", "src"):
        if value.lower().startswith(_SAFE_SCHEMES) or _ATTACHMENT_URL.fullmatch(value):
            return value
        return None
    if attribute == "class":
        kept = [name for name in value.split() if name in SPAN_CLASSES or _LANGUAGE_CLASS.fullmatch(name)]
        return " ".join(kept) or None
    if attribute == "style":
        return value if _CELL_STYLE.fullmatch(value.replace(" ", "")) else None
    return value


def sanitise(markup: str) -> str:
    """HTML cut down to the allow-list: nothing in it can run script or load from elsewhere."""
    return nh3.clean(markup, tags=_ALLOWED_TAGS, attributes=_ALLOWED_ATTRIBUTES, attribute_filter=_attribute,
                     url_schemes={"http", "https", "mailto"}, link_rel="noopener noreferrer nofollow",
                     strip_comments=True)


# -- the conversions ---------------------------------------------------------------------------------

class _Converters(threading.local):
    def __init__(self) -> None:
        self.markdown = wiki_grammar(for_html=False)
        self.html_markdown = wiki_grammar(for_html=True)
        self.md = _markdown_it()


_converters = _Converters()


def _no_names(login: str) -> str | None:
    return None


def _names_of(users: Mapping[str, str | None] | Callable[[str], str | None] | None) -> Callable[[str], str | None]:
    if users is None:
        return _no_names
    if callable(users):
        return users
    return users.get


def _normalised(wiki: str) -> str:
    return wiki.replace("\r\n", "\n").replace("\r", "\n").translate(_PLACEHOLDERS)


class _Cache:
    """The Markdown of texts converted lately, by grammar and text, up to a budget of
    characters: the grammar costs about 0.1 ms a character, and an issue's page is read
    again and again while its text stays. An entry holds the display names its mentions
    were shown with, and serves only while they are still the names known."""

    def __init__(self, budget: int = 16_000_000):
        self._budget = budget
        self._size = 0
        self._entries: OrderedDict[tuple[str, str], tuple[str | None, dict[str, str | None]]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, grammar: str, text: str, names: Callable[[str], str | None]) -> tuple[str | None] | None:
        """``(markdown,)`` as converted before (``(None,)``: too costly), or None if not known."""
        with self._lock:
            entry = self._entries.get((grammar, text))
            if entry is None:
                return None
            self._entries.move_to_end((grammar, text))
        markdown, shown = entry
        return (markdown,) if all(names(login) == name for login, name in shown.items()) else None

    def put(self, grammar: str, text: str, markdown: str | None, shown: dict[str, str | None]) -> None:
        key = (grammar, text)
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (markdown, shown)
            self._size += len(text) + len(markdown or "")
            while self._size > self._budget and self._entries:
                (_, old), (old_markdown, _) = self._entries.popitem(last=False)
                self._size -= len(old) + len(old_markdown or "")


_cache = _Cache()


#: The longest text converted (Jira's own limit for a text field); a longer one is plain text.
MARKUP_LIMIT = 32_767
#: How long (CPU seconds) one text's conversion may take before it is shown as plain text instead.
SECONDS_PER_TEXT = 3.0


def _convert(grammar: str, text: str, context: Context) -> str | None:
    """Normalised wiki text (see _normalised) as Markdown, by one of the grammars (by its name in
    _Converters: each thread has grammars of its own, and the cache serves them all); None for
    a text too long (MARKUP_LIMIT), too costly to convert within SECONDS_PER_TEXT (that answer
    is kept too: the same text would cost as much again), or not converted because
    ``context.deadline`` (the answer's budget) came first: a text not in the cache is then not
    even begun once that deadline has passed, and not kept as too costly."""
    if len(text) > MARKUP_LIMIT:
        return None
    cached = _cache.get(grammar, text, context.names)
    if cached is not None:
        return cached[0]
    now = time.thread_time()
    if now >= context.deadline:
        return None
    own = now + SECONDS_PER_TEXT
    cut_by_answer = context.deadline < own
    context.deadline = min(context.deadline, own)
    markdown = transform(getattr(_converters, grammar), text, context)
    if markdown is not None or not cut_by_answer:
        _cache.put(grammar, text, markdown, context.shown)
    return markdown


def _plain_html(text: str) -> str:
    """Text shown as the characters it is, its paragraphs and line breaks kept."""
    paragraphs = [part for part in text.split("\n\n") if part.strip()]
    return "".join(f'<p class="plain">{html.escape(part).replace(chr(10), "<br>")}</p>\n' for part in paragraphs)


def to_markdown(wiki: str | None, *, users: Any = None, deadline: float = float("inf")) -> str:
    """Jira wiki markup as Markdown (CommonMark with GFM tables and ``~~strike~~``), as an
    assistant or a person reads it best. ``users``: display names by login (a mapping, or a
    function of a login), for mentions; a login not known is shown as it is. A text too long
    or too costly to convert (by ``deadline``, a time.thread_time() of the calling thread, or
    within SECONDS_PER_TEXT) is answered as it is."""
    if not wiki:
        return ""
    normalised = _normalised(wiki)
    markdown = _convert("markdown", normalised, Context(_names_of(users), deadline=deadline))
    if markdown is None:
        return normalised
    return markdown.replace(CELL_BREAK, "<br>").strip("\n")


def to_html(wiki: str | None, *, attachments: Mapping[str, AttachmentRef] | None = None,
            users: Any = None, deadline: float = float("inf")) -> str:
    """Jira wiki markup as sanitised HTML for the page: headings (``h1.`` as ``<h3>``, under the
    page's own), paragraphs with Jira's line breaks, lists, tables with ``<th>``, quotes, code,
    links, mentions by display name, images from the issue's ``attachments`` (by file name:
    ``<img>`` of the content when ready, else a ``span.attachment-missing`` carrying
    ``data-attachment-id``), colours as classes. No raw HTML of the text survives as HTML.
    A text too long or too costly to convert (as for :func:`to_markdown`) is paragraphs of
    plain text (``p.plain``)."""
    if not wiki:
        return ""
    attachments = attachments or {}
    normalised = _normalised(wiki)
    text = _convert("html_markdown", normalised, Context(_names_of(users), deadline=deadline))
    if text is None:
        return _plain_html(normalised)
    return _rendered_html(text, tuple(sorted(attachments.items())))


@functools.lru_cache(maxsize=512)
def _rendered_html(markdown: str, attachments: tuple[tuple[str, AttachmentRef], ...]) -> str:
    """Markdown (as _convert made it, display names in) as sanitised HTML with the issue's
    ``attachments`` placed. Kept for the page read again: rendering and sanitising a 20 KB
    description costs some 30 ms each time, and only the text or an attachment's state changes it."""
    rendered = _converters.md.render(markdown, {"attachments": dict(attachments)})
    return sanitise(rendered.replace(CELL_BREAK, "<br>"))


def to_text(wiki: str | None) -> str:
    """Jira wiki markup as plain text on one line (for snippets and titles): what the page
    shows, without the markup; words between blocks are separated by one space."""
    return _text(_normalised(wiki)) if wiki else ""


def _text(normalised: str, seconds: float | None = None) -> str:
    budget = SECONDS_PER_TEXT if seconds is None else seconds
    markdown = _convert("html_markdown", normalised,
                        Context(_no_names, deadline=time.thread_time() + budget))
    if markdown is None:
        return " ".join(normalised.split())
    rendered = _converters.md.render(markdown, {})
    text = html.unescape(nh3.clean(rendered.replace(CELL_BREAK, " "), tags=set()))
    return " ".join(text.split())


# The pieces of markup that a snippet cut in the middle of a construct may keep: its
# opening or closing line alone, without the other half to convert it.
_CUT_MARKUP = re.compile(r"\{(?:code|noformat|quote|panel|color)(?::[^}]*)?\}|^(?:h[1-6]|bq)\.\s*")


# Whether a text may hold anything the grammar would change: a character that opens or
# closes markup, a dash or an emoticon standing alone, a line's heading, quote or list.
_MAY_HOLD_MARKUP = re.compile(r"[{}\[\]*_+^~|!\\#<>&`]|\?\?|(?<!\w)-|-(?!\w)|[:;][()pPD]|\(\S{1,7}\)"
                              r"|://|^\s*(?:h[1-6]|bq)\.|^\s*\d+[.)](?:\s|$)|^\s*=+\s*$", re.M)


def snippet_text(snippet: str | None, start: str = "[[", end: str = "]]") -> str | None:
    """A search snippet (a cut of wiki text with the match between ``start`` and ``end``) as
    plain text, the markers kept around the same words."""
    if snippet is None:
        return None
    marked = _normalised(snippet).replace(start, _MARK_OPEN).replace(end, _MARK_CLOSE)
    if _MAY_HOLD_MARKUP.search(marked) is None:
        # Most snippets are words and sentences: the grammar (~6 ms a snippet) would change nothing.
        return " ".join(marked.split()).replace(_MARK_OPEN, start).replace(_MARK_CLOSE, end)
    # A snippet is a dozen words; one of many openings (hostile text) is given 50 ms.
    text = " ".join(_CUT_MARKUP.sub(" ", _text(marked, 0.05)).split())
    return text.replace(_MARK_OPEN, start).replace(_MARK_CLOSE, end)
