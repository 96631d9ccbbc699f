import Foundation
import Testing

@testable import CyanotypeCodecs

/// Seeded noise over a gradient: rows that each PNG filter predicts differently.
private func noisyRGBA<Sample: FixedWidthInteger & UnsignedInteger>(_: Sample.Type, width: Int, height: Int, seed: UInt64) -> [Sample] {
    var state = seed
    var px = [Sample](repeating: 0, count: width * height * 4)
    for i in 0..<px.count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let noise = Int(truncatingIfNeeded: state >> 58)  // 0...63
        let ramp = (i / 4 % width) * 7 + (i / 4 / width) * 5 + (i & 3) * 50
        px[i] = Sample(truncatingIfNeeded: (ramp + noise) % 256 * (Sample.bitWidth == 16 ? 257 : 1) + (Sample.bitWidth == 16 ? noise * 3 : 0))
    }
    return px
}

/// What a decoder returns for `px` written with `channels` (RGBA out: grey from green, opaque
/// alpha at the sample's maximum when none is written).
private func expected<Sample: FixedWidthInteger & UnsignedInteger>(_ px: [Sample], channels: Int) -> [Sample] {
    var out = px
    for i in stride(from: 0, to: px.count, by: 4) {
        if channels <= 2 { out[i] = px[i + 1]; out[i + 2] = px[i + 1] }
        if channels == 1 || channels == 3 { out[i + 3] = Sample.max }
    }
    return out
}

private func options(level: Int, filter: PNGFilter?, channels: Int) -> EncodeOptions {
    var o = EncodeOptions()
    o.compressionLevel = level
    o.pngFilter = filter
    o.grayscale = channels <= 2
    return o
}

private func encodePNG<Sample: FixedWidthInteger & UnsignedInteger>(
    _ px: [Sample], _ w: Int, _ h: Int, channels: Int, _ o: EncodeOptions, parallel: ParallelFor = ImageCodecs.sequential
) throws -> Data {
    try px.withUnsafeBufferPointer { try PNGCodec.encode($0, width: w, height: h, hasAlpha: channels % 2 == 0, options: o, parallel: parallel) }
}

private func decodedSamples<Sample: FixedWidthInteger & UnsignedInteger>(_ png: Data, as _: Sample.Type) throws -> [Sample] {
    let d = try ImageCodecs.decode(png)
    return Sample.bitWidth == 16 ? d.pixels16.map { Sample($0) } : d.pixels.map { Sample($0) }
}

/// Runs a command line tool; nil when it cannot be started.
private func tool(_ path: String, _ args: [String]) -> (status: Int32, out: Data)? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    guard (try? p.run()) != nil else { return nil }
    let out = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, out)
}

private let hasImageMagick = FileManager.default.isExecutableFile(atPath: "/usr/bin/convert")
private let hasPNGCheck = FileManager.default.isExecutableFile(atPath: "/usr/bin/pngcheck")
private let hasPython = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

/// A parallel loop on real threads, as the renderer's executor runs it.
private func concurrent(_ n: Int, _ body: @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: n, execute: body)
}

@Suite struct PNGWriterTests {
    /// Every level and filter, every layout, 8 and 16 bits: libspng reads back the samples.
    @Test(arguments: [1, 2, 3, 4])
    func roundTripsExactly(channels: Int) throws {
        let (w, h) = (13, 7)
        let px8 = noisyRGBA(UInt8.self, width: w, height: h, seed: 7)
        let px16 = noisyRGBA(UInt16.self, width: w, height: h, seed: 8)
        for level in 0...9 {
            for filter in [nil] + PNGFilter.allCases {
                let o = options(level: level, filter: filter, channels: channels)
                let a = try decodedSamples(try encodePNG(px8, w, h, channels: channels, o), as: UInt8.self)
                #expect(a == expected(px8, channels: channels), "8-bit, \(channels) channels, level \(level), \(filter.map(\.rawValue) ?? "default")")
                let b = try decodedSamples(try encodePNG(px16, w, h, channels: channels, o), as: UInt16.self)
                #expect(b == expected(px16, channels: channels), "16-bit, \(channels) channels, level \(level), \(filter.map(\.rawValue) ?? "default")")
            }
        }
    }

