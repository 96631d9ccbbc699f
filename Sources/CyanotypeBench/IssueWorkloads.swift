import Foundation
import Cyanotype
import Instafilter

// Speed targets of the LUT (4), reduction (7) and Instafilter (6) issues, measured the same
// way as the engine issue's workloads: best of N, CPU time, reference tools via posix_spawn.

/// The 24 MP test image as a JPEG at quality 90 (the jpeg workload writes the same file).
func inputJPEG(_ env: BenchEnvironment) throws -> URL {
    let url = env.file("in.jpg")
    if !FileManager.default.fileExists(atPath: url.path) {
        try env.context.encode(env.ciImage8, as: .jpeg, options: [.lossyCompressionQuality: 0.9]).write(to: url)
    }
    return url
}

/// A file's stored samples as RGBA (straight alpha), read through Image I/O and rendered
/// without colour management: the codes the file holds, its profile and orientation not
/// applied.
struct StoredSamples {
    /// Renders values as they are.
    static let unmanaged = CIContext(options: [.workingColorSpace: NSNull(), .cacheIntermediates: false])
    let width: Int, height: Int
    /// Bits per sample the file stores.
    let bitDepth: Int
    /// RGBA8 samples (when read at depth 8).
    var pixels: [UInt8] = []
    /// RGBA16 samples (when read at depth 16).
    var pixels16: [UInt16] = []
}

/// The samples of the file at `url` at `depth` (8 or 16 bits), with the depth it stores.
func storedSamples(_ url: URL, depth: Int) throws -> StoredSamples {
    guard let source = CGImageSourceCreateWithURL(url as CFURL, nil),
        let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [String: Any]
    else { throw BenchError("cannot read \(url.lastPathComponent)") }
    let image = try CIImage(source: source, index: 0, options: nil)
    let r = try StoredSamples.unmanaged.renderToData(
        image, from: image.extent, format: depth == 16 ? .RGBA16 : .RGBA8, colorSpace: nil, premultiplied: false)
    var out = StoredSamples(width: r.width, height: r.height, bitDepth: properties[kCGImagePropertyDepth] as? Int ?? 0)
    if depth == 16 {
        out.pixels16 = r.data.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
    } else {
        out.pixels = Array(r.data)
    }
    return out
}

/// Largest per-channel (RGB) difference, in 8-bit levels, between two decoded files.
func maxChannelDifference(_ a: URL, _ b: URL) throws -> (max: Int, mean: Double) {
    let x = try storedSamples(a, depth: 8), y = try storedSamples(b, depth: 8)
    guard x.width == y.width, x.height == y.height, x.bitDepth == 8, y.bitDepth == 8 else {
        throw BenchError(
            "cannot compare \(a.lastPathComponent) (\(x.width)x\(x.height), \(x.bitDepth)-bit) with \(b.lastPathComponent) (\(y.width)x\(y.height), \(y.bitDepth)-bit)")
    }
    var worst = 0, sum = 0
    x.pixels.withUnsafeBufferPointer { p in
        y.pixels.withUnsafeBufferPointer { q in
            for i in 0..<p.count where i & 3 != 3 {
                let d = abs(Int(p[i]) - Int(q[i]))
                sum += d
                worst = max(worst, d)
            }
        }
    }
    return (worst, Double(sum) / Double(x.width * x.height * 3))
}

/// 4. A 64^3 tetrahedral LUT: in memory (8-bit in/out), and JPEG -> LUT -> JPEG against ffmpeg.
struct LUTApply: Workload {
    let key = "lut"

