import Foundation
import Testing
@testable import Cyanotype

// The engine's kernel kinds driven by maths written here, as a new filter would write it: a
// warp map, a neighbourhood row operation, a plane fold and a resampling kernel, each checked
// against a reference computed in the test (premultiplied linear pixels, clear outside the
// image) and rendered whole and in small tiles.

/// A shift by (-1.25, +0.5), clear right of x = 8.
private struct ShiftMap: WarpMap {
    func source(_ x: Double, _ y: Double) -> (Double, Double)? { x > 8 ? nil : (x - 1.25, y + 0.5) }
    func sourceBounds(_ box: PointBox) -> PointBox? {
        PointBox(minX: box.minX - 1.25, minY: box.minY + 0.5, maxX: box.maxX - 1.25, maxY: box.maxY + 0.5)
    }
    var label: String { "shift" }
}

/// out(x) = in(x - 2) - 0.5 in(x + 1) + in(x, y + 1): reaches 2 left, 1 right, 1 above.
private struct SkewDifference: NeighbourhoodRowOperation {
    var reach: NeighbourhoodReach { NeighbourhoodReach(left: 2, right: 1, below: 0, above: 1) }
    func run(_ c: UnsafeMutablePointer<SIMD4<Float>>, stride: Int, into out: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        for x in 0..<count { out[x] = c[x - 2] - 0.5 * c[x + 1] + c[x + stride] }
    }
    var label: String { "skew difference" }
}

/// A mirror along the cell frame's y axis.
private struct MirrorFold: PlaneFold {
    var frame = FoldFrame()
    func fold(_ x: Double, _ y: Double) -> (Double, Double) { (abs(x), y) }
    var cellVertices: [(Double, Double)]? { nil }
    var name: String { "mirror" }
}

/// The box kernel: 1 on (-0.5, 0.5).
private struct BoxKernel: ResamplingKernel {
    var support: Double { 0.5 }
    func weight(_ x: Double) -> Double { abs(x) < 0.5 ? 1 : 0 }
    var label: String { "box" }
}

@Suite struct KernelKindsTests {
    let w = 11, h = 7
    var pixels: [UInt8] { testPixels(width: w, height: h, alpha: true) }
    var input: CIImage { image(pixels, w, h) }

    /// Premultiplied linear renders, whole or in square tiles of `side`.
    func context(tile side: Int? = nil) -> CIContext { linearContext(tile: side) }

    /// The input's premultiplied linear pixel (x, yUp), clear outside.
    func pixel(_ x: Int, _ yUp: Int) -> SIMD4<Double> {
        guard (0..<w).contains(x), (0..<h).contains(yUp) else { return .zero }
        let p = linearPixel(pixels, w, x, h - 1 - yUp)
        return SIMD4(p[0] * p[3], p[1] * p[3], p[2] * p[3], p[3])
    }

    /// The bilinear sample at (u, v), pixel centres at half-integers.
    func bilinear(_ u: Double, _ v: Double) -> SIMD4<Double> {
        let fx = (u - 0.5).rounded(.down), fy = (v - 0.5).rounded(.down)
        let tx = u - 0.5 - fx, ty = v - 0.5 - fy, x0 = Int(fx), y0 = Int(fy)
        let low = pixel(x0, y0) * (1 - tx) + pixel(x0 + 1, y0) * tx
        let high = pixel(x0, y0 + 1) * (1 - tx) + pixel(x0 + 1, y0 + 1) * tx
        return low * (1 - ty) + high * ty
    }

