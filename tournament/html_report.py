"""``report.html``: the match as one self-contained page to browse (no network, nothing loaded).

Why a page beside report.md: players browse hands, not Markdown. Everything is inline: the CSS,
the plots (SVG), the hand diagrams, and a small hand viewer (inline JavaScript stepping through
each room's LIN record: auction, then the play when there is one). A plain hyperlink to BBO's
online viewer sits beside it for whoever wants it; the page itself requests nothing.

Built from the journal's records like every other output, plus two things the journal does not
hold: double-dummy tables (from the match's ``dd_cache.npz`` or its npz deal file, solved here
only for a few missing boards) and our policy's explanations of its own calls
(:mod:`engine.explain`) for the largest swings.
"""

from __future__ import annotations

import html
import math
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from bridgebot.core.stats import summarize
from bridgebot.engine.agent import AgentFactory
from bridgebot.laws.cards import SEATS
from bridgebot.laws.notation import parse_vul
from bridgebot.server.records import TableRecord
from bridgebot.tournament.ddcost import ROLES, cost_summary
from bridgebot.tournament.doubled import doubled_costs
from bridgebot.tournament.lin import board_lin
from bridgebot.tournament.records import BoardResult, MatchHeader, MeanError, RoleMeans
from bridgebot.tournament.report import (
    BINS,
    boards_text,
    largest_swings,
    match_title,
    room_board,
    room_result_text,
    svg_running_mean,
)
from bridgebot.tournament.seatings import THEM, US
from endplay.types import Deal, Penalty, Player, Vul

if TYPE_CHECKING:
    from bridgebot.laws.boards import BoardDeal

DDTable = npt.NDArray[np.uint8]
#: (board, room) -> per call of that room's auction: our explanation, or None (not our call).
Explanations = Mapping[tuple[int, str], Sequence[str | None]]

_SUITS: tuple[tuple[str, str, str], ...] = (
    ("S", "&spades;", "black"),
    ("H", "&hearts;", "red"),
    ("D", "&diams;", "red"),
    ("C", "&clubs;", "black"),
)
_STRAINS = ("&clubs;", "&diams;", "&hearts;", "&spades;", "NT")
#: Boards missing a DD table are solved here only up to this many (0.15-0.3 s each).
SOLVE_AT_MOST = 32
BBO_VIEWER = "https://www.bridgebase.com/tools/handviewer.html?lin="

# ---------------------------------------------------------------------------------- data


def dd_for_boards(
    out: Path, header: MatchHeader, boards: Sequence[BoardResult]
) -> dict[int, DDTable]:
    """DD tables by board number: the npz deal file's, the match's cache, then a few solved."""
    from bridgebot.laws.board_sets import load_npz
    from bridgebot.laws.boards import cycle_board
    from bridgebot.tournament.ddtables import ensure_dd

    tables: dict[int, DDTable] = {}
    deals_path = header.deals
    if deals_path and deals_path.endswith(".npz") and Path(deals_path).exists() and boards:
        for d in load_npz(Path(deals_path), boards=max(b.board for b in boards)):
            if d.dd is not None:
                tables[d.number] = d.dd
    todo = [cycle_board(b.board, b.deal) for b in boards if b.board not in tables]
    cache = out / "dd_cache.npz"
    if len(todo) <= SOLVE_AT_MOST:
        known = ensure_dd(todo, cache=cache) if todo else []
    else:  # too many to solve for a report: only what the match's cache already holds
        known = _from_cache(cache, todo) if cache.exists() else []
    tables.update({d.number: d.dd for d in known if d.dd is not None})
    return tables


def _from_cache(cache: Path, todo: Sequence[BoardDeal]) -> list[BoardDeal]:
    from bridgebot.laws.cards import deal_owners, owners_pbn

    with np.load(cache) as z:
        known = {
            owners_pbn(o): t.astype(np.uint8) for o, t in zip(z["owners"], z["dd"], strict=True)
        }
    found = ((d, known.get(owners_pbn(deal_owners(d.pbn)))) for d in todo)
    return [d.with_dd(t) for d, t in found if t is not None]