    /// A grade with cross-talk between channels, so no 1D shortcut applies: an S-curve,
    /// a warm/teal split, and a saturation change weighted by luma.
    static func grade(_ c: SIMD3<Float>) -> SIMD3<Float> {
        let s = c * c * (SIMD3(repeating: 3) - 2 * c)  // smoothstep contrast
        let v = 0.6 * s + 0.4 * c
        let l = 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
        let split = SIMD3<Float>(0.06, 0.01, -0.05) * (l - 0.45)  // warm highs, teal shadows
        let sat = 1.25 - 0.4 * abs(l - 0.5)
        let out = SIMD3(repeating: l) + (v - SIMD3(repeating: l)) * sat + split
        return out.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: 1))
    }

    func run(_ env: BenchEnvironment) throws -> [Row] {
        let img = env.image
        let lut = try LUT.make(size: 64, title: "bench grade", Self.grade)
        let mem = try env.time8(env.ciImage8.applyingLUT(lut, interpolation: .tetrahedral))
        var rows = [
            Row(
                workload: "4 LUT 64^3 tetrahedral, RGBA8 in memory", ours: .time(mem), oursCPU: mem.cpu, megapixels: img.megapixels,
                reference: "-", referenceValue: nil, target: .throughputAtLeast(100))
        ]

        let input = try inputJPEG(env), output = env.file("lut-ours.jpg")
        let q90: [CIImageRepresentationOption: Any] = [.lossyCompressionQuality: 0.9]
        try lut.cubeData().write(to: env.file("lut.cube"))
        let ours = try bestOf(env.runs) {
            let i = try CIImage.read(contentsOf: input)
            try env.context.encode(i.applyingLUT(lut, interpolation: .tetrahedral), as: .jpeg, options: q90).write(to: output)
        }
        guard Shell.available("ffmpeg") else {
            env.notes.append("4 lut: ffmpeg missing")
            rows.append(
                Row(
                    workload: "4 JPEG -> LUT -> JPEG q90", ours: .time(ours), oursCPU: ours.cpu, megapixels: img.megapixels,
                    reference: "(ffmpeg missing)", referenceValue: nil, target: .ratioAtMost(1.0 / 3)))
            return rows + (try lutFiles(env, lut: lut, input: input, ffmpeg: "ffmpeg"))
        }
        let ff = "ffmpeg -v error -y"
        let lut3d = "-vf lut3d=file=lut.cube:interp=tetrahedral"
        let ref = try Shell.time("\(ff) -i \(input.path) \(lut3d) -q:v 2 lut-ffmpeg.jpg", runs: env.runs, in: env.dir)
        rows.append(
            Row(
                workload: "4 JPEG -> LUT -> JPEG q90", ours: .time(ours), oursCPU: ours.cpu, megapixels: img.megapixels,
                reference: "ffmpeg lut3d tetrahedral -q:v 2", referenceValue: .time(ref), referenceCPU: ref.cpu, target: .ratioAtMost(1.0 / 3)))
        let jpegDiff = try maxChannelDifference(output, env.file("lut-ffmpeg.jpg"))
        rows.append(
            Row(
                workload: "4 max |diff| ours vs ffmpeg, JPEG outputs", ours: .levels(jpegDiff.max), megapixels: nil,
                reference: String(format: "mean %.2f", jpegDiff.mean), referenceValue: nil, target: .info))

        // The same LUT from a lossless PNG to PNG, so only the LUT (not JPEG decoders, chroma
        // upsampling or encoders) differs between the two outputs.
        let png = env.file("lut-in.png")
        try env.context.encode(env.ciImage8, as: .png).write(to: png)
        try env.context.encode(try CIImage.read(contentsOf: png).applyingLUT(lut, interpolation: .tetrahedral), as: .png).write(to: env.file("lut-ours.png"))
        try Shell.run("\(ff) -i \(png.path) \(lut3d) -pix_fmt rgba lut-ffmpeg.png", in: env.dir)
        let pngDiff = try maxChannelDifference(env.file("lut-ours.png"), env.file("lut-ffmpeg.png"))
        rows.append(
            Row(
                workload: "4 max |diff| ours vs ffmpeg, PNG -> LUT -> PNG", ours: .levels(pngDiff.max), megapixels: nil,
                reference: String(format: "mean %.3f", pngDiff.mean), referenceValue: nil, target: .valueAtMost(1, "level")))
        rows += try lutFiles(env, lut: lut, input: input, ffmpeg: ff)
        return rows
    }

    /// The 64^3 LUT as files on disk: parsed in process (.cube and .3dl), and through the
    /// command-line tool (`lut info`; `apply --lut` beside ffmpeg's `lut3d=file=`, taking turns).
    func lutFiles(_ env: BenchEnvironment, lut: LUT, input: URL, ffmpeg ff: String) throws -> [Row] {
        let cube = env.file("lut.cube"), threeDL = env.file("lut.3dl")
        try lut.threeDLData(outputBitDepth: 16).write(to: threeDL)
        let kB = { (u: URL) in ((try? FileManager.default.attributesOfItem(atPath: u.path)[.size] as? Int) ?? 0) / 1000 }
        // Each read parses the file again (LUT(contentsOf:) does not go through the LUT file cache).
        let parse = try bestOfInterleaved(
            max(env.runs, 5),
            [
                { _ = try LUT(contentsOf: cube, maximumSize: 256) },
                { _ = try LUT(contentsOf: threeDL, maximumSize: 256) },
            ])
        var rows = [
            Row(
                workload: "4 parse 64^3 .cube (\(kB(cube)) kB), in process", ours: .time(parse[0]), oursCPU: parse[0].cpu, megapixels: nil,
                reference: "30 ms budget", referenceValue: .seconds(0.030), target: .ratioAtMost(1)),
            Row(
                workload: "4 parse 64^3 .3dl 16-bit (\(kB(threeDL)) kB), in process", ours: .time(parse[1]), oursCPU: parse[1].cpu,
                megapixels: nil, reference: "30 ms budget", referenceValue: .seconds(0.030), target: .ratioAtMost(1)),
        ]
        guard let cli = env.commandLineTool else {
            env.notes.append("4 lut: the cyanotype tool is not beside cyanotype-bench (scripts/bench.sh builds it): CLI rows skipped")
            return rows
        }
        try LUT.identity(size: 2).cubeData().write(to: env.file("tiny.cube"))
        let info = try Shell.timeInterleaved(["\(cli) lut info lut.cube", "\(cli) lut info tiny.cube"], runs: max(env.runs, 5), in: env.dir)
        rows.append(
            Row(
                workload: "4 cyanotype lut info, 64^3 .cube", ours: .time(info[0]), oursCPU: info[0].cpu, megapixels: nil,
                reference: "same, 2^3 .cube (start-up)", referenceValue: .time(info[1]), referenceCPU: info[1].cpu, target: .info))
        guard Shell.available("ffmpeg") else { return rows }
        let t = try Shell.timeInterleaved(
            [
                "\(cli) apply \(input.path) --lut lut.cube -q 90 --subsample 420 -o lut-cli.jpg",
                "\(ff) -i \(input.path) -vf lut3d=file=lut.cube:interp=tetrahedral -q:v 2 lut-ffmpeg-file.jpg",
            ],
            runs: env.runs, in: env.dir)
        rows.append(
            Row(
                workload: "4 JPEG -> 64^3 .cube file -> JPEG q90 (cyanotype apply --lut)", ours: .time(t[0]), oursCPU: t[0].cpu,
                megapixels: env.image.megapixels, reference: "ffmpeg lut3d=file= tetrahedral -q:v 2", referenceValue: .time(t[1]),
                referenceCPU: t[1].cpu, target: .ratioAtMost(1.0 / 3)))
        return rows
    }
}

