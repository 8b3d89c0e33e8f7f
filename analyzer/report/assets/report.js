// Draws the report's charts with Chart.js from the JSON embedded in the page. When done it
// records on <body> how many charts were drawn, which were empty and any script error, so a
// headless browser test can tell a working page from a broken one.
(function () {
  'use strict';
  var body = document.body;
  var errors = window.atomqErrors || [];
  var colors = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf', '#7f7f7f'];
  var classColor = { severe: '#b3261e', potential: '#e08a00', not_atomic_bound: '#5b8f5b', insufficient_data: '#999999' };

  // Chart.js draws an array label as several lines: long what-if descriptions stay readable.
  function wrap(text, width) {
    var lines = [], line = '';
    text.split(' ').forEach(function (word) {
      if (line && line.length + word.length + 1 > width) { lines.push(line); line = word; }
      else line = line ? line + ' ' + word : word;
    });
    if (line) lines.push(line);
    return lines;
  }

  function percentAxis(title) {
    return { min: 0, suggestedMax: 100, title: { display: true, text: title },
             ticks: { callback: function (v) { return v + '%'; } } };
  }

  function utilizationChart(data) {
    return {
      type: 'bar',
      data: {
        labels: data.kernels.map(function (k) { return k.label; }),
        datasets: [
          { label: 'U mean over SMs', data: data.kernels.map(function (k) { return 100 * k.u_mean; }),
            backgroundColor: data.kernels.map(function (k) { return classColor[k.class] || '#999'; }) },
          { label: 'U busiest SM', data: data.kernels.map(function (k) { return 100 * k.u_max; }),
            backgroundColor: '#c9d3e0' }
        ]
      },
      options: { scales: { y: percentAxis('utilization of the shared atomic unit') },
                 plugins: { title: { display: true, text: 'Utilization U per kernel (bar colour: class)' } } }
    };
  }

  function serviceChart(data) {
    var sets = data.curves.map(function (c, i) {
      return { label: c.name, showLine: true, borderColor: colors[i % colors.length],
               backgroundColor: colors[i % colors.length], pointRadius: 2,
               data: c.points.map(function (p) { return { x: p[0], y: p[1] }; }) };
    });
    var points = data.kernels.filter(function (k) { return k.evaluated && k.s > 0; });
    if (points.length) {
      sets.push({ label: 'kernels (n̂, S)', showLine: false, pointStyle: 'rectRot', pointRadius: 7,
                  borderColor: '#000', backgroundColor: points.map(function (k) { return classColor[k.class] || '#999'; }),
                  data: points.map(function (k) { return { x: k.n, y: k.s, label: k.label }; }) });
    }
    return {
      type: 'scatter',
      data: { datasets: sets },
      options: {
        scales: { x: { type: 'logarithmic', title: { display: true, text: 'warps in flight per SM n' } },
                  y: { type: 'logarithmic', title: { display: true, text: 'S (cycles per warp instruction)' } } },
        plugins: {
          title: { display: true, text: 'Calibrated service time S(n), e = ' + data.curve_lanes + ', c = 0 unless noted' },
          tooltip: { callbacks: { label: function (ctx) {
            var p = ctx.raw; return (p.label ? p.label + ': ' : ctx.dataset.label + ': ') + 'n ' + p.x.toFixed(1) + ', S ' + p.y.toFixed(2);
          } } }
        }
      }
    };
  }

  function whatIfChart(data) {
    return {
      type: 'bar',
      data: {
        labels: data.what_ifs.map(function (w) { return [w.label].concat(wrap(w.change, 40)); }),
        datasets: [{ label: 'predicted speedup', backgroundColor: '#2ca02c',
                     data: data.what_ifs.map(function (w) { return w.gain; }) }]
      },
      options: { indexAxis: 'y', scales: { x: { min: 0, title: { display: true, text: 'predicted kernel speedup (x)' } } },
                 plugins: { title: { display: true, text: 'Best what-if per kernel (model prediction)' } } }
    };
  }

  function comparisonChart(data, index) {
    var c = data.comparisons[index];
    return {
      type: 'bar',
      data: {
        labels: c.rows.map(function (r) { return r.quantity; }),
        datasets: [{ label: 'B / A', backgroundColor: c.rows.map(function (r) { return r.ratio >= 1 ? '#d62728' : '#1f77b4'; }),
                     data: c.rows.map(function (r) { return r.ratio; }) }]
      },
      options: { indexAxis: 'y',
                 scales: { x: { type: 'logarithmic', title: { display: true, text: 'B / A (log scale; 1 = unchanged)' } } },
                 plugins: { legend: { display: false },
                            title: { display: true, text: 'A: ' + c.label_a + '   B: ' + c.label_b } } }
    };
  }

  function pointsOf(chart) {
    var n = 0;
    for (var i = 0; i < chart.data.datasets.length; ++i) n += chart.getDatasetMeta(i).data.length;
    return n;
  }

  var drawn = 0, empty = [];
  try {
    var data = JSON.parse(document.getElementById('atomq-report-data').textContent);
    Chart.defaults.animation = false;
    Chart.defaults.maintainAspectRatio = false;
    var canvases = document.querySelectorAll('canvas[data-atomq-chart]');
    for (var i = 0; i < canvases.length; ++i) {
      var canvas = canvases[i], kind = canvas.getAttribute('data-atomq-chart'), config = null;
      if (kind === 'utilization') config = utilizationChart(data);
      else if (kind === 'service') config = serviceChart(data);
      else if (kind === 'what-if') config = whatIfChart(data);
      else if (kind === 'comparison') config = comparisonChart(data, Number(canvas.getAttribute('data-index')));
      if (!config) { errors.push('unknown chart kind ' + kind); continue; }
      var chart = new Chart(canvas, config);
      if (pointsOf(chart) > 0) ++drawn; else empty.push(canvas.id);
    }
    body.setAttribute('data-atomq-charts-expected', String(canvases.length));
  } catch (e) {
    errors.push(String(e && e.stack || e));
  }
  body.setAttribute('data-atomq-charts-drawn', String(drawn));
  body.setAttribute('data-atomq-empty-charts', empty.join(' '));
  body.setAttribute('data-atomq-errors', errors.join(' | '));
  body.setAttribute('data-atomq-status', errors.length === 0 && empty.length === 0 ? 'ok' : 'failed');
})();