def explain_boards(
    make_agent: AgentFactory, us: str, boards: Sequence[BoardResult]
) -> dict[tuple[int, str], list[str | None]]:
    """Our agent's reading of every call our side made in these boards, as its seat alerts and
    ``bridgebot explain`` read them (:func:`engine.explain.reader_of`: the asking convention's
    calls by the convention); empty when our agent, built by ``make_agent``, says nothing."""
    from bridgebot.engine.agent import AgentSpecError
    from bridgebot.engine.explain import reader_of

    try:
        agent = make_agent(us, 0)
    except AgentSpecError:
        return {}
    with agent:
        reader = reader_of(agent, max_hands=8192)
        if reader is None:
            return {}
        out: dict[tuple[int, str], list[str | None]] = {}
        for b in boards:
            dealer, vul = Player.find(b.dealer), parse_vul(b.vul)
            for room in b.rooms:
                ours = [p for p, spec in zip(Player, room.seats or (), strict=True) if spec == us]
                calls = room.calls()
                texts: list[str | None] = [None] * len(calls)
                if ours and calls:
                    texts = reader.texts(dealer, vul, calls, ours)
                out[(b.board, room.room)] = texts
    return out


def par_text(dd: DDTable, vul: Vul, dealer: Player) -> str:
    """Par score (N/S view) and contracts from a DD table in the layout of docs/data.md."""
    from bridgebot.engine.dds import par

    score, found = par(dd, vul, dealer)
    contracts = ", ".join(sorted({_contract_html(c) for c in found}))
    return f"{score:+d} ({contracts or 'passed out'})"


def _contract_html(text: str) -> str:
    for sym, (_, entity, _) in zip("♠♥♦♣", _SUITS, strict=True):
        text = text.replace(sym, entity)
    return text


# ---------------------------------------------------------------------------------- pieces


def _suit(entity: str, color: str) -> str:
    return f'<span class="{color}">{entity}</span>'


def hand_html(deal: Deal, seat: Player) -> str:
    parts = deal[seat].to_pbn().split(".")
    rows = [
        f"<div>{_suit(e, c)} {html.escape(' '.join(h)) or '&mdash;'}</div>"
        for (_, e, c), h in zip(_SUITS, parts, strict=True)
    ]
    return f'<div class="hand"><b>{seat.name.capitalize()}</b>{"".join(rows)}</div>'


def diagram_html(deal_pbn: str) -> str:
    """North on top, West and East beside each other, South below (a CSS grid)."""
    deal = Deal(deal_pbn)
    cell = {p: hand_html(deal, p) for p in Player}
    return (
        '<div class="diagram">'
        f'<div class="n">{cell[Player.north]}</div><div class="w">{cell[Player.west]}</div>'
        f'<div class="e">{cell[Player.east]}</div><div class="s">{cell[Player.south]}</div>'
        "</div>"
    )


def _call_html(call: str) -> str:
    if call[-1] in "SHDC" and call[0].isdigit():
        (_, e, c) = next(s for s in _SUITS if s[0] == call[-1])
        return call[:-1] + _suit(e, c)
    return html.escape(call)


def auction_html(room: TableRecord, dealer: str, notes: Sequence[str | None]) -> str:
    """The auction in four columns (N E S W); our calls carry a numbered explanation below."""
    start = SEATS.index(dealer)
    cells = ["<td></td>"] * start
    explained: list[str] = []
    for i, call in enumerate(room.auction):
        note = notes[i] if i < len(notes) else None
        mark = ""
        if note:
            explained.append(note)
            mark = f"<sup>{len(explained)}</sup>"
        title = f' title="{html.escape(note)}"' if note else ""
        cells.append(f"<td{title}>{_call_html(call)}{mark}</td>")
    rows = ["".join(cells[i : i + 4]) for i in range(0, len(cells), 4)]
    body = "".join(f"<tr>{r}</tr>" for r in rows)
    table = (
        f'<table class="auction"><tr><th>N</th><th>E</th><th>S</th><th>W</th></tr>{body}</table>'
    )
    if explained:
        items = "".join(f"<li>{html.escape(t)}</li>" for t in explained)
        table += f'<ol class="explain">{items}</ol>'
    return table


