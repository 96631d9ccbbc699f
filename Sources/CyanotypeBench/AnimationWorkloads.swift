import Cyanotype
import Foundation

// Issue 15's targets. Animation: an animated GIF of 100 frames of 480x270 with a look over every
// frame, against ImageMagick's `convert` doing the same colour operation, and at least 30
// frames a second.

/// 8. GIF in, a colour look on every frame, GIF out (each frame requantised).
struct AnimatedGIFLook: Workload {
    let key = "gif"
    static let frames = 100, width = 480, height = 270

    /// A warm grade as a 3x3 matrix on sRGB-encoded values: ImageMagick's `-color-matrix`
    /// applies it to every frame; ours is the same matrix baked into a 33^3 LUT (a LUT look,
    /// run on sRGB-encoded values, as ImageMagick's matrix is).
    static let matrix: [Float] = [1.08, 0.04, -0.02, 0.02, 1.0, 0.0, -0.03, 0.02, 0.92]

    /// The input: a photo-like picture panning by 2 pixels a frame, 0.04 s per frame, looping.
    static func makeInput(_ url: URL) throws {
        let wide = SyntheticImage(width: width + 2 * frames, height: height).rgba8()
        let out = NSMutableData()
        guard let dest = CGImageDestinationCreateWithData(out, "com.compuserve.gif" as CFString, frames, nil) else { throw BenchError("no GIF writer") }
        CGImageDestinationSetProperties(dest, [kCGImagePropertyGIFDictionary: [kCGImagePropertyGIFLoopCount: 0]] as CFDictionary)
        let sRGB = CGColorSpace(name: CGColorSpace.sRGB)
        var frame = [UInt8](repeating: 0, count: width * height * 4)
        let stride = (width + 2 * frames) * 4
        for f in 0..<frames {
            wide.withUnsafeBytes { raw in
                let src = raw.bindMemory(to: UInt8.self)
                for y in 0..<height {
                    for i in 0..<(width * 4) { frame[y * width * 4 + i] = src[y * stride + f * 8 + i] }
                }
            }
            let cg = CGImage(
                width: width, height: height, bytesPerRow: width * 4, format: .RGBA8, colorSpace: sRGB, premultiplied: false,
                data: Data(frame))
            try dest.add(cg, properties: [kCGImagePropertyGIFDictionary: [kCGImagePropertyGIFUnclampedDelayTime: 0.04]])
        }
        try dest.finalize()
        try (out as Data).write(to: url)
    }

    func run(_ env: BenchEnvironment) throws -> [Row] {
        let input = env.file("anim.gif"), output = env.file("anim-ours.gif")
        if !FileManager.default.fileExists(atPath: input.path) { try Self.makeInput(input) }
        let m = Self.matrix
        let lut = try LUT.make(size: 33, title: "warm matrix") { c in
            SIMD3(m[0] * c.x + m[1] * c.y + m[2] * c.z, m[3] * c.x + m[4] * c.y + m[5] * c.z, m[6] * c.x + m[7] * c.y + m[8] * c.z)
                .clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 1))
        }
        let megapixels = Double(Self.frames * Self.width * Self.height) / 1e6
        // What `cyanotype apply anim.gif -o out.gif --lut look.cube` does, in process.
        let ours = try bestOf(env.runs) {
            let data = try Data(contentsOf: input)
            guard let source = CGImageSourceCreateWithData(data as CFData, nil) else { throw BenchError("cannot read anim.gif") }
            let count = CGImageSourceGetCount(source)
            let out = NSMutableData()
            guard let dest = CGImageDestinationCreateWithData(out, "com.compuserve.gif" as CFString, count, nil) else { throw BenchError("no GIF writer") }
            CGImageDestinationSetProperties(dest, [kCGImagePropertyGIFDictionary: [kCGImagePropertyGIFLoopCount: 0]] as CFDictionary)
            for i in 0..<count {
                let frame = try CIImage(source: source, index: i, options: nil)
                let delay = (frame.properties[kCGImagePropertyGIFDictionary] as? [String: Any])?[kCGImagePropertyGIFUnclampedDelayTime] as? Double ?? 0.1
                let graded = frame.applyingLUT(lut, interpolation: .tetrahedral)
                let r = try env.context.renderToData(graded, from: graded.extent, format: .RGBA8, colorSpace: env.sRGB, premultiplied: false)
                let cg = CGImage(
                    width: r.width, height: r.height, bytesPerRow: r.rowBytes, format: .RGBA8, colorSpace: env.sRGB,
                    premultiplied: false, data: r.data)
                try dest.add(cg, properties: [kCGImagePropertyGIFDictionary: [kCGImagePropertyGIFUnclampedDelayTime: delay]])
            }
            try dest.finalize()
            try (out as Data).write(to: output)
        }
        let name = "8 animated GIF 100 x 480x270, LUT look on every frame -> GIF"
        var rows = [
            Row(
                workload: name, ours: .time(ours), oursCPU: ours.cpu, megapixels: megapixels, reference: "100 frames in 3.33 s (30 frames/s)",
                referenceValue: nil, target: .valueAtMost(Double(Self.frames) / 30, "s"))
        ]
        guard Shell.available("convert"), Shell.output("convert -version")?.contains("ImageMagick") == true else {
            env.notes.append("8 gif: ImageMagick's convert missing (scripts/bench.sh installs it)")
            return rows
        }
        let matrix = m.map { String($0) }.joined(separator: " ")
        let ref = try Shell.time("convert anim.gif -color-matrix '\(matrix)' anim-im.gif", runs: env.runs, in: env.dir)
        rows.append(
            Row(
                workload: name, ours: .time(ours), oursCPU: ours.cpu, megapixels: megapixels,
                reference: "ImageMagick convert -color-matrix", referenceValue: .time(ref), referenceCPU: ref.cpu, target: .ratioBelow(1)))
        let fps = Double(Self.frames) / ours.wall
        env.notes.append(
            String(
                format: "8 gif: %.0f frames/s (wall), %.1f ms CPU per frame; outputs %d bytes (ours), %d bytes (ImageMagick)",
                fps, ours.cpu * 1000 / Double(Self.frames),
                (try? Data(contentsOf: output).count) ?? 0, (try? Data(contentsOf: env.file("anim-im.gif")).count) ?? 0))
        return rows
    }
}

