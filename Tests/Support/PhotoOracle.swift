import Foundation

/// Python that measures colour differences the way lcms2 computes them (#26's "within 1 ΔE of
/// lcms's conversion of the same pixels"): numpy for the arrays, liblcms2 itself through ctypes
/// for every conversion and for CIEDE2000, so no colour maths in the test is ours. Tests paste
/// `functions` in front of their own Python and call `compare` (run with Debian's
/// `/usr/bin/python3`: python3-numpy; liblcms2 is a build dependency).
///
/// - `upright(a, o)`: the stored picture `a` (rows, columns, channels) turned upright as EXIF
///   orientation `o` defines it (2 mirrored, 3 turned half, 4 flipped, 5 transposed, 6 turned a
///   quarter clockwise, 7 transversed, 8 a quarter anticlockwise).
/// - `compare(ours, ours_icc, ref, ref_icc, border, block)`: `ref` (RGB uint16, in `ref_icc`;
///   None is sRGB, as an untagged file is read) converted by lcms into `ours_icc` (relative
///   colorimetric, 16-bit, unoptimised: out-of-gamut colours clip as lcms clips them), both
///   cropped `border` in from the edges and averaged over `block` x `block` squares (1: none;
///   what a lossy output's colour is, its coding noise and resampling ringing averaged out),
///   then both to CIELab (D50) by lcms; returns "mean max p99 levelsMax levelsMean decoy":
///   CIEDE2000 (`cmsCIE2000DeltaE`), the largest and the mean difference in 8-bit
///   levels, and the mean CIEDE2000 against `ref` turned half (what a wrong orientation would
///   score: the content must be able to fail); "shape ..." when the sizes differ.
public let lcmsOracleFunctions = #"""
    import ctypes
    import numpy as np
    _L = ctypes.CDLL('liblcms2.so.2')
    _vp = ctypes.c_void_p
    _L.cmsOpenProfileFromMem.restype = _vp
    _L.cmsOpenProfileFromMem.argtypes = [ctypes.c_char_p, ctypes.c_uint32]
    _L.cmsCreate_sRGBProfile.restype = _vp
    _L.cmsCreateLab4Profile.restype = _vp
    _L.cmsCreateLab4Profile.argtypes = [_vp]
    _L.cmsCreateTransform.restype = _vp
    _L.cmsCreateTransform.argtypes = [_vp, ctypes.c_uint32, _vp, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32]
    _L.cmsDoTransform.argtypes = [_vp, _vp, _vp, ctypes.c_uint32]
    _L.cmsDeleteTransform.argtypes = [_vp]
    _L.cmsCIE2000DeltaE.restype = ctypes.c_double
    _L.cmsCIE2000DeltaE.argtypes = [_vp, _vp, ctypes.c_double, ctypes.c_double, ctypes.c_double]
    RGB_16, LAB_DBL = (4 << 16) | (3 << 3) | 2, (1 << 22) | (10 << 16) | (3 << 3)

    def profile(icc):
        return _L.cmsOpenProfileFromMem(icc, len(icc)) if icc else _L.cmsCreate_sRGBProfile()

    def transform(px, src, dst, out_format, dtype):
        t = _L.cmsCreateTransform(src, RGB_16, dst, out_format, 1, 0x0100)
        px = np.ascontiguousarray(px, dtype=np.uint16)
        out = np.zeros(px.shape, dtype=dtype)
        _L.cmsDoTransform(t, px.ctypes.data, out.ctypes.data, px.shape[0] * px.shape[1])
        _L.cmsDeleteTransform(t)
        return out

    def upright(a, o):
        turns = {2: np.fliplr, 3: lambda a: np.rot90(a, 2), 4: np.flipud, 5: lambda a: a.transpose(1, 0, 2),
                 6: lambda a: np.rot90(a, -1), 7: lambda a: np.rot90(a.transpose(1, 0, 2), 2), 8: lambda a: np.rot90(a, 1)}
        return np.ascontiguousarray(turns.get(o, lambda a: a)(a))

    # sRGB's curve, on 16-bit codes: resampling and blurring happen on its linear light, as
    # the renderer does them.
    def linear(a):
        x = a / 65535.0
        return np.where(x <= 0.04045, x / 12.92, ((x + 0.055) / 1.055) ** 2.4)

    def encoded(x):
        x = np.clip(x, 0, 1)
        return (np.where(x <= 0.0031308, x * 12.92, 1.055 * x ** (1 / 2.4) - 0.055) * 65535).round().astype(np.uint16)

    def _de(x, y, step=1):
        x = np.ascontiguousarray(x).reshape(-1, 3)[::step]
        y = np.ascontiguousarray(y).reshape(-1, 3)[::step]
        return np.array([_L.cmsCIE2000DeltaE(x[i].ctypes.data, y[i].ctypes.data, 1, 1, 1) for i in range(len(x))])

    def blocks(a, n):
        h, w = a.shape[0] // n * n, a.shape[1] // n * n
        m = a[:h, :w].astype(np.float64).reshape(h // n, n, w // n, n, 3).mean(axis=(1, 3))
        return m.round().astype(np.uint16)

    def compare(ours, ours_icc, ref, ref_icc, border=0, block=1):
        if ours.shape != ref.shape:
            return 'shape %s vs %s' % ('x'.join(map(str, ours.shape)), 'x'.join(map(str, ref.shape)))
        out_p = profile(ours_icc)
        want = transform(ref, profile(ref_icc), out_p, RGB_16, np.uint16)
        if border:
            ours, want = [x[border:-border, border:-border] for x in (ours, want)]
        if block > 1:
            ours, want = blocks(ours, block), blocks(want, block)
        lab = _L.cmsCreateLab4Profile(None)
        a = transform(ours, out_p, lab, LAB_DBL, np.float64)
        b = transform(want, out_p, lab, LAB_DBL, np.float64)
        decoy = _de(a, np.rot90(b, 2), 7).mean()
        e = _de(a, b)
        levels = np.abs(ours.astype(np.int64) - want.astype(np.int64)) / 257
        return '%.4f %.4f %.4f %.2f %.3f %.4f' % (e.mean(), e.max(), np.percentile(e, 99), levels.max(), levels.mean(), decoy)
    """#

/// Seeded photo-like RGBA16 samples, opaque, `width` x `height`: red ramps left to right and
/// green top to bottom (so any turn or flip shows), blue shaded, a little noise, and a saturated
/// red patch with a soft edge in the stored top-left corner (outside sRGB when the file is tagged Display P3 or
/// Adobe RGB). `bits` 8 keeps each sample's top byte, widened (v x 257).
public func photoLikeSamples(width w: Int, height h: Int, bits: Int = 16, seed: UInt64) -> [UInt16] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    func noise() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 40) / Double(1 << 23) - 1
    }
    var px = [UInt16](repeating: 65535, count: w * h * 4)
    for y in 0..<h {
        for x in 0..<w {
            let u = Double(x) / Double(max(1, w - 1)), v = Double(y) / Double(max(1, h - 1))
            var rgb = [0.08 + 0.8 * u + 0.02 * noise(), 0.12 + 0.75 * v + 0.02 * noise(), 0.85 - 0.6 * u * v + 0.1 * sin(9 * u) + 0.02 * noise()]
            // The patch's edge is soft (a smoothstep over a 50th of the width), as a lens
            // draws it: resamplers then agree on it within their rounding.
            let soft = Double(max(2, w / 50))
            let t = smoothstep((Double(w / 4) - Double(x)) / soft) * smoothstep((Double(h / 3) - Double(y)) / soft)
            let patch = [0.97, 0.08 + 0.1 * v, 0.05]
            for c in 0..<3 { rgb[c] += t * (patch[c] - rgb[c]) }
            for c in 0..<3 {
                let s = UInt16((min(max(rgb[c], 0), 1) * 65535).rounded())
                px[(y * w + x) * 4 + c] = bits == 8 ? UInt16(s >> 8) * 257 : s
            }
        }
    }
    return px
}

/// 0 below 0, 1 above 1, and 3t² - 2t³ between.
private func smoothstep(_ t: Double) -> Double {
    let c = min(max(t, 0), 1)
    return c * c * (3 - 2 * c)
}
