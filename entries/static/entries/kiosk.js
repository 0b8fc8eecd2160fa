// The self check-in kiosk: the code is sent to the API and the answer shown big, then the kiosk
// is ready for the next person after a few seconds. Where the browser reads QR codes itself
// (BarcodeDetector) a button opens the camera and a code scanned is sent the same way. Without
// this script, or without a camera, the form posts and the page answers (and resets) by itself.
(function () {
  "use strict";
  var kiosk = document.querySelector("[data-kiosk]");
  if (!kiosk || !window.fetch) return;
  var form = kiosk.querySelector("form");
  var box = form.querySelector("input[name=code]");
  var answer = document.getElementById("kiosk-answer");
  var resetMs = 1000 * Number(kiosk.getAttribute("data-reset-seconds") || 6);
  var timer = null;
  var busy = false;

  function show(text, level) {
    answer.textContent = text;
    answer.className = "kiosk-answer " + level;
    answer.hidden = false;
    clearTimeout(timer);
    timer = setTimeout(reset, resetMs);
  }

  function reset() {
    answer.hidden = true;
    answer.textContent = "";
    box.value = "";
    box.focus();
  }

  function send(code) {
    if (busy || !code.trim()) return;
    busy = true;
    fetch(kiosk.getAttribute("data-api-url"), {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/json",
                 "Accept-Language": document.documentElement.lang },
      body: JSON.stringify({ code: code }),
      credentials: "omit",
    }).then(function (response) {
      return response.json().then(function (body) {
        var text = body.detail || (body.code && body.code[0]) || "";
        show(text, response.ok ? "success" : "error");
      });
    }).catch(function () {
      show(kiosk.getAttribute("data-not-sent"), "error");
    }).then(function () {
      busy = false;
      box.value = "";
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    send(box.value);
  });

  // The camera, where the browser has a QR reader of its own (no library is loaded for it).
  if (!("BarcodeDetector" in window) || !navigator.mediaDevices) return;
  var scan = kiosk.querySelector(".kiosk-scan");
  var video = scan.querySelector("video");
  var button = scan.querySelector("[data-kiosk-scan]");
  scan.hidden = false;
  var detector = null;
  var stream = null;

  function stop() {
    if (stream) stream.getTracks().forEach(function (track) { track.stop(); });
    stream = null;
    video.hidden = true;
  }

  function look() {
    if (!stream) return;
    detector.detect(video).then(function (codes) {
      if (codes.length) {
        stop();
        send(codes[0].rawValue);
      } else {
        setTimeout(look, 250);
      }
    }).catch(function () { setTimeout(look, 500); });
  }

  button.addEventListener("click", function () {
    if (stream) { stop(); return; }
    try {
      detector = detector || new window.BarcodeDetector({ formats: ["qr_code"] });
    } catch (error) {
      scan.hidden = true;
      return;
    }
    navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } })
      .then(function (media) {
        stream = media;
        video.srcObject = media;
        video.hidden = false;
        return video.play();
      })
      .then(look)
      .catch(function () {
        stop();
        show(kiosk.getAttribute("data-camera-refused"), "error");
      });
  });
})();
