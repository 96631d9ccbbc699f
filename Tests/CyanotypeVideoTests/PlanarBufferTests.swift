import Cyanotype
import CyanotypeVideo
import Foundation
import Testing

/// A planar buffer filled from per-pixel codes (Y, Cb, Cr as functions of x, y).
func planar(_ w: Int, _ h: Int, _ format: CIYCbCrFormat, y: @escaping (Int, Int) -> Int, cb: @escaping (Int, Int) -> Int, cr: @escaping (Int, Int) -> Int) throws
    -> CIPlanarImageBuffer
{
    let b = try CIPlanarImageBuffer(width: w, height: h, format: format)
    for (i, p) in b.planes.enumerated() {
        let f: (Int, Int) -> Int = [y, cb, cr][i]
        for row in 0..<p.height {
            for col in 0..<p.width {
                let v = f(col, row)
                if format.bitDepth > 8 {
                    (p.baseAddress + row * p.bytesPerRow).assumingMemoryBound(to: UInt16.self)[col] = UInt16(v)
                } else {
                    (p.baseAddress + row * p.bytesPerRow).assumingMemoryBound(to: UInt8.self)[col] = UInt8(v)
                }
            }
        }
    }
    return b
}

func sample(_ b: CIPlanarImageBuffer, plane: Int, _ x: Int, _ y: Int) -> Int {
    let p = b.planes[plane]
    if b.format.bitDepth > 8 { return Int((p.baseAddress + y * p.bytesPerRow).assumingMemoryBound(to: UInt16.self)[x]) }
    return Int((p.baseAddress + y * p.bytesPerRow).assumingMemoryBound(to: UInt8.self)[x])
}

/// R'G'B' from Y'CbCr codes by the textbook formula (BT.601/709/2020, video range, 8-bit).
func referenceRGB(_ y: Int, _ cb: Int, _ cr: Int, kr: Double, kb: Double) -> (Double, Double, Double) {
    let kg = 1 - kr - kb
    let Y = (Double(y) - 16) / 219, Pb = (Double(cb) - 128) / 224, Pr = (Double(cr) - 128) / 224
    let r = Y + 2 * (1 - kr) * Pr
    let b = Y + 2 * (1 - kb) * Pb
    let g = (Y - kr * r - kb * b) / kg
    func c(_ v: Double) -> Double { min(max(v, 0), 1) * 255 }
    return (c(r), c(g), c(b))
}

@Suite("Planar Y'CbCr in the renderer")
struct PlanarBufferTests {
    let sRGB = CGColorSpace(name: CGColorSpace.sRGB)!

    func rgba8(_ image: CIImage) throws -> Pixels {
        let r = try CIContext().renderToData(image, from: image.extent, format: .RGBA8, colorSpace: sRGB, premultiplied: false)
        return Pixels(width: r.width, height: r.height, bytes: [UInt8](r.data))
    }

    @Test(arguments: [(CIYCbCrFormat.Matrix.itu601, 0.299, 0.114), (.itu709, 0.2126, 0.0722), (.itu2020, 0.2627, 0.0593)])
    func matricesMatchTheFormula(matrix: CIYCbCrFormat.Matrix, kr: Double, kb: Double) throws {
        let f = CIYCbCrFormat(subsampling: .yuv444, bitDepth: 8, matrix: matrix, range: .video)
        let b = try planar(16, 16, f, y: { x, y in 16 + (x * 13 + y * 7) % 220 }, cb: { x, y in 16 + (x * 31 + y * 3) % 225 }, cr: { x, y in 16 + (x * 5 + y * 29) % 225 })
        let px = try rgba8(CIImage(planarBuffer: b))
        var worst = 0.0
        for y in 0..<16 {
            for x in 0..<16 {
                let e = referenceRGB(sample(b, plane: 0, x, y), sample(b, plane: 1, x, y), sample(b, plane: 2, x, y), kr: kr, kb: kb)
                let g = px.rgb(x, y)
                worst = max(worst, abs(Double(g.0) - e.0), abs(Double(g.1) - e.1), abs(Double(g.2) - e.2))
            }
        }
        #expect(worst <= 0.51 + 1e-9, "worst \(worst) levels")
    }

    @Test func fullRangeAndIdentity() throws {
        // JPEG-style full range: Y=128, Cb=Cr=128 is mid grey 128.
        let full = try planar(4, 4, CIYCbCrFormat(subsampling: .yuv444, matrix: .itu601, range: .full), y: { _, _ in 128 }, cb: { _, _ in 128 }, cr: { _, _ in 128 })
        #expect(try rgba8(CIImage(planarBuffer: full)).rgb(1, 1) == (128, 128, 128))
        // Planes G, B, R.
        let gbr = try planar(4, 4, CIYCbCrFormat(subsampling: .yuv444, matrix: .identity, range: .full), y: { _, _ in 10 }, cb: { _, _ in 20 }, cr: { _, _ in 30 })
        #expect(try rgba8(CIImage(planarBuffer: gbr)).rgb(2, 2) == (30, 10, 20))
    }

