import CCyanotypeYCbCr
internal import CyanotypeCodecs
import Foundation

/// The arithmetic of one `CIYCbCrFormat`: codes <-> R'G'B' as one affine map each way, and
/// where chroma samples sit. Shared by the source node and the writer.
struct YCbCrCoefficients: Sendable {
    /// R'G'B' = y * luma + cb * blue + cr * red + bias (codes in, 0...1 values out; w of bias is 1).
    let luma: SIMD4<Float>, blue: SIMD4<Float>, red: SIMD4<Float>, bias: SIMD4<Float>
    /// Codes = dot(weights, R'G'B') + offset (x: Y, y: Cb, z: Cr rows).
    let toY: SIMD4<Float>, toCb: SIMD4<Float>, toCr: SIMD4<Float>
    let offsets: SIMD4<Float>
    let maxCode: Float
    /// Chroma sample position in luma units: x = 2j + offX, y = 2k + offY (subsampled axes).
    let offX: Float, offY: Float

    /// The read map for the C row loop: luma, blue, red, bias (16 floats).
    let readCoefficients: [Float]
    /// The write maps for the C row loops: toY r g b, offset, max; and toCb r g b, offset,
    /// toCr r g b, offset, max.
    let lumaCoefficients: [Float]
    let chromaCoefficients: [Float]

    init(_ f: CIYCbCrFormat) {
        let n = f.bitDepth
        let scale = Float(1 << (n - 8))
        let maxCode = Float((1 << n) - 1)
        let yOff: Float, yRange: Float, cOff: Float, cRange: Float
        switch f.range {
        case .video: yOff = 16 * scale; yRange = 219 * scale; cOff = 128 * scale; cRange = 224 * scale
        case .full: yOff = 0; yRange = maxCode; cOff = Float(1 << (n - 1)); cRange = maxCode
        }
        self.maxCode = maxCode
        if f.matrix == .identity {
            // Planes G, B, R, each coded like luma.
            luma = SIMD4(0, 1 / yRange, 0, 0)
            blue = SIMD4(0, 0, 1 / yRange, 0)
            red = SIMD4(1 / yRange, 0, 0, 0)
            bias = SIMD4(-yOff / yRange, -yOff / yRange, -yOff / yRange, 1)
            toY = SIMD4(0, yRange, 0, 0)
            toCb = SIMD4(0, 0, yRange, 0)
            toCr = SIMD4(yRange, 0, 0, 0)
            offsets = SIMD4(yOff, yOff, yOff, 0)
        } else {
            let (kr, kb): (Float, Float)
            switch f.matrix {
            case .itu601: (kr, kb) = (0.299, 0.114)
            case .itu2020: (kr, kb) = (0.2627, 0.0593)
            default: (kr, kb) = (0.2126, 0.0722)
            }
            let kg = 1 - kr - kb
            luma = SIMD4(1, 1, 1, 0) / yRange
            blue = SIMD4(0, -2 * kb * (1 - kb) / kg, 2 * (1 - kb), 0) / cRange
            red = SIMD4(2 * (1 - kr), -2 * kr * (1 - kr) / kg, 0, 0) / cRange
            var b = -yOff * luma - cOff * (blue + red)
            b.w = 1
            bias = b
            toY = SIMD4(kr, kg, kb, 0) * yRange
            toCb = SIMD4(-kr, -kg, 1 - kb, 0) / (2 * (1 - kb)) * cRange
            toCr = SIMD4(1 - kr, -kg, -kb, 0) / (2 * (1 - kr)) * cRange
            offsets = SIMD4(yOff, cOff, cOff, 0)
        }
        readCoefficients = [luma, blue, red, bias].flatMap { [$0.x, $0.y, $0.z, $0.w] }
        lumaCoefficients = [toY.x, toY.y, toY.z, offsets.x, maxCode]
        chromaCoefficients = [toCb.x, toCb.y, toCb.z, offsets.y, toCr.x, toCr.y, toCr.z, offsets.z, maxCode]
        switch f.chromaLocation {
        case .left: (offX, offY) = (0, 0.5)
        case .center: (offX, offY) = (0.5, 0.5)
        case .topLeft: (offX, offY) = (0, 0)
        case .top: (offX, offY) = (0.5, 0)
        case .bottomLeft: (offX, offY) = (0, 1)
        case .bottom: (offX, offY) = (0.5, 1)
        }
    }
}

