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
  var form = document.getElementById("round-form");
  var banner = document.getElementById("offline-banner");
  var retryTimer = null;
  var draining = null;  // the resend in progress: one at a time, however often flush is called

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
      draining = drain().then(done, done);
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
      if (index >= entries.length) return Promise.resolve();
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
      if (onThisPage(entry)) window.location.assign(entry.checkUrl);
      return Promise.resolve();
    }
    return response.json().catch(function () { return {}; }).then(function (body) {
      if (!onThisPage(entry)) {
        markRefused(entry, response.status, body);  // shown when its page is opened
        showRefusedElsewhere();
        return;
      }
      drop(entry);
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

  // What was typed, kept on the tablet with the version of the result it was typed over (the
  // page's If-Match, "" for a new round): a reload puts it back only over that same version.
  function readForm() {
    var draft = {base: form.dataset.ifMatch || "", pips: {}, typed: {}, checked: {}, went_out: "", reason: "",
      savedAt: new Date().toISOString()};
    form.querySelectorAll("input.pips").forEach(function (input) {
      draft.pips[input.id] = input.value;
      if (input.dataset.typed !== undefined) draft.typed[input.id] = input.dataset.typed;
      var box = input.closest(".player-row").querySelector(".unusual-check input");
      if (box && box.checked) {
        draft.checked[input.id] = {pips: box.value, text: box.closest(".unusual").querySelector(".warning-text").textContent};
      }
    });
    var wentOut = form.querySelector("input[name=went_out]:checked");
    if (wentOut) draft.went_out = wentOut.value;
    var reason = form.querySelector("input[name=reason]");
    if (reason) draft.reason = reason.value;
    return draft;
  }

  function saveDraft() {
    localStorage.setItem(form.dataset.draftKey, JSON.stringify(readForm()));
  }

  function applyDraft(draft) {
    Object.keys(draft.pips || {}).forEach(function (id) {
      var input = document.getElementById(id);
      if (!input) return;
      input.value = draft.pips[id];
      if (draft.typed && draft.typed[id] !== undefined) input.dataset.typed = draft.typed[id];
      // A score the official confirmed stays confirmed, its question shown ticked.
      var asked = draft.checked && draft.checked[id];
      if (asked && asked.pips === input.value.trim()) {
        var row = input.closest(".player-row");
        if (asked.text) row.querySelector(".warning-text").textContent = asked.text;
        errors.ask(row, asked.pips, "", true);
      }
    });
    form.querySelectorAll("input[name=went_out]").forEach(function (radio) {
      radio.checked = radio.value === draft.went_out;
    });
    showCleared();
    var reason = form.querySelector("input[name=reason]");
    if (reason && draft.reason) reason.value = draft.reason;
  }

  function sameEntry(a, b) {
    function values(draft) {
      var pips = {};
      Object.keys(draft.pips || {}).forEach(function (id) { pips[id] = pipsValue(String(draft.pips[id])); });
      // (the reason too: a correction's reason typed before any score changed is kept)
      return JSON.stringify([pips, draft.went_out || "", draft.reason || ""]);
    }
    return values(a) === values(b);
  }

  // A draft put back is said, with when it was typed, and can be discarded (announceRestored);
  // `options.quiet` puts it back unsaid: an entry waiting to be resent shows what it sends.
  // "restored" when a draft went back into the form over the version it was typed on.
  function restoreDraft(options) {
    var raw = localStorage.getItem(form.dataset.draftKey);
    // A page the server rendered with what was sent (errors, or scores asked about) shows that.
    if (!raw || form.querySelector(".field-error:not(.js-error), .unusual.server-asked")) return;
    var draft;
    try {
      draft = JSON.parse(raw);
    } catch (error) {
      localStorage.removeItem(form.dataset.draftKey);
      return;
    }
    var shown = readForm();
    if ((draft.base || "") === shown.base) {
      if (sameEntry(draft, shown) && !Object.keys(draft.checked || {}).length) {
        localStorage.removeItem(form.dataset.draftKey);  // nothing but what the page shows
        return;
      }
      applyDraft(draft);
      if (!options.quiet) announceRestored(draft);
      return "restored";
    }
    // Typed over another version: the scores were saved elsewhere since. The page shows them as
    // they are now, and what was typed here waits beside them to be put back on purpose.
    if (sameEntry(draft, shown)) {
      localStorage.removeItem(form.dataset.draftKey);
      return;
    }
    var notice = document.getElementById("draft-notice");
    if (!notice) return;
    notice.hidden = false;
    notice.querySelector("button").onclick = function () {  // the latest draft only
      applyDraft(draft);
      saveDraft();
      updateTotals();
      notice.hidden = true;
      var first = form.querySelector("input.pips");
      if (first) first.focus();
    };
  }

  // "Restored what was entered on this device at 14:02, not yet saved", with the way out.
  function announceRestored(draft) {
    var notice = document.getElementById("restored-notice");
    if (!notice) return;
    var at = draft.savedAt ? new Date(draft.savedAt) : null;
    var text = notice.dataset.undated;
    if (at && !isNaN(at.getTime())) {
      var lang = document.documentElement.lang || undefined;
      var today = at.toDateString() === new Date().toDateString();
      var when = today
        ? at.toLocaleTimeString(lang, {hour: "2-digit", minute: "2-digit"})
        : at.toLocaleString(lang, {day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"});
      text = notice.dataset.at.replace("{time}", when);
    }
    notice.querySelector(".restored-text").textContent = text;
    notice.hidden = false;
  }

  // The draft put back is judged by the server as if it were sent, nothing stored, and its
  // problems marked as a refusal would mark them. Offline, or signed out, it is judged when sent.
  function checkRestored() {
    var asked = JSON.stringify(collect());
    var fields = new URLSearchParams(new FormData(form));
    fields.set("check_only", "1");
    return fetch(window.location.pathname, {
      method: "POST",
      credentials: "same-origin",
      headers: {"Accept": "application/json", "X-CSRFToken": csrfToken({csrf: fields.get("csrfmiddlewaretoken")})},
      body: fields
    }).then(function (response) {
      return response.ok ? response.json() : {};
    }).then(function (body) {
      // Marked as a refusal is, unless the scores changed (or were discarded) meanwhile; the
      // focus taken only if the official has not begun.
      if (JSON.stringify(collect()) !== asked) return;
      if (body && Object.keys(body).length) errors.show(400, body, touched);
    }).catch(function () {});
  }

  // "Discard and start again": the draft (and an entry of this page the server refused) goes, and
  // the form shows the round as the server has it, as the page came.
  function discardDraft() {
    localStorage.removeItem(form.dataset.draftKey);
    writeOutbox(readOutbox().filter(function (e) { return !(e.refused && onThisPage(e)); }));
    form.reset();
    form.querySelectorAll("input.pips").forEach(function (input) { delete input.dataset.typed; });
    clearErrors();
    showCleared();
    updateTotals();
    document.getElementById("restored-notice").hidden = true;
    var first = form.querySelector("input.pips");
    if (first) first.focus();
  }

  // The table list: a round still missing whose scores wait typed on this tablet says so.
  function showDraftsHere() {
    document.querySelectorAll(".draft-here[data-draft-key]").forEach(function (mark) {
      var draft;
      try {
        draft = JSON.parse(localStorage.getItem(mark.dataset.draftKey) || "null");
      } catch (error) {
        draft = null;
      }
      var pips = (draft && draft.pips) || {};
      mark.hidden = !(draft && (draft.went_out || Object.keys(pips).some(function (id) {
        return String(pips[id]).trim();
      })));
    });
  }

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
  if (document.currentScript && document.currentScript.hasAttribute("data-list-only")) {
    // The table list (enter_home.html) only says which rounds wait typed here: it sends nothing,
    // so an entry page waiting for its entry to go through still sees it go.
    showDraftsHere();
    return;
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
      lock(say("sending", "Sending…"));
      flush();
    });
    var mine = readOutbox().filter(onThisPage);
    var refused = mine.filter(function (e) { return e.refused; });
    if (refused.length) {
      showRefusedHere(refused[0]);  // refused while the official was at another round
    } else if (mine.length) {
      // Sent, not yet received: it goes as it is when the network returns, not put in question.
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
  window.addEventListener("online", flush);
  flush();
})();