/// 7. CIAreaAverage and CIAreaHistogram (256 bins) over the whole image, read with `reduce`.
struct Reductions: Workload {
    let key = "reduce"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let img = env.image
        let float = CIImage(
            bitmapData: img.rgbaLinearFloat(from: env.rgba8), bytesPerRow: img.width * 16, size: img.extent.size,
            format: .RGBAf, colorSpace: env.linearSRGB)
        let extent = CIVector(cgRect: img.extent)
        var rows = [Row]()
        for (label, source) in [("RGBAf linear", float), ("RGBA8", env.ciImage8)] {
            // A new recipe each run: reduction results are cached on the recipe, so reusing
            // one would time the cache (0.0 ms) from the second run on.
            func average() -> CIImage { source.applyingFilter("CIAreaAverage", parameters: [kCIInputExtentKey: extent]) }
            func histogram() -> CIImage {
                source.applyingFilter("CIAreaHistogram", parameters: [kCIInputExtentKey: extent, "inputCount": 256, "inputScale": 1])
            }
            var values = [SIMD4<Float>]()
            let a = try bestOf(env.runs) { values = try env.context.reduce(average()) }
            guard values.count == 1 else { throw BenchError("CIAreaAverage gave \(values.count) pixels") }
            let h = try bestOf(env.runs) { values = try env.context.reduce(histogram()) }
            guard values.count == 256 else { throw BenchError("CIAreaHistogram gave \(values.count) bins") }
            rows.append(
                Row(
                    workload: "7 CIAreaAverage, \(label)", ours: .time(a), oursCPU: a.cpu, megapixels: img.megapixels,
                    reference: "-", referenceValue: nil, target: .throughputAtLeast(500)))
            rows.append(
                Row(
                    workload: "7 CIAreaHistogram 256 bins, \(label)", ours: .time(h), oursCPU: h.cpu, megapixels: img.megapixels,
                    reference: "-", referenceValue: nil, target: .throughputAtLeast(500)))
        }
        return rows
    }
}

