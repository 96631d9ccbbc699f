import CTurboJPEG
import Foundation

/// What the JPEG marker segments before the first scan say (parsed in Swift: TurboJPEG 2.1
/// exposes no markers).
struct JPEGMarkers {
    var exif: Data?
    var icc: Data?
    /// The standard XMP packet (APP1 "http://ns.adobe.com/xap/1.0/"); extended XMP is not read.
    var xmp: Data?
    /// The IPTC-IIM records of APP13 "Photoshop 3.0" (its 8BIM resource 0x0404).
    var iptc: Data?
    var jfifDPI: Double?
    /// The JFIF segment's version (major, minor), density unit (0 none, 1 inch, 2 cm) and densities.
    var jfif: (major: Int, minor: Int, unit: Int, x: Int, y: Int)?
    /// APP14 "Adobe" transform byte, when that segment is present (its CMYK is stored inverted).
    var adobeTransform: Int?
    /// Sample precision from the SOF segment (8 for everything TurboJPEG 2.1 decodes).
    var precision: Int?
    /// The SOF marker (0xC0 baseline, 0xC1 extended sequential, 0xC2 progressive, ...).
    var frameType: Int?
    /// Byte offset just after SOI and an APP0 JFIF/JFXX segment if one follows it:
    /// where encode inserts ICC segments.
    var insertionOffset = 2
    /// True when the data ends inside the marker segments, before any scan starts.
    var endsBeforeScan = true

    /// The data of the first 8BIM resource 0x0404 (IPTC-IIM) in `lo..<hi`: each resource is
    /// "8BIM", a 2-byte id, a padded Pascal name, a 4-byte size and the data, padded to even.
    static func iptcRecords(_ b: UnsafeRawBufferPointer, from lo: Int, to hi: Int) -> Data? {
        var p = lo
        while p + 12 <= hi, b.matches("8BIM", at: p) {
            let id = b.be16(p + 4)
            let nameLength = Int(b[p + 6])
            var q = p + 7 + nameLength
            if (nameLength + 1) % 2 == 1 { q += 1 }
            guard q + 4 <= hi else { return nil }
            let size = Int(b.be16(q)) << 16 | Int(b.be16(q + 2))
            let data = q + 4
            guard data + size <= hi else { return nil }
            if id == 0x0404 { return Data(b[data..<(data + size)]) }
            p = data + size + (size % 2)
        }
        return nil
    }

    init(_ b: UnsafeRawBufferPointer) {
        var iccChunks: [Int: UnsafeRawBufferPointer.SubSequence] = [:]
        var iccCount = 0
        var pos = 2  // after SOI
        var first = true
        while pos + 4 <= b.count {
            guard b[pos] == 0xFF else {
                endsBeforeScan = false
                break
            }
            let marker = b[pos + 1]
            if marker == 0xFF { pos += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { pos += 2; continue }  // no length
            if marker == 0xD9 || marker == 0xDA {  // EOI / start of scan
                endsBeforeScan = false
                break
            }
            let length = b.be16(pos + 2)
            guard length >= 2 else {
                endsBeforeScan = false  // a broken length, not a short file
                break
            }
            guard pos + 2 + length <= b.count else { break }
            let start = pos + 4, end = pos + 2 + length
            switch marker {
            case 0xE0 where b.matches("JFIF\u{0}", at: start) && length >= 16:
                let units = b[start + 7], xd = b.be16(start + 8)
                jfif = (Int(b[start + 5]), Int(b[start + 6]), Int(units), xd, b.be16(start + 10))
                if xd > 0 && units == 1 { jfifDPI = Double(xd) }
                if xd > 0 && units == 2 { jfifDPI = Double(xd) * 2.54 }
                if first { insertionOffset = end }
            case 0xE0 where first:
                insertionOffset = end
            case 0xE1 where exif == nil && b.matches("Exif\u{0}\u{0}", at: start):
                exif = Data(b[(start + 6)..<end])
            case 0xE1 where xmp == nil && b.matches("http://ns.adobe.com/xap/1.0/\u{0}", at: start):
                xmp = Data(b[(start + 29)..<end])
            case 0xED where iptc == nil && b.matches("Photoshop 3.0\u{0}", at: start):
                iptc = JPEGMarkers.iptcRecords(b, from: start + 14, to: end)
            case 0xE2 where b.matches("ICC_PROFILE\u{0}", at: start) && length >= 16:
                let seq = Int(b[start + 12]), count = Int(b[start + 13])
                if seq >= 1 && iccChunks[seq] == nil {
                    iccChunks[seq] = b[(start + 14)..<end]
                    iccCount = max(iccCount, count)
                }
            case 0xEE where b.matches("Adobe", at: start) && length >= 14:
                adobeTransform = Int(b[start + 11])
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                if length >= 3 { precision = Int(b[start]) }
                frameType = Int(marker)
            default: break
            }
            first = false
            pos = end
        }
        // Reassemble ICC chunks in sequence order; a missing chunk drops the profile.
        if iccCount > 0 && (1...iccCount).allSatisfy({ iccChunks[$0] != nil }) {
            var data = Data()
            for i in 1...iccCount { data.append(contentsOf: iccChunks[i]!) }
            icc = data
        }
    }
}

/// JPEG through TurboJPEG: errors come back as -1 plus a message, nothing longjmps.
enum JPEGCodec {
    static func lastError(_ handle: tjhandle?) -> String {
        guard let s = tjGetErrorStr2(handle) else { return "unknown TurboJPEG error" }
        return String(cString: s)
    }