/// BT.2020 linear RGB -> linear sRGB (BT.709 primaries, D65).
let bt2020ToSRGB = ColorMatrix(rgb: Primaries.bt2020.matrixToSRGB())
/// Linear sRGB -> BT.2020 linear RGB.
let sRGBToBT2020 = ColorMatrix(rgb: invert3x3(Primaries.bt2020.matrixToSRGB()))

/// PQ and HLG signal -> linear tables (16384 cells over 0...1, interpolated): 203 cd/m2 is 1.0
/// for PQ; HLG's table is scene light 0...1 (the OOTF is applied per pixel).
final class HDRCurveTables: @unchecked Sendable {
    static let cells = 16384
    static let pq = HDRCurveTables { e in
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let p = pow(e, 1 / m2)
        return pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1) * 10000 / 203
    }
    static let hlg = HDRCurveTables { e in
        let a = 0.17883277, b = 1 - 4 * a, c = 0.5 - a * log(4 * a)
        return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
    }
    let table: UnsafeMutablePointer<Float>
    private init(_ f: (Double) -> Double) {
        let n = HDRCurveTables.cells
        table = .allocate(capacity: n + 2)
        for i in 0...(n + 1) { table[i] = Float(f(min(Double(i) / Double(n), 1))) }
    }
    @inline(__always) func lookup(_ v: SIMD4<Float>) -> SIMD4<Float> {
        curveLookup(table, v * Float(HDRCurveTables.cells))
    }
}

/// A planar Y'CbCr buffer as a pixel source (`CIImage(planarBuffer:)`): each row is converted
/// as it is read, chroma upsampled in the same pass. With `encoded`, rows stay sRGB-encoded
/// R'G'B' (the buffer seen through a "to sRGB" conversion, which the optimiser folds into the
/// read: `sRGBEncodedSource`).
final class YCbCrSourceNode: RecipeNode, SRGBEncodedSource, @unchecked Sendable {
    let buffer: CIPlanarImageBuffer
    let encoded: Bool
    let k: YCbCrCoefficients

    init(buffer: CIPlanarImageBuffer, encoded: Bool) {
        self.buffer = buffer
        self.encoded = encoded
        k = YCbCrCoefficients(buffer.format)
        super.init(extent: CGRect(x: 0, y: 0, width: buffer.width, height: buffer.height), inputs: [], traits: .pixelSource)
    }

    /// Whether the rows, before the transfer function, are the sRGB-encoded working colour.
    var foldsWithSRGB: Bool { buffer.format.transferFunction == .sdr && buffer.format.primaries == .itu709 }