    /// Renders `out` over `rect` whole and in 3-pixel tiles (which must agree to the bit) and
    /// compares every pixel with `reference(x, yUp)`.
    func check(_ out: CIImage, _ rect: CGRect, tol: Double = 2e-5, _ reference: (Int, Int) -> SIMD4<Double>) throws {
        let whole = try renderFloat(out, rect, context: context())
        #expect(try renderFloat(out, rect, context: context(tile: 3)) == whole, "\(out.node.label): tiled differs from whole")
        let rw = Int(rect.width), top = Int(rect.maxY) - 1
        for (i, got) in whole.enumerated() {
            let x = Int(rect.minX) + i % rw, yUp = top - i / rw
            let want = reference(x, yUp)
            let err = (0..<4).map { abs(Double(got[$0]) - want[$0]) }.max() ?? 0
            #expect(err <= tol, "\(out.node.label) at (\(x), \(yUp)): got \(got), want \(want)")
        }
    }

    @Test func warpNodeSamplesWhereItsMapSays() throws {
        let out = CIImage(node: WarpNode(input: input.node, map: ShiftMap(), extent: input.extent))
        try check(out, input.extent) { x, y in
            Double(x) + 0.5 > 8 ? .zero : bilinear(Double(x) + 0.5 - 1.25, Double(y) + 0.5 + 0.5)
        }
        #expect(out.node.inputRect(0, for: PixelRect(x: 2, y: 1, width: 3, height: 2)).contains(PixelRect(x: 0, y: 1, width: 4, height: 3)))
    }

    @Test func neighbourhoodNodeReadsItsReach() throws {
        let out = CIImage(node: NeighbourhoodNode(input: input.node, operation: SkewDifference()))
        #expect(out.node.traits.halo == 2)
        #expect(out.node.inputRect(0, for: PixelRect(x: 4, y: 2, width: 3, height: 2)) == PixelRect(x: 2, y: 2, width: 6, height: 3))
        try check(out, input.extent) { x, y in pixel(x - 2, y) - 0.5 * pixel(x + 1, y) + pixel(x, y + 1) }
    }

    @Test func foldNodeReadsTheFoldedPoint() throws {
        let out = CIImage(node: FoldNode(input: input.node, map: MirrorFold().placed(at: SIMD2(4, 3), angle: 0), extent: .infinite))
        try check(out, CGRect(x: -3, y: 0, width: 14, height: 7)) { x, y in
            bilinear(4 + abs(Double(x) + 0.5 - 4), Double(y) + 0.5)
        }
    }

    @Test func resamplingNodeWeighsItsKernel() throws {
        let out = CIImage(node: ResamplingNode(input: input.node, kernel: BoxKernel(), scaleX: 0.5, scaleY: 0.5))
        #expect(out.extent == CGRect(x: 0, y: 0, width: 5.5, height: 3.5))
        try check(out, CGRect(x: 0, y: 0, width: 5, height: 3)) { x, y in
            (pixel(2 * x, 2 * y) + pixel(2 * x + 1, 2 * y) + pixel(2 * x, 2 * y + 1) + pixel(2 * x + 1, 2 * y + 1)) / 4
        }
    }

