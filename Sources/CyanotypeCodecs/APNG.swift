import Foundation

/// Animated PNG, written here over libspng: Debian's libpng lacks the APNG patch and libspng
/// does not know APNG, but APNG's chunks (acTL, fcTL, fdAT; see the APNG specification) only
/// wrap ordinary zlib-compressed PNG rows. Reading rebuilds each frame as a small PNG (IHDR
/// with the frame's size, the shared chunks such as PLTE/tRNS/iCCP, its data as IDAT) and
/// decodes that with libspng; writing encodes each frame with `PNGWriter` and moves its IDAT data
/// into fdAT chunks. Every chunk written carries its CRC; strict reads check every CRC.
enum APNG {
    /// True for a PNG with an acTL chunk before its first IDAT.
    static func isAnimated(_ b: UnsafeRawBufferPointer) -> Bool {
        guard b.count >= 8 + 12, ImageCodecs.sniff(bytes: b) == .png else { return false }
        var pos = 8
        while pos + 8 <= b.count {
            let length = b.be32(pos)
            if b.matches("acTL", at: pos + 4) { return true }
            if b.matches("IDAT", at: pos + 4) || b.matches("IEND", at: pos + 4) { return false }
            guard length <= b.count, pos + 12 + length <= b.count else { return false }
            pos += 12 + length
        }
        return false
    }

    struct Chunk {
        var type: String
        var data: Range<Int>
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc(_ parts: [UnsafeRawBufferPointer]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        crcTable.withUnsafeBufferPointer { t in
            for p in parts { for byte in p { c = t[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) } }
        }
        return c ^ 0xFFFF_FFFF
    }

    /// Appends a chunk (length, type, data, CRC).
    static func append(_ type: String, _ payload: UnsafeRawBufferPointer, to out: inout Data) {
        let t = Array(type.utf8)
        out.append(be: UInt32(payload.count))
        out.append(contentsOf: t)
        out.append(contentsOf: payload)
        let c = t.withUnsafeBytes { crc([$0, payload]) }
        out.append(be: c)
    }
    static func append(_ type: String, _ payload: [UInt8], to out: inout Data) {
        payload.withUnsafeBytes { append(type, $0, to: &out) }
    }

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}

extension Data {
    mutating func append(be v: UInt32) { append(contentsOf: [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]) }
    mutating func append(be16 v: UInt16) { append(contentsOf: [UInt8(v >> 8), UInt8(v & 0xFF)]) }
}

/// An APNG's frames, rebuilt as PNGs, decoded with libspng and composited in order.
struct APNGFrames: FrameSource {
    let sequence: FrameSequence
    let data: Data
    let limits: DecodeLimits
    let strict: Bool
    /// IHDR's payload, the chunks every frame shares, and each frame's data chunks (payload
    /// ranges, fdAT's sequence number already skipped).
    let ihdr: Range<Int>
    let shared: [APNG.Chunk]
    let frameData: [[Range<Int>]]
    var canvas8: Canvas<UInt8>
    var canvas16: Canvas<UInt16>?
    var isSequential: Bool { true }

    init(data: Data, limits: DecodeLimits, strict: Bool) throws(ImageFileError) {
        self.data = data
        self.limits = limits
        self.strict = strict
        let header = try ImageCodecs.readHeader(data)
        let parsed = try withBytes(data) { (b) throws(ImageFileError) in
            try APNGFrames.parse(b, header: header, limits: limits, strict: strict)
        }
        ihdr = parsed.ihdr
        shared = parsed.shared
        frameData = parsed.data
        sequence = FrameSequence(
            format: .png, canvasWidth: header.width, canvasHeight: header.height, loopCount: parsed.loops,
            frames: parsed.frames, isAnimation: true, headers: [header])
        canvas8 = Canvas<UInt8>(width: header.width, height: header.height)
        if header.bitDepth == 16 { canvas16 = Canvas<UInt16>(width: header.width, height: header.height) }
    }

