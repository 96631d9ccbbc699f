import CDeflate
import Foundation

/// A PNG encoder fed bands of RGBA8 rows (or RGBA16, native endian, for a 16-bit file), top
/// first, so encoding overlaps rendering and the file is written as it is made. The bytes are
/// those `ImageCodecs.encode(rgba8:...)` (or `rgba16:`) writes for the same pixels and options: rows are gathered into the same bands
/// (`PNGWriter.bandBytes` of filtered rows each), deflated the same way, and the zlib stream is
/// cut into the same IDAT chunks. Up to `batch` bands are gathered and deflated at once
/// through the caller's parallel loop; memory is those bands and one IDAT chunk, whatever the
/// image's size. Not thread-safe: one thread writes, in order.
public final class PNGStreamEncoder: @unchecked Sendable {
    /// The image's size in pixels.
    public let width: Int, height: Int
    /// Rows written so far.
    public private(set) var rowsWritten = 0

    private let plan: PNGWriter.Plan
    private let sink: ByteSink
    private let idat: PNGWriter.IDATStream
    private let parallel: ParallelFor
    private let rowsPerBand: Int, batch: Int
    /// RGBA rows: row 0 is the row above the batch (what the filters of its first row read),
    /// then up to `batch * rowsPerBand` rows of the batch.
    private let staging: UnsafeMutableRawPointer
    private let sourceRowBytes: Int
    private var staged = 0
    private var adler: UInt32 = 1
    private var bandsWritten = 0
    private var finished = false

    /// A PNG of `width` x `height` (RGB, or RGBA with `hasAlpha`; grey with `options.grayscale`)
    /// with 8 or 16-bit samples (`sixteen`, fed RGBA16 rows) at `options`' level, filter and
    /// metadata, written into `sink` as rows arrive (the signature and header chunks at once).
    /// At most `batch` bands (of about 2 MB) are held and deflated together through `parallel`.
    public convenience init(
        width: Int, height: Int, hasAlpha: Bool, sixteen: Bool = false, options: EncodeOptions, sink: ByteSink, batch: Int = 2,
        parallel: @escaping ParallelFor
    ) throws(ImageFileError) {
        try self.init(
            width: width, height: height, hasAlpha: hasAlpha, sixteen: sixteen, options: options, sink: sink, batch: batch,
            bandBytes: PNGWriter.bandBytes, parallel: parallel)
    }

    /// With bands of `bandBytes` filtered bytes (tests use small ones).
    init(
        width: Int, height: Int, hasAlpha: Bool, sixteen: Bool = false, options: EncodeOptions, sink: ByteSink, batch: Int, bandBytes: Int,
        parallel: @escaping ParallelFor
    ) throws(ImageFileError) {
        plan = try PNGCodec.plan(width: width, height: height, hasAlpha: hasAlpha, sixteen: sixteen, options: options)
        self.width = width
        self.height = height
        self.sink = sink
        self.parallel = parallel
        rowsPerBand = plan.rowsPerBand(bandBytes)
        self.batch = max(1, batch)
        sourceRowBytes = width * 4 * (sixteen ? 2 : 1)
        let (rows, o1) = (self.batch * rowsPerBand + 1).multipliedReportingOverflow(by: sourceRowBytes)
        guard !o1, rows < 1 << 40 else { throw .invalidArgument("PNG: a \(width)x\(height) image is too large to encode") }
        staging = UnsafeMutableRawPointer.allocate(byteCount: rows, alignment: 64)
        idat = PNGWriter.IDATStream(sink: sink)
        try plan.writeHead(to: sink)
        try idat.append(plan.zlibHeader)
    }

    deinit { staging.deallocate() }

    /// Appends `count` rows of RGBA8, or RGBA16 for a 16-bit file (straight alpha; alpha
    /// dropped for RGB), `rowBytes` apart.
    public func write(_ rows: UnsafeRawPointer, rowBytes: Int, count: Int) throws(ImageFileError) {
        guard !finished, count >= 0, rowsWritten + count <= height, rowBytes >= sourceRowBytes else {
            throw .invalidArgument("PNG: \(count) rows of \(rowBytes) bytes after \(rowsWritten) of \(height)")
        }
        var next = 0
        while next < count {
            let room = batch * rowsPerBand - staged
            let take = min(room, count - next)
            for r in 0..<take {
                (staging + (1 + staged + r) * sourceRowBytes).copyMemory(from: rows + (next + r) * rowBytes, byteCount: sourceRowBytes)
            }
            staged += take
            next += take
            rowsWritten += take
            if staged == batch * rowsPerBand || rowsWritten == height { try deflateStaged() }
        }
    }

    /// Ends the stream (the Adler-32 and IEND) once every row is written, and flushes the sink.
    public func finish() throws(ImageFileError) {
        guard rowsWritten == height, staged == 0, !finished else {
            throw .invalidArgument("PNG: \(rowsWritten) of \(height) rows written")
        }
        finished = true
        try idat.append(PNGWriter.be32(Int(adler)))
        try idat.finish()
        try sink.append(PNGWriter.chunk("IEND", []))
        try sink.flush()
    }

    /// Deflates the staged rows, band by band in parallel, and appends them in order.
    private func deflateStaged() throws(ImageFileError) {
        let first = rowsWritten - staged  // the image row of staging row 1
        let count = (staged + rowsPerBand - 1) / rowsPerBand
        let bands = UnsafeMutablePointer<PNGWriter.Band>.allocate(capacity: count)
        bands.initialize(repeating: PNGWriter.Band(), count: count)
        defer {
            for i in 0..<count { free(bands[i].data) }
            bands.deinitialize(count: count)
            bands.deallocate()
        }
        // Row r of the image sits at staging row r - first + 1 (the row above the batch at 0).
        let base = UnsafeRawPointer(staging) + (1 - first) * sourceRowBytes
        let shared = PNGWriter.Shared(source: base, bands: bands)
        let (plan, rowsPerBand, height) = (self.plan, self.rowsPerBand, self.height)
        parallel(count) { i in
            let rows = (first + i * rowsPerBand)..<min(first + (i + 1) * rowsPerBand, height)
            shared.bands[i] = PNGWriter.compressBand(
                rows, source: shared.source, layout: plan.layout, level: plan.level, filter: plan.filter, isLast: rows.upperBound == height)
        }
        for i in 0..<count {
            if let e = bands[i].error { throw e }
            adler = bandsWritten == 0 ? bands[i].adler : UInt32(adler32_combine(uLong(adler), uLong(bands[i].adler), bands[i].inputCount))
            bandsWritten += 1
            try idat.append(UnsafeRawBufferPointer(start: bands[i].data, count: bands[i].count))
            free(bands[i].data)
            bands[i].data = nil
        }
        // The batch's last row is the next batch's row above.
        staging.copyMemory(from: staging + staged * sourceRowBytes, byteCount: sourceRowBytes)
        staged = 0
    }
}
