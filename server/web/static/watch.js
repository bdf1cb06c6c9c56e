// The live tables (server/web/spectator.py): one WebSocket, each message a table's whole view
// (or the match's running IMPs); every table is redrawn from its view. Loads nothing else.
"use strict";

const SEATS = ["N", "E", "S", "W"];
const NAMES = { N: "North", E: "East", S: "South", W: "West" };
const SUITS = ["S", "H", "D", "C"];
const SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣", N: "NT" };
let ended = false;
let retries = 0;
let isMatch = false;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("data-") || key === "title" || key === "hidden") node.setAttribute(key, value === true ? "" : value);
    else node[key] = value;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function cardText(card) {  // "SA" -> "♠A", "HT" -> "♥10"
  const rank = card.slice(1) === "T" ? "10" : card.slice(1);
  return SYMBOL[card[0]] + rank;
}

function callText(call) {  // "1NT" -> "1NT", "4S" -> "4♠"
  if (/^[1-7]/.test(call)) return call[0] + (call.slice(1) === "NT" ? "NT" : SYMBOL[call[1]]);
  return call;
}

function callNode(call) {  // a call drawn in its suit's colour (hearts and diamonds red)
  const strain = /^[1-7]([SHDC])/.exec(call);
  return strain ? el("span", { class: "suit-" + strain[1] }, callText(call)) : callText(call);
}

function plural(n, noun) { return n + " " + noun + (n === 1 ? "" : "s"); }

function signed(n) { return n > 0 ? "+" + n : String(n); }

function resultText(r) {  // the server's one notation (4HS+1, 3NTN=, 4SXE-2), then the score
  if (!r) return "";
  if (r.aborted) return "aborted: " + r.aborted;
  let text = r.text;
  if (r.score_ns !== null && r.score_ns !== undefined) text += ", NS " + signed(r.score_ns);
  return text;
}

function contractText(board) {  // the contract of a board in play: "4♥X by South"
  const doubled = (board.contract.match(/X+$/) || [""])[0];
  return callText(board.contract.slice(0, board.contract.length - doubled.length)) + doubled + " by " + NAMES[board.declarer];
}

function tableName(label) { return /^\d+$/.test(label) ? "Table " + label : "Room " + label; }

function handView(seat, hand) {
  if (hand === null) return el("div", { class: "hand hidden" }, "hidden while a person plays");
  return el("div", { class: "hand", "data-hand": seat },
    SUITS.map((s) => el("div", { class: "suit-" + s }, SYMBOL[s] + " " + (hand[s] ? hand[s].split("").map((r) => (r === "T" ? "10" : r)).join(" ") : "—"))));
}

function seatView(view, seat) {
  const info = view.seats[seat];
  const board = view.board;
  const who = el("div", { class: "who" + (info.away && !view.ended ? " away" : "") }, NAMES[seat], " ",
    el("span", { class: "team" }, info.team || "—"),
    info.person ? el("span", { class: "person", title: "a person plays this seat" }, "person") : null);
  return el("div", { class: "seat", "data-seat": seat }, who, board ? handView(seat, board.hands[seat]) : null);
}

function centreView(board) {
  const info = [];
  if (board.contract) {
    info.push(contractText(board));
    if (board.won) info.push(el("br"), "tricks NS " + board.won.NS + " · EW " + board.won.EW);
  } else if (board.state === "auction") {
    info.push("auction");
  }
  // Each card in its seat's place (the grid keeps every row, so a lone card stays put), named.
  return el("div", { class: "centre" },
    board.trick.map((t) => el("span", { class: "played suit-" + t.card[0], "data-seat": t.seat, "data-played": t.card },
      el("span", { class: "by", title: NAMES[t.seat] }, t.seat), " ", cardText(t.card))),
    el("div", { class: "info" }, info));
}

function auctionView(board) {
  const order = ["W", "N", "E", "S"];
  const cells = [];
  for (let i = 0; i < order.indexOf(board.dealer); i++) cells.push(el("td"));
  const notes = [];
  for (const c of board.auction) {
    let cell;
    if (c.alert !== null && c.alert !== undefined) {
      notes.push(el("li", {}, callNode(c.call), ": " + (c.alert || "alerted, no explanation")));
      cell = el("td", { class: "alert", title: c.alert || "alerted", "data-call": c.call }, callNode(c.call), el("sup", {}, String(notes.length)));
    } else {
      cell = el("td", { "data-call": c.call }, callNode(c.call));
    }
    cells.push(cell);
  }
  const rows = [];
  for (let i = 0; i < cells.length; i += 4) rows.push(el("tr", {}, cells.slice(i, i + 4)));
  return [
    el("table", { class: "auction" }, el("thead", {}, el("tr", {}, order.map((s) => el("th", {}, NAMES[s])))), el("tbody", {}, rows)),
    notes.length ? el("ol", { class: "alerts" }, notes) : null,
  ];
}