    /// Each filter writes its own type byte on every row (the first byte of each inflated row).
    @Test(.enabled(if: hasPython, "needs /usr/bin/python3 (its zlib inflates the image data)"))
    func filterTypeBytesAreWritten() throws {
        let (w, h) = (9, 5)
        let px = noisyRGBA(UInt8.self, width: w, height: h, seed: 3)
        for (filter, type) in [(PNGFilter.none, 0), (.sub, 1), (.up, 2), (.average, 3), (.paeth, 4)] {
            let png = try encodePNG(px, w, h, channels: 4, options(level: 6, filter: filter, channels: 4))
            let rows = try inflatedRows(png)
            #expect(rows.count == h * (w * 4 + 1))
            for y in 0..<h { #expect(Int(rows[y * (w * 4 + 1)]) == type, "\(filter) row \(y)") }
        }
    }

    /// ImageMagick reads what we write, sample for sample, at 8 and 16 bits, and pngcheck finds
    /// the chunks, CRCs and zlib stream valid, with bands joined (one row per band).
    @Test(
        .enabled(if: hasImageMagick && hasPNGCheck, "needs ImageMagick's convert and pngcheck (scripts/setup.sh --test)"),
        arguments: [1, 2, 3, 4])
    func independentReadersAgree(channels: Int) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("png-writer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (w, h) = (31, 23)
        let px8 = noisyRGBA(UInt8.self, width: w, height: h, seed: 11)
        let px16 = noisyRGBA(UInt16.self, width: w, height: h, seed: 12)
        for (level, filter) in [(0, PNGFilter.none), (2, .up), (6, .adaptive), (9, .paeth), (4, .average), (1, .sub)] {
            var o = options(level: level, filter: filter, channels: channels)
            o.iccProfile = fakeICC(count: 700)
            o.dpi = 300
            for sixteen in [false, true] {
                let png: Data = try px8.withUnsafeBufferPointer { p8 in
                    try px16.withUnsafeBufferPointer { p16 in
                        let layout = PNGWriter.Layout(
                            width: w, height: h, channels: channels, sixteen: sixteen,
                            rowBytes: w * channels * (sixteen ? 2 : 1))
                        return sixteen
                            ? try PNGWriter.write(p16, layout: layout, level: level, filter: filter, extra: [], bandBytes: 1, parallel: concurrent)
                            : try PNGWriter.write(p8, layout: layout, level: level, filter: filter, extra: [], bandBytes: 1, parallel: concurrent)
                    }
                }
                let file = dir.appendingPathComponent("t\(channels)-\(level)-\(sixteen).png")
                try png.write(to: file)
                let check = tool("/usr/bin/pngcheck", ["-q", file.path])
                #expect(check?.status == 0, "pngcheck: \(file.lastPathComponent)")
                let depth = sixteen ? "16" : "8"
                guard let magick = tool("/usr/bin/convert", [file.path, "-depth", depth, "-endian", "MSB", "rgba:-"]), magick.status == 0 else {
                    Issue.record("convert could not read \(file.lastPathComponent)")
                    continue
                }
                if sixteen {
                    // Raw 16-bit samples, most significant byte first as asked (the default is the host's order).
                    let theirs = stride(from: 0, to: magick.out.count - 1, by: 2).map { UInt16(magick.out[$0]) << 8 | UInt16(magick.out[$0 + 1]) }
                    #expect(theirs == expected(px16, channels: channels), "\(file.lastPathComponent)")
                } else {
                    #expect([UInt8](magick.out) == expected(px8, channels: channels), "\(file.lastPathComponent)")
                }
            }
            // Whole-file encodes with metadata pass pngcheck too.
            let file = dir.appendingPathComponent("meta\(channels)-\(level).png")
            try encodePNG(px8, w, h, channels: channels, o).write(to: file)
            #expect(tool("/usr/bin/pngcheck", ["-q", file.path])?.status == 0, "pngcheck: \(file.lastPathComponent)")
        }
    }

    /// The band size changes the bytes, never the pixels; the thread count changes neither.
    @Test func bandsDoNotChangeThePixels() throws {
        let (w, h) = (40, 37)
        let px = noisyRGBA(UInt8.self, width: w, height: h, seed: 5)
        let layout = PNGWriter.Layout(width: w, height: h, channels: 3, sixteen: false, rowBytes: w * 3)
        var files: [Data] = []
        for bandBytes in [1, 100, 500, 4000, 1 << 20] {
            for level in [0, 1, 6, 9] {
                let png = try px.withUnsafeBufferPointer { p in
                    try PNGWriter.write(p, layout: layout, level: level, filter: .adaptive, extra: [], bandBytes: bandBytes, parallel: concurrent)
                }
                let again = try px.withUnsafeBufferPointer { p in
                    try PNGWriter.write(p, layout: layout, level: level, filter: .adaptive, extra: [], bandBytes: bandBytes, parallel: ImageCodecs.sequential)
                }
                #expect(png == again, "\(bandBytes) bytes per band, level \(level): threads changed the bytes")
                #expect(try decodedSamples(png, as: UInt8.self) == expected(px, channels: 3), "\(bandBytes) bytes per band, level \(level)")
                files.append(png)
            }
        }
        #expect(Set(files).count > 4)  // the band size did change the bytes
    }

    /// 1x1, one row, one column, in every layout and depth.
    @Test func tinyImages() throws {
        for (w, h) in [(1, 1), (1, 9), (17, 1), (2, 2)] {
            for channels in 1...4 {
                for filter in PNGFilter.allCases {
                    let o = options(level: 6, filter: filter, channels: channels)
                    let px8 = noisyRGBA(UInt8.self, width: w, height: h, seed: UInt64(w * 10 + h))
                    #expect(try decodedSamples(try encodePNG(px8, w, h, channels: channels, o), as: UInt8.self) == expected(px8, channels: channels))
                    let px16 = noisyRGBA(UInt16.self, width: w, height: h, seed: UInt64(w * 10 + h))
                    #expect(try decodedSamples(try encodePNG(px16, w, h, channels: channels, o), as: UInt16.self) == expected(px16, channels: channels))
                }
            }
        }
    }

    /// Sizes PNG cannot hold, and buffers too small for the size, are typed errors.
    @Test func impossibleSizesAreTypedErrors() throws {
        let px = [UInt8](repeating: 7, count: 64)
        let o = EncodeOptions()
        let wide = codecError { try encodePNG(px, Int(Int32.max) + 1, 1, channels: 4, o) }
        #expect(wide == .invalidArgument("PNG width and height must be 1...2147483647, got 2147483648x1"))
        let zero = codecError { try encodePNG(px, 0, 4, channels: 4, o) }
        #expect(zero == .invalidArgument("PNG width and height must be 1...2147483647, got 0x4"))
        let short = codecError { try encodePNG(px, Int(Int32.max), 2, channels: 3, o) }
        #expect(short == .invalidArgument("PNG: 64 samples do not hold a 2147483647x2 RGBA image"))
        let overflow = codecError { try encodePNG(px, Int(Int32.max), Int(Int32.max), channels: 3, o) }
        #expect(overflow == .invalidArgument("PNG: 64 samples do not hold a 2147483647x2147483647 RGBA image"))
        // Through the public entry point the buffer check comes first.
        let e = codecError { try encode8(px, 1 << 40, 1 << 30, alpha: true, .png) }
        #expect(e?.description.hasPrefix("invalid argument: rgba8 buffer holds 64 samples") == true)
    }

    /// The level is recorded in the zlib header (FLEVEL) as zlib would, and the stream's
    /// header check holds.
    @Test func zlibHeaderNamesTheLevel() throws {
        let px = noisyRGBA(UInt8.self, width: 8, height: 8, seed: 1)
        for (level, flevel) in [(0, 0), (1, 0), (2, 1), (5, 1), (6, 2), (7, 3), (9, 3)] {
            let png = [UInt8](try encodePNG(px, 8, 8, channels: 4, options(level: level, filter: nil, channels: 4)))
            guard let idat = firstIDAT(png) else {
                Issue.record("no IDAT at level \(level)")
                continue
            }
            #expect(png[idat] == 0x78)
            #expect(Int(png[idat + 1] >> 6) == flevel, "level \(level)")
            #expect((Int(png[idat]) << 8 | Int(png[idat + 1])) % 31 == 0)
        }
    }
}

/// Offset of the first IDAT chunk's data.
private func firstIDAT(_ b: [UInt8]) -> Int? {
    var pos = 8
    while pos + 12 <= b.count {
        let n = Int(b[pos]) << 24 | Int(b[pos + 1]) << 16 | Int(b[pos + 2]) << 8 | Int(b[pos + 3])
        if b[(pos + 4)..<(pos + 8)].elementsEqual("IDAT".utf8) { return pos + 8 }
        pos += 12 + n
    }
    return nil
}

/// The image data (every IDAT joined) inflated by Python's zlib module: the filtered rows,
/// each led by its filter type byte.
private func inflatedRows(_ png: Data) throws -> [UInt8] {
    let b = [UInt8](png)
    var stream: [UInt8] = []
    var pos = 8
    while pos + 12 <= b.count {
        let n = Int(b[pos]) << 24 | Int(b[pos + 1]) << 16 | Int(b[pos + 2]) << 8 | Int(b[pos + 3])
        if b[(pos + 4)..<(pos + 8)].elementsEqual("IDAT".utf8) { stream += b[(pos + 8)..<(pos + 8 + n)] }
        pos += 12 + n
    }
    let dir = FileManager.default.temporaryDirectory
    let file = dir.appendingPathComponent("idat-\(UUID().uuidString).z")
    try Data(stream).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    guard let r = tool("/usr/bin/python3", ["-c", "import sys,zlib; sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1],'rb').read()))", file.path]),
        r.status == 0
    else { throw ImageFileError.corrupt(detail: "python3 could not inflate the IDAT stream") }
    return [UInt8](r.out)
}

/// Rows fed band by band make the file the whole-image writer makes: the same bands, the same
/// IDAT chunks, the same bytes, however the rows are cut and however many bands are held.
@Suite struct PNGStreamEncoderTests {
    /// Feeds `px` in runs of `feed` rows (through a sink in memory) with bands of `bandBytes`.
    func streamed(
        _ px: [UInt8], _ w: Int, _ h: Int, channels: Int, _ o: EncodeOptions, bandBytes: Int, batch: Int, feed: Int
    ) throws -> Data {
        let sink = ByteSink()
        let encoder = try PNGStreamEncoder(
            width: w, height: h, hasAlpha: channels % 2 == 0, options: o, sink: sink, batch: batch, bandBytes: bandBytes, parallel: concurrent)
        try px.withUnsafeBytes { raw in
            var top = 0
            while top < h {
                let n = min(feed, h - top)
                try encoder.write(raw.baseAddress! + top * w * 4, rowBytes: w * 4, count: n)
                top += n
            }
        }
        try encoder.finish()
        return sink.data
    }