    @Test func chromaIsUpsampledAtItsLocation() throws {
        // 4:2:0, 8x2: chroma columns 0..3, Cr rising 100, 140, 180, 220 (grey luma).
        func buffer(_ loc: CIYCbCrFormat.ChromaLocation) throws -> CIPlanarImageBuffer {
            try planar(
                8, 2, CIYCbCrFormat(subsampling: .yuv420, matrix: .identity, range: .full, chromaLocation: loc),
                y: { _, _ in 0 }, cb: { _, _ in 0 }, cr: { x, _ in 100 + 40 * x })
        }
        // identity: Cr is red. Left siting: even columns sit on a sample, odd ones halfway.
        let left = try rgba8(CIImage(planarBuffer: buffer(.left)))
        #expect((0..<8).map { left.rgb($0, 0).0 } == [100, 120, 140, 160, 180, 200, 220, 220])
        // Centred: a quarter and three quarters between samples.
        let center = try rgba8(CIImage(planarBuffer: buffer(.center)))
        #expect((0..<8).map { center.rgb($0, 0).0 } == [100, 110, 130, 150, 170, 190, 210, 220])
    }

    @Test func writingAveragesChromaAndRoundTrips() throws {
        // Read 4:4:4 with random codes, write 4:4:4: the same codes (in video range, whose
        // colours are inside the RGB cube, the conversions round-trip).
        var g = SeededGenerator(0x444)
        let f = CIYCbCrFormat(subsampling: .yuv444, matrix: .itu709, range: .video)
        let src = try planar(
            32, 8, f, y: { _, _ in Int.random(in: 60...180, using: &g) }, cb: { _, _ in Int.random(in: 110...146, using: &g) },
            cr: { _, _ in Int.random(in: 110...146, using: &g) })
        let dst = try CIPlanarImageBuffer(width: 32, height: 8, format: f)
        // Through a filter (so the plane copy does not apply) that changes nothing visible.
        try CIContext().render(CIImage(planarBuffer: src).applyingFilter("CIColorMatrix"), to: dst)
        var worst = 0
        for plane in 0..<3 { for y in 0..<8 { for x in 0..<32 { worst = max(worst, abs(sample(src, plane: plane, x, y) - sample(dst, plane: plane, x, y))) } } }
        #expect(worst <= 1)
        // 4:2:0: each chroma sample is the mean of its 2x2 block's (a red/blue checker of 2x2
        // blocks keeps every block's chroma exactly).
        let f420 = CIYCbCrFormat(subsampling: .yuv420, matrix: .itu601, range: .video)
        let out = try CIPlanarImageBuffer(width: 8, height: 4, format: f420)
        let red = CIImage(color: CIColor(red: 1, green: 0, blue: 0)).cropped(to: CGRect(x: 0, y: 0, width: 8, height: 4))
        try CIContext().render(red, to: out)
        // BT.601 red: Y = 16 + 219 * 0.299 = 81.5, Cr = 128 + 112 = 240, Cb = 128 - 112 * 0.299 / 0.886 = 90.2.
        #expect(abs(sample(out, plane: 0, 3, 2) - 82) <= 1)
        #expect(sample(out, plane: 2, 1, 1) == 240)
        #expect(abs(sample(out, plane: 1, 2, 0) - 90) <= 1)
    }

    @Test func aLUTFoldsIntoTheReadAndTheWrite() throws {
        // The same LUT rendered into a planar buffer (conversions folded away: the codes go
        // straight through the table) and through RGBAf (linear light, then encoded): equal.
        var g = SeededGenerator(0x420)
        let f = CIYCbCrFormat(subsampling: .yuv420, matrix: .itu709, range: .video)
        let src = try planar(
            16, 8, f, y: { _, _ in Int.random(in: 16...235, using: &g) }, cb: { _, _ in Int.random(in: 16...240, using: &g) },
            cr: { _, _ in Int.random(in: 16...240, using: &g) })
        let lut = try LUT(
            size: 9,
            entries: (0..<(9 * 9 * 9)).map { i -> SIMD3<Float> in
                let r = Float(i % 9) / 8, gg = Float((i / 9) % 9) / 8, b = Float(i / 81) / 8
                return SIMD3(r * r, gg, 1 - b * 0.5)
            })
        let graded = CIImage(planarBuffer: src).applyingLUT(lut)
        let folded = try CIPlanarImageBuffer(width: 16, height: 8, format: f)
        try CIContext().render(graded, to: folded)
        let viaRGB = try CIPlanarImageBuffer(width: 16, height: 8, format: f)
        // A linear-light matrix between the stages keeps the conversions from folding.
        let unfolded = CIImage(planarBuffer: src).applyingFilter("CIColorMatrix").applyingLUT(lut).applyingFilter("CIColorMatrix")
        try CIContext().render(unfolded, to: viaRGB)
        var worst = 0
        for plane in 0..<3 {
            for y in 0..<folded.planes[plane].height {
                for x in 0..<folded.planes[plane].width {
                    worst = max(worst, abs(sample(folded, plane: plane, x, y) - sample(viaRGB, plane: plane, x, y)))
                }
            }
        }
        #expect(worst <= 1)
    }

