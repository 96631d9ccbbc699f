internal import CyanotypeCodecs
import Foundation

/// How many rows (from the top) of a bitmap being decoded are ready: tile workers wait here
/// for the rows they read while a decoding thread fills the rest, so rendering starts as
/// soon as the top of a file is in.
///
/// A gate made for one render (`servesOneRender`) also lets that render bound the decode:
/// it caps how far the decoder may run ahead of the rows it has finished with
/// (`limitLookahead`), gives those rows' memory back (`giveBack`), and says when it is over
/// (`abandon`). A reader that waits for rows beyond the cap always gets them (its wait is the
/// decoder's demand), so the cap never deadlocks a render that reads out of order.
final class RowGate: @unchecked Sendable {
    private struct State {
        var ready = 0
        var failure: (any Error)?
        /// Rows from the top whose memory is given back.
        var givenBack = 0
        /// The most rows a reader has waited for.
        var demand = 0
        var lookahead: Int?
        var abandoned = false
    }
    private let state: Handoff<State>
    let total: Int
    /// Whether the rows serve a single render, which may give them back as it passes them.
    let servesOneRender: Bool
    private let rows: PagedRows?
    private let rowBytes: Int

    init(total: Int, rows: PagedRows? = nil, rowBytes: Int = 0, servesOneRender: Bool = false) {
        self.total = total
        self.rows = rows
        self.rowBytes = rowBytes
        self.servesOneRender = servesOneRender && rows != nil
        // Until the render says how far ahead to decode (it plans after the decode starts).
        state = Handoff(State(lookahead: self.servesOneRender ? 64 : nil))
    }

    /// Waits until `rows` rows are decoded; false when decoding failed (or was abandoned) first.
    func wait(untilRows rows: Int) -> Bool {
        let rows = min(rows, total)
        if state.read({ $0.ready < rows && rows > $0.demand }) {
            state.update { $0.demand = max($0.demand, rows) }
        }
        return state.wait(until: { $0.ready >= rows || $0.failure != nil || $0.abandoned }, then: { $0.ready >= rows })
    }
    /// Waits for the whole image, throwing the decoder's error.
    func waitAll() throws {
        let total = self.total
        state.update { $0.demand = total }
        let (failure, ready) = state.wait(
            until: { $0.ready >= total || $0.failure != nil || $0.abandoned }, then: { ($0.failure, $0.ready) })
        if let failure { throw failure }
        if ready < total { throw CIRenderError.sourceFailed("the decode was stopped when its render ended") }
    }
    var error: (any Error)? { state.read { $0.failure } }
    /// Rows decoded so far.
    var rowsReady: Int { state.read { $0.ready } }
    /// Rows from the top whose memory has been given back.
    var rowsGivenBack: Int { state.read { $0.givenBack } }

    /// Whether the rows from `row` (from the top) down are still held; a read of rows already
    /// given back fails the render (the error names it) instead of reading zeros.
    func holds(fromRow row: Int) -> Bool {
        if state.read({ row >= $0.givenBack }) { return true }
        state.update { s in
            if s.failure == nil { s.failure = CIRenderError.sourceFailed("rows from \(row) were read after their memory was given back") }
        }
        return false
    }

    // MARK: The decoder's side

    func advance(to rows: Int) { state.update { $0.ready = rows } }
    func fail(_ e: any Error) { state.update { $0.failure = e } }
    /// Blocks the decoder, `decoded` rows in, while it is as far ahead of the rows given back
    /// as the lookahead allows and no reader waits for more; false once the render that the
    /// rows serve is over (stop decoding).
    func mayDecode(past decoded: Int) -> Bool {
        state.wait(
            until: { s in
                guard let l = s.lookahead, !s.abandoned else { return true }
                return !(decoded >= s.givenBack + l && s.demand <= decoded)
            }, then: { !$0.abandoned })
    }

    // MARK: The one render's side

    /// Lets the decoder run at most `rows` rows ahead of the rows given back.
    func limitLookahead(_ rows: Int) {
        guard servesOneRender else { return }
        state.update { $0.lookahead = max(1, rows) }
    }
    /// Gives back the memory of the rows above `row` (from the top): the render reads none of
    /// them again.
    func giveBack(rowsAbove row: Int) {
        guard servesOneRender, let rows else { return }
        let row = min(row, total), rowBytes = self.rowBytes
        state.change { s in
            guard row > s.givenBack else { return false }
            rows.giveBack(s.givenBack * rowBytes..<row * rowBytes)
            s.givenBack = row
            return true
        }
    }
    /// The render is over: the decoder stops and waiting readers return.
    func abandon() {
        guard servesOneRender else { return }
        state.update { $0.abandoned = true }
    }
}

