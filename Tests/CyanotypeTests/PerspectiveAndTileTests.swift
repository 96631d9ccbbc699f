import Foundation
import Testing
@testable import Cyanotype

// References written in the test: homographies solved as an 8x8 linear system in Double
// (not Heckbert's closed form the code uses), bilinear sampling of premultiplied linear
// pixels at centre + 0.5, and the clamp / wrap / clear rules at the edges.

/// The 3x3 matrix (row-major, m[8] = 1) taking each `from` point to the matching `to` point.
private func solveHomography(from: [(Double, Double)], to: [(Double, Double)]) -> [Double] {
    var a = [[Double]](repeating: [Double](repeating: 0, count: 9), count: 8)
    for k in 0..<4 {
        let (x, y) = from[k], (u, v) = to[k]
        a[2 * k] = [x, y, 1, 0, 0, 0, -x * u, -y * u, u]
        a[2 * k + 1] = [0, 0, 0, x, y, 1, -x * v, -y * v, v]
    }
    for c in 0..<8 {  // Gauss-Jordan with partial pivoting
        let p = (c..<8).max { abs(a[$0][c]) < abs(a[$1][c]) }!
        a.swapAt(c, p)
        for r in 0..<8 where r != c {
            let f = a[r][c] / a[c][c]
            for k in c..<9 { a[r][k] -= f * a[c][k] }
        }
    }
    return (0..<8).map { a[$0][8] / a[$0][$0] } + [1]
}
private func applyH(_ m: [Double], _ x: Double, _ y: Double) -> (Double, Double, Double) {
    let w = m[6] * x + m[7] * y + m[8]
    return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w, w)
}

@Suite struct PerspectiveAndTileTests {
    let w = 13, h = 9
    var pixels: [UInt8] { testPixels(width: w, height: h, alpha: true) }
    var input: CIImage { image(pixels, w, h) }

