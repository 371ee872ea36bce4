(function () {
  "use strict";
  var form = document.getElementById("filter");
  var checks = document.querySelectorAll("details.check");
  var passing = document.getElementById("passing");
  var shown = document.getElementById("shown");
  form.hidden = false;
  function apply() {
    var statuses = Array.prototype.map.call(form.querySelectorAll("input[name=status]:checked"), function (i) { return i.value; });
    var suite = form.elements.suite.value, level = form.elements.level.value, n = 0;
    Array.prototype.forEach.call(checks, function (d) {
      var ok = statuses.indexOf(d.dataset.status) >= 0 && (!suite || d.dataset.suite === suite) && (!level || d.dataset.level === level);
      d.hidden = !ok;
      if (ok) { n++; }
    });
    if (passing) {
      passing.hidden = !passing.querySelector("details.check:not([hidden])");
    }
    shown.textContent = n + " of " + checks.length + " checks shown";
  }
  form.addEventListener("change", apply);
  form.addEventListener("reset", function () { setTimeout(apply, 0); });
  apply();
  // A link to one check (report.html#check-IK-03, as the matrix's cells
  // are) opens it and the passing list around it.
  function reveal() {
    var d = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    for (; d; d = d.parentElement && d.parentElement.closest("details")) {
      if (d.tagName === "DETAILS") { d.open = true; }
    }
    d = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (d) { d.scrollIntoView(); }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
})();