/// 6. Instafilter: 1080x1080 previews of the looks, and a 12 MP export with a look and grain.
struct InstafilterLooks: Workload {
    let key = "insta"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        // Preview: an already decoded 1080x1080 image through a look, rendered to RGBA8.
        let small = SyntheticImage(width: 1080, height: 1080)
        let preview = small.image8(small.rgba8())
        func timeLook(_ look: BaseFilter) throws -> Timing {
            try env.time8(Renderer.shared.render(image: preview, with: look), bounds: small.extent)
        }
        let clarendon = try timeLook(InstaClarendon())
        var slowest: (name: String, t: Timing)? = nil
        for def in CSSLookDefinition.cssgram {
            let t = try timeLook(CSSLook(def))
            if t.wall > slowest?.t.wall ?? -1 { slowest = (def.displayName, t) }
        }
        var rows = [
            Row(
                workload: "6 preview 1080x1080 Clarendon -> RGBA8", ours: .time(clarendon), oursCPU: clarendon.cpu,
                megapixels: small.megapixels, reference: "33 ms budget", referenceValue: .seconds(0.033), target: .ratioAtMost(1))
        ]
        if let s = slowest {
            rows.append(
                Row(
                    workload: "6 preview 1080x1080, slowest of 26 CSSgram (\(s.name))", ours: .time(s.t), oursCPU: s.t.cpu,
                    megapixels: small.megapixels, reference: "33 ms budget", referenceValue: .seconds(0.033), target: .ratioAtMost(1)))
        }

        // Export: a 12 MP JPEG through Clarendon + grain to JPEG q90, against decode + encode.
        let big = SyntheticImage(width: 4000, height: 3000)
        let input = env.file("insta-12mp.jpg")
        let q90: [CIImageRepresentationOption: Any] = [.lossyCompressionQuality: 0.9]
        try env.context.encode(big.image8(big.rgba8()), as: .jpeg, options: q90).write(to: input)
        let chain = FilterChain([InstaClarendon(), InstaGrain()])
        let export = try bestOf(env.runs) {
            try Renderer.shared.export(contentsOf: input, with: chain, format: .jpeg(compressionQuality: 0.9)).write(to: env.file("insta-ours.jpg"))
        }
        let plain = try bestOf(env.runs) {
            try env.context.encode(try CIImage.read(contentsOf: input), as: .jpeg, options: q90).write(to: env.file("insta-plain.jpg"))
        }
        rows.append(
            Row(
                workload: "6 export 12 MP JPEG, Clarendon + grain -> JPEG q90", ours: .time(export), oursCPU: export.cpu,
                megapixels: big.megapixels, reference: "ours, JPEG decode + encode q90", referenceValue: .time(plain),
                referenceCPU: plain.cpu, target: .ratioAtMost(2)))
        // #17 goal 6 states the target against libjpeg-turbo's tools on the same file.
        if Shell.available("djpeg") && Shell.available("cjpeg") {
            let ref = try Shell.time("djpeg \(input.path) | cjpeg -quality 90 > insta-ref.jpg", runs: env.runs, in: env.dir)
            rows.append(
                Row(
                    workload: "6 export 12 MP JPEG, Clarendon + grain -> JPEG q90", ours: .time(export), oursCPU: export.cpu,
                    megapixels: big.megapixels, reference: "djpeg | cjpeg -quality 90, same file", referenceValue: .time(ref),
                    referenceCPU: ref.cpu, target: .ratioAtMost(2)))
        }
        return rows
    }
}

