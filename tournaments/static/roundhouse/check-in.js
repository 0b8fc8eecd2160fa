// The desk's Check in box at a badge scanner's speed: a scanner types the number and Enter faster
// than the server answers, so each number is taken from the box as it is sent (the box emptied at
// once for the next scan) and the numbers go one after another, in order, none dropped. Each
// answer is shown: the newest beside the box, the ones before it listed under it. Without this
// script the form posts and the console comes back with the answer at its top.
(function () {
  "use strict";
  var form = document.querySelector("form[data-check-in-queue]");
  if (!form || !window.htmx) return;
  var box = form.querySelector("input[name=find]");
  // The request's source: the button, not the form, whose emptied (required) box htmx would
  // refuse to send; the form's other fields (the CSRF token) go with it all the same.
  var button = form.querySelector("button[type=submit]");
  var result = document.getElementById("check-in-result");
  var earlier = document.getElementById("check-in-earlier");
  var KEEP = 100;  // answers listed: a morning's queue at the desk
  var queue = Promise.resolve();

  // The answer on show goes to the top of the list of earlier ones, before the next replaces it.
  function keepShown() {
    var said = document.getElementById("check-in-said");
    if (!said || !earlier) return;
    var item = document.createElement("li");
    item.className = said.className;
    item.textContent = said.textContent.trim();
    earlier.insertBefore(item, earlier.firstChild);
    while (earlier.children.length > KEEP) earlier.removeChild(earlier.lastChild);
    earlier.hidden = false;
  }

  // A number the server never answered (the network down) is said, to be scanned again.
  function unanswered(typed) {
    keepShown();
    var said = document.createElement("p");
    said.id = "check-in-said";
    said.className = "message error";
    said.textContent = form.dataset.notSent.replace("{typed}", typed);
    result.replaceChildren(said);
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var typed = box.value;
    box.value = "";
    box.focus();
    queue = queue.then(function () {
      keepShown();
      return htmx.ajax("POST", form.action, {
        source: button, target: result, swap: "innerHTML", values: {find: typed}
      });
    }).catch(function () { unanswered(typed); });
  });
})();
