// A streaming encode's side of a render job: the output as a ring of bands fed to an
// encoder by a thread of the job's own while tiles render the next bands, the sources
// decoding for the job alone a few bands ahead and giving their rows back behind it.

internal import CyanotypeCodecs

import Foundation

/// An encoder fed bands of RGBA rows, top first, by a streaming render, in the format of the
/// render's writer (RGBA8, or RGBA16 / RGBAf for deep TIFF and PNG); it ends the file into the
/// sink it was made with (PNG, TIFF, as it goes) or the one it is given at the end (JPEG).
protocol BandEncoder: AnyObject, Sendable {
    /// Appends `count` rows in the writer's format, `rowBytes` apart.
    func write(_ rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws(ImageFileError)
    /// Ends the file once every row is written.
    func finishStream() throws(ImageFileError)
    /// Makes the encoder take 8-bit Y'CbCr instead of its writer's format, before its first
    /// row: when `planes` and its output keeps full-size chroma, three planes 8 rows at a time
    /// (`writePlanes`; returns true), else interleaved rows (3 bytes a pixel, full-size chroma)
    /// through `write`. Asked only of encoders whose delivery says they can
    /// (`Render.Delivery.bands`'s `takesYCbCr`).
    func takeYCbCr(planes: Bool) throws(ImageFileError) -> Bool
    /// After `takeYCbCr(planes: true)`: the next 8 rows of the Y, Cb and Cr planes (8 row
    /// pointers each, rows padded to a multiple of 8 samples, the last row repeated past the
    /// bottom).
    func writePlanes(
        y: UnsafePointer<UnsafeMutablePointer<UInt8>?>, cb: UnsafePointer<UnsafeMutablePointer<UInt8>?>,
        cr: UnsafePointer<UnsafeMutablePointer<UInt8>?>) throws(ImageFileError)
}

extension BandEncoder {
    /// Encoders of RGB rows take no Y'CbCr.
    func takeYCbCr(planes: Bool) throws(ImageFileError) -> Bool { throw .invalidArgument("this encoder takes RGB rows only") }
    /// Encoders of RGB rows take no planes.
    func writePlanes(
        y: UnsafePointer<UnsafeMutablePointer<UInt8>?>, cb: UnsafePointer<UnsafeMutablePointer<UInt8>?>,
        cr: UnsafePointer<UnsafeMutablePointer<UInt8>?>
    ) throws(ImageFileError) { throw .invalidArgument("this encoder takes RGB rows only") }
}

extension Render {
    /// Renders `rect` of the recipe in the writer's format and encodes it at the same time: tiles run top
    /// band first on every core, sources give back the rows no band left reads, and a
    /// dedicated thread hands each finished band to the encoder. Bands are written into a ring
    /// of three band-sized slots (two rendering, one encoding), reused in turn, so the output
    /// costs three bands of memory, touched once.
    func renderBands(_ recipe: OptimizedRecipe, writer w: DestinationWriter, sources: StreamedSources, encoder: any BandEncoder) throws {
        let pr = rect
        let rowBytes = pr.width * w.bytesPerPixel
        let plan = plan(recipe, banded: true)
        sources.limitLookahead(for: pr, bandHeight: plan.tileHeight)
        let ring = OutputRing(rect: pr, bandHeight: plan.tileHeight, rowBytes: rowBytes, slots: 3)
        let ledger = BandLedger(slots: ring.slots)

        // Bands finish when every tile across them has been written; they are keyed by their
        // top edge (Core Image y), and encoded strictly top down.
        let progress = BandProgress(rect: pr)
        let executor = environment.executor
        Executor.startThread(name: "cyanotype-band-feeder") {
            var top = 0, band = 0
            while let height = progress.waitForBand(topRow: top) {
                if executor.isCancelled {
                    // A cancelled job: no more bands are encoded, and tiles stop waiting.
                    progress.fail(CIRenderError.cancelled)
                    ledger.cancel()
                    return
                }
                do {
                    try encoder.write(ring.slot(forBand: band), rowBytes: rowBytes, count: height)
                } catch {
                    progress.fail(error)
                    ledger.cancel()
                    return
                }
                top += height
                band += 1
                ledger.tookBand()
                if top >= pr.height { break }
            }
            progress.finishFeeding()
        }
        do {
            try execute(plan, ledger: ledger) { tile, tileRect in
                let band = ring.band(of: tileRect)
                ring.writer(w, forBand: band)?.write(tile, tileRect)
                // Source rows are read by the tiles alone: given back once the bands reading
                // them are rendered (the encoder reads the output).
                if let rendered = progress.tileDone(tileRect) { sources.outputDone(of: pr, rowsAbove: rendered) }
            }
        } catch {
            progress.cancel()
            progress.waitForFeeder()
            throw error
        }
        progress.waitForFeeder()
        if let e = progress.error { throw e }
        try encoder.finishStream()
    }