    /// Classifies a TurboJPEG failure: running out of data is `.truncated`, the rest `.corrupt`.
    static func failure(_ handle: tjhandle?, _ stage: String) -> ImageFileError {
        let text = lastError(handle)
        if text.contains("Premature end") || text.contains("insufficient data") || text.contains("empty input") {
            return .truncated(detail: "JPEG \(stage): \(text)")
        }
        return .corrupt(detail: "JPEG \(stage): \(text)")
    }

    struct Info {
        var header: ImageHeader
        var colorspace: Int32
        var markers: JPEGMarkers
    }

    static func info(_ handle: tjhandle, _ b: UnsafeRawBufferPointer) throws(ImageFileError) -> Info {
        var w: Int32 = 0, h: Int32 = 0, subsamp: Int32 = 0, cs: Int32 = 0
        let base = b.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let markers = JPEGMarkers(b)
        if let p = markers.precision, p != 8 {
            throw .unsupportedFormat("\(p)-bit JPEG (only 8-bit JPEG is supported)")
        }
        if tjDecompressHeader3(handle, base, UInt(b.count), &w, &h, &subsamp, &cs) != 0 {
            if markers.endsBeforeScan {
                throw .truncated(detail: "JPEG header: the data ends before the first scan (\(b.count) bytes)")
            }
            throw failure(handle, "header")
        }
        // TurboJPEG 2.1.5 returns 0 on a header cut short and leaves the size untouched.
        guard w > 0, h > 0 else {
            throw .truncated(detail: "JPEG header: the data ends before the frame size (\(b.count) bytes)")
        }
        let channels: Int, model: String
        switch cs {
        case Int32(TJCS_GRAY.rawValue): channels = 1; model = "Gray"
        case Int32(TJCS_CMYK.rawValue), Int32(TJCS_YCCK.rawValue): channels = 4; model = "CMYK"
        default: channels = 3; model = "RGB"
        }
        var header = ImageHeader(
            format: .jpeg, width: Int(w), height: Int(h), channels: channels, bitDepth: 8, hasAlpha: false,
            colorModel: model, iccProfile: markers.icc, dpi: markers.jfifDPI, exif: markers.exif, xmp: markers.xmp)
        header.iptc = markers.iptc
        if let j = markers.jfif {
            header.formatProperties["JFIFVersion"] = .ints([j.major, j.minor / 10, j.minor % 10])
            header.formatProperties["DensityUnit"] = .int(j.unit)
            header.formatProperties["XDensity"] = .int(j.x)
            header.formatProperties["YDensity"] = .int(j.y)
        }
        // SOF2, SOF6, SOF10, SOF14: progressive.
        header.formatProperties["IsProgressive"] = .bool([0xC2, 0xC6, 0xCA, 0xCE].contains(markers.frameType ?? 0))
        if let exif = markers.exif {
            let summary = EXIFSummary(tiff: exif)
            header.orientation = summary.orientation ?? 1
            if header.dpi == nil { header.dpi = summary.dpi }
        }
        return Info(header: header, colorspace: cs, markers: markers)
    }