def dd_html(dd: DDTable | None, vul: Vul, dealer: Player) -> str:
    if dd is None:
        return '<p class="dd">Double-dummy table not computed for this board.</p>'
    head = "".join(f"<th>{s}</th>" for s in _STRAINS)
    rows = "".join(
        f"<tr><th>{p}</th>" + "".join(f"<td>{int(dd[k, j])}</td>" for j in range(5)) + "</tr>"
        for k, p in ((0, "N"), (2, "S"), (1, "E"), (3, "W"))
    )
    return (
        f'<table class="dd"><tr><th></th>{head}</tr>{rows}</table>'
        f'<p class="par">Par {par_text(dd, vul, dealer)}</p>'
    )


def viewer_html(room: TableRecord) -> str:
    """The embedded viewer (inline script steps through the LIN) and a plain link to BBO's."""
    lin = board_lin(room_board(room, ""))
    link = BBO_VIEWER + urllib.parse.quote(lin, safe="")
    return (
        f'<div class="viewer" data-lin="{html.escape(lin)}"></div>'
        f'<p class="link"><a href="{html.escape(link)}">open in BBO\'s online viewer</a></p>'
    )


def board_html(
    b: BoardResult,
    dd: DDTable | None,
    explanations: Explanations,
    anchor: str,
) -> str:
    vul, dealer = parse_vul(b.vul), Player.find(b.dealer)
    rooms = []
    for room in b.rooms:
        name = room.room
        notes = explanations.get((b.board, name), ())
        north, east = room.seats[:2] if room.seats else (room.ns_team or "", room.ew_team or "")
        rooms.append(
            f'<div class="room"><h4>{html.escape(name)}: N/S {html.escape(north)}, '
            f"E/W {html.escape(east)} &rarr; {_contract_html(room_result_text(room))}"
            f"</h4>{auction_html(room, b.dealer, notes)}{viewer_html(room)}</div>"
        )
    return (
        f'<section class="board" id="{anchor}">'
        f"<h3>Board {b.board}: {b.imps:+d} IMPs (dealer {b.dealer}, vul {b.vul})</h3>"
        f'<div class="top">{diagram_html(b.deal)}<div>{dd_html(dd, vul, dealer)}</div></div>'
        f'<div class="rooms">{"".join(rooms)}</div></section>'
    )


def histogram_svg(imps: Sequence[int]) -> str:
    """Boards per IMP bin, as bars (the bins of report.md's table)."""
    counts = [sum(low <= v <= high for v in imps) for low, high in BINS]
    w, h, pad, top = 520, 240, 30, max([*counts, 1])
    bar = (w - 2 * pad) / len(BINS)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" class="histogram">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{pad}" y="{pad - 12}" font-size="12">boards per IMP result</text>',
    ]
    for i, ((low, high), n) in enumerate(zip(BINS, counts, strict=True)):
        x = pad + i * bar
        bh = (h - 3 * pad) * n / top
        label = str(low) if low == high else f"{low}..{high}"
        color = "#c33" if high < 0 else "#3a3" if low > 0 else "#888"
        parts += [
            f'<rect x="{x + 4:.1f}" y="{h - 2 * pad - bh:.1f}" width="{bar - 8:.1f}" '
            f'height="{bh:.1f}" fill="{color}"/>',
            f'<text x="{x + bar / 2:.1f}" y="{h - 2 * pad - bh - 4:.1f}" font-size="11" '
            f'text-anchor="middle">{n}</text>',
            f'<text x="{x + bar / 2:.1f}" y="{h - pad - 12:.1f}" font-size="10" '
            f'text-anchor="middle">{label}</text>',
        ]
    parts.append("</svg>")
    return "".join(parts)