    /// Encodes an unfiltered streaming-decoded bitmap band by band as its rows arrive, giving
    /// each band back once encoded. RGBA16 rows going to an 8-bit writer's encoder are rounded
    /// to RGBA8 a band at a time (`narrowToEightBits`); a 16-bit one takes them as they are.
    func encodeWhileDecoding(_ bitmap: BitmapNode, _ gate: RowGate, encoder: any BandEncoder) throws {
        let rowBytes = bitmap.bytesPerRow, band = 64
        var eightBitEncoder = true
        if case .bands(let writer, _, _) = delivery { eightBitEncoder = writer.info.sample == .uint8 }
        let narrowed = bitmap.format == .RGBA16 && eightBitEncoder ? UnsafeMutablePointer<UInt8>.allocate(capacity: band * bitmap.width * 4) : nil
        defer { narrowed?.deallocate() }
        gate.limitLookahead(4 * band)
        try bitmap.data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            guard let base = raw.baseAddress else { throw CIRenderError.sourceFailed("no decoded rows") }
            var top = 0
            while top < bitmap.height {
                let n = min(band, bitmap.height - top)
                if executor.isCancelled { try executor.job?.stop() }
                guard gate.wait(untilRows: top + n) else {
                    throw CIRenderError.sourceFailed(gate.error.map { String(describing: $0) } ?? "decoding stopped")
                }
                if let narrowed {
                    for r in 0..<n {
                        narrowToEightBits(
                            (base + (top + r) * rowBytes).assumingMemoryBound(to: UInt16.self), narrowed + r * bitmap.width * 4,
                            count: bitmap.width * 4)
                    }
                    try encoder.write(narrowed, rowBytes: bitmap.width * 4, count: n)
                } else {
                    try encoder.write(base + top * rowBytes, rowBytes: rowBytes, count: n)
                }
                top += n
                gate.giveBack(rowsAbove: top)
            }
        }
        try encoder.finishStream()
    }

