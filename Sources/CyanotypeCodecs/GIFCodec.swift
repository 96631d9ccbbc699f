import CGif
import Foundation

/// GIF through giflib, one record at a time (never `DGifSlurp`, which would hold every
/// frame's pixels): the file is scanned once for its frame table (image descriptors, graphic
/// control blocks, the NETSCAPE2.0 loop count) without decoding, and frames are decoded on
/// demand. giflib reports errors as return codes; nothing longjmps.
enum GIFCodec {
    static func message(_ code: Int32) -> String {
        guard let s = GifErrorString(code) else { return "giflib error \(code)" }
        return String(cString: s)
    }

    static func error(_ code: Int32, _ stage: String, at pos: Int, of size: Int) -> ImageFileError {
        // D_GIF_ERR_READ_FAILED: the reader ran out of bytes.
        if code == D_GIF_ERR_READ_FAILED || pos >= size {
            return .truncated(detail: "GIF \(stage): the data ends early (\(size) bytes)")
        }
        return .corrupt(detail: "GIF \(stage): \(message(code))")
    }

    static func readHeader(_ b: UnsafeRawBufferPointer) throws(ImageFileError) -> ImageHeader {
        try GIFStream(Data(b)).scan(limits: .default, strict: false).sequence.headers[0]
    }

    /// Frame 0, composited on the canvas.
    static func decode(_ b: UnsafeRawBufferPointer, limits: DecodeLimits, strict: Bool) throws(ImageFileError) -> DecodedBitmap {
        var frames = try GIFFrames(data: Data(b), limits: limits, strict: strict)
        return try frames.decode(0)
    }
}

/// The bytes of a GIF and giflib's reader over them.
final class GIFStream {
    let base: UnsafeMutableRawPointer
    let count: Int
    var pos = 0
    var gif: UnsafeMutablePointer<GifFileType>?

    init(_ data: Data) {
        count = data.count
        base = .allocate(byteCount: max(count, 1), alignment: 16)
        data.withUnsafeBytes { if let p = $0.baseAddress { base.copyMemory(from: p, byteCount: count) } }
    }
    deinit {
        close()
        base.deallocate()
    }

    func close() {
        if let g = gif {
            var err: Int32 = 0
            DGifCloseFile(g, &err)
            gif = nil
        }
    }

    /// (Re)opens giflib at the start of the file; it reads the screen descriptor.
    func open() throws(ImageFileError) {
        close()
        pos = 0
        var err: Int32 = 0
        let reader: InputFunc = { file, buffer, n in
            guard let file, let buffer, n > 0, let user = file.pointee.UserData else { return 0 }
            let s = Unmanaged<GIFStream>.fromOpaque(user).takeUnretainedValue()
            let k = min(Int(n), max(0, s.count - s.pos))
            if k > 0 { buffer.update(from: s.base.advanced(by: s.pos).assumingMemoryBound(to: UInt8.self), count: k) }
            s.pos += k
            return Int32(k)
        }
        guard let g = DGifOpen(Unmanaged.passUnretained(self).toOpaque(), reader, &err) else {
            throw GIFCodec.error(err, "header", at: pos, of: count)
        }
        gif = g
    }

    var lastError: Int32 { gif?.pointee.Error ?? 0 }