    static func parse(_ b: UnsafeRawBufferPointer, header: ImageHeader, limits: DecodeLimits, strict: Bool) throws(ImageFileError)
        -> (ihdr: Range<Int>, shared: [APNG.Chunk], frames: [FrameInfo], data: [[Range<Int>]], loops: Int)
    {
        let W = header.width, H = header.height
        try limits.checkPixels(W, H, bytesPerPixel: header.bitDepth == 16 ? 8 : 4)
        let frameLimit = limits.frameLimit(pixelsPerFrame: W * H)
        var pos = 8
        var ihdr: Range<Int>?
        var shared: [APNG.Chunk] = []
        var frames: [FrameInfo] = []
        var data: [[Range<Int>]] = []
        var declared = 0, loops = 0
        var seenIDAT = false, seenEnd = false
        var expectSequence = 0
        func ended(_ what: String) -> ImageFileError { .truncated(detail: "APNG: the data ends inside \(what) (\(b.count) bytes)") }
        while pos + 8 <= b.count {
            let length = b.be32(pos)
            let type = String(decoding: UnsafeRawBufferPointer(rebasing: b[(pos + 4)..<(pos + 8)]), as: UTF8.self)
            guard length <= Int(Int32.max), pos + 12 + length <= b.count else {
                if strict || frames.isEmpty { throw ended("chunk \(type)") }
                break
            }
            let payload = (pos + 8)..<(pos + 8 + length)
            if strict {
                let stored = UInt32(b.be32(pos + 8 + length))
                let computed = APNG.crc([UnsafeRawBufferPointer(rebasing: b[(pos + 4)..<(pos + 8 + length)])])
                guard stored == computed else { throw .corrupt(detail: "APNG: chunk \(type) has a bad CRC") }
            }
            switch type {
            case "IHDR": ihdr = payload
            case "acTL":
                guard length == 8 else { throw .corrupt(detail: "APNG: acTL is \(length) bytes, not 8") }
                declared = b.be32(payload.lowerBound)
                loops = b.be32(payload.lowerBound + 4)
                guard declared >= 1 else { throw .corrupt(detail: "APNG: acTL declares no frames") }
                guard declared <= frameLimit else { throw .tooManyFrames(count: declared, limit: frameLimit) }
            case "fcTL":
                guard length == 26 else { throw .corrupt(detail: "APNG: fcTL is \(length) bytes, not 26") }
                let p = payload.lowerBound
                let seq = b.be32(p)
                if strict && seq != expectSequence { throw .corrupt(detail: "APNG: sequence number \(seq), expected \(expectSequence)") }
                expectSequence = seq + 1
                let w = b.be32(p + 4), h = b.be32(p + 8), x = b.be32(p + 12), y = b.be32(p + 16)
                let num = b.be16(p + 20), den = b.be16(p + 22)
                let dispose = Int(b[p + 24]), blend = Int(b[p + 25])
                guard w > 0, h > 0, x + w <= W, y + h <= H else {
                    throw .corrupt(detail: "APNG frame \(frames.count + 1) (\(w)x\(h) at \(x),\(y)) lies outside the \(W)x\(H) canvas")
                }
                guard dispose <= 2, blend <= 1 else { throw .corrupt(detail: "APNG frame \(frames.count + 1): dispose \(dispose), blend \(blend)") }
                guard frames.count < frameLimit else { throw .tooManyFrames(count: frames.count + 1, limit: frameLimit) }
                var disposal: FrameDisposal = dispose == 1 ? .background : dispose == 2 ? .previous : .none
                // The first frame's "previous" is the cleared canvas (the specification's rule).
                if frames.isEmpty && disposal == .previous { disposal = .background }
                frames.append(
                    FrameInfo(
                        x: x, y: y, width: w, height: h, delay: Double(num) / Double(den == 0 ? 100 : den),
                        disposal: disposal, blend: blend == 1 ? .over : .source))
                data.append([])
            case "IDAT":
                seenIDAT = true
                // IDAT belongs to the animation only when an fcTL came before it.
                if !data.isEmpty && frames.count == 1 { data[0].append(payload) }
            case "fdAT":
                guard length >= 4, !data.isEmpty else { throw .corrupt(detail: "APNG: fdAT before any fcTL") }
                let seq = b.be32(payload.lowerBound)
                if strict && seq != expectSequence { throw .corrupt(detail: "APNG: sequence number \(seq), expected \(expectSequence)") }
                expectSequence = seq + 1
                data[data.count - 1].append((payload.lowerBound + 4)..<payload.upperBound)
            case "IEND":
                seenEnd = true
            default:
                // Chunks before the image data describe every frame (PLTE, tRNS, iCCP, gAMA, ...).
                if !seenIDAT { shared.append(APNG.Chunk(type: type, data: payload)) }
            }
            if seenEnd { break }
            pos += 12 + length
        }
        guard let ihdr, ihdr.count == 13 else { throw .corrupt(detail: "APNG: no IHDR") }
        if !seenEnd {
            if strict { throw ended("the animation") }
            while let last = data.last, last.isEmpty { data.removeLast(); frames.removeLast() }
        }
        if strict && frames.count != declared {
            throw .corrupt(detail: "APNG: acTL declares \(declared) frames, the file has \(frames.count)")
        }
        guard !frames.isEmpty, data.allSatisfy({ !$0.isEmpty }) else { throw .corrupt(detail: "APNG: a frame has no image data") }
        return (ihdr, shared, frames, data, loops)
    }

