import Foundation
import Testing
@testable import Cyanotype

// References written in the test, independently of the node's folds: each point is taken into
// the cell frame and every element of the symmetry's point group (with the lattice reduction
// found by rounding) is tried until one lands the point in the fundamental cell; the input is
// then sampled bilinearly (premultiplied linear, clear outside) in Double.

private enum Sym {
    case translated(acute: Double), reflected(acute: Double), p4, p4m, p6, p3m1, p6m, pg, kaleidoscope(Int)
    case parallelogram(acute: Double), triangle, opTile(scale: Double)

    var name: String {
        switch self {
        case .translated: "CIFourfoldTranslatedTile"
        case .reflected: "CIFourfoldReflectedTile"
        case .p4: "CIFourfoldRotatedTile"
        case .p4m: "CIEightfoldReflectedTile"
        case .p6: "CISixfoldRotatedTile"
        case .p3m1: "CISixfoldReflectedTile"
        case .p6m: "CITwelvefoldReflectedTile"
        case .pg: "CIGlideReflectedTile"
        case .kaleidoscope: "CIKaleidoscope"
        case .parallelogram: "CIParallelogramTile"
        case .triangle: "CITriangleTile"
        case .opTile: "CIOpTile"
        }
    }
}

/// 2x2 matrices as (a, b, c, d): (x, y) -> (a x + b y, c x + d y).
private typealias M2 = (Double, Double, Double, Double)
private func rot(_ t: Double) -> M2 { (cos(t), -sin(t), sin(t), cos(t)) }
private func mirror(_ phi: Double) -> M2 { (cos(2 * phi), sin(2 * phi), sin(2 * phi), -cos(2 * phi)) }
private func apply(_ m: M2, _ p: (Double, Double)) -> (Double, Double) { (m.0 * p.0 + m.1 * p.1, m.2 * p.0 + m.3 * p.1) }

