// The dealer console's keyboard and countdowns. Without this file every action is still a
// plain form: the keys only press the buttons that are on the screen.
(function () {
  "use strict";
  function visible(element) {
    return element.offsetParent !== null;
  }
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT");
    if (event.key === "Escape" && typing) {
      target.blur();
      return;
    }
    // C, the shortcut to the card field, pressed while the cursor is there already (it starts
    // there): no card code begins with C (ranks come first), so it types nothing.
    if (typing && target.id === "card-code" && !target.value && (event.key === "c" || event.key === "C")) {
      event.preventDefault();
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    var key = event.key.length === 1 ? event.key.toUpperCase() : event.key;
    // On a non-Latin layout (Cyrillic) the letter of the key's place on the keyboard is the shortcut.
    if (key.length === 1 && !/[A-Z0-9]/.test(key) && /^Key[A-Z]$/.test(event.code || "")) {
      key = event.code.charAt(3);
    }
    if (key === "C") {
      var field = document.getElementById("card-code");
      if (field) {
        event.preventDefault();
        field.focus();
      }
      return;
    }
    var buttons = document.querySelectorAll('[data-key="' + key + '"]');
    for (var index = 0; index < buttons.length; index++) {
      if (visible(buttons[index])) {
        event.preventDefault();
        var form = buttons[index].form;
        var required = form ? form.querySelector("input[required]") : null;
        if (required && !required.value) {
          required.focus();  // a void needs its reason first
        } else {
          buttons[index].click();
        }
        return;
      }
    }
  });
  function tick() {
    var clocks = document.querySelectorAll("[data-deadline]");
    for (var index = 0; index < clocks.length; index++) {
      var left = Math.max(0, Math.ceil((Date.parse(clocks[index].dataset.deadline) - Date.now()) / 1000));
      var seconds = clocks[index].querySelector(".seconds");
      if (seconds) {
        seconds.textContent = String(left);
      }
      // At the deadline the console reads itself again: reading applies the overdue default, so
      // that an open console drives the round's timers even without a worker.
      if (left === 0 && clocks[index].dataset.fired !== "yes") {
        clocks[index].dataset.fired = "yes";
        var live = document.getElementById("console");
        if (live && window.htmx) {
          window.htmx.trigger(live, "deadline");
        }
      }
    }
  }
  setInterval(tick, 250);
  // After a swap, the card field keeps the focus it had (the console redraws every change).
  document.addEventListener("htmx:afterSettle", function () {
    var field = document.getElementById("card-code");
    if (field && document.activeElement === document.body) {
      field.focus();
    }
    tick();
  });
})();