/// Where a file's compressed bytes come from: held in memory, or read from the file again when
/// decoding (a file read with `CIImage.read(contentsOf:)` whose pixels stream: its bytes are
/// not kept, the decoder reads them as it goes).
enum CompressedBytes: Sendable {
    case data(Data)
    case file(FileIdentity)
}

/// A decoder handing out straight-alpha RGBA rows (8 or 16 bits a sample, as the file holds
/// them) top first, a band at a time (one thread reads).
protocol RowDecoder: AnyObject, Sendable {
    /// The image's size in pixels (as decoded).
    var width: Int { get }
    var height: Int { get }
    /// Bits of each sample in the rows: 8 (RGBA8) or 16 (RGBA16, native-endian).
    var bitsPerSample: Int { get }
    /// Decodes the next `count` rows into `rows`, `rowBytes` apart.
    func read(into rows: UnsafeMutableRawPointer, rowBytes: Int, count: Int) throws(ImageFileError)
}

extension RowDecoder {
    /// RGBA8 rows unless the decoder says otherwise.
    var bitsPerSample: Int { 8 }
}

extension JPEGStreamDecoder: RowDecoder {}
extension PNGStreamDecoder: RowDecoder {
    var bitsPerSample: Int { bitDepth }
}
extension TIFFStreamDecoder: RowDecoder {
    var bitsPerSample: Int { bitDepth }
}
extension WebPStreamDecoder: RowDecoder {}

/// A baseline JPEG as a bitmap whose rows arrive from a decoding thread, top first, in bands;
/// at 1/`reduction` of its size (scaled in the IDCT) when that is 2, 4 or 8. `forOneRender`:
/// the rows serve one render, which bounds how far the decoder runs ahead and gives rows back
/// (see `RowGate`); the decode limit then bounds the rows held at once. The rows are read in
/// the header's ICC profile (`SourceColor`) and stored upright for EXIF `orientation`.
func streamingJPEGNode(
    _ bytes: CompressedBytes, header: ImageHeader, limits: DecodeLimits, colorSpace: CGColorSpace?,
    reduction: Int = 1, forOneRender: Bool = false, orientation: Int = 1
) throws -> RecipeNode {
    // For one render, the limit bounds the rows held at once (checked as they decode), not
    // the picture: a 300 MP file goes through a blur in the memory of a few bands. An
    // orientation that reorders rows holds the whole picture: the limit is the picture's.
    let oneRender = forOneRender && RowOrientation(orientation, width: 1, height: 1).keepsRowOrder
    let decodeLimits: DecodeLimits = oneRender ? .init(maxPixels: .max, maxBytes: .max) : limits
    let decoder =
        switch bytes {
        case .data(let data): try JPEGStreamDecoder(data: data, strict: true, limits: decodeLimits, reduction: reduction)
        case .file(let file): try JPEGStreamDecoder(file: file, strict: true, limits: decodeLimits, reduction: reduction)
        }
    return try streamingNode(
        decoder, format: "JPEG", limits: limits, colorSpace: colorSpace, forOneRender: oneRender, profile: header.iccProfile,
        orientation: orientation)
}

/// The row decoders `streamingRowsNode` reads with.
enum StreamedRowFormat: String {
    /// A non-interlaced PNG (libspng's row decoder): RGBA8, or RGBA16 for a 16-bit file.
    case png = "PNG"
    /// An 8 or 16-bit grey or RGB(A) TIFF in strips or tiles, uncompressed, LZW or deflate
    /// (`TIFFStreamDecoder.canStream`), decoded a strip or a row of tiles at a time.
    case tiff = "TIFF"
}

/// A PNG or TIFF (`format`) as a bitmap whose rows arrive from a decoding thread, as
/// `streamingJPEGNode` does for JPEG.
func streamingRowsNode(
    _ bytes: CompressedBytes, format: StreamedRowFormat, limits: DecodeLimits, colorSpace: CGColorSpace?, forOneRender: Bool = false,
    profile: Data? = nil, orientation: Int = 1
) throws -> RecipeNode {
    let oneRender = forOneRender && RowOrientation(orientation, width: 1, height: 1).keepsRowOrder
    let decodeLimits: DecodeLimits = oneRender ? .init(maxPixels: .max, maxBytes: .max) : limits
    let decoder: any RowDecoder =
        switch (format, bytes) {
        case (.png, .data(let data)): try PNGStreamDecoder(data: data, limits: decodeLimits)
        case (.png, .file(let file)): try PNGStreamDecoder(file: file, limits: decodeLimits)
        case (.tiff, .data(let data)): try TIFFStreamDecoder(data: data, limits: decodeLimits)
        case (.tiff, .file(let file)): try TIFFStreamDecoder(file: file, limits: decodeLimits)
        }
    return try streamingNode(
        decoder, format: format.rawValue, limits: limits, colorSpace: colorSpace, forOneRender: oneRender, profile: profile,
        orientation: orientation)
}

