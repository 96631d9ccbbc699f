import Foundation
import Testing
@testable import Cyanotype

// The geometry filters of issue #16 against references written here: camera rotations by
// turning rays one angle at a time and solving the 8x8 homography of the corners, the
// keystones from guides made by a known camera turn, and the nine-part, stretch-crop,
// maximum-scale and nearest-sampling definitions from their documentation.

/// A 3x3 matrix, row-major, for the test's own rotations.
private typealias M3 = [[Double]]
private func times(_ a: M3, _ b: M3) -> M3 {
    (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
}
private func transposed(_ a: M3) -> M3 { (0..<3).map { i in (0..<3).map { j in a[j][i] } } }
private func apply(_ a: M3, _ v: [Double]) -> [Double] { (0..<3).map { i in (0..<3).reduce(0) { $0 + a[i][$1] * v[$1] } } }
private func pitchM(_ t: Double) -> M3 { [[1, 0, 0], [0, cos(t), -sin(t)], [0, sin(t), cos(t)]] }
private func yawM(_ t: Double) -> M3 { [[cos(t), 0, -sin(t)], [0, 1, 0], [sin(t), 0, cos(t)]] }
private func rollM(_ t: Double) -> M3 { [[cos(t), -sin(t), 0], [sin(t), cos(t), 0], [0, 0, 1]] }

/// Focal length in pixels of a 35 mm-equivalent length on a w x h picture (by the diagonal).
private func focal(_ mm: Double, _ w: Int, _ h: Int) -> Double { mm / hypot(36, 24) * hypot(Double(w), Double(h)) }

/// Where the camera turned by `rotate` (a function on rays) sees the input point (x, y),
/// the optical axis at the centre c, then shifted so the centre stays put.
private func turned(_ x: Double, _ y: Double, c: (Double, Double), f: Double, _ rotate: ([Double]) -> [Double]) -> (Double, Double) {
    let d = rotate([x - c.0, y - c.1, f]), o = rotate([0, 0, f])
    return (c.0 + f * d[0] / d[2] - f * o[0] / o[2], c.1 + f * d[1] / d[2] - f * o[1] / o[2])
}

@Suite struct CatalogGeometryTests {
    let pic = TestPicture(40, 30)

    /// The output is the input through the homography solved from the image's corners to
    /// `corner(x, y)`: extent and every pixel.
    func expectHomography(_ out: CIImage, _ what: String, corner: (Double, Double) -> (Double, Double)) throws {
        let src = [(0.0, 0.0), (40.0, 0.0), (40.0, 30.0), (0.0, 30.0)]
        let dst = src.map { corner($0.0, $0.1) }
        let h = solvedHomography(from: src, to: dst)
        let inv = inverted3(h)
        let xs = dst.map(\.0), ys = dst.map(\.1)
        let e = out.extent
        #expect(abs(Double(e.minX) - xs.min()!) < 1e-6 && abs(Double(e.maxX) - xs.max()!) < 1e-6, "\(what) extent \(e)")
        #expect(abs(Double(e.minY) - ys.min()!) < 1e-6 && abs(Double(e.maxY) - ys.max()!) < 1e-6, "\(what) extent \(e)")
        try expectMatches(out, e.integral, what) { x, y in
            let (u, v, _) = mapped(inv, x, y)
            return pic.sample(u, v)
        }
    }

    @Test func perspectiveRotateIsTheTurnedCamerasHomography() throws {
        let pitch = 0.2, yaw = -0.15, roll = 0.1, f = focal(35, 40, 30)
        let out = pic.image.applyingFilter("CIPerspectiveRotate", parameters: ["inputFocalLength": 35, "inputPitch": pitch, "inputYaw": yaw, "inputRoll": roll])
        // One angle at a time: yaw about y, then pitch about x, then roll about z.
        func rotate(_ d: [Double]) -> [Double] {
            var (x, y, z) = (d[0], d[1], d[2])
            (x, z) = (cos(yaw) * x - sin(yaw) * z, sin(yaw) * x + cos(yaw) * z)
            (y, z) = (cos(pitch) * y - sin(pitch) * z, sin(pitch) * y + cos(pitch) * z)
            (x, y) = (cos(roll) * x - sin(roll) * y, sin(roll) * x + cos(roll) * y)
            return [x, y, z]
        }
        try expectHomography(out, "perspective rotate") { turned($0, $1, c: (20, 15), f: f, rotate) }
        // Positive pitch narrows the top edge, positive yaw the right edge.
        let narrowTop = pic.image.applyingFilter("CIPerspectiveRotate", parameters: ["inputPitch": 0.3])
        let t = turned(0, 30, c: (20, 15), f: focal(28, 40, 30)) { apply(pitchM(0.3), $0) }, b = turned(0, 0, c: (20, 15), f: focal(28, 40, 30)) { apply(pitchM(0.3), $0) }
        #expect(abs(20 - t.0) < abs(20 - b.0))
        #expect(narrowTop.extent.width > 0)
        // Zero angles: the image itself.
        #expect(pic.image.applyingFilter("CIPerspectiveRotate", parameters: [:]).extent == pic.extent)
    }

    @Test(arguments: [("CIKeystoneCorrectionVertical", 0), ("CIKeystoneCorrectionHorizontal", 1), ("CIKeystoneCorrectionCombined", 2)])
    func keystoneUndoesTheCameraTurnThatMadeTheGuides(_ name: String, _ kind: Int) throws {
        let f = focal(28, 40, 30)
        // A turn the filter can see from its guides: pitch alone for vertical guides, yaw
        // alone for horizontal ones, any turn for both.
        let q: M3 = kind == 0 ? pitchM(0.25) : kind == 1 ? yawM(-0.2) : times(rollM(0.05), times(pitchM(0.2), yawM(0.15)))
        // The guides: an upright rectangle of the scene as the turned camera saw it.
        let g = guidesOfRectangle(q, f: f, left: 9, right: 33, bottom: 7, top: 24)
        let out = pic.image.applyingFilter(name, parameters: g)
        let undo = transposed(q)
        try expectHomography(out, name) { turned($0, $1, c: (20, 15), f: f) { apply(undo, $0) } }
        // The guides come out upright: vertical sides share x, horizontal ones y.
        func fixed(_ v: CIVector) -> (Double, Double) { turned(Double(v.x), Double(v.y), c: (20, 15), f: f) { apply(undo, $0) } }
        let bl = fixed(g["inputBottomLeft"] as! CIVector), tl = fixed(g["inputTopLeft"] as! CIVector)
        let br = fixed(g["inputBottomRight"] as! CIVector), tr = fixed(g["inputTopRight"] as! CIVector)
        if kind != 1 { #expect(abs(bl.0 - tl.0) < 1e-9 && abs(br.0 - tr.0) < 1e-9) }
        if kind != 0 { #expect(abs(bl.1 - br.1) < 1e-9 && abs(tl.1 - tr.1) < 1e-9) }
    }

    /// Guides: the corners of an upright rectangle of the scene, photographed by a camera
    /// turned by `q` (rays d -> q d, no shift: a real camera keeps its optical axis).
    fileprivate func guidesOfRectangle(_ q: M3, f: Double, left: Double, right: Double, bottom: Double, top: Double) -> [String: Any] {
        func photo(_ x: Double, _ y: Double) -> CIVector {
            let d = apply(q, [x - 20, y - 15, f])
            return CIVector(x: 20 + f * d[0] / d[2], y: 15 + f * d[1] / d[2])
        }
        return [
            "inputBottomLeft": photo(left, bottom), "inputBottomRight": photo(right, bottom), "inputTopRight": photo(right, top),
            "inputTopLeft": photo(left, top), "inputFocalLength": 28.0,
        ]
    }

    @Test func keystoneWithUprightGuidesOrNoneIsTheIdentity() throws {
        for name in ["CIKeystoneCorrectionVertical", "CIKeystoneCorrectionHorizontal", "CIKeystoneCorrectionCombined"] {
            let none = pic.image.applyingFilter(name, parameters: [:])
            #expect(none.extent == pic.extent, "\(name)")
            #expect(try render8(none, pic.extent) == render8(pic.image, pic.extent), "\(name)")
            // Coincident guides: no lines to straighten.
            let p = CIVector(x: 5, y: 5)
            let degenerate = pic.image.applyingFilter(name, parameters: ["inputBottomLeft": p, "inputBottomRight": p, "inputTopRight": p, "inputTopLeft": p])
            #expect(degenerate.extent.isEmpty, "\(name)")
        }
    }

    @Test func perspectiveTileIsTheHomographyOfTheRepeatedPlane() throws {
        let small = TestPicture(13, 9)
        let q = [(1.3, 0.7), (14.2, 2.1), (11.6, 10.4), (2.2, 8.9)]
        let out = small.image.applyingFilter(
            "CIPerspectiveTile",
            parameters: [
                "inputBottomLeft": CIVector(x: 1.3, y: 0.7), "inputBottomRight": CIVector(x: 14.2, y: 2.1),
                "inputTopRight": CIVector(x: 11.6, y: 10.4), "inputTopLeft": CIVector(x: 2.2, y: 8.9),
            ])
        #expect(out.extent.isInfinite)
        let inv = solvedHomography(from: q, to: [(0, 0), (13, 0), (13, 9), (0, 9)])
        let drawn = mapped(inv, 7, 5).2
        try expectMatches(out, CGRect(x: -30, y: -25, width: 70, height: 60), "perspective tile") { x, y in
            let (u, v, w) = mapped(inv, x, y)
            if w * drawn <= 0 { return [0, 0, 0, 0] }
            // Far towards the vanishing line a rounding of the map moves the sample by a
            // pixel: compare where the plane is no more than 40 periods away.
            guard abs(u) < 13 * 40, abs(v) < 9 * 40 else { return nil }
            let wu = u - 13 * floor(u / 13), wv = v - 9 * floor(v / 9)
            return small.sample(wu, wv, .wrap)
        }
        try expectTiledEqualsWhole(out, CGRect(x: -5, y: -4, width: 30, height: 25), "perspective tile")
    }

    // MARK: Nine-part

    @Test func ninePartWithBreakpointsAtTheBordersIsTheIdentity() throws {
        let e = pic.extent
        for name in ["CINinePartStretched", "CINinePartTiled"] {
            for (b0, b1) in [(CIVector(x: 0, y: 0), CIVector(x: 40, y: 30)), (CIVector(x: 40, y: 30), CIVector(x: 0, y: 0)), (CIVector(x: 11, y: 7), CIVector(x: 29, y: 21))] {
                let out = pic.image.applyingFilter(name, parameters: ["inputBreakpoint0": b0, "inputBreakpoint1": b1, "inputGrowAmount": CIVector(x: 0, y: 0)])
                #expect(out.extent == e, "\(name)")
                #expect(try renderPremultiplied(out, e) == renderPremultiplied(pic.image, e), "\(name) \(b0) \(b1)")
            }
        }
    }

    /// The nine-part source coordinate of `v` along one axis, from the documentation.
    func ninePart(_ v: Double, _ p0: Double, _ p1: Double, size: Double, grow: Double, tiled: Bool, mirrored: Bool) -> Double {
        let a = min(max(min(p0, p1), 0), size), b = min(max(max(p0, p1), 0), size)
        let m = b - a, grown = max(0, m + grow)
        if v < a { return v }
        if v >= a + grown { return v - (grown - m) }
        if !tiled { return a + (v - a) * m / grown }
        let k = floor((v - a) / m)
        let f = (v - a) - k * m
        return a + (mirrored && Int(k) % 2 == 1 ? m - f : f)
    }

    @Test(arguments: [("CINinePartStretched", false), ("CINinePartTiled", true)])
    func ninePartGrowsTheMiddleAsDocumented(_ name: String, _ tiled: Bool) throws {
        for flip in [false, true] where tiled || !flip {
            var params: [String: Any] = [
                "inputBreakpoint0": CIVector(x: 12, y: 9), "inputBreakpoint1": CIVector(x: 25, y: 20),
                "inputGrowAmount": CIVector(x: 17, y: 23),
            ]
            if tiled { params["inputFlipYTiles"] = flip }
            let out = pic.image.applyingFilter(name, parameters: params)
            #expect(out.extent == CGRect(x: 0, y: 0, width: 57, height: 53), "\(name)")
            try expectMatches(out, out.extent, "\(name) flip \(flip)") { x, y in
                pic.sample(
                    ninePart(x, 12, 25, size: 40, grow: 17, tiled: tiled, mirrored: false),
                    ninePart(y, 9, 20, size: 30, grow: 23, tiled: tiled, mirrored: flip))
            }
            try expectTiledEqualsWhole(out, out.extent, name)
        }
        // Shrinking: the middle goes, the corners meet.
        let shrunk = pic.image.applyingFilter(
            name,
            parameters: [
                "inputBreakpoint0": CIVector(x: 12, y: 9), "inputBreakpoint1": CIVector(x: 25, y: 20),
                "inputGrowAmount": CIVector(x: -100, y: -4),
            ])
        #expect(shrunk.extent == CGRect(x: 0, y: 0, width: 27, height: 26))
    }

    // MARK: Stretch crop

    @Test func stretchCropMixesStretchingAndCroppingAsDocumented() throws {
        for (c, k) in [(0.0, 0.0), (1.0, 0.0), (0.3, 0.6), (0.25, 0.25)] {
            let W = 30.0, H = 12.0
            let out = pic.image.applyingFilter("CIStretchCrop", parameters: ["inputSize": CIVector(x: W, y: H), "inputCropAmount": c, "inputCenterStretchAmount": k])
            #expect(out.extent == CGRect(x: 0, y: 0, width: W, height: H))
            let s = max(W / 40, H / 30)
            let sx = (1 - c) * W / 40 + c * s, sy = (1 - c) * H / 30 + c * s
            func axis(_ v: Double, _ size: Double, _ scale: Double, _ centre: Double) -> Double {
                let u = (v - size / 2) / (size / 2)
                let a = k * (1 - min(sx, sy) / scale)
                return centre + size / (2 * scale) * (u + a * (u * u * u - u) / 2)
            }
            try expectMatches(out, out.extent, "stretch crop \(c) \(k)") { x, y in pic.sample(axis(x, W, sx, 20), axis(y, H, sy, 15)) }
            if c == 1 {
                // Cropping alone is a uniform scale about the centre.
                try expectMatches(out, out.extent, "crop only") { x, y in pic.sample(20 + (x - W / 2) / s, 15 + (y - H / 2) / s) }
            }
        }
        #expect(pic.image.applyingFilter("CIStretchCrop", parameters: ["inputSize": CIVector(x: 0, y: 10)]).extent.isEmpty)
    }

    // MARK: Maximum scale

    @Test func maximumScaleTakesTheMaximumOverEachFootprint() throws {
        let p = TestPicture(41, 23)
        for (scale, aspect) in [(0.37, 1.3), (0.5, 1.0), (2.5, 0.8), (0.07, 1.0)] {
            let out = p.image.applyingFilter("CIMaximumScaleTransform", parameters: [kCIInputScaleKey: scale, kCIInputAspectRatioKey: aspect])
            let sx = scale * aspect, sy = scale
            #expect(abs(Double(out.extent.width) - 41 * sx) < 1e-9 && abs(Double(out.extent.height) - 23 * sy) < 1e-9)
            /// The source pixels whose centres lie inside output pixel o's footprint, or the
            /// nearest one (ties up) when none does.
            func under(_ o: Int, _ s: Double, _ n: Int) -> [Int] {
                let inside = (0..<n).filter { Double($0) + 0.5 > Double(o) / s && Double($0) + 0.5 < Double(o + 1) / s }
                if !inside.isEmpty { return inside }
                let k = Int(((Double(o) + 0.5) / s - 0.5).rounded())
                return (0..<n).contains(k) ? [k] : []
            }
            try expectMatches(out, out.extent.integral, "maximum scale \(scale) \(aspect)", tol: 2e-5) { x, y in
                let xs = under(Int(x - 0.5), sx, 41), ys = under(Int(y - 0.5), sy, 23)
                var m = [-Double.infinity, -.infinity, -.infinity, -.infinity]
                for j in ys { for i in xs { let q = p.premul(i, j)!; for c in 0..<4 { m[c] = max(m[c], Double(Float(q[c]))) } } }
                return m.map { $0 == -.infinity ? 0 : $0 }
            }
        }
        // A one-pixel bright line survives a 10x reduction.
        var px = [UInt8](repeating: 0, count: 50 * 50 * 4)
        for y in 0..<50 { for x in 0..<50 { px[(y * 50 + x) * 4 + 3] = 255; if x == 23 { px[(y * 50 + x) * 4] = 255 } } }
        let line = image(px, 50, 50).applyingFilter("CIMaximumScaleTransform", parameters: [kCIInputScaleKey: 0.1])
        let got = try renderPremultiplied(line, line.extent)
        #expect(got.count == 25 && (0..<5).allSatisfy { got[$0 * 5 + 2].x == 1 && got[$0 * 5 + 1].x == 0 })
    }

    // MARK: Sample nearest

    @Test func sampleNearestMakesLaterTransformsPickTheNearestPixel() throws {
        let t = CGAffineTransform(a: 2.3 * cos(0.41), b: 2.3 * sin(0.41), c: -1.7 * sin(0.41), d: 1.7 * cos(0.41), tx: 3.3, ty: -2.1)
        let out = pic.image.applyingFilter("CISampleNearest").transformed(by: t)
        // The inverse of the 2x2 part and the shift, worked out here.
        let det = Double(t.a * t.d - t.b * t.c)
        func source(_ x: Double, _ y: Double) -> (Double, Double) {
            let dx = x - Double(t.tx), dy = y - Double(t.ty)
            return ((Double(t.d) * dx - Double(t.c) * dy) / det, (-Double(t.b) * dx + Double(t.a) * dy) / det)
        }
        try expectMatches(out, out.extent.integral, "nearest", tol: 2e-5) { x, y in
            let (u, v) = source(x, y)
            // Skip centres within a hair of a pixel edge (either side is right).
            if abs(u - u.rounded()) < 1e-9 || abs(v - v.rounded()) < 1e-9 { return nil }
            return pic.premul(Int(floor(u)), Int(floor(v))) ?? [0, 0, 0, 0]
        }
        // Nothing changes until something resamples.
        #expect(try renderPremultiplied(pic.image.applyingFilter("CISampleNearest"), pic.extent) == renderPremultiplied(pic.image, pic.extent))
    }
}
