// The Cyanotype Fun House: a chain of Core Image filters on a picture from the served folder,
// previewed live at the size it is shown. Everything is said in `cyanotype apply`'s words: a
// filter is a spec ("sepiaTone intensity=0.8"), the page's state is a /render query in the URL
// fragment, and the copies are a command line, Swift code, the JSON recipe (POST /api/render's
// body, copies.js) and an Instafilter recipe.
'use strict';
(function () {
  // The JSON routes answer 415 to a body sent as anything else (fetch's default is text/plain).
  const JSON_HEADERS = { 'Content-Type': 'application/json' };
  const $ = (sel) => document.querySelector(sel);
  const el = (tag, props = {}, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === 'dataset') Object.assign(e.dataset, v);
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else if (k in e && typeof v !== 'string') e[k] = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);
    return e;
  };

  const CATEGORIES = [
    ['CICategoryColorAdjustment', 'Colour adjustment'], ['CICategoryColorEffect', 'Colour effect'],
    ['CICategoryBlur', 'Blur'], ['CICategorySharpen', 'Sharpen'], ['CICategoryStylize', 'Stylize'],
    ['CICategoryDistortionEffect', 'Distortion'], ['CICategoryGeometryAdjustment', 'Geometry'],
    ['CICategoryCompositeOperation', 'Composite'], ['CICategoryHalftoneEffect', 'Halftone'],
    ['CICategoryTileEffect', 'Tile'], ['CICategoryTransition', 'Transition'], ['CICategoryGradient', 'Gradient'],
    ['CICategoryGenerator', 'Generator'], ['CICategoryReduction', 'Reduction'],
  ];

  // ---- State ---------------------------------------------------------------------------
  const state = {
    image: '',          // a name under the served folder
    upload: null,       // {name, data (base64), sha256} for a dropped picture
    steps: [],          // {name: shortName, values: {inputKey: text as in a spec}, enabled}
    lut: '', preset: '', intensity: null,
    format: 'png', quality: null,
    compare: false, split: 0.5,
  };
  let catalogue = [];          // describe --json objects
  const byName = new Map();    // shortName and name (lower case) -> descriptor
  let folder = { images: [], lutFiles: [], looks: [], presets: [], formats: [] };
  let source = null;           // {width, height} upright size of the picture
  let nextStepId = 1;

  const funhouse = window.funhouse = {
    state, ready: false, previews: 0, lastPreview: null, lastError: null,
  };

  // ---- Specs, as the CLI reads them --------------------------------------------------------
  // FilterSpec.parse: a name, then key=value; values quoted ("a b", \" escapes) or bracketed.
  function parseSpec(text) {
    let i = 0; const n = text.length;
    const skip = () => { while (i < n && /\s/.test(text[i])) i++; };
    skip();
    let name = '';
    while (i < n && !/\s/.test(text[i])) name += text[i++];
    const args = [];
    for (;;) {
      skip();
      if (i >= n) break;
      let key = '';
      while (i < n && text[i] !== '=' && !/\s/.test(text[i])) key += text[i++];
      if (text[i] !== '=') throw new Error(`expected key=value in '${text}'`);
      i++;
      let value = '';
      if (text[i] === '"') {
        i++;
        while (i < n && text[i] !== '"') {
          if (text[i] === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) { value += text[i + 1]; i += 2; continue; }
          value += text[i++];
        }
        i++;
        value = { quoted: value };
      } else if (text[i] === '[') {
        while (i < n) { value += text[i++]; if (value.endsWith(']')) break; }
      } else {
        while (i < n && !/\s/.test(text[i])) value += text[i++];
      }
      args.push([key, value]);
    }
    return { name, args };
  }

  const quoteSpec = (s) => '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
  const num = (x) => {
    if (!isFinite(x)) return '0';
    const r = Math.round(x * 10000) / 10000;
    return String(Object.is(r, -0) ? 0 : r);
  };

  function descriptor(name) { return byName.get(String(name).toLowerCase()) || byName.get(('ci' + name).toLowerCase()); }
  function inputFor(d, key) {
    const k = key.toLowerCase();
    return d.inputs.find((i) => i.key.toLowerCase() === k || i.key.toLowerCase() === 'input' + k);
  }
  const isImageInput = (i) => i.class === 'CIImage' && i.key !== 'inputImage';
  const isPosition = (i) => i.class === 'CIVector' && (i.type === 'CIAttributeTypePosition');

  function specOf(step) {
    let s = step.name;
    for (const [key, text] of Object.entries(step.values)) {
      const d = descriptor(step.name); const input = d && inputFor(d, key);
      s += ' ' + (input ? input.shortKey : key) + '=' + text;
    }
    return s;
  }

  // The text a control writes for an input, in the spec's syntax.
  function valueText(input, v) {
    switch (input.class) {
      case 'NSNumber': return input.type === 'CIAttributeTypeBoolean' ? (v ? 'true' : 'false') : num(v);
      case 'CIColor': return v; // #rrggbb
      case 'CIVector': return Array.isArray(v) ? '[' + v.map(num).join(' ') + ']' : v;
      case 'CIImage': return /[\s"]/.test(v) ? quoteSpec(v) : v;
      case 'NSString': case 'NSData': return quoteSpec(v);
      default: return v;
    }
  }
  function unquote(v) { return typeof v === 'object' ? v.quoted : v; }
  function vectorOf(text) {
    const m = /^\[(.*)\]$/.exec(String(text).trim());
    return m ? m[1].split(/[\s,]+/).filter(Boolean).map(Number) : null;
  }
  function hexColor(v) {
    if (typeof v === 'string' && v.startsWith('#')) return v.slice(0, 7);
    const a = Array.isArray(v) ? v : vectorOf(v) || [0, 0, 0];
    return '#' + a.slice(0, 3).map((x) => Math.round(Math.min(1, Math.max(0, x)) * 255).toString(16).padStart(2, '0')).join('');
  }

  // ---- The URL fragment: the /render query of the chain ------------------------------------
  function renderQuery({ preview = false, size = null, format = state.format, quality = state.quality, withImage = true } = {}) {
    const q = [];
    if (withImage && state.image) q.push(['image', state.image]);
    for (const step of state.steps) if (step.enabled) q.push(['filter', specOf(step)]);
    if (state.lut) q.push(['lut', state.lut]);
    if (state.preset) q.push(['preset', state.preset]);
    if (state.intensity !== null && (state.lut || state.preset)) q.push(['intensity', num(state.intensity)]);
    if (size) { q.push(['w', String(size.w)]); q.push(['h', String(size.h)]); }
    if (format) q.push(['format', format]);
    if (quality !== null && quality !== '' && format !== 'png' && format !== 'tiff') q.push(['q', String(quality)]);
    if (preview) q.push(['preview', '1']);
    return q.map(([k, v]) => k + '=' + encodeURIComponent(v)).join('&');
  }

  function writeFragment() {
    const q = [];
    if (state.image) q.push('image=' + encodeURIComponent(state.image));
    state.steps.forEach((s) => q.push('filter=' + encodeURIComponent(specOf(s))));
    const off = state.steps.map((s, i) => (s.enabled ? null : i)).filter((i) => i !== null);
    if (off.length) q.push('off=' + off.join(','));
    if (state.lut) q.push('lut=' + encodeURIComponent(state.lut));
    if (state.preset) q.push('preset=' + encodeURIComponent(state.preset));
    if (state.intensity !== null) q.push('intensity=' + num(state.intensity));
    if (state.format !== 'png') q.push('format=' + state.format);
    if (state.quality !== null && state.quality !== '') q.push('q=' + state.quality);
    const frag = '#' + q.join('&');
    if (location.hash !== frag) history.replaceState(null, '', frag);
  }

  function readFragment() {
    const params = location.hash.replace(/^#/, '').split('&').filter(Boolean).map((p) => {
      const [k, ...rest] = p.split('=');
      return [k, decodeURIComponent(rest.join('=').replace(/\+/g, ' '))];
    });
    state.steps = []; state.lut = ''; state.preset = ''; state.intensity = null;
    let off = [];
    for (const [k, v] of params) {
      if (k === 'image') state.image = v;
      else if (k === 'filter') { const s = stepFromSpec(v); if (s) state.steps.push(s); }
      else if (k === 'off') off = v.split(',').map(Number);
      else if (k === 'lut') state.lut = v;
      else if (k === 'preset') state.preset = v;
      else if (k === 'intensity') state.intensity = Number(v);
      else if (k === 'format') state.format = v;
      else if (k === 'q') state.quality = v;
    }
    off.forEach((i) => { if (state.steps[i]) state.steps[i].enabled = false; });
  }

  function stepFromSpec(text) {
    try {
      const { name, args } = parseSpec(text);
      const d = descriptor(name);
      if (!d) { setStatus(`unknown filter '${name}' in the link`, 'error'); return null; }
      const values = {};
      for (const [key, value] of args) {
        const input = inputFor(d, key);
        values[input ? input.key : key] = typeof value === 'object' ? quoteSpec(value.quoted) : value;
      }
      return { id: nextStepId++, name: d.shortName, values, enabled: true };
    } catch (e) { setStatus(String(e.message || e), 'error'); return null; }
  }

  // ---- Catalogue ---------------------------------------------------------------------------
  function buildCatalogue() {
    const box = $('#categories');
    box.textContent = '';
    const term = $('#search').value.trim().toLowerCase();
    for (const [cat, label] of CATEGORIES) {
      const items = catalogue.filter((d) => d.categories.includes(cat) && (!term
        || d.shortName.toLowerCase().includes(term) || d.displayName.toLowerCase().includes(term)
        || (d.summary || '').toLowerCase().includes(term)));
      if (!items.length) continue;
      const det = el('details', { open: !!term || cat === 'CICategoryColorAdjustment' || cat === 'CICategoryColorEffect' },
        el('summary', {}, `${label} (${items.length})`));
      for (const d of items) {
        det.append(el('button', { class: 'filter-item', title: d.summary || '', dataset: { name: d.shortName },
          onclick: () => addStep(d.shortName) }, d.displayName, ' ', el('small', {}, d.shortName)));
      }
      box.append(det);
    }
  }

  function addStep(name) {
    state.steps.push({ id: nextStepId++, name, values: {}, enabled: true });
    chainChanged();
  }

  // ---- Chain and its controls --------------------------------------------------------------
  function buildChain() {
    const list = $('#chain');
    list.textContent = '';
    $('#chain-empty').hidden = state.steps.length > 0;
    state.steps.forEach((step, index) => {
      const d = descriptor(step.name);
      const move = (delta) => {
        const j = index + delta;
        if (j < 0 || j >= state.steps.length) return;
        [state.steps[index], state.steps[j]] = [state.steps[j], state.steps[index]];
        chainChanged();
      };
      const head = el('div', { class: 'step-head' },
        el('input', { type: 'checkbox', checked: step.enabled, title: 'On / off', 'aria-label': 'Enabled',
          onchange: (e) => { step.enabled = e.target.checked; chainChanged(); } }),
        el('strong', { title: d ? d.summary : '' }, d ? d.displayName : step.name),
        el('button', { title: 'Up', onclick: () => move(-1) }, '↑'),
        el('button', { title: 'Down', onclick: () => move(1) }, '↓'),
        el('button', { title: 'Remove', class: 'remove', onclick: () => { state.steps.splice(index, 1); chainChanged(); } }, '×'));
      const li = el('li', { class: 'step' + (step.enabled ? '' : ' off'), dataset: { name: step.name, index: String(index) } }, head);
      if (d) for (const input of d.inputs) { const c = control(step, input); if (c) li.append(c); }
      list.append(li);
    });
  }

  function control(step, input) {
    if (input.key === 'inputImage') return null;
    const current = step.values[input.key];
    const set = (text) => { step.values[input.key] = text; changed(); };
    const row = (widget, out) => el('div', { class: 'control', dataset: { key: input.key } },
      el('span', { title: input.key }, input.displayName || input.shortKey), widget, out || el('span'));
    if (input.class === 'NSNumber' && input.type === 'CIAttributeTypeBoolean') {
      const on = current !== undefined ? current === 'true' : !!input.default;
      return row(el('input', { type: 'checkbox', checked: on, dataset: { key: input.key },
        onchange: (e) => set(valueText(input, e.target.checked)) }));
    }
    if (input.class === 'NSNumber') {
      const lo = input.sliderMin ?? input.min ?? 0;
      let hi = input.sliderMax ?? input.max ?? Math.max(1, (input.default || 0) * 2);
      if (hi <= lo) hi = lo + 1;
      const integral = ['CIAttributeTypeInteger', 'CIAttributeTypeCount'].includes(input.type);
      const value = current !== undefined ? Number(current) : (typeof input.default === 'number' ? input.default : lo);
      const out = el('output', {}, num(value));
      const slider = el('input', { type: 'range', min: String(lo), max: String(hi), step: integral ? '1' : String((hi - lo) / 1000),
        value: String(value), dataset: { key: input.key }, 'aria-label': input.shortKey,
        oninput: (e) => { out.textContent = num(Number(e.target.value)); set(valueText(input, Number(e.target.value))); } });
      return row(slider, out);
    }
    if (input.class === 'CIColor') {
      return row(el('input', { type: 'color', value: hexColor(current !== undefined ? current : input.default),
        dataset: { key: input.key }, oninput: (e) => set(e.target.value) }));
    }
    if (isImageInput(input)) {
      const sel = el('select', { dataset: { key: input.key }, onchange: (e) => { if (e.target.value) set(valueText(input, e.target.value)); else { delete step.values[input.key]; changed(); } } },
        el('option', { value: '' }, '(choose an image)'));
      for (const name of folder.images) sel.append(el('option', { value: name, selected: current !== undefined && unquote(parseValue(current)) === name }, name));
      return row(sel);
    }
    if (input.class === 'NSString' || input.class === 'NSData') {
      const text = current !== undefined ? unquote(parseValue(current)) : (typeof input.default === 'string' ? input.default : '');
      return row(el('input', { type: 'text', value: text, dataset: { key: input.key }, oninput: (e) => set(valueText(input, e.target.value)) }));
    }
    if (input.class === 'CIVector' || input.class === 'CGAffineTransform' || input.class === 'NSAffineTransform') {
      const v = current !== undefined ? current : (Array.isArray(input.default) ? '[' + input.default.map(num).join(' ') + ']' : '');
      const box = el('input', { type: 'text', value: v, dataset: { key: input.key }, spellcheck: false,
        onchange: (e) => set(e.target.value.trim()) });
      return row(box);
    }
    return null;
  }
  function parseValue(text) { return parseSpec('x k=' + text).args[0][1]; }

  // ---- Draggable points for position inputs -------------------------------------------------
  // Where the server puts a point left at its default (top-left origin): Apple's (150, 150)
  // is the picture's centre, a quadrilateral's corners its corners, any other point the same
  // place as in a 300 x 300 picture.
  function pictureDefault(input) {
    const d = input.default || [0, 0], W = source.width, H = source.height;
    const corners = { inputTopLeft: [0, 0], inputTopRight: [W, 0], inputBottomLeft: [0, H], inputBottomRight: [W, H] };
    if (corners[input.key]) return corners[input.key];
    if (d[0] === 150 && d[1] === 150) return [W / 2, H / 2];
    return [d[0] / 300 * W, H - d[1] / 300 * H];
  }
  function buildHandles() {
    const layer = $('#handles');
    layer.textContent = '';
    const canvas = $('#preview-canvas');
    if (!source || !canvas.width) return;
    const box = canvas.getBoundingClientRect(), stage = $('#stage').getBoundingClientRect();
    const sx = box.width / source.width, sy = box.height / source.height;
    state.steps.forEach((step) => {
      if (!step.enabled) return;
      const d = descriptor(step.name);
      if (!d) return;
      for (const input of d.inputs.filter(isPosition)) {
        const v = vectorOf(step.values[input.key] ?? '') || pictureDefault(input);
        const h = el('div', { class: 'handle', title: `${d.displayName}: ${input.displayName || input.shortKey}`, dataset: { key: input.key } },
          el('span', {}, input.shortKey));
        const place = (x, y) => { // x, y in source pixels from the top left, as the server reads them
          h.style.left = (box.left - stage.left + x * sx) + 'px';
          h.style.top = (box.top - stage.top + y * sy) + 'px';
        };
        place(v[0], v[1]);
        h.addEventListener('pointerdown', (e) => {
          h.setPointerCapture(e.pointerId);
          const moveTo = (ev) => {
            const x = Math.min(source.width, Math.max(0, (ev.clientX - box.left) / sx));
            const y = Math.min(source.height, Math.max(0, (ev.clientY - box.top) / sy));
            place(x, y);
            step.values[input.key] = '[' + num(Math.round(x)) + ' ' + num(Math.round(y)) + ']';
            const text = document.querySelector(`#chain li[data-index="${state.steps.indexOf(step)}"] input[type=text][data-key="${input.key}"]`);
            if (text) text.value = step.values[input.key];
            changed();
          };
          const up = () => { h.removeEventListener('pointermove', moveTo); h.removeEventListener('pointerup', up); };
          h.addEventListener('pointermove', moveTo);
          h.addEventListener('pointerup', up);
        });
        layer.append(h);
      }
    });
  }

  // ---- Preview: one request in flight; when it ends, the latest state renders --------------
  let inFlight = false, wanted = 0, shown = 0, seq = 0;
  let beforeImage = null, afterImage = null, beforeKey = '';

  function previewSize() {
    const stage = $('#stage').getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    if (!source) return null;
    const w = Math.max(1, Math.min(source.width, Math.floor((stage.width - 16) * dpr)));
    const h = Math.max(1, Math.min(source.height, Math.floor((stage.height - 16) * dpr)));
    return { w, h };
  }

  function changed() { wanted++; writeFragment(); schedule(); }
  // True when the preview on screen shows the latest state (tests wait for it).
  funhouse.settled = () => !inFlight && shown === wanted && !!afterImage;
  funhouse.requestsStarted = () => seq;
  funhouse.changes = () => wanted;
  function chainChanged() { buildChain(); changed(); }

  function schedule() {
    if (inFlight || !(state.image || state.upload) || !source) return;
    const target = wanted;
    inFlight = true;
    const size = previewSize();
    const mySeq = ++seq;
    setStatus('rendering…', 'loading');
    fetchPreview(size, false).then(async (r) => {
      if (!r.ok) throw await errorOf(r);
      const blob = await r.blob();
      const img = await imageOf(blob);
      afterImage = img;
      shown = target;
      funhouse.previews++;
      funhouse.lastPreview = { seq: mySeq, width: img.naturalWidth, height: img.naturalHeight, query: renderQuery({ preview: true, size, format: 'png', quality: null }),
        ms: r.headers.get('X-Render-Ms'), mode: r.headers.get('X-Preview'), wanted: target };
      $('#timing').textContent = `${img.naturalWidth}×${img.naturalHeight} · ${r.headers.get('X-Render-Ms')} ms on the server · ${r.headers.get('X-Preview') || ''} preview`;
      const warn = r.headers.get('X-Cyanotype-Warnings');
      setStatus(warn ? 'note: ' + warn : '', 'idle');
      if (state.compare) await loadBefore(size);
      draw();
    }).catch((e) => {
      funhouse.lastError = String(e.message || e);
      setStatus(funhouse.lastError, 'error');
    }).finally(() => {
      inFlight = false;
      if (wanted !== target) schedule();
      else { $('#status').dataset.state = $('#status').dataset.state === 'error' ? 'error' : 'idle'; $('#status').dataset.shown = String(shown); }
    });
  }

  async function errorOf(r) {
    try { const j = await r.json(); return new Error(`${j.error}: ${j.message}`); } catch { return new Error(`HTTP ${r.status}`); }
  }
  function imageOf(blob) {
    return new Promise((resolve, reject) => {
      const img = new Image();
      img.onload = () => resolve(img);
      img.onerror = () => reject(new Error('the preview did not decode'));
      img.src = URL.createObjectURL(blob);
    });
  }

  // A preview (or the unfiltered "before"): GET /render for a folder image, POST for an upload.
  async function fetchPreview(size, before) {
    if (!state.upload) {
      const q = before ? 'image=' + encodeURIComponent(state.image) + `&w=${size.w}&h=${size.h}&format=png&preview=1`
        : renderQuery({ preview: true, size, format: 'png', quality: null });
      return fetch('/render?' + q);
    }
    const body = (withData) => JSON.stringify(Object.assign(requestJSON(before), {
      image: withData ? { data: state.upload.data } : { sha256: state.upload.sha256 },
      width: size.w, height: size.h, format: 'png', preview: true, quality: null }));
    let r = await fetch('/api/render', { method: 'POST', headers: JSON_HEADERS, body: body(false) });
    if (r.status === 412) r = await fetch('/api/render', { method: 'POST', headers: JSON_HEADERS, body: body(true) });
    return r;
  }

  function requestJSON(plain = false) {
    const on = state.steps.filter((s) => s.enabled);
    return {
      filters: plain ? [] : on.map(specOf), lut: plain ? null : state.lut || null, preset: plain ? null : state.preset || null,
      intensity: plain || state.intensity === null || !(state.lut || state.preset) ? null : state.intensity,
    };
  }

  async function loadBefore(size) {
    const key = (state.image || state.upload?.sha256) + `|${size.w}x${size.h}`;
    if (beforeKey === key && beforeImage) return;
    const r = await fetchPreview(size, true);
    if (!r.ok) throw await errorOf(r);
    beforeImage = await imageOf(await r.blob());
    beforeKey = key;
  }

  function draw() {
    const canvas = $('#preview-canvas');
    if (!afterImage) return;
    const w = afterImage.naturalWidth, h = afterImage.naturalHeight;
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    const dpr = window.devicePixelRatio || 1;
    canvas.style.width = (w / dpr) + 'px';
    canvas.style.height = (h / dpr) + 'px';
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    ctx.clearRect(0, 0, w, h);
    ctx.drawImage(afterImage, 0, 0);
    const line = $('#split-line');
    if (state.compare && beforeImage && beforeImage.naturalWidth === w) {
      const cut = Math.round(state.split * w);
      if (cut > 0) ctx.drawImage(beforeImage, 0, 0, cut, h, 0, 0, cut, h);
      const box = canvas.getBoundingClientRect(), stage = $('#stage').getBoundingClientRect();
      line.style.left = (box.left - stage.left + cut / dpr) + 'px';
      line.hidden = false;
    } else line.hidden = true;
    $('#drop-hint').hidden = true;
    histogram();
    buildHandles();
  }

  // ---- Histogram of the filtered preview -------------------------------------------------
  function histogram() {
    if (!afterImage) return;
    const w = afterImage.naturalWidth, h = afterImage.naturalHeight;
    const off = document.createElement('canvas');
    off.width = w; off.height = h;
    const c = off.getContext('2d', { willReadFrequently: true });
    c.drawImage(afterImage, 0, 0);
    const px = c.getImageData(0, 0, w, h).data;
    const bins = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
    for (let i = 0; i < px.length; i += 4) {
      bins[0][px[i]]++; bins[1][px[i + 1]]++; bins[2][px[i + 2]]++;
      bins[3][Math.round(0.2126 * px[i] + 0.7152 * px[i + 1] + 0.0722 * px[i + 2])]++;
    }
    const canvas = $('#histogram'), ctx = canvas.getContext('2d');
    ctx.clearRect(0, 0, 256, 100);
    let peak = 1;
    for (const b of bins) for (let i = 1; i < 255; i++) peak = Math.max(peak, b[i]);
    const colours = ['rgba(255,80,80,.6)', 'rgba(80,220,80,.6)', 'rgba(90,140,255,.6)', 'rgba(230,230,230,.5)'];
    ctx.globalCompositeOperation = 'lighter';
    bins.forEach((b, k) => {
      ctx.fillStyle = colours[k];
      for (let i = 0; i < 256; i++) { const v = Math.min(100, (b[i] / peak) * 100); ctx.fillRect(i, 100 - v, 1, v); }
    });
    ctx.globalCompositeOperation = 'source-over';
    funhouse.histogram = bins.map((b) => Array.from(b));
  }

  // ---- Images: the folder, or a dropped file ----------------------------------------------
  async function pickImage(name) {
    state.image = name; state.upload = null; source = null; afterImage = null; beforeImage = null;
    if (!name) return;
    const r = await fetch('/api/info?image=' + encodeURIComponent(name));
    if (!r.ok) { setStatus((await errorOf(r)).message, 'error'); return; }
    const info = await r.json();
    source = { width: info.width, height: info.height };
    $('#image-select').value = name;
    changed();
  }

  async function useFile(file) {
    const buffer = await file.arrayBuffer();
    const hash = await crypto.subtle.digest('SHA-256', buffer);
    const sha256 = Array.from(new Uint8Array(hash)).map((b) => b.toString(16).padStart(2, '0')).join('');
    let binary = '';
    const bytes = new Uint8Array(buffer);
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    const bitmap = await createImageBitmap(file).catch(() => null);
    state.image = ''; state.upload = { name: file.name, data: btoa(binary), sha256 };
    source = bitmap ? { width: bitmap.width, height: bitmap.height } : null;
    afterImage = null; beforeImage = null;
    $('#image-select').value = '';
    if (!source) { setStatus(`${file.name}: the browser cannot read its size; rendering at full size`, 'error'); source = { width: 4096, height: 4096 }; }
    changed();
  }

  // ---- Export and copies -------------------------------------------------------------------
  const extension = { jpeg: 'jpg', png: 'png', webp: 'webp', avif: 'avif', tiff: 'tif', heic: 'heic' };
  function outputName() {
    const base = (state.image || state.upload?.name || 'image').split('/').pop().replace(/\.[^.]*$/, '');
    return `${base}-cyanotype.${extension[state.format] || state.format}`;
  }
  const shq = (s) => /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";

  function commandLine() {
    const input = state.image || state.upload?.name || 'IMAGE';
    const parts = ['cyanotype', 'apply', shq(input), '-o', shq(outputName())];
    for (const s of state.steps) if (s.enabled) parts.push('--filter', shq(specOf(s)));
    if (state.lut) parts.push('--lut', shq(state.lut));
    if (state.preset) parts.push('--preset', shq(state.preset));
    if (state.intensity !== null && (state.lut || state.preset)) parts.push('--intensity', num(state.intensity));
    if (state.quality !== null && state.quality !== '' && !['png', 'tiff'].includes(state.format)) parts.push('--quality', String(state.quality));
    return parts.join(' ');
  }

  // Points and rectangles as the library takes them: the page and the server count from the
  // top left, Core Image from the bottom left (y' = H - y; a rectangle's H - y - h).
  const isPlacement = (i) => i.class === 'CIVector' && i.key !== 'inputSize'
    && ['CIAttributeTypePosition', 'CIAttributeTypePosition3', 'CIAttributeTypeRectangle'].includes(i.type);
  function coreImageVector(input, a) {
    if (!isPlacement(input) || !source || a.length < 2) return a;
    const out = a.slice();
    if (input.type === 'CIAttributeTypeRectangle') {
      if (a.length !== 4 || (a[2] === 0 && a[3] === 0) || a.some((x) => Math.abs(x) > 1e300)) return a;
      out[1] = source.height - a[1] - a[3];
    } else {
      out[1] = source.height - a[1];
    }
    return out;
  }
  // The points the server puts on the picture when a step leaves them out, as text.
  function pictureDefaults(d) {
    if (!source || !d.inputs.some((i) => i.key === 'inputImage')) return [];
    const out = d.inputs.filter(isPosition).filter((i) => Array.isArray(i.default) && i.default[0] >= 0 && i.default[1] >= 0)
      .map((i) => [i.key, '[' + pictureDefault(i).map((x) => num(Math.round(x * 100) / 100)).join(' ') + ']']);
    // A vignette's or distortion's radius, scaled from Apple's 300 x 300 example picture.
    const radius = d.inputs.find((i) => i.key === 'inputRadius' && i.type === 'CIAttributeTypeDistance');
    if (radius && typeof radius.default === 'number' && d.inputs.some((i) => i.key === 'inputCenter')
      && (d.name === 'CIVignetteEffect' || d.categories.includes('CICategoryDistortionEffect'))) {
      out.push(['inputRadius', num(radius.default * Math.min(source.width, source.height) / 300)]);
    }
    return out;
  }

  function swiftValue(input, text) {
    const v = unquote(parseValue(text));
    switch (input.class) {
      case 'NSNumber': return input.type === 'CIAttributeTypeBoolean' ? (v === 'true' ? 'true' : 'false') : num(Number(v));
      case 'CIColor': {
        let rgba = vectorOf(v);
        if (!rgba) { const n = parseInt(String(v).slice(1, 7), 16); rgba = [(n >> 16 & 255) / 255, (n >> 8 & 255) / 255, (n & 255) / 255, 1]; }
        return `CIColor(red: ${num(rgba[0])}, green: ${num(rgba[1])}, blue: ${num(rgba[2])}, alpha: ${num(rgba[3] ?? 1)})`;
      }
      case 'CIVector': { const a = coreImageVector(input, vectorOf(v) || []); return `CIVector(values: [${a.map(num).join(', ')}], count: ${a.length})`; }
      case 'CGAffineTransform': case 'NSAffineTransform': { const a = vectorOf(v) || [1, 0, 0, 1, 0, 0]; return `CGAffineTransform(a: ${a[0]}, b: ${a[1]}, c: ${a[2]}, d: ${a[3]}, tx: ${a[4]}, ty: ${a[5]})`; }
      case 'CIImage': return `CIImage(contentsOf: URL(fileURLWithPath: ${JSON.stringify(v)}), options: [.applyOrientationProperty: true])!`;
      case 'NSData': return `${JSON.stringify(v)}.data(using: .utf8)!`;
      default: return JSON.stringify(v);
    }
  }

  function swiftCode() {
    const input = state.image || state.upload?.name || 'IMAGE';
    const edgeCats = ['CICategoryBlur', 'CICategorySharpen', 'CICategoryStylize', 'CICategoryDistortionEffect'];
    const lines = [
      'import Foundation',
      '#if canImport(CoreImage)',
      'import CoreImage',
      '#else',
      'import Cyanotype',
      '#endif',
    ];
    if (state.preset) lines.push('import Instafilter');
    lines.push('', `var image = CIImage(contentsOf: URL(fileURLWithPath: ${JSON.stringify(input)}), options: [.applyOrientationProperty: true])!`,
      'let extent = image.extent');
    for (const s of state.steps) {
      if (!s.enabled) continue;
      const d = descriptor(s.name);
      const given = new Set(Object.keys(s.values).map((k) => inputFor(d, k)?.key ?? k));
      const values = Object.entries(s.values).concat(pictureDefaults(d).filter(([k]) => !given.has(k)));
      const params = values.map(([k, t]) => { const i = inputFor(d, k); return `${JSON.stringify(i ? i.key : k)}: ${i ? swiftValue(i, t) : JSON.stringify(t)}`; });
      const dict = params.length ? `[${params.join(', ')}]` : '[:]';
      if (d.categories.some((c) => edgeCats.includes(c))) {
        lines.push(`// As the CLI does: the filter reads the edge pixels repeated, and keeps the picture's size.`,
          `image = image.clampedToExtent().applyingFilter(${JSON.stringify(d.name)}, parameters: ${dict}).cropped(to: extent)`);
      } else {
        lines.push(`image = image.applyingFilter(${JSON.stringify(d.name)}, parameters: ${dict})`);
      }
    }
    const t = state.intensity !== null ? num(state.intensity) : '1';
    if (state.lut) {
      lines.push('#if !canImport(CoreImage)', `// LUTs are Cyanotype's (a look by name, or LUT(contentsOf:) for a .cube file).`);
      if (folder.looks.includes(state.lut)) lines.push(`image = image.applyingLUT(LUTConfiguration.shared.look(named: ${JSON.stringify(state.lut)})!, interpolation: .tetrahedral, intensity: ${state.preset ? '1' : t})`);
      else lines.push(`image = image.applyingLUT(try LUT(contentsOf: URL(fileURLWithPath: ${JSON.stringify(state.lut)})), interpolation: .tetrahedral, intensity: ${state.preset ? '1' : t})`);
      lines.push('#endif');
    }
    if (state.preset) {
      lines.push(`let look = try FilterRegistry.make(${JSON.stringify(state.preset)})`);
      if (state.intensity !== null) lines.push(`look.intensity = ${t}`);
      lines.push('image = look.apply(to: image)');
    }
    lines.push('', 'let context = CIContext()',
      `try context.writePNGRepresentation(of: image, to: URL(fileURLWithPath: ${JSON.stringify(outputName().replace(/\.[^.]*$/, '.png'))}),`,
      '                                   format: .RGBA8, colorSpace: CGColorSpace(name: CGColorSpace.sRGB)!)');
    return lines.join('\n');
  }

  // Instafilter's recipe: {"version": 1, "steps": [{"filter": "CISepiaTone", "parameters": {...}}, {"look": ...}]}
  function recipe() {
    const notes = [];
    const steps = [];
    for (const s of state.steps) {
      if (!s.enabled) continue;
      const d = descriptor(s.name);
      const parameters = {};
      const given = new Set(Object.keys(s.values).map((k) => inputFor(d, k)?.key ?? k));
      for (const [k, t] of Object.entries(s.values).concat(pictureDefaults(d).filter(([k]) => !given.has(k)))) {
        const i = inputFor(d, k);
        const v = unquote(parseValue(t));
        if (!i) continue;
        if (i.class === 'NSNumber') parameters[i.key] = i.type === 'CIAttributeTypeBoolean' ? (v === 'true' ? 1 : 0) : Number(v);
        else if (i.class === 'CIVector') parameters[i.key] = coreImageVector(i, vectorOf(v) || []);
        else if (i.class === 'CIColor') {
          let a = vectorOf(v);
          if (!a) { const n = parseInt(String(v).slice(1, 7), 16); a = [(n >> 16 & 255) / 255, (n >> 8 & 255) / 255, (n & 255) / 255, 1]; }
          parameters[i.key] = { red: a[0], green: a[1], blue: a[2], alpha: a[3] ?? 1 };
        } else notes.push(`${s.name} ${i.shortKey}: a recipe holds numbers, vectors and colours only; left out`);
      }
      const step = { filter: d.name };
      if (Object.keys(parameters).length) step.parameters = parameters;
      steps.push(step);
    }
    if (state.lut) notes.push(`the LUT '${state.lut}' is not part of an Instafilter recipe; use the command line or Swift`);
    if (state.preset) {
      const step = { look: state.preset };
      if (state.intensity !== null) step.intensity = state.intensity;
      steps.push(step);
    }
    return { text: JSON.stringify({ version: 1, steps }, null, 2), notes };
  }

  function renderURL() {
    return location.origin + '/render?' + renderQuery({ format: state.format, quality: state.quality });
  }

  funhouse.copy = function (kind) {
    let text = '', notes = [];
    if (kind === 'cli') text = commandLine();
    else if (kind === 'swift') text = swiftCode();
    else if (kind === 'recipe') {
      const r = window.funhouseCopies.renderRequest(state, state.steps.filter((s) => s.enabled).map(specOf));
      text = JSON.stringify(r.request, null, 2); notes = r.notes;
    } else if (kind === 'instafilter') ({ text, notes } = recipe());
    else if (kind === 'url') { text = renderURL(); if (state.upload) notes = ['a dropped picture has no URL: save it in the served folder']; }
    $('#copy-text').value = text;
    $('#copy-note').textContent = notes.join('; ');
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).catch(() => {});
    else { $('#copy-text').select(); try { document.execCommand('copy'); } catch { /* shown in the box */ } }
    return text;
  };

  async function download() {
    setStatus('rendering the full size…', 'loading');
    try {
      let r;
      if (state.upload) {
        r = await fetch('/api/render', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(Object.assign(requestJSON(), {
          image: { data: state.upload.data }, format: state.format, quality: state.quality === '' || state.quality === null ? null : Number(state.quality) })) });
      } else {
        r = await fetch('/render?' + renderQuery({ format: state.format, quality: state.quality }));
      }
      if (!r.ok) throw await errorOf(r);
      const blob = await r.blob();
      const a = el('a', { href: URL.createObjectURL(blob), download: outputName() });
      document.body.append(a); a.click(); a.remove();
      setStatus(`${outputName()}: ${r.headers.get('X-Image-Size')}, ${r.headers.get('X-Render-Ms')} ms`, 'idle');
    } catch (e) { setStatus(String(e.message || e), 'error'); }
  }

  async function explain() {
    const size = previewSize();
    try {
      let r;
      if (state.upload) r = await fetch('/api/explain', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(Object.assign(requestJSON(), { image: { data: state.upload.data }, width: size.w, height: size.h, preview: true })) });
      else r = await fetch('/api/explain?' + renderQuery({ preview: true, size, format: null, quality: null }));
      if (!r.ok) throw await errorOf(r);
      const j = await r.json();
      $('#plan').textContent = `${j.width}×${j.height} (${j.preview || 'full'} preview)\n` + j.plan;
    } catch (e) { $('#plan').textContent = String(e.message || e); }
  }

  function setStatus(text, kind) {
    const s = $('#status');
    s.textContent = text;
    s.dataset.state = kind;
  }

  // ---- Wiring --------------------------------------------------------------------------------
  function fillSelect(sel, names, keep) {
    for (const n of names) sel.append(el('option', { value: n }, n));
    if (keep) sel.value = keep;
  }

  async function start() {
    const [filters, listing] = await Promise.all([fetch('/api/filters').then((r) => r.json()), fetch('/api/images').then((r) => r.json())]);
    catalogue = filters.sort((a, b) => a.displayName.localeCompare(b.displayName));
    for (const d of catalogue) { byName.set(d.shortName.toLowerCase(), d); byName.set(d.name.toLowerCase(), d); }
    folder = listing;
    fillSelect($('#image-select'), folder.images);
    const lut = $('#lut');
    const looks = el('optgroup', { label: 'Looks' }), files = el('optgroup', { label: 'LUT files' });
    folder.looks.forEach((n) => looks.append(el('option', { value: n }, n)));
    folder.lutFiles.forEach((n) => files.append(el('option', { value: n }, n)));
    lut.append(looks); if (folder.lutFiles.length) lut.append(files);
    fillSelect($('#preset'), folder.presets);
    fillSelect($('#format'), folder.formats);
    readFragment();
    $('#lut').value = state.lut; $('#preset').value = state.preset; $('#format').value = state.format;
    if (state.intensity !== null) { $('#intensity').value = state.intensity; $('#intensity-value').textContent = num(state.intensity); }
    if (state.quality !== null) $('#quality').value = state.quality;
    buildCatalogue();
    buildChain();
    $('#search').addEventListener('input', buildCatalogue);
    $('#image-select').addEventListener('change', (e) => pickImage(e.target.value));
    $('#file-input').addEventListener('change', (e) => { if (e.target.files[0]) useFile(e.target.files[0]); });
    $('#lut').addEventListener('change', (e) => { state.lut = e.target.value; changed(); });
    $('#preset').addEventListener('change', (e) => { state.preset = e.target.value; changed(); });
    $('#intensity').addEventListener('input', (e) => { state.intensity = Number(e.target.value); $('#intensity-value').textContent = num(state.intensity); changed(); });
    $('#format').addEventListener('change', (e) => { state.format = e.target.value; writeFragment(); });
    $('#quality').addEventListener('change', (e) => { state.quality = e.target.value === '' ? null : e.target.value; writeFragment(); });
    $('#compare').addEventListener('change', async (e) => {
      state.compare = e.target.checked; $('#split').disabled = !state.compare;
      if (state.compare && source) { try { await loadBefore(previewSize()); } catch (err) { setStatus(String(err.message || err), 'error'); } }
      draw();
    });
    $('#split').addEventListener('input', (e) => { state.split = Number(e.target.value); draw(); });
    $('#download').addEventListener('click', download);
    $('#explain').addEventListener('click', explain);
    document.querySelectorAll('[data-copy]').forEach((b) => b.addEventListener('click', () => funhouse.copy(b.dataset.copy)));
    const stage = $('#stage');
    stage.addEventListener('dragover', (e) => { e.preventDefault(); stage.classList.add('dragover'); });
    stage.addEventListener('dragleave', () => stage.classList.remove('dragover'));
    stage.addEventListener('drop', (e) => { e.preventDefault(); stage.classList.remove('dragover'); if (e.dataTransfer.files[0]) useFile(e.dataTransfer.files[0]); });
    let resizeTimer = 0;
    window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(() => { beforeImage = null; changed(); }, 200); });
    window.addEventListener('hashchange', () => { readFragment(); buildChain(); if (state.image && (!source || $('#image-select').value !== state.image)) pickImage(state.image); else changed(); });
    funhouse.ready = true;
    if (state.image) await pickImage(state.image); else if (folder.images.length === 0) setStatus('no images in the served folder: drop one in', 'idle');
  }

  start().catch((e) => setStatus('could not start: ' + (e.message || e), 'error'));
})();
