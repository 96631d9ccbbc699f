import Cyanotype
import CyanotypeCodecs
import Foundation
import Testing

/// Animations and pages through the tool: every frame processed, timing, loop count and page
/// order kept; bad files refused with a message, in a child process that does not crash.
@Suite struct FrameCLITests {
    /// Three frames of few colours (exact through GIF), each with its own delay, loop count 2.
    static func animation(_ w: Workspace, _ name: String, format: CyanotypeCodecs.ImageFileFormat = .gif, width: Int = 10, height: Int = 6) throws -> [[UInt8]] {
        let frames: [[UInt8]] = (0..<3).map { f in
            (0..<(width * height)).flatMap { i -> [UInt8] in
                let x = i % width, y = i / width
                return [UInt8((x * 25 + f * 60) % 256), UInt8((y * 40) % 256), UInt8(f * 100), 255]
            }
        }
        var o = EncodeOptions()
        o.lossless = true
        let e = try FrameEncoder(format: format, options: o, pageCount: 3)
        for (i, f) in frames.enumerated() {
            try f.withUnsafeBufferPointer { try e.add(rgba8: $0, width: width, height: height, hasAlpha: false, delay: [0.1, 0.2, 0.3][i]) }
        }
        try e.finish(loopCount: 2).write(to: w.url(name))
        return frames
    }

    static func mirrored(_ px: [UInt8], width: Int) -> [UInt8] {
        let h = px.count / 4 / width
        return (0..<(width * h)).flatMap { i -> [UInt8] in
            let x = i % width, y = i / width
            let j = (y * width + (width - 1 - x)) * 4
            return Array(px[j..<(j + 4)])
        }
    }

    static func frames(_ data: Data) throws -> (FrameSequence, [DecodedBitmap]) {
        let d = try FrameDecoder(data: data)
        var out: [DecodedBitmap] = []
        while let b = try d.next() { out.append(b) }
        return (d.sequence, out)
    }