    mutating func reset() {
        canvas8.clear()
        canvas16?.clear()
    }

    /// Frame `index` as a PNG of its own.
    func framePNG(_ index: Int) -> Data {
        let f = sequence.frames[index]
        var out = Data(APNG.signature)
        data.withUnsafeBytes { b in
            var h = [UInt8](b[ihdr])
            for (i, v) in [f.width, f.height].enumerated() {
                h[i * 4] = UInt8(v >> 24 & 0xFF); h[i * 4 + 1] = UInt8(v >> 16 & 0xFF); h[i * 4 + 2] = UInt8(v >> 8 & 0xFF); h[i * 4 + 3] = UInt8(v & 0xFF)
            }
            APNG.append("IHDR", h, to: &out)
            for c in shared { APNG.append(c.type, UnsafeRawBufferPointer(rebasing: b[c.data]), to: &out) }
            for r in frameData[index] { APNG.append("IDAT", UnsafeRawBufferPointer(rebasing: b[r]), to: &out) }
            APNG.append("IEND", [], to: &out)
        }
        return out
    }

    mutating func decode(_ index: Int) throws(ImageFileError) -> DecodedBitmap {
        let f = sequence.frames[index]
        let bitmap: DecodedBitmap
        do {
            bitmap = try ImageCodecs.decode(framePNG(index), as: .png, limits: limits, strict: strict)
        } catch {
            throw Self.named(error, frame: index)
        }
        guard bitmap.width == f.width, bitmap.height == f.height else { throw .corrupt(detail: "APNG frame \(index + 1): wrong size") }
        let header = sequence.headers[0]
        if var c16 = canvas16, bitmap.bitDepth == 16 {
            let r = c16.begin(x: f.x, y: f.y, w: f.width, h: f.height, disposal: f.disposal)
            bitmap.pixels16.withUnsafeBufferPointer { c16.draw($0.baseAddress!, rowSamples: f.width * 4, at: r, over: f.blend == .over) }
            canvas16 = c16
            return c16.bitmap(header)
        }
        let r = canvas8.begin(x: f.x, y: f.y, w: f.width, h: f.height, disposal: f.disposal)
        bitmap.pixels.withUnsafeBufferPointer { canvas8.draw($0.baseAddress!, rowBytes: f.width * 4, sx: 0, sy: 0, at: r, over: f.blend == .over) }
        var out = canvas8.bitmap(header)
        out.isComplete = bitmap.isComplete
        return out
    }

    static func named(_ e: ImageFileError, frame: Int) -> ImageFileError {
        switch e {
        case .truncated(let d): return .truncated(detail: "APNG frame \(frame + 1): \(d)")
        case .corrupt(let d): return .corrupt(detail: "APNG frame \(frame + 1): \(d)")
        default: return e
        }
    }
}

/// Writes APNG: each frame encoded by `PNGWriter` (same colour type and depth for all), its zlib
/// data moved into IDAT (first frame, also the image non-APNG readers show) or fdAT chunks.
struct APNGWriter: FrameSink {
    var options: EncodeOptions
    var width = 0, height = 0
    var hasAlpha = true
    var sixteen = false
    /// Chunks of the first frame before its data (iCCP, pHYs, eXIf, the XMP iTXt, ...), and
    /// every frame's fcTL fields and zlib data.
    var leading = Data()
    var ihdr: [UInt8] = []
    var frames: [(delay: Double, data: [Data])] = []

    init(options: EncodeOptions) {
        self.options = options
        self.options.grayscale = false  // every frame must share one colour type
    }