    /// Walks every record without decoding pixels: the frame table, checked against `limits`.
    func scan(limits: DecodeLimits, strict: Bool) throws(ImageFileError) -> (sequence: FrameSequence, palettes: [Int]) {
        try open()
        guard let g = gif else { throw .corrupt(detail: "GIF: no reader") }
        var width = Int(g.pointee.SWidth), height = Int(g.pointee.SHeight)
        let hasGlobal = g.pointee.SColorMap != nil
        var frames: [FrameInfo] = []
        var transparentFrames = 0
        var loopCount: Int?
        var gcb = GraphicsControlBlock(DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)
        var hasGCB = false
        var frameLimit = limits.maxFrames
        var offsets: [Int] = []
        loop: while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(g, &type) == GIF_OK else {
                // A missing trailer after whole frames loses nothing (many writers omit it).
                if !frames.isEmpty && pos >= count && !strict { break loop }
                if !frames.isEmpty && pos >= count { break loop }
                throw GIFCodec.error(lastError, "record \(frames.count + 1)", at: pos, of: count)
            }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                let start = pos - 1
                guard DGifGetImageDesc(g) == GIF_OK else {
                    throw GIFCodec.error(lastError, "frame \(frames.count + 1)'s descriptor", at: pos, of: count)
                }
                let d = g.pointee.Image
                if frames.isEmpty {
                    // A 0x0 logical screen (some writers): the first frame sets the canvas.
                    if width == 0 || height == 0 { width = Int(d.Left) + Int(d.Width); height = Int(d.Top) + Int(d.Height) }
                    try limits.checkPixels(width, height)
                    frameLimit = limits.frameLimit(pixelsPerFrame: width * height)
                }
                let fw = Int(d.Width), fh = Int(d.Height)
                guard fw > 0, fh > 0 else { throw .corrupt(detail: "GIF frame \(frames.count + 1) is \(fw)x\(fh)") }
                guard fw <= width, fh <= height else {
                    throw .corrupt(detail: "GIF frame \(frames.count + 1) is \(fw)x\(fh), larger than the \(width)x\(height) canvas")
                }
                guard frames.count < frameLimit else { throw .tooManyFrames(count: frames.count + 1, limit: frameLimit) }
                guard d.ColorMap != nil || hasGlobal || !strict else {
                    throw .corrupt(detail: "GIF frame \(frames.count + 1) has no colour table")
                }
                let disposal: FrameDisposal =
                    switch hasGCB ? gcb.DisposalMode : 0 {
                    case DISPOSE_BACKGROUND: .background
                    case DISPOSE_PREVIOUS: .previous
                    default: .none
                    }
                if hasGCB && gcb.TransparentColor >= 0 { transparentFrames += 1 }
                frames.append(
                    FrameInfo(
                        x: Int(d.Left), y: Int(d.Top), width: fw, height: fh,
                        delay: hasGCB ? Double(gcb.DelayTime) / 100 : 0, disposal: disposal, blend: .over))
                offsets.append(hasGCB ? Int(gcb.TransparentColor) : -1)
                _ = start
                hasGCB = false
                // Skip the LZW data without decoding it.
                var codeSize: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetCode(g, &codeSize, &block) == GIF_OK else {
                    if !strict && frames.count > 1 { frames.removeLast(); offsets.removeLast(); break loop }
                    throw GIFCodec.error(lastError, "frame \(frames.count)'s data", at: pos, of: count)
                }
                while block != nil {
                    guard DGifGetCodeNext(g, &block) == GIF_OK else {
                        if !strict && frames.count > 1 { frames.removeLast(); offsets.removeLast(); break loop }
                        throw GIFCodec.error(lastError, "frame \(frames.count)'s data", at: pos, of: count)
                    }
                }
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var ext: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(g, &code, &ext) == GIF_OK else {
                    if !frames.isEmpty && !strict { break loop }
                    throw GIFCodec.error(lastError, "an extension block", at: pos, of: count)
                }
                var isNetscape = false
                if code == GRAPHICS_EXT_FUNC_CODE, let e = ext, e[0] >= 4 {
                    hasGCB = DGifExtensionToGCB(Int(e[0]), e + 1, &gcb) == GIF_OK
                } else if code == APPLICATION_EXT_FUNC_CODE, let e = ext, e[0] == 11 {
                    let id = String(decoding: UnsafeBufferPointer(start: e + 1, count: 11), as: UTF8.self)
                    isNetscape = id == "NETSCAPE2.0" || id == "ANIMEXTS1.0"
                }
                while ext != nil {
                    guard DGifGetExtensionNext(g, &ext) == GIF_OK else {
                        if !frames.isEmpty && !strict { break loop }
                        throw GIFCodec.error(lastError, "an extension block", at: pos, of: count)
                    }
                    if isNetscape, let e = ext, e[0] >= 3, e[1] == 1 {
                        loopCount = Int(e[2]) | Int(e[3]) << 8
                    }
                }
            case TERMINATE_RECORD_TYPE:
                break loop
            default:
                throw .corrupt(detail: "GIF: unknown record after frame \(frames.count)")
            }
        }
        guard !frames.isEmpty else { throw .corrupt(detail: "GIF has no frames") }
        let first = frames[0]
        let covers = first.x <= 0 && first.y <= 0 && first.x + first.width >= width && first.y + first.height >= height
        let alpha = transparentFrames > 0 || !covers
        let header = ImageHeader(
            format: .gif, width: width, height: height, channels: alpha ? 4 : 3, bitDepth: 8,
            hasAlpha: alpha, colorModel: "RGB")
        var seq = FrameSequence(
            format: .gif, canvasWidth: width, canvasHeight: height, loopCount: loopCount, frames: frames,
            isAnimation: true, headers: [header])
        seq.hasGlobalColorMap = hasGlobal
        return (seq, offsets)
    }
}

