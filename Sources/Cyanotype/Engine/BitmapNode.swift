import CCyanotypeKernels
internal import CyanotypeCodecs

/// Pixels in memory in any `CIFormat`, converted into the working space tile by tile:
/// decode the transfer function, convert primaries, premultiply.
final class BitmapNode: RecipeNode, StoredPixels, SRGBEncodedSource, @unchecked Sendable {
    /// `Data`, `[UInt8]`, `[UInt16]`...: decoded file pixels are used without a copy.
    let data: any ContiguousBytes & Sendable
    let width: Int, height: Int, bytesPerRow: Int
    let format: CIFormat
    let colorSpace: CGColorSpace?
    /// Whether colour in `data` is already premultiplied by alpha.
    let premultiplied: Bool
    let tables: TransferTables
    let toSRGB: ColorMatrix?
    /// For pixels still being decoded (top rows first): reads wait for their rows.
    let gate: RowGate?
    /// For 8/16-bit straight RGBA in an embedded profile the engine has no name for: the
    /// lcms2 conversion each row read goes through (see `SourceColor`).
    let profileTransform: ColorProfiles.RowTransform?
    /// An EXIF orientation (1...8) the stored pixels are read through: the node shows them
    /// upright (`width` x `height` are the upright size), each tile row gathered from the
    /// stored 8/16-bit pixels, so a picture decoded whole is turned without a second copy.
    let orientation: Int
    /// Where the rows come from when they are not stored as `format` (a JPEG's upright Y'CbCr
    /// planes): each tile row is made in `format` from it, and `data` is not read.
    let rowSource: (any PixelRowSource)?