def doubled_html(header: MatchHeader, boards: Sequence[BoardResult]) -> str:
    """Doubled and redoubled contracts by declaring side, as the Markdown report counts them
    (:func:`tournament.doubled.doubled_costs`, one definition), and the boards they came from."""
    costs = doubled_costs(boards, header.format)
    names = {US: header.us, THEM: header.them}
    listed = [
        f'<a href="#board-{b.board}">{b.board}</a> {html.escape(room.room)} '
        f"{_contract_html(html.escape(f'{room.contract}{room.declarer}'))}"
        for b in boards
        for room in b.rooms
        if (c := room.final_contract()) is not None and c.penalty is not Penalty.passed
    ]
    body = "".join(
        f"<tr><td>{html.escape(names[team])}</td><td>{c.declared}</td><td>{c.failed}</td>"
        f"<td>{c.imps:+d}</td><td>{c.imps_per_board:+.2f}</td></tr>"
        for team, c in costs.items()
    )
    return (
        "<h2>Doubled contracts</h2>"
        '<table class="doubled"><tr><th>declaring side</th><th>doubled contracts declared</th>'
        "<th>went down</th><th>IMPs on those boards</th><th>per board</th></tr>"
        f"{body}</table><p>IMPs are the side's own, on boards where it declared a doubled "
        f"contract that failed. {'; '.join(listed) or 'No doubled contract.'}</p>"
    )


def cost_html(header: MatchHeader, boards: Sequence[BoardResult]) -> str:
    """Each side's double-dummy cost per role, as ``summary.json`` holds it
    (:func:`tournament.ddcost.cost_summary`, one definition); "" where the match was not costed
    (``match`` without ``--dd-cost``)."""
    costs = cost_summary(header.format, boards)
    if costs is None:
        return ""

    def cell(m: MeanError, sign: str = "") -> str:
        if m.mean is None:
            return "<td>&ndash;</td>"
        spread = "" if m.stderr is None else f" &plusmn; {m.stderr:.2f}"
        return f"<td>{m.mean:{sign}.2f}{spread}</td>"

    def row(label: str, means: RoleMeans, counts: str, sign: str = "") -> str:
        cells = "".join(cell(getattr(means, role), sign) for role in ROLES)
        return f"<tr><td>{html.escape(label)}</td>{cells}{counts}</tr>"

    sides = [
        row(f"{label}: {name}", c, f"<td>{c.declared}</td><td>{c.defended}</td>")
        for label, name, c in (("us", header.us, costs.us), ("them", header.them, costs.them))
    ]
    return (
        "<h2>Double-dummy cost of the cards</h2>"
        '<table class="ddcost"><tr><th>side</th><th>declarer</th><th>defence</th>'
        "<th>opening lead</th><th>total</th><th>rooms declared</th><th>rooms defended</th></tr>"
        f"{''.join(sides)}{row('us minus them', costs.difference, '<td></td><td></td>', '+')}"
        f"</table><p>Tricks per board (mean &plusmn; standard error over {costs.boards} boards "
        "played to a contract) that each side's cards gave away against double-dummy play from "
        "the positions they were played in; a side's cost in a role is summed over the rooms "
        "where it played that role. Declarer counts dummy's cards, the defence its opening "
        "lead.</p>"
    )


# ---------------------------------------------------------------------------------- page