    @Test func equalsTheWholeImageWriter() throws {
        let (w, h) = (29, 41)
        let px = noisyRGBA(UInt8.self, width: w, height: h, seed: 11)
        for channels in 1...4 {
            for (level, filter) in [(0, PNGFilter.none), (2, .up), (6, .paeth), (9, .adaptive)] {
                let o = options(level: level, filter: filter, channels: channels)
                let plan = try PNGCodec.plan(width: w, height: h, hasAlpha: channels % 2 == 0, sixteen: false, options: o)
                for bandBytes in [1, 100, 700, 1 << 21] {
                    let whole = try px.withUnsafeBufferPointer { p in
                        try PNGWriter.write(
                            p, layout: plan.layout, level: level, filter: filter, extra: plan.extra, bandBytes: bandBytes, parallel: concurrent)
                    }
                    for (batch, feed) in [(1, 1), (2, 5), (3, 41), (2, 17)] {
                        let s = try streamed(px, w, h, channels: channels, o, bandBytes: bandBytes, batch: batch, feed: feed)
                        #expect(s == whole, "\(channels) channels, level \(level), \(bandBytes) B bands, batch \(batch), feed \(feed)")
                    }
                    #expect(try decodedSamples(whole, as: UInt8.self) == expected(px, channels: channels))
                }
            }
        }
    }