    /// The same frame read as its R'G'B' (sRGB-encoded values), when SDR BT.709 colour is.
    func sRGBEncodedSource() -> RecipeNode? {
        guard foldsWithSRGB, !encoded else { return nil }
        return YCbCrSourceNode(buffer: buffer, encoded: true)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        let f = buffer.format
        let deep = f.bitDepth > 8
        let (sx, sy) = f.chromaShift
        let p0 = buffer.planes[0], p1 = buffer.planes[1], p2 = buffer.planes[2]
        let cw = p1.width, ch = p1.height
        let n = rect.width
        let x0 = rect.minX
        let k = self.k
        let decode = ev.colorManaged && !encoded
        // Chroma columns this run reads, with one neighbour each side (edges repeat).
        let jLo = sx == 0 ? x0 : Int(((Float(x0) - k.offX) * 0.5).rounded(.down))
        let jHi = sx == 0 ? x0 + n - 1 : Int(((Float(x0 + n - 1) - k.offX) * 0.5).rounded(.down)) + 1
        let span = jHi - jLo + 1
        // Per parity of x: the chroma index offset and the weight of the next sample.
        let q0 = (0 - k.offX) * 0.5, q1 = (1 - k.offX) * 0.5
        let d0 = Int(q0.rounded(.down)), d1 = Int(q1.rounded(.down))
        let w0 = q0 - Float(d0), w1 = q1 - Float(d1)
        withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * span) { tmp in
            let cb = tmp.baseAddress!, cr = cb + span
            k.readCoefficients.withUnsafeBufferPointer { coef in
                for r in 0..<out.height {
                    let ty = buffer.height - 1 - (rect.minY + r)
                    var k0 = ty, k1 = ty
                    var wv: Float = 0
                    if sy == 1 {
                        let pos = (Float(ty) - k.offY) * 0.5
                        let fl = pos.rounded(.down)
                        wv = pos - fl
                        k0 = min(max(Int(fl), 0), ch - 1)
                        k1 = min(max(Int(fl) + 1, 0), ch - 1)
                    }
                    let dst = UnsafeMutableRawPointer(out.row(r)).assumingMemoryBound(to: Float.self)
                    let b0 = p1.baseAddress + k0 * p1.bytesPerRow, b1 = p1.baseAddress + k1 * p1.bytesPerRow
                    let r0 = p2.baseAddress + k0 * p2.bytesPerRow, r1 = p2.baseAddress + k1 * p2.bytesPerRow
                    let yRow = p0.baseAddress + ty * p0.bytesPerRow
                    if deep {
                        cy_ycc_vertical_u16(b0.assumingMemoryBound(to: UInt16.self), b1.assumingMemoryBound(to: UInt16.self), wv, jLo, span, cw, cb)
                        cy_ycc_vertical_u16(r0.assumingMemoryBound(to: UInt16.self), r1.assumingMemoryBound(to: UInt16.self), wv, jLo, span, cw, cr)
                        cy_ycc_to_rgba_u16(
                            yRow.assumingMemoryBound(to: UInt16.self), cb, cr, x0, n, Int32(sx), jLo,
                            Int32(d0), w0, Int32(d1), w1, coef.baseAddress, dst)
                    } else {
                        cy_ycc_vertical_u8(b0.assumingMemoryBound(to: UInt8.self), b1.assumingMemoryBound(to: UInt8.self), wv, jLo, span, cw, cb)
                        cy_ycc_vertical_u8(r0.assumingMemoryBound(to: UInt8.self), r1.assumingMemoryBound(to: UInt8.self), wv, jLo, span, cw, cr)
                        cy_ycc_to_rgba_u8(
                            yRow.assumingMemoryBound(to: UInt8.self), cb, cr, x0, n, Int32(sx), jLo,
                            Int32(d0), w0, Int32(d1), w1, coef.baseAddress, dst)
                    }
                    guard decode else { continue }
                    let row = out.row(r)
                    if f.transferFunction != .sdr {
                        decodeHDR(row, n)
                    } else {
                        let table = SRGBCurveTables.shared.decode
                        for i in 0..<n { row[i] = decodeSRGB(row[i], table) }
                        if f.primaries == .itu2020 {
                            let m = bt2020ToSRGB
                            for i in 0..<n { row[i] = m.apply(row[i]) }
                        }
                    }
                }
            }
        }
    }

    /// PQ or HLG R'G'B' (BT.2020 primaries unless tagged BT.709) -> linear working colour.
    private func decodeHDR(_ dst: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int) {
        let f = buffer.format
        let m: ColorMatrix? = f.primaries == .itu2020 ? bt2020ToSRGB : nil
        if f.transferFunction == .pq {
            let t = HDRCurveTables.pq
            for i in 0..<n {
                var v = t.lookup(dst[i])
                v.w = 1
                dst[i] = m.map { $0.apply(v) } ?? v
            }
        } else {
            // BT.2100 HLG: scene light, then the display OOTF (nominal peak 1000 cd/m2,
            // system gamma 1.2) on luminance in the signal's own primaries.
            let t = HDRCurveTables.hlg
            let ky: SIMD4<Float> = f.primaries == .itu2020 ? SIMD4(0.2627, 0.6780, 0.0593, 0) : SIMD4(0.2126, 0.7152, 0.0722, 0)
            for i in 0..<n {
                var v = t.lookup(dst[i])
                let ys = (v * ky).sum()
                let gain: Float = ys > 0 ? powf(ys, 0.2) * (1000 / 203) : 0
                v = v * gain
                v.w = 1
                dst[i] = m.map { $0.apply(v) } ?? v
            }
        }
    }

    override var label: String { "planar \(buffer.width)x\(buffer.height) \(buffer.format)" + (encoded ? " (sRGB-encoded values)" : "") }
}