def html_report(
    header: MatchHeader,
    boards: Sequence[BoardResult],
    dd: Mapping[int, DDTable] | None = None,
    explanations: Explanations | None = None,
    swings: int = 5,
    title: str | None = None,
) -> str:
    """The whole page as one string, headed ``title`` (:func:`match_title` by default)."""
    dd = dd or {}
    explanations = explanations or {}
    imps = [b.imps for b in boards]
    s = summarize(imps)
    title = title or match_title(header)
    source = f"deals {header.deals}" if header.deals else f"seed {header.seed}"

    def num(x: float, fmt: str) -> str:
        return "&ndash;" if math.isnan(x) else format(x, fmt)

    top = largest_swings(boards, swings)
    rooms = [r.room for r in boards[0].rooms] if boards else []
    index_rows = "".join(
        f'<tr><td><a href="#board-{b.board}">{b.board}</a></td>'
        + "".join(f"<td>{_contract_html(room_result_text(r))}</td>" for r in b.rooms)
        + f"<td>{b.imps:+d}</td></tr>"
        for b in boards
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<link rel="icon" href="data:,">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>Format {html.escape(header.format)}, scoring "
        f"{html.escape(header.scoring)}, {boards_text(s.boards)}, {html.escape(source)}.</p>",
        '<table class="summary"><tr><th>boards</th><th>IMPs/board</th><th>standard error</th>'
        "<th>95% bootstrap interval</th><th>total IMPs</th></tr>"
        f"<tr><td>{s.boards}</td><td>{num(s.imps_per_board, '+.2f')}</td>"
        f"<td>{num(s.stderr, '.2f')}</td><td>[{num(s.ci_low, '+.2f')}, "
        f"{num(s.ci_high, '+.2f')}]</td><td>{s.total_imps:+d}</td></tr></table>",
        "<p>Claim only a difference larger than two standard errors.</p>",
        '<div class="plots">',
        f'<figure class="plot">{svg_running_mean(imps) if imps else ""}'
        "<figcaption>Running mean with its 95% band</figcaption></figure>",
        f'<figure class="plot">{histogram_svg(imps)}<figcaption>Histogram</figcaption></figure>',
        "</div>",
        doubled_html(header, boards),
        *[c for c in (cost_html(header, boards),) if c],  # nothing where not costed
        "<h2>Largest swings</h2>",
        "<p>Our calls carry our policy's explanation: the hands it makes each call with, "
        "sampled (see <code>bridgebot explain</code>).</p>",
        *(board_html(b, dd.get(b.board), explanations, f"swing-{b.board}") for b in top),
        "<h2>Every board</h2>",
        '<table class="index"><tr><th>board</th>'
        + "".join(f"<th>{html.escape(r)}</th>" for r in rooms)
        + f"<th>IMPs</th></tr>{index_rows}</table>",
        *(board_html(b, dd.get(b.board), explanations, f"board-{b.board}") for b in boards),
        f"<script>{_VIEWER_JS}</script></body></html>",
    ]
    return "\n".join(parts) + "\n"


def write_html(
    out: Path,
    header: MatchHeader,
    boards: Sequence[BoardResult],
    explanations: Explanations | None = None,
    title: str | None = None,
) -> Path:
    path = out / "report.html"
    dd = dd_for_boards(out, header, boards)
    page = html_report(header, boards, dd, explanations, title=title)
    path.write_text(page, encoding="utf-8")
    return path


