// The Fun House's "Copy JSON recipe": the page's chain as the body of POST /api/render, in
// `cyanotype apply`'s words (filter specs, the LUT by file or look name, the preset and its
// intensity), so posting it renders what the page shows, LUT included. No DOM: the page calls
// it with its state, and the server's tests run it under Node.
'use strict';
(function (root) {
  // state: the page's {image, upload, lut, preset, intensity, format, quality}; specs: the
  // enabled steps as filter specs, in order. Returns {request, notes}.
  function renderRequest(state, specs) {
    const notes = [];
    const request = {};
    if (state.image) request.image = state.image;
    else if (state.upload) {
      request.image = { sha256: state.upload.sha256 };
      notes.push('a dropped picture is named by its SHA-256: the server must have it, else send "image": {"data": BASE64}');
    }
    request.filters = specs.slice();
    request.lut = state.lut || null;
    request.preset = state.preset || null;
    // As the command line: the intensity is the preset's when there is one, else the LUT's.
    request.intensity = state.intensity === null || state.intensity === undefined || !(state.lut || state.preset) ? null : Number(state.intensity);
    request.format = state.format || 'png';
    const q = state.quality;
    if (q !== null && q !== undefined && q !== '' && !['png', 'tiff'].includes(request.format)) request.quality = Number(q);
    return { request, notes };
  }

  const api = { renderRequest };
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.funhouseCopies = api;
})(typeof window === 'object' ? window : globalThis);