    /// Premultiplied linear pixel at (x, yUp) of the test image; nil outside it.
    func premul(_ x: Int, _ yUp: Int) -> [Double]? {
        guard x >= 0, x < w, yUp >= 0, yUp < h else { return nil }
        let p = linearPixel(pixels, w, x, h - 1 - yUp)
        return [p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3]]
    }
    enum Edge { case clear, clamp, wrap }
    /// Bilinear sample at (u, v) in image coordinates (pixel centres at +0.5).
    func sample(_ u: Double, _ v: Double, _ edge: Edge) -> [Double] {
        let su = u - 0.5, sv = v - 0.5
        let x0 = Int(floor(su)), y0 = Int(floor(sv))
        let tx = su - floor(su), ty = sv - floor(sv)
        func px(_ x: Int, _ y: Int) -> [Double] {
            switch edge {
            case .clear: return premul(x, y) ?? [0, 0, 0, 0]
            case .clamp: return premul(min(max(x, 0), w - 1), min(max(y, 0), h - 1))!
            case .wrap: return premul(((x % w) + w) % w, ((y % h) + h) % h)!
            }
        }
        var o = [0.0, 0, 0, 0]
        for (dx, dy, k) in [(0, 0, (1 - tx) * (1 - ty)), (1, 0, tx * (1 - ty)), (0, 1, (1 - tx) * ty), (1, 1, tx * ty)] {
            let p = px(x0 + dx, y0 + dy)
            for c in 0..<4 { o[c] += p[c] * k }
        }
        return o
    }
    /// Premultiplied linear float render of `rect` (rows top-down).
    func render(_ img: CIImage, _ rect: CGRect, tile: Int? = nil) throws -> [SIMD4<Float>] {
        var opts: [CIContextOption: Any] = [.outputColorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB)!, .cacheIntermediates: false]
        if let tile { opts[.tileSize] = tile }
        let d = try CIContext(options: opts).renderToData(img, from: rect, format: .RGBAf, premultiplied: true).data
        return d.withUnsafeBytes { Array($0.bindMemory(to: SIMD4<Float>.self)) }
    }
    /// Compares every pixel of `rect` with `reference(x + 0.5, y + 0.5)`.
    func check(_ img: CIImage, _ rect: CGRect, tol: Double = 2e-4, _ reference: (Double, Double) -> [Double]) throws {
        let got = try render(img, rect)
        let W = Int(rect.width), H = Int(rect.height)
        var bad = 0
        for j in 0..<H {
            for i in 0..<W {
                let x = Int(rect.minX) + i, y = Int(rect.minY) + j
                let e = reference(Double(x) + 0.5, Double(y) + 0.5)
                let g = got[(H - 1 - j) * W + i]
                if (0..<4).contains(where: { abs(Double(g[$0]) - e[$0]) > tol }) {
                    bad += 1
                    if bad <= 3 { Issue.record("at \(x),\(y): got \(g) expected \(e)") }
                }
            }
        }
        #expect(bad == 0)
    }
    func tiledEqualsWhole(_ img: CIImage, _ rect: CGRect) throws {
        let whole = try render8(img, rect, context: CIContext(options: [.tileSize: 4096, .outputPremultiplied: false]))
        for t in [3, 5, 7] {
            let tiled = try render8(img, rect, context: CIContext(options: [.tileSize: t, .outputPremultiplied: false]))
            #expect(whole == tiled, "tile \(t)")
        }
        // Float output too, bit for bit: every resampler finds a pixel's source point from the
        // pixel's own coordinates, whatever tile it falls in.
        #expect(try render(img, rect, tile: 4096) == render(img, rect, tile: 5), "float, tile 5")
    }
    func tiledEqualsWholeExactly(_ img: CIImage, _ rect: CGRect) throws {
        try tiledEqualsWhole(img, rect)
        #expect(try render(img, rect, tile: 4096) == render(img, rect, tile: 7))
    }

    // Corners of the test's quadrilateral: a real perspective (no two sides parallel).
    let bl = CGPoint(x: 1.3, y: 0.7), br = CGPoint(x: 14.2, y: 2.1), tr = CGPoint(x: 11.6, y: 10.4), tl = CGPoint(x: 2.2, y: 8.9)
    var quad: [(Double, Double)] { [bl, br, tr, tl].map { (Double($0.x), Double($0.y)) } }
    func rectCorners(_ r: CGRect) -> [(Double, Double)] {
        [(r.minX, r.minY), (r.maxX, r.minY), (r.maxX, r.maxY), (r.minX, r.maxY)].map { (Double($0.0), Double($0.1)) }
    }
    func corners(_ bl: CGPoint, _ br: CGPoint, _ tr: CGPoint, _ tl: CGPoint) -> [String: Any] {
        [
            "inputBottomLeft": CIVector(cgPoint: bl), "inputBottomRight": CIVector(cgPoint: br),
            "inputTopRight": CIVector(cgPoint: tr), "inputTopLeft": CIVector(cgPoint: tl),
        ]
    }

    // MARK: CIPerspectiveTransform

    @Test func perspectiveTransformIsTheHomographyOfTheCorners() throws {
        let out = input.applyingFilter("CIPerspectiveTransform", parameters: corners(bl, br, tr, tl))
        let e = out.extent
        #expect(abs(e.minX - 1.3) < 1e-9 && abs(e.minY - 0.7) < 1e-9 && abs(e.maxX - 14.2) < 1e-9 && abs(e.maxY - 10.4) < 1e-9)
        // Output to input: solved from the quad to the image's corners.
        let inv = solveHomography(from: quad, to: rectCorners(input.extent))
        try check(out, e.integral) { x, y in
            let (u, v, _) = applyH(inv, x, y)
            return sample(u, v, .clear)
        }
        try tiledEqualsWholeExactly(out, e.integral)
    }

    @Test func perspectiveTransformOfTheImageCornersIsTheIdentity() throws {
        let e = input.extent
        let out = input.applyingFilter(
            "CIPerspectiveTransform",
            parameters: corners(
                CGPoint(x: e.minX, y: e.minY), CGPoint(x: e.maxX, y: e.minY), CGPoint(x: e.maxX, y: e.maxY), CGPoint(x: e.minX, y: e.maxY)))
        #expect(out.extent == e)
        #expect(try render8(out, e) == render8(input, e))
    }

    @Test func cropOfAPerspectiveReadsOnlyWhatItNeeds() throws {
        let W = 400, H = 300
        let src = image(testPixels(width: W, height: H), W, H)
        let q = [CGPoint(x: 10, y: 5), CGPoint(x: 390, y: 30), CGPoint(x: 350, y: 280), CGPoint(x: 40, y: 295)]
        let out = src.applyingFilter("CIPerspectiveTransform", parameters: corners(q[0], q[1], q[2], q[3]))
        let ctx = CIContext()
        _ = try ctx.renderToData(out, from: out.extent.integral)
        let full = ctx.lastRenderStatistics.sourcePixels
        let crop = CGRect(x: 200, y: 150, width: 40, height: 30)
        _ = try ctx.renderToData(out.cropped(to: crop), from: crop)
        let part = ctx.lastRenderStatistics.sourcePixels
        // The bilinear footprint of the crop's pixel centres, mapped back to the source.
        let inv = solveHomography(from: q.map { (Double($0.x), Double($0.y)) }, to: rectCorners(src.extent))
        var lo = (Double.infinity, Double.infinity), hi = (-Double.infinity, -Double.infinity)
        for (x, y) in [(200.5, 150.5), (239.5, 150.5), (239.5, 179.5), (200.5, 179.5)] {
            let (u, v, _) = applyH(inv, x, y)
            lo = (min(lo.0, u), min(lo.1, v)); hi = (max(hi.0, u), max(hi.1, v))
        }
        let x0 = max(0, Int(floor(lo.0 - 0.5))), y0 = max(0, Int(floor(lo.1 - 0.5)))
        let x1 = min(W, Int(floor(hi.0 - 0.5)) + 2), y1 = min(H, Int(floor(hi.1 - 0.5)) + 2)
        #expect(part == (x1 - x0) * (y1 - y0), "read \(part) source pixels for a 40x30 crop")
        #expect(part * 20 < full)
    }

    @Test func degenerateCornersGiveAnEmptyImageAndNeverTrap() throws {
        let p = CGPoint(x: 3, y: 3)
        let cases: [[String: Any]] = [
            corners(p, p, p, p),  // coincident
            corners(CGPoint(x: 0, y: 0), CGPoint(x: 5, y: 5), CGPoint(x: 10, y: 10), CGPoint(x: 0, y: 9)),  // three collinear
            corners(CGPoint(x: 0, y: 0), CGPoint(x: 5, y: 0), CGPoint(x: 10, y: 0), CGPoint(x: 15, y: 0)),  // all on a line
        ]
        for params in cases {
            for name in ["CIPerspectiveTransform", "CIPerspectiveCorrection"] {
                let out = input.applyingFilter(name, parameters: params)
                #expect(out.extent.isEmpty, "\(name) \(params)")
                _ = try render8(out, CGRect(x: 0, y: 0, width: 4, height: 4))
            }
        }
        // NaN and infinite points: no output image (CIFilterError.nonFinite), as elsewhere.
        for bad in [CIVector(x: .nan, y: 1), CIVector(x: .infinity, y: 1)] {
            for name in ["CIPerspectiveTransform", "CIPerspectiveTransformWithExtent", "CIPerspectiveCorrection"] {
                let f = try #require(CIFilter(name: name))
                f.setValue(input, forKey: kCIInputImageKey)
                f.setValue(bad, forKey: "inputTopLeft")
                #expect(f.outputImage == nil)
                #expect(input.applyingFilter(name, parameters: ["inputTopLeft": bad]).extent.isEmpty)
            }
        }
        // A zero or infinite reference rectangle.
        for r in [CGRect.zero, CGRect(x: 0, y: 0, width: CGFloat.infinity, height: 5)] {
            let out = input.applyingFilter("CIPerspectiveTransformWithExtent", parameters: corners(bl, br, tr, tl).merging([kCIInputExtentKey: CIVector(cgRect: r)]) { $1 })
            #expect(out.extent.isEmpty)
        }
        // An infinite image has no corners to move.
        #expect(input.clampedToExtent().applyingFilter("CIPerspectiveTransform", parameters: corners(bl, br, tr, tl)).extent.isEmpty)
    }

    @Test func aStrongPerspectiveOfAnInfiniteImageRendersAcrossTheHorizon() throws {
        // The top edge is much shorter than the bottom: the vanishing line is y = 28 or so.
        let params = corners(CGPoint(x: 0, y: 0), CGPoint(x: 13, y: 0), CGPoint(x: 8, y: 9), CGPoint(x: 5, y: 9))
            .merging([kCIInputExtentKey: CIVector(cgRect: input.extent)]) { $1 }
        let out = input.clampedToExtent().applyingFilter("CIPerspectiveTransformWithExtent", parameters: params)
        #expect(out.extent.isInfinite)
        let inv = solveHomography(from: [(0, 0), (13, 0), (8, 9), (5, 9)], to: rectCorners(input.extent))
        let rect = CGRect(x: -6, y: -4, width: 25, height: 40)
        try check(out, rect, tol: 3e-4) { x, y in
            let (u, v, w) = applyH(inv, x, y)
            // Beyond the vanishing line (w < 0 for the forward map) nothing is drawn.
            return w > 0 ? sample(u, v, .clamp) : [0, 0, 0, 0]
        }
        try tiledEqualsWholeExactly(out, rect)
    }

    // MARK: CIPerspectiveTransformWithExtent

    @Test func withExtentMapsTheGivenRectangleAndMovesTheWholeImage() throws {
        let ref = CGRect(x: 2, y: 1, width: 8, height: 6)
        let params = corners(bl, br, tr, tl).merging([kCIInputExtentKey: CIVector(cgRect: ref)]) { $1 }
        let out = input.applyingFilter("CIPerspectiveTransformWithExtent", parameters: params)
        let fwd = solveHomography(from: rectCorners(ref), to: quad)
        let inv = solveHomography(from: quad, to: rectCorners(ref))
        // Extent: the image of the input's extent.
        let mapped = rectCorners(input.extent).map { applyH(fwd, $0.0, $0.1) }
        let ex = CGRect(
            x: mapped.map(\.0).min()!, y: mapped.map(\.1).min()!, width: mapped.map(\.0).max()! - mapped.map(\.0).min()!,
            height: mapped.map(\.1).max()! - mapped.map(\.1).min()!)
        #expect(abs(out.extent.minX - ex.minX) < 1e-6 && abs(out.extent.maxY - ex.maxY) < 1e-6 && abs(out.extent.width - ex.width) < 1e-6)
        try check(out, out.extent.integral) { x, y in
            let (u, v, _) = applyH(inv, x, y)
            return sample(u, v, .clear)
        }
        try tiledEqualsWholeExactly(out, out.extent.integral)
        // The typed API builds the same recipe.
        let f = CIFilter.perspectiveTransformWithExtent()
        f.inputImage = input
        f.extent = ref
        f.topLeft = tl; f.topRight = tr; f.bottomLeft = bl; f.bottomRight = br
        #expect(try render8(f.outputImage!, out.extent.integral) == render8(out, out.extent.integral))
    }

    // MARK: CIPerspectiveCorrection

    @Test func perspectiveCorrectionMapsTheQuadrilateralToARectangle() throws {
        func d(_ p: CGPoint, _ q: CGPoint) -> Double { Double(((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot()) }
        let width = max(d(tl, tr), d(bl, br)), height = max(d(bl, tl), d(br, tr))
        let rect = CGRect(x: bl.x, y: bl.y, width: width, height: height)
        let out = input.applyingFilter("CIPerspectiveCorrection", parameters: corners(bl, br, tr, tl))
        #expect(abs(out.extent.minX - rect.minX) < 1e-9 && abs(out.extent.minY - rect.minY) < 1e-9)
        #expect(abs(out.extent.width - width) < 1e-9 && abs(out.extent.height - height) < 1e-9)
        // Output to input: the rectangle's corners onto the quadrilateral.
        let back = solveHomography(from: rectCorners(rect), to: quad)
        try check(out, out.extent.integral) { x, y in
            guard x >= Double(rect.minX) - 0.5, y >= Double(rect.minY) - 0.5, x <= Double(rect.maxX) + 0.5, y <= Double(rect.maxY) + 0.5 else { return [0, 0, 0, 0] }
            let (u, v, _) = applyH(back, x, y)
            return sample(u, v, .clear)
        }
        try tiledEqualsWholeExactly(out, out.extent.integral)

        // Without crop the whole image goes through the same map.
        let f = CIFilter.perspectiveCorrection()
        f.inputImage = input
        f.topLeft = tl; f.topRight = tr; f.bottomLeft = bl; f.bottomRight = br
        #expect(f.crop)
        f.crop = false
        let uncropped = f.outputImage!
        let fwd = solveHomography(from: quad, to: rectCorners(rect))
        let mapped = rectCorners(input.extent).map { applyH(fwd, $0.0, $0.1) }
        #expect(abs(uncropped.extent.minX - mapped.map(\.0).min()!) < 1e-6)
        #expect(abs(uncropped.extent.maxY - mapped.map(\.1).max()!) < 1e-6)
        try check(uncropped, uncropped.extent.integral) { x, y in
            let (u, v, _) = applyH(back, x, y)
            return sample(u, v, .clear)
        }
    }

    @Test func correctionOfTheImageCornersIsTheIdentity() throws {
        let e = input.extent
        let out = input.applyingFilter(
            "CIPerspectiveCorrection",
            parameters: corners(
                CGPoint(x: e.minX, y: e.minY), CGPoint(x: e.maxX, y: e.minY), CGPoint(x: e.maxX, y: e.maxY), CGPoint(x: e.minX, y: e.maxY)))
        #expect(out.extent == e)
        #expect(try render8(out, e) == render8(input, e))
    }

    // MARK: CIStraightenFilter

    @Test func straightenRotatesAndScalesToCoverTheExtent() throws {
        let angle = 0.3
        let out = input.applyingFilter("CIStraightenFilter", parameters: [kCIInputAngleKey: angle])
        #expect(out.extent == input.extent)
        let W = Double(w), H = Double(h)
        let s = abs(cos(angle)) + max(W / H, H / W) * abs(sin(angle))
        let cx = W / 2, cy = H / 2
        try check(out, input.extent) { x, y in
            // Undo the rotation about the centre, then the scale.
            let dx = x - cx, dy = y - cy
            let u = (cos(angle) * dx + sin(angle) * dy) / s + cx, v = (-sin(angle) * dx + cos(angle) * dy) / s + cy
            return sample(u, v, .clamp)
        }
        // No empty corners: an opaque image stays opaque everywhere.
        let opaque = image(testPixels(width: w, height: h), w, h).applyingFilter("CIStraightenFilter", parameters: [kCIInputAngleKey: -2.2])
        let px = try render(opaque, input.extent)
        #expect(px.allSatisfy { abs($0.w - 1) < 1e-5 })
        try tiledEqualsWhole(out, input.extent)
    }

    @Test func straightenByZeroIsTheIdentityAndTheTypedAPIWorks() throws {
        let f = CIFilter.straighten()
        f.inputImage = input
        #expect(f.angle == 0)
        #expect(try render8(f.outputImage!, input.extent) == render8(input, input.extent))
        f.angle = 0.3
        let typed = try render8(f.outputImage!, input.extent)
        #expect(typed == (try render8(input.applyingFilter("CIStraightenFilter", parameters: [kCIInputAngleKey: 0.3]), input.extent)))
        #expect(CIFilter(name: "CIStraightenFilter") != nil)
    }

    // MARK: CIAffineClamp, CIAffineTile, CIClamp

    let transform = CGAffineTransform(a: 0.8, b: 0.35, c: -0.2, d: 1.1, tx: 3.25, ty: -1.5)

    @Test func affineClampExtendsTheEdgesThroughTheTransform() throws {
        let out = input.applyingFilter("CIAffineClamp", parameters: [kCIInputTransformKey: transform])
        #expect(out.extent.isInfinite)
        let inv = transform.inverted()
        let rect = CGRect(x: -9, y: -7, width: 31, height: 25)
        try check(out, rect) { x, y in
            let p = CGPoint(x: x, y: y).applying(inv)
            return sample(Double(p.x), Double(p.y), .clamp)
        }
        try tiledEqualsWhole(out, rect)
        // Identity: the image inside its extent, its edges outside.
        let f = CIFilter.affineClamp()
        f.inputImage = input
        #expect(f.transform == .identity)
        try check(f.outputImage!, rect) { x, y in sample(x, y, .clamp) }
        // A singular transform: empty.
        f.transform = CGAffineTransform(a: 1, b: 2, c: 2, d: 4, tx: 0, ty: 0)
        #expect(f.outputImage!.extent.isEmpty)
    }

    @Test func affineTileRepeatsTheImageThroughTheTransform() throws {
        let out = input.applyingFilter("CIAffineTile", parameters: [kCIInputTransformKey: transform])
        #expect(out.extent.isInfinite)
        let inv = transform.inverted()
        let rect = CGRect(x: -17, y: -11, width: 45, height: 31)
        try check(out, rect) { x, y in
            let p = CGPoint(x: x, y: y).applying(inv)
            return sample(Double(p.x), Double(p.y), .wrap)
        }
        try tiledEqualsWhole(out, rect)
        // Identity: pixel (x + i w, y + j h) is pixel (x, y).
        let f = CIFilter.affineTile()
        f.inputImage = input
        let far = try render8(f.outputImage!, CGRect(x: -3 * w, y: 2 * h, width: w, height: h))
        #expect(far == (try render8(input, input.extent)))
        try check(f.outputImage!, CGRect(x: -20, y: -5, width: 40, height: 20)) { x, y in sample(x, y, .wrap) }
        // A crop of the tiling reads at most one period.
        let ctx = CIContext()
        _ = try ctx.renderToData(f.outputImage!.cropped(to: CGRect(x: 100, y: 100, width: 4, height: 3)), from: CGRect(x: 100, y: 100, width: 4, height: 3))
        #expect(ctx.lastRenderStatistics.sourcePixels <= 4 * 3 * 4)
        f.transform = CGAffineTransform(a: 0, b: 0, c: 0, d: 0, tx: 1, ty: 1)
        #expect(f.outputImage!.extent.isEmpty)
    }

    @Test func clampKeepsTheRectangleAndExtendsItsBorder() throws {
        let r = CGRect(x: 2, y: 1, width: 7, height: 5)
        let out = input.applyingFilter("CIClamp", parameters: [kCIInputExtentKey: CIVector(cgRect: r)])
        #expect(out.extent.isInfinite)
        let rect = CGRect(x: -4, y: -3, width: 22, height: 16)
        try check(out, rect) { x, y in
            let cx = min(max(Int(floor(x)), 2), 8), cy = min(max(Int(floor(y)), 1), 5)
            return premul(cx, cy)!
        }
        try tiledEqualsWhole(out, rect)
        // Inside the rectangle: the image unchanged.
        #expect(try render8(out, r) == render8(input, r))
        // Apple's default rectangle is empty: so is the output.
        #expect(input.applyingFilter("CIClamp").extent.isEmpty)
        let f = try #require(CIFilter(name: "CIClamp"))
        f.setValue(input, forKey: kCIInputImageKey)
        f.setValue(CIVector(cgRect: .infinite), forKey: kCIInputExtentKey)
        #expect(f.outputImage?.extent == input.extent)
    }

    @Test func typedPerspectiveTransformMatchesByName() throws {
        let f = CIFilter.perspectiveTransform()
        f.inputImage = input
        f.topLeft = tl; f.topRight = tr; f.bottomLeft = bl; f.bottomRight = br
        #expect(f.topLeft == tl)
        let byName = input.applyingFilter("CIPerspectiveTransform", parameters: corners(bl, br, tr, tl))
        #expect(f.outputImage!.extent == byName.extent)
        #expect(try render8(f.outputImage!, byName.extent.integral) == render8(byName, byName.extent.integral))
        #expect(CIFilter(name: "CIPerspectiveTransform") is CIFilter & CIPerspectiveTransform)
    }

    // MARK: CIBicubicScaleTransform

    /// Mitchell-Netravali, written from the 1988 paper's piecewise cubic.
    func cubic(_ x: Double, _ b: Double, _ c: Double) -> Double {
        let t = abs(x)
        if t < 1 { return ((12 - 9 * b - 6 * c) * pow(t, 3) + (-18 + 12 * b + 6 * c) * t * t + (6 - 2 * b)) / 6 }
        if t < 2 { return ((-b - 6 * c) * pow(t, 3) + (6 * b + 30 * c) * t * t + (-12 * b - 48 * c) * t + (8 * b + 24 * c)) / 6 }
        return 0
    }
    /// Normalised taps of output index `o` along an axis scaled by `scale` (kernel widened by
    /// 1/scale when shrinking): source index -> weight.
    func taps(_ o: Int, _ scale: Double, _ b: Double, _ c: Double) -> [(Int, Double)] {
        let stretch = max(1, 1 / scale), centre = (Double(o) + 0.5) / scale
        let all = (Int(floor(centre - 3 * stretch))...Int(ceil(centre + 3 * stretch))).map { s in
            (s, cubic((Double(s) + 0.5 - centre) / stretch, b, c))
        }.filter { $0.1 != 0 }
        let sum = all.reduce(0) { $0 + $1.1 }
        return all.map { ($0.0, $0.1 / sum) }
    }

    @Test(arguments: [(1.7, 0.8, 1.0 / 3, 1.0 / 3), (0.45, 1.3, 0.0, 0.75), (1.0, 1.0, 1.0, 0.0)])
    func bicubicScaleIsTheSeparableMitchellNetravaliFilter(scale: Double, aspect: Double, b: Double, c: Double) throws {
        let out = input.applyingFilter(
            "CIBicubicScaleTransform",
            parameters: [
                kCIInputScaleKey: scale, kCIInputAspectRatioKey: aspect, "inputB": b, "inputC": c,
            ])
        let sx = scale * aspect, sy = scale
        let e = out.extent
        #expect(abs(e.width - Double(w) * sx) < 1e-9 && abs(e.height - Double(h) * sy) < 1e-9 && e.minX == 0 && e.minY == 0)
        try check(out, e.integral, tol: 3e-4) { x, y in
            var o = [0.0, 0, 0, 0]
            for (j, wy) in taps(Int(y), sy, b, c) {
                for (i, wx) in taps(Int(x), sx, b, c) {
                    let p = premul(i, j) ?? [0, 0, 0, 0]
                    for k in 0..<4 { o[k] += p[k] * wx * wy }
                }
            }
            return o
        }
        try tiledEqualsWholeExactly(out, e.integral)
    }

    @Test func bicubicIdentityAndTypedAPI() throws {
        // The defaults (scale 1, B = 0): the image itself; the node at scale 1 with B = 0
        // interpolates, so it changes nothing either.
        let f = CIFilter.bicubicScaleTransform()
        f.inputImage = input
        #expect(f.scale == 1 && f.aspectRatio == 1 && f.parameterB == 0 && f.parameterC == 0.75)
        #expect(try render8(f.outputImage!, input.extent) == render8(input, input.extent))
        let node = CIImage(node: BicubicScaleNode(input: input.node, scaleX: 1, scaleY: 1, b: 0, c: 0.75))
        #expect(try render8(node, input.extent) == render8(input, input.extent))
        f.scale = 0.625
        f.parameterB = 0.25; f.parameterC = 0.375
        let byName = input.applyingFilter("CIBicubicScaleTransform", parameters: [kCIInputScaleKey: 0.625, "inputB": 0.25, "inputC": 0.375])
        #expect(f.outputImage!.extent == byName.extent)
        #expect(try render8(f.outputImage!, byName.extent.integral) == render8(byName, byName.extent.integral))
        // Zero scale: empty. A strong reduction is staged and still renders.
        f.scale = 0
        #expect(f.outputImage!.extent.isEmpty)
        let big = image(testPixels(width: 300, height: 300), 300, 300)
        let tiny = big.applyingFilter("CIBicubicScaleTransform", parameters: [kCIInputScaleKey: 0.01])
        #expect(abs(tiny.extent.width - 3) < 1e-9 && abs(tiny.extent.height - 3) < 1e-9)
        #expect(tiny.node.inputs.first is BicubicScaleNode)  // two stages of 10x
        let px = try render(tiny, tiny.extent.integral)
        #expect(px.count == 9 && px.allSatisfy { v in (0..<4).allSatisfy { v[$0].isFinite } } && px[4].w > 0.9)
    }

    @Test func cropOfABicubicScaleReadsOnlyItsTaps() throws {
        let W = 400, H = 300
        let src = image(testPixels(width: W, height: H), W, H)
        let out = src.applyingFilter("CIBicubicScaleTransform", parameters: [kCIInputScaleKey: 0.5, "inputB": 0.3])
        let ctx = CIContext()
        let crop = CGRect(x: 60, y: 40, width: 20, height: 15)
        _ = try ctx.renderToData(out.cropped(to: crop), from: crop)
        let xs = (60..<80).flatMap { taps($0, 0.5, 0.3, 0.75).map(\.0) }, ys = (40..<55).flatMap { taps($0, 0.5, 0.3, 0.75).map(\.0) }
        #expect(ctx.lastRenderStatistics.sourcePixels == (xs.max()! - xs.min()! + 1) * (ys.max()! - ys.min()! + 1))
    }
}
