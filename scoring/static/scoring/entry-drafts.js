// What was typed on the entry page and not saved, kept on the tablet (entry.js's helper; load it
// first). RoundhouseEntryDrafts(form, page) gives {read(), save(), apply(draft), restore(options),
// check(), discard(), markList()}: `page` is what entry.js lends it (errors, pipsValue, collect,
// showCleared, updateTotals, csrfToken, dropRefusedHere, touched()). A draft put back as the page
// opens is said with when it was typed, checked by the server as if sent, and discardable; the
// table list marks the rounds typed here and not saved.
window.RoundhouseEntryDrafts = function (form, page) {
  "use strict";
  var errors = page.errors;
  var pipsValue = page.pipsValue;
  var collect = page.collect;
  var showCleared = page.showCleared;
  var updateTotals = page.updateTotals;
  var csrfToken = page.csrfToken;

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
      if (body && Object.keys(body).length) errors.show(400, body, page.touched());
    }).catch(function () {});
  }

  // "Discard and start again": the draft (and an entry of this page the server refused) goes, and
  // the form shows the round as the server has it, as the page came.
  function discardDraft() {
    localStorage.removeItem(form.dataset.draftKey);
    page.dropRefusedHere();
    form.reset();
    form.querySelectorAll("input.pips").forEach(function (input) { delete input.dataset.typed; });
    errors.clear();
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

  return {
    read: readForm,
    save: saveDraft,
    apply: applyDraft,
    restore: restoreDraft,
    check: checkRestored,
    discard: discardDraft,
    markList: showDraftsHere
  };
};