    /// Re-encodes a JPEG file's planes (`Optimizer.recodedPlanes`): decoded whole and turned
    /// upright as they decode (1.5 bytes a pixel at 4:2:0, not RGBA's 4), then given to the
    /// encoder as Y'CbCr rows a band at a time, the chroma upsampled as libjpeg's decode
    /// upsamples it (`JPEGPlaneRows`); the encoder subsamples it as the output asks. nil,
    /// having made no encoder, when the file holds no such planes (the render then runs as
    /// usual).
    func encodePlanes(
        _ stored: StoredJPEGPlanes, makeEncoder: (_ width: Int, _ height: Int) throws(ImageFileError) -> any BandEncoder
    ) throws -> Outcome? {
        let decoded: JPEGPlanes?
        do { decoded = try stored.decode() } catch { throw CIRenderError.sourceFailed(String(describing: error)) }
        guard let planes = decoded, planes.width == rect.width, planes.height == rect.height else { return nil }
        if executor.isCancelled { try executor.job?.stop() }
        let encoder = try makeEncoder(planes.width, planes.height)
        let rows = JPEGPlaneRows(planes), (w, h) = (planes.width, planes.height)
        if try encoder.takeYCbCr(planes: true) {
            // 8 rows of each plane at a time, padded to whole blocks as libjpeg pads its own.
            let padded = (w + 7) / 8 * 8
            let band = UnsafeMutablePointer<UInt8>.allocate(capacity: 3 * 8 * padded)
            defer { band.deallocate() }
            let y = (0..<8).map { Optional(band + $0 * padded) }, cb = (0..<8).map { Optional(band + (8 + $0) * padded) }
            let cr = (0..<8).map { Optional(band + (16 + $0) * padded) }
            for top in stride(from: 0, to: h, by: 8) {
                if executor.isCancelled { try executor.job?.stop() }
                for i in 0..<8 {
                    let row = min(top + i, h - 1)
                    let (yRow, cbRow, crRow) = (y[i]!, cb[i]!, cr[i]!)
                    yRow.update(from: planes.luma + row * planes.lumaRowBytes, count: w)
                    rows.readChroma(row: row, from: 0, count: w, cb: cbRow, cr: crRow)
                    if padded > w {
                        for p in [yRow, cbRow, crRow] { (p + w).update(repeating: p[w - 1], count: padded - w) }
                    }
                }
                try encoder.writePlanes(y: y, cb: cb, cr: cr)
            }
        } else {
            let band = 16, rowBytes = w * 3
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: band * rowBytes, alignment: 64)
            defer { buffer.deallocate() }
            for top in stride(from: 0, to: h, by: band) {
                if executor.isCancelled { try executor.job?.stop() }
                let n = min(band, h - top)
                for r in 0..<n { rows.readYCbCr(row: top + r, from: 0, count: w, into: buffer + r * rowBytes) }
                try encoder.write(buffer, rowBytes: rowBytes, count: n)
            }
        }
        try encoder.finishStream()
        environment.record(RenderStatistics(sourcePixels: rect.area))
        return .copied
    }
}
extension Render {
    /// A streaming encode whose root (through crops holding the whole rect) is a whole-pixel
    /// turn or flip of a downscale of a file decoding for this render (the downscale in
    /// stored order that `Optimizer.commuteOrientations` makes): that is rendered band by band
    /// in its own order, its sources streaming and giving rows back as they would upright,
    /// the bands' rows (RGBA8 or RGBA16) are stored turned (`RowOrientation`) into the upright
    /// picture, and that goes to the encoder once complete. The full-size source is never
    /// held; the upright output is, once, in the writer's format. false, having done nothing,
    /// for any other recipe.
    func renderTurnedBands(
        _ recipe: OptimizedRecipe, writer w: DestinationWriter,
        makeEncoder: (_ width: Int, _ height: Int) throws(ImageFileError) -> any BandEncoder
    ) throws -> Bool {
        var node = recipe.root
        while node is any Crop, node.pixelExtent.contains(rect) { node = recipe.resolve(node.inputs[0]) }
        guard let turn = node as? any Affine, let value = turn.transform.exifOrientation, value != 1,
            w.bytesPerPixel == 4 || w.bytesPerPixel == 8
        else { return false }
        // Only over a downscale: the picture held is then the small one (a turn of a file as
        // it is keeps the decode's own limits and holding).
        let t = turn.transform, shrunk = recipe.resolve(turn.inputs[0])
        guard shrunk is any DownscaleResampler, t.tx == t.tx.rounded(), t.ty == t.ty.rounded() else { return false }
        let stored = PixelRect(covering: rect.cgRect.applying(t.inverted()))
        let inner = recipe.rooted(at: shrunk)
        let sources = StreamedSources(inner)
        guard sources.streams, stored.area == rect.area, let storedWriter = w.covering(stored) else { return false }
        defer { sources.end() }
        let upright = UprightRows(
            orientation: RowOrientation(value, width: stored.width, height: stored.height), bytesPerPixel: w.bytesPerPixel)
        let storedRender = Render(node: node, rect: stored, delivery: delivery, environment: environment)
        try storedRender.renderBands(inner, writer: storedWriter, sources: sources, encoder: upright)
        // The upright picture to the encoder, a band at a time.
        let encoder = try makeEncoder(rect.width, rect.height)
        let rowBytes = rect.width * w.bytesPerPixel, band = 64
        var top = 0
        while top < rect.height {
            if executor.isCancelled { try executor.job?.stop() }
            let n = min(band, rect.height - top)
            try encoder.write(upright.rows + top * rowBytes, rowBytes: rowBytes, count: n)
            top += n
        }
        try encoder.finishStream()
        return true
    }
}

/// The bands of a stored-order render (`Render.renderTurnedBands`) stored upright for an
/// EXIF orientation as they arrive: the whole upright picture, rows packed.
final class UprightRows: BandEncoder, @unchecked Sendable {
    private let orientation: RowOrientation
    private let bytesPerPixel: Int
    /// The upright rows, `uprightWidth * bytesPerPixel` apart.
    let rows: UnsafeMutableRawPointer
    private var received = 0