    @Test("affine maps that move whole pixels (quarter turn, flip, shift, whole-pixel shear) copy the pixel the inverse matrix names")
    func wholePixelAffineMapsCopyPixels() throws {
        // Each transform with its inverse written as pixel indices: output (x, y) shows input
        // pixel f(x, y). The shear's sources fall between two rows; the sampling takes the
        // one its rounding (to nearest, halves away from zero) gives.
        let cases: [(CGAffineTransform, (Int, Int) -> (Int, Int))] = [
            (CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 7, ty: 0), { x, y in (y, 6 - x) }),
            (CGAffineTransform(a: -1, b: 0, c: 0, d: 1, tx: 11, ty: 0), { x, y in (10 - x, y) }),
            (CGAffineTransform(translationX: 3, y: -2), { x, y in (x - 3, y + 2) }),
            (CGAffineTransform(a: 1, b: 1, c: 0, d: 1, tx: 0, ty: 0), { x, y in (x, Int((Double(y - x) - 0.5).rounded())) }),
        ]
        for (t, f) in cases {
            let out = CIImage(node: AffineNode(input: input.node, transform: t, mode: .linear))
            #expect(out.node.label.hasPrefix("warp affine"))
            try check(out, out.extent.insetBy(dx: -2, dy: -2)) { x, y in
                let (sx, sy) = f(x, y)
                return pixel(sx, sy)
            }
        }
    }

    @Test func repeatMapTilesThePlaneWithItsPeriod() throws {
        let period = PixelRect(x: 2, y: 1, width: 5, height: 4)
        let out = CIImage(node: RepeatNode(input: input.node, period: period))
        #expect(out.extent.isInfinite)
        func wrap(_ v: Int, _ lo: Int, _ n: Int) -> Int { lo + (((v - lo) % n) + n) % n }
        try check(out, CGRect(x: -9, y: -6, width: 25, height: 17)) { x, y in pixel(wrap(x, 2, 5), wrap(y, 1, 4)) }
    }

    @Test func mirrorMapReflectsAtEachEdge() throws {
        let out = input.mirroredToExtent()
        // ..., 1, 0 | 0, 1, ..., n - 1 | n - 1, n - 2, ...: period 2n.
        func reflect(_ v: Int, _ n: Int) -> Int {
            let m = ((v % (2 * n)) + 2 * n) % (2 * n)
            return m < n ? m : 2 * n - 1 - m
        }
        try check(out, CGRect(x: -25, y: -9, width: 60, height: 25)) { x, y in pixel(reflect(x, w), reflect(y, h)) }
    }

    /// `v` clamped into lo..<hi.
    func clamp(_ v: Int, _ lo: Int, _ hi: Int) -> Int { min(max(v, lo), hi - 1) }

    @Test("a clamp shows input pixel (clamp(x), clamp(y)) in tiles inside, across each edge and corner, and wholly outside")
    func clampMapRepeatsTheNearestEdgePixel() throws {
        // A 7x5 rectangle inside the 11x7 input, and one reaching past the input's left and
        // right (its pixels there are clear, and clear is what extends).
        for c in [PixelRect(x: 2, y: 1, width: 7, height: 5), PixelRect(x: -2, y: 3, width: 15, height: 3)] {
            let out = CIImage(node: ClampNode(input: input.node, rect: c.cgRect))
            #expect(out.extent.isInfinite)
            #expect(out.node.label.hasPrefix("warp clamp"))
            // Each rectangle renders as one tile (whole) and in 3-pixel tiles (`check`).
            let (x0, x1, y0, y1) = (c.minX, c.maxX, c.minY, c.maxY)
            let tiles = [
                CGRect(x: x0 + 1, y: y0 + 1, width: 3, height: 3),  // inside
                CGRect(x: x0 - 2, y: y0 + 1, width: 5, height: 3), CGRect(x: x1 - 3, y: y0 + 1, width: 5, height: 3),  // left, right
                CGRect(x: x0 + 1, y: y0 - 2, width: 3, height: 5), CGRect(x: x0 + 1, y: y1 - 3, width: 3, height: 5),  // below, above
                CGRect(x: x0 - 2, y: y0 - 2, width: 5, height: 5), CGRect(x: x1 - 3, y: y0 - 2, width: 5, height: 5),  // corners
                CGRect(x: x0 - 2, y: y1 - 3, width: 5, height: 5), CGRect(x: x1 - 3, y: y1 - 3, width: 5, height: 5),
                CGRect(x: x0 - 3, y: y0 - 3, width: c.width + 6, height: c.height + 6),  // across all four edges
                CGRect(x: x0 - 6, y: y0 + 1, width: 5, height: 3), CGRect(x: x1 + 2, y: y0, width: 3, height: 5),  // outside
                CGRect(x: x0, y: y0 - 9, width: 5, height: 3), CGRect(x: x0 + 1, y: y1 + 4, width: 3, height: 3),
                CGRect(x: x0 - 7, y: y0 - 5, width: 3, height: 3), CGRect(x: x1 + 1, y: y1 + 2, width: 5, height: 7),
            ]
            for t in tiles {
                try check(out, t) { x, y in pixel(clamp(x, x0, x1), clamp(y, y0, y1)) }
            }
        }
        #expect(CIImage(node: ClampNode(input: input.node, rect: .zero)).extent.isEmpty)
    }

    @Test("a blur over clampedToExtent equals the blur over the image padded with its edge pixels by the test")
    func blurOverAClampEqualsBlurOverEdgePadding() throws {
        // The oracle: an 8-bit image whose border of `pad` pixels repeats the edge pixels'
        // bytes (pixel (x, y) of the padded image is pixel (clamp(x - pad), clamp(y - pad))),
        // wide enough that the blur (sigma 3: 9 pixels each way) never reaches its own edges.
        let pad = 16, pw = w + 2 * pad, ph = h + 2 * pad
        let source = pixels
        var padded = [UInt8](repeating: 0, count: pw * ph * 4)
        for y in 0..<ph {
            for x in 0..<pw {
                let s = (clamp(y - pad, 0, h) * w + clamp(x - pad, 0, w)) * 4, d = (y * pw + x) * 4
                for k in 0..<4 { padded[d + k] = source[s + k] }
            }
        }
        let blur: [String: Any] = [kCIInputRadiusKey: 3.0]
        let clamped = input.clampedToExtent().applyingFilter("CIGaussianBlur", parameters: blur).cropped(to: input.extent)
        let reference = image(padded, pw, ph).applyingFilter("CIGaussianBlur", parameters: blur)
        let got = try renderFloat(clamped, input.extent, context: context())
        #expect(try renderFloat(reference, input.extent.offsetBy(dx: CGFloat(pad), dy: CGFloat(pad)), context: context()) == got)
        for side in [3, 5] {
            #expect(try renderFloat(clamped, input.extent, context: context(tile: side)) == got, "tiles of \(side)")
        }
    }

    @Test("a general kernel reads each image over the rectangle its ROI callback names")
    func generalKernelReadsItsROI() throws {
        let shifted = CIKernel(name: "shifted sum") { tile in
            let a = tile.inputs[0], b = tile.inputs[1]
            for r in 0..<Int(tile.rect.height) {
                let out = tile.outputRow(r)
                let y = Int(tile.rect.minY) + r
                for i in 0..<out.count {
                    let x = Int(tile.rect.minX) + i
                    out[i] = a.pixel(x: x + 2, y: y - 1) + 0.5 * b.pixel(x: x, y: y)
                }
            }
        }
        let roi: CIKernelROICallback = { i, r in i == 0 ? r.offsetBy(dx: 2, dy: -1) : r }
        let out = try #require(shifted.apply(extent: input.extent, roiCallback: roi, arguments: [input, input]))
        #expect(out.node.inputRect(0, for: PixelRect(x: 1, y: 2, width: 3, height: 2)) == PixelRect(x: 3, y: 1, width: 3, height: 2))
        try check(out, input.extent) { x, y in pixel(x + 2, y - 1) + 0.5 * pixel(x, y) }
    }

    @Test func generalKernelWithoutImagesComputesFromCoordinates() throws {
        let ramp = CIKernel(name: "ramp") { tile in
            for r in 0..<Int(tile.rect.height) {
                let out = tile.outputRow(r)
                for i in 0..<out.count {
                    out[i] = SIMD4(Float(Int(tile.rect.minX) + i) * 0.01, Float(Int(tile.rect.minY) + r) * 0.02, 0, 1)
                }
            }
        }
        let roi: CIKernelROICallback = { _, r in r }
        let out = try #require(ramp.apply(extent: CGRect(x: 0, y: 0, width: 9, height: 5), roiCallback: roi, arguments: []))
        #expect(out.extent == CGRect(x: 0, y: 0, width: 9, height: 5))
        try check(out, out.extent) { x, y in SIMD4(Double(x) * 0.01, Double(y) * 0.02, 0, 1) }
    }
}
