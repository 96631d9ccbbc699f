import Cyanotype
import Foundation

/// Real photos (#26 rows 1-4): files with an ICC profile and an EXIF orientation, made here
/// from the photo-like image (24 MP) and a 3000x2000 crop of it (6 MP), through the command
/// line beside vips in the same run: wall time (best of the interleaved runs; the target's
/// Ratio), CPU time (user + sys, shown beside it) and peak RSS (GNU time).
struct RealPhotos: Workload {
    let key = "photos"

    /// A little-endian EXIF (TIFF) block holding only the orientation tag.
    static func exif(orientation: Int) -> Data {
        let entry: [UInt8] = [0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(orientation), 0, 0, 0]
        return Data([0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0] + entry + [0, 0, 0, 0])
    }

    /// Writes the values as they are (no colour management): `photo`'s pixels are tagged, not
    /// converted.
    static let unmanaged = CIContext(options: [.workingColorSpace: NSNull(), .cacheIntermediates: false])

    /// `pixels` (RGBA8, `w` x `h`) as a JPEG at quality 90, tagged with `colorSpace`'s ICC
    /// profile (none for sRGB) and with `orientation` in an EXIF block of that tag alone.
    static func photo(_ pixels: Data, _ w: Int, _ h: Int, colorSpace: CGColorSpace, orientation: Int, progressive: Bool = false) throws -> Data {
        let image = CIImage(
            bitmapData: pixels, bytesPerRow: w * 4, size: CGSize(width: w, height: h), format: .RGBA8, colorSpace: colorSpace
        ).settingProperties([kCGImagePropertyOrientation: orientation, kCyanotypePropertyRawEXIF: exif(orientation: orientation)])
        return try unmanaged.encode(
            image, as: .jpeg, colorSpace: colorSpace, options: [.lossyCompressionQuality: 0.9, .progressive: progressive])
    }

    func run(_ env: BenchEnvironment) throws -> [Row] {
        guard let cli = env.commandLineTool, Shell.available("vips"), Shell.available("vipsthumbnail"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        else {
            env.notes.append("photos: needs the cyanotype tool beside the benchmark, vips and vipsthumbnail (libvips-tools) and GNU time: rows skipped")
            return []
        }
        let (w, h) = (env.image.width, env.image.height)
        let adobe = try space(CGColorSpace.adobeRGB1998)
        let p3Path = env.file("photo-p3-6.jpg"), progPath = env.file("photo-prog-8.jpg")
        if !FileManager.default.fileExists(atPath: p3Path.path) {
            try Self.photo(env.rgba8, w, h, colorSpace: try space(CGColorSpace.displayP3), orientation: 6).write(to: p3Path)
            try Self.photo(env.rgba8, w, h, colorSpace: env.sRGB, orientation: 8, progressive: true).write(to: progPath)
        }
        // 30 Adobe RGB files of 3000x2000 (6 MP): crops of the picture, each a little different.
        let batchDir = env.file("photos-adobe")
        let (bw, bh) = (min(3000, w), min(2000, h))
        if !FileManager.default.fileExists(atPath: batchDir.path) {
            try FileManager.default.createDirectory(at: batchDir, withIntermediateDirectories: true)
            for i in 0..<30 {
                let (x0, y0) = ((i * 97) % max(1, w - bw + 1), (i * 61) % max(1, h - bh + 1))
                var crop = Data(count: bw * bh * 4)
                crop.withUnsafeMutableBytes { dst in
                    env.rgba8.withUnsafeBytes { src in
                        for y in 0..<bh {
                            (dst.baseAddress! + y * bw * 4).copyMemory(from: src.baseAddress! + ((y0 + y) * w + x0) * 4, byteCount: bw * 4)
                        }
                    }
                }
                try Self.photo(crop, bw, bh, colorSpace: adobe, orientation: 1).write(to: batchDir.appendingPathComponent(String(format: "a%02d.jpg", i)))
            }
        }
        let rss = { (name: String) in
            (try? String(contentsOf: env.file(name), encoding: .utf8))
                .flatMap { $0.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }.map { $0 * 1024 } ?? 0
        }
        let measured = { (name: String, command: String) in "/usr/bin/time -f %M -o \(name).rss \(command)" }
        let files = (0..<30).map { batchDir.appendingPathComponent(String(format: "a%02d.jpg", $0)).path }.joined(separator: " ")
        try? FileManager.default.createDirectory(at: env.file("photos-ours"), withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(at: env.file("photos-vips"), withIntermediateDirectories: true)
        let jobs: [(String, String, String, String)] = [
            (
                "26.1 24 MP P3 JPEG, orientation 6 -> 1500 px JPEG", "\(cli) apply \(p3Path.path) --max-size 1500 -q 90 -o p1-ours.jpg",
                "vipsthumbnail", "vipsthumbnail \(p3Path.path) -s 1500 -o \(env.file("p1-vips.jpg").path)'[Q=90]'"
            ),
            (
                "26.2 the same -> upright full-size JPEG, P3 kept", "\(cli) apply \(p3Path.path) -q 90 -o p2-ours.jpg",
                "vips autorot", "vips autorot \(p3Path.path) 'p2-vips.jpg[Q=90]'"
            ),
            (
                "26.3 30 Adobe RGB 6 MP JPEGs -> 800 px sRGB (batch)", "\(cli) batch \(files) --max-size 800 -q 90 -o photos-ours",
                "vipsthumbnail --export-profile srgb",
                "vipsthumbnail \(files) -s 800 --export-profile srgb -o \(env.file("photos-vips").path)/%s.jpg'[Q=90]'"
            ),
            (
                "26.4 24 MP progressive JPEG, orientation 8 -> blur sigma 10 -> JPEG",
                "\(cli) apply \(progPath.path) -f 'gaussianBlur radius=10' -q 90 -o p4-ours.jpg", "vips gaussblur 10",
                "vips gaussblur \(progPath.path) 'p4-vips.jpg[Q=90]' 10"
            ),
        ]
        var rows = [Row]()
        for (i, (label, ours, refName, theirs)) in jobs.enumerated() {
            do {
                let t = try Shell.timeInterleaved([measured("p\(i)-ours", ours), measured("p\(i)-vips", theirs)], runs: env.runs, in: env.dir)
                rows.append(
                    Row(
                        workload: label, ours: .time(t[0]), oursCPU: t[0].cpu, megapixels: nil, reference: refName,
                        referenceValue: .time(t[1]), referenceCPU: t[1].cpu, target: .ratioAtMost(1)))
                rows.append(
                    Row(
                        workload: "26.\(i + 1)   peak RSS", ours: .bytes(rss("p\(i)-ours.rss")), megapixels: nil, reference: refName,
                        referenceValue: .bytes(rss("p\(i)-vips.rss")), target: .ratioAtMost(1.25)))
            } catch {
                env.notes.append("26.\(i + 1): failed: \(error)")
            }
        }
        env.notes.append("26: the time targets compare wall time (the Ratio column; CPU ratio beside it); the issue asks <= 1.0x vips and <= 1.25x its peak memory")
        return rows
    }
}

/// The colour space named `name`; a bench error where this build lacks it.
private func space(_ name: CFString) throws -> CGColorSpace {
    guard let s = CGColorSpace(name: name) else { throw BenchError("no colour space \(name) here") }
    return s
}