    /// A stream longer than one IDAT chunk (1 MiB): stored blocks of a 620x620 RGBA image.
    @Test func cutsTheStreamIntoTheSameIDATChunks() throws {
        let (w, h) = (620, 620)
        let px = noisyRGBA(UInt8.self, width: w, height: h, seed: 3)
        let o = options(level: 0, filter: PNGFilter.none, channels: 4)
        let whole = try encodePNG(px, w, h, channels: 4, o, parallel: concurrent)
        let s = try streamed(px, w, h, channels: 4, o, bandBytes: 1 << 21, batch: 2, feed: 64)
        #expect(s == whole)
        #expect(whole.count > 1 << 20)
        #expect(try decodedSamples(s, as: UInt8.self) == px)
    }

    @Test func rowsBeyondTheImageOrAnEarlyFinishAreTypedErrors() throws {
        let sink = ByteSink()
        let encoder = try PNGStreamEncoder(width: 4, height: 3, hasAlpha: true, options: EncodeOptions(), sink: sink, parallel: concurrent)
        let row = [UInt8](repeating: 7, count: 16 * 4)
        #expect(throws: ImageFileError.self) { try encoder.finish() }
        try row.withUnsafeBytes { raw in
            try encoder.write(raw.baseAddress!, rowBytes: 16, count: 2)
            #expect(throws: ImageFileError.self) { try encoder.write(raw.baseAddress!, rowBytes: 16, count: 2) }
            #expect(throws: ImageFileError.self) { try encoder.write(raw.baseAddress!, rowBytes: 8, count: 1) }
        }
    }
}

/// libspng's row decoder, band by band, gives `ImageCodecs.decode`'s pixels.
@Suite struct PNGStreamDecoderTests {
    @Test func rowsInBandsEqualTheWholeDecode() throws {
        let (w, h) = (23, 61)
        let px = noisyRGBA(UInt8.self, width: w, height: h, seed: 9)
        for channels in 1...4 {
            let file = try encodePNG(px, w, h, channels: channels, options(level: 6, filter: .paeth, channels: channels))
            let whole = try ImageCodecs.decode(file)
            let header = try ImageCodecs.readHeader(file)
            #expect(PNGStreamDecoder.canStream(header: header, strict: true))
            #expect(!PNGStreamDecoder.canStream(header: header, strict: false))
            let decoder = try PNGStreamDecoder(data: file)
            var rows = [UInt8](repeating: 0, count: w * h * 4)
            try rows.withUnsafeMutableBytes { raw in
                var top = 0
                while top < h {
                    let n = min(7, h - top)
                    try decoder.read(into: raw.baseAddress! + top * w * 4, rowBytes: w * 4, count: n)
                    top += n
                }
            }
            #expect(rows == whole.pixels, "\(channels) channels")
        }
    }

    @Test func aCutFileAndAnAbsurdSizeAreTypedErrors() throws {
        let (w, h) = (40, 40)
        let file = try encodePNG(noisyRGBA(UInt8.self, width: w, height: h, seed: 2), w, h, channels: 4, options(level: 6, filter: nil, channels: 4))
        #expect(throws: ImageFileError.self) { try PNGStreamDecoder(data: file, limits: DecodeLimits(maxPixels: 100, maxBytes: 1 << 30)) }
        var rows = [UInt8](repeating: 0, count: w * h * 4)
        for cut in [file.count / 2, file.count - 20, file.count - 2] {
            #expect(throws: ImageFileError.self, "cut at \(cut) of \(file.count)") {
                let decoder = try PNGStreamDecoder(data: file.prefix(cut))
                try rows.withUnsafeMutableBytes { raw in try decoder.read(into: raw.baseAddress!, rowBytes: w * 4, count: h) }
            }
        }
    }
}