_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1100px;
color:#222;padding:0 1em}
h1{font-size:1.6em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;
text-align:center}
.red{color:#c00}.black{color:#000}
.plots{display:flex;flex-wrap:wrap;gap:1em}.plot{margin:0}
.board{border:1px solid #ddd;border-radius:6px;padding:.5em 1em;margin:1em 0;background:#fcfcfc}
.top{display:flex;gap:2em;flex-wrap:wrap;align-items:flex-start}
.diagram{display:grid;grid-template-columns:9em 9em 9em;grid-template-rows:auto auto auto;
gap:.3em;font-family:ui-monospace,Menlo,monospace}
.diagram .n{grid-column:2;grid-row:1}.diagram .w{grid-column:1;grid-row:2}
.diagram .e{grid-column:3;grid-row:2}.diagram .s{grid-column:2;grid-row:3}
.hand b{display:block;font-family:system-ui,sans-serif;font-size:.85em;color:#555}
.rooms{display:flex;gap:2em;flex-wrap:wrap}.room{flex:1;min-width:320px}
.room h4{margin:.6em 0 .3em}
.auction td{width:3em}.explain{font-size:.85em;color:#333;padding-left:1.5em}
.viewer{border:1px solid #bbb;border-radius:4px;padding:.4em;margin:.4em 0;background:#fff}
.viewer button{margin-right:.3em}.viewer .vh{display:grid;grid-template-columns:repeat(4,1fr);
gap:.3em;font-family:ui-monospace,Menlo,monospace;font-size:.85em}
.link{font-size:.85em}
"""

# The hand viewer: reads each .viewer's LIN (md hands, mb calls, pc cards) and steps through the
# auction and the play; nothing is fetched.
_VIEWER_JS = """
(function(){
var SEATS=['South','West','North','East'],SYM={S:'\\u2660',H:'\\u2665',D:'\\u2666',C:'\\u2663'};
var RANKS='AKQJT98765432';
function parse(lin){var f=lin.split('|'),o={hands:[],calls:[],cards:[]};
 for(var i=0;i+1<f.length;i+=2){var k=f[i],v=f[i+1];
  if(k==='md'){var hs=v.slice(1).split(',');
   for(var h=0;h<4;h++)o.hands.push(hand(hs[h]||''));}
  else if(k==='mb')o.calls.push(v.toUpperCase());else if(k==='pc')o.cards.push(v.toUpperCase());}
 var seen={};o.hands.forEach(function(h){h.forEach(function(c){seen[c]=1;});});
 if(o.hands.length===4&&o.hands[3].length===0){['S','H','D','C'].forEach(function(s){
  for(var r=0;r<13;r++){var c=s+RANKS[r];if(!seen[c])o.hands[3].push(c);}});}
 return o;}
function hand(t){var out=[],s='';for(var i=0;i<t.length;i++){var ch=t[i];
 if('SHDC'.indexOf(ch)>=0)s=ch;else out.push(s+ch);}return out;}
function sorted(cards,s){return cards.filter(function(c){return c[0]===s;}).map(function(c){
 return c[1];}).sort(function(a,b){return RANKS.indexOf(a)-RANKS.indexOf(b);}).join('');}
function render(el,o,step){var nc=o.calls.length,played=Math.max(0,step-nc);
 var gone={};o.cards.slice(0,played).forEach(function(c){gone[c]=1;});
 var html='<div class="vh">';for(var p=0;p<4;p++){var rest=o.hands[p].filter(function(c){
  return !gone[c];});html+='<div><b>'+SEATS[p]+'</b>';['S','H','D','C'].forEach(function(s){
  html+='<div>'+SYM[s]+' '+(sorted(rest,s)||'-')+'</div>';});html+='</div>';}
 html+='</div><div>Auction: '+o.calls.slice(0,Math.min(step,nc)).map(function(c){
  c=c.replace('!','');return c==='P'?'Pass':c==='D'?'X':c==='R'?'XX':c;}).join(' ')+'</div>';
 if(played>0){var t=o.cards.slice(played-((played-1)%4)-1,played);
  html+='<div>Trick '+(Math.floor((played-1)/4)+1)+': '+t.join(' ')+'</div>';}
 html+='<div><button data-d="-999">|&lt;</button><button data-d="-1">&lt;</button>'+
  '<button data-d="1">&gt;</button><button data-d="999">&gt;|</button> step '+step+' of '+
  (nc+o.cards.length)+'</div>';el.innerHTML=html;
 el.querySelectorAll('button').forEach(function(b){b.addEventListener('click',function(){
  var n=Math.max(0,Math.min(nc+o.cards.length,step+parseInt(b.getAttribute('data-d'),10)));
  render(el,o,n);});});}
document.querySelectorAll('.viewer').forEach(function(el){
 var o=parse(el.getAttribute('data-lin'));render(el,o,o.calls.length);});
})();
"""