    /// nil when the format is unknown or the data too short.
    init?(
        data: any ContiguousBytes & Sendable, bytesPerRow: Int, width: Int, height: Int, format: CIFormat, colorSpace: CGColorSpace?, premultiplied: Bool, origin: CGPoint = .zero,
        gate: RowGate? = nil, profileTransform: ColorProfiles.RowTransform? = nil, orientation: Int = 1,
        rowSource: (any PixelRowSource)? = nil
    ) {
        let count = rowSource == nil ? data.withUnsafeBytes { $0.count } : Int.max
        let o = (1...8).contains(orientation) && gate == nil && rowSource == nil ? orientation : 1
        // Stored rows: the upright size turned back.
        let (sw, sh) = o >= 5 ? (height, width) : (width, height)
        guard let bpp = format.bytesPerPixel, width > 0, height > 0, bytesPerRow >= sw * bpp,
            width <= PixelRect.limit, height <= PixelRect.limit,
            count >= bytesPerRow * (sh - 1) + sw * bpp
        else { return nil }
        self.orientation = o
        self.rowSource = rowSource
        self.data = data; self.width = width; self.height = height; self.bytesPerRow = bytesPerRow
        self.format = format; self.colorSpace = colorSpace; self.premultiplied = premultiplied; self.gate = gate
        // The transform reads straight RGBA of its own sample size only.
        self.profileTransform =
            profileTransform.flatMap { t in !premultiplied && format.info?.layout == .rgba && bpp == t.bytesPerPixel ? t : nil }
        // Float and half data are taken as linear values already when the space is linear.
        tables = TransferTables.forSpace(colorSpace)
        toSRGB = colorSpace?.toSRGBMatrix.map { ColorMatrix(rgb: $0) }
        super.init(extent: CGRect(x: origin.x, y: origin.y, width: CGFloat(width), height: CGFloat(height)), inputs: [], traits: .pixelSource)
    }

    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        guard let info = format.info else { out.zero(); return }
        let ext = pixelExtent
        // Rows still decoding: wait for the lowest one this tile reads (a failed decode
        // leaves the tile clear; the render reports the error).
        if let gate, !gate.wait(untilRows: ext.maxY - rect.minY) || !gate.holds(fromRow: ext.maxY - rect.maxY) {
            out.zero()
            return
        }
        let x0 = rect.minX - ext.minX
        let channels = info.channels
        let space = ev.colorManaged ? colorSpace : nil
        let tables = ev.colorManaged ? self.tables : .linear
        let toSRGB = ev.colorManaged ? self.toSRGB : nil
        let bpp = format.bytesPerPixel ?? 4
        // Turned pixels: each tile row is gathered from the stored rows first; rows from a
        // source of their own are made there.
        let gathered = orientation == 1 && rowSource == nil ? nil : UnsafeMutableRawPointer.allocate(byteCount: out.width * bpp, alignment: 16)
        defer { gathered?.deallocate() }
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            // Rows made by a row source read no stored bytes.
            let base = raw.baseAddress
            guard base != nil || rowSource != nil else { return }
            for r in 0..<out.height {
                // Row 0 of the data is the top of the image, the highest y.
                let dataRow = ext.maxY - 1 - (rect.minY + r)
                let src: UnsafeRawPointer
                var x0 = x0
                if let gathered, let rowSource {
                    rowSource.read(row: dataRow, from: x0, count: out.width, into: gathered)
                    (src, x0) = (UnsafeRawPointer(gathered), 0)
                } else if let gathered, let base {
                    gather(base, row: dataRow, from: x0, count: out.width, bpp: bpp, into: gathered)
                    (src, x0) = (UnsafeRawPointer(gathered), 0)
                } else {
                    src = UnsafeRawPointer(base! + dataRow * bytesPerRow)
                }
                let dst = out.row(r)
                let n = out.width
                if let t = profileTransform, ev.colorManaged {
                    // A profile the engine has no name for: lcms2 converts the row's samples.
                    t.run(src + x0 * t.bytesPerPixel, UnsafeMutableRawPointer(dst), count: n)
                    premultiplyRow(dst, n)
                    continue
                }
                switch info.sample {
                case .uint8 where channels == 4 && info.layout != .rgbx:
                    // The common case in one pass (C): decode through the table and premultiply.
                    let p = src.assumingMemoryBound(to: UInt8.self) + x0 * 4
                    // The identity curve (codes as values) needs no table: C divides by 255.
                    let t: UnsafeMutablePointer<Float>? = tables === TransferTables.linear ? nil : tables.decode8
                    let (ri, gi, bi, ai) = info.layout.offsets
                    let left = UnsafeMutableRawPointer(dst).withMemoryRebound(to: Float.self, capacity: 4 * n) {
                        cyan_decode_rgba8($0, p, n, t, Int32(ri), Int32(gi), Int32(bi), Int32(ai), premultiplied ? 1 : 0)
                    }
                    if left > 0 {
                        // Translucent premultiplied pixels: colour divided by alpha before the
                        // curve (which applies to straight colour), then multiplied back.
                        let k: Float = 1 / 255
                        for i in 0..<n {
                            let q = p + i * 4
                            let a8 = q[ai]
                            guard a8 != 255 && a8 != 0 else { continue }
                            let inv = 255 / Float(a8), a = Float(a8) * k
                            dst[i] = SIMD4(
                                decodeWith(space, Float(q[ri]) * k * inv) * a, decodeWith(space, Float(q[gi]) * k * inv) * a,
                                decodeWith(space, Float(q[bi]) * k * inv) * a, a)
                        }
                    }
                    // Other primaries: a linear map, so it applies to premultiplied colour alike.
                    if let m = toSRGB { for i in 0..<n { let v = dst[i]; dst[i] = m.apply(SIMD4(v.x, v.y, v.z, 0)) + SIMD4(0, 0, 0, v.w) } }
                    continue
                case .uint8:
                    let p = src.assumingMemoryBound(to: UInt8.self) + x0 * channels
                    convert8(p, dst, n, info.layout, tables, space)
                case .uint16:
                    let p = (src + x0 * channels * 2).assumingMemoryBound(to: UInt16.self)
                    convert16(p, dst, n, info.layout, tables, space)
                case .half:
                    let p = (src + x0 * channels * 2).assumingMemoryBound(to: Float16.self)
                    for i in 0..<n { dst[i] = gather(channels, info.layout) { Float(p[i * channels + $0]) } }
                    decodeFloat(dst, n, space)
                case .float where info.layout == .rgba:
                    let p = UnsafeRawPointer(src + x0 * 16)
                    for i in 0..<n { dst[i] = p.loadUnaligned(fromByteOffset: i * 16, as: SIMD4<Float>.self) }
                    // Premultiplied linear float is the working format itself: nothing to do.
                    if premultiplied && (space == nil || (space!.transfer == .linear && toSRGB == nil)) { continue }
                    decodeFloat(dst, n, space)
                case .float:
                    let p = (src + x0 * channels * 4).assumingMemoryBound(to: Float.self)
                    for i in 0..<n { dst[i] = gather(channels, info.layout) { p[i * channels + $0] } }
                    decodeFloat(dst, n, space)
                }
                if let m = toSRGB { for i in 0..<n { let v = dst[i]; dst[i] = m.apply(SIMD4(v.x, v.y, v.z, 0)) + SIMD4(0, 0, 0, v.w) } }
                // Every path above ends with straight linear colour (premultiplied data is
                // divided out before decoding, as the transfer applies to straight colour).
                premultiplyRow(dst, n)
            }
        }
    }

    /// Integer samples -> straight linear colour (premultiplied input is divided out first).
    @inline(__always) private func convert8(
        _ p: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int, _ layout: CIFormat.Layout, _ tables: TransferTables, _ space: CGColorSpace?
    ) {
        let t = tables.decode8
        let k: Float = 1 / 255
        switch layout {
        case .rgba, .bgra, .argb, .abgr:
            let (ri, gi, bi, ai) = layout.offsets
            for i in 0..<n {
                let q = p + i * 4
                let a8 = q[ai]
                if premultiplied && a8 != 255 && a8 != 0 {
                    let inv = 255 / Float(a8)
                    let r = decodeWith(space, Float(q[ri]) * k * inv)
                    let g = decodeWith(space, Float(q[gi]) * k * inv)
                    let b = decodeWith(space, Float(q[bi]) * k * inv)
                    dst[i] = SIMD4(r, g, b, Float(a8) * k)
                } else {
                    dst[i] = SIMD4(t[Int(q[ri])], t[Int(q[gi])], t[Int(q[bi])], Float(a8) * k)
                }
            }
        case .r, .l:
            for i in 0..<n { let v = t[Int(p[i])]; dst[i] = SIMD4(v, layout == .r ? 0 : v, layout == .r ? 0 : v, 1) }
        case .a:
            for i in 0..<n { dst[i] = SIMD4(0, 0, 0, Float(p[i]) * k) }
        case .la:
            for i in 0..<n { let v = t[Int(p[2 * i])]; dst[i] = SIMD4(v, v, v, Float(p[2 * i + 1]) * k) }
        case .rg:
            for i in 0..<n { dst[i] = SIMD4(t[Int(p[2 * i])], t[Int(p[2 * i + 1])], 0, 1) }
        case .rgbx:
            for i in 0..<n { let q = p + i * 4; dst[i] = SIMD4(t[Int(q[0])], t[Int(q[1])], t[Int(q[2])], 1) }
        }
    }

    @inline(__always) private func convert16(
        _ p: UnsafePointer<UInt16>, _ dst: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int, _ layout: CIFormat.Layout, _ tables: TransferTables, _ space: CGColorSpace?
    ) {
        let t = tables.decode16
        let k: Float = 1 / 65535
        switch layout {
        case .r, .l:
            for i in 0..<n { let v = t[Int(p[i])]; dst[i] = SIMD4(v, layout == .r ? 0 : v, layout == .r ? 0 : v, 1) }
        case .rgbx:
            for i in 0..<n { let q = p + i * 4; dst[i] = SIMD4(t[Int(q[0])], t[Int(q[1])], t[Int(q[2])], 1) }
        default:
            for i in 0..<n {
                let q = p + i * 4
                let a = Float(q[3]) * k
                if premultiplied && q[3] != 65535 && q[3] != 0 {
                    let inv = 1 / a
                    dst[i] = SIMD4(decodeWith(space, Float(q[0]) * k * inv), decodeWith(space, Float(q[1]) * k * inv), decodeWith(space, Float(q[2]) * k * inv), a)
                } else {
                    dst[i] = SIMD4(t[Int(q[0])], t[Int(q[1])], t[Int(q[2])], a)
                }
            }
        }
    }

    /// Copies upright row `row` (from the top), pixels `from..<from + count`, out of the
    /// stored (unturned) rows at `base` into `into`.
    private func gather(_ base: UnsafeRawPointer, row: Int, from: Int, count: Int, bpp: Int, into: UnsafeMutableRawPointer) {
        // The stored picture's size.
        let (w, h) = orientation >= 5 ? (height, width) : (width, height)
        let stride = bytesPerRow
        // Upright (X, row) <- stored (x, y): start and step in bytes as X goes up.
        let start: Int, step: Int
        switch orientation {
        case 2: (start, step) = (row * stride + (w - 1 - from) * bpp, -bpp)
        case 3: (start, step) = ((h - 1 - row) * stride + (w - 1 - from) * bpp, -bpp)
        case 4: (start, step) = ((h - 1 - row) * stride + from * bpp, bpp)
        case 5: (start, step) = (from * stride + row * bpp, stride)
        case 6: (start, step) = ((h - 1 - from) * stride + row * bpp, -stride)
        case 7: (start, step) = ((h - 1 - from) * stride + (w - 1 - row) * bpp, -stride)
        case 8: (start, step) = (from * stride + (w - 1 - row) * bpp, stride)
        default: (start, step) = (row * stride + from * bpp, bpp)
        }
        if bpp == 8 {
            for i in 0..<count { into.storeBytes(of: base.load(fromByteOffset: start + i * step, as: UInt64.self), toByteOffset: i * 8, as: UInt64.self) }
        } else {
            for i in 0..<count { into.storeBytes(of: base.load(fromByteOffset: start + i * step, as: UInt32.self), toByteOffset: i * 4, as: UInt32.self) }
        }
    }

    @inline(__always) private func decodeWith(_ space: CGColorSpace?, _ v: Float) -> Float { space?.decode(v) ?? v }

    @inline(__always) private func gather(_ channels: Int, _ layout: CIFormat.Layout, _ f: (Int) -> Float) -> SIMD4<Float> {
        switch layout {
        case .r: return SIMD4(f(0), 0, 0, 1)
        case .l: let v = f(0); return SIMD4(v, v, v, 1)
        case .a: return SIMD4(0, 0, 0, f(0))
        case .la: let v = f(0); return SIMD4(v, v, v, f(1))
        case .rg: return SIMD4(f(0), f(1), 0, 1)
        case .rgbx: return SIMD4(f(0), f(1), f(2), 1)
        default:
            let (r, g, b, a) = layout.offsets
            return SIMD4(f(r), f(g), f(b), f(a))
        }
    }

    /// Float/half data: divide out premultiplication, then decode the transfer function.
    private func decodeFloat(_ dst: UnsafeMutablePointer<SIMD4<Float>>, _ n: Int, _ space: CGColorSpace?) {
        if premultiplied { unpremultiplyRow(dst, n) }
        guard let space, space.transfer != .linear else { return }
        for i in 0..<n { let v = dst[i]; dst[i] = SIMD4(space.decode(v.x), space.decode(v.y), space.decode(v.z), v.w) }
    }

    /// nil for turned pixels and rows made from another layout: their bytes are not stored as
    /// the image shows them.
    var storedBitmap: BitmapNode? { orientation == 1 && rowSource == nil ? self : nil }
    var rowGate: RowGate? { gate }
    func sRGBEncodedSource() -> RecipeNode? { sRGBCodesAsValues() }
    override var label: String { "bitmap \(width)x\(height) \(format) \(colorSpace?.description ?? "unmanaged")" }

    /// The same pixels read as sRGB-encoded values (codes / 255 or / 65535, no transfer
    /// decoding): the bitmap seen through a "to sRGB" conversion. nil unless it holds sRGB
    /// integers in an RGB or grey layout.
    func sRGBCodesAsValues() -> BitmapNode? {
        guard let space = colorSpace, space.isSRGBPrimaries, space.transfer == .sRGB, space.model == .rgb,
            let info = format.info, info.sample == .uint8 || info.sample == .uint16,
            [.rgba, .bgra, .argb, .abgr, .rgbx, .l, .la].contains(info.layout)
        else { return nil }
        return BitmapNode(
            data: data, bytesPerRow: bytesPerRow, width: width, height: height, format: format, colorSpace: nil,
            premultiplied: premultiplied, origin: extent.origin, gate: gate, orientation: orientation, rowSource: rowSource)
    }
}

