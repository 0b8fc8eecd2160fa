// Round entry on a tablet: the form is sent to the API with its Idempotency-Key, and kept on the
// tablet (localStorage) until the server has it. While the network is down the page says so and
// resends by itself; the server counts the entry once however often it arrives.
(function () {
  "use strict";

  var OUTBOX = "rh-outbox";
  var RETRY_MS = 4000;
  var form = document.getElementById("round-form");
  var banner = document.getElementById("offline-banner");
  var retryTimer = null;

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

  function showBanner(text) {
    if (!banner) return;
    banner.textContent = text;
    banner.hidden = !text;
  }

  function send(entry) {
    var headers = {
      "Content-Type": "application/json",
      "Accept": "application/json",
      "X-CSRFToken": entry.csrf,
      "Idempotency-Key": entry.key
    };
    if (entry.ifMatch) headers["If-Match"] = entry.ifMatch;
    return fetch(entry.url, {
      method: "PUT",
      credentials: "same-origin",
      headers: headers,
      body: JSON.stringify(entry.body)
    });
  }

  function scheduleRetry() {
    if (retryTimer === null) retryTimer = window.setTimeout(flush, RETRY_MS);
  }

  // Resend everything still on the tablet; stop at the first network failure.
  function flush() {
    retryTimer = null;
    var entries = readOutbox();
    if (!entries.length) return Promise.resolve();
    var entry = entries[0];
    return send(entry).then(function (response) {
      if (response.status >= 500) throw new Error("server " + response.status);
      return settle(entry, response).then(flush);
    }).catch(function () {
      showBanner(say("notSent", "Not sent yet: will send when the connection returns."));
      scheduleRetry();
    });
  }

  function onThisPage(entry) {
    return form && form.dataset.apiUrl === entry.url;
  }

  function settle(entry, response) {
    if (response.status === 401 || response.status === 403) {
      if (onThisPage(entry)) {
        unlock();
        showBanner(say("signedOut", "Not sent yet: sign in again (in another tab) and it will be sent."));
      }
      throw new Error("signed out");
    }
    drop(entry);
    if (response.ok) {
      if (entry.draftKey) localStorage.removeItem(entry.draftKey);
      if (onThisPage(entry)) window.location.assign(entry.checkUrl);
      return Promise.resolve();
    }
    if (!onThisPage(entry)) return Promise.resolve();
    unlock();
    showBanner("");
    return response.json().catch(function () { return {}; }).then(function (body) {
      showErrors(response.status, body);
    });
  }

  function showErrors(status, body) {
    var general = document.getElementById("form-errors");
    general.innerHTML = "";
    var messages = [];
    Object.keys(body).forEach(function (key) {
      var list = Array.isArray(body[key]) ? body[key] : [body[key]];
      var slot = null;
      if (key.indexOf("scores.") === 0) slot = document.getElementById("js-error-" + key.slice(7));
      else if (key === "blocked" || key === "reason") slot = document.getElementById("js-error-" + key);
      if (slot) {
        slot.textContent = list.join(". ");
        slot.hidden = false;
        var row = slot.closest(".player-row");
        if (row) row.classList.add("has-error");
      } else if (key !== "current") {
        messages = messages.concat(list);
      }
    });
    if (status === 412 || status === 428 || status === 422) {
      messages.push(say("reload", "Reload the page to see the scores as they are now."));
    }
    messages.forEach(function (text) {
      var p = document.createElement("p");
      p.className = "error";
      p.textContent = text;
      general.appendChild(p);
    });
    var first = form.querySelector(".js-error:not([hidden])") || general.firstChild;
    if (first && first.scrollIntoView) first.scrollIntoView({block: "center"});
  }

  function clearErrors() {
    form.querySelectorAll(".js-error").forEach(function (slot) { slot.hidden = true; });
    form.querySelectorAll(".has-error").forEach(function (row) { row.classList.remove("has-error"); });
    document.getElementById("form-errors").innerHTML = "";
  }

  function lock(text) {
    form.querySelectorAll("input, button").forEach(function (el) { el.disabled = true; });
    showBanner(text);
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
      scores.push({
        player: parseInt(id, 10),
        pips: pipsValue(row.querySelector("input.pips").value),
        went_out: choice === id
      });
    });
    var body = {blocked: choice === "blocked", scores: scores};
    var reason = form.querySelector("input[name=reason]");
    if (reason) body.reason = reason.value;
    return body;
  }

  function saveDraft() {
    var draft = {pips: {}, went_out: "", reason: ""};
    form.querySelectorAll("input.pips").forEach(function (input) { draft.pips[input.id] = input.value; });
    var wentOut = form.querySelector("input[name=went_out]:checked");
    if (wentOut) draft.went_out = wentOut.value;
    var reason = form.querySelector("input[name=reason]");
    if (reason) draft.reason = reason.value;
    localStorage.setItem(form.dataset.draftKey, JSON.stringify(draft));
  }

  function restoreDraft() {
    var raw = localStorage.getItem(form.dataset.draftKey);
    if (!raw || form.querySelector(".field-error:not(.js-error)")) return;
    try {
      var draft = JSON.parse(raw);
      Object.keys(draft.pips || {}).forEach(function (id) {
        var input = document.getElementById(id);
        if (input) input.value = draft.pips[id];
      });
      if (draft.went_out) {
        var radio = form.querySelector("input[name=went_out][value='" + draft.went_out + "']");
        if (radio) radio.checked = true;
      }
      var reason = form.querySelector("input[name=reason]");
      if (reason && draft.reason) reason.value = draft.reason;
    } catch (error) {
      localStorage.removeItem(form.dataset.draftKey);
    }
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

  if (form) {
    restoreDraft();
    updateTotals();
    form.addEventListener("input", function () { saveDraft(); updateTotals(); });
    form.addEventListener("change", function (event) {
      if (event.target.name === "went_out" && event.target.value !== "blocked") {
        var pips = document.getElementById("pips-" + event.target.value);
        if (pips) pips.value = "0";
      }
      saveDraft();
      updateTotals();
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clearErrors();
      var entry = {
        url: form.dataset.apiUrl,
        checkUrl: form.dataset.checkUrl,
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
    var pending = readOutbox().filter(onThisPage);
    if (pending.length) lock(say("notSent", "Not sent yet: will send when the connection returns."));
  }
  window.addEventListener("online", flush);
  flush();
})();
