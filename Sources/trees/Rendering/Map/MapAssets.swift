/// The map page's stylesheet, markup and script, kept as Swift strings so the binary needs no resource files.
enum MapAssets {
    static let style = #"""
        * { box-sizing: border-box; }
        html, body { margin: 0; height: 100%; overflow: hidden; font: 14px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111; background: #f4f4f0; }
        #map { position: absolute; inset: 0; width: 100%; height: 100%; cursor: grab; touch-action: none; user-select: none; }
        #map.dragging { cursor: grabbing; }
        .acc { stroke-width: 1.5; fill-opacity: 0.08; stroke-opacity: 0.7; }
        .tree { cursor: pointer; }
        .tree .dot { stroke: #fff; stroke-width: 2; }
        .tree .dot.unwell { stroke: var(--outline); stroke-width: 3.5; }
        #legend i.ring { background: #fff !important; border: 3px solid; width: 8px; height: 8px; }
        .tree.selected .dot { stroke: #111; stroke-width: 3; }
        .tree text { font-size: 13px; font-weight: 600; fill: #111; paint-order: stroke; stroke: #fff; stroke-width: 3.5px; stroke-linejoin: round; pointer-events: none; }
        .tree text.none { fill: #777; font-style: italic; font-weight: 400; }
        body.crowded .tree text { display: none; }
        .tile { opacity: 0.9; }
        .panel { position: absolute; background: rgba(255,255,255,0.96); border: 1px solid #bbb; border-radius: 6px; box-shadow: 0 1px 4px rgba(0,0,0,0.2); padding: 8px 10px; }
        #controls { top: 10px; left: 10px; display: flex; flex-direction: column; gap: 6px; }
        #controls h1 { margin: 0; font-size: 16px; }
        #controls .row { display: flex; align-items: center; gap: 4px; }
        #controls .row > span { min-width: 52px; color: #444; }
        button { font: inherit; padding: 3px 9px; border: 1px solid #888; background: #fff; border-radius: 4px; cursor: pointer; }
        button[aria-pressed="true"] { background: #1d4f91; border-color: #1d4f91; color: #fff; }
        #legend { bottom: 10px; left: 10px; max-height: 40vh; overflow: auto; min-width: 150px; }
        #legend div { display: flex; align-items: center; gap: 6px; white-space: nowrap; }
        #legend i { display: inline-block; width: 12px; height: 12px; border-radius: 50%; border: 1px solid rgba(0,0,0,0.3); }
        #legend small { color: #555; margin-left: auto; padding-left: 8px; }
        #scale { bottom: 10px; right: 10px; text-align: center; padding: 4px 8px; }
        #scale-bar { height: 6px; border: 2px solid #111; border-top: none; margin: 2px auto 0; }
        #north { top: 10px; right: 10px; padding: 4px; width: 48px; height: 62px; }
        #details { top: 10px; right: 70px; width: 300px; max-height: calc(100vh - 90px); overflow: auto; }
        #details[hidden] { display: none; }
        #details h2 { margin: 0 22px 6px 0; font-size: 17px; }
        #details dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 0; }
        #details dt { color: #555; }
        #details dd { margin: 0; overflow-wrap: anywhere; }
        #details .close { position: absolute; top: 6px; right: 6px; padding: 0 6px; }
        #details .badge { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin-right: 4px; }
        .photos { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
        .photos figure { margin: 0; width: 88px; font-size: 11px; color: #555; }
        .photos img { width: 88px; height: 88px; object-fit: cover; border-radius: 3px; border: 1px solid #ccc; background: #eee; cursor: zoom-in; }
        .photos .nopreview { width: 88px; height: 88px; display: flex; align-items: center; justify-content: center; text-align: center; border: 1px dashed #aaa; border-radius: 3px; }
        #viewer { position: fixed; inset: 0; background: rgba(0,0,0,0.85); display: flex; align-items: center; justify-content: center; }
        #viewer[hidden] { display: none; }
        #viewer img { max-width: 95vw; max-height: 95vh; image-rendering: auto; }
        #attribution { bottom: 0; right: 50%; transform: translateX(50%); font-size: 11px; padding: 1px 6px; border-radius: 4px 4px 0 0; }

        """#

    static let body = #"""
        <svg id="map" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Map of trees">
        <g id="tiles"></g><g id="circles"></g><g id="markers"></g>
        </svg>
        <div id="controls" class="panel">
        <h1 id="title"></h1>
        <div class="row"><span>Labels</span><button type="button" data-labels="species">Species</button><button type="button" data-labels="variety">Variety</button></div>
        <div class="row"><span>Colour</span><button type="button" data-color="species">Species</button><button type="button" data-color="accuracy">Accuracy</button></div>
        <div class="row"><span>View</span><button type="button" id="zoom-in" title="Zoom in (+)">+</button><button type="button" id="zoom-out" title="Zoom out (−)">−</button><button type="button" id="fit" title="Show all trees (0)">Fit</button></div>
        <div id="count"></div>
        </div>
        <div id="legend" class="panel"></div>
        <div id="scale" class="panel"><div id="scale-label"></div><div id="scale-bar"></div></div>
        <svg id="north" class="panel" viewBox="0 0 48 62" aria-label="North is up"><path d="M24 6 L34 40 L24 33 L14 40 Z" fill="#111"/><text x="24" y="56" text-anchor="middle" font-size="14" font-weight="700">N</text></svg>
        <aside id="details" class="panel" hidden></aside>
        <div id="viewer" hidden></div>
        <div id="attribution" class="panel" hidden></div>
        """#

    static let script = #"""
        (function () {
          'use strict';
          var data = JSON.parse(document.getElementById('trees-data').textContent);
          var NS = 'http://www.w3.org/2000/svg';
          var svg = document.getElementById('map');
          var tilesLayer = document.getElementById('tiles');
          var circlesLayer = document.getElementById('circles');
          var markersLayer = document.getElementById('markers');
          var details = document.getElementById('details');
          var params = new URLSearchParams(location.search + (location.hash ? '&' + location.hash.slice(1) : ''));
          var state = {
            labels: ['species', 'variety'].indexOf(params.get('labels')) >= 0 ? params.get('labels') : data.labels,
            color: ['species', 'accuracy'].indexOf(params.get('color')) >= 0 ? params.get('color') : data.color,
            selected: -1
          };
          // Screen position of local point (x east, y north, metres): (x * s + tx, -y * s + ty).
          var view = { s: 1, tx: 0, ty: 0 };

          function el(name, attrs, parent) {
            var e = document.createElementNS(NS, name);
            for (var k in attrs) e.setAttribute(k, attrs[k]);
            if (parent) parent.appendChild(e);
            return e;
          }
          function html(name, text, parent, cls) {
            var e = document.createElement(name);
            if (text != null) e.textContent = text;
            if (cls) e.className = cls;
            if (parent) parent.appendChild(e);
            return e;
          }

          document.title = data.title;
          document.getElementById('title').textContent = data.title;
          document.getElementById('count').textContent = data.trees.length + (data.trees.length === 1 ? ' tree' : ' trees');

          var markers = data.trees.map(function (t, i) {
            var acc = null;
            if (t.acc != null) acc = el('circle', { 'class': 'acc', r: 0, 'data-id': t.id }, circlesLayer);
            var g = el('g', { 'class': 'tree', 'data-id': t.id, tabindex: 0, role: 'button' }, markersLayer);
            var title = el('title', {}, g);
            title.textContent = t.species + (t.variety ? ' ' + t.variety : '');
            var dot = el('circle', { 'class': t.outline ? 'dot unwell' : 'dot', r: 6 }, g);
            if (t.outline) dot.style.setProperty('--outline', t.outline);
            var text = el('text', { x: 9, y: 4.5 }, g);
            g.addEventListener('click', function (e) { e.stopPropagation(); select(i); });
            g.addEventListener('keydown', function (e) { if (e.key === 'Enter') select(i); });
            g.addEventListener('pointerdown', function (e) { e.stopPropagation(); });
            return { t: t, g: g, acc: acc, dot: dot, text: text };
          });

          // Typical spacing of neighbouring trees (median nearest-neighbour distance, sampled), to hide labels when crowded.
          var spacing = (function () {
            var n = data.trees.length, step = Math.max(1, Math.floor(n / 300)), d = [];
            for (var i = 0; i < n; i += step) {
              var best = Infinity;
              for (var j = 0; j < n; j++) {
                if (i === j) continue;
                var dx = data.trees[i].x - data.trees[j].x, dy = data.trees[i].y - data.trees[j].y;
                var dd = dx * dx + dy * dy;
                if (dd > 0 && dd < best) best = dd;
              }
              if (best < Infinity) d.push(Math.sqrt(best));
            }
            d.sort(function (a, b) { return a - b; });
            return d.length ? d[Math.floor(d.length / 2)] : Infinity;
          })();

          function applyLabels() {
            document.body.classList.toggle('labels-species', state.labels === 'species');
            document.body.classList.toggle('labels-variety', state.labels === 'variety');
            markers.forEach(function (m) {
              var v = state.labels === 'variety' ? m.t.variety : m.t.species;
              m.text.textContent = v != null ? v : 'no variety';
              m.text.setAttribute('class', v != null ? 'label' : 'label none');
            });
            pressed('labels', state.labels);
          }
          function applyColours() {
            document.body.classList.toggle('colour-species', state.color === 'species');
            document.body.classList.toggle('colour-accuracy', state.color === 'accuracy');
            markers.forEach(function (m) {
              var c = state.color === 'accuracy' ? m.t.accColour : m.t.spColour;
              m.dot.setAttribute('fill', c);
              if (m.acc) { m.acc.setAttribute('fill', c); m.acc.setAttribute('stroke', c); }
            });
            pressed('color', state.color);
            legend();
          }
          function pressed(kind, value) {
            document.querySelectorAll('button[data-' + kind + ']').forEach(function (b) {
              b.setAttribute('aria-pressed', String(b.getAttribute('data-' + kind) === value));
            });
          }
          function legend() {
            var box = document.getElementById('legend');
            box.textContent = '';
            html('strong', state.color === 'accuracy' ? 'Accuracy (95% radius)' : 'Species', box);
            var rows = state.color === 'accuracy' ? data.legend.accuracy : data.legend.species;
            rows.forEach(function (r) {
              var row = html('div', null, box);
              html('i', null, row).style.background = r.colour;
              html('span', r.name + (r.range ? ' ' + r.range : ''), row);
              html('small', String(r.count), row);
            });
            if (data.legend.health.length) {
              html('strong', 'Health (outline)', box);
              data.legend.health.forEach(function (r) {
                var row = html('div', null, box);
                html('i', null, row, 'ring').style.borderColor = r.colour;
                html('span', r.name, row);
                html('small', String(r.count), row);
              });
            }
          }
          document.querySelectorAll('button[data-labels]').forEach(function (b) {
            b.addEventListener('click', function () { state.labels = b.getAttribute('data-labels'); applyLabels(); });
          });
          document.querySelectorAll('button[data-color]').forEach(function (b) {
            b.addEventListener('click', function () { state.color = b.getAttribute('data-color'); applyColours(); });
          });

          var pending = false;
          function render() {
            if (pending) return;
            pending = true;
            requestAnimationFrame(draw);
          }
          function draw() {
            pending = false;
            markers.forEach(function (m) {
              var sx = m.t.x * view.s + view.tx, sy = -m.t.y * view.s + view.ty;
              m.g.setAttribute('transform', 'translate(' + sx.toFixed(1) + ',' + sy.toFixed(1) + ')');
              if (m.acc) {
                m.acc.setAttribute('cx', sx.toFixed(1));
                m.acc.setAttribute('cy', sy.toFixed(1));
                m.acc.setAttribute('r', Math.max(0, m.t.acc * view.s).toFixed(1));
              }
            });
            document.body.classList.toggle('crowded', spacing * view.s < 40);
            drawScale();
            drawTiles();
          }
          function size() { var r = svg.getBoundingClientRect(); return { w: r.width || 800, h: r.height || 600 }; }
          function fit() {
            var box = { x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity };
            // Fit the trees themselves; accuracy circles may reach past the edges.
            data.trees.forEach(function (t) {
              box.x0 = Math.min(box.x0, t.x); box.x1 = Math.max(box.x1, t.x);
              box.y0 = Math.min(box.y0, t.y); box.y1 = Math.max(box.y1, t.y);
            });
            if (!isFinite(box.x0)) box = { x0: -10, x1: 10, y0: -10, y1: 10 };
            var sz = size(), w = Math.max(box.x1 - box.x0, 8), h = Math.max(box.y1 - box.y0, 8);
            view.s = Math.min((sz.w - 200) / w, (sz.h - 200) / h);
            if (!(view.s > 0)) view.s = 1;
            view.tx = sz.w / 2 - (box.x0 + box.x1) / 2 * view.s;
            view.ty = sz.h / 2 + (box.y0 + box.y1) / 2 * view.s;
            render();
          }
          function zoom(factor, px, py) {
            var s = Math.min(Math.max(view.s * factor, 1e-5), 2e3);
            factor = s / view.s;
            view.tx = px - (px - view.tx) * factor;
            view.ty = py - (py - view.ty) * factor;
            view.s = s;
            render();
          }
          function drawScale() {
            var maxPx = 120, metres = maxPx / view.s;
            var p = Math.pow(10, Math.floor(Math.log(metres) / Math.LN10)), nice = p;
            [5, 2, 1].some(function (k) { if (k * p <= metres) { nice = k * p; return true; } return false; });
            document.getElementById('scale-bar').style.width = (nice * view.s).toFixed(0) + 'px';
            document.getElementById('scale-label').textContent = nice >= 1000 ? (nice / 1000) + ' km' : (nice >= 1 ? nice + ' m' : (nice * 100).toFixed(0) + ' cm');
          }

          // Optional background tiles (Web Mercator, 256 px), placed through the same local projection.
          var tiles = {};
          function toLatLon(x, y) {
            return { lat: data.origin.lat + y / data.metresPerDegree.north, lon: data.origin.lon + x / data.metresPerDegree.east };
          }
          function toLocal(lat, lon) {
            return { x: (lon - data.origin.lon) * data.metresPerDegree.east, y: (lat - data.origin.lat) * data.metresPerDegree.north };
          }
          function tileLon(x, n) { return x / n * 360 - 180; }
          function tileLat(y, n) { return Math.atan(Math.sinh(Math.PI * (1 - 2 * y / n))) * 180 / Math.PI; }
          function drawTiles() {
            if (!data.tiles) return;
            var sz = size();
            var z = Math.ceil(Math.log(156543.03392 * Math.cos(data.origin.lat * Math.PI / 180) * view.s) / Math.LN2);
            z = Math.max(0, Math.min(19, z));
            var n = Math.pow(2, z);
            var a = toLatLon((0 - view.tx) / view.s, -(0 - view.ty) / view.s);
            var b = toLatLon((sz.w - view.tx) / view.s, -(sz.h - view.ty) / view.s);
            function tx(lon) { return Math.floor((lon + 180) / 360 * n); }
            function ty(lat) { var r = lat * Math.PI / 180; return Math.floor((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2 * n); }
            var x0 = Math.max(0, tx(a.lon)), x1 = Math.min(n - 1, tx(b.lon));
            var y0 = Math.max(0, ty(a.lat)), y1 = Math.min(n - 1, ty(b.lat));
            var wanted = {};
            if ((x1 - x0 + 1) * (y1 - y0 + 1) <= 120) {
              for (var x = x0; x <= x1; x++) for (var y = y0; y <= y1; y++) {
                var key = z + '/' + x + '/' + y;
                wanted[key] = true;
                var img = tiles[key];
                if (!img) {
                  var url = data.tiles.replace('{z}', z).replace('{x}', x).replace('{y}', y).replace('{s}', 'abc'[(x + y) % 3]);
                  img = tiles[key] = el('image', { 'class': 'tile', href: url, preserveAspectRatio: 'none' }, tilesLayer);
                }
                var nw = toLocal(tileLat(y, n), tileLon(x, n)), se = toLocal(tileLat(y + 1, n), tileLon(x + 1, n));
                img.setAttribute('x', (nw.x * view.s + view.tx).toFixed(1));
                img.setAttribute('y', (-nw.y * view.s + view.ty).toFixed(1));
                img.setAttribute('width', ((se.x - nw.x) * view.s + 0.5).toFixed(1));
                img.setAttribute('height', ((nw.y - se.y) * view.s + 0.5).toFixed(1));
              }
            }
            Object.keys(tiles).forEach(function (k) { if (!wanted[k]) { tiles[k].remove(); delete tiles[k]; } });
          }
          if (data.tiles) {
            var attribution = document.getElementById('attribution');
            attribution.hidden = false;
            try { attribution.textContent = 'Tiles: ' + new URL(data.tiles.replace(/[{}]/g, '')).host; } catch (e) { attribution.textContent = 'Tiles'; }
          }

          function select(i) {
            if (state.selected >= 0) markers[state.selected].g.classList.remove('selected');
            state.selected = i;
            if (i < 0) { details.hidden = true; return; }
            var m = markers[i], t = m.t;
            m.g.classList.add('selected');
            details.textContent = '';
            var close = html('button', '×', details, 'close');
            close.type = 'button';
            close.title = 'Close';
            close.addEventListener('click', function () { select(-1); });
            html('h2', t.species + (t.variety ? ' — ' + t.variety : ''), details);
            var dl = html('dl', null, details);
            function row(k, v) { if (v == null || v === '') return; html('dt', k, dl); return html('dd', v, dl); }
            row('id', t.short);
            row('variety', t.variety);
            row('rootstock', t.rootstock);
            row('collection', t.collection);
            row('position', t.lat.toFixed(7) + ', ' + t.lon.toFixed(7));
            // Under a metre in centimetres, never rounded up onto the Survey class's 10 cm.
            function figure(m) {
              if (m >= 1) return (m < 100 ? m.toFixed(1) : m.toFixed(0)) + ' m';
              var cm = m * 100;
              return (cm < 1 ? cm.toFixed(1) : cm < 10 && Math.round(cm) === 10 ? cm.toFixed(cm >= 9.95 ? 2 : 1) : cm.toFixed(0)) + ' cm';
            }
            var acc = row('accuracy', t.acc != null ? ' ' + t.accClass + ' ' + figure(t.acc) + ' (95% radius)' : ' unknown');
            var badge = document.createElement('span');
            badge.className = 'badge';
            badge.style.background = t.accColour;
            acc.insertBefore(badge, acc.firstChild);
            if (t.altitude != null) row('altitude', t.altitude.toFixed(1) + ' m');
            row('fix', t.fix);
            if (t.vacc != null) row('vertical accuracy', figure(t.vacc) + ' (95%)');
            if (t.antenna != null) row('antenna height', t.antenna.toFixed(2) + ' m');
            row('health', t.health);
            row('notes', t.notes);
            row('created', t.created.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
            if (t.photos.length) {
              var box = html('div', null, details, 'photos');
              t.photos.forEach(function (p) {
                var fig = html('figure', null, box);
                if (p.src) {
                  var img = html('img', null, fig);
                  img.src = p.src;
                  img.alt = 'Photo ' + p.id;
                  img.addEventListener('click', function () { show(p.src); });
                } else {
                  html('div', p.format.toUpperCase() + ' photo, no preview', fig, 'nopreview');
                }
                html('figcaption', p.taken.slice(0, 10), fig);
              });
            }
            details.hidden = false;
          }
          function show(src) {
            var v = document.getElementById('viewer');
            v.textContent = '';
            html('img', null, v).src = src;
            v.hidden = false;
          }
          document.getElementById('viewer').addEventListener('click', function () { this.hidden = true; });

          // Pan with a drag, zoom with the wheel (around the pointer), buttons and keys.
          var drag = null;
          svg.addEventListener('pointerdown', function (e) {
            drag = { x: e.clientX, y: e.clientY, moved: 0 };
            svg.setPointerCapture(e.pointerId);
            svg.classList.add('dragging');
          });
          svg.addEventListener('pointermove', function (e) {
            if (!drag) return;
            var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
            drag.moved += Math.abs(dx) + Math.abs(dy);
            drag.x = e.clientX; drag.y = e.clientY;
            view.tx += dx; view.ty += dy;
            render();
          });
          function endDrag(e) {
            if (!drag) return;
            if (drag.moved < 3) select(-1);
            drag = null;
            svg.classList.remove('dragging');
          }
          svg.addEventListener('pointerup', endDrag);
          svg.addEventListener('pointercancel', endDrag);
          svg.addEventListener('wheel', function (e) {
            e.preventDefault();
            var r = svg.getBoundingClientRect();
            var dy = e.deltaY * (e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 400 : 1);
            zoom(Math.exp(-dy * 0.0015), e.clientX - r.left, e.clientY - r.top);
          }, { passive: false });
          svg.addEventListener('dblclick', function (e) {
            var r = svg.getBoundingClientRect();
            zoom(2, e.clientX - r.left, e.clientY - r.top);
          });
          function centre() { var sz = size(); return [sz.w / 2, sz.h / 2]; }
          document.getElementById('zoom-in').addEventListener('click', function () { zoom.apply(null, [1.6].concat(centre())); });
          document.getElementById('zoom-out').addEventListener('click', function () { zoom.apply(null, [1 / 1.6].concat(centre())); });
          document.getElementById('fit').addEventListener('click', fit);
          document.addEventListener('keydown', function (e) {
            if (e.key === '+' || e.key === '=') zoom.apply(null, [1.6].concat(centre()));
            else if (e.key === '-') zoom.apply(null, [1 / 1.6].concat(centre()));
            else if (e.key === '0') fit();
            else if (e.key === 'Escape') { select(-1); document.getElementById('viewer').hidden = true; }
            else if (e.key === 'l') { state.labels = state.labels === 'species' ? 'variety' : 'species'; applyLabels(); }
          });
          var last = size();
          window.addEventListener('resize', function () {
            var now = size();
            view.tx += (now.w - last.w) / 2; view.ty += (now.h - last.h) / 2;
            last = now;
            render();
          });

          applyLabels();
          applyColours();
          fit();
          draw();
          var pick = params.get('tree');
          if (pick) markers.forEach(function (m, i) { if (m.t.id.indexOf(pick.toLowerCase()) === 0) select(i); });
          window.treesMap = { view: view, state: state, fit: fit, zoom: zoom, select: select,
            setLabels: function (v) { state.labels = v; applyLabels(); }, setColour: function (v) { state.color = v; applyColours(); } };
          document.body.setAttribute('data-ready', 'true');
        })();

        """#
}
