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
