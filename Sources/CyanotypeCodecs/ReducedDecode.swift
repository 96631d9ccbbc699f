import CTurboJPEG
import CWebP
import Foundation

// Decoding at a fraction of a file's size, for thumbnails and previews: JPEG scales in the
// IDCT (TurboJPEG's scaling factors 1/2, 1/4, 1/8: a 24 MP file decodes at 1/8 in a fraction
// of the time and memory), WebP through its scaled decoder (`use_scaling`, an area average).
// A reduced picture is the same picture on a grid `factor` times coarser: its pixel i covers
// the file's pixels [factor * i, factor * (i + 1)) on each axis. Factors are offered only
// when they divide both sides, so that grid matches the file's exactly (no partial edge
// pixel) and a renderer can finish with an exact resampling.

extension ImageCodecs {
    /// The factors (2, 4, 8; largest first) by which `decode(_:reducedBy:limits:)` can shrink
    /// this still JPEG or WebP (`header` read from `data`) while decoding it; empty for every
    /// other file (animated WebP included), and for sizes the factor does not divide.
    public static func decodeReductions(_ header: ImageHeader, data: Data) -> [Int] {
        guard header.format == .jpeg || header.format == .webp, header.width > 0, header.height > 0 else { return [] }
        if header.format == .jpeg && header.bitDepth != 8 { return [] }
        if header.format == .webp && data.withUnsafeBytes({ AnimatedWebP.isAnimated($0) }) { return [] }
        return [8, 4, 2].filter { header.width % $0 == 0 && header.height % $0 == 0 }
    }

    /// Decodes `data` at 1/`factor` of its size per axis (`factor` one of `decodeReductions`):
    /// RGBA8, `header` the file's (full size), `width`/`height` the reduced size. Strict: a
    /// damaged or truncated file fails with its typed error.
    public static func decode(_ data: Data, reducedBy factor: Int, limits: DecodeLimits = .default) throws(ImageFileError) -> DecodedBitmap {
        try withBytes(data) { bytes throws(ImageFileError) in
            let format = try identify(bytes)
            let header = try readHeader(data)
            guard decodeReductions(header, data: data).contains(factor) else {
                throw .unsupportedFormat("\(header.format.rawValue) \(header.width)x\(header.height) decoded at 1/\(factor)")
            }
            switch format {
            case .jpeg: return try JPEGCodec.decode(bytes, reducedBy: factor, limits: limits)
            case .webp where !AnimatedWebP.isAnimated(bytes): return try WebPCodec.decode(bytes, header: header, reducedBy: factor, limits: limits)
            default: throw .unsupportedFormat("\(format.rawValue) decoded at 1/\(factor)")
            }
        }
    }
}

extension ImageCodecs {
    /// Whether `decode(_:scaledTo:_:limits:)` can decode this file (`header` read from `data`)
    /// at any smaller size: still WebP, whose decoder rescales rows as it decodes them
    /// (libwebp's `use_scaling`), so no full-size picture is ever held.
    public static func decodesAtAnySize(_ header: ImageHeader, data: Data) -> Bool {
        header.format == .webp && header.width > 0 && header.height > 0
            && !data.withUnsafeBytes { AnimatedWebP.isAnimated($0) }
    }

    /// Decodes `data` (a still WebP) straight to `width` x `height` (stored orientation, each
    /// at least 1 and at most the file's): RGBA8, `header` the file's (full size). Pixel `i`
    /// of the result covers the file's pixels [i * W / width, (i + 1) * W / width) on each
    /// axis (libwebp's area-averaging rescaler). Strict: a damaged or truncated file fails
    /// with its typed error.
    public static func decode(_ data: Data, scaledTo width: Int, _ height: Int, limits: DecodeLimits = .default) throws(ImageFileError)
        -> DecodedBitmap
    {
        let header = try scaledDecodeHeader(data, width: width, height: height)
        return try withBytes(data) { bytes throws(ImageFileError) in
            try WebPCodec.decode(bytes, header: header, width: width, height: height, limits: limits)
        }
    }

    /// The header of `data` when it can be decoded straight to `width` x `height` (a still
    /// WebP no smaller than that); the typed error otherwise. What both scaled decoders (whole
    /// and by rows, `WebPStreamDecoder`) check first.
    static func scaledDecodeHeader(_ data: Data, width: Int, height: Int) throws(ImageFileError) -> ImageHeader {
        let header = try readHeader(data)
        guard decodesAtAnySize(header, data: data) else {
            throw .unsupportedFormat("\(header.format.rawValue) decoded at an arbitrary size")
        }
        guard (1...header.width).contains(width), (1...header.height).contains(height) else {
            throw .invalidArgument("a scaled decode of \(header.width)x\(header.height) cannot be \(width)x\(height)")
        }
        return header
    }
}

