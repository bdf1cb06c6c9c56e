// The person's page: draws what the server sends over /ws and sends the person's actions back.
// The server decides what is legal and whose turn it is; the buttons only mirror it.
// Stable hooks (docs/web.md): body[data-state], [data-call], [data-card], [data-next].
"use strict";

const SYM = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
const SEATS = "NESW";
const NAMES = { N: "North", E: "East", S: "South", W: "West" };
const STRAINS = ["C", "D", "H", "S", "NT"];
const CALLS = ["Pass", "X", "XX"];
for (let level = 1; level <= 7; level++) for (const s of STRAINS) CALLS.push(level + s);

let view = null;       // the last table the server sent
let socket = null;
let pending = false;   // an action is on its way: nothing is clickable until the server answers
let typed = "";
let typedTimer = null;
let retry = 500;
let sentAt = null;     // when the last action left, for the time until the table answers
window.bridgebotTimings = [];  // milliseconds from an action to the next decision on the page

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

const red = (suit) => suit === "H" || suit === "D";
function strainText(s) { return s === "NT" ? "NT" : SYM[s]; }
function callText(call) {
  if (/^[1-7]/.test(call)) return call[0] + strainText(call.slice(1));
  return call;
}
function callNode(call) {
  const strain = call.slice(1);
  return el("span", { class: /^[1-7][HD]$/.test(call) ? "red" : "", text: callText(call) });
}
function cardNode(card) {
  return el("span", { class: "card" + (red(card[0]) ? " red" : ""), text: SYM[card[0]] + card[1].replace("T", "10") });
}