    static func withDecompressor<R>(_ body: (tjhandle) throws(ImageFileError) -> R) throws(ImageFileError) -> R {
        guard let handle = tjInitDecompress() else { throw .corrupt(detail: "JPEG: cannot create a decompressor") }
        defer { tjDestroy(handle) }
        return try body(handle)
    }

    static func readHeader(_ b: UnsafeRawBufferPointer) throws(ImageFileError) -> ImageHeader {
        try withDecompressor { handle throws(ImageFileError) in try info(handle, b).header }
    }

    static func decode(_ b: UnsafeRawBufferPointer, limits: DecodeLimits, strict: Bool) throws(ImageFileError) -> DecodedBitmap {
        try withDecompressor { handle throws(ImageFileError) in
            let info = try info(handle, b)
            let width = info.header.width, height = info.header.height
            let limit = limits.pixelLimit(bytesPerPixel: 4)
            guard width * height <= limit else { throw ImageFileError.tooLarge(width: width, height: height, limit: limit) }
            let cmyk = info.header.colorModel == "CMYK"
            var complete = true
            let pixels: [UInt8] = try makeArray(count: width * height * 4) { (out: UnsafeMutableBufferPointer<UInt8>) throws(ImageFileError) in
                // TJFLAG_LIMITSCANS refuses progressive files with absurd scan counts (a CPU DoS).
                let flags = Int32(TJFLAG_LIMITSCANS) | (strict ? Int32(TJFLAG_STOPONWARNING) : 0)
                let rc = tjDecompress2(
                    handle, b.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(b.count), out.baseAddress,
                    Int32(width), 0, Int32(height), Int32(cmyk ? TJPF_CMYK.rawValue : TJPF_RGBA.rawValue), flags)
                if rc != 0 {
                    let warning = tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue)
                    if strict || !warning { throw failure(handle, "data") }
                    complete = false  // lenient: TurboJPEG filled the missing part with grey
                }
                if cmyk { convertCMYK(out, inverted: info.markers.adobeTransform != nil) }
            }
            return DecodedBitmap(
                header: info.header, width: width, height: height, bitDepth: 8, pixels: pixels, pixels16: [],
                isComplete: complete)
        }
    }

    /// CMYK → RGB in place (alpha 255). Adobe files store CMYK inverted (0 = full ink), which is
    /// what nearly all CMYK JPEGs are; without the APP14 marker the values are taken as plain ink.
    static func convertCMYK(_ px: UnsafeMutableBufferPointer<UInt8>, inverted: Bool) {
        let p = px.baseAddress!
        var i = 0
        while i < px.count {
            var c = UInt32(p[i]), m = UInt32(p[i + 1]), y = UInt32(p[i + 2]), k = UInt32(p[i + 3])
            if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            p[i] = UInt8(truncatingIfNeeded: (c * k + 127) / 255)
            p[i + 1] = UInt8(truncatingIfNeeded: (m * k + 127) / 255)
            p[i + 2] = UInt8(truncatingIfNeeded: (y * k + 127) / 255)
            p[i + 3] = 255
            i += 4
        }
    }

    static func encode(
        _ rgba: UnsafeBufferPointer<UInt8>, width: Int, height: Int, options: EncodeOptions
    ) throws(ImageFileError) -> Data {
        guard options.quality >= 0, options.quality <= 1 else {
            throw .invalidArgument("quality must be in 0...1, got \(options.quality)")
        }
        guard width <= 65_500, height <= 65_500 else {
            throw .invalidArgument("JPEG width and height must be at most 65500, got \(width)x\(height)")
        }
        guard let handle = tjInitCompress() else { throw .encodeFailed(detail: "JPEG: cannot create a compressor") }
        defer { tjDestroy(handle) }
        let quality = max(1, min(100, Int32((options.quality * 100).rounded())))
        let subsamp: TJSAMP =
            switch options.chromaSubsampling {
            case .s444: TJSAMP_444
            case .s422: TJSAMP_422
            case .s420: TJSAMP_420
            }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let flags = Int32(TJFLAG_ACCURATEDCT) | (options.progressive ? Int32(TJFLAG_PROGRESSIVE) : 0)
        let rc: Int32
        if options.grayscale {
            // One grey component, from the green samples.
            let count = width * height
            let grey = [UInt8](unsafeUninitializedCapacity: count) { dst, n in
                let src = rgba.baseAddress!
                for i in 0..<count { dst[i] = src[4 * i + 1] }
                n = count
            }
            rc = tjCompress2(
                handle, grey, Int32(width), Int32(width), Int32(height), Int32(TJPF_GRAY.rawValue),
                &out, &size, Int32(TJSAMP_GRAY.rawValue), quality, flags)
        } else {
            rc = tjCompress2(
                handle, rgba.baseAddress, Int32(width), Int32(width * 4), Int32(height), Int32(TJPF_RGBA.rawValue),
                &out, &size, Int32(subsamp.rawValue), quality, flags)
        }
        defer { if let out { tjFree(out) } }
        guard rc == 0, let out, size > 0 else { throw .encodeFailed(detail: "JPEG: \(lastError(handle))") }
        return try addMetadata(to: UnsafeRawBufferPointer(start: out, count: Int(size)), options: options)
    }