/// Writes working-space tiles into a planar buffer: R'G'B' (sRGB curve, buffer primaries),
/// then the matrix and range; chroma of each 2x2 (4:2:0) or 2x1 (4:2:2) block is the average
/// of its pixels. Each chroma sample is written by the tile holding its block's first luma
/// row and column, so tiles never race; renderer tiles have even sides, so blocks are whole.
/// SDR BT.709 output stores sRGB-encoded values, so the optimiser folds a trailing "from
/// sRGB" conversion into the write (`Optimizer.foldSRGBIntoWrite`) as for an 8-bit bitmap.
struct YCbCrWriter: RenderDestination, @unchecked Sendable {
    let buffer: CIPlanarImageBuffer
    let bounds: PixelRect
    /// The tiles hold sRGB-encoded values already (a folded conversion, or no colour management).
    let encodedInput: Bool
    let k: YCbCrCoefficients

    init(buffer: CIPlanarImageBuffer, bounds: PixelRect, encodedInput: Bool) {
        self.buffer = buffer; self.bounds = bounds; self.encodedInput = encodedInput
        k = YCbCrCoefficients(buffer.format)
    }

    /// Whether tiles in the working space are encoded with the sRGB curve in sRGB primaries.
    var storesSRGBIntegers: Bool {
        !encodedInput && buffer.format.transferFunction == .sdr && buffer.format.primaries == .itu709
    }
    /// The same writer taking tiles of sRGB-encoded values.
    func unmanaged() -> YCbCrWriter? { YCbCrWriter(buffer: buffer, bounds: bounds, encodedInput: true) }

    func write(_ tile: TileBuffer, _ rect: PixelRect) {
        let deep = buffer.format.bitDepth > 8
        let (sx, sy) = buffer.format.chromaShift
        let p0 = buffer.planes[0], p1 = buffer.planes[1], p2 = buffer.planes[2]
        let n = tile.width
        let tx0 = rect.minX - bounds.minX
        let tyTop = bounds.maxY - rect.maxY, tyBottom = bounds.maxY - 1 - rect.minY
        let w = buffer.width, h = buffer.height
        let to2020 = buffer.format.primaries == .itu2020
        let k = self.k
        k.lumaCoefficients.withUnsafeBufferPointer { lumaCoef in
            k.chromaCoefficients.withUnsafeBufferPointer { chromaCoef in
                /// The tile row holding buffer row `ty`, converted in place to R'G'B' in 0...1, and its luma.
                func prepare(_ ty: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
                    let row = tile.row(bounds.maxY - 1 - ty - rect.minY)
                    let flat = UnsafeMutableRawPointer(row).assumingMemoryBound(to: Float.self)
                    if !encodedInput {
                        let table = SRGBCurveTables.shared.encode
                        for i in 0..<n {
                            var v = row[i]
                            if to2020 { v = sRGBToBT2020.apply(SIMD4(v.x, v.y, v.z, 0)) }
                            v = v.replacing(with: 0, where: v .< 0)
                            v = v.replacing(with: 1, where: v .> 1)
                            row[i] = encodeSRGB(v, table)
                        }
                    } else {
                        cy_rgba_clamp01(flat, n)
                    }
                    let yRow = p0.baseAddress + ty * p0.bytesPerRow
                    if deep {
                        cy_rgba_to_luma_u16(flat, n, lumaCoef.baseAddress, yRow.assumingMemoryBound(to: UInt16.self) + tx0)
                    } else {
                        cy_rgba_to_luma_u8(flat, n, lumaCoef.baseAddress, yRow.assumingMemoryBound(to: UInt8.self) + tx0)
                    }
                    return row
                }
                /// Chroma row `kRow` from the pixel rows given (one or two).
                func chroma(_ kRow: Int, _ a: UnsafeMutablePointer<SIMD4<Float>>, _ b: UnsafeMutablePointer<SIMD4<Float>>?) {
                    let cbRow = p1.baseAddress + kRow * p1.bytesPerRow, crRow = p2.baseAddress + kRow * p2.bytesPerRow
                    func blocks(_ first: Int, _ count: Int, _ pixel: Int) {
                        guard count > 0 else { return }
                        let fa = UnsafeRawPointer(a + pixel).assumingMemoryBound(to: Float.self)
                        let fb = b.map { UnsafeRawPointer($0 + pixel).assumingMemoryBound(to: Float.self) }
                        if deep {
                            cy_rgba_to_chroma_u16(
                                fa, fb, count, Int32(sx), chromaCoef.baseAddress,
                                cbRow.assumingMemoryBound(to: UInt16.self) + first, crRow.assumingMemoryBound(to: UInt16.self) + first)
                        } else {
                            cy_rgba_to_chroma_u8(
                                fa, fb, count, Int32(sx), chromaCoef.baseAddress,
                                cbRow.assumingMemoryBound(to: UInt8.self) + first, crRow.assumingMemoryBound(to: UInt8.self) + first)
                        }
                    }
                    if sx == 0 { blocks(tx0, n, 0); return }
                    // Chroma columns whose first luma column lies in this tile: whole pairs in C,
                    // a last single column (odd widths, odd tile edges) here.
                    let jFirst = (tx0 + 1) >> 1
                    let jEnd = (tx0 + n + 1) >> 1
                    let pairsEnd = max(jFirst, min(jEnd, min(tx0 + n, w) >> 1))
                    blocks(jFirst, pairsEnd - jFirst, 2 * jFirst - tx0)
                    for j in pairsEnd..<jEnd {
                        let i = 2 * j - tx0
                        var s = a[i]
                        if let b { s = (s + b[i]) * 0.5 }
                        let cbv = min(max((s * k.toCb).sum() + k.offsets.y + 0.5, 0), k.maxCode)
                        let crv = min(max((s * k.toCr).sum() + k.offsets.z + 0.5, 0), k.maxCode)
                        if deep {
                            cbRow.assumingMemoryBound(to: UInt16.self)[j] = UInt16(cbv)
                            crRow.assumingMemoryBound(to: UInt16.self)[j] = UInt16(crv)
                        } else {
                            cbRow.assumingMemoryBound(to: UInt8.self)[j] = UInt8(cbv)
                            crRow.assumingMemoryBound(to: UInt8.self)[j] = UInt8(crv)
                        }
                    }
                }
                var ty = tyTop
                while ty <= tyBottom {
                    if sy == 0 {
                        chroma(ty, prepare(ty), nil)
                        ty += 1
                    } else if ty & 1 == 1 {
                        // The block's first row belongs to the tile above: luma only.
                        _ = prepare(ty)
                        ty += 1
                    } else {
                        let a = prepare(ty)
                        let b = ty + 1 <= tyBottom && ty + 1 < h ? prepare(ty + 1) : nil
                        chroma(ty >> 1, a, b)
                        ty += 2
                    }
                }
            }
        }
    }
}