    @Test func tenBitSamplesKeepTheirPrecision() throws {
        // A 10-bit ramp: rendered at 16 bits it keeps 4 steps per 8-bit level.
        let f = CIYCbCrFormat(subsampling: .yuv444, bitDepth: 10, matrix: .itu709, range: .video)
        let b = try planar(256, 1, f, y: { x, _ in 64 + x }, cb: { _, _ in 512 }, cr: { _, _ in 512 })
        let r = try CIContext().renderToData(
            CIImage(planarBuffer: b), from: CGRect(x: 0, y: 0, width: 256, height: 1), format: .RGBA16,
            colorSpace: sRGB, premultiplied: false)
        let v = r.data.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        let greens = stride(from: 1, to: v.count, by: 4).map { Int(v[$0]) }
        #expect(Set(greens).count == 256)
        for x in 0..<256 {
            let expected = Double(x) / 876 * 65535
            #expect(abs(Double(greens[x]) - expected) < 2, "x \(x): \(greens[x]) vs \(expected)")
        }
    }

    @Test func pqAndHLGDecodeToLinearLight() throws {
        // Neutral 10-bit full-range samples: R'G'B' = E'. PQ's E' for 203 cd/m2 is about 0.5806;
        // the working value there is 1.0. HLG's 0.75 is reference white 203 cd/m2 (BT.2408).
        func linear(_ transfer: CIYCbCrFormat.TransferFunction, code: Int) throws -> Float {
            let f = CIYCbCrFormat(subsampling: .yuv444, bitDepth: 10, matrix: .itu2020, range: .full, transferFunction: transfer, primaries: .itu2020)
            let b = try planar(2, 2, f, y: { _, _ in code }, cb: { _, _ in 512 }, cr: { _, _ in 512 })
            let r = try CIContext().renderToData(
                CIImage(planarBuffer: b), from: CGRect(x: 0, y: 0, width: 2, height: 2), format: .RGBAf,
                colorSpace: CGColorSpace(name: CGColorSpace.extendedLinearSRGB))
            return r.data.withUnsafeBytes { $0.load(as: Float.self) }
        }
        func pq(_ e: Double) -> Double {
            let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128, c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
            let p = pow(e, 1 / m2)
            return pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1) * 10000 / 203
        }
        for code in [200, 594, 800] {
            let e = Double(code) / 1023
            #expect(abs(Double(try linear(.pq, code: code)) - pq(e)) < 0.002 * max(1, pq(e)), "PQ code \(code)")
        }
        #expect(abs(try linear(.pq, code: 594) - 1) < 0.01)
        let hlgWhite = try linear(.hlg, code: 767)
        #expect(abs(hlgWhite - 1) < 0.03, "HLG 75% is reference white: \(hlgWhite)")
    }

    @Test func badBuffersAreTypedErrors() {
        #expect(throws: CIPlanarBufferError.invalidSize(width: 0, height: 4)) { try CIPlanarImageBuffer(width: 0, height: 4, format: CIYCbCrFormat()) }
        #expect(throws: CIPlanarBufferError.unsupportedBitDepth(7)) { try CIPlanarImageBuffer(width: 4, height: 4, format: CIYCbCrFormat(bitDepth: 7)) }
        let p = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 8)
        defer { p.deallocate() }
        #expect(throws: CIPlanarBufferError.planeTooSmall(plane: 0, bytesPerRow: 2, needed: 4)) {
            try CIPlanarImageBuffer(width: 4, height: 2, format: CIYCbCrFormat(subsampling: .yuv444), planes: [(p, 2), (p, 4), (p, 4)], release: nil)
        }
        #expect(throws: CIPlanarBufferError.wrongPlaneCount(1)) {
            try CIPlanarImageBuffer(width: 4, height: 2, format: CIYCbCrFormat(), planes: [(p, 4)], release: nil)
        }
    }
}