    init(orientation: RowOrientation, bytesPerPixel: Int) {
        self.orientation = orientation
        self.bytesPerPixel = bytesPerPixel
        rows = .allocate(byteCount: max(1, orientation.width * orientation.height * bytesPerPixel), alignment: 64)
    }
    deinit { rows.deallocate() }

    /// Stores `count` stored-order rows where the upright picture has their pixels.
    func write(_ source: UnsafeRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        let n = min(count, orientation.height - received)
        guard n > 0 else { return }
        orientation.scatter(
            source, sourceRowBytes: rowBytes, first: received, count: n, into: rows,
            destinationRowBytes: orientation.uprightWidth * bytesPerPixel, bytesPerPixel: bytesPerPixel)
        received += n
    }
    /// Nothing to end: the caller encodes `rows`.
    func finishStream() throws(ImageFileError) {}
}

/// `count` 16-bit samples as 8-bit ones, each rounded to the nearest level (v / 257, which
/// never falls halfway): the same value a float conversion of v / 65535 to 8 bits rounds to.
@inline(__always) func narrowToEightBits(_ source: UnsafePointer<UInt16>, _ destination: UnsafeMutablePointer<UInt8>, count: Int) {
    for i in 0..<count { destination[i] = UInt8(truncatingIfNeeded: (UInt32(source[i]) &+ 128) / 257) }
}

/// The output of a streaming render as a ring of band-sized slots: band `b` (rows of tiles
/// counted from the top, as `Executor.forEachTile` hands them out top down) lives in slot
/// `b % slots` until the consumer has taken it (`BandLedger` keeps tiles from running ahead).
final class OutputRing: @unchecked Sendable {
    let slots: Int
    private let rect: PixelRect
    private let bandHeight: Int, rowBytes: Int
    private let memory: UnsafeMutableRawPointer

    init(rect: PixelRect, bandHeight: Int, rowBytes: Int, slots: Int) {
        self.rect = rect
        self.bandHeight = max(1, bandHeight)
        self.rowBytes = rowBytes
        self.slots = slots
        memory = .allocate(byteCount: max(1, slots * self.bandHeight * rowBytes), alignment: 64)
    }
    deinit { memory.deallocate() }

    /// The band (from the top) a tile of the render belongs to: tiles are laid from the
    /// bottom edge up, so the top band may be the short one.
    func band(of tile: PixelRect) -> Int {
        let bands = (rect.height + bandHeight - 1) / bandHeight
        return bands - 1 - (tile.minY - rect.minY) / bandHeight
    }
    /// The first row (from the top) of band `band`.
    private func topRow(ofBand band: Int) -> Int {
        let bands = (rect.height + bandHeight - 1) / bandHeight
        let maxY = min(rect.minY + (bands - band) * bandHeight, rect.maxY)
        return rect.maxY - maxY
    }
    /// The band's rows, top first.
    func slot(forBand band: Int) -> UnsafeMutableRawPointer { memory + (band % slots) * bandHeight * rowBytes }
    /// `writer` moved so that the band's rows land in its slot.
    func writer(_ writer: DestinationWriter, forBand band: Int) -> DestinationWriter? {
        writer.rebased(slot(forBand: band) - topRow(ofBand: band) * rowBytes)
    }
}

/// The sources of a recipe optimised for one render that decode on their own thread for it
/// alone (`RowGate.servesOneRender`), and what the render tells them: how far to decode
/// ahead, which rows it is done with, and when it is over.
final class StreamedSources: Sendable {
    private let recipe: OptimizedRecipe
    /// Each such gate with the bitmaps reading its rows (a source read as decoded and as
    /// sRGB-encoded values shares one decode).
    private let readers: [(gate: RowGate, bitmaps: [BitmapNode])]

    init(_ recipe: OptimizedRecipe) {
        self.recipe = recipe
        var found: [(gate: RowGate, bitmaps: [BitmapNode])] = []
        for node in Optimizer.postOrder(recipe.root, inputs: recipe.inputs(of:)) {
            guard let bitmap = (node as? any StoredPixels)?.storedBitmap, let gate = bitmap.gate, gate.servesOneRender else { continue }
            if let i = found.firstIndex(where: { $0.gate === gate }) {
                found[i].bitmaps.append(bitmap)
            } else {
                found.append((gate, [bitmap]))
            }
        }
        readers = found
    }