/// Rows of a bitmap made on demand from another layout than the one it shows (a JPEG's
/// upright Y'CbCr planes, `JPEGPlaneRows`), in the bitmap's format.
protocol PixelRowSource: Sendable {
    /// Writes pixels `from..<from + count` of row `row` (from the top) to `into`.
    func read(row: Int, from: Int, count: Int, into: UnsafeMutableRawPointer)
}

extension CIFormat.Layout {
    /// Byte offsets of red, green, blue and alpha within a 4-channel pixel.
    var offsets: (Int, Int, Int, Int) {
        switch self {
        case .bgra: return (2, 1, 0, 3)
        case .argb: return (1, 2, 3, 0)
        case .abgr: return (3, 2, 1, 0)
        default: return (0, 1, 2, 3)
        }
    }
}

/// Pixels already in the working space (premultiplied linear float), e.g. materialised.
final class FloatBlockNode: RecipeNode, @unchecked Sendable {
    let block: PixelBlock
    init(block: PixelBlock) {
        self.block = block
        super.init(extent: block.rect.cgRect, inputs: [], traits: .pixelSource)
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        out.copy(from: block.view(rect))
    }
    override var label: String { "float pixels \(block.rect)" }
}

/// A source decoded on first use (files). The decode runs once per node, when the optimiser
/// first asks for it before a render (`loadedSource`), and its result (pixels or error) is kept
/// as the source's own state: what a bitmap source holds from the start, not a cache. Every
/// later render of the image, on any context, reads the same decoded pixels.
final class LazySourceNode: RecipeNode, FileSource, DecodeReducible, StoredOrderSource, PlanarJPEGSource, @unchecked Sendable {
    private let load: @Sendable () throws -> RecipeNode
    private let loaded = OnceCell<Result<RecipeNode, any Error>>()
    let name: String
    /// How the file decodes at a fraction of its size, when it can.
    let reducer: DecodeReducer?
    /// The reduced sources made so far (by factor 2, 4, 8): each decodes once, as this one.
    private let reducedSources = [OnceCell<LazySourceNode>(), OnceCell<LazySourceNode>(), OnceCell<LazySourceNode>()]