/// 9. Thumbnails that decode small (#15): the 24 MP JPEG to a 1500 px JPEG q90 through the
/// command-line tool (`apply --max-size 1500`), beside `vipsthumbnail -s 1500` on the same file,
/// taking turns: wall and CPU time, and each process's peak RSS. vips writes 4:2:0 as we do
/// (its default at Q 90 is 4:4:4).
struct Thumbnail: Workload {
    let key = "thumb"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let input = try inputJPEG(env)
        let name = "9 JPEG -> 1500 px JPEG q90 (cyanotype apply --max-size 1500)"
        guard let cli = env.commandLineTool else {
            env.notes.append("9 thumb: the cyanotype tool is not beside cyanotype-bench (scripts/bench.sh builds it): row skipped")
            return []
        }
        let ours = "\(cli) apply \(input.path) --max-size 1500 -q 90 --subsample 420 -o thumb-ours.jpg"
        guard Shell.available("vipsthumbnail") else {
            env.notes.append("9 thumb: vipsthumbnail missing (apt-get install -y libvips-tools)")
            let t = try Shell.time(ours, runs: env.runs, in: env.dir)
            return [
                Row(
                    workload: name, ours: .time(t), oursCPU: t.cpu, megapixels: env.image.megapixels,
                    reference: "(vipsthumbnail missing)", referenceValue: nil, target: .ratioBelow(1))
            ]
        }
        // vipsthumbnail writes next to its input (which lies in env.dir).
        let vips = "vipsthumbnail \(input.path) -s 1500 -o 'thumb-vips.jpg[Q=90,subsample-mode=on]'"
        let t = try Shell.timeInterleaved([ours, vips], runs: max(env.runs, 5), in: env.dir)
        let size = { (u: URL) in ((try? FileManager.default.attributesOfItem(atPath: u.path)[.size] as? Int) ?? 0) / 1000 }
        let dims = { (u: URL) in (try? ImageFileHeader(reading: try Data(contentsOf: u))).map { "\($0.width)x\($0.height)" } ?? "?" }
        let ourFile = env.file("thumb-ours.jpg"), vipsFile = env.file("thumb-vips.jpg")
        var note = "9 thumb: ours \(dims(ourFile)) \(size(ourFile)) kB, vips \(dims(vipsFile)) \(size(vipsFile)) kB"
        if let d = try? maxChannelDifference(ourFile, vipsFile) { note += String(format: "; ours vs vips max |diff| %d, mean %.2f levels", d.max, d.mean) }
        env.notes.append(note)
        var rows = [
            Row(
                workload: name, ours: .time(t[0]), oursCPU: t[0].cpu, megapixels: env.image.megapixels,
                reference: "vipsthumbnail -s 1500 (Q 90, 4:2:0)", referenceValue: .time(t[1]), referenceCPU: t[1].cpu, target: .ratioBelow(1))
        ]
        // Peak RSS through GNU time, which forks each command from its own small process: a
        // child spawned from this (large) process would report our peak as its own.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            env.notes.append("9 thumb: /usr/bin/time missing (apt-get install -y time): peak RSS row skipped")
            return rows
        }
        func peak(_ command: String, _ file: String) throws -> Int {
            try Shell.run("/usr/bin/time -f %M -o \(file) \(command)", in: env.dir)
            let text = try String(contentsOf: env.file(file), encoding: .utf8)
            guard let kB = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
                throw BenchError("no peak RSS in \(file): \(text)")
            }
            return kB * 1024
        }
        rows.append(
            Row(
                workload: "9 peak RSS, same job", ours: .bytes(try peak(ours, "rss-ours.txt")), megapixels: nil,
                reference: "vipsthumbnail", referenceValue: .bytes(try peak(vips, "rss-vips.txt")), target: .ratioAtMost(1)))
        return rows
    }
}
