// "Updated 14:02:11 (12 s ago)": the server writes the time (the same page, cached, serves many
// phones); this adds how long ago and keeps it current between polls, in the page's language.
(function () {
  "use strict";
  function label(seconds, lang) {
    var es = lang.indexOf("es") === 0;
    if (seconds < 60) return es ? "hace " + seconds + " s" : seconds + " s ago";
    var minutes = Math.floor(seconds / 60);
    return es ? "hace " + minutes + " min" : minutes + " min ago";
  }
  function tick() {
    var lang = document.documentElement.lang || "en";
    document.querySelectorAll("time[data-ago]").forEach(function (el) {
      var then = Date.parse(el.getAttribute("datetime"));
      if (!isNaN(then)) {
        var seconds = Math.max(0, Math.round((Date.now() - then) / 1000));
        el.querySelector(".ago").textContent = " (" + label(seconds, lang) + ")";
      }
    });
  }
  setInterval(tick, 1000);
  document.addEventListener("htmx:afterSwap", tick);
  document.addEventListener("DOMContentLoaded", tick);
})();

// A part of the page that refreshes itself (hx-trigger "every ...") never takes away what
// someone is doing in it: while a form in it has the focus, the refresh waits for the next
// turn; a form that keeps what was chosen in it across refreshes has an id and hx-preserve;
// and a link that had the focus has it again after the refresh (htmx restores focus by id
// only, and these links have none), without scrolling.
(function () {
  "use strict";
  function polls(elt) {
    return /^\s*every\s/.test(elt.getAttribute("hx-trigger") || "");
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var active = document.activeElement;
    if (polls(event.detail.elt) && active && active.form && event.detail.elt.contains(active)) {
      event.preventDefault();
    }
  });
  var focused = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var active = document.activeElement;
    focused = null;
    if (active && active.matches("a[href]") && event.detail.target.contains(active)) {
      focused = { href: active.getAttribute("href"), text: active.textContent };
    }
  });
  document.addEventListener("htmx:afterSwap", function () {  // in the swap's own task
    if (!focused || (document.activeElement && document.activeElement !== document.body)) {
      focused = null;
      return;
    }
    var links = Array.prototype.filter.call(document.querySelectorAll("a[href]"), function (a) {
      return a.getAttribute("href") === focused.href;
    });
    var same = links.filter(function (a) { return a.textContent === focused.text; });
    var link = same[0] || links[0];
    focused = null;
    if (link) link.focus({ preventScroll: true });
  });
})();

// A "Print" button (an invitation's QR code): the browser's own print, which the CSP allows
// only from a script file.
document.addEventListener("click", (event) => {
  if (event.target.closest("[data-print]")) window.print();
});