    /// For each gate, the first row (from the top) that output rows `rect` read; its height
    /// when they read none.
    private func firstRowsRead(by rect: PixelRect) -> [Int] {
        let plan = rect.isEmpty ? nil : RenderPlan(recipe: recipe, rect: rect)
        return readers.map { reader in
            reader.bitmaps.map { b -> Int in
                guard let region = plan?.region(of: b), !region.isEmpty else { return b.height }
                return b.pixelExtent.maxY - region.maxY
            }.min() ?? reader.gate.total
        }
    }

    /// Lets each decoder run as far ahead as the first two output bands read (and a little).
    func limitLookahead(for rect: PixelRect, bandHeight: Int) {
        guard !readers.isEmpty else { return }
        let top = PixelRect(minX: rect.minX, minY: max(rect.minY, rect.maxY - 2 * bandHeight), maxX: rect.maxX, maxY: rect.maxY)
        let plan = RenderPlan(recipe: recipe, rect: top)
        for reader in readers {
            let rows =
                reader.bitmaps.map { b in
                    let region = plan.region(of: b)
                    return region.isEmpty ? 0 : b.pixelExtent.maxY - region.minY
                }.max() ?? 0
            reader.gate.limitLookahead(rows + 64)
        }
    }

    /// The output rows of `rect` above `row` (from the top) are done: each source gives back
    /// the rows that no output row below reads.
    func outputDone(of rect: PixelRect, rowsAbove row: Int) {
        guard !readers.isEmpty else { return }
        let rest = PixelRect(minX: rect.minX, minY: rect.minY, maxX: rect.maxX, maxY: max(rect.minY, rect.maxY - row))
        for (reader, first) in zip(readers, firstRowsRead(by: rest)) { reader.gate.giveBack(rowsAbove: first) }
    }

    /// Whether any source decodes for this render alone.
    var streams: Bool { !readers.isEmpty }

    /// The render is over: decoders still running stop.
    func end() { for reader in readers { reader.gate.abandon() } }
}

/// Which bands of a streaming render are complete, shared between the tile workers and the
/// thread feeding the encoder.
final class BandProgress: Sendable {
    private struct State {
        /// Pixels done per band, by the band's top edge (exclusive maxY); band heights once done.
        var widthDone: [Int: Int] = [:]
        var finishedHeight: [Int: Int] = [:]
        /// Rows from the top in bands all rendered.
        var renderedFromTop = 0
        var cancelled = false
        var feederDone = false
        var error: (any Error)?
    }
    private let state = Handoff(State())
    private let rect: PixelRect

    init(rect: PixelRect) { self.rect = rect }

    /// What stopped the feeder, if anything did.
    var error: (any Error)? { state.read { $0.error } }

    /// Records a finished tile; returns the rows from the top now rendered in full when that
    /// grew (what the sources may give back behind), else nil.
    @discardableResult
    func tileDone(_ t: PixelRect) -> Int? {
        let rect = self.rect
        var rendered: Int?
        // Only a finished band matters to the feeder.
        state.change { s in
            s.widthDone[t.maxY, default: 0] += t.width
            guard s.widthDone[t.maxY] == rect.width else { return false }
            s.finishedHeight[t.maxY] = t.height
            let before = s.renderedFromTop
            while let h = s.finishedHeight[rect.maxY - s.renderedFromTop] { s.renderedFromTop += h }
            rendered = s.renderedFromTop > before ? s.renderedFromTop : nil
            return true
        }
        return rendered
    }
    /// The height of the band whose first row (from the top) is `topRow`, once it is done;
    /// nil when the render was cancelled.
    func waitForBand(topRow: Int) -> Int? {
        let key = rect.maxY - topRow
        return state.wait(until: { $0.finishedHeight[key] != nil || $0.cancelled }, then: { $0.cancelled ? nil : $0.finishedHeight[key] })
    }
    /// The feeder stopped on `e`.
    func fail(_ e: any Error) {
        state.update { s in
            s.error = e
            s.feederDone = true
        }
    }
    /// The render stopped: the feeder waits no more.
    func cancel() { state.update { $0.cancelled = true } }
    /// The feeder handed every band over.
    func finishFeeding() { state.update { $0.feederDone = true } }
    /// Waits until the feeder is done (or failed).
    func waitForFeeder() { state.wait { $0.feederDone } }
}