/// The fundamental-cell point (cell frame) that `q` (cell frame) is an image of.
private func refFold(_ s: Sym, _ q: (Double, Double), _ w: Double) -> (Double, Double) {
    let eps = 1e-9
    switch s {
    case .translated(let acute), .reflected(let acute), .parallelogram(let acute):
        // Lattice coordinates by Cramer's rule on the columns a = (w, 0), b = w (cos, sin).
        let det = w * w * sin(acute)
        let ls = (q.0 * w * sin(acute) - q.1 * w * cos(acute)) / det, lt = (w * q.1) / det
        func tri(_ v: Double) -> Double {
            let m = (v + 0.5).truncatingRemainder(dividingBy: 2)
            return 0.5 - abs((m < 0 ? m + 2 : m) - 1)
        }
        let (s2, t2): (Double, Double)
        if case .translated = s { (s2, t2) = (ls - floor(ls + 0.5), lt - floor(lt + 0.5)) } else { (s2, t2) = (tri(ls), tri(lt)) }
        return (w * (s2 + t2 * cos(acute)), w * t2 * sin(acute))
    case .p4:
        // Quarter-turns about the corner C = (w/2, w/2), translations by 2w.
        let h = w / 2
        for k in 0..<4 {
            var p = apply(rot(Double(k) * .pi / 2), (q.0 - h, q.1 - h))
            p = (p.0 + h, p.1 + h)
            p = (p.0 - 2 * w * (p.0 / (2 * w)).rounded(), p.1 - 2 * w * (p.1 / (2 * w)).rounded())
            if abs(p.0) <= h + eps, abs(p.1) <= h + eps { return p }
        }
    case .p4m:
        for k in 0..<4 {
            for m in [false, true] {
                var p = apply(rot(Double(k) * .pi / 2), q)
                if m { p = (p.0, -p.1) }
                p = (p.0 - w * (p.0 / w).rounded(), p.1 - w * (p.1 / w).rounded())
                if p.1 >= -eps, p.1 <= p.0 + eps, p.0 <= w / 2 + eps { return p }
            }
        }
    case .p6, .p3m1, .p6m:
        var group: [M2] = []
        switch s {
        case .p6: group = (0..<6).map { rot(Double($0) * .pi / 3) }
        case .p3m1: group = (0..<3).map { rot(Double($0) * 2 * .pi / 3) } + (0..<3).map { mirror(Double($0) * .pi / 3) }
        default: group = (0..<6).map { rot(Double($0) * .pi / 3) } + (0..<6).map { mirror(Double($0) * .pi / 6) }
        }
        let s3 = 3.0.squareRoot()
        for g in group {
            let p = apply(g, q)
            // Nearest lattice point (a1 = w (3/2, sqrt(3)/2), a2 = w (0, sqrt(3))) by search.
            let i0 = (p.0 / (1.5 * w)).rounded()
            var best = (Double.infinity, 0.0, 0.0)
            for i in stride(from: i0 - 2, through: i0 + 2, by: 1) {
                let j0 = ((p.1 - i * s3 / 2 * w) / (s3 * w)).rounded()
                for j in stride(from: j0 - 2, through: j0 + 2, by: 1) {
                    let d = (p.0 - 1.5 * w * i, p.1 - (i * s3 / 2 + j * s3) * w)
                    let n = d.0 * d.0 + d.1 * d.1
                    if n < best.0 { best = (n, d.0, d.1) }
                }
            }
            let d = (best.1, best.2)
            let top = if case .p6m = s { d.0 / s3 } else { s3 * d.0 }
            if d.1 >= -eps, d.1 <= top + eps, s3 * d.0 + d.1 <= s3 * w + eps { return d }
        }
    case .pg:
        for flip in [false, true] {
            var p = flip ? (q.0 + w, -q.1) : q
            p = (p.0 - 2 * w * (p.0 / (2 * w)).rounded(), p.1 - w * (p.1 / w).rounded())
            if abs(p.0) <= w / 2 + eps, abs(p.1) <= w / 2 + eps { return p }
        }
    case .triangle:
        // The triangle (centroid at the origin) and its half-turn about its base's midpoint,
        // each moved by the lattice of its sides until it holds the point.
        let h = w * 3.0.squareRoot() / 2
        let a = (-w / 2, -h / 3), b = (w / 2, -h / 3), c = (0.0, 2 * h / 3)
        func inside(_ p: (Double, Double)) -> Bool {
            func side(_ u: (Double, Double), _ v: (Double, Double)) -> Double { (v.0 - u.0) * (p.1 - u.1) - (v.1 - u.1) * (p.0 - u.0) }
            return side(a, b) >= -eps && side(b, c) >= -eps && side(c, a) >= -eps
        }
        for turn in [false, true] {
            let p0 = turn ? (-q.0, -2 * h / 3 - q.1) : q
            let j0 = (p0.1 / h).rounded(), i0 = ((p0.0 - j0 * w / 2) / w).rounded()
            for j in stride(from: j0 - 2, through: j0 + 2, by: 1) {
                for i in stride(from: i0 - 2, through: i0 + 2, by: 1) {
                    let p = (p0.0 - i * w - j * w / 2, p0.1 - j * h)
                    if inside(p) { return p }
                }
            }
        }
    case .opTile(let scale):
        let m = (w * (q.0 / w).rounded(), w * (q.1 / w).rounded())
        return (m.0 + scale * (q.0 - m.0), m.1 + scale * (q.1 - m.1))
    case .kaleidoscope(let n):
        let group = (0..<n).map { rot(Double($0) * 2 * .pi / Double(n)) } + (0..<n).map { mirror(Double($0) * .pi / Double(n)) }
        for g in group {
            let p = apply(g, q)
            let a = atan2(p.1, p.0)
            if a >= -eps, a <= .pi / Double(n) + eps { return p }
        }
        return q  // the centre itself
    }
    Issue.record("no group element folds \(q) for \(s)")
    return q
}

@Suite struct TileEffectTests {
    let w = 21, h = 17
    var pixels: [UInt8] { testPixels(width: w, height: h, alpha: true) }
    var input: CIImage { image(pixels, w, h) }