// Live push: a part of the page that refreshes itself and names its tournament (data-live-slug)
// also listens to the tournament's channel in its language on nginx (/live/<slug>/<language>/,
// nchan: deploy/nginx.conf).
// Each message is the tournament's version, sent the moment a rebuild commits; every part not
// already showing it (data-live-version), and that it changed (below), is fetched again within
// SPREAD_MS (each page at a random moment), at its own address with
// ?v=<version>, so a cache in front keeps one copy a version and a burst of phones makes one
// request to the origin. A fetch at a version that fails for want of the origin (too busy: 503
// with Retry-After; down: 502, 504; or the network gone) is made again after the wait the answer
// asks for (or RETRY_MS), then twice as long each time up to RETRY_MAX_MS, at the newest version,
// until the part shows it; a version heard meanwhile is fetched at once, as any. While the
// channel is open, a part's own polling runs at most every SAFETY_MS (what no rebuild
// announces: a clock, a closed stage); without the channel (no nginx, no nchan, an error) it
// polls as before.
(function () {
  "use strict";
  var SAFETY_MS = 60000;
  var SPREAD_MS = 1000;  // a second: at 5,000 phones, half of it left bursts the hall's p99 rode
  var RETRY_MS = 3000;  // when a failed fetch's answer names no wait (config/queue_limit.py)
  var RETRY_MAX_MS = 30000;
  var waiting = 0;  // the timer of the fetch that waits its moment (0: none)
  var named = [];  // the tables the versions heard since the last fetch named
  var namedAll = false;  // one of them named none: every part fetches
  var loaded = Date.now();
  var open = false;
  var version = null;
  var fetched = {};  // a part's id: when it was last asked for
  var got = {};  // a part's id: the version it was last fetched at
  var failed = {};  // a part's id: fetches at a version that failed in a row
  var retrying = {};  // a part's id: the timer of its next try (0: none)
  function parts() {
    return Array.prototype.filter.call(document.querySelectorAll("[data-live-slug]"), function (el) {
      return el.id && el.getAttribute("hx-get");
    });
  }
  function versioned(path) {
    return /[?&]v=/.test(path || "");
  }
  function fetchAt(el, at) {
    var url = new URL(el.getAttribute("hx-get"), window.location.href);
    url.searchParams.set("v", at);
    fetched[el.id] = Date.now();
    got[el.id] = at;
    // The part's own hx-select and hx-swap apply (it is the source).
    var done = window.htmx.ajax("GET", url.pathname + url.search, { source: el, target: el });
    if (done && done.catch) done.catch(function () {});
  }
  // A message is the version, then the ids of the tables whose results it changed ("12-40 7,9";
  // "12-40 -": none); the version alone: every part. A table's part (its sheet, a player's page: data-live-table)
  // fetches only when its table changed; the standings always.
  function heard(event) {
    var words = String(event.data || "").trim().split(/\s+/);
    var at = words[0];
    if (!at || at === version) return;
    var tables = words.length > 1 ? words[1].split(",") : null;
    version = at;
    document.dispatchEvent(new CustomEvent("roundhouse:live", { detail: { version: at, at: Date.now() } }));
    // Each page waits a moment of its own (up to SPREAD_MS) before it fetches, so the phones of
    // a hall do not all ask in the same instant: the venue's Wi-Fi and the cache see the burst
    // spread over a second instead of at once (docs/PERFORMANCE.md, "Confirmation to phone"). Versions heard meanwhile join the wait: one
    // fetch at the newest, for every table any of them named.
    if (!tables) {
      namedAll = true;
    } else {
      named = named.concat(tables);
    }
    if (!waiting) waiting = window.setTimeout(fetchNamed, Math.random() * SPREAD_MS);
  }
  function fetchNamed() {
    var at = version;
    var all = namedAll;
    var tables = named;
    waiting = 0;
    namedAll = false;
    named = [];
    parts().forEach(function (el) {
      var table = el.getAttribute("data-live-table");
      if (table && !all && tables.indexOf(table) < 0) {
        got[el.id] = at;  // unchanged at this version
      } else if (el.getAttribute("data-live-version") !== at) {
        fetchAt(el, at);
      }
    });
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var el = event.detail.elt;
    if (!el || !el.id || !el.hasAttribute("data-live-slug")) return;
    if (versioned(event.detail.pathInfo && event.detail.pathInfo.requestPath)) return;
    if (open && Date.now() - (fetched[el.id] || loaded) < SAFETY_MS) {
      event.preventDefault();  // a poll, while the channel says when to fetch
      return;
    }
    fetched[el.id] = Date.now();
  });
  // A poll that was under way when a version came may have swapped in the part as it was
  // before: fetched again at the version.
  document.addEventListener("htmx:afterSwap", function (event) {
    var path = event.detail.pathInfo && event.detail.pathInfo.requestPath;
    var el = document.getElementById(event.detail.elt && event.detail.elt.id);
    if (!el || !version || versioned(path) || !el.hasAttribute("data-live-slug")) return;
    if (got[el.id] !== version && el.getAttribute("data-live-version") !== version) {
      fetchAt(el, version);
    }
  });
  function retry(event) {
    var el = event.detail.elt;
    var path = event.detail.pathInfo && event.detail.pathInfo.requestPath;
    if (!el || !el.id || !el.hasAttribute("data-live-slug") || !versioned(path)) return;
    if (retrying[el.id]) return;
    var xhr = event.detail.xhr;
    var status = xhr ? xhr.status : 0;
    if (status && [502, 503, 504].indexOf(status) < 0) return;  // not a busy or absent origin
    var asked = status ? parseInt(xhr.getResponseHeader("Retry-After"), 10) : NaN;
    var tries = (failed[el.id] || 0) + 1;
    failed[el.id] = tries;
    var ms = Math.min((asked > 0 ? asked * 1000 : RETRY_MS) * Math.pow(2, tries - 1), RETRY_MAX_MS);
    retrying[el.id] = window.setTimeout(function () {
      retrying[el.id] = 0;
      var part = document.getElementById(el.id);
      if (part && version && part.getAttribute("data-live-version") !== version) {
        fetchAt(part, version);
      }
    }, ms + Math.random() * SPREAD_MS);
  }
  document.addEventListener("htmx:responseError", retry);
  document.addEventListener("htmx:sendError", retry);
  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.elt && event.detail.elt.id) failed[event.detail.elt.id] = 0;
  });
  function listen() {
    var first = parts()[0];
    if (!first || !window.EventSource || !window.htmx) return;
    var slug = first.getAttribute("data-live-slug");
    // The channel of the page's language: the worker warms a new version only in the
    // languages some page listens in (scoring/announce.py).
    var lang = (document.documentElement.lang || "en").slice(0, 2).toLowerCase();
    var source = new EventSource("/live/" + encodeURIComponent(slug) + "/" + lang + "/");
    source.onopen = function () { open = true; };
    // Reconnecting (EventSource does it by itself) or refused for good (a 404 without nchan):
    // the parts poll meanwhile.
    source.onerror = function () { open = false; };
    source.onmessage = heard;
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", listen);
  } else {
    listen();
  }
})();
