import CCyanotypeKernels

/// A render's destination as the optimiser sees it (`Optimizer.foldSRGBIntoWrite`): whether
/// it stores sRGB-encoded values, so the root's trailing "from sRGB" conversion can go, and
/// the same destination taking values already encoded. Bitmap writers and planar video
/// writers answer alike.
protocol RenderDestination: Sendable {
    /// Whether the destination stores values encoded with the sRGB curve in sRGB primaries.
    var storesSRGBIntegers: Bool { get }
    /// The same destination storing values as they are (already encoded); nil when it cannot.
    func unmanaged() -> Self?
}

/// Writes working-space tiles into caller memory in a `CIFormat`: unpremultiply, convert
/// primaries, encode the transfer function, quantise, re-premultiply when the format wants it.
/// Row 0 of the destination is the top of `bounds` (highest y), as in Core Image.
struct DestinationWriter: RenderDestination, @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let rowBytes: Int
    let bounds: PixelRect
    let format: CIFormat
    let info: CIFormat.Info
    let bytesPerPixel: Int
    let space: CGColorSpace?
    let premultiplied: Bool
    let tables: TransferTables
    /// The exact encoder of 16-bit destinations (nil for other sample types).
    let encoder16: Exact16Encoder?
    let fromSRGB: ColorMatrix?
    /// The tiles are data, not colour (a histogram's bins): each component is stored as it
    /// is, with no unpremultiplying, colour conversion or premultiplying (see
    /// `NodeTraits.producesData`).
    let asValues: Bool

    /// A writer of `format` into `base`; `asValues` stores data as it is (no colour space).
    init?(
        base: UnsafeMutableRawPointer, rowBytes: Int, bounds: PixelRect, format: CIFormat, colorSpace: CGColorSpace?, premultiplied: Bool,
        asValues: Bool = false
    ) {
        guard let info = format.info, let bpp = format.bytesPerPixel else { return nil }
        self.base = base; self.rowBytes = rowBytes; self.bounds = bounds; self.format = format; self.info = info; self.bytesPerPixel = bpp
        let colorSpace = asValues ? nil : colorSpace
        self.space = colorSpace; self.premultiplied = premultiplied || asValues; self.asValues = asValues
        tables = TransferTables.forSpace(colorSpace)
        encoder16 = info.sample == .uint16 ? Exact16Encoder.forSpace(colorSpace) : nil
        fromSRGB = colorSpace?.fromSRGBMatrix.map { ColorMatrix(rgb: $0) }
    }

    /// Whether this writer stores integers encoded with the sRGB curve in an RGB layout.
    var storesSRGBIntegers: Bool {
        guard let space, space.isSRGBPrimaries, space.transfer == .sRGB, space.model == .rgb else { return false }
        return (info.sample == .uint8 || info.sample == .uint16) && [.rgba, .bgra, .argb, .abgr, .rgbx].contains(info.layout)
    }
    /// The same destination writing to memory at `base` instead (row 0, the top, at `base`).
    func rebased(_ base: UnsafeMutableRawPointer) -> DestinationWriter? {
        DestinationWriter(base: base, rowBytes: rowBytes, bounds: bounds, format: format, colorSpace: space, premultiplied: premultiplied, asValues: asValues)
    }
    /// The same destination over `bounds` instead, its rows packed (`base` kept: a streaming
    /// render rebases it onto its band ring).
    func covering(_ bounds: PixelRect) -> DestinationWriter? {
        DestinationWriter(
            base: base, rowBytes: bounds.width * bytesPerPixel, bounds: bounds, format: format, colorSpace: space, premultiplied: premultiplied,
            asValues: asValues)
    }
    /// The same destination quantising values as they are (already encoded).
    func unmanaged() -> DestinationWriter? {
        DestinationWriter(base: base, rowBytes: rowBytes, bounds: bounds, format: format, colorSpace: nil, premultiplied: premultiplied, asValues: asValues)
    }

    func write(_ tile: TileBuffer, _ rect: PixelRect) {
        for r in 0..<tile.height {
            let y = rect.minY + r
            let row = base + (bounds.maxY - 1 - y) * rowBytes + (rect.minX - bounds.minX) * bytesPerPixel
            writeRow(tile.row(r), row, tile.width)
        }
    }

    /// Straight colour in the destination's primaries (still linear), alpha in w.
    @inline(__always) private func straight(_ p: SIMD4<Float>) -> SIMD4<Float> {
        if asValues { return p }
        let inv: Float = p.w > 0 ? 1 / p.w : 0
        var s = SIMD4(p.x * inv, p.y * inv, p.z * inv, p.w)
        if let m = fromSRGB { s = m.apply(SIMD4(s.x, s.y, s.z, 0)) + SIMD4(0, 0, 0, s.w) }
        return s
    }

    private func writeRow(_ src: UnsafeMutablePointer<SIMD4<Float>>, _ dst: UnsafeMutableRawPointer, _ n: Int) {
        let gray = info.layout == .l || info.layout == .la
        if info.sample == .uint8, let m = fromSRGB, [.rgba, .bgra, .argb, .abgr].contains(info.layout) {
            // Other primaries (Display P3, Adobe RGB): the matrix on a copy of the row (linear,
            // so on premultiplied colour as on straight; AVX2 where the CPU has it), then the
            // same encode as sRGB's (perf: the per-pixel loop below was 15% of a P3 thumbnail).
            withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: n) { row in
                guard let converted = row.baseAddress else { return }
                converted.update(from: src, count: n)
                MatrixStage(m: m, wantsUnpremultiplied: false).runStraight(converted, count: n)
                writeRGBA8(converted, dst.assumingMemoryBound(to: UInt8.self), n)
            }
            return
        }
        if info.sample == .uint8, fromSRGB == nil, [.rgba, .bgra, .argb, .abgr].contains(info.layout) {
            if tables === TransferTables.linear && (info.layout == .rgba || info.layout == .bgra) {
                writeRGBA8Values(src, dst.assumingMemoryBound(to: UInt8.self), n, bgra: info.layout == .bgra)
            } else {
                writeRGBA8(src, dst.assumingMemoryBound(to: UInt8.self), n)
            }
            return
        }
        switch info.sample {
        case .uint8:
            let d = dst.assumingMemoryBound(to: UInt8.self)
            let (ri, gi, bi, ai) = info.layout.offsets
            for i in 0..<n {
                let s = straight(src[i])
                let a = clamp01(s.w)
                var c: SIMD3<Float> = gray ? SIMD3(repeating: luminance(s)) : SIMD3(s.x, s.y, s.z)
                var e = SIMD3<UInt8>(tables.enc8(c.x), tables.enc8(c.y), tables.enc8(c.z))
                if premultiplied && !asValues && a < 1 {
                    c = SIMD3(encodeF(c.x), encodeF(c.y), encodeF(c.z)) * a
                    e = SIMD3(q8(c.x), q8(c.y), q8(c.z))
                }
                let a8 = q8(a)
                switch info.layout {
                case .rgba, .bgra, .argb, .abgr:
                    let q = d + i * 4
                    q[ri] = e.x; q[gi] = e.y; q[bi] = e.z; q[ai] = a8
                case .rgbx: let q = d + i * 4; q[0] = e.x; q[1] = e.y; q[2] = e.z; q[3] = 255
                case .r, .l: d[i] = e.x
                case .a: d[i] = a8
                case .la: d[2 * i] = e.x; d[2 * i + 1] = a8
                case .rg: d[2 * i] = e.x; d[2 * i + 1] = e.y
                }
            }
        case .uint16:
            // Exact at 16 bits: each straight colour gets the code its value rounds to on the
            // exact curve (so 16-bit sources come back as their own codes), and premultiplied
            // output multiplies those codes by the alpha code, rounded: round(c * a / 65535).
            let d = dst.assumingMemoryBound(to: UInt16.self)
            guard let enc = encoder16 else { return }
            for i in 0..<n {
                let s = straight(src[i])
                let a = clamp01(s.w)
                let c: SIMD3<Float> = gray ? SIMD3(repeating: luminance(s)) : SIMD3(s.x, s.y, s.z)
                var e = SIMD3<UInt16>(enc.encode(c.x), enc.encode(c.y), enc.encode(c.z))
                let a16 = q16(a)
                if premultiplied && !asValues && a16 < 65535 {
                    let w = SIMD3<UInt32>(truncatingIfNeeded: e) &* UInt32(a16) &+ 32767
                    e = SIMD3<UInt16>(truncatingIfNeeded: w / 65535)
                }
                switch info.layout {
                case .r, .l: d[i] = e.x
                case .a: d[i] = a16
                case .la: d[2 * i] = e.x; d[2 * i + 1] = a16
                case .rg: d[2 * i] = e.x; d[2 * i + 1] = e.y
                case .rgbx: let q = d + i * 4; q[0] = e.x; q[1] = e.y; q[2] = e.z; q[3] = 65535
                default: let q = d + i * 4; q[0] = e.x; q[1] = e.y; q[2] = e.z; q[3] = a16
                }
            }
        case .half, .float:
            let clampRange = !(space?.isExtended ?? true)
            let linearOut = space.map { $0.transfer == .linear } ?? true
            // The working values as they are: one copy per row.
            if info.sample == .float, info.layout == .rgba, premultiplied, linearOut, fromSRGB == nil {
                // Streaming stores: the destination is written once and not read back, so it
                // skips the cache (and the read-for-ownership that doubles memory traffic).
                UnsafeRawPointer(src).withMemoryRebound(to: Float.self, capacity: 4 * n) { s in
                    cyan_store_rgbaf_stream(dst.assumingMemoryBound(to: Float.self), s, n, clampRange ? 1 : 0)
                }
                return
            }
            @inline(__always) func fix(_ v: Float) -> Float { clampRange ? clamp01(v) : (v.isFinite ? v : 0) }
            @inline(__always) func pixel(_ i: Int) -> SIMD4<Float> {
                let s = straight(src[i])
                let c: SIMD3<Float> = gray ? SIMD3(repeating: luminance(s)) : SIMD3(s.x, s.y, s.z)
                let a = asValues ? s.w : clamp01(s.w)
                let e = linearOut ? SIMD3(fix(c.x), fix(c.y), fix(c.z)) : SIMD3(fix(encodeF(c.x)), fix(encodeF(c.y)), fix(encodeF(c.z)))
                return SIMD4(premultiplied && !asValues ? e * a : e, a)
            }
            switch (info.sample, info.layout) {
            case (.float, .r), (.float, .l):
                let d = dst.assumingMemoryBound(to: Float.self)
                for i in 0..<n { d[i] = pixel(i).x }
            case (.half, .r), (.half, .l):
                let d = dst.assumingMemoryBound(to: Float16.self)
                for i in 0..<n { d[i] = Float16(pixel(i).x) }
            case (.float, .a):
                let d = dst.assumingMemoryBound(to: Float.self)
                for i in 0..<n { d[i] = clamp01(src[i].w) }
            case (.half, .a):
                let d = dst.assumingMemoryBound(to: Float16.self)
                for i in 0..<n { d[i] = Float16(clamp01(src[i].w)) }
            case (.float, .la), (.float, .rg):
                let d = dst.assumingMemoryBound(to: Float.self)
                let la = info.layout == .la
                for i in 0..<n {
                    let v = pixel(i)
                    d[2 * i] = v.x; d[2 * i + 1] = la ? v.w : v.y
                }
            case (.half, .la), (.half, .rg):
                let d = dst.assumingMemoryBound(to: Float16.self)
                let la = info.layout == .la
                for i in 0..<n {
                    let v = pixel(i)
                    d[2 * i] = Float16(v.x); d[2 * i + 1] = Float16(la ? v.w : v.y)
                }
            case (.float, .rgbx):
                let d = dst.assumingMemoryBound(to: SIMD4<Float>.self)
                for i in 0..<n { var v = pixel(i); v.w = 1; d[i] = v }
            case (.float, _):
                let d = dst.assumingMemoryBound(to: SIMD4<Float>.self)
                for i in 0..<n { d[i] = pixel(i) }
            default:
                let d = dst.assumingMemoryBound(to: Float16.self)
                let x = info.layout == .rgbx
                for i in 0..<n {
                    let v = pixel(i)
                    d[4 * i] = Float16(v.x); d[4 * i + 1] = Float16(v.y); d[4 * i + 2] = Float16(v.z); d[4 * i + 3] = x ? 1 : Float16(v.w)
                }
            }
        }
    }

    /// The common case, kept tight: 4-channel 8-bit in sRGB-like primaries. Opaque pixels go
    /// straight through the table; others are unpremultiplied first.
    private func writeRGBA8(_ src: UnsafeMutablePointer<SIMD4<Float>>, _ d: UnsafeMutablePointer<UInt8>, _ n: Int) {
        let (ri, gi, bi, ai) = info.layout.offsets
        let table = tables.encode8
        // In C (sqrtps, one rounding for three channels: Swift's clamps and square roots here
        // compiled to per-lane branches and sqrtss); translucent pixels of a premultiplied
        // output, which need the exact curve, are done below.
        let left = UnsafeRawPointer(src).withMemoryRebound(to: Float.self, capacity: 4 * n) { s in
            cyan_encode_rgba8(d, s, n, table, Int32(ri), Int32(gi), Int32(bi), Int32(ai), premultiplied ? 1 : 0)
        }
        if left == 0 { return }
        // Translucent pixels of a premultiplied output: the exact curve on straight colour,
        // then premultiplied.
        for i in 0..<n {
            let p = src[i]
            let a = p.w
            guard a > 0 && a < 1 else { continue }
            let inv = 1 / a
            let q = d + i * 4
            q[ri] = q8(encodeF(clamp01(p.x * inv)) * a); q[gi] = q8(encodeF(clamp01(p.y * inv)) * a); q[bi] = q8(encodeF(clamp01(p.z * inv)) * a)
            q[ai] = q8(a)
        }
    }

    /// RGBA8 (or BGRA8) of values stored as they are (no transfer function: an unmanaged
    /// destination, or colour already encoded, see `Optimizer.foldSRGBIntoWrite`, as video
    /// frames for FFV1 are): one rounding per pixel, all four lanes at once, no table.
    private func writeRGBA8Values(_ src: UnsafeMutablePointer<SIMD4<Float>>, _ d: UnsafeMutablePointer<UInt8>, _ n: Int, bgra: Bool = false) {
        // In C with SSE2 packs: Swift's SIMD selects and lane shuffles here compiled to
        // per-lane scalar code (perf: 8% of an Instafilter export).
        UnsafeRawPointer(src).withMemoryRebound(to: Float.self, capacity: 4 * n) { s in
            if bgra { cyan_quantize_bgra8(d, s, n, premultiplied ? 0 : 1) } else { cyan_quantize_rgba8(d, s, n, premultiplied ? 0 : 1) }
        }
    }

    @inline(__always) private func encodeF(_ v: Float) -> Float { space?.encode(v) ?? v }
    @inline(__always) private func q8(_ v: Float) -> UInt8 { UInt8(clamp01(v) * 255 + 0.5) }
    @inline(__always) private func q16(_ v: Float) -> UInt16 { UInt16(clamp01(v) * 65535 + 0.5) }
    @inline(__always) private func luminance(_ s: SIMD4<Float>) -> Float { 0.2126 * s.x + 0.7152 * s.y + 0.0722 * s.z }
}
