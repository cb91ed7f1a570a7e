// The receipt's print button; without JavaScript the browser's own print does the same.
document.querySelectorAll("[data-print]").forEach((button) => {
  button.addEventListener("click", () => window.print());
});
