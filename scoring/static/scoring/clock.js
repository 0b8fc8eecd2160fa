// A time-limited stage's clock (templates/scoring/_clock.html). The server gives the time left
// when the page is made; this counts down from when the page loaded, by performance.now(), never
// by the device's own clock (a tablet's clock is often wrong). When the tablet comes back online,
// and every minute, it asks the server again (the clock may have been paused or time called).
(function () {
  "use strict";
  function format(seconds) {
    seconds = Math.max(0, Math.floor(seconds));
    var hours = Math.floor(seconds / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var secs = seconds % 60;
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    return hours ? hours + ":" + two(minutes) + ":" + two(secs) : two(minutes) + ":" + two(secs);
  }
  function modeOf(state) {
    if (state.called) return "called";
    if (state.running) return state.remaining_seconds > 0 ? "running" : "up";
    return state.started ? "paused" : "waiting";
  }
  function Clock(el) {
    this.el = el;
    this.set({
      remaining: Number(el.getAttribute("data-remaining")) || 0,
      mode: el.getAttribute("data-mode"),
    });
  }
  Clock.prototype.set = function (state) {
    this.remaining = state.remaining;
    this.mode = state.mode;
    this.since = performance.now();
    this.el.setAttribute("data-mode", this.mode);
    this.el.className = "clock clock-" + this.mode;
    this.draw();
  };
  Clock.prototype.left = function () {
    if (this.mode !== "running") return this.remaining;
    return Math.max(0, this.remaining - (performance.now() - this.since) / 1000);
  };
  Clock.prototype.draw = function () {
    var mode = this.mode;
    var left = this.left();
    if (mode === "running" && left <= 0) mode = "up";
    var text = this.el.getAttribute("data-text-" + mode) || "";
    var node = this.el.querySelector(".clock-text");
    var shown = text.replace("%(time)s", format(Math.ceil(left)));
    if (node && node.textContent !== shown) node.textContent = shown;
  };
  Clock.prototype.refresh = function () {
    var self = this;
    var url = this.el.getAttribute("data-url");
    if (!url || !window.fetch) return;
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (state) {
        if (state) self.set({ remaining: state.remaining_seconds || 0, mode: modeOf(state) });
      })
      .catch(function () {}); // offline: keep counting from what we had
  };
  function start() {
    var clocks = [];
    document.querySelectorAll("p.clock[data-remaining]").forEach(function (el) {
      if (!el.rhClock) el.rhClock = new Clock(el);
      clocks.push(el.rhClock);
    });
    return clocks;
  }
  var clocks = [];
  document.addEventListener("DOMContentLoaded", function () { clocks = start(); });
  document.addEventListener("htmx:afterSwap", function () { clocks = start(); });
  setInterval(function () { clocks.forEach(function (c) { c.draw(); }); }, 1000);
  setInterval(function () { clocks.forEach(function (c) { c.refresh(); }); }, 60000);
  window.addEventListener("online", function () { clocks.forEach(function (c) { c.refresh(); }); });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") clocks.forEach(function (c) { c.refresh(); });
  });
})();