function resultsView(results) {
  if (!results.length) return null;
  return el("details", { class: "results", open: true },
    el("summary", {}, "Finished boards (" + results.length + ")"),
    el("table", {},
      el("thead", {}, el("tr", {}, ["Board", "Result"].map((h) => el("th", {}, h)))),
      el("tbody", {}, results.map((r) => el("tr", { "data-result-board": r.board }, el("td", {}, r.board), el("td", {}, resultText(r)))))));
}

function tableView(view) {
  const board = view.board;
  const head = el("h2", {}, tableName(view.label),
    board ? el("span", { class: "meta" }, " · board " + board.number + " · dealer " + NAMES[board.dealer] + " · vulnerable: " + board.vul) : null,
    view.ended ? el("span", { class: "meta" }, " · session over") : null);
  const compass = el("div", { class: "compass" }, SEATS.map((s) => seatView(view, s)), board ? centreView(board) : el("div", { class: "centre" }));
  const side = el("div", { class: "side" }, board ? auctionView(board) : null,
    board && board.result ? el("div", { class: "result", "data-result": board.number }, resultText(board.result)) : null);
  return el("section", { class: "table", "data-table": view.label, "data-board": board ? board.number : null, "data-state": board ? board.state : "waiting" },
    head, el("div", { class: "layout" }, compass, side), resultsView(view.results));
}

function showTable(view) {
  const main = document.getElementById("tables");
  const empty = main.querySelector(".empty");
  if (empty) empty.remove();
  const fresh = tableView(view);
  const old = main.querySelector(`section[data-table="${CSS.escape(view.label)}"]`);
  const wasOpen = old && old.querySelector("details.results");
  const nowOpen = fresh.querySelector("details.results");
  if (wasOpen && nowOpen) nowOpen.open = wasOpen.open;  // a list the reader closed stays closed
  if (old) old.replaceWith(fresh);
  else main.append(fresh);
}

function showMatch(view) {
  const box = document.getElementById("match");
  box.hidden = !isMatch;
  box.dataset.boards = view.boards;
  box.dataset.total = view.total;
  const mean = view.mean === null ? "" : " (" + (view.mean >= 0 ? "+" : "") + view.mean.toFixed(2) + (view.stderr === null ? "" : " ± " + view.stderr.toFixed(2)) + " IMPs/board)";
  const rows = view.recent.map((b) => el("tr", { "data-match-board": b.board }, el("td", {}, b.board),
    b.rooms.map((r) => el("td", {}, r.room + ": " + resultText(r))),
    el("td", { class: b.imps > 0 ? "plus" : b.imps < 0 ? "minus" : "" }, signed(b.imps))));
  box.replaceChildren(
    el("h2", {}, "Running IMPs: ", el("span", { class: view.total > 0 ? "plus" : view.total < 0 ? "minus" : "", id: "imps" }, signed(view.total)),
      " over " + plural(view.boards, "board") + mean),
    ...(rows.length ? [el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "Board"), view.recent[0].rooms.map((r) => el("th", {}, r.room)), el("th", {}, "IMPs"))), el("tbody", {}, rows))] : []));
}

function setStatus(state, text) {
  document.body.dataset.state = state;
  document.getElementById("status").textContent = text;
}

function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.onopen = () => { retries = 0; setStatus("live", "live"); };
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.type === "hello") {
      isMatch = msg.match;
      document.title = msg.title;
      document.getElementById("title").textContent = msg.title;
    } else if (msg.type === "table") {
      showTable(msg);
    } else if (msg.type === "match") {
      showMatch(msg);
    } else if (msg.type === "end") {
      ended = true;
      setStatus("ended", "session over");
    }
  };
  ws.onclose = () => {
    if (ended) return;
    setStatus("reconnecting", "connection lost; reconnecting…");
    setTimeout(connect, Math.min(10000, 500 * 2 ** retries++));
  };
}

connect();