/// A GIF's frames, decoded in order onto the canvas with their disposal and transparency.
struct GIFFrames: FrameSource {
    let sequence: FrameSequence
    let stream: GIFStream
    let limits: DecodeLimits
    let strict: Bool
    /// Each frame's transparent colour index, -1 for none.
    let transparent: [Int]
    var canvas: Canvas<UInt8>
    var isSequential: Bool { true }

    init(data: Data, limits: DecodeLimits, strict: Bool) throws(ImageFileError) {
        guard !data.isEmpty else { throw .empty }
        stream = GIFStream(data)
        (sequence, transparent) = try stream.scan(limits: limits, strict: strict)
        self.limits = limits
        self.strict = strict
        canvas = Canvas<UInt8>(width: sequence.canvasWidth, height: sequence.canvasHeight)
        try stream.open()
    }

    mutating func reset() {
        canvas.clear()
        do { try stream.open() } catch {}  // the scan opened it once already
    }

    mutating func decode(_ index: Int) throws(ImageFileError) -> DecodedBitmap {
        guard let g = stream.gif else { throw .corrupt(detail: "GIF: no reader") }
        // Advance to the next image descriptor (extensions were read in the scan).
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(g, &type) == GIF_OK else {
                throw GIFCodec.error(stream.lastError, "frame \(index + 1)", at: stream.pos, of: stream.count)
            }
            if type == IMAGE_DESC_RECORD_TYPE { break }
            if type == EXTENSION_RECORD_TYPE {
                var code: Int32 = 0
                var ext: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(g, &code, &ext) == GIF_OK else {
                    throw GIFCodec.error(stream.lastError, "an extension block", at: stream.pos, of: stream.count)
                }
                while ext != nil {
                    guard DGifGetExtensionNext(g, &ext) == GIF_OK else {
                        throw GIFCodec.error(stream.lastError, "an extension block", at: stream.pos, of: stream.count)
                    }
                }
                continue
            }
            throw .corrupt(detail: "GIF: frame \(index + 1) is missing")
        }
        guard DGifGetImageDesc(g) == GIF_OK else {
            throw GIFCodec.error(stream.lastError, "frame \(index + 1)'s descriptor", at: stream.pos, of: stream.count)
        }
        let info = sequence.frames[index]
        let d = g.pointee.Image
        let fw = Int(d.Width), fh = Int(d.Height)
        guard fw == info.width, fh == info.height else { throw .corrupt(detail: "GIF frame \(index + 1) changed between reads") }
        // The frame's palette as RGBA words; indices past it are opaque black.
        var palette = [UInt8](repeating: 0, count: 256 * 4)
        if let map = d.ColorMap ?? g.pointee.SColorMap {
            let n = min(Int(map.pointee.ColorCount), 256)
            for i in 0..<n {
                let c = map.pointee.Colors[i]
                palette[i * 4] = c.Red; palette[i * 4 + 1] = c.Green; palette[i * 4 + 2] = c.Blue
            }
        }
        for i in 0..<256 { palette[i * 4 + 3] = 255 }
        let t = transparent[index]
        if t >= 0 && t < 256 { palette[t * 4 + 3] = 0 }