    mutating func add(_ pixels: FramePixels, width w: Int, height h: Int, hasAlpha a: Bool, delay: Double) throws(ImageFileError) {
        if frames.isEmpty {
            width = w
            height = h
            hasAlpha = a
            if case .u8 = pixels { sixteen = false } else { sixteen = true }
        }
        guard w == width, h == height else {
            throw .invalidArgument("every APNG frame must be \(width)x\(height) (the first frame's size), got \(w)x\(h)")
        }
        let png: Data
        switch pixels {
        case .u8(let p) where !sixteen:
            png = try PNGCodec.encode(p, width: w, height: h, hasAlpha: hasAlpha, options: options)
        case .u16(let p) where sixteen:
            png = try PNGCodec.encode(p, width: w, height: h, hasAlpha: hasAlpha, options: options)
        default:
            // Mixed depths: the first frame decides; others are converted.
            if sixteen {
                let words: [UInt16]
                switch pixels {
                case .u8(let p): words = p.map { UInt16($0) * 257 }
                case .f32(let p): words = p.map { $0.isNaN ? 0 : UInt16((min(max($0, 0), 1) * 65535).rounded()) }
                case .u16(let p): words = Array(p)
                }
                png = try words.withUnsafeBufferPointer { (b) throws(ImageFileError) in
                    try PNGCodec.encode(b, width: w, height: h, hasAlpha: hasAlpha, options: options)
                }
            } else {
                let opts = options, alpha = hasAlpha
                png = try pixels.withEightBit { (b) throws(ImageFileError) in try PNGCodec.encode(b, width: w, height: h, hasAlpha: alpha, options: opts) }
            }
        }
        var idat: [Data] = []
        let isFirst = frames.isEmpty
        var head: [UInt8] = [], lead = Data()
        try withBytes(png) { (b: UnsafeRawBufferPointer) throws(ImageFileError) in
            var pos = 8
            var seenIDAT = false
            while pos + 12 <= b.count {
                let length = b.be32(pos)
                guard pos + 12 + length <= b.count else { throw ImageFileError.encodeFailed(detail: "APNG: unexpected PNG encoder output") }
                let type = String(decoding: UnsafeRawBufferPointer(rebasing: b[(pos + 4)..<(pos + 8)]), as: UTF8.self)
                let payload = UnsafeRawBufferPointer(rebasing: b[(pos + 8)..<(pos + 8 + length)])
                switch type {
                case "IHDR": if isFirst { head = Array(payload) }
                case "IDAT": idat.append(Data(payload)); seenIDAT = true
                case "IEND": break
                default: if isFirst && !seenIDAT { APNG.append(type, payload, to: &lead) }
                }
                pos += 12 + length
            }
        }
        guard !idat.isEmpty else { throw .encodeFailed(detail: "APNG: the PNG encoder wrote no image data") }
        if isFirst {
            ihdr = head
            leading = lead
            // The file's ICC, EXIF and XMP came with the first frame's chunks: later frames
            // would encode them only to drop them.
            options.iccProfile = nil
            options.exif = nil
            options.xmp = nil
        }
        frames.append((delay, idat))
    }

    mutating func finish(loopCount: Int?) throws(ImageFileError) -> Data {
        var out = Data(APNG.signature)
        APNG.append("IHDR", ihdr, to: &out)
        var actl = Data()
        actl.append(be: UInt32(frames.count))
        actl.append(be: UInt32(loopCount ?? 0))
        actl.withUnsafeBytes { APNG.append("acTL", $0, to: &out) }
        out.append(leading)
        var sequence: UInt32 = 0
        for (i, f) in frames.enumerated() {
            var fctl = Data()
            fctl.append(be: sequence)
            sequence += 1
            fctl.append(be: UInt32(width))
            fctl.append(be: UInt32(height))
            fctl.append(be: 0)
            fctl.append(be: 0)
            // Milliseconds when they fit in 16 bits, else hundredths.
            let ms = (f.delay * 1000).rounded()
            if ms <= 65535 {
                fctl.append(be16: UInt16(ms))
                fctl.append(be16: 1000)
            } else {
                fctl.append(be16: UInt16(min((f.delay * 100).rounded(), 65535)))
                fctl.append(be16: 100)
            }
            fctl.append(contentsOf: [0, 0])  // dispose none, blend source: each frame is whole
            fctl.withUnsafeBytes { APNG.append("fcTL", $0, to: &out) }
            for d in f.data {
                if i == 0 {
                    d.withUnsafeBytes { APNG.append("IDAT", $0, to: &out) }
                } else {
                    var fdat = Data()
                    fdat.append(be: sequence)
                    sequence += 1
                    fdat.append(d)
                    fdat.withUnsafeBytes { APNG.append("fdAT", $0, to: &out) }
                }
            }
        }
        APNG.append("IEND", [], to: &out)
        return out
    }
}