/// 16 bits exact (#17): a 16-bit PNG and TIFF holding every code of each channel, rendered to
/// RGBA16 through a filter (the float path, premultiplied) and written back as 16-bit files:
/// how many values differ from the file's (0 is the goal); and the speed of a 24 MP RGBA16 render.
struct SixteenBit: Workload {
    let key = "16bit"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let n = 65536
        var v = [UInt16](repeating: 0, count: n * 4)
        for i in 0..<n {
            v[4 * i] = UInt16(i); v[4 * i + 1] = UInt16(65535 - i)
            v[4 * i + 2] = UInt16(truncatingIfNeeded: i &* 40503); v[4 * i + 3] = 65535
        }
        var rows = [Row]()
        for format in [ImageFileFormat.png, .tiff] {
            // The codes as they are (no colour management), 16-bit, no alpha channel.
            let codes = CIImage(
                bitmapData: v.withUnsafeBytes { Data($0) }, bytesPerRow: 256 * 8, size: CGSize(width: 256, height: 256), format: .RGBA16,
                colorSpace: env.sRGB)
            let file = try StoredSamples.unmanaged.encode(codes, as: format, depth: 16, options: [.alphaChannel: false])
            let img = try CIImage.read(data: file).applyingFilter("CIColorClamp")
            let r = try env.context.renderToData(img, from: img.extent, format: .RGBA16, premultiplied: true).data
            var off = r.withUnsafeBytes { raw in zip(raw.bindMemory(to: UInt16.self), v).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) } }
            let written = env.file("16bit-back.\(format == .png ? "png" : "tif")")
            try env.context.encode(img, as: format == .png ? .png : .tiff, depth: 16).write(to: written)
            let back = try storedSamples(written, depth: 16)
            off += zip(back.pixels16, v).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
            rows.append(
                Row(
                    workload: "7 16-bit \(format.rawValue.uppercased()), all 65536 codes -> RGBA16 and a 16-bit write: values off",
                    ours: .count(off), megapixels: nil, reference: "of \(2 * 4 * n)", referenceValue: nil, target: .valueAtMost(0, "values")))
        }
        // Speed: the test image as RGBA16 through a colour clamp to RGBA16 (encoding exactly).
        let img = env.image
        let words = env.rgba8.withUnsafeBytes { raw in raw.bindMemory(to: UInt8.self).map { UInt16($0) &* 257 } }
        let src = CIImage(bitmapData: words.withUnsafeBytes { Data($0) }, bytesPerRow: img.width * 8, size: img.extent.size, format: .RGBA16, colorSpace: env.sRGB)
        let out = UnsafeMutableRawPointer.allocate(byteCount: img.width * img.height * 8, alignment: 64)
        defer { out.deallocate() }
        out.initializeMemory(as: UInt8.self, repeating: 0, count: img.width * img.height * 8)
        let recipe = src.applyingFilter("CIColorClamp")
        let t = try bestOf(env.runs) {
            try env.context.renderChecked(recipe, toBitmap: out, rowBytes: img.width * 8, bounds: img.extent, format: .RGBA16, colorSpace: env.sRGB)
        }
        rows.append(
            Row(
                workload: "7 RGBA16 sRGB -> colour clamp -> RGBA16", ours: .time(t), oursCPU: t.cpu, megapixels: img.megapixels,
                reference: "-", referenceValue: nil, target: .info))
        return rows
    }
}

