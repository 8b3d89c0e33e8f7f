// Draws the report's charts with Chart.js from the JSON embedded in the page. When done it
// records on <body> how many charts were drawn, which were empty and any script error, so a
// headless browser test can tell a working page from a broken one.
(function () {
  'use strict';
  var body = document.body;
  var errors = window.atomqErrors || [];
  // Data series (the S(n) curves) use blues, purples and greys; red, orange and green are kept
  // for the classes, so a colour means one thing on the page.
  var colors = ['#1f77b4', '#6a51a3', '#17becf', '#8c564b', '#525252', '#9ecae1', '#bcbd22', '#e377c2'];
  var classColor = { severe: '#b3261e', potential: '#e08a00', not_atomic_bound: '#5b8f5b', insufficient_data: '#999999' };
  var classWords = { severe: 'severe', potential: 'potential', not_atomic_bound: 'not atomic-bound',
                     insufficient_data: 'insufficient data' };

  // One legend entry per class (the bars of one dataset take several colours).
  function classLegend(extra) {
    return { labels: { generateLabels: function () {
      var items = Object.keys(classColor).map(function (c) {
        return { text: classWords[c], fillStyle: classColor[c], strokeStyle: classColor[c], lineWidth: 0, hidden: false };
      });
      return items.concat(extra || []);
    } }, onClick: function () {} };
  }

  // Writes each point's label next to it (the kernels' operating points on the S(n) chart).
  var pointLabels = {
    id: 'atomqPointLabels',
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      chart.data.datasets.forEach(function (set, i) {
        if (!set.atomqLabels) return;
        chart.getDatasetMeta(i).data.forEach(function (el, j) {
          ctx.save();
          ctx.font = '11px sans-serif';
          ctx.fillStyle = '#222';
          ctx.fillText(set.atomqLabels[j], el.x + 8, el.y - 6);
          ctx.restore();
        });
      });
    }
  };

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

  // U of each kernel's units, horizontal so long labels stay readable. Above 100% (counter noise
  // on a saturated unit) the bar stops at 100 and its label says "100%+"; a kernel without
  // shared atomics or without L2 counters has no bar, not a 0% one.
  function utilizationChart(data) {
    var labels = data.kernels.map(function (k) {
      var over = k.u_mean > 1 || (k.l2_u !== null && k.l2_u > 1);
      return k.label + (over ? ' (100%+)' : '') + (k.queue ? '' : ' (no shared atomics)');
    });
    function capped(v) { return v === null ? null : Math.min(100, 100 * v); }
    return {
      type: 'bar',
      data: {
        labels: labels,
        datasets: [
          { label: 'shared atomic unit U (mean over SMs)', data: data.kernels.map(function (k) { return k.queue ? capped(k.u_mean) : null; }),
            backgroundColor: data.kernels.map(function (k) { return classColor[k.class] || '#999'; }) },
          { label: 'L2 hottest slice U', data: data.kernels.map(function (k) { return capped(k.l2_u); }),
            backgroundColor: '#6a51a3' }
        ]
      },
      options: { indexAxis: 'y', scales: { x: percentAxis('utilization') },
                 plugins: { legend: classLegend([{ text: 'L2 hottest slice U', fillStyle: '#6a51a3', lineWidth: 0 }]),
                            title: { display: true, text: 'Utilization per kernel launch (shared bar colour: class)' } } }
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
      sets.push({ label: 'kernels (n̂, S), colour: class', showLine: false, pointStyle: 'rectRot', pointRadius: 7,
                  borderColor: '#000', backgroundColor: points.map(function (k) { return classColor[k.class] || '#999'; }),
                  atomqLabels: points.map(function (k) { return k.label; }),
                  data: points.map(function (k) { return { x: k.n, y: k.s, label: k.label }; }) });
    }
    return {
      type: 'scatter',
      data: { datasets: sets },
      plugins: [pointLabels],
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
        // The bar spans the expected gain as every table shows it: full overlap to no overlap.
        datasets: [{ label: 'predicted speedup, full to no overlap', backgroundColor: '#1f77b4',
                     data: data.what_ifs.map(function (w) {
                       var low = Math.max(w.gain_low, 1);
                       return [low, Math.max(w.gain_high, low * 1.0001)];
                     }) }]
      },
      options: { indexAxis: 'y', scales: { x: { type: 'logarithmic', min: 1,
                                                title: { display: true, text: 'predicted kernel speedup (x, log scale)' } } },
                 plugins: { title: { display: true, text: 'Best what-if per kernel (model prediction)' },
                            tooltip: { callbacks: { label: function (ctx) {
                              return 'predicted ' + data.what_ifs[ctx.dataIndex].gain_text + ' faster';
                            } } } } }
    };
  }

  function comparisonChart(data, index) {
    var c = data.comparisons[index];
    return {
      type: 'bar',
      data: {
        labels: c.rows.map(function (r) { return r.quantity; }),
        datasets: [{ label: 'B / A', backgroundColor: c.rows.map(function (r) { return r.ratio >= 1 ? '#6a51a3' : '#17becf'; }),
                     data: c.rows.map(function (r) { return [1, r.ratio]; }) }]
      },
      options: { indexAxis: 'y',
                 scales: { x: { type: 'logarithmic', title: { display: true, text: 'B / A (log scale; bars start at 1 = unchanged)' } } },
                 plugins: { legend: { labels: { generateLabels: function () {
                              return [{ text: 'B larger than A', fillStyle: '#6a51a3', lineWidth: 0 },
                                      { text: 'B smaller than A', fillStyle: '#17becf', lineWidth: 0 }]; } },
                                      onClick: function () {} },
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
