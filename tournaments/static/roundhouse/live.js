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
