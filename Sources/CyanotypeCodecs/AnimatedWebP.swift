import CWebP
import Foundation

/// Animated WebP through libwebp's demuxer (frame table, loop count), animation decoder (which
/// composites each frame onto the canvas) and animation encoder (which finds each frame's
/// changed rectangle itself).
enum AnimatedWebP {
    /// True for an extended WebP (VP8X) whose animation flag is set.
    static func isAnimated(_ b: UnsafeRawBufferPointer) -> Bool {
        b.count >= 21 && b.matches("RIFF", at: 0) && b.matches("WEBP", at: 8) && b.matches("VP8X", at: 12) && b[20] & 0x02 != 0
    }

    /// The error for a file libwebp's demuxer refused: truncated when the RIFF size says more
    /// bytes should follow.
    static func refused(_ b: UnsafeRawBufferPointer, _ what: String) -> ImageFileError {
        if b.count >= 8, b.le32(4) + 8 > b.count { return .truncated(detail: "animated WebP: the data ends early (\(b.count) bytes)") }
        return .corrupt(detail: "animated WebP: \(what)")
    }

    /// Reads the frame table with the demuxer; frames and the canvas are checked against `limits`.
    static func sequence(_ b: UnsafeRawBufferPointer, limits: DecodeLimits) throws(ImageFileError) -> FrameSequence {
        var wd = WebPData(bytes: b.baseAddress!.assumingMemoryBound(to: UInt8.self), size: b.count)
        guard let demux = WebPDemux(&wd) else { throw refused(b, "the container is invalid") }
        defer { WebPDemuxDelete(demux) }
        let w = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)), h = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
        try limits.checkPixels(w, h)
        let count = Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT))
        try limits.checkFrames(count, canvasPixels: w * h)
        guard count > 0 else { throw .corrupt(detail: "animated WebP has no frames") }
        var frames: [FrameInfo] = []
        frames.reserveCapacity(count)
        var iter = WebPIterator()
        var alpha = false
        for i in 1...count {
            guard WebPDemuxGetFrame(demux, Int32(i), &iter) != 0 else { throw .corrupt(detail: "animated WebP: frame \(i) is missing") }
            frames.append(
                FrameInfo(
                    x: Int(iter.x_offset), y: Int(iter.y_offset), width: Int(iter.width), height: Int(iter.height),
                    delay: Double(iter.duration) / 1000, disposal: iter.dispose_method == WEBP_MUX_DISPOSE_BACKGROUND ? .background : .none,
                    blend: iter.blend_method == WEBP_MUX_BLEND ? .over : .source))
            alpha = alpha || iter.has_alpha != 0
            WebPDemuxReleaseIterator(&iter)
        }
        let first = frames[0]
        if first.x != 0 || first.y != 0 || first.width != w || first.height != h { alpha = true }
        let flags = WebPDemuxGetI(demux, WEBP_FF_FORMAT_FLAGS)
        if flags & UInt32(ALPHA_FLAG.rawValue) != 0 { alpha = true }
        var header = ImageHeader(format: .webp, width: w, height: h, channels: alpha ? 4 : 3, bitDepth: 8, hasAlpha: alpha, colorModel: "RGB")
        WebPChunks(b).readMetadata(b, into: &header)
        return FrameSequence(
            format: .webp, canvasWidth: w, canvasHeight: h, loopCount: Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT)),
            frames: frames, isAnimation: true, headers: [header])
    }

    static func readHeader(_ b: UnsafeRawBufferPointer) throws(ImageFileError) -> ImageHeader {
        try sequence(b, limits: .default).headers[0]
    }

    /// An animated WebP's frames, composited by libwebp's animation decoder.
    final class Frames: FrameSource {
        let sequence: FrameSequence
        let bytes: UnsafeMutableRawBufferPointer
        var decoder: OpaquePointer?
        var data: WebPData
        var isSequential: Bool { true }

        init(data d: Data, limits: DecodeLimits) throws(ImageFileError) {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(d.count, 1), alignment: 16)
            d.withUnsafeBytes { if let p = $0.baseAddress { copy.baseAddress!.copyMemory(from: p, byteCount: d.count) } }
            bytes = copy
            let view = UnsafeRawBufferPointer(start: copy.baseAddress, count: d.count)
            data = WebPData(bytes: copy.baseAddress!.assumingMemoryBound(to: UInt8.self), size: d.count)
            do {
                sequence = try AnimatedWebP.sequence(view, limits: limits)
            } catch {
                bytes.deallocate()
                throw error
            }
            var options = WebPAnimDecoderOptions()
            guard WebPAnimDecoderOptionsInit(&options) != 0 else {
                bytes.deallocate()
                throw .corrupt(detail: "animated WebP: libwebp version mismatch")
            }
            options.color_mode = MODE_RGBA
            options.use_threads = 0
            guard let dec = WebPAnimDecoderNew(&data, &options) else {
                bytes.deallocate()
                throw AnimatedWebP.refused(view, "the animation cannot be decoded")
            }
            decoder = dec
        }
        deinit {
            if let decoder { WebPAnimDecoderDelete(decoder) }
            bytes.deallocate()
        }

        func reset() { if let decoder { WebPAnimDecoderReset(decoder) } }

        func decode(_ index: Int) throws(ImageFileError) -> DecodedBitmap {
            var buffer: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard let decoder, WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else {
                throw AnimatedWebP.refused(
                    UnsafeRawBufferPointer(start: bytes.baseAddress, count: data.size),
                    "frame \(index + 1) cannot be decoded")
            }
            let n = sequence.canvasWidth * sequence.canvasHeight * 4
            let pixels = [UInt8](UnsafeBufferPointer(start: buffer, count: n))
            return DecodedBitmap(
                header: sequence.headers[0], width: sequence.canvasWidth, height: sequence.canvasHeight, bitDepth: 8,
                pixels: pixels, pixels16: [])
        }
    }

    /// Frame 0 of an animated WebP.
    static func decode(_ b: UnsafeRawBufferPointer, limits: DecodeLimits) throws(ImageFileError) -> DecodedBitmap {
        try Frames(data: Data(b), limits: limits).decode(0)
    }

    /// Encodes with libwebp's animation encoder: lossy at `quality` or lossless, every frame
    /// the first frame's size; the loop count is written into the ANIM chunk at the end.
    final class Writer: FrameSink {
        let options: EncodeOptions
        var encoder: OpaquePointer?
        var config = WebPConfig()
        var width = 0, height = 0
        /// Milliseconds from the start to the current frame.
        var elapsed: Double = 0

        init(options: EncodeOptions) throws(ImageFileError) {
            self.options = options
            guard options.quality >= 0, options.quality <= 1 else { throw .invalidArgument("quality must be in 0...1, got \(options.quality)") }
            guard WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, options.lossless ? 70 : Float(options.quality * 100)) != 0 else {
                throw .encodeFailed(detail: "WebP: libwebp version mismatch")
            }
            config.lossless = options.lossless ? 1 : 0
            if let effort = options.effort {
                guard (0...6).contains(effort) else { throw .invalidArgument("WebP effort must be 0...6, got \(effort)") }
                config.method = Int32(effort)
            }
        }
        deinit { if let encoder { WebPAnimEncoderDelete(encoder) } }

        func add(_ pixels: FramePixels, width w: Int, height h: Int, hasAlpha: Bool, delay: Double) throws(ImageFileError) {
            if encoder == nil {
                guard w <= 16383, h <= 16383 else { throw .invalidArgument("WebP width and height must be at most 16383, got \(w)x\(h)") }
                var eo = WebPAnimEncoderOptions()
                guard WebPAnimEncoderOptionsInit(&eo) != 0 else { throw .encodeFailed(detail: "WebP: libwebp version mismatch") }
                eo.anim_params.loop_count = 0
                guard let e = WebPAnimEncoderNew(Int32(w), Int32(h), &eo) else { throw .encodeFailed(detail: "WebP: cannot start the animation encoder") }
                encoder = e
                width = w
                height = h
            }
            guard w == width, h == height else {
                throw .invalidArgument("every WebP frame must be \(width)x\(height) (the first frame's size), got \(w)x\(h)")
            }
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw .encodeFailed(detail: "WebP: libwebp version mismatch") }
            picture.use_argb = 1
            picture.width = Int32(w)
            picture.height = Int32(h)
            defer { WebPPictureFree(&picture) }
            let imported = try pixels.withEightBit { p in
                hasAlpha ? WebPPictureImportRGBA(&picture, p.baseAddress, Int32(w * 4)) : WebPPictureImportRGBX(&picture, p.baseAddress, Int32(w * 4))
            }
            guard imported != 0 else { throw .encodeFailed(detail: "WebP: out of memory importing \(w)x\(h) pixels") }
            guard WebPAnimEncoderAdd(encoder, &picture, Int32(elapsed.rounded()), &config) != 0 else {
                throw .encodeFailed(detail: "WebP animation frame: \(message())")
            }
            elapsed += delay * 1000
        }

        func message() -> String {
            guard let encoder, let m = WebPAnimEncoderGetError(encoder) else { return "refused" }
            return String(cString: m)
        }

        func finish(loopCount: Int?) throws(ImageFileError) -> Data {
            guard let encoder else { throw .encodeFailed(detail: "WebP: no frames") }
            guard WebPAnimEncoderAdd(encoder, nil, Int32(elapsed.rounded()), nil) != 0 else {
                throw .encodeFailed(detail: "WebP animation: \(message())")
            }
            var out = WebPData(bytes: nil, size: 0)
            guard WebPAnimEncoderAssemble(encoder, &out) != 0, let p = out.bytes else { throw .encodeFailed(detail: "WebP animation: \(message())") }
            var data = Data(bytes: p, count: out.size)
            WebPDataClear(&out)
            // The file's ICC profile, EXIF and XMP, as for a still WebP.
            if options.iccProfile != nil || options.exif != nil || options.xmp != nil {
                data = try withBytes(data) { (b) throws(ImageFileError) in try WebPCodec.addMetadata(to: b, options: options) }
            }
            let loops = loopCount ?? 0
            if loops != 0 {
                // ANIM's payload: background colour (4 bytes), then the loop count (2 bytes, LE).
                let anim = data.withUnsafeBytes { WebPChunks($0).chunks.first { $0.fourCC == "ANIM" } }
                if let anim, anim.payload.count >= 6 {
                    data[anim.payload.lowerBound + 4] = UInt8(loops & 0xFF)
                    data[anim.payload.lowerBound + 5] = UInt8(loops >> 8)
                }
            }
            return data
        }
    }
}