    @Test(arguments: ["gif", "png", "webp", "tif"])
    func applyKeepsEveryFrame(ext: String) throws {
        let w = try Workspace()
        let frames = try Self.animation(w, "in.gif")
        let r = try w.run("apply", "in.gif", "-o", "out.\(ext)", "--flop", "--lossless")
        #expect(r.status == 0, "\(r.stderr)")
        let (seq, decoded) = try Self.frames(try w.bytes("out.\(ext)"))
        #expect(seq.frameCount == 3)
        if ext != "tif" {
            #expect(seq.frames.map(\.delay) == [0.1, 0.2, 0.3])
            #expect(seq.loopCount == 2)
        }
        for i in 0..<3 { #expect(decoded[i].pixels == Self.mirrored(frames[i], width: 10), "\(ext) frame \(i)") }
    }

    @Test func pagesAndAnimationsThroughBatch() throws {
        let w = try Workspace()
        try FileManager.default.createDirectory(at: w.url("in"), withIntermediateDirectories: true)
        _ = try Self.animation(w, "in/anim.webp", format: .webp)
        _ = try Self.animation(w, "in/scan.tif", format: .tiff)
        _ = try Self.animation(w, "in/clip.png", format: .png)
        let r = try w.run("batch", "in", "-o", "out", "--resize", "50%")
        #expect(r.status == 0, "\(r.stderr)")
        for name in ["anim.webp", "scan.tif", "clip.png"] {
            let (seq, decoded) = try Self.frames(try w.bytes("out/\(name)"))
            #expect(seq.frameCount == 3, "\(name)")
            #expect(decoded.allSatisfy { $0.width == 5 && $0.height == 3 }, "\(name)")
        }
        // One-image formats get the first frame, with a warning.
        let jpeg = try w.run("apply", "in/anim.webp", "-o", "first.jpg")
        #expect(jpeg.status == 0 && jpeg.stderr.contains("holds 3 frames; JPEG holds one: writing the first"), "\(jpeg.stderr)")
    }

    /// EXIF and XMP of an animation are kept as for single images (stated size updated, GPS
    /// strippable) into APNG, WebP and TIFF pages; GIF holds none.
    @Test func animationsKeepMetadata() throws {
        let w = try Workspace()
        var o = EncodeOptions()
        o.exif = EXIFFixture.block(width: 10, height: 6)
        o.xmp = Data(FormatsAndMetadata.xmp.utf8)
        o.lossless = true
        let e = try FrameEncoder(format: .webp, options: o)
        for f in 0..<3 {
            let px: [UInt8] = (0..<60).flatMap { i -> [UInt8] in [UInt8(i * 4), UInt8(f * 80), 90, 255] }
            try px.withUnsafeBufferPointer { try e.add(rgba8: $0, width: 10, height: 6, hasAlpha: false, delay: 0.1) }
        }
        try e.finish(loopCount: 0).write(to: w.url("in.webp"))
        for out in ["out.png", "out.webp", "out.tif", "out.gif"] {
            for strip in [[String](), ["--strip", "gps"]] {
                let r = try Tool.run(["apply", "in.webp", "-o", out, "--resize", "50%"] + strip, in: w.dir)
                #expect(r.status == 0, "\(out): \(r.stderr)")
                let data = try w.bytes(out)
                let (seq, _) = try Self.frames(data)
                #expect(seq.frameCount == 3, "\(out)")
                let h = try ImageCodecs.readHeader(data)
                if out == "out.gif" {
                    #expect(h.exif == nil && h.xmp == nil)
                    continue
                }
                let exif = try #require(h.exif, "\(out)")
                let xmp = String(decoding: try #require(h.xmp, "\(out)"), as: UTF8.self)
                #expect(EXIFFixture.pixelWidth(in: exif) == 5 && xmp.contains("exif:PixelXDimension=\"5\""), "\(out): size follows the pixels")
                #expect(EXIFFixture.hasGPS(exif) == strip.isEmpty && xmp.contains("GPSLatitude") == strip.isEmpty, "\(out) \(strip)")
                #expect(xmp.contains("Harbour"), "\(out)")
            }
        }
    }

    @Test func infoShowsFramesAndPages() throws {
        let w = try Workspace()
        _ = try Self.animation(w, "a.gif")
        _ = try Self.animation(w, "p.tif", format: .tiff)
        let text = try w.run("info", "a.gif")
        #expect(text.out.contains("frames:      3 (animation, loop count 2)"), "\(text.out)")
        #expect(text.out.contains("duration:    0.6 s (delays 0.1 s, 0.2 s, 0.3 s)"), "\(text.out)")
        let json = try w.run("info", "a.gif", "--json")
        let o = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        // Image I/O's keys: the image's, and the container's {GIF} with the loop count and timing.
        #expect(o["CyanotypeFrameCount"] as? Int == 3 && o["CyanotypeFileFormat"] as? String == "gif")
        #expect(o["PixelWidth"] as? Int == 10 && o["PixelHeight"] as? Int == 6)
        let gif = try #require(o["{GIF}"] as? [String: Any])
        #expect(gif["LoopCount"] as? Int == 2 && gif["CanvasPixelWidth"] as? Int == 10)
        let timing = try #require(gif["FrameInfo"] as? [[String: Any]])
        #expect(timing.map { $0["UnclampedDelayTime"] as? Double } == [0.1, 0.2, 0.3])
        let pages = try w.run("info", "p.tif")
        #expect(pages.out.contains("pages:       3"), "\(pages.out)")
        let pagesJSON = try w.run("info", "p.tif", "--json")
        let p = try #require(try JSONSerialization.jsonObject(with: pagesJSON.stdout) as? [String: Any])
        #expect(p["CyanotypeFrameCount"] as? Int == 3 && (p["CyanotypePages"] as? [[String: Any]])?.count == 3)
        #expect((p["CyanotypePages"] as? [[String: Any]])?.first?["PixelWidth"] as? Int == 10)
        #expect((p["{TIFF}"] as? [String: Any])?["Compression"] as? Int == 5, "the first page's own {TIFF} keys")
    }

    // MARK: Bad input, each in a child process

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }

    /// A GIF of `frames` frames of w x h on a `canvas`, 3-bit LZW codes with a clear code every
    /// second pixel (a writer independent of the one under test).
    static func gif(canvas: (Int, Int), frame: (Int, Int), frames: Int, trailer: Bool = true) -> Data {
        var out = Array("GIF89a".utf8) + le16(canvas.0) + le16(canvas.1) + [0xF1, 0, 0] + [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]
        var codes: [Int] = []
        for i in 0..<(frame.0 * frame.1) {
            if i % 2 == 0 { codes.append(4) }
            codes.append(i % 3)
        }
        codes.append(5)
        var lzw: [UInt8] = [], acc = 0, bits = 0
        for c in codes {
            acc |= c << bits
            bits += 3
            while bits >= 8 { lzw.append(UInt8(acc & 0xFF)); acc >>= 8; bits -= 8 }
        }
        if bits > 0 { lzw.append(UInt8(acc & 0xFF)) }
        var data: [UInt8] = [2], pos = 0
        while pos < lzw.count {
            let n = min(255, lzw.count - pos)
            data += [UInt8(n)] + lzw[pos..<(pos + n)]
            pos += n
        }
        data.append(0)
        let one = [0x21, 0xF9, 4, 4, 10, 0, 0, 0, 0x2C, 0, 0, 0, 0] + le16(frame.0) + le16(frame.1) + [0] + data
        for _ in 0..<frames { out += one }
        if trailer { out.append(0x3B) }
        return Data(out)
    }

    @Test func badFilesGiveTypedErrorsAndNoCrash() throws {
        let w = try Workspace()
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(v >> (8 * $0) & 0xFF) } }
        // A million pages: a 1x1 grey first page (7 tags, its pixel after the directory), then
        // empty directories, each pointing to the next.
        var tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 7, 0]
        for (tag, value) in [(256, 1), (257, 1), (258, 8), (262, 1), (273, 98), (278, 1), (279, 1)] {
            tiff += Self.le16(tag) + Self.le16(tag == 258 || tag == 262 ? 3 : 4) + le32(1) + le32(value)
        }
        tiff += le32(99) + [128]  // next directory at 99; the pixel at 98
        for i in 0..<999_999 {
            let next = i == 999_998 ? 0 : 99 + (i + 1) * 6
            tiff += [0, 0] + le32(next)
        }
        try Data(tiff).write(to: w.url("million.tif"))
        try Self.gif(canvas: (2, 2), frame: (2, 2), frames: 10_001).write(to: w.url("frames.gif"))
        // A 12-byte frame claiming 65535 x 65535 pixels of LZW on a canvas as large: refused before decoding.
        try Self.gif(canvas: (65535, 65535), frame: (2, 2), frames: 1).write(to: w.url("bomb.gif"))
        try Self.gif(canvas: (2, 2), frame: (3, 2), frames: 1).write(to: w.url("wide.gif"))
        let good = Self.gif(canvas: (40, 30), frame: (40, 30), frames: 3)
        try good.prefix(good.count * 2 / 3).write(to: w.url("cut.gif"))
        _ = try Self.animation(w, "anim.png", format: .png, width: 40, height: 30)
        let apng = try w.bytes("anim.png")
        try apng.prefix(apng.count * 2 / 3).write(to: w.url("cut.png"))
        _ = try Self.animation(w, "anim.webp", format: .webp, width: 40, height: 30)
        let webp = try w.bytes("anim.webp")
        try webp.prefix(webp.count * 2 / 3).write(to: w.url("cut.webp"))

        let cases: [(String, String)] = [
            ("million.tif", "more than 10000 frames or pages, above the limit of 10000"),
            ("frames.gif", "more than 10000 frames or pages, above the limit of 10000"),
            ("bomb.gif", "the image is 65535x65535 pixels, above the limit"),
            ("wide.gif", "GIF frame 1 is 3x2, larger than the 2x2 canvas"),
            ("cut.gif", "the file is truncated"),
            ("cut.png", "the file is truncated"),
            ("cut.webp", "the file is truncated"),
        ]
        for (file, message) in cases {
            for args in [["info", file], ["apply", file, "-o", "out.png"]] {
                let r = try Tool.run(args, in: w.dir)
                #expect(r.status == 1, "\(args): status \(r.status), \(r.stderr)")
                #expect(r.stderr.contains(file) && r.stderr.contains(message), "\(args): \(r.stderr)")
            }
        }
    }
}