    func premul(_ x: Int, _ yUp: Int) -> [Double] {
        guard x >= 0, x < w, yUp >= 0, yUp < h else { return [0, 0, 0, 0] }
        let p = linearPixel(pixels, w, x, h - 1 - yUp)
        return [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]]
    }
    func sample(_ u: Double, _ v: Double) -> [Double] {
        let su = u - 0.5, sv = v - 0.5
        let x0 = Int(floor(su)), y0 = Int(floor(sv))
        let tx = su - floor(su), ty = sv - floor(sv)
        var o = [0.0, 0, 0, 0]
        for (dx, dy, k) in [(0, 0, (1 - tx) * (1 - ty)), (1, 0, tx * (1 - ty)), (0, 1, (1 - tx) * ty), (1, 1, tx * ty)] {
            let p = premul(x0 + dx, y0 + dy)
            for c in 0..<4 { o[c] += p[c] * k }
        }
        return o
    }
    func render(_ img: CIImage, _ rect: CGRect, tile: Int? = nil) throws -> [SIMD4<Float>] {
        var opts: [CIContextOption: Any] = [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .cacheIntermediates: false]
        if let tile { opts[.tileSize] = tile }
        let d = try CIContext(options: opts).renderToData(img, from: rect, format: .RGBAf, premultiplied: true).data
        return d.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
    }

    private func params(_ s: Sym, center: CGPoint, angle: Double, width: Double) -> [String: Any] {
        var p: [String: Any] = [kCIInputCenterKey: CIVector(cgPoint: center), kCIInputAngleKey: angle]
        switch s {
        case .translated(let a), .reflected(let a), .parallelogram(let a): p["inputAcuteAngle"] = a; p[kCIInputWidthKey] = width
        case .opTile(let scale): p[kCIInputScaleKey] = scale; p[kCIInputWidthKey] = width
        case .kaleidoscope(let n): p["inputCount"] = n
        default: p[kCIInputWidthKey] = width
        }
        return p
    }

    private static let all: [Sym] = [
        .translated(acute: 1.2), .reflected(acute: 1.9), .p4, .p4m, .p6, .p3m1, .p6m, .pg, .kaleidoscope(5),
        .parallelogram(acute: 1.1), .triangle, .opTile(scale: 2.8), .opTile(scale: 0.6),
    ]

    /// Every pixel of a region several cells wide against the reference fold.
    @Test(arguments: 0..<13) func pixelsFollowTheSymmetryGroup(_ index: Int) throws {
        let s = TileEffectTests.all[index]
        let c = CGPoint(x: 10.3, y: 8.6), angle = 0.4, width = 6.5
        let out = input.applyingFilter(s.name, parameters: params(s, center: c, angle: angle, width: width))
        #expect(out.extent.isInfinite)
        let rect = CGRect(x: -9, y: -7, width: 40, height: 31)
        let got = try render(out, rect)
        let W = Int(rect.width), H = Int(rect.height)
        var bad = 0
        for j in 0..<H {
            for i in 0..<W {
                let x = Double(Int(rect.minX) + i) + 0.5, y = Double(Int(rect.minY) + j) + 0.5
                let dx = x - c.x, dy = y - c.y
                let q = (cos(angle) * dx + sin(angle) * dy, -sin(angle) * dx + cos(angle) * dy)
                let f = refFold(s, q, width)
                let e = sample(c.x + cos(angle) * f.0 - sin(angle) * f.1, c.y + sin(angle) * f.0 + cos(angle) * f.1)
                let g = got[(H - 1 - j) * W + i]
                if (0..<4).contains(where: { abs(Double(g[$0]) - e[$0]) > 2e-4 }) {
                    bad += 1
                    if bad <= 3 { Issue.record("\(s.name) at \(x),\(y): got \(g) expected \(e)") }
                }
            }
        }
        #expect(bad == 0, "\(s.name)")
        // Tiled renders equal the whole render bit for bit.
        let whole = try render(out, rect, tile: 4096)
        for t in [3, 5, 7] { #expect(try render(out, rect, tile: t) == whole, "\(s.name) tile \(t)") }
        let w8 = try render8(out, rect, context: CIContext(options: [.tileSize: 4096]))
        #expect(try render8(out, rect, context: CIContext(options: [.tileSize: 5])) == w8, "\(s.name) 8-bit tile 5")
    }

    /// Pixel-centre-preserving group operations (angle 0, centre on a pixel corner, whole-pixel
    /// periods) map each pixel to an equal one.
    @Test func aPixelEqualsItsSymmetricPartners() throws {
        let cx = 10.0, cy = 8.0
        let s3w = 4 * 3.0.squareRoot()  // hexagon circumradius whose lattice step up is 12
        typealias Op = (Double, Double) -> (Double, Double)
        let cases: [(Sym, Double, [Op])] = [
            (.translated(acute: .pi / 2), 6, [{ ($0 + 6, $1) }, { ($0, $1 - 6) }]),
            (.reflected(acute: .pi / 2), 6, [{ (2 * (cx + 3) - $0, $1) }, { ($0, 2 * (cy - 3) - $1) }, { ($0 + 12, $1 + 12) }]),
            (.p4, 6, [{ x, y in (cx + 3 - (y - cy - 3), cy + 3 + (x - cx - 3)) }, { ($0 + 12, $1) }]),
            (.p4m, 6, [{ x, y in (cx + (y - cy), cy + (x - cx)) }, { (2 * cx - $0, $1) }, { ($0 + 6, $1) }]),
            (.p6, s3w, [{ (2 * cx - $0, 2 * cy - $1) }, { ($0, $1 + 12) }]),
            (.p3m1, s3w, [{ ($0, 2 * cy - $1) }, { ($0, $1 - 12) }]),
            (.p6m, s3w, [{ ($0, 2 * cy - $1) }, { (2 * cx - $0, $1) }, { ($0, $1 + 12) }]),
            (.pg, 6, [{ ($0 + 6, 2 * cy - $1) }, { ($0 - 12, $1) }]),
            (.kaleidoscope(6), 0, [{ ($0, 2 * cy - $1) }, { (2 * cx - $0, 2 * cy - $1) }]),
            (.parallelogram(acute: .pi / 2), 6, [{ (2 * (cx - 3) - $0, $1) }, { ($0 - 12, $1 + 12) }]),
            // The triangle's base midpoint on (cx, cy): a half-turn about it, a step along the base.
            (.triangle, 6, [{ (2 * cx - $0, 2 * cy - $1) }, { ($0 + 6, $1) }]),
        ]
        let rect = CGRect(x: -14, y: -12, width: 48, height: 40)
        for (s, width, ops) in cases {
            let centre = if case .triangle = s { CGPoint(x: cx, y: cy + 3.0.squareRoot()) } else { CGPoint(x: cx, y: cy) }
            let out = input.applyingFilter(s.name, parameters: params(s, center: centre, angle: 0, width: width))
            let px = try render(out, rect)
            let W = Int(rect.width), H = Int(rect.height)
            func at(_ x: Double, _ y: Double) -> SIMD4<Float>? {
                let i = Int((x - 0.5).rounded()) - Int(rect.minX), j = Int((y - 0.5).rounded()) - Int(rect.minY)
                guard i >= 0, i < W, j >= 0, j < H else { return nil }
                return px[(H - 1 - j) * W + i]
            }
            var bad = 0, compared = 0, nonzero = 0
            for j in 0..<H {
                for i in 0..<W {
                    let x = rect.minX + Double(i) + 0.5, y = rect.minY + Double(j) + 0.5
                    let a = at(x, y)!
                    if a.w > 0 { nonzero += 1 }
                    for op in ops {
                        let (u, v) = op(x, y)
                        guard let b = at(u, v) else { continue }
                        compared += 1
                        if (0..<4).contains(where: { abs(a[$0] - b[$0]) > 1e-5 }) {
                            bad += 1
                            if bad <= 3 { Issue.record("\(s.name): (\(x), \(y)) \(a) vs (\(u), \(v)) \(b)") }
                        }
                    }
                }
            }
            #expect(bad == 0 && compared > W * H / 2, "\(s.name) compared \(compared)")
            #expect(nonzero > W * H / 8, "\(s.name) drew \(nonzero) pixels")
        }
    }

    /// A crop far from the centre reads only the fundamental cell's pixels (plus the sampler's).
    @Test func aFarCropReadsOnlyTheCell() throws {
        let W = 200, H = 150
        let src = image(testPixels(width: W, height: H), W, H)
        for s in TileEffectTests.all {
            let out = src.applyingFilter(s.name, parameters: params(s, center: CGPoint(x: 100, y: 75), angle: 0.3, width: 20))
            let crop = CGRect(x: 1000, y: 900, width: 30, height: 20)
            let ctx = CIContext()
            let r1 = try ctx.renderToData(out.cropped(to: crop), from: crop)
            let part = ctx.lastRenderStatistics.sourcePixels
            switch s {
            case .kaleidoscope, .opTile:
                // The wedge keeps the radius, an op tile reads around itself: 1300 pixels away
                // is outside the image.
                #expect(part == 0, "\(s.name) read \(part)")
            default:
                #expect(part > 0 && part <= 41 * 41, "\(s.name) read \(part) source pixels")
            }
            // Tiled the same.
            let r2 = try CIContext(options: [.tileSize: 7]).renderToData(out.cropped(to: crop), from: crop)
            #expect(r1.data == r2.data, "\(s.name)")
        }
    }

    @Test func badParametersNeverTrap() throws {
        let rect = CGRect(x: -5, y: -5, width: 12, height: 10)
        for s in TileEffectTests.all {
            for (key, bad) in [
                (kCIInputCenterKey, CIVector(x: .nan, y: 1) as Any), (kCIInputAngleKey, Double.nan as Any),
                (kCIInputAngleKey, Double.infinity as Any),
            ] {
                let f = try #require(CIFilter(name: s.name))
                f.setValue(input, forKey: kCIInputImageKey)
                f.setValue(bad, forKey: key)
                #expect(f.outputImage == nil, "\(s.name) \(key)")
            }
            // Width 0 (a point-sized cell: the colour at the centre), negative, huge.
            for width in [0.0, -3, 1e300, 1e9] {
                var p = params(s, center: CGPoint(x: 10, y: 8), angle: 0.2, width: width)
                p["inputCount"] = width  // the kaleidoscope's count: 1 ... 4096
                let out = input.applyingFilter(s.name, parameters: p)
                _ = try render(out, rect)
                _ = try render(input.clampedToExtent().applyingFilter(s.name, parameters: p), CGRect(x: 1e6, y: -1e6, width: 8, height: 8))
            }
            if case .kaleidoscope = s { continue }
            if case .opTile = s {
                for scale in [Double.nan, .infinity] {
                    let f = try #require(CIFilter(name: s.name))
                    f.setValue(input, forKey: kCIInputImageKey)
                    f.setValue(scale, forKey: kCIInputScaleKey)
                    #expect(f.outputImage == nil)
                }
                for scale in [-1.0, 0, 1e300] {
                    _ = try render(input.applyingFilter(s.name, parameters: [kCIInputScaleKey: scale, kCIInputWidthKey: 1e9]), rect)
                }
            }
            let f = try #require(CIFilter(name: s.name))
            f.setValue(input, forKey: kCIInputImageKey)
            f.setValue(Double.nan, forKey: kCIInputWidthKey)
            #expect(f.outputImage == nil, "\(s.name) width NaN")
        }
        // Width 0: every pixel samples the centre.
        let out = input.applyingFilter("CIEightfoldReflectedTile", parameters: [kCIInputCenterKey: CIVector(x: 10.5, y: 8.5), kCIInputWidthKey: 0])
        let px = try render(out, rect)
        let e = sample(10.5, 8.5)
        #expect(px.allSatisfy { p in (0..<4).allSatisfy { abs(Double(p[$0]) - e[$0]) < 1e-4 } })
        // A flat parallelogram (acute angle 0 or pi) has no lattice: an empty image.
        for name in ["CIFourfoldTranslatedTile", "CIFourfoldReflectedTile", "CIParallelogramTile"] {
            for a in [0.0, Double.pi] {
                #expect(input.applyingFilter(name, parameters: ["inputAcuteAngle": a]).extent.isEmpty)
            }
        }
        // An empty input: empty.
        #expect(CIImage.empty().applyingFilter("CIKaleidoscope").extent.isEmpty)
    }

    @Test func typedFiltersMatchByName() throws {
        let c = CGPoint(x: 9.75, y: 8.25)
        let rect = CGRect(x: -6, y: -4, width: 30, height: 24)
        func same(_ f: CIFilter, _ s: Sym, width: Double = 5.5, angle: Double = 0.75) throws {
            let byName = input.applyingFilter(s.name, parameters: params(s, center: c, angle: angle, width: width))
            #expect(try render8(f.outputImage!, rect) == render8(byName, rect), "\(s.name)")
        }
        let a = CIFilter.fourfoldTranslatedTile()
        #expect(a.width == 100 && a.center == CGPoint(x: 150, y: 150) && abs(a.acuteAngle - .pi / 2) < 1e-6)
        a.inputImage = input; a.center = c; a.angle = 0.75; a.width = 5.5; a.acuteAngle = 1.25
        try same(a, .translated(acute: 1.25))
        let b = CIFilter.fourfoldReflectedTile()
        b.inputImage = input; b.center = c; b.angle = 0.75; b.width = 5.5; b.acuteAngle = 1.875
        try same(b, .reflected(acute: 1.875))
        let r = CIFilter.fourfoldRotatedTile()
        r.inputImage = input; r.center = c; r.angle = 0.75; r.width = 5.5
        try same(r, .p4)
        let e = CIFilter.eightfoldReflectedTile()
        e.inputImage = input; e.center = c; e.angle = 0.75; e.width = 5.5
        try same(e, .p4m)
        let s6 = CIFilter.sixfoldRotatedTile()
        s6.inputImage = input; s6.center = c; s6.angle = 0.75; s6.width = 5.5
        try same(s6, .p6)
        let m6 = CIFilter.sixfoldReflectedTile()
        m6.inputImage = input; m6.center = c; m6.angle = 0.75; m6.width = 5.5
        try same(m6, .p3m1)
        let t = CIFilter.twelvefoldReflectedTile()
        t.inputImage = input; t.center = c; t.angle = 0.75; t.width = 5.5
        try same(t, .p6m)
        let g = CIFilter.glideReflectedTile()
        g.inputImage = input; g.center = c; g.angle = 0.75; g.width = 5.5
        try same(g, .pg)
        let pt = CIFilter.parallelogramTile()
        pt.inputImage = input; pt.center = c; pt.angle = 0.75; pt.width = 5.5; pt.acuteAngle = 1.125
        try same(pt, .parallelogram(acute: 1.125))
        let tt = CIFilter.triangleTile()
        tt.inputImage = input; tt.center = c; tt.angle = 0.75; tt.width = 5.5
        try same(tt, .triangle)
        let op = CIFilter.opTile()
        #expect(abs(op.scale - 2.8) < 1e-6 && op.width == 65)
        op.inputImage = input; op.center = c; op.angle = 0.75; op.width = 5.5; op.scale = 2.5
        try same(op, .opTile(scale: 2.5))
        let k = CIFilter.kaleidoscope()
        #expect(k.count == 6)
        k.inputImage = input; k.center = c; k.angle = 0.75; k.count = 7
        try same(k, .kaleidoscope(7))
    }

    /// CIOpTile with scale 1 is the image itself.
    @Test func opTileOfScaleOneIsTheImage() throws {
        let out = input.applyingFilter(
            "CIOpTile",
            parameters: [
                kCIInputScaleKey: 1, kCIInputWidthKey: 4, kCIInputAngleKey: 0.3,
                kCIInputCenterKey: CIVector(x: 7, y: 5),
            ])
        let a = try render(out, input.extent), b = try render(input, input.extent)
        #expect(zip(a, b).allSatisfy { p, q in (0..<4).allSatisfy { abs(p[$0] - q[$0]) < 1e-5 } })
    }

    /// CITriangleKaleidoscope: the p3m1 fold of a triangle centred on the point, the colour
    /// faded by decay^(distance / size).
    @Test func triangleKaleidoscopeReflectsTheTriangleAndFades() throws {
        let point = CGPoint(x: 10.4, y: 8.3), size = 7.5, rotation = 0.6, decay = 0.7
        let out = input.applyingFilter(
            "CITriangleKaleidoscope",
            parameters: [
                "inputPoint": CIVector(cgPoint: point), "inputSize": size, "inputRotation": rotation, "inputDecay": decay,
            ])
        #expect(out.extent.isInfinite)
        let rect = CGRect(x: -9, y: -7, width: 40, height: 31)
        let got = try render(out, rect)
        let W = Int(rect.width), H = Int(rect.height)
        // The triangle (0, 0), (s, 0), s (1/2, sqrt(3)/2) of the cell frame, its centroid on the point.
        let gx = size / 2, gy = size * 3.0.squareRoot() / 6
        let o = (point.x - (cos(rotation) * gx - sin(rotation) * gy), point.y - (sin(rotation) * gx + cos(rotation) * gy))
        var bad = 0
        for j in 0..<H {
            for i in 0..<W {
                let x = Double(Int(rect.minX) + i) + 0.5, y = Double(Int(rect.minY) + j) + 0.5
                let dx = x - o.0, dy = y - o.1
                let f = refFold(.p3m1, (cos(rotation) * dx + sin(rotation) * dy, -sin(rotation) * dx + cos(rotation) * dy), size)
                var e = sample(o.0 + cos(rotation) * f.0 - sin(rotation) * f.1, o.1 + sin(rotation) * f.0 + cos(rotation) * f.1)
                let fade = pow(decay, ((x - point.x) * (x - point.x) + (y - point.y) * (y - point.y)).squareRoot() / size)
                for c in 0..<3 { e[c] *= fade }
                let g = got[(H - 1 - j) * W + i]
                if (0..<4).contains(where: { abs(Double(g[$0]) - e[$0]) > 2e-4 }) {
                    bad += 1
                    if bad <= 3 { Issue.record("at \(x),\(y): got \(g) expected \(e)") }
                }
            }
        }
        #expect(bad == 0)
        let whole = try render(out, rect, tile: 4096)
        for t in [3, 5, 7] { #expect(try render(out, rect, tile: t) == whole, "tile \(t)") }
        // Rotation 0, no fade, the triangle's base on y = 8: mirror-symmetric about the base.
        let sym = input.applyingFilter(
            "CITriangleKaleidoscope",
            parameters: [
                "inputPoint": CIVector(x: 10, y: 8 + 7 * 3.0.squareRoot() / 6), "inputSize": 7, "inputRotation": 0, "inputDecay": 1,
            ])
        let px = try render(sym, rect)
        var asym = 0, compared = 0
        for j in 0..<H {
            for i in 0..<W {
                let m = 2 * (8 - Int(rect.minY)) - 1 - j
                guard m >= 0, m < H else { continue }
                compared += 1
                let a = px[(H - 1 - j) * W + i], b = px[(H - 1 - m) * W + i]
                if (0..<4).contains(where: { abs(a[$0] - b[$0]) > 1e-5 }) { asym += 1 }
            }
        }
        #expect(compared > W * H / 2)
        #expect(asym == 0)
        // The typed API.
        let f = CIFilter.triangleKaleidoscope()
        #expect(f.size == 700 && abs(f.decay - 0.85) < 1e-6)
        f.inputImage = input; f.point = CGPoint(x: 10.25, y: 8.5); f.size = 7.5; f.rotation = 0.625; f.decay = 0.75
        let byName = input.applyingFilter(
            "CITriangleKaleidoscope",
            parameters: [
                "inputPoint": CIVector(x: 10.25, y: 8.5), "inputSize": 7.5, "inputRotation": 0.625, "inputDecay": 0.75,
            ])
        #expect(try render8(f.outputImage!, rect) == render8(byName, rect))
        // Bad parameters: NaN is an error; sizes and decays out of range are limited.
        for (key, bad) in [
            ("inputPoint", CIVector(x: .nan, y: 0) as Any), ("inputSize", Double.nan as Any),
            ("inputRotation", Double.infinity as Any), ("inputDecay", Double.nan as Any),
        ] {
            let g = try #require(CIFilter(name: "CITriangleKaleidoscope"))
            g.setValue(input, forKey: kCIInputImageKey)
            g.setValue(bad, forKey: key)
            #expect(g.outputImage == nil, "\(key)")
        }
        for (size, decay) in [(0.0, 0.0), (-5, -1), (1e300, 5), (3, 1)] {
            let g = input.applyingFilter("CITriangleKaleidoscope", parameters: ["inputSize": size, "inputDecay": decay, "inputPoint": CIVector(x: 10, y: 8)])
            let r = try render(g, CGRect(x: 0, y: 0, width: 12, height: 9))
            #expect(r.allSatisfy { p in (0..<4).allSatisfy { p[$0].isFinite } })
        }
    }

    /// A huge cell over an infinite input: a large tile is split until its pixels are folded one
    /// by one, never reading the whole cell; tiled renders still equal the whole.
    @Test func aHugeCellOfAnInfiniteImageRendersInPieces() throws {
        let out = input.clampedToExtent().applyingFilter(
            "CIEightfoldReflectedTile",
            parameters: [
                kCIInputWidthKey: 1e9, kCIInputAngleKey: 0.3, kCIInputCenterKey: CIVector(x: 10, y: 8),
            ])
        let rect = CGRect(x: -90, y: -70, width: 200, height: 160)
        let whole = try render(out, rect, tile: 4096)
        #expect(try render(out, rect, tile: 7) == whole)
        // Inside the cell the fold is the identity: the clamped image, turned by nothing.
        let e = sample(10.5, 8.5), g = whole[(160 - 1 - 78) * 200 + 100]
        #expect((0..<4).allSatisfy { abs(Double(g[$0]) - e[$0]) < 1e-4 })
    }
}