extension YCbCrWriter {
    /// Copies `source`'s planes into the buffer as they are, row by row (the render's
    /// pass-through, `Optimizer.passThrough`: same format and size).
    func copyPlanes(from source: YCbCrSourceNode) {
        let dst = buffer
        let bps = dst.format.bytesPerSample
        for (s, d) in zip(source.buffer.planes, dst.planes) {
            for row in 0..<d.height {
                (d.baseAddress + row * d.bytesPerRow).copyMemory(from: s.baseAddress + row * s.bytesPerRow, byteCount: d.width * bps)
            }
        }
    }
}

/// A JPEG's upright Y'CbCr planes (`JPEGPlanes`) read as RGBA8 rows: the pixels libjpeg's
/// whole decode gives (fancy chroma upsampling, its fixed-point YCbCr -> RGB), turned. The
/// planes were turned as they decoded, so each row is read in order, left to right; libjpeg's
/// rounding depends on where a pixel sits in the stored picture, which is worked out here.
struct JPEGPlaneRows: PixelRowSource, @unchecked Sendable {
    let planes: JPEGPlanes
    /// The upright subsampling and, per upright axis, whether it runs against the stored one.
    private let sx: Int, sy: Int, flipX: Bool, flipY: Bool, swaps: Bool
    /// 1 where an axis is flipped and odd: pixel x pairs with chroma column (x + 1) >> 1.
    private let phaseX: Int, phaseY: Int

    init(_ planes: JPEGPlanes) {
        self.planes = planes
        let o = planes.orientation
        (sx, sy) = planes.chromaShift
        swaps = o >= 5
        flipX = [2, 3, 6, 7].contains(o)
        flipY = [3, 4, 7, 8].contains(o)
        phaseX = sx == 1 && flipX && planes.width % 2 == 1 ? 1 : 0
        phaseY = sy == 1 && flipY && planes.height % 2 == 1 ? 1 : 0
    }

