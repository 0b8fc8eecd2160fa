// Round entry on a tablet: the form is sent to the API with its Idempotency-Key, and kept on the
// tablet (localStorage) until the server has it. While the network is down the page says so and
// resends by itself; the server counts the entry once however often it arrives. What was typed and
// not saved comes back when the page opens again: said, checked by the server as if sent, and
// discardable. On the table list (data-list-only) it only marks the rounds typed and not saved.
(function () {
  "use strict";

  var OUTBOX = "rh-outbox";
  var RETRY_MS = 4000;
  var SEND_TIMEOUT_MS = 20000;  // a request the venue's Wi-Fi never answers is given up and resent
  var SWITCH_TIMEOUT_MS = 6000;  // a round asked of the network for this long opens from its copy
  // The resend under way, whichever round's page started it: a page the round switch puts in
  // place waits for the one before it to finish instead of sending the same entries beside it.
  var sending = Promise.resolve();

  // The page's entry form and its sending, started as the page opens and again each time the round
  // switch below puts another round's page in place (stop() lets the one before go).
  function start(fromCopy, listOnly) {
    var stopped = false;
    var form = document.getElementById("round-form");
    var banner = document.getElementById("offline-banner");
    var retryTimer = null;
    var draining = null;  // the resend in progress: one at a time, however often flush is called
    var waitingHere = null;  // this page's entry, kept until the server has it (one a round)

    // The page's words, in its language: enter_round.html renders them on the banner.
    function say(name, english) {
      return (banner && banner.dataset[name]) || english;
    }

    function readOutbox() {
      try {
        return JSON.parse(localStorage.getItem(OUTBOX) || "[]");
      } catch (error) {
        return [];
      }
    }

    function writeOutbox(entries) {
      localStorage.setItem(OUTBOX, JSON.stringify(entries));
    }

    function keep(entry) {
      var entries = readOutbox().filter(function (e) { return e.url !== entry.url; });
      entries.push(entry);
      writeOutbox(entries);
    }

    function drop(entry) {
      writeOutbox(readOutbox().filter(function (e) { return e.key !== entry.key; }));
    }

    // An entry the server refused stays on the tablet, not sent again, until its page shows why.
    function markRefused(entry, status, body) {
      writeOutbox(readOutbox().map(function (e) {
        if (e.key !== entry.key) return e;
        e.refused = {status: status, body: body};
        return e;
      }));
    }

    function showBanner(text, reveal) {
      if (!banner) return;
      banner.textContent = text;
      banner.hidden = !text;
      // Brought into view when Save is pressed, not at each retry: the official may be typing.
      if (text && reveal && banner.scrollIntoView) banner.scrollIntoView({block: "nearest"});
    }

    // The page an entry was typed on; entries kept by an earlier version of this script have no
    // pageUrl, and their check page's address is the entry page's with "check/" after it.
    function pageOf(entry) {
      return entry.pageUrl || (entry.checkUrl || "").replace(/check\/$/, "");
    }

    // The CSRF token as the server sees it now: signing in again (in another tab) gives a new one,
    // and an entry queued before must go with that one, not the token of the page it was typed on.
    function csrfToken(entry) {
      var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
      return match ? decodeURIComponent(match[1]) : entry.csrf;
    }

    function send(entry) {
      var headers = {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "X-CSRFToken": csrfToken(entry),
        "Idempotency-Key": entry.key,
        // An unusual score not yet checked is refused, not stored: the page asks the official.
        "Prefer": "handling=strict"
      };
      if (entry.ifMatch) headers["If-Match"] = entry.ifMatch;
      var options = {
        method: "PUT",
        credentials: "same-origin",
        headers: headers,
        body: JSON.stringify(entry.body)
      };
      if (window.AbortController) {
        var controller = new AbortController();
        window.setTimeout(function () { controller.abort(); }, SEND_TIMEOUT_MS);
        options.signal = controller.signal;
      }
      return fetch(entry.url, options);
    }

    function scheduleRetry() {
      if (stopped) return;
      if (retryTimer === null) retryTimer = window.setTimeout(flush, RETRY_MS);
    }

    // Resend everything still on the tablet, one entry at a time; a second call while a resend is
    // under way (the network coming back during a retry) joins it instead of sending twice.
    function flush() {
      if (retryTimer !== null) {
        window.clearTimeout(retryTimer);
        retryTimer = null;
      }
      if (!draining) {
        var done = function () { draining = null; };
        draining = sending.then(function () {
          followWaiting();  // sent, or refused, by the page before this one meanwhile
          return drain();
        }).then(done, done);
        sending = draining;
      }
      return draining;
    }

    // Each entry in turn. The network down (or the server failing) stops the round until the next
    // retry; an entry refused for the session (signed out, or an account that may not enter it)
    // waits for the next retry too, but does not hold up the entries after it.
    function drain() {
      var entries = readOutbox().filter(function (e) { return !e.refused; });
      var waiting = [];
      function next(index) {
        if (index >= entries.length || stopped) return Promise.resolve();
        var entry = entries[index];
        return send(entry).then(function (response) {
          if (response.status >= 500) throw new Error("server " + response.status);
          if (response.status === 401 || response.status === 403) {
            waiting.push(entry);
            return next(index + 1);
          }
          return settle(entry, response).then(function () { return next(index + 1); });
        });
      }
      return next(0).then(function () {
        if (!waiting.length) return;
        if (waiting.some(onThisPage)) {
          showBanner(say("signedOut", "Not sent yet: sign in again (in another tab) and it will be sent."));
        }
        scheduleRetry();
      }).catch(function () {
        if (readOutbox().some(function (e) { return !e.refused && onThisPage(e); })) {
          showBanner(say("notSent", "Not sent yet: will send when the connection returns."));
        }
        scheduleRetry();
      });
    }

    function onThisPage(entry) {
      return form && form.dataset.apiUrl === entry.url;
    }

    function settle(entry, response) {
      if (response.ok) {
        drop(entry);
        if (entry.draftKey) localStorage.removeItem(entry.draftKey);
        if (onThisPage(entry) && !stopped) window.location.assign(entry.checkUrl);
        return Promise.resolve();
      }
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (!onThisPage(entry) || stopped) {
          markRefused(entry, response.status, body);  // shown when its page is opened
          showRefusedElsewhere();
          return;
        }
        drop(entry);
        waitingHere = null;  // refused here: nothing waits to go any more
        unlock();
        showBanner("");
        showErrors(response.status, body);
      });
    }

    // Entries typed on other pages that the server refused: named, with a link to each, where
    // they are shown with the reason and what was typed.
    function showRefusedElsewhere() {
      var list = document.getElementById("refused-elsewhere");
      if (!list) return;
      var refused = readOutbox().filter(function (e) { return e.refused && !onThisPage(e); });
      list.innerHTML = "";
      refused.forEach(function (entry) {
        var item = document.createElement("li");
        var link = document.createElement("a");
        link.href = pageOf(entry);
        link.textContent = entry.label || pageOf(entry);
        item.appendChild(link);
        list.appendChild(item);
      });
      list.closest(".refused").hidden = !refused.length;
    }

    // A refused entry of this page: what was sent goes back as the draft of the version it was
    // typed over, so a newer version saved meanwhile is shown, not overwritten (see restoreDraft),
    // and the reason is shown.
    function showRefusedHere(entry) {
      drop(entry);
      var draft = {base: entry.ifMatch || "", pips: {}, typed: {}, checked: {}, went_out: "", reason: ""};
      entry.body.scores.forEach(function (score) {
        draft.pips["pips-" + score.player] = String(score.pips);
        if (score.went_out) draft.went_out = String(score.player);
        if (score.checked) draft.checked["pips-" + score.player] = {pips: String(score.pips), text: ""};
      });
      if (entry.body.blocked) draft.went_out = "blocked";
      draft.reason = entry.body.reason || "";
      draft.savedAt = entry.savedAt || "";
      localStorage.setItem(form.dataset.draftKey, JSON.stringify(draft));
      restoreDraft({});
      updateTotals();
      showErrors(entry.refused.status, entry.refused.body);
    }

    // Errors, and unusual scores asked about, are shown by entry-errors.js, where the page says.
    var errors = form ? window.RoundhouseEntryErrors(form, say, collect) : null;
    function showErrors(status, body) { errors.show(status, body); }
    function clearErrors() { errors.clear(); }

    function lock(text) {
      form.querySelectorAll("input, button").forEach(function (el) { el.disabled = true; });
      showBanner(text, true);
    }

    function unlock() {
      form.querySelectorAll("input, button").forEach(function (el) { el.disabled = false; });
    }

    function pipsValue(text) {
      var trimmed = text.trim();
      return /^[0-9]+$/.test(trimmed) ? parseInt(trimmed, 10) : trimmed;
    }

    function collect() {
      var wentOut = form.querySelector("input[name=went_out]:checked");
      var choice = wentOut ? wentOut.value : "";
      var scores = [];
      form.querySelectorAll(".player-row[data-player]").forEach(function (row) {
        var id = row.dataset.player;
        var score = {
          player: parseInt(id, 10),
          pips: pipsValue(row.querySelector("input.pips").value),
          went_out: choice === id
        };
        // Checked only for the very value the official confirmed.
        var box = row.querySelector(".unusual-check input");
        if (box && box.checked && box.value === String(score.pips)) score.checked = true;
        scores.push(score);
      });
      var body = {blocked: choice === "blocked", scores: scores};
      var reason = form.querySelector("input[name=reason]");
      if (reason) body.reason = reason.value;
      return body;
    }

    // What was typed and not saved (entry-drafts.js, loaded first where the page needs it).
    var drafts = window.RoundhouseEntryDrafts ? window.RoundhouseEntryDrafts(form, {
      errors: errors,
      pipsValue: pipsValue,
      collect: collect,
      showCleared: function () { showCleared(); },
      updateTotals: function () { updateTotals(); },
      csrfToken: csrfToken,
      dropRefusedHere: function () {
        writeOutbox(readOutbox().filter(function (e) { return !(e.refused && onThisPage(e)); }));
      },
      touched: function () { return touched; }
    }) : null;
    function saveDraft() { if (drafts) drafts.save(); }
    function restoreDraft(options) { return drafts ? drafts.restore(options) : undefined; }
    function checkRestored() { return drafts.check(); }
    function discardDraft() { drafts.discard(); }
    function showDraftsHere() { if (drafts) drafts.markList(); }

    function updateTotals() {
      form.querySelectorAll("input.pips").forEach(function (input) {
        var row = input.closest(".player-row");
        var after = row.querySelector(".after");
        var value = input.value.trim();
        if (/^[0-9]+$/.test(value)) {
          row.querySelector(".after-value").textContent =
            parseInt(input.dataset.before, 10) + parseInt(value, 10);
          after.hidden = false;
        } else {
          after.hidden = true;
        }
      });
    }

    // Going out scores 0: the player marked as went out gets 0, and what was typed for them is
    // said beside it, with a button that puts it back (and takes the mark off); it comes back by
    // itself when the mark moves to someone else (a mistaken tap, or arrowing through the choices).
    function wentOutChanged(choice) {
      form.querySelectorAll("input.pips").forEach(function (input) {
        var chosen = input.id === "pips-" + choice;
        if (chosen && input.value.trim() !== "0") {
          input.dataset.typed = input.value;
          input.value = "0";
        } else if (!chosen && input.dataset.typed !== undefined) {
          if (input.value === "0") input.value = input.dataset.typed;
          delete input.dataset.typed;
        }
      });
      showCleared();
    }

    // Each row whose typed pips went out's 0 replaced: what was typed, and the way back.
    function showCleared() {
      form.querySelectorAll("input.pips").forEach(function (input) {
        var note = input.closest(".player-row").querySelector(".cleared");
        if (!note) return;
        var typed = input.dataset.typed;
        note.hidden = !typed || !typed.trim();  // nothing typed: nothing to put back
        if (note.hidden) return;
        note.querySelector(".cleared-text").textContent = say("cleared", "Went out, so 0: {pips} was typed.").replace("{pips}", typed);
        note.querySelector("button").textContent = say("putBack", "Undo: put back {pips}").replace("{pips}", typed);
      });
    }

    function putBack(row) {
      var input = row.querySelector("input.pips");
      if (input.dataset.typed === undefined) return;
      input.value = input.dataset.typed;
      delete input.dataset.typed;
      var radio = row.querySelector("input[name=went_out]");
      if (radio) radio.checked = false;
      showCleared();
      saveDraft();
      updateTotals();
      input.focus();
    }

    var touched = false;  // the official typed or tapped in the form since the page opened
    if (listOnly) {
      // The table list (enter_home.html) only says which rounds wait typed here: it sends nothing,
      // so an entry page waiting for its entry to go through still sees it go. Its copy, opened
      // offline, says so, and gives way to the list as it is now when the network returns.
      showDraftsHere();
      var listNotice = document.getElementById("offline-copy");
      if (listNotice) listNotice.hidden = !fromCopy;
      var reloadList = function () { window.location.reload(); };
      if (fromCopy) window.addEventListener("online", reloadList);
      return {
        stop: function () { window.removeEventListener("online", reloadList); }
      };
    }
    if (form) {
      ["input", "click", "keydown"].forEach(function (type) {
        form.addEventListener(type, function () { touched = true; }, true);
      });
      var discard = document.querySelector("#restored-notice button");
      if (discard) discard.addEventListener("click", discardDraft);
      form.addEventListener("input", function (event) {
        if (event.target.classList.contains("pips")) {
          delete event.target.dataset.typed;
          showCleared();
          errors.settle(event.target.closest(".player-row"));  // a corrected score is not asked about
        }
        saveDraft();
        updateTotals();
      });
      form.addEventListener("click", function (event) {
        if (event.target.closest(".cleared button")) putBack(event.target.closest(".player-row"));
      });
      form.addEventListener("change", function (event) {
        if (event.target.name === "went_out") wentOutChanged(event.target.value);
        saveDraft();
        updateTotals();
      });
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        clearErrors();
        var entry = {
          url: form.dataset.apiUrl,
          checkUrl: form.dataset.checkUrl,
          pageUrl: window.location.pathname,
          label: document.title,
          draftKey: form.dataset.draftKey,
          ifMatch: form.dataset.ifMatch || "",
          key: form.querySelector("input[name=idempotency_key]").value,
          csrf: form.querySelector("input[name=csrfmiddlewaretoken]").value,
          body: collect(),
          savedAt: new Date().toISOString()
        };
        keep(entry);  // on the tablet before it goes anywhere
        waitingHere = entry;
        lock(say("sending", "Sending…"));
        flush();
      });
      var mine = readOutbox().filter(onThisPage);
      var refused = mine.filter(function (e) { return e.refused; });
      if (refused.length) {
        showRefusedHere(refused[0]);  // refused while the official was at another round
      } else if (mine.length) {
        // Sent, not yet received: it goes as it is when the network returns, not put in question.
        waitingHere = mine[0];
        restoreDraft({quiet: true});
        lock(say("notSent", "Not sent yet: will send when the connection returns."));
      } else if (restoreDraft({}) === "restored") {
        checkRestored();  // never sent, or refused: its problems marked at once
      }
      updateTotals();
    } else {
      // No form here (the stage has closed, say): the page says why; the entry is not kept.
      readOutbox().filter(function (e) { return e.refused && pageOf(e) === window.location.pathname; })
        .forEach(drop);
    }
    showRefusedElsewhere();
    // This page's entry waiting to go, and another tab (another round's page) sends it, or has it
    // refused: this page follows as if it had sent it itself, instead of saying "Not sent yet"
    // for an entry that is in (localStorage tells the other tabs of each change; the page the round
    // switch replaced tells this one by the outbox it leaves, read at each flush).
    function onStorage(event) {
      if (event.key === OUTBOX) followWaiting();
    }
    function followWaiting() {
      if (stopped || !form || !waitingHere) return;
      var now = readOutbox().filter(function (e) { return e.key === waitingHere.key; })[0];
      if (!now) window.location.assign(waitingHere.checkUrl);
      else if (now.refused) {
        waitingHere = null;
        unlock();
        showBanner("");
        showRefusedHere(now);
      }
    }
    // Back online on a round's copy with nothing waiting to go: the page as it is now replaces it
    // (what was typed comes back as the draft it is kept as).
    function onOnline() {
      if (fromCopy && !waitingHere) window.location.reload();
      else flush();
    }
    window.addEventListener("storage", onStorage);
    window.addEventListener("online", onOnline);
    if (fromCopy && form) {
      // The copy's Idempotency-Key may have gone with an entry already (the copy opened before):
      // this one takes a key of its own. Its If-Match is the copy's, so scores saved elsewhere since
      // are a conflict (412), shown as on any page opened before a save elsewhere.
      form.querySelector("input[name=idempotency_key]").value = freshKey();
    }
    var copyNotice = document.getElementById("offline-copy");
    if (copyNotice) copyNotice.hidden = !fromCopy;
    flush();
    return {
      stop: function () {
        stopped = true;
        window.removeEventListener("storage", onStorage);
        window.removeEventListener("online", onOnline);
        if (retryTimer !== null) window.clearTimeout(retryTimer);
        retryTimer = null;
      }
    };
  }

  function freshKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  // The round switch off the network. As an entry page opens, the entry pages of its table's
  // rounds are fetched and kept in this page; then, one at a time, the table list ("All tables",
  // the enter home) and the entry pages (every round) of the tables it lists, at most MAX_TABLES.
  // Tapping a kept page's link asks the network first, and if it does not answer, the kept page is
  // put in place of this one (the address following, by history.pushState), said to be the copy
  // kept on the tablet. No service worker: the switch never leaves the page, so nothing depends on
  // a worker's cache being filled in time; a reload offline, which leaves the page, finds nothing.
  var MAX_TABLES = 12;
  var kept = {};  // path -> the page's HTML as the server gave it when this page opened
  var opens = {};  // a table's link (enter_table) -> the kept round it opens offline
  // This page as the server gave it (nothing typed yet, the scripts run after it), for coming back.
  kept[window.location.pathname] = document.documentElement.outerHTML;
  var script = document.currentScript;
  var current = start(false, !!(script && script.hasAttribute("data-list-only")));
  var shown = window.location.pathname;  // the page in place
  // The clocks clock.js counts down: a kept page's clock of the same stage gives way to its own.
  var liveClocks = {};
  document.querySelectorAll("p.clock[data-url]").forEach(function (el) {
    liveClocks[el.dataset.url] = el;
  });

  function idle() {
    return new Promise(function (resolve) {
      if (window.requestIdleCallback) window.requestIdleCallback(resolve, {timeout: 2000});
      else window.setTimeout(resolve, 50);
    });
  }

  // One page fetched and kept (once the tablet is idle): its HTML, or null when it is no page to
  // keep (a redirect, to sign in or elsewhere; an error; the network down).
  function keepPage(path) {
    if (kept[path]) return Promise.resolve(kept[path]);
    return idle().then(function () {
      return fetch(path, {credentials: "same-origin"});
    }).then(function (response) {
      if (!response.ok || response.redirected) return null;
      return response.text().then(function (html) {
        kept[path] = html;
        document.documentElement.dataset.keptPages = String(Object.keys(kept).length);  // for tests
        return html;
      });
    }).catch(function () { return null; });
  }

  function linksIn(html, selector) {
    var paths = [];
    if (!html) return paths;
    new DOMParser().parseFromString(html, "text/html").querySelectorAll(selector).forEach(function (a) {
      var path = a.getAttribute("href");
      if (path && paths.indexOf(path) < 0) paths.push(path);
    });
    return paths;
  }

  function inTurn(paths, each) {
    return paths.reduce(function (before, path) {
      return before.then(function () { return each(path); });
    }, Promise.resolve());
  }

  function keepRounds(html) {
    return inTurn(linksIn(html, ".round-nav a[href]"), keepPage);
  }

  // This table's rounds first (the round switch), then the list and the tables it lists.
  function keepAll() {
    var home = document.querySelector(".site-nav a[href]");
    return keepRounds(kept[window.location.pathname]).then(function () {
      var nav = document.querySelector(".round-nav");
      if (nav) nav.dataset.kept = String(Object.keys(kept).length);  // this table's, for tests
      return home ? keepPage(home.getAttribute("href")) : null;
    }).then(function (list) {
      var doc = list ? new DOMParser().parseFromString(list, "text/html") : null;
      var tables = doc ? Array.prototype.slice.call(doc.querySelectorAll("a.table-link[href][data-offline-round]"), 0, MAX_TABLES) : [];
      return inTurn(tables, function (link) {
        var round = link.dataset.offlineRound;
        return keepPage(round).then(function (html) {
          if (html) opens[link.getAttribute("href")] = round;
          return keepRounds(html);
        });
      });
    }).then(function () {
      document.documentElement.dataset.keptDone = "1";  // for tests
    });
  }

  // Whether the page can come from the network: not when the tablet knows it is offline;
  // otherwise the server is asked (the venue's Wi-Fi may be up with the server out of reach).
  function askNetwork(path) {
    if (navigator.onLine === false) return Promise.reject(new Error("offline"));
    var options = {credentials: "same-origin", method: "HEAD"};
    var timer = null;
    if (window.AbortController) {
      var controller = new AbortController();
      timer = window.setTimeout(function () { controller.abort(); }, SWITCH_TIMEOUT_MS);
      options.signal = controller.signal;
    }
    return fetch(path, options).then(function (response) {
      if (timer !== null) window.clearTimeout(timer);
      return response;
    });
  }

  // Another kept page in place of this one: its title, its header's links, its content (a running
  // clock of the same stage stays as it is), the language switch's way back; then it is started
  // (an entry page's form, or the list's marks of what waits typed here).
  function showKept(path) {
    var copy = new DOMParser().parseFromString(kept[path], "text/html");
    var main = document.getElementById("main");
    var newMain = copy.getElementById("main");
    if (!main || !newMain) return false;
    newMain.querySelectorAll("p.clock[data-url]").forEach(function (clock) {
      var live = liveClocks[clock.dataset.url];
      if (live) clock.replaceWith(live);
    });
    if (current) current.stop();
    document.title = copy.title;
    document.body.className = copy.body.className;
    var nav = document.querySelector(".site-nav");
    var newNav = copy.querySelector(".site-nav");
    if (nav && newNav) nav.replaceChildren.apply(nav, Array.prototype.slice.call(newNav.childNodes));
    main.replaceChildren.apply(main, Array.prototype.slice.call(newMain.childNodes));
    // A phone's Menu, opened to tap All tables, closes as it does when a page opens.
    document.querySelectorAll("details.menu[open]").forEach(function (menu) { menu.open = false; });
    document.querySelectorAll("form.language input[name=next]").forEach(function (input) {
      input.value = path;
    });
    current = start(true, !!copy.querySelector("script[data-list-only]"));
    shown = path;
    window.scrollTo(0, 0);
    var heading = main.querySelector("h1");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus();
    }
    return true;
  }

  // The kept page a link opens offline: the page itself, or the round a table's link opens.
  function keptFor(path) {
    if (kept[path]) return path;
    if (opens[path] && kept[opens[path]]) return opens[path];
    return null;
  }

  function openPage(path, push) {
    var copyPath = keptFor(path);
    if (!copyPath) {
      window.location.assign(path);
      return;
    }
    askNetwork(path).then(function () {
      window.location.assign(path);  // the network answers: the page as it is now
    }, function () {
      if (!showKept(copyPath)) window.location.assign(path);
      else if (push) window.history.pushState({keptRound: copyPath}, "", copyPath);
    });
  }

  if (document.querySelector(".round-nav")) {
    keepAll();
    // Any link to a kept page (a round, All tables, a table of the list), not a jump within one.
    document.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a[href]");
      if (!link || event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      if (link.target || link.hasAttribute("download") || link.origin !== window.location.origin) return;
      if (link.hash || !keptFor(link.pathname)) return;
      event.preventDefault();
      openPage(link.pathname, true);
    });
    // Back and Forward among the pages opened from their copies.
    window.addEventListener("popstate", function () {
      var path = window.location.pathname;
      if (path === shown) return;  // within the page (the skip link's #main)
      if (kept[path]) openPage(path, false);
      else window.location.reload();
    });
    if (!window.history.state) window.history.replaceState({keptRound: window.location.pathname}, "");
  }
})();