/// PNG output (#17 goal 5): the 24 MP JPEG to PNG through the command-line tool against
/// `vips copy` at the same zlib level and row filter (vips 8.13+ defaults: level 6, no
/// filter), taking turns; and ours at our default (level 2, filter up) against vips at the
/// same. Wall and CPU time, peak RSS (wait4's ru_maxrss) and the files' sizes.
struct PNGOutput: Workload {
    let key = "png"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let input = try inputJPEG(env)
        guard let cli = env.commandLineTool else {
            env.notes.append("png: the cyanotype tool is not beside cyanotype-bench (scripts/bench.sh builds it): PNG rows skipped")
            return []
        }
        guard Shell.available("vips") else {
            env.notes.append("png: vips missing (apt-get install -y libvips-tools)")
            return []
        }
        let mp = env.image.megapixels
        var rows = [Row]()
        let size = { (name: String) in (try? FileManager.default.attributesOfItem(atPath: env.file(name).path)[.size] as? Int) ?? 0 }
        // Peak RSS through GNU time: wait4's ru_maxrss of a command spawned from this process
        // starts at this process's own high-water mark (Linux records it at exec).
        let gnuTime = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        if !gnuTime { env.notes.append("png: /usr/bin/time missing (apt-get install -y time): no peak RSS rows") }
        let rss = { (name: String) in
            (try? String(contentsOf: env.file(name), encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.map { $0 * 1024 } ?? 0
        }
        for (level, filter, vipsFilter, goal) in [(6, "none", "none", true), (2, "up", "up", false), (6, "adaptive", "all", false)] {
            let ours = "png-ours-\(level)-\(filter).png", theirs = "png-vips-\(level)-\(vipsFilter).png"
            let measure = { (name: String) in gnuTime ? "/usr/bin/time -f %M -o \(name).rss " : "" }
            let t = try Shell.timeInterleaved(
                [
                    "\(measure(ours))\(cli) apply \(input.path) -o \(ours) --compression \(level) --png-filter \(filter)",
                    "\(measure(theirs))vips copy \(input.path) '\(theirs)[compression=\(level),filter=\(vipsFilter)]'",
                ],
                runs: env.runs, in: env.dir)
            let label = "JPEG -> PNG, level \(level), filter \(filter)\(level == 2 ? " (our default)" : "")"
            rows.append(
                Row(
                    workload: "17.5 \(label)", ours: .time(t[0]), oursCPU: t[0].cpu, megapixels: mp,
                    reference: "vips copy [compression=\(level),filter=\(vipsFilter)]", referenceValue: .time(t[1]),
                    referenceCPU: t[1].cpu, target: goal ? .ratioAtMost(1.2) : .info))
            if gnuTime {
                rows.append(
                    Row(
                        workload: "17.5   peak RSS", ours: .bytes(rss("\(ours).rss")), megapixels: nil,
                        reference: "vips", referenceValue: .bytes(rss("\(theirs).rss")), target: .info))
            }
            rows.append(
                Row(
                    workload: "17.5   file size", ours: .bytes(size(ours)), megapixels: nil,
                    reference: "vips", referenceValue: .bytes(size(theirs)), target: .info))
        }
        env.notes.append("png: ours compresses with libdeflate in bands on every core; vips 8.14 with zlib through libspng on one")
        return rows
    }
}

/// Files streamed both ways (#17 goals 3 and 4): peak RSS of the command-line tool on JPEG ->
/// JPEG and JPEG -> blur -> JPEG against vips on the same job (goal: at most 1.25x), and a
/// 300 MP JPEG (the 24 MP input upscaled by vips) through the blur under 300 MB and no
/// slower than `vips gaussblur`. Peak RSS through GNU time (wait4's ru_maxrss).
struct StreamingFiles: Workload {
    let key = "stream"
    func run(_ env: BenchEnvironment) throws -> [Row] {
        let input = try inputJPEG(env)
        guard let cli = env.commandLineTool, Shell.available("vips"), FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            env.notes.append("stream: needs the cyanotype tool beside the benchmark, vips (libvips-tools) and GNU time (time): rows skipped")
            return []
        }
        let rss = { (name: String) in
            (try? String(contentsOf: env.file(name), encoding: .utf8))
                .flatMap { $0.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }.map { $0 * 1024 } ?? 0
        }
        let measured = { (name: String, command: String) in "/usr/bin/time -f %M -o \(name).rss \(command)" }
        var rows = [Row]()
        // The tool's own floor: what it maps before any pixel (Foundation, the still-image codecs;
        // FFmpeg, libheif and libjxl only when a job opens them).
        _ = try Shell.time(measured("idle-ours", "\(cli) --version"), runs: 1, in: env.dir)
        _ = try Shell.time(measured("idle-vips", "vips --version"), runs: 1, in: env.dir)
        rows.append(
            Row(
                workload: "17.3 peak RSS of the tool alone (--version)", ours: .bytes(rss("idle-ours.rss")), megapixels: nil,
                reference: "vips --version", referenceValue: .bytes(rss("idle-vips.rss")), target: .info))
        // Both sides at their default chroma: 4:4:4 at quality 90 (vips's auto mode and ours).
        let jobs: [(String, String, String)] = [
            ("JPEG -> JPEG q90", "\(cli) apply \(input.path) -q 90 -o stream-ours.jpg", "vips copy \(input.path) 'stream-vips.jpg[Q=90]'"),
            (
                "JPEG -> blur sigma 10 -> JPEG q90", "\(cli) apply \(input.path) -f 'gaussianBlur radius=10' -q 90 -o stream-blur-ours.jpg",
                "vips gaussblur \(input.path) 'stream-blur-vips.jpg[Q=90]' 10"
            ),
        ]
        for (i, (label, ours, theirs)) in jobs.enumerated() {
            let t = try Shell.timeInterleaved([measured("s\(i)-ours", ours), measured("s\(i)-vips", theirs)], runs: env.runs, in: env.dir)
            rows.append(
                Row(
                    workload: "17.3 \(label) (cyanotype apply)", ours: .time(t[0]), oursCPU: t[0].cpu, megapixels: env.image.megapixels,
                    reference: "vips", referenceValue: .time(t[1]), referenceCPU: t[1].cpu, target: .info))
            rows.append(
                Row(
                    workload: "17.3   peak RSS", ours: .bytes(rss("s\(i)-ours.rss")), megapixels: nil,
                    reference: "vips", referenceValue: .bytes(rss("s\(i)-vips.rss")), target: .ratioAtMost(1.25)))
        }
        // The chain (goal 3's third job): a centre crop, sepia, contrast and saturation, a
        // vignette and an unsharp mask. vips has no one-command chain: pyvips runs it in one
        // process (pip install pyvips); the Python interpreter's own floor is reported beside it.
        if Shell.output("python3 -c 'import pyvips'") != nil {
            try Self.pyvipsChain.write(to: env.file("chain.py"), atomically: true, encoding: .utf8)
            let w = env.image.width * 4 / 5, h = env.image.height * 4 / 5
            let ours =
                "\(cli) apply \(input.path) --crop \(w)x\(h) --gravity center -f 'sepiaTone intensity=1' "
                + "-f 'colorControls contrast=1.1 saturation=1.2' -f 'vignette intensity=1 radius=2' "
                + "-f 'unsharpMask radius=2.5 intensity=0.5' -q 90 -o chain-ours.jpg"
            let t = try Shell.timeInterleaved(
                [measured("chain-ours", ours), measured("chain-vips", "python3 chain.py \(input.path) chain-vips.jpg")], runs: env.runs,
                in: env.dir)
            _ = try Shell.time(measured("idle-pyvips", "python3 -c 'import pyvips; pyvips.Image.black(1, 1)'"), runs: 1, in: env.dir)
            rows.append(
                Row(
                    workload: "17.3 JPEG -> crop, sepia, controls, vignette, unsharp -> JPEG q90", ours: .time(t[0]), oursCPU: t[0].cpu,
                    megapixels: env.image.megapixels, reference: "pyvips", referenceValue: .time(t[1]), referenceCPU: t[1].cpu,
                    target: .info))
            rows.append(
                Row(
                    workload: "17.3   peak RSS", ours: .bytes(rss("chain-ours.rss")), megapixels: nil, reference: "pyvips",
                    referenceValue: .bytes(rss("chain-vips.rss")), target: .ratioAtMost(1.25)))
            env.notes.append(
                "17.3 chain: pyvips's peak includes Python's floor (python3 + import pyvips alone: "
                    + "\(rss("idle-pyvips.rss") / 1_000_000) MB; vips --version: \(rss("idle-vips.rss") / 1_000_000) MB)")
        } else {
            env.notes.append("17.3 chain: needs pyvips (pip install pyvips): row skipped")
        }
        // Goal 4: 300 MP, made once per run directory.
        let big = env.file("in-300mp.jpg")
        if !FileManager.default.fileExists(atPath: big.path) {
            let scale = (300e6 / Double(env.image.width * env.image.height)).squareRoot()
            try Shell.run("vips resize \(input.path) 'in-300mp.jpg[Q=90]' \(scale)", in: env.dir)
        }
        let t = try Shell.timeInterleaved(
            [
                measured("big-ours", "\(cli) apply \(big.path) -f 'gaussianBlur radius=10' -q 90 -o big-ours.jpg"),
                measured("big-vips", "vips gaussblur \(big.path) 'big-vips.jpg[Q=90]' 10"),
            ], runs: 1, in: env.dir)
        let dims = (try? ImageFileHeader(reading: try Data(contentsOf: big))).map { "\($0.width)x\($0.height)" } ?? "?"
        rows.append(
            Row(
                workload: "17.4 \(dims) JPEG -> blur sigma 10 -> JPEG", ours: .time(t[0]), oursCPU: t[0].cpu, megapixels: nil,
                reference: "vips gaussblur 10", referenceValue: .time(t[1]), referenceCPU: t[1].cpu, target: .ratioAtMost(1)))
        rows.append(
            Row(
                workload: "17.4   peak RSS (goal < 300 MB)", ours: .bytes(rss("big-ours.rss")), megapixels: nil,
                reference: "vips", referenceValue: .bytes(rss("big-vips.rss")), target: .info))
        return rows
    }

    /// The chain in pyvips, streamed (sequential access), as close to ours as vips's operations
    /// allow: Core Image's sepia matrix, contrast about mid-grey, saturation in LCh, a radial
    /// vignette, and vips's unsharp mask.
    static let pyvipsChain = """
        import sys, pyvips
        im = pyvips.Image.new_from_file(sys.argv[1], access="sequential")
        w, h = im.width, im.height
        cw, ch = w * 4 // 5, h * 4 // 5
        im = im.crop((w - cw) // 2, (h - ch) // 2, cw, ch)
        im = im.recomb([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])
        im = (im - 127.5) * 1.1 + 127.5
        im = (im.colourspace("lch") * [1, 1.2, 1]).colourspace("srgb")
        xy = pyvips.Image.xyz(cw, ch) - [cw / 2, ch / 2]
        d = (xy[0] ** 2 + xy[1] ** 2) ** 0.5 / ((cw / 2) ** 2 + (ch / 2) ** 2) ** 0.5
        im = im * (1 - 0.5 * d * d)
        im = im.cast("uchar").sharpen(sigma=2.5)
        im.write_to_file(sys.argv[2], Q=90)

        """
}
