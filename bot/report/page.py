"""The HTML shell shared by reports and the dashboard: one self-contained page (inline CSS and
script, nothing fetched from the network), readable on a phone."""

from __future__ import annotations

from html import escape

CSS = """
:root { --ink:#222; --muted:#666; --line:#ddd; --played:#c0392b; --best:#1f77d0; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       margin: 0 auto; max-width: 980px; padding: 0.6rem; background: #fbfaf7; }
h1 { font-size: 1.4rem; margin: 0.4rem 0; } h2 { font-size: 1.2rem; margin: 1.4rem 0 0.4rem; }
h3 { font-size: 1rem; margin: 0 0 0.4rem; }
table { border-collapse: collapse; margin: 0.4rem 0; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid var(--line); padding: 0.2rem 0.5rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.scroll { overflow-x: auto; max-width: 100%; }
.decision { border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem; margin: 0.8rem 0; background: #fff; }
.decision.doubtful { border-left: 6px solid #e6b800; }
.decision.bad { border-left: 6px solid #e67e22; }
.decision.very-bad { border-left: 6px solid #c0392b; }
.board svg { width: 100%; max-width: 560px; height: auto; display: block; }
.tag { display: inline-block; font-size: 0.8rem; padding: 0 0.4rem; border-radius: 3px; margin-left: 0.3rem;
       background: #eee; }
.tag.doubtful { background: #fff3b0; } .tag.bad { background: #ffd8a8; } .tag.very-bad { background: #f5b7b1; }
.tag.lucky, .tag.very-lucky { background: #c8f0c8; } .tag.unlucky, .tag.very-unlucky { background: #d6d6f5; }
.movetable td:nth-child(2), .movetable th:nth-child(2) { text-align: left; white-space: nowrap; }
tr.played td { font-weight: bold; color: var(--played); } tr.best td:nth-child(2) { color: var(--best); }
.ids { display: grid; grid-template-columns: max-content 1fr; gap: 0.1rem 0.6rem; font-size: 0.85rem;
       margin: 0.4rem 0 0; }
.ids dt { color: var(--muted); } .ids dd { margin: 0; overflow-wrap: anywhere; }
code.id { user-select: all; background: #f3f1ec; padding: 0 0.2rem; }
button.copy { font-size: 0.75rem; margin-left: 0.4rem; }
.missing { padding: 0.6rem; background: #fff3b0; border-radius: 6px; }
.muted { color: var(--muted); }
nav a { margin-right: 0.6rem; }
@media (max-width: 600px) { body { font-size: 14px; padding: 0.3rem; } th, td { padding: 0.15rem 0.3rem; } }
"""

COPY_SCRIPT = """
document.querySelectorAll('code.id').forEach(function (code) {
  var button = document.createElement('button');
  button.type = 'button'; button.className = 'copy'; button.textContent = 'copy';
  button.addEventListener('click', function () {
    if (navigator.clipboard) {
      navigator.clipboard.writeText(code.textContent).then(function () { button.textContent = 'copied'; },
                                                           function () { button.textContent = 'select and copy'; });
    }
  });
  code.after(button);
});
"""


def document(title: str, body: str, *, script: str = COPY_SCRIPT, head: str = "", css: str = "") -> str:
    """A whole HTML5 page with ``body`` (already HTML) and inline CSS and script."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<link rel=\"icon\" href=\"data:,\">\n"
            f"<title>{escape(title)}</title>\n{head}<style>{CSS}{css}</style>\n</head>\n<body>\n{body}\n"
            + (f"<script>{script}</script>\n" if script else "") + "</body>\n</html>\n")


def attrs(**values: object) -> str:
    """``key="value"`` pairs, escaped; ``data_x`` becomes ``data-x``, ``class_`` ``class``; None is left out."""
    return "".join(f' {k.rstrip("_").replace("_", "-")}="{escape(str(v), quote=True)}"'
                   for k, v in values.items() if v is not None)