        // Rows (in the file's interlaced order when it is interlaced) -> RGBA rows of the frame.
        let rect = canvas.begin(x: info.x, y: info.y, w: fw, h: fh, disposal: info.disposal)
        var indices = [UInt8](repeating: 0, count: fw)
        var rgba = [UInt8](repeating: 0, count: fw * 4)
        let order: [Int]
        if d.Interlace {
            var o: [Int] = []
            o.reserveCapacity(fh)
            for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] { o += Swift.stride(from: start, to: fh, by: step) }
            order = o
        } else {
            order = Array(0..<fh)
        }
        var complete = true
        for row in order {
            let ok = indices.withUnsafeMutableBufferPointer { DGifGetLine(g, $0.baseAddress, Int32(fw)) == GIF_OK }
            guard ok else {
                if strict { throw GIFCodec.error(stream.lastError, "frame \(index + 1)'s data", at: stream.pos, of: stream.count) }
                complete = false
                break
            }
            let y = info.y + row
            guard y >= rect.y, y < rect.y + rect.h else { continue }
            palette.withUnsafeBufferPointer { pal in
                rgba.withUnsafeMutableBufferPointer { out in
                    indices.withUnsafeBufferPointer { idx in
                        for i in 0..<fw {
                            let p = Int(idx[i]) * 4
                            out[i * 4] = pal[p]; out[i * 4 + 1] = pal[p + 1]; out[i * 4 + 2] = pal[p + 2]; out[i * 4 + 3] = pal[p + 3]
                        }
                    }
                }
            }
            rgba.withUnsafeBufferPointer { src in
                canvas.draw(src.baseAddress!, rowBytes: 0, sx: rect.x - info.x, sy: 0, at: (rect.x, y, rect.w, 1), over: true)
            }
        }
        var b = canvas.bitmap(sequence.headers[0])
        b.isComplete = complete
        return b
    }
}

/// Writes an animated GIF: a palette of up to 256 colours per frame from `ColorQuantizer`
/// (exact when a frame has 256 colours or fewer), a transparent index for pixels with alpha
/// below 128, delays in hundredths of a second and the NETSCAPE2.0 loop block.
struct GIFWriter: FrameSink {
    let dithering: Bool
    var output = GIFOutput()
    var width = 0, height = 0
    /// The frame written when the next one arrives (its disposal depends on the next frame).
    var pending: QuantizedFrame?

    init(dithering: Bool) { self.dithering = dithering }

    mutating func add(_ pixels: FramePixels, width w: Int, height h: Int, hasAlpha: Bool, delay: Double) throws(ImageFileError) {
        if output.gif == nil {
            guard w <= 65535, h <= 65535 else { throw .invalidArgument("GIF width and height must be at most 65535, got \(w)x\(h)") }
            width = w
            height = h
            try output.open(width: w, height: h)
        }
        guard w == width, h == height else {
            throw .invalidArgument("every GIF frame must be \(width)x\(height) (the first frame's size), got \(w)x\(h)")
        }
        let frame = try pixels.withEightBit { (p) throws(ImageFileError) in
            ColorQuantizer.quantize(p, width: w, height: h, alpha: hasAlpha, dithering: dithering)
        }
        if let prev = pending {
            // A frame with clear pixels must not show the one before it: clear that one first.
            try output.write(prev, delay: prev.delay, disposal: frame.transparentIndex >= 0 ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT)
        }
        var f = frame
        f.delay = delay
        pending = f
    }

