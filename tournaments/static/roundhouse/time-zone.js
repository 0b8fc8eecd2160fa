// The time zone fields (tournaments.forms.TimeZoneInput): the device's own zone offered first.
// A new tournament's field takes it at once (said beside it, to change if the event is
// elsewhere); a saved one offers it with one tap. Without script the field is a text box with
// every zone offered as the organiser types.
(function () {
  "use strict";
  var zone;
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch (error) {
    return;
  }
  if (!zone) return;
  document.querySelectorAll("[data-device-zone-for]").forEach(function (button) {
    var input = document.getElementById(button.getAttribute("data-device-zone-for"));
    if (!input || input.value === zone || !input.list) return;
    var known = Array.prototype.some.call(input.list.options, function (option) {
      return option.value === zone;
    });
    if (!known) return;
    var offer = button.parentNode;
    var filled = offer.parentNode.querySelector(".device-zone-filled");
    if (input.hasAttribute("data-fill-device-zone") && input.value === input.defaultValue) {
      input.value = zone;
      if (filled) filled.hidden = false;
      return;
    }
    button.querySelector(".zone-name").textContent = zone;
    offer.hidden = false;
    button.addEventListener("click", function () {
      input.value = zone;
      offer.hidden = true;
      input.focus();
    });
  });
})();
