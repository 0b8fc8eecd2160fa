// The entry page's errors, shown where the page says each goes (entry.js's helper; load it first).
// RoundhouseEntryErrors(form, say, collect) gives {show(status, body, stay), clear(), ask(row, pips,
// message, checked), settle(row)}: `say` reads the page's words, `collect` the scores as typed (a
// 412 says where the saved ones differ). An answer's `warnings` (unusual scores not checked yet)
// are asked about in their rows: the score marked, the question beside it with a box that
// confirms the score as typed, the focus on it to correct it.
window.RoundhouseEntryErrors = function (form, say, collect) {
  "use strict";

  function rowName(playerId) {
    var row = form.querySelector(".player-row[data-player='" + playerId + "']");
    var name = row && row.querySelector(".player-name-text");
    return name ? name.textContent.trim() : String(playerId);
  }

  // A 412 answer holds the result as it is now: say what it holds where it differs from the form.
  function currentScores(current) {
    if (!current || !Array.isArray(current.scores)) return "";
    var typed = collect().scores;
    var parts = current.scores.map(function (score) {
      var mine = typed.filter(function (s) { return s.player === score.player; })[0];
      var text = rowName(score.player) + " " + score.pips + (score.went_out ? " (" + say("wentOut", "went out") + ")" : "");
      if (mine && mine.pips !== score.pips) text += " [" + say("youTyped", "you typed") + " " + mine.pips + "]";
      return text;
    });
    return say("savedNow", "Saved now:") + " " + parts.join(", ");
  }

  // Where each error key of the API is shown is the page's to say (enter_round.html puts them
  // where the page rendered without JavaScript does): the wrapper of a field lists the keys it
  // shows (data-error-key, space-separated), holds their messages in its .js-error and names its
  // input, or its group of choices (data-error-field). A key no field lists is said at the top.
  function fieldFor(key) {
    var fields = form.querySelectorAll("[data-error-key]");
    for (var i = 0; i < fields.length; i++) {
      if (fields[i].dataset.errorKey.split(/\s+/).indexOf(key) !== -1) return fields[i];
    }
    return null;
  }

  function inputsOf(field) {
    var name = field && field.dataset.errorField;
    if (!name) return [];
    return Array.prototype.filter.call(form.querySelectorAll("input"), function (input) {
      return input.name === name;
    });
  }

  function describe(input, id, on) {
    var ids = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (x) {
      return x && x !== id;
    });
    if (on) ids.push(id);
    input.setAttribute("aria-describedby", ids.join(" "));
  }

  // An unusual score asked about in its row; `message` "" keeps the words already there.
  function ask(row, pips, message, checked) {
    var block = row && row.querySelector(".unusual");
    if (!block) return;
    var input = row.querySelector("input.pips");
    var text = block.querySelector(".warning-text");
    if (message) text.textContent = say("areYouSure", "Are you sure?") + " " + message;
    var box = block.querySelector("input[type=checkbox]");
    box.value = String(pips);
    box.checked = !!checked;
    block.hidden = !text.textContent;
    row.classList.add("is-unusual");
    if (!checked) input.setAttribute("aria-invalid", "true");
    describe(input, text.id, true);
  }

  // The score of a row asked about was changed: the question no longer stands.
  function settle(row) {
    var block = row && row.querySelector(".unusual");
    if (!block || block.hidden) return;
    var input = row.querySelector("input.pips");
    var box = block.querySelector("input[type=checkbox]");
    if (input.value.trim() === box.value) return;
    block.hidden = true;
    block.classList.remove("server-asked");
    box.checked = false;
    row.classList.remove("is-unusual");
    input.removeAttribute("aria-invalid");
    describe(input, block.querySelector(".warning-text").id, false);
  }

  // `stay`: the focus stays where the official put it (errors of a draft checked as the page
  // opens, answered after they began to type).
  function showErrors(status, body, stay) {
    var general = document.getElementById("form-errors");
    general.innerHTML = "";
    var messages = [];
    var fieldErrors = 0;
    var versionConflict = status === 412 || status === 428;
    var asked = Array.isArray(body.warnings) ? body.warnings.filter(function (w) { return !w.checked; }) : [];
    asked.forEach(function (warning) {
      var row = form.querySelector(".player-row[data-player='" + warning.player + "']");
      ask(row, warning.pips, warning.message, false);
    });
    Object.keys(body).forEach(function (key) {
      if (key === "warnings" || (key === "detail" && asked.length)) return;  // asked, in the page's words
      var list = Array.isArray(body[key]) ? body[key] : [body[key]];
      var field = fieldFor(key);
      var slot = field && field.querySelector(".js-error");
      if (slot) {
        fieldErrors += 1;
        slot.textContent = (slot.hidden ? "" : slot.textContent + ". ") + list.join(". ");
        slot.hidden = false;
        field.classList.add("has-error");
        // A text input is marked and described by its message; a group of choices is not (its
        // message is beside it, and the browser reads the group as one).
        var inputs = inputsOf(field);
        var input = inputs.length === 1 && inputs[0].type !== "radio" ? inputs[0] : null;
        if (input) {
          input.setAttribute("aria-invalid", "true");
          input.setAttribute("aria-describedby", (input.getAttribute("aria-describedby") || "") + " " + slot.id);
        }
      } else if (key === "detail" && versionConflict) {
        // The API's words are for programs (If-Match, ETag): the page says it in its own.
      } else if (key !== "current") {
        messages = messages.concat(list);
      }
    });
    if (versionConflict) {
      messages.push(say("changedElsewhere", "Someone saved scores for this round on another device after you opened it."));
      var now = currentScores(body.current);
      if (now) messages.push(now);
    }
    if (status === 412 || status === 428 || status === 422) {
      messages.push(say("reload", "Reload the page to see the scores as they are now."));
    }
    // Asked together with the errors, not once they are corrected: the official sees all at once,
    // in one message when both are to be done (as scoring/views/entry.py says it).
    if (fieldErrors && !messages.length && asked.length) {
      messages.push(say("fixAndCheck", "Not saved: correct what is marked below, and check the unusual scores with the players: correct them, or tick that they are right, then save again."));
    } else if (fieldErrors && !messages.length) {
      messages.push(say("fixFields", "Not saved: correct what is marked below."));
    } else if (asked.length) {
      messages.push(say("checkUnusual", "Not saved yet: check the scores marked below with the players. Correct them, or tick that they are right and save again."));
    }
    messages.forEach(function (text) {
      var p = document.createElement("p");
      p.className = "error";
      p.textContent = text;
      general.appendChild(p);
    });
    // The first field marked, in the page's order, takes the focus: its input, or in a group of
    // choices (went out) the one chosen, else the first; a score asked about, its input.
    var first = form.querySelector(".js-error:not([hidden]), .player-row.is-unusual [aria-invalid=true]");
    var inputs = !first ? [] : first.matches("input") ? [first] : inputsOf(first.closest("[data-error-key]"));
    var target = inputs.filter(function (input) { return input.checked; })[0] || inputs[0];
    if (stay) return;
    if (target) {
      target.focus();
      if (target.scrollIntoView) target.scrollIntoView({block: "center"});
    } else if (general.firstChild) {
      general.focus();  // the Save button that had the focus is disabled while sending
      if (general.scrollIntoView) general.scrollIntoView({block: "center"});
    }
  }

  function clearErrors() {
    form.querySelectorAll(".js-error").forEach(function (slot) {
      slot.hidden = true;
      slot.textContent = "";
    });
    form.querySelectorAll(".has-error").forEach(function (row) { row.classList.remove("has-error"); });
    // A question the official has not ticked goes; one ticked stays, its box sent with the scores.
    form.querySelectorAll(".unusual").forEach(function (block) {
      if (block.querySelector("input[type=checkbox]").checked) return;
      block.hidden = true;
      block.closest(".player-row").classList.remove("is-unusual");
    });
    var slots = Array.prototype.map.call(form.querySelectorAll(".js-error, .warning-text"), function (slot) { return slot.id; });
    form.querySelectorAll("[aria-invalid]").forEach(function (input) {
      input.removeAttribute("aria-invalid");
      var described = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (id) {
        return id && slots.indexOf(id) === -1;
      });
      input.setAttribute("aria-describedby", described.join(" "));
    });
    document.getElementById("form-errors").innerHTML = "";
  }

  return {show: showErrors, clear: clearErrors, ask: ask, settle: settle};
};
