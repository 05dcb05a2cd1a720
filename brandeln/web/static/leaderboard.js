// The leaderboard sorts by any column (vendored tablesort; numbers sort by their data-sort
// value, so "-" and signs need no parsing).
"use strict";
(function () {
  var table = document.getElementById("leaderboard");
  if (table && window.Tablesort) {
    window.brandelnLeaderboard = new window.Tablesort(table);
  }
})();