extension JPEGCodec {
    /// tjDecompress2 at the scaling factor 1/`factor` (the header's size divisible by it).
    static func decode(_ b: UnsafeRawBufferPointer, reducedBy factor: Int, limits: DecodeLimits) throws(ImageFileError) -> DecodedBitmap {
        try withDecompressor { handle throws(ImageFileError) in
            let info = try info(handle, b)
            let width = info.header.width / factor, height = info.header.height / factor
            let limit = limits.pixelLimit(bytesPerPixel: 4)
            guard width * height <= limit else { throw ImageFileError.tooLarge(width: width, height: height, limit: limit) }
            let cmyk = info.header.colorModel == "CMYK"
            let pixels: [UInt8] = try makeArray(count: width * height * 4) { (out: UnsafeMutableBufferPointer<UInt8>) throws(ImageFileError) in
                let flags = Int32(TJFLAG_LIMITSCANS) | Int32(TJFLAG_STOPONWARNING)
                // Asked for exactly width x height, TurboJPEG picks the factor 1/`factor`.
                let rc = tjDecompress2(
                    handle, b.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt(b.count), out.baseAddress,
                    Int32(width), 0, Int32(height), Int32(cmyk ? TJPF_CMYK.rawValue : TJPF_RGBA.rawValue), flags)
                if rc != 0 { throw failure(handle, "data") }
                if cmyk { convertCMYK(out, inverted: info.markers.adobeTransform != nil) }
            }
            return DecodedBitmap(header: info.header, width: width, height: height, bitDepth: 8, pixels: pixels, pixels16: [])
        }
    }
}

extension WebPCodec {
    /// libwebp's decoder with `use_scaling` to 1/`factor` of the header's size.
    static func decode(_ b: UnsafeRawBufferPointer, header: ImageHeader, reducedBy factor: Int, limits: DecodeLimits) throws(ImageFileError)
        -> DecodedBitmap
    {
        try decode(b, header: header, width: header.width / factor, height: header.height / factor, limits: limits)
    }

    /// libwebp's decoder with `use_scaling` to `width` x `height`.
    static func decode(_ b: UnsafeRawBufferPointer, header: ImageHeader, width: Int, height: Int, limits: DecodeLimits) throws(ImageFileError)
        -> DecodedBitmap
    {
        let limit = limits.pixelLimit(bytesPerPixel: 4)
        guard width * height <= limit else { throw .tooLarge(width: width, height: height, limit: limit) }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .corrupt(detail: "WebP: decoder version mismatch") }
        config.options.use_threads = 1
        config.options.use_scaling = 1
        config.options.scaled_width = Int32(width)
        config.options.scaled_height = Int32(height)
        let pixels: [UInt8] = try makeArray(count: width * height * 4) { (out: UnsafeMutableBufferPointer<UInt8>) throws(ImageFileError) in
            config.output.colorspace = MODE_RGBA
            config.output.is_external_memory = 1
            config.output.u.RGBA = WebPRGBABuffer(rgba: out.baseAddress, stride: Int32(width * 4), size: out.count)
            let rc = WebPDecode(b.baseAddress!.assumingMemoryBound(to: UInt8.self), b.count, &config)
            WebPFreeDecBuffer(&config.output)
            guard rc == VP8_STATUS_OK else { throw error(rc, "data", size: b.count) }
        }
        return DecodedBitmap(header: header, width: width, height: height, bitDepth: 8, pixels: pixels, pixels16: [])
    }
}

extension ImageCodecs {
    /// `data` (a JPEG) decoded to RGBA8 by TurboJPEG's scaled IDCT at the smallest of its
    /// scaling factors below 1 (1/8 ... 7/8) whose size is at least `width` x `height` (stored
    /// orientation); nil when none fits, the file is CMYK/YCCK, or TurboJPEG cannot decode it
    /// (the caller then decodes in full). For previews: far cheaper than decoding every pixel
    /// and throwing most away.
    package static func decodeJPEG(_ data: Data, scaledToAtLeast width: Int, _ height: Int) -> (pixels: Data, width: Int, height: Int)? {
        guard let handle = tjInitDecompress() else { return nil }
        defer { tjDestroy(handle) }
        return data.withUnsafeBytes { raw -> (Data, Int, Int)? in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var w: Int32 = 0, h: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            guard tjDecompressHeader3(handle, base, UInt(raw.count), &w, &h, &subsampling, &colorspace) == 0 else { return nil }
            // CMYK and YCCK files go through the full decoder, which converts them.
            guard colorspace != Int32(TJCS_CMYK.rawValue), colorspace != Int32(TJCS_YCCK.rawValue) else { return nil }
            var count: Int32 = 0
            guard let factors = tjGetScalingFactors(&count), count > 0 else { return nil }
            var best: (Int, Int)? = nil
            for i in 0..<Int(count) {
                let f = factors[i]
                guard f.num < f.denom else { continue }
                let sw = (Int(w) * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
                let sh = (Int(h) * Int(f.num) + Int(f.denom) - 1) / Int(f.denom)
                guard sw >= width, sh >= height else { continue }
                if best.map({ sw * sh < $0.0 * $0.1 }) ?? true { best = (sw, sh) }
            }
            guard let (sw, sh) = best else { return nil }
            var out = Data(count: sw * sh * 4)
            let status = out.withUnsafeMutableBytes { dst in
                tjDecompress2(
                    handle, base, UInt(raw.count), dst.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    Int32(sw), 0, Int32(sh), Int32(TJPF_RGBA.rawValue), 0)
            }
            guard status == 0 else { return nil }
            return (out, sw, sh)
        }
    }
}
