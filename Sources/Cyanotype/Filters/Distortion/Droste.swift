import Foundation

// CIDroste: Escher's Droste spiral ("Print Gallery"), by the log-polar construction of
// Lenstra and de Smit, as in the Droste-effect shaders of Josh Sommers and Tom Beddard.
//
// The picture is self-similar about the inset's centre with ratio R (the image holds a copy
// of itself in the inset, scaled by 1/R), so in log-polar coordinates w = ln z it is doubly
// periodic: period ln R along Re w (zooming) and 2 pi along Im w (turning). The spiral is the
// complex-linear map w_src = beta w_out with beta = p1 (1 - i t), t = p2 ln R / (2 pi p1):
// one turn of the output (w_out + 2 pi i) becomes p1 turns and p2 zooms of the source
// (w_src + 2 pi i p1 + p2 ln R), a period of the picture, so the output is seamless for whole
// p1 and p2. Being complex-linear, the map is conformal (shapes stay undistorted locally).

extension BuiltinFilters {
    /// CIDroste: Recursive spiral picture-in-picture (Droste) effect.
    static let droste = BuiltinFilter(
        FilterDescriptor(
            "CIDroste", "Droste", "Recursive spiral picture-in-picture (Droste) effect.",
            categories: [.builtIn, .distortionEffect, .highDynamicRange, .stillImage, .video], macOS: "10.6", iOS: "9", factory: "droste",
            doc: """
                The Droste effect. The rectangle from `insetPoint0` to `insetPoint1` is where
                the picture holds a smaller copy of itself: R is the scale that grows the inset to the
                image's size (`min(image width / inset width, image height / inset height)`), the frame
                is the inset scaled by R about its centre, and the picture between the inset and the
                frame is repeated inward and outward forever (scaled by powers of R; clear where the
                frame reaches past the image). In log-polar coordinates about the inset's
                centre, `w = ln(z - centre) - ln r0` (r0 the geometric mean of the inset's and the frame's
                half-sizes), the output reads
                the source at `w_src = p1 (1 - i p2 ln R / (2 pi p1)) w - (ln zoom + i rotation)`,
                wrapped back into the frame by a power of R (by the rectangle's own norm, so the frame's
                corners repeat too): `p1 = periodicity`, `p2 = strands`. Strands 0 is the plain nested
                Droste picture, 1 Escher's single spiral; whole numbers join without a seam. Zoom by R
                is the identity. Output extent: the input's. An inset that is empty or no smaller than
                the image, or an image without a finite extent, leaves the image unchanged.
                """,
            inputs: [
                .image(),
                .vector("inputInsetPoint0", "Inset Point 0", .position, default: [200, 200], "One corner of the inset, the rectangle where the picture repeats."),
                .vector("inputInsetPoint1", "Inset Point 1", .position, default: [400, 400], "The opposite corner of the inset."),
                .number(
                    "inputStrands", "Strands", .scalar, default: 1, min: -10, max: 10, slider: -2...2,
                    "How many spiral arms: the zooms per turn (negative turns the other way)."),
                .number("inputPeriodicity", "Periodicity", .scalar, default: 1, min: 1, slider: 1...5, "How many copies of the picture around each turn."),
                .number("inputRotation", "Rotation", .angle, default: 0, slider: 0...6.283185307179586, "A turn of the whole spiral, in radians (counter-clockwise)."),
                .number("inputZoom", "Zoom", .scalar, default: 1, min: 0.01, slider: 0.01...5, "A magnification of the whole spiral (periodic: R is the identity)."),
            ])
    ) { args throws(CIFilterError) in
        let image = try args.image()
        let p0 = try args.point("inputInsetPoint0"), p1 = try args.point("inputInsetPoint1")
        let strands = try args.number("inputStrands"), periodicity = try args.number("inputPeriodicity")
        let rotation = try args.number("inputRotation"), zoom = try args.number("inputZoom")
        let e = image.extent
        if e.isEmpty { return .empty() }
        let hx = Double(abs(p1.x - p0.x)) / 2, hy = Double(abs(p1.y - p0.y)) / 2
        guard !e.isInfiniteOrHuge, hx > 0, hy > 0 else { return image }
        let ratio = min(Double(e.width) / (2 * hx), Double(e.height) / (2 * hy))
        guard ratio > 1 + 1e-9 else { return image }
        let map = DrosteMap(
            cx: Double(p0.x + p1.x) / 2, cy: Double(p0.y + p1.y) / 2, hx: hx, hy: hy, ratio: ratio,
            strands: strands, periodicity: periodicity, rotation: rotation, zoom: zoom)
        return warped(image, map, extent: e)
    }
}

/// CIDroste's map (see the file's comment): log-polar about the inset's centre, the complex
/// factor beta, then back into the frame between the inset and R times it.
struct DrosteMap: WarpMap {
    let cx: Double, cy: Double, hx: Double, hy: Double
    /// ln R, and ln r0 (the origin of the log radius).
    let logR: Double, logR0: Double
    /// beta = kr + i ki.
    let kr: Double, ki: Double
    /// -ln zoom, -rotation.
    let shiftU: Double, shiftV: Double

    init(cx: Double, cy: Double, hx: Double, hy: Double, ratio: Double, strands: Double, periodicity: Double, rotation: Double, zoom: Double) {
        self.cx = cx; self.cy = cy; self.hx = hx; self.hy = hy
        logR = log(ratio)
        logR0 = log((hx * hy).squareRoot() * ratio.squareRoot())
        kr = periodicity
        ki = -strands * logR / (2 * Double.pi)
        shiftU = -log(zoom); shiftV = -rotation
    }

    var isExpensive: Bool { true }

    @inline(__always) func source(_ x: Double, _ y: Double) -> (Double, Double)? {
        let dx = x - cx, dy = y - cy
        let r2 = dx * dx + dy * dy
        if r2 == 0 { return (cx, cy) }
        let wr = 0.5 * log(r2) - logR0, wi = atan2(dy, dx)
        let sr = kr * wr - ki * wi + shiftU, si = kr * wi + ki * wr + shiftV
        let c = cos(si), s = sin(si)
        // The rectangle norm of the point, in logs (no overflow far out): ln rho.
        let lnRho = sr + logR0 + log(max(abs(c) / hx, abs(s) / hy))
        let n = (lnRho / logR).rounded(.down)
        guard n.isFinite else { return nil }
        let radius = exp(sr + logR0 - n * logR)
        return (cx + radius * c, cy + radius * s)
    }

    /// Every source point lies in the frame: the inset scaled by R about its centre.
    func sourceBounds(_ box: PointBox) -> PointBox? {
        let R = exp(logR)
        return PointBox(minX: cx - R * hx, minY: cy - R * hy, maxX: cx + R * hx, maxY: cy + R * hy)
    }

    var label: String { "droste centre (\(cx), \(cy)) inset \(2 * hx)x\(2 * hy) ratio \(exp(logR)) beta (\(kr), \(ki))" }
}