/// A still WebP decoded straight to `width` x `height` (stored orientation; libwebp's
/// rescaler, as `ImageCodecs.decode(_:scaledTo:_:limits:)`) as a bitmap whose rows arrive from
/// a decoding thread, so a downscale and an encode after it start before the decode ends;
/// read in `profile` and stored upright for `orientation` (see `streamingNode`). Upright as
/// stored (orientation 1), libwebp decodes straight into the bitmap's rows: the scaled
/// picture is held once.
func streamingScaledWebPNode(
    _ data: Data, width: Int, height: Int, limits: DecodeLimits, colorSpace: CGColorSpace?, profile: Data?, orientation: Int
) throws -> RecipeNode {
    let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
    var rows: PagedRows?
    if RowOrientation(orientation, width: width, height: height).value == 1, !overflow, pixels > 0, pixels <= Int.max / 4 {
        rows = PagedRows(count: pixels * 4)
    }
    let decoder = try WebPStreamDecoder(
        data: data, width: width, height: height, limits: limits,
        destination: rows.map { UnsafeMutableRawBufferPointer(start: $0.base, count: $0.count) })
    return try streamingNode(
        decoder, format: "WebP", limits: limits, colorSpace: colorSpace, forOneRender: false, profile: profile, orientation: orientation,
        rows: rows)
}

/// The rows of `decoder` as a bitmap filled by a decoding thread, band by band (see
/// `streamingJPEGNode`): read in `profile` (nil: untagged, in `colorSpace`) tile by tile as
/// `SourceColor` says, and stored upright for EXIF `orientation`. Rows that keep their order
/// (orientations 1 and 2) are ready as they arrive; a turn or a vertical flip has the picture
/// ready when the last row is in (`forOneRender` then does not apply: it holds it all).
/// `rows`: the bitmap's memory when the decoder was made to write into it (orientation 1, not
/// for one render); new otherwise.
private func streamingNode(
    _ decoder: any RowDecoder, format: String, limits: DecodeLimits, colorSpace: CGColorSpace?, forOneRender: Bool,
    profile: Data? = nil, orientation: Int = 1, rows given: PagedRows? = nil
) throws -> RecipeNode {
    let (w, h) = (decoder.width, decoder.height)
    let turn = RowOrientation(orientation, width: w, height: h)
    let forOneRender = forOneRender && turn.keepsRowOrder
    let (uw, uh) = (turn.uprightWidth, turn.uprightHeight)
    let sixteen = decoder.bitsPerSample == 16
    let pixelBytes = sixteen ? 8 : 4
    let heldLimit = min(limits.maxPixels, limits.maxBytes / pixelBytes)
    let heldRowsLimit = forOneRender ? max(1, heldLimit / max(1, w)) : h
    let rows = given ?? PagedRows(count: w * h * pixelBytes)
    let gate = RowGate(total: uh, rows: rows, rowBytes: uw * pixelBytes, servesOneRender: forOneRender)
    let color = SourceColor.of(profile: profile, bitsPerSample: decoder.bitsPerSample, fallback: colorSpace)
    guard
        let node = BitmapNode(
            data: rows, bytesPerRow: uw * pixelBytes, width: uw, height: uh, format: sixteen ? .RGBA16 : .RGBA8,
            colorSpace: color.space, premultiplied: false, gate: gate, profileTransform: color.transform)
    else { throw ImageFileError.corrupt(detail: "\(format): \(w)x\(h) without pixels") }
    Executor.startThread(name: "cyanotype-decode-\(format)", stackSize: 1 << 20) {
        let band = 16
        // Rows that move go through a band of their own first.
        let scratch = turn.value == 1 ? nil : UnsafeMutableRawPointer.allocate(byteCount: band * w * pixelBytes, alignment: 64)
        defer { scratch?.deallocate() }
        var done = 0
        while done < h, gate.mayDecode(past: done) {
            let n = min(band, h - done)
            if done + n - gate.rowsGivenBack > heldRowsLimit {
                gate.fail(ImageFileError.tooLarge(width: w, height: h, limit: heldLimit))
                return
            }
            do {
                if let scratch {
                    try decoder.read(into: scratch, rowBytes: w * pixelBytes, count: n)
                    turn.scatter(
                        scratch, sourceRowBytes: w * pixelBytes, first: done, count: n, into: rows.base,
                        destinationRowBytes: uw * pixelBytes, bytesPerPixel: pixelBytes)
                } else {
                    try decoder.read(into: rows.base + done * w * pixelBytes, rowBytes: w * pixelBytes, count: n)
                }
            } catch {
                gate.fail(error)
                return
            }
            done += n
            if turn.keepsRowOrder { gate.advance(to: done) } else if done == h { gate.advance(to: uh) }
        }
    }
    return node
}