    /// For a file that decodes on its thread: a decode of its own for one render (see
    /// `loadedSource(forOneRender:)`).
    private let loadForOneRender: (@Sendable () throws -> RecipeNode)?
    /// For a file turned upright from an EXIF orientation that reorders rows (3...8): that
    /// orientation and the same file in stored order.
    let storedOrder: (orientation: Int, source: RecipeNode)?
    /// For a JPEG file: its Y'CbCr planes, for a render that re-encodes them unchanged
    /// (`Optimizer.recodedPlanes`).
    let storedPlanes: StoredJPEGPlanes?

    /// `stored`: the same file in stored order, when this source applies EXIF `orientation`
    /// (3...8) to it; `storedPlanes`: a JPEG's Y'CbCr planes for an unchanged re-encode.
    init(
        extent: CGRect, name: String, reducer: DecodeReducer? = nil, load: @escaping @Sendable () throws -> RecipeNode,
        loadForOneRender: (@Sendable () throws -> RecipeNode)? = nil, orientation: Int = 1, stored: RecipeNode? = nil,
        storedPlanes: StoredJPEGPlanes? = nil
    ) {
        self.load = load
        self.loadForOneRender = loadForOneRender
        self.storedPlanes = storedPlanes
        self.name = name
        self.reducer = reducer
        storedOrder = stored.flatMap { (3...8).contains(orientation) ? (orientation, $0) : nil }
        super.init(extent: extent, inputs: [], traits: NodeTraits(isPointwise: true))
    }
    func decodeReduction(covering scaleX: Double, _ scaleY: Double) -> Int {
        reducer?.factors.first { Double($0) * scaleX <= 1 && Double($0) * scaleY <= 1 } ?? 1
    }
    func reducedSource(by factor: Int) -> RecipeNode? {
        guard let r = reducer, r.factors.contains(factor), let slot = [2: 0, 4: 1, 8: 2][factor] else { return nil }
        let f = CGFloat(factor), e = extent
        let forOneRender: (@Sendable () throws -> RecipeNode)?
        if r.streams { forOneRender = { try r.load(factor, true) } } else { forOneRender = nil }
        return reducedSources[slot].value {
            // The stored-order file decoded at the same fraction.
            let stored = storedOrder.flatMap { ($0.source as? any DecodeReducible)?.reducedSource(by: factor) }
            return LazySourceNode(
                extent: CGRect(x: e.minX / f, y: e.minY / f, width: e.width / f, height: e.height / f),
                name: "\(name) decoded at 1/\(factor)", load: { try r.load(factor, false) },
                loadForOneRender: forOneRender, orientation: storedOrder?.orientation ?? 1, stored: stored)
        }
    }
    /// The last scaled decode asked for (`scaledSource`), decoded once as this one.
    private let scaledSourceCell = OnceCell<(width: Int, height: Int, node: LazySourceNode)>()
    func scaledSource(width: Int, height: Int) -> RecipeNode? {
        guard let scaled = reducer?.scaledLoad, extent.minX == 0, extent.minY == 0 else { return nil }
        let name = name
        let make = {
            LazySourceNode(
                extent: CGRect(x: 0, y: 0, width: width, height: height), name: "\(name) decoded at \(width)x\(height)",
                load: { try scaled(width, height) })
        }
        let kept = scaledSourceCell.value { (width, height, make()) }
        return kept.width == width && kept.height == height ? kept.node : make()
    }
    /// Whether the shared decode has been made (renders for one pass make their own).
    var isLoaded: Bool { loaded.current != nil }
    /// The decoded source (decoding it on the first call).
    func source() throws -> RecipeNode {
        try loaded.value { Result { try load() } }.get()
    }
    func loadedSource(forOneRender: Bool) throws -> RecipeNode {
        // Pixels already decoded (or decoding) for earlier renders are shared; otherwise a
        // render that passes over the file once gets a decode of its own, whose rows it may
        // give back as it goes (the next render decodes again).
        if forOneRender, loaded.current == nil, let loadForOneRender { return try loadForOneRender() }
        return try source()
    }
    override func evaluate(_ rect: PixelRect, into out: TileBuffer, _ ev: Evaluator) {
        guard let s = try? source() else { out.zero(); return }
        ev.fill(s, rect, out)
    }
    override var label: String { "file \(name)" }
}
