// The live tournament page: reads live.json every few seconds and writes it out.
// Every nick is set as text (textContent), never parsed as markup.
"use strict";
(function () {
  const EVERY_MS = 2000;
  const base = location.pathname.replace(/[^/]*$/, "");
  const query = new URLSearchParams(location.search);
  const lang = query.get("lang");
  // ?view=screen: for a projector or a TV in the hall; the tables of the current tour
  // first, large, the standings beside them, the prize winners once it is finished.
  const screen = query.get("view") === "screen";
  if (screen) document.body.classList.add("screen");
  const live = base + "live.json" + (lang ? "?lang=" + encodeURIComponent(lang) : "");
  let myRow = null;
  let labels = {};

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function row(cells, cls) {
    const tr = el("tr", null, cls);
    for (const [text, cellCls] of cells) tr.appendChild(el("td", text, cellCls));
    return tr;
  }

  function launchData() {
    // Telegram gives a Mini App its signed launch data in the address after "#", and
    // telegram-web-app.js (when a page loads it) as Telegram.WebApp.initData.
    const tg = window.Telegram && window.Telegram.WebApp;
    if (tg && tg.initData) return tg.initData;
    const hash = new URLSearchParams(location.hash.slice(1));
    return hash.get("tgWebAppData") || "";
  }

  async function findMe() {
    const data = launchData();
    if (!data) return;
    try {
      const answer = await fetch(base + "me", { method: "POST", body: data });
      if (answer.ok) myRow = (await answer.json()).row;
    } catch (e) { /* the page works without it */ }
  }

  function standings(data) {
    document.getElementById("standings-title").textContent = labels.standings;
    const head = document.querySelector("#standings thead");
    head.replaceChildren(row([[labels.place, "n"], [labels.player], [labels.points, "n"],
                              [labels.games, "n"], [labels.wins, "n"]]));
    const body = document.querySelector("#standings tbody");
    body.replaceChildren(...data.standings.map((r, i) => {
      let nick = r.out ? r.nick + " (" + r.out + ")" : r.nick;  // why they are out
      if (r.decided) nick += " (" + r.decided + ")";  // the tie-break that settled the place
      const tr = row([[r.place === null ? labels.out : r.shown, "n"], [nick],
                      [r.points, "n"], [r.games, "n"], [r.wins, "n"]], i === myRow ? "you" : "");
      if (i === myRow) tr.cells[1].textContent = nick + " — " + labels.you;
      return tr;
    }));
  }

  function table(t) {
    const box = el("div", null, "table");
    box.dataset.code = t.code;
    box.appendChild(el("h3", t.code));
    const g = t.game;
    if (!g) {
      box.appendChild(el("p", labels.waiting, "phase"));
      box.appendChild(el("p", t.players.join(", ")));
      return box;
    }
    let phase = "#" + g.number + " · " + (g.day ? labels.day + " " + g.day + " · " : "") + g.phase;
    if (g.paused) phase += " · " + labels.paused;
    const timed = g.seconds !== null && g.seconds !== undefined;
    if (timed && !screen) phase += " · " + g.seconds + " " + labels.seconds;
    if (g.result) phase += " · " + g.result;
    box.appendChild(el("p", phase, "phase"));
    if (screen && (g.speaker || timed)) {
      // The hall reads the speaker and the clock from across the room.
      const now = el("p", null, "now");
      const who = g.seats.find((s) => s.seat === g.speaker);
      if (who) now.appendChild(el("span", "▸ " + who.seat + " · " + who.nick, "who"));
      if (timed) now.appendChild(el("span", g.seconds + " " + labels.seconds, "clock"));
      box.appendChild(now);
    }
    if (g.leaders && g.leaders.length) {
      box.appendChild(el("p", labels.leaders + ": " + g.leaders.join(", "), "nominated"));
    } else if (g.nominated && g.nominated.length) {
      box.appendChild(el("p", labels.nominated + ": " + g.nominated.join(", "), "nominated"));
    }
    const seats = el("table");
    for (const s of g.seats) {
      // A player not yet come to the table is awaited, not struck out like one who left.
      let cls = s.waiting ? "waiting" : (s.in ? "" : "out");
      if (s.seat !== null && s.seat === g.speaker) cls += " speaker";
      const warn = s.warnings ? "⚠".repeat(Math.min(s.warnings, 4)) : "";
      const state = s.seat === null ? (s.in ? labels.joined : labels.waiting_seat) : (s.left || "");
      seats.appendChild(row([[s.seat === null ? "·" : s.seat, "n seat"], [s.nick],
                             [state, "left"], [warn, "warn"]], cls.trim()));
    }
    box.appendChild(seats);
    return box;
  }

  function podium(data) {
    const box = document.getElementById("podium");
    box.hidden = !data.podium.length;
    if (!data.podium.length) return box.replaceChildren();
    const list = el("ol");
    for (const p of data.podium) list.appendChild(el("li", p.place + ". " + p.nick, "place-" + p.place.split("–")[0]));
    box.replaceChildren(el("h2", labels.podium), list);
  }

  function tours(data) {
    const holder = document.getElementById("tours");
    // The screen shows the tour being played; a phone scrolls through all of them.
    const shown = screen ? data.tours.slice(-1) : data.tours;
    holder.replaceChildren(...shown.map((tour) => {
      const part = el("section");
      part.appendChild(el("h2", tour.title));
      const grid = el("div", null, "tables");
      grid.replaceChildren(...tour.tables.map(table));
      part.appendChild(grid);
      return part;
    }));
    if (!data.tours.length) holder.replaceChildren(el("p", labels.no_tables));
  }

  async function refresh() {
    try {
      const answer = await fetch(live, { cache: "no-store" });
      if (!answer.ok) throw new Error(answer.status);
      const data = await answer.json();
      labels = data.labels;
      document.title = data.name + " · " + labels.title;
      document.getElementById("name").textContent = data.name;
      podium(data);
      standings(data);
      tours(data);
      // The tournament's clock in the page's language, not the browser's locale.
      document.getElementById("state").textContent = labels.updated + " " + data.updated;
      document.body.dataset.loaded = "1";
    } catch (e) {
      document.getElementById("state").textContent = labels.offline || "…";
    }
  }

  findMe().then(refresh);
  window.addEventListener("hashchange", () => findMe().then(refresh));
  setInterval(refresh, EVERY_MS);
})();