    func read(row: Int, from: Int, count: Int, into: UnsafeMutableRawPointer) {
        let p = planes
        convert(row: row, count: count) { c0, c1, farWeight, biasEven, biasOdd, scratch in
            cy_jpeg_row_rgba8(
                p.luma + row * p.lumaRowBytes, p.cb + c0, p.cr + c0, p.cb + c1, p.cr + c1, farWeight, from, count, Int32(sx),
                p.fancyUpsampling ? 1 : 0, Int32(phaseX), p.chromaWidth, biasEven, biasOdd, scratch, into.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Pixels `from..<from + count` of upright row `row` (from the top) as interleaved 8-bit
    /// Y'CbCr, 3 bytes a pixel: the luma and the chroma libjpeg's upsampling gives, not
    /// converted (what a JPEG re-encoded from its planes is given).
    func readYCbCr(row: Int, from: Int, count: Int, into: UnsafeMutableRawPointer) {
        let p = planes
        convert(row: row, count: count) { c0, c1, farWeight, biasEven, biasOdd, scratch in
            cy_jpeg_row_ycc8(
                p.luma + row * p.lumaRowBytes, p.cb + c0, p.cr + c0, p.cb + c1, p.cr + c1, farWeight, from, count, Int32(sx),
                p.fancyUpsampling ? 1 : 0, Int32(phaseX), p.chromaWidth, biasEven, biasOdd, scratch, into.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The upsampled chroma alone of those pixels (as `readYCbCr` gives it), into rows of a
    /// full-size Cb and Cr plane.
    func readChroma(row: Int, from: Int, count: Int, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>) {
        let p = planes
        convert(row: row, count: count) { c0, c1, farWeight, biasEven, biasOdd, scratch in
            cy_jpeg_row_chroma8(
                p.cb + c0, p.cr + c0, p.cb + c1, p.cr + c1, farWeight, from, count, Int32(sx), p.fancyUpsampling ? 1 : 0, Int32(phaseX),
                p.chromaWidth, biasEven, biasOdd, scratch, cb, cr)
        }
    }

    /// Runs `kernel` with the chroma rows (byte offsets of the nearest and next nearest into
    /// the chroma planes) and rounding libjpeg's upsampling uses at upright row `row`, and
    /// scratch for `count` pixels.

    /// One row through `kernel` (`cy_jpeg_row_rgba8` or `cy_jpeg_row_ycc8`), given the chroma
    /// rows and rounding libjpeg uses at this upright row.
    private func convert(
        row: Int, count: Int,
        with kernel: (_ c0: Int, _ c1: Int, _ farWeight: Int32, _ biasEven: Int32, _ biasOdd: Int32, _ scratch: UnsafeMutablePointer<Int16>) -> Void
    ) {
        let p = planes
        // The chroma rows: the nearest and, for libjpeg's vertical triangle filter, the next
        // nearest (above for a pair's first row, below for its second, edges repeated).
        var near = row, far = row, farWeight: Int32 = 0
        let qy = (row + phaseY) & 1
        if sy == 1 {
            near = (row + phaseY) >> 1
            if p.fancyUpsampling {
                far = min(max(near + (qy == 1 ? 1 : -1), 0), p.chromaHeight - 1)
                farWeight = 1
            } else {
                far = near
            }
        }
        // The stored parity of a pixel along an upright axis, from its place in its pair.
        let storedX = { (q: Int) in flipX ? 1 - q : q }
        let storedY = flipY ? 1 - qy : qy
        var biasEven: Int32 = 0, biasOdd: Int32 = 0
        if p.fancyUpsampling {
            switch (sx, sy) {
            case (1, 1):
                // libjpeg's 4:2:0 filter adds 8 or 7 by the stored column's parity.
                if swaps {
                    (biasEven, biasOdd) = (Int32(8 - storedY), Int32(8 - storedY))
                } else {
                    (biasEven, biasOdd) = (Int32(8 - storedX(0)), Int32(8 - storedX(1)))
                }
            case (1, 0): (biasEven, biasOdd) = (Int32(4 * (1 + storedX(0))), Int32(4 * (1 + storedX(1))))
            case (0, 1): (biasEven, biasOdd) = (Int32(4 * (1 + storedY)), Int32(4 * (1 + storedY)))
            default: break
            }
        }
        let scratchBytes = cy_jpeg_row_scratch_bytes(count)
        withUnsafeTemporaryAllocation(byteCount: scratchBytes, alignment: 16) { scratch in
            kernel(
                near * p.chromaRowBytes, far * p.chromaRowBytes, farWeight, biasEven, biasOdd,
                scratch.baseAddress!.assumingMemoryBound(to: Int16.self))
        }
    }
}