    /// The encoder's bytes with the EXIF, XMP and ICC segments of `options` spliced in, in
    /// that order, after SOI and the JFIF APP0 segment.
    static func addMetadata(to jpeg: UnsafeRawBufferPointer, options: EncodeOptions) throws(ImageFileError) -> Data {
        var bytes = [UInt8](jpeg)
        if let dpi = options.dpi, dpi.isFinite, dpi >= 1 { setJFIFDensity(&bytes, dpi: dpi) }
        var segments: [UInt8] = []
        if let exif = options.exif, !exif.isEmpty, exif.count <= 65_535 - 8 {
            segments += segment(0xE1, Array("Exif".utf8) + [0, 0], exif)
        }
        // One APP1 segment each: a block larger than a segment (extended XMP, which splits a
        // packet over several, is not written) is left out, as an oversized EXIF block is.
        if let xmp = options.xmp, !xmp.isEmpty, xmp.count <= 65_535 - 2 - xmpSignature.count {
            segments += segment(0xE1, xmpSignature, xmp)
        }
        if let icc = options.iccProfile, !icc.isEmpty { segments += try iccSegments(icc) }
        guard !segments.isEmpty else { return Data(bytes) }
        let at = bytes.withUnsafeBytes { JPEGMarkers($0).insertionOffset }
        bytes.insert(contentsOf: segments, at: at)
        return Data(bytes)
    }

    /// "http://ns.adobe.com/xap/1.0/\0": the start of an APP1 segment holding XMP.
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

    /// One marker segment: marker, length, signature, payload.
    static func segment(_ marker: UInt8, _ signature: [UInt8], _ payload: Data) -> [UInt8] {
        let length = 2 + signature.count + payload.count
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + signature + [UInt8](payload)
    }

    /// `icc` as APP2 "ICC_PROFILE" segments.
    static func iccSegments(_ icc: Data) throws(ImageFileError) -> [UInt8] {
        let perChunk = 65_535 - 2 - 14
        let chunks = (icc.count + perChunk - 1) / perChunk
        guard chunks <= 255 else {
            throw .invalidArgument("ICC profile of \(icc.count) bytes is too large for JPEG (at most \(255 * perChunk))")
        }
        var out: [UInt8] = []
        out.reserveCapacity(icc.count + chunks * 18)
        for i in 0..<chunks {
            let lo = i * perChunk, hi = min(icc.count, lo + perChunk)
            out += segment(0xE2, Array("ICC_PROFILE".utf8) + [0, UInt8(i + 1), UInt8(chunks)], icc[(icc.startIndex + lo)..<(icc.startIndex + hi)])
        }
        return out
    }

    /// Writes `dpi` (dots per inch, rounded) into the APP0 JFIF segment libjpeg puts right
    /// after SOI; leaves files without one unchanged.
    static func setJFIFDensity(_ b: inout [UInt8], dpi: Double) {
        // FF D8, FF E0, length(2), "JFIF\0", version(2), units, Xdensity(2), Ydensity(2)
        guard b.count >= 18, b[2] == 0xFF, b[3] == 0xE0, Array(b[6..<11]) == Array("JFIF\u{0}".utf8) else { return }
        let d = UInt16(min(max(dpi.rounded(), 1), 65_535))
        b[13] = 1
        b[14] = UInt8(d >> 8); b[15] = UInt8(d & 0xFF)
        b[16] = UInt8(d >> 8); b[17] = UInt8(d & 0xFF)
    }
}