    mutating func finish(loopCount: Int?) throws(ImageFileError) -> Data {
        if let prev = pending { try output.write(prev, delay: prev.delay, disposal: DISPOSE_DO_NOT) }
        pending = nil
        var data = try output.close()
        if let loops = loopCount, data.count >= 13 {
            // NETSCAPE2.0 goes right after the logical screen descriptor (no global table).
            let block: [UInt8] = [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [3, 1, UInt8(loops & 0xFF), UInt8(loops >> 8), 0]
            data.insert(contentsOf: block, at: 13)
        }
        return data
    }
}

/// giflib's encoder writing into memory.
final class GIFOutput {
    var bytes = Data()
    var gif: UnsafeMutablePointer<GifFileType>?

    func open(width: Int, height: Int) throws(ImageFileError) {
        var err: Int32 = 0
        let writer: OutputFunc = { file, buffer, n in
            guard let file, let buffer, n > 0, let user = file.pointee.UserData else { return 0 }
            Unmanaged<GIFOutput>.fromOpaque(user).takeUnretainedValue().bytes.append(buffer, count: Int(n))
            return n
        }
        guard let g = EGifOpen(Unmanaged.passUnretained(self).toOpaque(), writer, &err) else {
            throw .encodeFailed(detail: "GIF: \(GIFCodec.message(err))")
        }
        gif = g
        EGifSetGifVersion(g, true)
        guard EGifPutScreenDesc(g, Int32(width), Int32(height), 8, 0, nil) == GIF_OK else {
            throw .encodeFailed(detail: "GIF screen descriptor: \(GIFCodec.message(g.pointee.Error))")
        }
    }

    func write(_ f: QuantizedFrame, delay: Double, disposal: Int32) throws(ImageFileError) {
        guard let g = gif else { throw .encodeFailed(detail: "GIF: the encoder is not open") }
        var gcb = GraphicsControlBlock(
            DisposalMode: disposal, UserInputFlag: false, DelayTime: Int32(min((delay * 100).rounded(), 65535)),
            TransparentColor: Int32(f.transparentIndex))
        var ext = [GifByteType](repeating: 0, count: 4)
        _ = EGifGCBToExtension(&gcb, &ext)
        guard EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, 4, ext) == GIF_OK else {
            throw .encodeFailed(detail: "GIF graphic control block: \(GIFCodec.message(g.pointee.Error))")
        }
        // A colour table holds a power of two entries (2...256).
        var size = 2
        while size < f.palette.count { size *= 2 }
        var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
        for (i, c) in f.palette.enumerated() {
            colors[i] = GifColorType(Red: UInt8(c >> 16 & 0xFF), Green: UInt8(c >> 8 & 0xFF), Blue: UInt8(c & 0xFF))
        }
        guard let map = GifMakeMapObject(Int32(size), &colors) else { throw .encodeFailed(detail: "GIF: out of memory") }
        defer { GifFreeMapObject(map) }
        guard EGifPutImageDesc(g, 0, 0, Int32(f.width), Int32(f.height), false, map) == GIF_OK else {
            throw .encodeFailed(detail: "GIF image descriptor: \(GIFCodec.message(g.pointee.Error))")
        }
        try f.indices.withUnsafeBufferPointer { (p) throws(ImageFileError) in
            var line = [GifPixelType](repeating: 0, count: f.width)
            for y in 0..<f.height {
                line.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: p.baseAddress! + y * f.width, count: f.width) }
                guard EGifPutLine(g, &line, Int32(f.width)) == GIF_OK else {
                    throw .encodeFailed(detail: "GIF data: \(GIFCodec.message(g.pointee.Error))")
                }
            }
        }
    }

    func close() throws(ImageFileError) -> Data {
        guard let g = gif else { throw .encodeFailed(detail: "GIF: nothing was written") }
        var err: Int32 = 0
        gif = nil
        guard EGifCloseFile(g, &err) == GIF_OK else { throw .encodeFailed(detail: "GIF: \(GIFCodec.message(err))") }
        return bytes
    }

    deinit {
        if let g = gif {
            var err: Int32 = 0
            EGifCloseFile(g, &err)
        }
    }
}