// ------------------------------------------------------------------ connection

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  socket = new WebSocket(scheme + location.host + "/ws");
  socket.onopen = () => { retry = 500; $("connection").textContent = ""; };
  socket.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.view) {
      view = msg.view;
      pending = false;
      if (sentAt !== null && view.state !== "waiting") {
        window.bridgebotTimings.push(performance.now() - sentAt);
        sentAt = null;
      }
      render();
    }
    if (msg.refused) { pending = false; sentAt = null; say(msg.refused); render(); }
  };
  socket.onclose = () => {
    socket = null;
    $("connection").textContent = "reconnecting\u2026";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

function send(action) {
  if (!socket || socket.readyState !== WebSocket.OPEN || pending) return;
  pending = true;
  sentAt = performance.now();
  socket.send(JSON.stringify(action));
  render();
}

function say(text) {
  const box = $("message");
  box.textContent = text;
  box.classList.add("shown");
  clearTimeout(say.timer);
  say.timer = setTimeout(() => box.classList.remove("shown"), 3000);
}

// ------------------------------------------------------------------ drawing

function state() { return pending ? "waiting" : (view ? view.state : "waiting"); }

// Draw a part only when what it shows changed, so the elements a person's script has found stay
// in the page while nothing changes for them.
function keyed(id, key, draw) {
  const node = $(id);
  if (node.dataset.key === key) return;
  node.dataset.key = key;
  draw();
}

function render() {
  document.body.dataset.state = state();
  const t = view && (view.done || view.table);
  document.body.dataset.board = t ? t.board : "";
  document.body.dataset.declarer = t && t.declarer ? t.declarer : "";
  document.body.dataset.seat = view && view.seat ? view.seat : "";
  const st = state();
  drawInfo(t);
  keyed("table", JSON.stringify([st, view && view.seat, t, view && view.done && view.done.hands]), () => drawTable(t));
  keyed("auction", JSON.stringify([st, t && t.board, t && t.dealer, t && t.auction]), () => drawAuction(t));
  drawBox(t);
  keyed("history", JSON.stringify(view && view.history), drawHistory);
  keyed("done", JSON.stringify(view && view.done), drawDone);
  keyed("summary", JSON.stringify([st, view && view.summary]), drawSummary);
}

function drawInfo(t) {
  const info = $("info");
  info.textContent = "";
  if (!view) return;
  const parts = [];
  if (t) {
    parts.push("Board " + t.board, "Dealer " + NAMES[t.dealer], "Vul " + t.vul);
    if (t.contract) parts.push("Contract " + t.contract.slice(0, -1) + " by " + NAMES[t.declarer]);
  }
  const status = {
    "waiting": view.note || "Waiting for the other players\u2026",
    "your-call": "Your call",
    "your-card": "Your card",
    "dummy-card": "Play from dummy",
    "board-done": "Board over",
    "session-done": "Session over",
  }[state()];
  info.append(el("span", { text: parts.join(" \u00b7 ") }), " ", el("strong", { text: " " + status }));
}

function position(seat) {
  const me = SEATS.indexOf(view.seat || "S");
  return (SEATS.indexOf(seat) - me + 4) % 4;
}

function handRows(cards, clickable, legal) {
  // cards: {S: [...], H: [...], ...}; clickable: whether these cards carry data-card.
  const rows = [];
  for (const suit of ["S", "H", "D", "C"]) {
    const row = el("div", { class: "suit-row" }, el("span", { class: "sym" + (red(suit) ? " red" : ""), text: SYM[suit] }));
    for (const card of cards[suit] || []) {
      const label = card[1].replace("T", "10");
      if (clickable) {
        const ok = legal.includes(card) && !pending;
        row.append(el("button", {
          class: "card" + (red(suit) ? " red" : ""), "data-card": card, disabled: !ok,
          "aria-disabled": ok ? "false" : "true", "aria-label": card, text: label,
          onclick: () => send({ action: "card", card }),
        }));
      } else {
        row.append(el("span", { class: "card" + (red(suit) ? " red" : ""), text: label }));
      }
    }
    rows.push(row);
  }
  return rows;
}

function bySuit(list) {
  const out = { S: [], H: [], D: [], C: [] };
  for (const c of list) out[c[0]].push(c);
  return out;
}

function drawTable(t) {
  $("table").style.visibility = t ? "" : "hidden";
  $("auction-panel").hidden = $("box-panel").hidden = !t;
  for (let p = 0; p < 4; p++) $("pos" + p).textContent = "";
  $("trick").textContent = "";
  $("tricks-won").textContent = "";
  if (!view || !t) return;
  const me = view.seat || "S";
  const st = state();
  const legal = t.legalCards || [];
  for (const seat of SEATS) {
    const box = $("pos" + position(seat));
    box.classList.toggle("to-act", t.toAct === seat && !view.done);
    let label = NAMES[seat] + (seat === me ? " (you)" : "");
    if (t.dummySeat === seat) label += " \u2013 dummy";
    if (t.declarer === seat) label += " \u2013 declarer";
    box.append(el("div", { class: "name", text: label }));
    if (view.done && view.done.hands) {
      box.append(...handRows(bySuit(view.done.hands[seat]), false, []));
    } else if (seat === me) {
      box.append(...handRows(t.hand, true, st === "your-card" ? legal : []));
    } else if (seat === t.dummySeat && t.dummy) {
      const mine = t.declarer === me;
      box.append(...handRows(t.dummy, mine, st === "dummy-card" ? legal : []));
    }
  }
  const shown = t.trick && t.trick.length ? t.trick : (t.lastTrick || []);
  for (const played of shown) {
    $("trick").append(el("div", { class: "played p" + position(played.seat) },
      cardNode(played.card), el("span", { class: "who", text: NAMES[played.seat] })));
  }
  if (t.won) {
    const ours = "NS".includes(me) ? "ns" : "ew";
    const theirs = ours === "ns" ? "ew" : "ns";
    $("tricks-won").textContent = `Tricks: you ${t.won[ours]}, they ${t.won[theirs]}`;
  }
}

function drawAuction(t) {
  const head = $("auction").tHead.rows[0];
  const body = $("auction").tBodies[0];
  head.textContent = "";
  body.textContent = "";
  if (!t) return;
  for (const seat of "WNES") head.append(el("th", { text: NAMES[seat] }));
  let row = el("tr");
  const skip = "WNES".indexOf(t.dealer);
  for (let i = 0; i < skip; i++) row.append(el("td"));
  t.auction.forEach((entry, index) => {
    if (row.children.length === 4) { body.append(row); row = el("tr"); }
    const cell = el("td", { class: "call", title: entry.alert ? "Alert: " + entry.alert : "what does it mean?",
      onclick: () => explain(t.board, index, entry) }, callNode(entry.call));
    if (entry.alert !== null && entry.alert !== undefined) cell.append(el("span", { class: "alert", text: "!" }));
    row.append(cell);
  });
  if (state() === "your-call" && row.children.length === 4) { body.append(row); row = el("tr"); }
  if (state() === "your-call") row.append(el("td", { text: "?" }));
  if (row.children.length) body.append(row);
}

function explain(board, index, entry) {
  const box = $("explanation");
  const who = NAMES[SEATS[(SEATS.indexOf(view.done ? view.done.dealer : view.table.dealer) + index) % 4]];
  const head = `${who}'s ${callText(entry.call)}: `;
  // A call its bidder alerted means what the alert said: never replaced by our bot's guess.
  if (entry.alert) { box.textContent = head + "alerted: " + entry.alert; return; }
  if (!view.explain) { box.textContent = head + "no explanation here"; return; }
  box.textContent = head + "asking the bot\u2026";
  fetch(`/api/explain?board=${board}&index=${index}`)
    .then((r) => r.json())
    .then((r) => { box.textContent = head + (r.text || r.error); })
    .catch(() => { box.textContent = head + "no answer"; });
}

function drawBox(t) {
  const box = $("box");
  if (!box.children.length) {
    const wide = el("div", { class: "wide" });
    for (const call of CALLS) {
      const b = el("button", { "data-call": call, disabled: true, "aria-label": call,
        class: call === "Pass" ? "pass" : call.startsWith("X") ? "dbl" : "",
        onclick: () => send({ action: "call", call }) }, callNode(call));
      (call.length <= 2 && !/^[1-7]/.test(call) || call === "Pass" ? wide : box).append(b);
    }
    box.prepend(wide);
  }
  const legal = state() === "your-call" && t && t.legalCalls ? t.legalCalls : [];
  for (const b of box.querySelectorAll("button[data-call]")) {
    const ok = legal.includes(b.dataset.call);
    b.disabled = !ok;
    b.setAttribute("aria-disabled", ok ? "false" : "true");
  }
}

function drawHistory() {
  const list = $("history");
  list.textContent = "";
  for (const line of (view && view.history) || []) {
    let text = `Board ${line.board}: ${line.result}`;
    if (line.otherResult) text += `; other room ${line.otherResult}`;
    if (line.imps !== undefined && line.imps !== null) text += `; ${line.imps >= 0 ? "+" : ""}${line.imps} IMPs`;
    list.append(el("li", { text }));
  }
}

function auctionLine(auction) {
  return auction.map((e) => callText(e.call || e)).join(" ");
}

function signed(n) { return (n >= 0 ? "+" : "") + n; }

function plural(n, noun) { return n + " " + noun + (n === 1 ? "" : "s"); }

function drawDone() {
  const d = view && view.done;
  $("done").hidden = !d;
  $("next").toggleAttribute("data-next", !!d);  // the hook is there only while it can be used
  const box = $("done-body");
  box.textContent = "";
  if (!d) return;
  const mine = el("div", { class: "your-room" },
    el("h2", { text: `Board ${d.board} is over` }),
    el("p", { text: d.contract ? `Contract ${d.contract.slice(0, -1)} by ${NAMES[d.declarer]}` : "Passed out" }),
    el("p", { text: "Auction: " + (auctionLine(d.auction) || "\u2013") }),
    el("p", { class: "result", text: `Result: ${d.result.text}, North-South ${signed(d.result.score_ns)}` }));
  box.append(mine);
  if (d.other) {
    const o = d.other;
    mine.append(el("p", { class: "imps", text: `${signed(o.imps)} IMPs for your side` }));
    box.append(el("div", { class: "other-room" },
      el("h3", { text: "The other room (four bots)" }),
      el("p", { text: "Auction: " + (auctionLine(o.auction) || "\u2013") }),
      el("p", { text: `Contract: ${o.contract || "passed out"}` }),
      el("p", { text: `Result: ${o.result}, North-South ${signed(o.score_ns)}` })));
  }
  if (d.dd) {
    const table = el("table", { class: "dd" });
    table.append(el("tr", {}, el("th"), ...["C", "D", "H", "S", "NT"].map((s) => el("th", { text: strainText(s) }))));
    d.dd.forEach((row, i) => table.append(el("tr", {}, el("th", { text: NAMES[SEATS[i]] }), ...row.map((n) => el("td", { text: String(n) })))));
    box.append(el("div", { class: "dd-result" }, el("h3", { text: "Double-dummy tricks" }), table));
  }
}

function drawSummary() {
  const box = $("summary");
  const s = view && view.state === "session-done" && view.summary;
  box.hidden = !s;
  box.textContent = "";
  if (!s) return;
  box.append(el("h2", { text: "Session over" }));
  if (s.imps_per_board !== undefined && s.imps_per_board !== null) {
    const se = s.stderr === null || s.stderr === undefined ? "" : ` \u00b1 ${s.stderr.toFixed(2)}`;
    box.append(el("p", { class: "imps", text: `${s.imps_per_board >= 0 ? "+" : ""}${s.imps_per_board.toFixed(2)} IMPs per board${se} over ${plural(s.boards, "board")} (total ${s.imps >= 0 ? "+" : ""}${s.imps} IMPs)` }));
  } else {
    box.append(el("p", { text: `${plural(s.boards, "board")} played.` }));
  }
  if (s.report) box.append(el("p", {}, el("a", { href: s.report, text: "The match report (every board, both rooms)" })));
  if (s.out) box.append(el("p", { class: "muted", text: "Files: " + s.out }));
}

// ------------------------------------------------------------------ keyboard

function typedCall(text) {
  const t = text.toUpperCase().replace(/NT$/, "NT");
  if (t === "P") return "Pass";
  if (t === "X" || t === "D") return "X";
  if (t === "XX" || t === "R") return "XX";
  const m = /^([1-7])(C|D|H|S|N|NT)$/.exec(t);
  if (m) return m[1] + (m[2] === "N" ? "NT" : m[2]);
  return null;
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const st = state();
  if (event.key === "Escape") { typed = ""; $("typed").textContent = ""; return; }
  if (st === "board-done" && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault(); send({ action: "next" }); return;
  }
  if (event.key.length !== 1 && event.key !== "Enter") return;
  const legal = view && view.table ? (st === "your-call" ? view.table.legalCalls : view.table.legalCards) || [] : [];
  if (event.key !== "Enter") typed += event.key.toUpperCase();
  $("typed").textContent = typed;
  clearTimeout(typedTimer);
  typedTimer = setTimeout(() => { typed = ""; $("typed").textContent = ""; }, 2000);
  if (st === "your-call") {
    const call = typedCall(typed);
    const waitForMore = (typed === "X" && legal.includes("XX") && !legal.includes("X")) || /^[1-7]N$/.test(typed);
    if (call && legal.includes(call) && (!waitForMore || event.key === "Enter")) { typed = ""; send({ action: "call", call }); }
    else if (call && legal.includes(call) === false && !waitForMore && !/^[1-7]$/.test(typed)) { say(callText(call) + " is not legal now"); typed = ""; }
    else if (typed.length > 3) typed = "";
  } else if (st === "your-card" || st === "dummy-card") {
    let card = typed.replace("10", "T");
    if (/^[AKQJT2-9][SHDC]$/.test(card)) card = card[1] + card[0];
    if (/^[SHDC][AKQJT2-9]$/.test(card)) {
      typed = "";
      if (legal.includes(card)) send({ action: "card", card }); else say(card + " is not playable now");
    } else if (typed.length > 3) typed = "";
  } else {
    typed = "";
  }
  $("typed").textContent = typed;
}

document.addEventListener("keydown", onKey);
$("next").addEventListener("click", () => send({ action: "next" }));
render();
connect();
