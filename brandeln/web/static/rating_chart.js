// The rating chart: for each line (a bot of the season, or a season of the bot), its mu after
// each block and the band mu - 3 sigma .. mu + 3 sigma, drawn by the vendored Chart.js.
// The data comes from <script type="application/json" id="rating-data"> (|tojson in the
// template); labels are set as text by Chart.js, never as HTML.
"use strict";
(function () {
  var source = document.getElementById("rating-data");
  var canvas = document.getElementById("rating-chart");
  if (!source || !canvas || !window.Chart) {
    return;
  }
  var lines = JSON.parse(source.textContent);
  var palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
                 "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];
  function faded(hex) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16) + "," + ((n >> 8) & 255) + "," + (n & 255) + ",0.08)";
  }
  var datasets = [];
  lines.forEach(function (line, i) {
    var colour = palette[i % palette.length];
    var points = line.points;
    // The band first (upper, then lower filled up to it), the line over it.
    datasets.push({
      label: line.label + " +3σ", brandelnKind: "band", brandelnLine: line.label,
      data: points.map(function (p) { return { x: p.x, y: p.mu + 3 * p.sigma }; }),
      borderWidth: 0, pointRadius: 0, fill: false, backgroundColor: faded(colour),
    });
    datasets.push({
      label: line.label + " −3σ", brandelnKind: "band", brandelnLine: line.label,
      data: points.map(function (p) { return { x: p.x, y: p.mu - 3 * p.sigma }; }),
      borderWidth: 0, pointRadius: 0, fill: "-1", backgroundColor: faded(colour),
    });
    datasets.push({
      label: line.label, brandelnKind: "mu", brandelnLine: line.label,
      data: points.map(function (p) { return { x: p.x, y: p.mu }; }),
      borderColor: colour, backgroundColor: colour, borderWidth: 2, pointRadius: 2,
      fill: false,
    });
  });
  var chart = new window.Chart(canvas, {
    type: "line",
    data: { datasets: datasets },
    options: {
      animation: false,
      maintainAspectRatio: false,
      parsing: true,
      interaction: { mode: "nearest", intersect: false },
      scales: {
        x: { type: "linear", title: { display: true, text: "blocks played" },
             ticks: { precision: 0 } },
        y: { title: { display: true, text: "μ (TrueSkill) with ±3σ" } },
      },
      plugins: {
        legend: { labels: { filter: function (item, data) {
          return data.datasets[item.datasetIndex].brandelnKind === "mu";
        } } },
        tooltip: { filter: function (item) { return item.dataset.brandelnKind === "mu"; } },
      },
    },
  });
  window.brandelnCharts = (window.brandelnCharts || []).concat([chart]);
})();
